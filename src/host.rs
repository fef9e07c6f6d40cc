//! One applied plugin: its context (weakly), config, backoff and what it logged; the logger, the
//! executor service and the query's request; how a step's failure is contained.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use napi::bindgen_prelude::{Env, Object, ToNapiValue, Unknown};
use napi::JsValue;

use crate::backoff::Backoff;
use crate::command::build_command;
use crate::config::Config;
use crate::diagnostics::{self, Reason};
use crate::helpers::Helpers;
use crate::napi_ext::{object_of, per_env, Caught, Failure, Held, JsResult, UnknownExt, Weak};
use crate::server::{checked_server, own_uid};

/// One applied plugin, shared by its listener and its queries.
pub struct Plugin {
  /// Weak: once Cordis lets go of a disposed context, nothing of ours keeps its object graph from
  /// the next GC (a strong reference would until our finalizer runs: about 8 KiB a load/unload).
  ctx: Weak,
  pub config: Config,
  /// index.js's functions, from the `apply` that made this plugin.
  pub helpers: Helpers,
  /// `process.pid`, as the JS package reads it.
  pub pid: u32,
  /// No query while a stuck tmux is given time.
  pub backoff: RefCell<Backoff<Instant>>,
  /// Why the last first step got no reading, as logged (`None` after a reading or an unchanged one).
  last_reason: RefCell<Option<Reason>>,
  warned_once: RefCell<Vec<&'static str>>,
  /// `ctx.get`, read once: through the context proxy each turn it costs an `Error` with its stack.
  ctx_get: RefCell<Option<Weak>>,
}

impl Plugin {
  pub fn new(env: &Env, ctx: Object, config: Config, helpers: Helpers, pid: u32) -> JsResult<Plugin> {
    Ok(Plugin {
      ctx: Weak::new(env, ctx)?,
      config,
      helpers,
      pid,
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

  /// At apply, `ctx.get` (each first step reads it; a failure is met again, and told, there).
  pub fn prepare(&self, env: &Env) {
    let _ = self.context(env).and_then(|ctx| self.ctx_get(env, ctx));
  }
}

/// The command for process `pid` (through the binary of `$TMUX`'s server once [`checked_server`]
/// passes it; the command checks its start time again), made at the first query, once per env and `$TMUX`.
pub fn command(env: &Env, pid: u32) -> JsResult<Unknown<'_>> {
  let made = per_env::<RefCell<Option<(Option<String>, Held)>>>(env, || Ok(RefCell::new(None)))?;
  let tmux = std::env::var("TMUX").ok();
  if let Some((_, holder)) = made.borrow().as_ref().filter(|(key, _)| *key == tmux) {
    return holder.get(env)?.get_loose(env, c"command");
  }
  let server = tmux.as_deref().and_then(|tmux| checked_server(tmux, std::path::Path::new("/proc"), own_uid()?));
  let command = build_command(pid, server).into_unknown(env).caught(env)?;
  // Held as `{ command }`, an object (a string cannot be referenced).
  *made.borrow_mut() = Some((tmux, Held::new(env, object_of(env, &[(c"command", command)])?.to_unknown())?));
  Ok(command)
}

/// What a step decided: pass `next()`'s decision back untouched, or this value (a new decision, or
/// the promise of one).
pub enum Outcome<'env> {
  Pass,
  Value(Unknown<'env>),
}

/// Runs a step so that nothing escapes: a failure or a panic is one warning, and the decision passes.
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
