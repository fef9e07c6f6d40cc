//! Contract steps 6 to 8: the query through the executor (`run()`, or `execute()` of the 0.1.7+
//! generation), awaited by index.js within our own bound too, then its result: exit code, parse,
//! compare with the newest reading, and the new decision.

use std::rc::Rc;
use std::time::Instant;

use napi::bindgen_prelude::{Env, External, ToNapiValue, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::change::{decide_injection, Injection};
use crate::diagnostics::{self, Reason};
use crate::executor::{executor_api, ExecutorApi, Member, QUERY_STDOUT_MAX_BYTES};
use crate::host::{command, contain, Outcome, Plugin};
use crate::napi_ext::{error_message, object_of, undefined, Caught, Failure, JsResult, UnknownExt};
use crate::parse::parse_output;
use crate::refresh::Previous;
use crate::session_index::newest_reading;

/// Grace after `queryTimeoutMs` before our own timer gives up on an executor that ignored it, ms.
pub const OWN_TIMER_GRACE_MS: u64 = 1_000;

/// The session's newest reading: read (`Known`), or to be read from the agent once a location makes
/// it matter (`Unread`: index.js's `preStep` hands the agent back with the query's result).
pub enum PreviousReading {
  Known(Option<Previous>),
  Unread,
}

impl PreviousReading {
  fn read(self, env: &Env, plugin: &Plugin, agent: Unknown) -> JsResult<Option<Previous>> {
    match self {
      PreviousReading::Known(previous) => Ok(previous),
      PreviousReading::Unread => Ok(newest_reading(env, &plugin.helpers, agent)?.previous),
    }
  }
}

/// The payload fields, as index.js's `preStep` read them before `next()`.
pub struct PreStep<'env> {
  pub agent: Option<Unknown<'env>>,
  pub signal: Option<Unknown<'env>>,
  pub turn: String,
  pub first_step: bool,
  /// After the first step, the surface's replace generation before `next()`.
  pub generation: Option<f64>,
}

/// Contract step 6: `shell.run(shell.resolve({ command, signal, timeoutMs }))` (or `execute()`),
/// handed to index.js's `preStep` to await ([`started`]). `resolve()` throwing or `run()` rejecting
/// is one warning.
pub fn query<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pre: &PreStep<'env>,
  shell: Unknown<'env>,
  previous: PreviousReading,
) -> JsResult<Outcome<'env>> {
  if plugin.backoff.borrow().holds(Instant::now()) {
    return Ok(Outcome::Pass);
  }
  let run = shell.get_loose(env, c"run");
  let execute = match member(&run) {
    Member::Absent => shell.get_loose(env, c"execute"),
    _ => Ok(undefined(env)),
  };
  let Some(api) = executor_api(member(&run), member(&execute)) else {
    plugin.warn_once(env, diagnostics::NO_EXECUTOR_API_WARNING);
    return Ok(Outcome::Pass);
  };
  let signal = pre.signal.unwrap_or_else(|| undefined(env));
  let call = match api {
    ExecutorApi::Run => run,
    ExecutorApi::Execute => execute,
  };
  let called = match call.and_then(|call| call_executor(env, plugin, shell, api, call, signal)) {
    Ok(called) => called,
    Err(Failure(reason)) => {
      plugin.warn(env, &diagnostics::query_failed_warning(&reason));
      return Ok(Outcome::Pass);
    }
  };
  started(env, plugin, called, previous, pre, api)
}

/// index.js's `started(called, execute, boundMs, query)`: what `preStep` awaits (`called`, for
/// `execute()` its handle's `result()`, within our own bound, ms), then hands back with the
/// [`Query`] handle; it returns the marker that tells `preStep` a query started.
fn started<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  called: Unknown<'env>,
  previous: PreviousReading,
  pre: &PreStep<'env>,
  api: ExecutorApi,
) -> JsResult<Outcome<'env>> {
  let bound_ms = plugin.config.query_timeout_ms.saturating_add(OWN_TIMER_GRACE_MS) as f64;
  let query = Query { previous, turn: pre.turn.clone(), api, plugin: Rc::clone(plugin) };
  let args = vec![
    called,
    (api == ExecutorApi::Execute).into_unknown(env).caught(env)?,
    bound_ms.into_unknown(env).caught(env)?,
    External::new(Some(query)).into_unknown(env).caught(env)?,
  ];
  let marker = plugin.helpers.started.get(env)?.call_with(env, undefined(env), args)?;
  Ok(Outcome::Value(marker))
}

/// Whether an executor member is a function, absent, or something else.
fn member(f: &JsResult<Unknown>) -> Member {
  match f {
    Ok(f) if f.as_function().is_some() => Member::Function,
    Ok(f) if f.is_undefined() => Member::Absent,
    _ => Member::Other,
  }
}

