//! Load: `apply` makes the applied plugin ([`crate::host`]), a handle for index.js's listener.

use std::rc::Rc;

use napi::bindgen_prelude::{Env, External, Unknown};
use napi_derive::napi;

use crate::config::Config;
use crate::helpers::keep_helpers;
use crate::host::Plugin;
use crate::napi_ext::UnknownExt;

/// `apply(ctx, config, helpers, pid)`, with the config index.js checked, its helpers and
/// `process.pid`. Throws an `Error` when `ctx` is not an object or a helper is missing.
#[napi(ts_return_type = "ExternalObject<unknown>")]
pub fn apply(
  env: Env,
  ctx: Unknown,
  config: CheckedConfig,
  helpers: Unknown,
  pid: u32,
) -> napi::Result<External<Rc<Plugin>>> {
  let context =
    ctx.as_object().ok_or_else(|| napi::Error::from_reason("tmux-context: the context is not an object"))?;
  let helpers = keep_helpers(&env, helpers)?;
  let config = Config::of_checked(config.refresh_interval_ms, config.query_timeout_ms);
  let plugin = Plugin::new(&env, context, config, helpers, pid)?;
  plugin.prepare(&env);
  Ok(External::new(Rc::new(plugin)))
}

/// The config as index.js's `checkConfig` accepted it (ms: a safe integer, and `1..=2147483647`).
#[napi(object)]
pub struct CheckedConfig {
  pub refresh_interval_ms: Option<f64>,
  pub query_timeout_ms: Option<u32>,
}

/// package.json's version (through build.rs), for the debug line at load.
#[napi]
pub const VERSION: &str = env!("NPM_PACKAGE_VERSION");
