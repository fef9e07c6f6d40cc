//! napi-rs's build glue, and the npm package's version (package.json, where it is written) for the
//! module's `version` export, so the load line names it without reading package.json at run time.
fn main() {
  napi_build::setup();
  println!("cargo:rerun-if-changed=package.json");
  let manifest = std::fs::read_to_string("package.json").expect("package.json beside Cargo.toml");
  let version = manifest
    .split_once("\"version\"")
    .and_then(|(_, rest)| rest.split('"').nth(1))
    .expect("a \"version\" in package.json");
  println!("cargo:rustc-env=NPM_PACKAGE_VERSION={version}");
}
