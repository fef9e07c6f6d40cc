//! Contract steps 6 to 8: the query through the executor (`run()`, or `execute()` of the 0.1.7+
//! generation), bounded by our own deadline too ([`crate::waiting`]), then its result: exit code,
//! parse, compare with the newest reading, and the new decision.

use std::rc::Rc;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Env, FunctionCallContext, Result as NapiResult, ToNapiValue, Unknown};
use napi::JsValue;

use crate::change::{decide_injection, Injection};
use crate::diagnostics::{self, Reason};
use crate::executor::{executor_api, ExecutorApi, Member, QUERY_STDOUT_MAX_BYTES};
use crate::host::{contain, Outcome, Plugin};
use crate::message::enter_with_reading;
use crate::napi_ext::{
  argument, error_message, object_of, undefined, Caught, Deferred, Failure, Held, JsResult, Returned, UnknownExt,
};
use crate::parse::parse_output;
use crate::refresh::Previous;
use crate::session_index::previous_reading;
use crate::waiting::{self, Expiring};

/// Grace after `queryTimeoutMs` before our own timer gives up on an executor that ignored it, ms.
pub const OWN_TIMER_GRACE_MS: u64 = 1_000;

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

/// Contract step 6: `shell.run(shell.resolve({ command, signal, timeoutMs }))` (or `execute()`,
/// [`crate::executor`]), bounded by our own timer too. `resolve()` throwing or `run()` rejecting is
/// one warning and no location. When the query starts, the outcome is the promise of its decision.
pub fn query<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  signal: Option<Unknown<'env>>,
  turn: &str,
  shell: Unknown<'env>,
  decision: Unknown<'env>,
  previous: PreviousReading,
) -> JsResult<Outcome<'env>> {
  if plugin.backoff.borrow().holds(Instant::now()) {
    // A stuck tmux is given time (the reason was logged when it timed out).
    return Ok(Outcome::Pass);
  }
  // `run` where the executor has one, else `execute` (the upstream 0.1.7+ generation).
  let run = shell.get_loose(env, c"run");
  let execute = match member(&run) {
    Member::Absent => shell.get_loose(env, c"execute"),
    _ => Ok(undefined(env)),
  };
  let Some(api) = executor_api(member(&run), member(&execute)) else {
    plugin.warn_once(env, diagnostics::NO_EXECUTOR_API_WARNING);
    return Ok(Outcome::Pass);
  };
  let signal = signal.unwrap_or_else(|| undefined(env));
  let call = match api {
    ExecutorApi::Run => run,
    ExecutorApi::Execute => execute,
  };
  let pending = match call.and_then(|call| call_executor(env, plugin, shell, api, call, signal)) {
    Ok(pending) => pending,
    Err(Failure(reason)) => {
      plugin.warn(env, &diagnostics::query_failed_warning(&reason));
      return Ok(Outcome::Pass);
    }
  };
  wait_for(env, plugin, pending, decision, previous, turn, api)
}

/// The promise of the step's decision once the executor's `pending` result settles it, or our own
/// bound (`queryTimeoutMs` plus a grace) runs out.
fn wait_for<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pending: Unknown<'env>,
  decision: Unknown<'env>,
  previous: PreviousReading,
  turn: &str,
  api: ExecutorApi,
) -> JsResult<Outcome<'env>> {
  let (deferred, promise) = Deferred::new(env)?;
  let bound = Duration::from_millis(plugin.config.query_timeout_ms.saturating_add(OWN_TIMER_GRACE_MS));
  let query = Query {
    deferred,
    deadline: Instant::now() + bound,
    decision: Held::new(env, decision)?,
    previous,
    turn: turn.to_string(),
    api,
    plugin: Rc::clone(plugin),
  };
  if let Err(query) = await_result(env, pending, query) {
    // Settle the query's promise (nobody waits for it) and contain the failure: the step passes.
    let _ = query.deferred.resolve(env, decision);
    return Err(Failure::new("tmux-context: cannot wait for the executor"));
  }
  Ok(Outcome::Value(promise.to_unknown()))
}

