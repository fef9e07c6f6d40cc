//! Calls in flight and how they settle. The listener returns `next()`'s promise continued by a
//! function bound to the plugin's handle, its context and the step's payload fields: nothing of a
//! step is kept on the Rust side, so a step whose `next()` never settles holds nothing of ours once
//! its promises are garbage, and a step that does settle finds its plugin and context alive,
//! disposed or not, GC or not (as a JS listener's closure would). A query is kept in a slot under an id, which the executor's continuations (bound to
//! the id per call) take to settle the step's promise; our own bound on queries is one sweep timer
//! per JS environment, not one per query. The continuations are made once per JS environment, not
//! per plugin, so applying and disposing a plugin allocates almost nothing. Everything runs on the
//! JS thread, as promise continuations: nothing blocks.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Env, FunctionCallContext, JsObjectValue, Result as NapiResult, Unknown};
use napi::JsValue;

use crate::config::MAX_QUERY_TIMEOUT_MS;
use crate::diagnostics;
use crate::executor::ExecutorApi;
use crate::listener::{self, PreStep, PreviousReading};
use crate::napi_ext::{argument, error_message, per_env, Caught, Deferred, Held, JsResult, Returned, ToJs, UnknownExt};
use crate::plugin::Plugin;

/// Grace after `queryTimeoutMs` before our own timer gives up on an executor that ignored it, ms.
pub const OWN_TIMER_GRACE_MS: u64 = 1_000;

/// A query in flight: the promise the step resolves with, and what deciding needs.
pub struct Query {
  pub deferred: Deferred,
  /// When our own bound runs out: `queryTimeoutMs` plus a grace, on the monotonic clock.
  pub deadline: Instant,
  pub decision: Held,
  /// The newest reading, or the agent whose session holds it (read once a location is known).
  pub previous: PreviousReading,
  pub turn: String,
  /// The executor API the query went through (it decides the reading's source shape).
  pub api: ExecutorApi,
  /// The plugin, held while the query is in flight (until it settles or our bound expires), so
  /// that a query in flight when its context is disposed ends as the JS package's does, with a
  /// reading, whether or not a GC ran in between.
  pub plugin: Rc<Plugin>,
}

/// What one JS environment keeps for every plugin of it: the queries in flight (keyed by ids that
/// are never reused, so a continuation that comes late, after our timer settled its query, finds
/// nothing and does nothing), whether the sweep timer is armed, and the continuations.
#[derive(Default)]
struct Waiting {
  next_id: Cell<u64>,
  queries: RefCell<HashMap<u64, Query>>,
  /// When the armed sweep timer fires (`None`: none armed).
  sweep_at: Cell<Option<Instant>>,
  /// The armed timer, and the `setTimeout` that armed it (a test may swap in fake timers).
  timer: RefCell<Option<(Held, Held)>>,
  continuations: OnceCell<Continuations>,
}

/// The continuation functions, each `(id, value) => …` once bound; the sweep timer's callback;
/// `Function.prototype.bind`, `Promise`, `Promise.resolve` and `Promise.prototype.then`, read once
/// (`setTimeout` is read at each arming: a test's fake timers come and go). Binding a shared function per call costs no function
/// template; making one would.
struct Continuations {
  bind: Held,
  sweep: Held,
  promise: Held,
  promise_resolve: Held,
  promise_then: Held,
  /// `(pluginHandle, ctx, agent, signal, turn, firstStep, generation, decision) => decision'`.
  after_next: Held,
  query_result: Held,
  query_failed: Held,
  /// `(handle) => handle.result()`, for the `execute()` generation.
  execution_result: Held,
}

/// This environment's state, its continuations made on first use.
fn waiting(env: &Env) -> JsResult<(&'static Waiting, &'static Continuations)> {
  let waiting = per_env(env, || Ok(Waiting::default()))?;
  if let Some(c) = waiting.continuations.get() {
    return Ok((waiting, c));
  }
  let made = continuations(env)?;
  Ok((waiting, waiting.continuations.get_or_init(|| made)))
}

