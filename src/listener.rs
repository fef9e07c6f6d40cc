//! The `agent/pre-step` listener, step by step as the contract lists them: `await next()` first,
//! then, on the first step of a turn that was not rejected or aborted, find the newest reading
//! the model still sees, hold back within the refresh interval, query tmux through the executor,
//! and put a reading in front of the step when the location changed. On a later step, only a
//! compaction inside `next()` that shadowed the newest reading brings a reading. Any failure after `next()` (a thrown JS error, a
//! Rust panic) becomes one `ctx.logger.warn` and the decision passes through.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Env, FunctionCallContext, JsObjectValue, Unknown};
use napi::JsValue;

use crate::diagnostics::{self, Reason};
use crate::executor::{executor_api, ExecutorApi, Member, QUERY_STDOUT_MAX_BYTES};
use crate::message::enter_with_reading;
use crate::napi_ext::{
  argument, js_str, object_of, take_exception, Caught, Deferred, Failure, Held, JsResult, ToJs, UnknownExt,
};
use crate::parse::parse_output;
use crate::pending::{self, Query, OWN_TIMER_GRACE_MS};
use crate::plugin::Plugin;
use crate::schedule::{decide_injection, within_refresh_interval, Injection, Previous};
use crate::session_index::{newest_reading, previous_reading, replace_generation, seen_generation};
use crate::surface::surface_moved;

/// The newest reading of the session, as far as this step needed it so far: read (`Known`), or
/// still to be read from the agent's session, once a location makes it matter (`Unread`).
pub enum PreviousReading {
  Known(Option<Previous>),
  Unread(Held),
}

impl PreviousReading {
  fn read(self, env: &Env) -> JsResult<Option<Previous>> {
    match self {
      PreviousReading::Known(previous) => Ok(previous),
      PreviousReading::Unread(agent) => previous_reading(env, agent.get(env)?),
    }
  }
}

/// `v === undefined || v === null`.
fn is_nullish(v: &Unknown) -> bool {
  matches!(v.get_type(), Ok(napi::ValueType::Undefined | napi::ValueType::Null))
}

/// What a step of the listener decided.
pub enum Outcome<'env> {
  /// Hand `next()`'s decision back untouched.
  Pass,
  /// Hand back this value (a new decision).
  Value(Unknown<'env>),
}

/// The payload fields the listener reads before calling `next()`, as the JS listener destructures
/// `{ agent, turn, step, signal }`. They travel to the continuation as its bound arguments.
pub struct PreStep<'env> {
  agent: Option<Unknown<'env>>,
  signal: Option<Unknown<'env>>,
  turn: String,
  first_step: bool,
  /// On a step after the first, the surface's replace generation before `next()` (`None` without
  /// a surface): a compaction inside `next()` changes it.
  generation: Option<f64>,
}

impl<'env> PreStep<'env> {
  /// How many arguments [`PreStep::bound_args`] gives.
  pub const BOUND_ARGS: usize = 5;

  fn empty() -> PreStep<'env> {
    PreStep {
      agent: None,
      signal: None,
      turn: String::new(),
      first_step: false,
      generation: None,
    }
  }

  fn read(env: &'env Env, payload: Unknown<'env>) -> PreStep<'env> {
    let field = |key| payload.get_loose(env, key).ok();
    let agent = field(c"agent").filter(|v| v.is_object());
    let first_step = field(c"step").and_then(|s| s.as_number()) == Some(1.0);
    PreStep {
      generation: agent
        .filter(|_| !first_step)
        .and_then(|agent| replace_generation(env, agent)),
      agent,
      signal: field(c"signal").filter(|v| !is_nullish(v)),
      turn: field(c"turn")
        .and_then(|t| t.to_js_string(env).ok())
        .unwrap_or_default(),
      first_step,
    }
  }

  /// `[agent, signal, turn, firstStep, generation]`, `undefined` for what is missing.
  pub fn bound_args(&self, env: &'env Env) -> JsResult<Vec<Unknown<'env>>> {
    let or_undefined = |v: Option<Unknown<'env>>| -> JsResult<Unknown<'env>> {
      match v {
        Some(v) => Ok(v),
        None => ().to_js(env),
      }
    };
    Ok(vec![
      or_undefined(self.agent)?,
      or_undefined(self.signal)?,
      js_str(env, &self.turn)?,
      self.first_step.to_js(env)?,
      match self.generation {
        Some(g) => g.to_js(env)?,
        None => ().to_js(env)?,
      },
    ])
  }

  /// The fields back from a continuation's bound arguments, from argument `at` on.
  pub fn from_bound(cx: &'env FunctionCallContext<'_>, at: usize) -> PreStep<'env> {
    let env: &'env Env = cx.env;
    PreStep {
      agent: Some(argument(cx, at)).filter(|v| v.is_object()),
      signal: Some(argument(cx, at + 1)).filter(|v| !is_nullish(v)),
      turn: argument(cx, at + 2).as_string().unwrap_or_default(),
      first_step: argument(cx, at + 3).truthy(env),
      generation: argument(cx, at + 4).as_number(),
    }
  }
}

