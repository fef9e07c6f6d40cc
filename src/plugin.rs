//! One applied plugin: `apply(ctx, config)` validates the config, keeps what every turn needs
//! (the context, the config, the query's request parts, the pending calls) and registers the
//! prepended `agent/pre-step` listener on `ctx`. Also the plugin's ways to the host: its logger and
//! its executor service.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;
use std::time::Instant;

use napi::bindgen_prelude::{Env, FunctionCallContext, JsObjectValue, Object, Result as NapiResult, Status, Unknown};
use napi::JsValue;

use crate::command::build_command;
use crate::config::{self, Config, RawValue};
use crate::diagnostics::Reason;
use crate::listener;
use crate::napi_ext::{
  argument, js_str, js_string, object_of, Caught, Held, JsResult, Returned, ToJs, UnknownExt, Weak,
};

use crate::backoff::Backoff;
use crate::server::{checked_server, own_uid};

/// One applied plugin, shared by its listener and its continuations.
pub struct Plugin {
  /// The context the plugin was applied to, held weakly: Cordis holds it (its listener record
  /// names it) while the plugin is mounted, and once it is disposed nothing of ours keeps its
  /// object graph from the next GC (a strong reference would, until the listener's finalizer ran
  /// on a later turn of the event loop: about 8 KiB a load/unload cycle).
  ctx: Weak,
  pub config: Config,
  /// `{ command, timeoutMs }`: the query's values, made at the first query (the command names the
  /// tmux server's binary once it is checked).
  request_parts: OnceCell<Held>,
  /// No query while a stuck tmux is given time.
  pub backoff: RefCell<Backoff<Instant>>,
  /// Why the last first step got no reading, as logged (`None` after a reading or an unchanged one).
  last_reason: RefCell<Option<Reason>>,
  /// The warnings logged once per plugin, as logged.
  warned_once: RefCell<Vec<&'static str>>,
  /// `ctx.get` (a function bound to the context's reflect service), read once: reading it through
  /// the context proxy each turn costs an accessor call and an `Error` with its stack.
  ctx_get: RefCell<Option<Weak>>,
  /// An object that owns this plugin (`napi_wrap`), which a step's continuation is bound to, so a
  /// step keeps its plugin while it waits; held weakly here and made again once collected.
  handle: RefCell<Option<Weak>>,
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
  let context = ctx
    .as_object()
    .ok_or_else(|| napi::Error::from_reason("tmux-context: the context is not an object"))?;
  let plugin = Rc::new(Plugin {
    ctx: Weak::new(env, context)?,
    config,
    request_parts: OnceCell::new(),
    backoff: RefCell::default(),
    last_reason: RefCell::new(None),
    warned_once: RefCell::default(),
    ctx_get: RefCell::new(None),
    handle: RefCell::new(None),
  });
  register_listener(env, ctx, plugin)?;
  Ok(Returned::of(().to_js(env)?))
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
  /// The object that owns this plugin: the one made last while it lives, else a new one.
  pub fn handle<'env>(self: &Rc<Plugin>, env: &'env Env) -> JsResult<Unknown<'env>> {
    if let Some(handle) = self.handle.borrow().as_ref().and_then(|h| h.get(env)) {
      return Ok(handle.to_unknown());
    }
    let mut handle = Object::new(env).caught(env)?;
    handle.wrap(Rc::clone(self), None).caught(env)?;
    *self.handle.borrow_mut() = Some(Weak::new(env, handle)?);
    Ok(handle.to_unknown())
  }

  /// The plugin a handle owns ([`Plugin::handle`]).
  pub fn of_handle(env: &Env, handle: Unknown) -> Option<Rc<Plugin>> {
    let handle = handle.as_object()?;
    match handle.unwrap::<Rc<Plugin>>() {
      Ok(plugin) => Some(Rc::clone(plugin)),
      Err(_) => {
        crate::napi_ext::take_exception(env);
        None
      }
    }
  }

  /// `ctx.logger.warn(message)`; a logger that throws is ignored.
  pub fn warn(&self, env: &Env, message: &str) {
    self.log(env, c"warn", message);
  }

  /// The context, while it lives.
  pub fn context<'env>(&self, env: &'env Env) -> JsResult<Unknown<'env>> {
    self
      .ctx
      .get(env)
      .map(|ctx| ctx.to_unknown())
      .ok_or_else(|| crate::napi_ext::Failure::new("tmux-context: the context is gone"))
  }

  /// `ctx.logger.warn(message)`, the first time only.
  pub fn warn_once(&self, env: &Env, message: &'static str) {
    if self.warned_once.borrow().contains(&message) {
      return;
    }
    self.warned_once.borrow_mut().push(message);
    self.warn(env, message);
  }

  /// `ctx.logger[level](message)`; a logger that throws is ignored.
  fn log(&self, env: &Env, level: &std::ffi::CStr, message: &str) {
    let _ = (|| -> JsResult<()> {
      let logger = self.context(env)?.get_loose(env, c"logger")?;
      let log = logger.get_loose(env, level)?;
      log.call_with(env, logger, vec![js_str(env, message)?])?;
      Ok(())
    })();
  }

  /// Why this first step gets no reading, at debug level, once each time the reason changes.
  pub fn no_reading(&self, env: &Env, reason: Reason) {
    if self.last_reason.borrow().as_ref() == Some(&reason) {
      return;
    }
    self.log(env, c"debug", &reason.message());
    *self.last_reason.borrow_mut() = Some(reason);
  }

  /// The query found the location (a reading, or an unchanged one): the next reason is news.
  pub fn located(&self) {
    self.last_reason.borrow_mut().take();
  }

  /// `{ command, timeoutMs }`, made at the first query: the command for this process, through the
  /// binary of the tmux server of `$TMUX` when it is checked (`server.rs`).
  pub fn request_parts<'env>(&self, env: &'env Env) -> JsResult<Unknown<'env>> {
    if let Some(parts) = self.request_parts.get() {
      return parts.get(env);
    }
    let server = std::env::var("TMUX")
      .ok()
      .and_then(|tmux| checked_server(&tmux, std::path::Path::new("/proc"), own_uid()?));
    let parts = object_of(
      env,
      &[
        (c"command", js_str(env, &build_command(process_id(env)?, server))?),
        (c"timeoutMs", (self.config.query_timeout_ms as f64).to_js(env)?),
      ],
    )?;
    let _ = self.request_parts.set(Held::new(env, parts.to_unknown())?);
    Ok(parts.to_unknown())
  }

  /// `ctx.get('shell')`, else `ctx.get('bash')` (the 0.0.x harness's executor); `None` when neither
  /// is mounted.
  pub fn executor<'env>(&self, env: &'env Env) -> JsResult<Option<Unknown<'env>>> {
    let ctx = self.context(env)?;
    let cached = self
      .ctx_get
      .borrow()
      .as_ref()
      .and_then(|f| f.get(env))
      .map(|f| f.to_unknown());
    let get = match cached {
      Some(get) => get,
      None => {
        let get = ctx.get_loose(env, c"get")?;
        if let Some(function) = get.as_object() {
          *self.ctx_get.borrow_mut() = Weak::new(env, function).ok();
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

/// This process's pid. Under WASI, where `std::process::id()` panics, the host's `process.pid`.
#[cfg(not(target_os = "wasi"))]
fn process_id(_env: &Env) -> JsResult<u32> {
  Ok(std::process::id())
}

#[cfg(target_os = "wasi")]
fn process_id(env: &Env) -> JsResult<u32> {
  use napi::bindgen_prelude::JsObjectValue;
  let global = env.get_global().caught(env)?;
  let process: Unknown = global.get_c_named_property_unchecked(c"process").caught(env)?;
  match process.get_loose(env, c"pid")?.as_number() {
    Some(pid) if pid >= 1.0 && pid <= u32::MAX as f64 && pid.fract() == 0.0 => Ok(pid as u32),
    _ => Err(crate::napi_ext::Failure::new("process.pid is not a pid")),
  }
}