/// A continuation made from `body(env, call)`, returning what `body` returns.
fn function(env: &Env, name: &str, body: fn(&FunctionCallContext) -> NapiResult<Returned>) -> JsResult<Held> {
  let f = env
    .create_function_from_closure::<Unknown, _, _>(name, move |cx: FunctionCallContext| body(&cx))
    .caught(env)?;
  Held::new(env, f.to_unknown())
}

/// A continuation `(id, value) => undefined` over the query in slot `id`.
fn query_continuation(env: &Env, name: &str, body: fn(&Env, Option<Query>, Unknown)) -> JsResult<Held> {
  let f = env
    .create_function_from_closure::<Unknown, _, _>(name, move |cx: FunctionCallContext| -> NapiResult<Returned> {
      let env = &*cx.env;
      let query = waiting(env)
        .ok()
        .and_then(|(w, _)| w.queries.borrow_mut().remove(&(argument(&cx, 0).as_number()? as u64)));
      body(env, query, argument(&cx, 1));
      Ok(Returned::of(().to_js(env)?))
    })
    .caught(env)?;
  Held::new(env, f.to_unknown())
}

fn continuations(env: &Env) -> JsResult<Continuations> {
  let global = env.get_global().caught(env)?;
  let function_ctor: Unknown = global.get_c_named_property_unchecked(c"Function").caught(env)?;
  let bind = function_ctor.get_loose(env, c"prototype")?.get_loose(env, c"bind")?;
  let promise: Unknown = global.get_c_named_property_unchecked(c"Promise").caught(env)?;
  let promise_resolve = promise.get_loose(env, c"resolve")?;
  let promise_then = promise.get_loose(env, c"prototype")?.get_loose(env, c"then")?;
  Ok(Continuations {
    bind: Held::new(env, bind)?,
    promise: Held::new(env, promise)?,
    promise_resolve: Held::new(env, promise_resolve)?,
    promise_then: Held::new(env, promise_then)?,
    sweep: function(env, "tmuxContextSweep", |cx| {
      let env = &*cx.env;
      sweep(env);
      Ok(Returned::of(().to_js(env)?))
    })?,
    after_next: function(env, "tmuxContextAfterNext", |cx| Ok(Returned::of(after_next(cx))))?,
    query_result: query_continuation(env, "tmuxContextQueryResult", query_result)?,
    query_failed: query_continuation(env, "tmuxContextQueryFailed", query_failed)?,
    execution_result: function(env, "tmuxContextExecutionResult", |cx| {
      let env = &*cx.env;
      let handle = argument(cx, 0);
      let result = handle.get_loose(env, c"result")?;
      if result.as_function().is_none() {
        return Err(napi::Error::from_reason("execution.result is not a function"));
      }
      Ok(Returned::of(result.call_with(env, handle, vec![])?))
    })?,
  })
}

/// `value` as `await value` sees it: itself when it is a promise (through its own slots, whatever
/// its `then` property says), else `Promise.resolve(value)` (a thenable whose `then` throws becomes
/// a rejection).
fn promise_of<'env>(env: &'env Env, c: &Continuations, value: Unknown<'env>) -> JsResult<Unknown<'env>> {
  if value.is_promise().unwrap_or(false) {
    return Ok(value);
  }
  c.promise_resolve
    .get(env)?
    .call_with(env, c.promise.get(env)?, vec![value])
}

/// The step's promise: `next()`'s, continued by the listener's steps 2 to 8 ([`after_next`],
/// bound to the plugin's handle (an object that owns the plugin, [`Plugin::handle`]), its
/// context and the payload fields); a rejection passes through as it is, as `await next()` rethrows.
pub fn await_next<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pending: Unknown<'env>,
  pre: &PreStep<'env>,
) -> JsResult<Unknown<'env>> {
  let (_, c) = waiting(env)?;
  let promise = promise_of(env, c, pending)?;
  let mut args = vec![().to_js(env)?, plugin.handle(env)?, plugin.context(env)?];
  args.extend(pre.bound_args(env)?);
  let continued = c.bind.get(env)?.call_with(env, c.after_next.get(env)?, args)?;
  c.promise_then.get(env)?.call_with(env, promise, vec![continued])
}