/// The listener `(payload, next)`: calls `next()` and returns a promise of the step's decision.
/// `next()` throwing rejects that promise with the same error, as `await next()` in an async
/// listener would.
pub fn pre_step<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  payload: Unknown<'env>,
  next: Unknown<'env>,
) -> JsResult<Unknown<'env>> {
  let pre = catch_unwind(AssertUnwindSafe(|| PreStep::read(env, payload))).unwrap_or_else(|_| PreStep::empty());
  let undefined = ().to_js(env)?;
  let called = match next.as_function() {
    Some(next) => next.apply(undefined, crate::napi_ext::Args(vec![])).caught_raw(env),
    None => Err(take_exception(env).unwrap_or(undefined)),
  };
  let (value, fulfilled) = match called {
    Ok(pending) => match pending::await_next(env, plugin, pending, &pre) {
      Ok(continued) => return Ok(continued),
      // Waiting failed: settle with what next() gave, as `await` would have (a rejection stays one).
      Err(_) => (pending, true),
    },
    Err(thrown) => (thrown, false),
  };
  let (deferred, promise) = Deferred::new(env)?;
  deferred.settle(env, value, fulfilled)?;
  Ok(promise.to_unknown())
}

/// A call's result, with a thrown value kept as the value itself (to reject with).
trait CaughtRaw<'env> {
  fn caught_raw(self, env: &'env Env) -> Result<Unknown<'env>, Unknown<'env>>;
}

impl<'env> CaughtRaw<'env> for napi::Result<Unknown<'env>> {
  fn caught_raw(self, env: &'env Env) -> Result<Unknown<'env>, Unknown<'env>> {
    self.map_err(|_| match take_exception(env) {
      Some(thrown) => thrown,
      None => ().to_js(env).expect("undefined"),
    })
  }
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

/// Contract steps 2 to 6, once `next()` has resolved with `decision`. When a query starts, the
/// outcome is the promise of its decision.
pub fn after_next<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pre: &PreStep<'env>,
  decision: Unknown<'env>,
) -> JsResult<Outcome<'env>> {
  if decision.get_loose(env, c"kind")?.string_is("reject") {
    return Ok(Outcome::Pass);
  }
  let signal = pre
    .signal
    .ok_or_else(|| Failure::new("pre-step payload has no abort signal"))?;
  if signal.get_loose(env, c"aborted")?.truthy(env) {
    return Ok(Outcome::Pass);
  }
  if !pre.first_step {
    return after_a_replacement(env, plugin, pre, decision);
  }
  let Some(shell) = plugin.executor(env)? else {
    plugin.no_reading(env, Reason::NoExecutor);
    return Ok(Outcome::Pass);
  };
  let agent = pre.agent.ok_or_else(|| Failure::new("pre-step payload has no agent"))?;
  let interval = plugin.config.refresh_interval_ms;
  if !interval.is_some_and(|i| i > 0.0) {
    // Without a refresh floor the previous reading only matters once a location is known: a
    // process outside tmux never reads the log.
    let previous = PreviousReading::Unread(Held::new(env, agent)?);
    return query(env, plugin, pre, shell, decision, previous);
  }
  let previous = previous_reading(env, agent)?;
  if previous.is_some() {
    let global = env.get_global().caught(env)?;
    let date: Unknown = global.get_c_named_property_unchecked(c"Date").caught(env)?;
    let now = date
      .get_loose(env, c"now")?
      .call_with(env, date, vec![])?
      .as_number()
      .unwrap_or(f64::NAN);
    if within_refresh_interval(interval, previous.as_ref(), now) {
      return Ok(Outcome::Pass);
    }
  }
  query(env, plugin, pre, shell, decision, PreviousReading::Known(previous))
}