/// Whether an executor member is a function, absent, or something else.
fn member(f: &JsResult<Unknown>) -> Member {
  match f {
    Ok(f) if f.as_function().is_some() => Member::Function,
    Ok(f) if f.is_undefined() => Member::Absent,
    _ => Member::Other,
  }
}

/// `bash.run(bash.resolve(request))`, in JS's order: `run` was read, then `resolve` is read and
/// called, then `run` is called (a `run` that is not a function fails after `resolve` ran). The
/// `execute()` generation: `(await bash.execute(bash.resolve(request))).result()`, the same way.
fn call_executor<'env>(
  env: &'env Env,
  plugin: &Plugin,
  shell: Unknown<'env>,
  api: ExecutorApi,
  call: Unknown<'env>,
  signal: Unknown<'env>,
) -> JsResult<Unknown<'env>> {
  let parts = plugin.request_parts(env)?;
  let mut fields = vec![
    (c"command", parts.get_loose(env, c"command")?),
    (c"signal", signal),
    (c"timeoutMs", parts.get_loose(env, c"timeoutMs")?),
  ];
  if api == ExecutorApi::Execute {
    fields.push((c"stdoutMaxBytes", (QUERY_STDOUT_MAX_BYTES as f64).into_unknown(env).caught(env)?));
  }
  let request = object_of(env, &fields)?;
  let callable = |f: Unknown<'env>, name: &str| -> JsResult<Unknown<'env>> {
    match f.as_function() {
      Some(_) => Ok(f),
      None => Err(Failure(format!("bash.{name} is not a function"))),
    }
  };
  let resolve = callable(shell.get_loose(env, c"resolve")?, "resolve")?;
  let spec = resolve.call_with(env, shell, vec![request.to_unknown()])?;
  let spec = crate::sandbox_edge::spec_to_run(env, shell, resolve, request, spec)?;
  let name = if api == ExecutorApi::Run { "run" } else { "execute" };
  let called = callable(call, name)?.call_with(env, shell, vec![spec])?;
  match api {
    ExecutorApi::Run => Ok(called),
    // `Promise.resolve(execution).then((handle) => handle.result())`: a handle without `result()`
    // rejects it.
    ExecutorApi::Execute => {
      waiting::then(env, called, vec![waiting::shared(env, "tmuxContextExecutionResult", execution_result)?])
    }
  }
}

/// `(handle) => handle.result()`, for the `execute()` generation.
fn execution_result(cx: &FunctionCallContext) -> NapiResult<Returned> {
  let env = &*cx.env;
  let handle = argument(cx, 0);
  let result = handle.get_loose(env, c"result")?;
  if result.as_function().is_none() {
    return Err(napi::Error::from_reason("execution.result is not a function"));
  }
  Ok(Returned::of(result.call_with(env, handle, vec![])?))
}

/// A query in flight: the promise the step resolves with, and what deciding needs.
pub struct Query {
  deferred: Deferred,
  /// When our own bound runs out: `queryTimeoutMs` plus a grace, on the monotonic clock.
  deadline: Instant,
  decision: Held,
  /// The newest reading, or the agent whose session holds it (read once a location is known).
  previous: PreviousReading,
  turn: String,
  /// The executor API the query went through (it decides the reading's source shape).
  api: ExecutorApi,
  /// The plugin, held while the query is in flight (until it settles or our bound expires), so
  /// that a query in flight when its context is disposed ends as the JS package's does, with a
  /// reading, whether or not a GC ran in between.
  plugin: Rc<Plugin>,
}

/// Waits for the executor's promise, within the query's deadline: its result settles the step's
/// promise ([`query_result`], [`query_failed`], bound to the query's id). On failure the query comes
/// back, for the caller to settle.
fn await_result(env: &Env, pending: Unknown, query: Query) -> Result<(), Box<Query>> {
  let id = waiting::keep(env, query).map_err(Box::new)?;
  let attached = (|| -> JsResult<()> {
    let id = (id as f64).into_unknown(env).caught(env)?;
    let on_fulfilled = waiting::shared(env, "tmuxContextQueryResult", query_result)?;
    let on_rejected = waiting::shared(env, "tmuxContextQueryFailed", query_failed)?;
    let callbacks = vec![waiting::bind(env, on_fulfilled, vec![id])?, waiting::bind(env, on_rejected, vec![id])?];
    waiting::then(env, pending, callbacks).map(|_| ())
  })();
  match attached {
    Err(_) => waiting::take::<Query>(env, id).map_or(Ok(()), |query| Err(Box::new(query))),
    Ok(()) => Ok(()),
  }
}