/// `Promise.resolve(execution).then((handle) => handle.result())`: the run's result of an
/// `execute()` call, as one promise (a handle without `result()` rejects it).
pub fn result_of<'env>(env: &'env Env, execution: Unknown<'env>) -> JsResult<Unknown<'env>> {
  let (_, c) = waiting(env)?;
  let promise = promise_of(env, c, execution)?;
  c.promise_then
    .get(env)?
    .call_with(env, promise, vec![c.execution_result.get(env)?])
}

/// Waits for the executor's promise, within the query's deadline; its result settles the step's
/// promise. On failure the query comes back, for the caller to settle.
pub fn await_query(env: &Env, pending: Unknown, query: Query) -> Result<(), Box<Query>> {
  let Ok((w, c)) = waiting(env) else {
    return Err(Box::new(query));
  };
  let deadline = query.deadline;
  let id = w.next_id.get() + 1;
  w.next_id.set(id);
  w.queries.borrow_mut().insert(id, query);
  let attached = (|| -> JsResult<()> {
    let promise = promise_of(env, c, pending)?;
    let undefined = ().to_js(env)?;
    let bound = |f: &Held| -> JsResult<Unknown> {
      c.bind
        .get(env)?
        .call_with(env, f.get(env)?, vec![undefined, (id as f64).to_js(env)?])
    };
    let (on_fulfilled, on_rejected) = (bound(&c.query_result)?, bound(&c.query_failed)?);
    c.promise_then
      .get(env)?
      .call_with(env, promise, vec![on_fulfilled, on_rejected])?;
    arm_sweep(env, w, c, deadline)
  })();
  if attached.is_err() {
    if let Some(query) = w.queries.borrow_mut().remove(&id) {
      return Err(Box::new(query));
    }
  }
  Ok(())
}

/// Arms the sweep timer for `deadline` unless one is armed to fire by then (it re-arms itself for
/// the queries still in flight), so a query costs no timer of its own, a shorter bound is never
/// held to a longer one's timer, and one timer at most is live. A timer armed by another
/// `setTimeout` than today's (a test's fake timers, since uninstalled) is taken as lost. The timer
/// never keeps the process alive (`unref`).
fn arm_sweep(env: &Env, w: &Waiting, c: &Continuations, deadline: Instant) -> JsResult<()> {
  let global = env.get_global().caught(env)?;
  let set_timeout: Unknown = global.get_c_named_property_unchecked(c"setTimeout").caught(env)?;
  let armed_here = w.timer.borrow().as_ref().is_some_and(|(_, armed_with)| {
    armed_with
      .get(env)
      .is_ok_and(|f| env.strict_equals(f, set_timeout).unwrap_or(false))
  });
  if armed_here && w.sweep_at.get().is_some_and(|at| at <= deadline) {
    return Ok(());
  }
  clear_sweep(env, w);
  let now = Instant::now();
  let delay = deadline
    .saturating_duration_since(now)
    .as_millis()
    .clamp(1, MAX_QUERY_TIMEOUT_MS as u128);
  let undefined = ().to_js(env)?;
  let timer = set_timeout.call_with(env, undefined, vec![c.sweep.get(env)?, (delay as f64).to_js(env)?])?;
  if timer.is_object() {
    let _ = timer
      .get_loose(env, c"unref")
      .and_then(|unref| unref.call_with(env, timer, vec![]));
  }
  *w.timer.borrow_mut() = Some((Held::new(env, timer)?, Held::new(env, set_timeout)?));
  w.sweep_at.set(Some(now + Duration::from_millis(delay as u64)));
  Ok(())
}

/// Clears the armed sweep timer, if any (`clearTimeout`: a timer for a sooner deadline replaces
/// it). A timer left armed when the last query settles fires once and arms nothing.
fn clear_sweep(env: &Env, w: &Waiting) {
  w.sweep_at.set(None);
  let Some((timer, _)) = w.timer.borrow_mut().take() else {
    return;
  };
  let _ = (|| -> JsResult<()> {
    let global = env.get_global().caught(env)?;
    let clear: Unknown = global.get_c_named_property_unchecked(c"clearTimeout").caught(env)?;
    clear.call_with(env, ().to_js(env)?, vec![timer.get(env)?])?;
    Ok(())
  })();
}