/// A step after the first: a reading only when a replacement (a compaction) inside `next()`, or
/// since the surface was last looked at, just shadowed the newest reading, so the model's next
/// request still carries its place. Otherwise, and on surfaces that did not change, the decision
/// passes through.
fn after_a_replacement<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pre: &PreStep<'env>,
  decision: Unknown<'env>,
) -> JsResult<Outcome<'env>> {
  let Some(agent) = pre.agent else {
    return Ok(Outcome::Pass);
  };
  let moved = surface_moved(
    pre.generation,
    seen_generation(env, agent),
    replace_generation(env, agent),
  );
  if !moved || !newest_reading(env, agent)?.newly_shadowed {
    return Ok(Outcome::Pass);
  }
  let Some(shell) = plugin.executor(env)? else {
    return Ok(Outcome::Pass);
  };
  query(env, plugin, pre, shell, decision, PreviousReading::Known(None))
}

/// Contract step 6: `shell.run(shell.resolve({ command, signal, timeoutMs }))` (or `execute()`,
/// [`crate::executor`]), bounded by our own timer too. `resolve()` throwing or `run()` rejecting is
/// one warning and no location.
fn query<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pre: &PreStep<'env>,
  shell: Unknown<'env>,
  decision: Unknown<'env>,
  previous: PreviousReading,
) -> JsResult<Outcome<'env>> {
  let signal = match pre.signal {
    Some(signal) => signal,
    None => ().to_js(env)?,
  };
  if plugin.backoff.borrow().holds(Instant::now()) {
    // A stuck tmux is given time (the reason was logged when it timed out).
    return Ok(Outcome::Pass);
  }
  let parts = plugin.request_parts(env)?;
  // `run` where the executor has one, else `execute` (the upstream 0.1.7+ generation).
  let member = |f: &JsResult<Unknown<'env>>| match f {
    Ok(f) if f.as_function().is_some() => Member::Function,
    Ok(f) if f.is_undefined() => Member::Absent,
    _ => Member::Other,
  };
  let run = shell.get_loose(env, c"run");
  let execute = if member(&run) == Member::Absent {
    shell.get_loose(env, c"execute")
  } else {
    Ok(().to_js(env)?)
  };
  let Some(api) = executor_api(member(&run), member(&execute)) else {
    plugin.warn_once(env, diagnostics::NO_EXECUTOR_API_WARNING);
    return Ok(Outcome::Pass);
  };
  let mut fields = vec![
    (c"command", parts.get_loose(env, c"command")?),
    (c"signal", signal),
    (c"timeoutMs", parts.get_loose(env, c"timeoutMs")?),
  ];
  if api == ExecutorApi::Execute {
    fields.push((c"stdoutMaxBytes", (QUERY_STDOUT_MAX_BYTES as f64).to_js(env)?));
  }
  let request = object_of(env, &fields)?;
  // `bash.run(bash.resolve(request))`, in JS's order: `run` is read, then `resolve` is read and
  // called, then `run` is called (a `run` that is not a function fails after `resolve` ran). The
  // `execute()` generation: `(await bash.execute(bash.resolve(request))).result()`, the same way.
  let callable = |f: Unknown<'env>, name: &str| -> JsResult<Unknown<'env>> {
    match f.as_function() {
      Some(_) => Ok(f),
      None => Err(Failure(format!("bash.{name} is not a function"))),
    }
  };
  let (call, name) = match api {
    ExecutorApi::Run => (run, "run"),
    ExecutorApi::Execute => (execute, "execute"),
  };
  let run = call.and_then(|call| {
    let resolve = callable(shell.get_loose(env, c"resolve")?, "resolve")?;
    let spec = resolve.call_with(env, shell, vec![request.to_unknown()])?;
    let spec = crate::sandbox_edge::spec_to_run(env, shell, resolve, request, spec)?;
    let called = callable(call, name)?.call_with(env, shell, vec![spec])?;
    match api {
      ExecutorApi::Run => Ok(called),
      ExecutorApi::Execute => pending::result_of(env, called),
    }
  });
  let pending = match run {
    Ok(v) => v,
    Err(Failure(reason)) => {
      plugin.warn(env, &diagnostics::query_failed_warning(&reason));
      return Ok(Outcome::Pass);
    }
  };
  let held = Held::new(env, decision)?;
  let (deferred, promise) = Deferred::new(env)?;
  let bound = Duration::from_millis(plugin.config.query_timeout_ms.saturating_add(OWN_TIMER_GRACE_MS));
  let query = Query {
    deferred,
    deadline: Instant::now() + bound,
    decision: held,
    previous,
    turn: pre.turn.clone(),
    api,
    plugin: Rc::clone(plugin),
  };
  if let Err(query) = pending::await_query(env, pending, query) {
    // Settle the query's promise (nobody waits for it) and contain the failure: the step passes.
    let _ = query.deferred.resolve(env, decision);
    return Err(Failure::new("tmux-context: cannot wait for the executor"));
  }
  Ok(Outcome::Value(promise.to_unknown()))
}