/// `bash.run(bash.resolve(request))` in JS's order (`run` read, `resolve` read and called, then
/// `run` called), or `bash.execute(…)`.
fn call_executor<'env>(
  env: &'env Env,
  plugin: &Plugin,
  shell: Unknown<'env>,
  api: ExecutorApi,
  call: Unknown<'env>,
  signal: Unknown<'env>,
) -> JsResult<Unknown<'env>> {
  let mut fields = vec![
    (c"command", command(env, plugin.pid)?),
    (c"signal", signal),
    (c"timeoutMs", (plugin.config.query_timeout_ms as f64).into_unknown(env).caught(env)?),
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
  callable(call, name)?.call_with(env, shell, vec![spec])
}

/// A query in flight: what deciding needs. It holds its plugin, so that a query in flight when its
/// context is disposed ends as the JS package's does, with a reading, GC or not (index.js's
/// `preStep` holds the context meanwhile, so that what the query logs reaches its logger).
pub struct Query {
  previous: PreviousReading,
  turn: String,
  /// The executor API the query went through (it decides the reading's source shape).
  api: ExecutorApi,
  plugin: Rc<Plugin>,
}

/// The query's handle: `None` once a continuation took it.
type Handle = External<Option<Query>>;

/// `queryResult(query, result, decision, agent)`: the executor answered ([`on_query_result`]); the
/// agent is the step's, whose log is read now where the reading was not read before the query.
#[napi(
  ts_args_type = "query: ExternalObject<unknown>, result: unknown, decision: unknown, agent: unknown",
  ts_return_type = "unknown"
)]
pub fn query_result<'env>(
  env: &'env Env,
  query: &mut Handle,
  result: Unknown<'env>,
  decision: Unknown<'env>,
  agent: Unknown<'env>,
) -> Unknown<'env> {
  let Some(query) = query.take() else { return decision };
  let plugin = Rc::clone(&query.plugin);
  contain(env, &plugin, decision, |env| on_query_result(env, query, result, decision, agent))
}

/// `queryFailed(query, reason, decision)`: the executor rejected: one warning, no location.
#[napi(ts_args_type = "query: ExternalObject<unknown>, reason: unknown, decision: unknown", ts_return_type = "unknown")]
pub fn query_failed<'env>(env: &Env, query: &mut Handle, reason: Unknown, decision: Unknown<'env>) -> Unknown<'env> {
  if let Some(query) = query.take() {
    query.plugin.warn(env, &diagnostics::query_failed_warning(&error_message(env, reason)));
  }
  decision
}

/// `queryExpired(query, decision)`: our own bound ran out: a time-out (and the backoff starts).
#[napi(ts_args_type = "query: ExternalObject<unknown>, decision: unknown", ts_return_type = "unknown")]
pub fn query_expired<'env>(env: &Env, query: &mut Handle, decision: Unknown<'env>) -> Unknown<'env> {
  if let Some(query) = query.take() {
    timed_out(env, &query.plugin);
  }
  decision
}

/// `monotonicMs()`: ms on the monotonic clock, for our own bound (no fake timers replace it).
#[napi]
pub fn monotonic_ms() -> f64 {
  static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
  START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// Contract steps 6 (result) to 8: exit code, parse, compare, the new decision.
fn on_query_result<'env>(
  env: &'env Env,
  query: Query,
  result: Unknown<'env>,
  decision: Unknown<'env>,
  agent: Unknown<'env>,
) -> JsResult<Outcome<'env>> {
  let Query { previous, turn, api, plugin } = query;
  let plugin = &*plugin;
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
  let previous = previous.read(env, plugin, agent)?;
  match decide_injection(&answer, previous.as_ref(), &turn) {
    Injection::Unchanged => Ok(Outcome::Pass),
    Injection::Inject(text) => {
      // index.js's `enter(decision, text, ownKind, id)`, the id a fresh UUID v4.
      let args = vec![
        decision,
        text.into_unknown(env).caught(env)?,
        api.own_source_kind().into_unknown(env).caught(env)?,
        uuid::Uuid::new_v4().to_string().into_unknown(env).caught(env)?,
      ];
      Ok(Outcome::Value(plugin.helpers.enter.get(env)?.call_with(env, undefined(env), args)?))
    }
  }
}

/// The query ended without a location (exit status `exit_code`): why, at debug level; a time-out
/// also starts the backoff.
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

/// tmux did not answer in time: no query for the backoff's pause, and why, at debug level.
pub fn timed_out(env: &Env, plugin: &Plugin) {
  let pause = plugin.backoff.borrow_mut().timed_out(Instant::now());
  plugin.no_reading(env, Reason::TimedOut { timeout_ms: plugin.config.query_timeout_ms, backoff_s: pause.as_secs() });
}
