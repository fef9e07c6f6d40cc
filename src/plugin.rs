//! Load, config and registration: `apply(ctx, config)` validates the config, makes the applied
//! plugin ([`crate::host`]) and registers the prepended `agent/pre-step` listener on `ctx`.

use std::rc::Rc;

use napi::bindgen_prelude::{Env, FunctionCallContext, Object, Status, ToNapiValue, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::config::{self, Config, RawValue};
use crate::host::Plugin;
use crate::listener;
use crate::napi_ext::{argument, js_string, object_of, Caught, JsResult, Returned, UnknownExt};
use crate::session_index::use_scan;

/// `apply(ctx, config, scan)`: registers the listener for the lifetime of `ctx` and returns
/// `undefined`; `scan` is the package's `scan.js` (`{ spread, newestCandidate }`, index.js hands it
/// over). Throws the contract's `TypeError` on an invalid config (the plugin then never listens),
/// or an `Error` when `ctx` is not an object or `scan` lacks its functions.
#[napi]
pub fn apply(env: Env, ctx: Unknown, config: Unknown, scan: Unknown) -> napi::Result<()> {
  let config = match read_config(&env, config)? {
    Ok(config) => config,
    Err(message) => {
      env.throw_type_error(&message, None)?;
      // Already thrown: napi-rs leaves a pending exception in place.
      return Err(napi::Error::new(Status::PendingException, message));
    }
  };
  let context: Object = ctx
    .as_object()
    .ok_or_else(|| napi::Error::from_reason("tmux-context: the context is not an object"))?;
  use_scan(&env, scan)?;
  let plugin = Rc::new(Plugin::new(&env, context, config)?);
  register_listener(&env, ctx, plugin)?;
  Ok(())
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

/// `config[key]`: `None` when undefined (or config itself is not an object), else its number
/// (`NaN` for a non-number, which every rule rejects) and `String(value)`.
fn read_config_key(env: &Env, config: Unknown, key: &std::ffi::CStr) -> JsResult<Option<RawValue>> {
  if !config.is_object() {
    return Ok(None);
  }
  let value = config.get_loose(env, key)?;
  if value.is_undefined() {
    return Ok(None);
  }
  Ok(Some(RawValue {
    shown: js_string(env, value)?,
    number: value.as_number().unwrap_or(f64::NAN),
  }))
}

/// The validated config, or the exact message of the `TypeError` to throw. Keys are read and
/// checked in order, so an invalid `refreshIntervalMs` fails before `queryTimeoutMs` is read.
fn read_config(env: &Env, config: Unknown) -> JsResult<Result<Config, String>> {
  let refresh_interval_ms = match config::refresh_interval(read_config_key(env, config, c"refreshIntervalMs")?) {
    Ok(interval) => interval,
    Err(message) => return Ok(Err(message)),
  };
  Ok(
    config::query_timeout(read_config_key(env, config, c"queryTimeoutMs")?).map(|query_timeout_ms| Config {
      refresh_interval_ms,
      query_timeout_ms,
    }),
  )
}