/// Contract steps 6 (result) to 8: exit code, parse, compare, the new decision.
pub fn on_query_result<'env>(
  env: &'env Env,
  plugin: &Plugin,
  result: Unknown<'env>,
  decision: Unknown<'env>,
  previous: PreviousReading,
  turn: &str,
  api: ExecutorApi,
) -> JsResult<Outcome<'env>> {
  let exit_code = result.get_loose(env, c"exitCode")?.as_number();
  if exit_code != Some(0.0) {
    no_location(env, plugin, result, exit_code);
    return Ok(Outcome::Pass);
  }
  plugin.backoff.borrow_mut().finished();
  let stdout = result.get_loose(env, c"stdout")?.get_loose(env, c"text")?;
  let stdout = stdout
    .as_string_value(env)
    .ok_or_else(|| Failure::new("executor stdout.text is not a string"))?;
  let Some(answer) = parse_output(&stdout) else {
    plugin.no_reading(env, Reason::Unreadable);
    return Ok(Outcome::Pass);
  };
  plugin.located();
  let previous = previous.read(env)?;
  match decide_injection(&answer, previous.as_ref(), turn) {
    Injection::Unchanged => Ok(Outcome::Pass),
    Injection::Inject(text) => Ok(Outcome::Value(
      enter_with_reading(env, decision, &text, api.own_source_kind())?.to_unknown(),
    )),
  }
}

/// The query ended without a location (exit status `exit_code`, `None` for no number): why, at
/// debug level; a time-out also starts the backoff. Nothing here fails the step.
fn no_location(env: &Env, plugin: &Plugin, result: Unknown, exit_code: Option<f64>) {
  if result.get_loose(env, c"timedOut").is_ok_and(|t| t.truthy(env)) {
    timed_out(env, plugin);
    return;
  }
  plugin.backoff.borrow_mut().finished();
  let stderr = result
    .get_loose(env, c"stderr")
    .and_then(|s| s.get_loose(env, c"text"))
    .ok()
    .and_then(|t| t.as_string())
    .unwrap_or_default();
  plugin.no_reading(
    env,
    Reason::of_exit(exit_code.filter(|c| c.fract() == 0.0).map(|c| c as i64), &stderr),
  );
}

/// tmux did not answer within the bound (the executor's time-out, or our own timer): no query for
/// the backoff's pause, and the reason at debug level.
pub fn timed_out(env: &Env, plugin: &Plugin) {
  let pause = plugin.backoff.borrow_mut().timed_out(Instant::now());
  plugin.no_reading(
    env,
    Reason::TimedOut {
      timeout_ms: plugin.config.query_timeout_ms,
      backoff_s: pause.as_secs(),
    },
  );
}
