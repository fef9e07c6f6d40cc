//! Calls in flight and how they settle. The listener returns its own promise; what it waits for
//! (`next()`'s decision, then the executor's result) is kept in a slot under an id, and the
//! promise continuations (made once per plugin, bound to the id per call) take the slot and settle
//! the listener's promise. Our own bound on queries is one sweep timer per plugin, not one per
//! query. Everything runs on the JS thread, as promise continuations: nothing blocks.

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
use crate::napi_ext::{error_message, Caught, Deferred, Failure, Held, JsResult, Returned, ToJs, UnknownExt};
use crate::plugin::{argument, Plugin};

/// Grace after `queryTimeoutMs` before our own timer gives up on an executor that ignored it, ms.
pub const OWN_TIMER_GRACE_MS: u64 = 1_000;

/// A query in flight: the promise the listener returned, and what deciding needs.
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
}

enum Slot {
  /// Waiting for `next()`; the deferred settles the promise the listener returned.
  Step(PreStep, Deferred),
  /// Waiting for the executor (or our timer).
  Query(Query),
}

/// The state of calls in flight, keyed by ids that are never reused, so a continuation that comes
/// late (after another one settled the call) finds nothing and does nothing.
#[derive(Default)]
struct Slots {
  next_id: Cell<u64>,
  map: RefCell<HashMap<u64, Slot>>,
}

impl Slots {
  fn insert(&self, slot: Slot) -> u64 {
    let id = self.next_id.get() + 1;
    self.next_id.set(id);
    self.map.borrow_mut().insert(id, slot);
    id
  }

  fn remove(&self, id: u64) -> Option<Slot> {
    self.map.borrow_mut().remove(&id)
  }

  /// The slot named by a continuation's bound id argument.
  fn take(&self, id: Unknown) -> Option<Slot> {
    self.remove(id.as_number()? as u64)
  }
}

/// The continuation functions of one plugin, each `(id, value) => …` once bound to a slot id; the
/// sweep timer's callback; `Function.prototype.bind` and `setTimeout`, read once. Making a JS
/// function per call costs a function template each time; binding a shared one does not.
struct Continuations {
  bind: Held,
  set_timeout: Held,
  sweep: Held,
  /// `Promise`, `Promise.resolve` and `Promise.prototype.then`, read once: a value is waited for as
  /// `await` waits (a promise through its own slots, whatever its `then` property says; anything
  /// else through `Promise.resolve`, which turns a thenable whose `then` throws into a rejection).
  promise: Held,
  promise_resolve: Held,
  promise_then: Held,
  after_next: Held,
  next_rejected: Held,
  query_result: Held,
  query_failed: Held,
  /// `(handle) => handle.result()`, for the `execute()` generation.
  execution_result: Held,
}

/// Calls in flight of one plugin, and the functions that continue them.
#[derive(Default)]
pub struct Pending {
  slots: Rc<Slots>,
  continuations: OnceCell<Continuations>,
  /// Whether the sweep timer is armed.
  sweep_armed: Cell<bool>,
}

/// A continuation body: the plugin (if still alive), the slots, and the call's `(id, value)`.
type Body = fn(&Env, Option<Rc<Plugin>>, &Slots, Unknown, Unknown);

impl Pending {
  /// Makes the plugin's continuations. They hold the plugin weakly (it owns them) and its slots
  /// strongly, so a call in flight always settles, even after the plugin itself is gone.
  pub fn set_up(&self, env: &Env, plugin: &Rc<Plugin>) -> JsResult<()> {
    let global = env.get_global().caught(env)?;
    let function: Unknown = global.get_c_named_property_unchecked(c"Function").caught(env)?;
    let bind = function.get_loose(env, c"prototype")?.get_loose(env, c"bind")?;
    let set_timeout: Unknown = global.get_c_named_property_unchecked(c"setTimeout").caught(env)?;
    let promise: Unknown = global.get_c_named_property_unchecked(c"Promise").caught(env)?;
    let promise_resolve = promise.get_loose(env, c"resolve")?;
    let promise_then = promise.get_loose(env, c"prototype")?.get_loose(env, c"then")?;
    let continuation = |name: &str, body: Body| -> JsResult<Held> {
      let (weak, slots) = (Rc::downgrade(plugin), Rc::clone(&self.slots));
      let f = env
        .create_function_from_closure::<Unknown, _, _>(name, move |cx: FunctionCallContext| -> NapiResult<Returned> {
          let env = &*cx.env;
          body(env, weak.upgrade(), &slots, argument(&cx, 0), argument(&cx, 1));
          Ok(Returned::of(().to_js(env)?))
        })
        .caught(env)?;
      Held::new(env, f.to_unknown())
    };
    let continuations = Continuations {
      bind: Held::new(env, bind)?,
      set_timeout: Held::new(env, set_timeout)?,
      promise: Held::new(env, promise)?,
      promise_resolve: Held::new(env, promise_resolve)?,
      promise_then: Held::new(env, promise_then)?,
      sweep: continuation("tmuxContextSweep", |env, plugin, slots, _, _| sweep(env, plugin, slots))?,
      after_next: continuation("tmuxContextAfterNext", after_next)?,
      next_rejected: continuation("tmuxContextNextRejected", next_rejected)?,
      query_result: continuation("tmuxContextQueryResult", query_result)?,
      query_failed: continuation("tmuxContextQueryFailed", query_failed)?,
      execution_result: Held::new(
        env,
        env
          .create_function_from_closure::<Unknown, _, _>("tmuxContextExecutionResult", |cx: FunctionCallContext| {
            let env = &*cx.env;
            let handle = argument(&cx, 0);
            let result = handle.get_loose(env, c"result")?;
            if result.as_function().is_none() {
              return Err(napi::Error::from_reason("execution.result is not a function"));
            }
            Ok(Returned::of(result.call_with(env, handle, vec![])?))
          })
          .caught(env)?
          .to_unknown(),
      )?,
    };
    self
      .continuations
      .set(continuations)
      .map_err(|_| Failure::new("tmux-context: set up twice"))
  }