/// `next()` resolved with `decision` (the bound call's last argument): contract steps 2 to 8
/// ([`listener::after_next`]). Returns what the step's promise resolves with: the decision itself,
/// a new one, or the promise of a query's.
fn after_next<'env>(cx: &'env FunctionCallContext<'_>) -> Unknown<'env> {
  let env: &'env Env = cx.env;
  let decision = argument(cx, 2 + PreStep::BOUND_ARGS);
  let Some(plugin) = Plugin::of_handle(env, argument(cx, 0)) else {
    return decision;
  };
  listener::contain(env, &plugin, decision, |_| {
    let pre = PreStep::from_bound(cx, 2);
    listener::after_next(env, &plugin, &pre, decision)
  })
}

/// The executor answered: contract steps 6 (result) to 8 ([`listener::on_query_result`]).
fn query_result(env: &Env, query: Option<Query>, result: Unknown) {
  if let Some(mut query) = query {
    let plugin = Rc::clone(&query.plugin);
    let previous = std::mem::replace(&mut query.previous, PreviousReading::Known(None));
    let turn = std::mem::take(&mut query.turn);
    let api = query.api;
    query.settle(env, |env, decision| {
      listener::contain(env, &plugin, decision, |env| {
        listener::on_query_result(env, &plugin, result, decision, previous, &turn, api)
      })
    });
  }
}

/// `run()` rejected: one warning, no location.
fn query_failed(env: &Env, query: Option<Query>, reason: Unknown) {
  if let Some(query) = query {
    let plugin = Rc::clone(&query.plugin);
    query.settle(env, |env, decision| {
      plugin.warn(env, &diagnostics::query_failed_warning(&error_message(env, reason)));
      decision
    });
  }
}

/// Our own bound on queries: every query whose deadline has passed (the executor ignored
/// `timeoutMs`, or is stuck) settles now with the decision passed through, as a timeout does (and
/// starts its plugin's backoff); the timer is armed again for the earliest query still in flight.
fn sweep(env: &Env) {
  let Ok((w, c)) = waiting(env) else { return };
  // A timer that fires well before its time on the monotonic clock runs on a test's fake clock:
  // it is not armed again from here (`vi.runAllTimers()` would never end), the next query arms one.
  let early = w
    .sweep_at
    .get()
    .is_some_and(|at| Instant::now() + Duration::from_millis(10) < at);
  w.sweep_at.set(None);
  w.timer.borrow_mut().take();
  let now = Instant::now() + Duration::from_millis(2);
  let expired: Vec<u64> = w
    .queries
    .borrow()
    .iter()
    .filter_map(|(id, q)| (q.deadline <= now).then_some(*id))
    .collect();
  for id in expired {
    let query = w.queries.borrow_mut().remove(&id);
    if let Some(query) = query {
      let plugin = Rc::clone(&query.plugin);
      query.settle(env, |env, decision| {
        listener::timed_out(env, &plugin);
        decision
      });
    }
  }
  let next = w.queries.borrow().values().map(|q| q.deadline).min();
  if let Some(deadline) = next.filter(|_| !early) {
    let _ = arm_sweep(env, w, c, deadline);
  }
}

impl Query {
  /// Resolves the step's promise with what `decide` returns (given the decision); a failure to
  /// read the held decision still settles it, with `undefined`.
  pub fn settle<'env>(self, env: &'env Env, decide: impl FnOnce(&'env Env, Unknown<'env>) -> Unknown<'env>) {
    let value = match self.decision.get(env) {
      Ok(decision) => catch_unwind(AssertUnwindSafe(|| decide(env, decision))).unwrap_or(decision),
      Err(_) => match ().to_js(env) {
        Ok(undefined) => undefined,
        Err(_) => return,
      },
    };
    let _ = self.deferred.resolve(env, value);
  }
}
