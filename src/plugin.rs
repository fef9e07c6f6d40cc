//! Load and registration: `apply(ctx, config, helpers)` makes the applied plugin ([`crate::host`])
//! and registers the prepended `agent/pre-step` listener on `ctx`: index.js's `preStep`, bound to
//! this plugin's [`listener::after_next_call`].

use std::rc::Rc;

use napi::bindgen_prelude::{Env, FunctionCallContext, Object, ToNapiValue, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::config::Config;
use crate::host::Plugin;
use crate::listener;
use crate::napi_ext::{object_of, Caught, Failure, JsResult, Returned, UnknownExt};
use crate::session_index::{use_scan, HELPERS_WANTED};
use crate::waiting::bind;

/// `apply(ctx, config, helpers)`: registers the listener for the lifetime of `ctx` and returns
/// `undefined`; `config` is the config index.js checked, `helpers` the functions index.js hands
/// over (`{ spread, newestCandidate, preStep }`). Throws an `Error` when `ctx` is not an object or
/// `helpers` lacks one of them.
#[napi]
pub fn apply(env: Env, ctx: Unknown, config: CheckedConfig, helpers: Unknown) -> napi::Result<()> {
  let context: Object =
    ctx.as_object().ok_or_else(|| napi::Error::from_reason("tmux-context: the context is not an object"))?;
  use_scan(&env, helpers)?;
  let pre_step = helpers.get_loose(&env, c"preStep")?;
  if pre_step.as_function().is_none() {
    return Err(Failure::new(HELPERS_WANTED).into());
  }
  let config = Config::of_checked(config.refresh_interval_ms, config.query_timeout_ms);
  let plugin = Rc::new(Plugin::new(&env, context, config)?);
  plugin.prepare(&env);
  register_listener(&env, ctx, pre_step, plugin)?;
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

/// `ctx.on('agent/pre-step', preStep.bind(undefined, afterNext, ctx), { prepend: true })`, with
/// `afterNext` this plugin's [`listener::after_next_call`].
fn register_listener(env: &Env, ctx: Unknown, pre_step: Unknown, plugin: Rc<Plugin>) -> JsResult<()> {
  let after_next = env
    .create_function_from_closure::<Unknown, _, _>("tmuxContextAfterNext", move |cx: FunctionCallContext| {
      Ok(Returned::of(listener::after_next_call(&cx, &plugin)))
    })
    .caught(env)?;
  let listener = bind(env, pre_step, vec![after_next.to_unknown(), ctx])?;
  let options = object_of(env, &[(c"prepend", true.into_unknown(env).caught(env)?)])?;
  let on = ctx.get_loose(env, c"on")?;
  let event = "agent/pre-step".into_unknown(env).caught(env)?;
  on.call_with(env, ctx, vec![event, listener, options.to_unknown()])?;
  Ok(())
}