  fn continuations(&self) -> JsResult<&Continuations> {
    self
      .continuations
      .get()
      .ok_or_else(|| Failure::new("tmux-context: not set up"))
  }

  /// `f.bind(undefined, id)`.
  fn bound<'env>(&self, env: &'env Env, f: &Held, id: u64) -> JsResult<Unknown<'env>> {
    let c = self.continuations()?;
    let undefined = ().to_js(env)?;
    c.bind
      .get(env)?
      .call_with(env, f.get(env)?, vec![undefined, (id as f64).to_js(env)?])
  }

  /// Waits for `value` as `await value` does, with two continuations bound to `id`:
  /// `Promise.prototype.then.call(promise, onFulfilled, onRejected)`, where `promise` is `value` when
  /// it is a promise, else `Promise.resolve(value)`.
  fn then(&self, env: &Env, value: Unknown, id: u64, fulfilled: &Held, rejected: &Held) -> JsResult<()> {
    let c = self.continuations()?;
    let promise = if value.is_promise().unwrap_or(false) {
      value
    } else {
      c.promise_resolve
        .get(env)?
        .call_with(env, c.promise.get(env)?, vec![value])?
    };
    let on_fulfilled = self.bound(env, fulfilled, id)?;
    let on_rejected = self.bound(env, rejected, id)?;
    c.promise_then
      .get(env)?
      .call_with(env, promise, vec![on_fulfilled, on_rejected])?;
    Ok(())
  }

  /// `Promise.resolve(execution).then((handle) => handle.result())`: the run's result of an
  /// `execute()` call, as one promise (a handle without `result()` rejects it).
  pub fn result_of<'env>(&self, env: &'env Env, execution: Unknown<'env>) -> JsResult<Unknown<'env>> {
    let c = self.continuations()?;
    let promise = if execution.is_promise().unwrap_or(false) {
      execution
    } else {
      c.promise_resolve
        .get(env)?
        .call_with(env, c.promise.get(env)?, vec![execution])?
    };
    c.promise_then
      .get(env)?
      .call_with(env, promise, vec![c.execution_result.get(env)?])
  }

  /// Waits for `next()`'s promise; its decision continues the listener ([`listener::after_next`]).
  /// On failure the deferred comes back, for the caller to settle.
  pub fn await_next(&self, env: &Env, pending: Unknown, pre: PreStep, deferred: Deferred) -> Result<(), Deferred> {
    let id = self.slots.insert(Slot::Step(pre, deferred));
    let attached = self
      .continuations()
      .and_then(|c| self.then(env, pending, id, &c.after_next, &c.next_rejected));
    if attached.is_err() {
      if let Some(Slot::Step(_, deferred)) = self.slots.remove(id) {
        return Err(deferred);
      }
    }
    Ok(())
  }

  /// Waits for the executor's promise, within the query's deadline; its result settles the
  /// listener's promise. On failure the query comes back, for the caller to settle.
  pub fn await_query(&self, env: &Env, pending: Unknown, query: Query) -> Result<(), Box<Query>> {
    let deadline = query.deadline;
    let id = self.slots.insert(Slot::Query(query));
    let attached = self.continuations().and_then(|c| {
      self.then(env, pending, id, &c.query_result, &c.query_failed)?;
      self.arm_sweep(env, deadline)
    });
    if attached.is_err() {
      if let Some(Slot::Query(query)) = self.slots.remove(id) {
        return Err(Box::new(query));
      }
    }
    Ok(())
  }

  /// Arms the sweep timer for `deadline` unless it is armed already (it re-arms itself for the
  /// queries still in flight), so a query costs no timer of its own. The timer never keeps the
  /// process alive (`unref`).
  fn arm_sweep(&self, env: &Env, deadline: Instant) -> JsResult<()> {
    if self.sweep_armed.get() {
      return Ok(());
    }
    let c = self.continuations()?;
    let delay = deadline
      .saturating_duration_since(Instant::now())
      .as_millis()
      .clamp(1, MAX_QUERY_TIMEOUT_MS as u128);
    let undefined = ().to_js(env)?;
    let timer =
      c.set_timeout
        .get(env)?
        .call_with(env, undefined, vec![c.sweep.get(env)?, (delay as f64).to_js(env)?])?;
    if timer.is_object() {
      let _ = timer
        .get_loose(env, c"unref")
        .and_then(|unref| unref.call_with(env, timer, vec![]));
    }
    self.sweep_armed.set(true);
    Ok(())
  }
}

