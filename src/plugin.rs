//! One applied plugin: `apply(ctx, config)` validates the config, keeps what every turn needs
//! (the context, the config, the query's request parts, the pending calls) and registers the
//! prepended `agent/pre-step` listener on `ctx`. Also the plugin's ways to the host: its logger and
//! its executor service.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::{Env, FunctionCallContext, Result as NapiResult, Status, Unknown};
use napi::JsValue;

use crate::command::build_command;
use crate::config::{self, Config, RawValue};
use crate::listener;
use crate::napi_ext::{js_str, js_string, object_of, Caught, Held, JsResult, Returned, ToJs, UnknownExt};
use crate::pending::Pending;

/// One applied plugin, shared by its listener and its continuations.
pub struct Plugin {
  /// The context the plugin was applied to. Held strongly, as the JS listener's closure holds it:
  /// the listener keeps its context. This makes no leak: Cordis drops the listener when the
  /// context is disposed, and the listener owns this.
  pub ctx: Held,
  pub config: Config,
  /// `{ command, timeoutMs }`: the query's values, made once.
  pub request_parts: Held,
  /// `ctx.get` (a function bound to the context's reflect service), read once: reading it through
  /// the context proxy each turn costs an accessor call and an `Error` with its stack.
  ctx_get: RefCell<Option<Held>>,
  /// Calls waiting for `next()` or the executor, and the functions that continue them.
  pub pending: Pending,
}

/// The N-API entry `apply(ctx, config)`: throws the contract's `TypeError` on invalid config (the
/// plugin then never listens), else registers the listener and returns `undefined`.
pub fn apply(cx: FunctionCallContext) -> NapiResult<Returned> {
  let env = &*cx.env;
  let (ctx, config) = (argument(&cx, 0), argument(&cx, 1));
  let config = match read_config(env, config)? {
    Ok(config) => config,
    Err(message) => {
      env.throw_type_error(&message, None)?;
      // Already thrown: napi-rs leaves a pending exception in place.
      return Err(napi::Error::new(Status::PendingException, message));
    }
  };
  let request_parts = object_of(
    env,
    &[
      (c"command", js_str(env, &build_command(std::process::id()))?),
      (c"timeoutMs", (config.query_timeout_ms as f64).to_js(env)?),
    ],
  )?;
  let plugin = Rc::new(Plugin {
    ctx: Held::new(env, ctx)?,
    config,
    request_parts: Held::new(env, request_parts.to_unknown())?,
    ctx_get: RefCell::new(None),
    pending: Pending::default(),
  });
  plugin.pending.set_up(env, &plugin)?;
  register_listener(env, ctx, plugin)?;
  Ok(Returned::of(().to_js(env)?))
}

/// Argument `index` of a call, `undefined` when the caller passed fewer.
pub fn argument<'a>(cx: &'a FunctionCallContext, index: usize) -> Unknown<'a> {
  match cx.get::<Unknown>(index) {
    Ok(value) => value,
    Err(_) => ().to_js(cx.env).expect("undefined"),
  }
}

/// `ctx.on('agent/pre-step', listener, { prepend: true })`.
fn register_listener(env: &Env, ctx: Unknown, plugin: Rc<Plugin>) -> JsResult<()> {
  let listener = env
    .create_function_from_closure::<Unknown, _, _>("tmuxContextPreStep", move |cx| {
      let env = &*cx.env;
      let promise = listener::pre_step(env, &plugin, argument(&cx, 0), argument(&cx, 1))?;
      Ok(Returned::of(promise))
    })
    .caught(env)?;
  let options = object_of(env, &[(c"prepend", true.to_js(env)?)])?;
  let on = ctx.get_loose(env, c"on")?;
  on.call_with(
    env,
    ctx,
    vec![
      js_str(env, "agent/pre-step")?,
      listener.to_unknown(),
      options.to_unknown(),
    ],
  )?;
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

impl Plugin {
  /// `ctx.logger.warn(message)`; a logger that throws is ignored.
  pub fn warn(&self, env: &Env, message: &str) {
    let _ = (|| -> JsResult<()> {
      let logger = self.ctx.get(env)?.get_loose(env, c"logger")?;
      let warn = logger.get_loose(env, c"warn")?;
      warn.call_with(env, logger, vec![js_str(env, message)?])?;
      Ok(())
    })();
  }

  /// `ctx.get('shell')`, else `ctx.get('bash')` (the 0.0.x harness's executor); `None` when neither
  /// is mounted.
  pub fn executor<'env>(&self, env: &'env Env) -> JsResult<Option<Unknown<'env>>> {
    let ctx = self.ctx.get(env)?;
    let cached = self.ctx_get.borrow().as_ref().and_then(|f| f.get(env).ok());
    let get = match cached {
      Some(get) => get,
      None => {
        let get = ctx.get_loose(env, c"get")?;
        if get.is_object() {
          *self.ctx_get.borrow_mut() = Held::new(env, get).ok();
        }
        get
      }
    };
    for name in ["shell", "bash"] {
      let service = get.call_with(env, ctx, vec![js_str(env, name)?])?;
      if !service.is_undefined() {
        return Ok(Some(service));
      }
    }
    Ok(None)
  }
}
