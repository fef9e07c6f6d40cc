//! Load and registration: `apply(ctx, config, scan)` makes the applied plugin ([`crate::host`]) and
//! registers the prepended `agent/pre-step` listener on `ctx`.

use std::rc::Rc;

use napi::bindgen_prelude::{Env, FunctionCallContext, Object, ToNapiValue, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::config::Config;
use crate::host::Plugin;
use crate::listener;
use crate::napi_ext::{argument, object_of, Caught, JsResult, Returned, UnknownExt};
use crate::session_index::use_scan;

/// `apply(ctx, config, scan)`: registers the listener for the lifetime of `ctx` and returns
/// `undefined`; `config` is the config index.js checked, `scan` the walk index.js hands over
/// (`{ spread, newestCandidate }`). Throws an `Error` when `ctx` is not an object or `scan` lacks
/// its functions.
#[napi]
pub fn apply(env: Env, ctx: Unknown, config: CheckedConfig, scan: Unknown) -> napi::Result<()> {
  let context: Object = ctx
    .as_object()
    .ok_or_else(|| napi::Error::from_reason("tmux-context: the context is not an object"))?;
  use_scan(&env, scan)?;
  let config = Config::of_checked(config.refresh_interval_ms, config.query_timeout_ms);
  let plugin = Rc::new(Plugin::new(&env, context, config)?);
  plugin.prepare(&env);
  register_listener(&env, ctx, plugin)?;
  Ok(())
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

/// `ctx.on('agent/pre-step', listener, { prepend: true })`.
fn register_listener(env: &Env, ctx: Unknown, plugin: Rc<Plugin>) -> JsResult<()> {
  let listener = env
    .create_function_from_closure::<Unknown, _, _>("tmuxContextPreStep", move |cx: FunctionCallContext| {
      let env = &*cx.env;
      let promise = listener::pre_step(env, &plugin, argument(&cx, 0), argument(&cx, 1))?;
      Ok(Returned::of(promise))
    })
    .caught(env)?;
  let options = object_of(env, &[(c"prepend", true.into_unknown(env).caught(env)?)])?;
  let on = ctx.get_loose(env, c"on")?;
  let event = "agent/pre-step".into_unknown(env).caught(env)?;
  on.call_with(env, ctx, vec![event, listener.to_unknown(), options.to_unknown()])?;
  Ok(())
}