/// `next()` resolved with `decision`: contract steps 2 to 8 ([`listener::after_next`]); unless a
/// query took the listener's promise over, settle it now.
fn after_next(env: &Env, plugin: Option<Rc<Plugin>>, slots: &Slots, id: Unknown, decision: Unknown) {
  let Some(Slot::Step(pre, deferred)) = slots.take(id) else {
    return;
  };
  let mut deferred = Some(deferred);
  let value = match plugin {
    Some(plugin) => listener::contain(env, &plugin, decision, |env| {
      listener::after_next(env, &plugin, &pre, decision, &mut deferred)
    }),
    None => decision,
  };
  if let Some(deferred) = deferred {
    let _ = deferred.resolve(env, value);
  }
}

/// `next()` rejected: the listener's promise rejects with the same reason.
fn next_rejected(env: &Env, _plugin: Option<Rc<Plugin>>, slots: &Slots, id: Unknown, reason: Unknown) {
  if let Some(Slot::Step(_, deferred)) = slots.take(id) {
    let _ = deferred.reject(env, reason);
  }
}

/// The executor answered: contract steps 6 (result) to 8 ([`listener::on_query_result`]).
fn query_result(env: &Env, plugin: Option<Rc<Plugin>>, slots: &Slots, id: Unknown, result: Unknown) {
  if let Some(Slot::Query(mut query)) = slots.take(id) {
    let previous = std::mem::replace(&mut query.previous, PreviousReading::Known(None));
    let turn = std::mem::take(&mut query.turn);
    let api = query.api;
    query.settle(env, |env, decision| match &plugin {
      Some(plugin) => listener::contain(env, plugin, decision, |env| {
        listener::on_query_result(env, plugin, result, decision, previous, &turn, api)
      }),
      None => decision,
    });
  }
}

/// `run()` rejected: one warning, no location.
fn query_failed(env: &Env, plugin: Option<Rc<Plugin>>, slots: &Slots, id: Unknown, reason: Unknown) {
  if let Some(Slot::Query(query)) = slots.take(id) {
    query.settle(env, |env, decision| {
      if let Some(plugin) = &plugin {
        plugin.warn(env, &diagnostics::query_failed_warning(&error_message(env, reason)));
      }
      decision
    });
  }
}

/// Our own bound on queries: every query whose deadline has passed (the executor ignored
/// `timeoutMs`, or is stuck) settles now with the decision passed through, as a timeout does (and
/// starts the backoff); the timer is armed again for the earliest query still in flight.
fn sweep(env: &Env, plugin: Option<Rc<Plugin>>, slots: &Slots) {
  if let Some(plugin) = &plugin {
    plugin.pending.sweep_armed.set(false);
  }
  // With the plugin gone (its context disposed), nothing would arm the timer again: every query
  // still in flight passes its decision through now.
  let now = Instant::now() + Duration::from_millis(2);
  let expired: Vec<u64> = slots
    .map
    .borrow()
    .iter()
    .filter_map(|(id, slot)| matches!(slot, Slot::Query(q) if q.deadline <= now || plugin.is_none()).then_some(*id))
    .collect();
  for id in expired {
    if let Some(Slot::Query(query)) = slots.remove(id) {
      query.settle(env, |env, decision| {
        if let Some(plugin) = &plugin {
          listener::timed_out(env, plugin);
        }
        decision
      });
    }
  }
  let next = slots
    .map
    .borrow()
    .values()
    .filter_map(|slot| match slot {
      Slot::Query(q) => Some(q.deadline),
      Slot::Step(..) => None,
    })
    .min();
  if let (Some(plugin), Some(deadline)) = (plugin, next) {
    let _ = plugin.pending.arm_sweep(env, deadline);
  }
}

impl Query {
  /// Resolves the listener's promise with what `decide` returns (given the decision); a failure to
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
