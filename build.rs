//! napi-rs's build glue, and the npm package's version (package.json's `version`) for the `VERSION`
//! export, so the load line names the build's version without reading package.json at run time.
fn main() {
  napi_build::setup();
  println!("cargo:rerun-if-changed=package.json");
  let manifest = std::fs::read_to_string("package.json").expect("package.json beside Cargo.toml");
  let manifest: serde_json::Value = serde_json::from_str(&manifest).expect("package.json is JSON");
  let version = manifest["version"].as_str().expect("a \"version\" string in package.json");
  println!("cargo:rustc-env=NPM_PACKAGE_VERSION={version}");
}
