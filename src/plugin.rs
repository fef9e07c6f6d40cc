//! Load: `apply(ctx, config, helpers)` makes the applied plugin ([`crate::host`]) and hands it to
//! index.js as an opaque handle, which index.js's listener passes back each step
//! ([`crate::listener`]).

use std::rc::Rc;

use napi::bindgen_prelude::{Env, External, Unknown};
use napi_derive::napi;

use crate::config::Config;
use crate::helpers::keep_helpers;
use crate::host::Plugin;
use crate::napi_ext::UnknownExt;

/// `apply(ctx, config, helpers, pid)`: the applied plugin's handle, for index.js's listener.
/// `config` is as index.js checked it, `helpers` index.js's `{ spread, newestReading, waitFor,
/// enter }`, `pid` `process.pid`. Throws an `Error` when `ctx` is not an object or `helpers` lacks
/// one of them.
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

/// The config as index.js's `checkConfig` hands it over: only values it accepted.
#[napi(object)]
pub struct CheckedConfig {
  /// ms, a non-negative safe integer.
  pub refresh_interval_ms: Option<f64>,
  /// ms, in `1..=2147483647`.
  pub query_timeout_ms: Option<u32>,
}

/// The npm package's version (package.json's, through build.rs), for the debug line at load.
#[napi]
pub const VERSION: &str = env!("NPM_PACKAGE_VERSION");
