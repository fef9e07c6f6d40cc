//! One applied plugin, as its listener and continuations share it: the context (weakly), the
//! config, the backoff and what was logged; its ways to the host (the logger, the executor
//! service, the query's request parts); and how a step's failure is contained.

use std::cell::{OnceCell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use napi::bindgen_prelude::{Env, Object, ToNapiValue, Unknown};
use napi::JsValue;

use crate::backoff::Backoff;
use crate::command::build_command;
use crate::config::Config;
use crate::diagnostics::{self, Reason};
use crate::napi_ext::{object_of, per_env, Caught, Failure, Held, JsResult, UnknownExt, Weak};
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
}

impl Plugin {
  /// A plugin applied to `ctx` with `config`.
  pub fn new(env: &Env, ctx: Object, config: Config) -> JsResult<Plugin> {
    Ok(Plugin {
      ctx: Weak::new(env, ctx)?,
      config,
      request_parts: OnceCell::new(),
      backoff: RefCell::default(),
      last_reason: RefCell::new(None),
      warned_once: RefCell::default(),
      ctx_get: RefCell::new(None),
    })
  }

  /// `ctx.logger.warn(message)`; a logger that throws is ignored.
  pub fn warn(&self, env: &Env, message: &str) {
    self.log(env, c"warn", message);
  }

  /// The context, while it lives.
  pub fn context<'env>(&self, env: &'env Env) -> JsResult<Unknown<'env>> {
    self.ctx.get(env).map(|ctx| ctx.to_unknown()).ok_or_else(|| Failure::new("tmux-context: the context is gone"))
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
      log.call_with(env, logger, vec![message.into_unknown(env).caught(env)?])?;
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

  /// `{ command, timeoutMs }`, made at the first query ([`command`]).
  pub fn request_parts<'env>(&self, env: &'env Env) -> JsResult<Unknown<'env>> {
    if let Some(parts) = self.request_parts.get() {
      return parts.get(env);
    }
    let timeout_ms = (self.config.query_timeout_ms as f64).into_unknown(env).caught(env)?;
    let parts = object_of(env, &[(c"command", command(env)?), (c"timeoutMs", timeout_ms)])?;
    let _ = self.request_parts.set(Held::new(env, parts.to_unknown())?);
    Ok(parts.to_unknown())
  }

  /// `ctx.get('shell')`, else `ctx.get('bash')` (the 0.0.x harness's executor); `None` when neither
  /// is mounted.
  pub fn executor<'env>(&self, env: &'env Env) -> JsResult<Option<Unknown<'env>>> {
    let ctx = self.context(env)?;
    let get = self.ctx_get(env, ctx)?;
    for name in ["shell", "bash"] {
      let service = get.call_with(env, ctx, vec![name.into_unknown(env).caught(env)?])?;
      if !service.is_undefined() {
        return Ok(Some(service));
      }
    }
    Ok(None)
  }

  /// `ctx.get`, read once while it lives.
  fn ctx_get<'env>(&self, env: &'env Env, ctx: Unknown<'env>) -> JsResult<Unknown<'env>> {
    if let Some(get) = self.ctx_get.borrow().as_ref().and_then(|f| f.get(env)) {
      return Ok(get.to_unknown());
    }
    let get = ctx.get_loose(env, c"get")?;
    if let Some(function) = get.as_object() {
      *self.ctx_get.borrow_mut() = Weak::new(env, function).ok();
    }
    Ok(get)
  }

  /// At apply, what the first step would make otherwise (`ctx.get`, the request parts), so that a
  /// resumed session's first turn does not wait for it; what fails here is met again, and told, at
  /// that step.
  pub fn prepare(&self, env: &Env) {
    let _ = self.request_parts(env);
    let _ = self.context(env).and_then(|ctx| self.ctx_get(env, ctx));
  }
}

/// The command for this process, through the binary of the tmux server of `$TMUX` when it is
/// checked (`server.rs`), made once per JS environment and `$TMUX` (a new plugin reuses it: the
/// command checks the server's start time again before it runs that binary).
fn command<'env>(env: &'env Env) -> JsResult<Unknown<'env>> {
  type Made = RefCell<Option<(Option<String>, Held)>>;
  let made = per_env::<Made>(env, || Ok(RefCell::new(None)))?;
  let tmux = std::env::var("TMUX").ok();
  if let Some((_, command)) = made.borrow().as_ref().filter(|(key, _)| *key == tmux) {
    return command.get(env);
  }
  let server = tmux.as_deref().and_then(|tmux| checked_server(tmux, std::path::Path::new("/proc"), own_uid()?));
  let command = build_command(process_id(env)?, server).into_unknown(env).caught(env)?;
  *made.borrow_mut() = Some((tmux, Held::new(env, command)?));
  Ok(command)
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
    _ => Err(Failure::new("process.pid is not a pid")),
  }
}

/// What a step of the listener decided.
pub enum Outcome<'env> {
  /// Hand `next()`'s decision back untouched.
  Pass,
  /// Hand back this value (a new decision, or the promise of one).
  Value(Unknown<'env>),
}

/// Runs one step of the listener so that nothing escapes: a failure or a panic is logged once as a
/// warning and the decision passes through.
pub fn contain<'env>(
  env: &'env Env,
  plugin: &Plugin,
  decision: Unknown<'env>,
  step: impl FnOnce(&'env Env) -> JsResult<Outcome<'env>>,
) -> Unknown<'env> {
  let reason = match catch_unwind(AssertUnwindSafe(|| step(env))) {
    Ok(Ok(Outcome::Value(v))) => return v,
    Ok(Ok(Outcome::Pass)) => return decision,
    Ok(Err(Failure(reason))) => reason,
    Err(panic) => panic
      .downcast_ref::<&str>()
      .map(|s| s.to_string())
      .or_else(|| panic.downcast_ref::<String>().cloned())
      .unwrap_or_else(|| "internal panic".into()),
  };
  plugin.warn(env, &diagnostics::listener_failed_warning(&reason));
  decision
}