/// The query of a continuation `(id, value) => undefined`, and its value; `None` once settled.
fn bound_query<'env>(cx: &'env FunctionCallContext) -> (Option<Query>, Unknown<'env>) {
  let id = argument(cx, 0).as_number().map(|id| id as u64);
  (id.and_then(|id| waiting::take::<Query>(cx.env, id)), argument(cx, 1))
}

/// The executor answered: contract steps 6 (result) to 8 ([`on_query_result`]).
fn query_result(cx: &FunctionCallContext) -> NapiResult<Returned> {
  let env = &*cx.env;
  if let (Some(query), result) = bound_query(cx) {
    let plugin = Rc::clone(&query.plugin);
    let (previous, turn, api) = (query.previous, query.turn, query.api);
    settle(env, query.deferred, &query.decision, |env, decision| {
      contain(env, &plugin, decision, |env| on_query_result(env, &plugin, result, decision, previous, &turn, api))
    });
  }
  Ok(Returned::of(undefined(env)))
}

/// `run()` rejected: one warning, no location.
fn query_failed(cx: &FunctionCallContext) -> NapiResult<Returned> {
  let env = &*cx.env;
  if let (Some(query), reason) = bound_query(cx) {
    let plugin = Rc::clone(&query.plugin);
    settle(env, query.deferred, &query.decision, |env, decision| {
      plugin.warn(env, &diagnostics::query_failed_warning(&error_message(env, reason)));
      decision
    });
  }
  Ok(Returned::of(undefined(env)))
}

/// Our own bound ran out (the executor ignored `timeoutMs`, or is stuck): the decision passes
/// through, as a timeout does, and the plugin's backoff starts.
impl Expiring for Query {
  const SWEEP: &'static str = "tmuxContextSweep";

  fn deadline(&self) -> Instant {
    self.deadline
  }

  fn expire(self, env: &Env) {
    let plugin = self.plugin;
    settle(env, self.deferred, &self.decision, |env, decision| {
      timed_out(env, &plugin);
      decision
    });
  }
}

/// Resolves the step's promise with what `decide` returns (given the decision); a failure to read
/// the held decision still settles it, with `undefined`.
fn settle<'env>(
  env: &'env Env,
  deferred: Deferred,
  decision: &Held,
  decide: impl FnOnce(&'env Env, Unknown<'env>) -> Unknown<'env>,
) {
  let value = match decision.get(env) {
    Ok(decision) => {
      std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decide(env, decision))).unwrap_or(decision)
    }
    Err(_) => undefined(env),
  };
  let _ = deferred.resolve(env, value);
}

/// Contract steps 6 (result) to 8: exit code, parse, compare, the new decision.
fn on_query_result<'env>(
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
  let stdout = stdout.as_string_value(env).ok_or_else(|| Failure::new("executor stdout.text is not a string"))?;
  let Some(answer) = parse_output(&stdout) else {
    plugin.no_reading(env, Reason::Unreadable);
    return Ok(Outcome::Pass);
  };
  plugin.located();
  let previous = previous.read(env)?;
  match decide_injection(&answer, previous.as_ref(), turn) {
    Injection::Unchanged => Ok(Outcome::Pass),
    Injection::Inject(text) => {
      Ok(Outcome::Value(enter_with_reading(env, decision, &text, api.own_source_kind())?.to_unknown()))
    }
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
  plugin.no_reading(env, Reason::of_exit(exit_code.filter(|c| c.fract() == 0.0).map(|c| c as i64), &stderr));
}

/// tmux did not answer within the bound (the executor's time-out, or our own timer): no query for
/// the backoff's pause, and the reason at debug level.
pub fn timed_out(env: &Env, plugin: &Plugin) {
  let pause = plugin.backoff.borrow_mut().timed_out(Instant::now());
  plugin.no_reading(env, Reason::TimedOut { timeout_ms: plugin.config.query_timeout_ms, backoff_s: pause.as_secs() });
}
