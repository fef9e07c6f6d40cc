//! Waiting on the JS thread, as promise continuations: nothing blocks. Functions made once per JS
//! environment and bound per call (binding costs no function template; making one would), a
//! promise's continuation, and slots for values that wait under a deadline, with one sweep timer
//! per JS environment for all of them. Nothing here knows what waits.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Env, FunctionCallContext, JsObjectValue, Result as NapiResult, ToNapiValue, Unknown};
use napi::JsValue;

use crate::config::MAX_QUERY_TIMEOUT_MS;
use crate::napi_ext::{per_env, undefined, Caught, Held, JsResult, Returned, UnknownExt};

/// The body of a function made once per JS environment.
pub type Body = fn(&FunctionCallContext) -> NapiResult<Returned>;

/// `Function.prototype.bind`, `Promise`, `Promise.resolve` and `Promise.prototype.then`, read once,
/// and the functions made by [`shared`], by name.
struct Builtins {
  bind: Held,
  promise: Held,
  promise_resolve: Held,
  promise_then: Held,
  shared: RefCell<HashMap<&'static str, Held>>,
}

fn builtins(env: &Env) -> JsResult<&'static Builtins> {
  per_env(env, || {
    let global = env.get_global().caught(env)?;
    let function: Unknown = global.get_c_named_property_unchecked(c"Function").caught(env)?;
    let promise: Unknown = global.get_c_named_property_unchecked(c"Promise").caught(env)?;
    Ok(Builtins {
      bind: Held::new(env, function.get_loose(env, c"prototype")?.get_loose(env, c"bind")?)?,
      promise_resolve: Held::new(env, promise.get_loose(env, c"resolve")?)?,
      promise_then: Held::new(env, promise.get_loose(env, c"prototype")?.get_loose(env, c"then")?)?,
      promise: Held::new(env, promise)?,
      shared: RefCell::default(),
    })
  })
}

/// The function `name` of this JS environment, made from `body` on first use.
pub fn shared<'env>(env: &'env Env, name: &'static str, body: Body) -> JsResult<Unknown<'env>> {
  let b = builtins(env)?;
  if let Some(f) = b.shared.borrow().get(name) {
    return f.get(env);
  }
  let f = env
    .create_function_from_closure::<Unknown, _, _>(name, move |cx: FunctionCallContext| body(&cx))
    .caught(env)?
    .to_unknown();
  b.shared.borrow_mut().insert(name, Held::new(env, f)?);
  Ok(f)
}

/// `f.bind(undefined, ...args)`.
pub fn bind<'env>(env: &'env Env, f: Unknown<'env>, args: Vec<Unknown<'env>>) -> JsResult<Unknown<'env>> {
  let mut all = vec![undefined(env)];
  all.extend(args);
  builtins(env)?.bind.get(env)?.call_with(env, f, all)
}

/// `value.then(on_fulfilled, on_rejected)` as `await value` sees `value`: itself when it is a
/// promise (through its own slots, whatever its `then` property says), else
/// `Promise.resolve(value)` (a thenable whose `then` throws becomes a rejection).
pub fn then<'env>(env: &'env Env, value: Unknown<'env>, callbacks: Vec<Unknown<'env>>) -> JsResult<Unknown<'env>> {
  let b = builtins(env)?;
  let promise = if value.is_promise().unwrap_or(false) {
    value
  } else {
    b.promise_resolve.get(env)?.call_with(env, b.promise.get(env)?, vec![value])?
  };
  b.promise_then.get(env)?.call_with(env, promise, callbacks)
}

/// A value that waits under a deadline on the monotonic clock, and gives up when it passes.
pub trait Expiring: 'static {
  /// The name of the sweep timer's function for this type (a JS identifier).
  const SWEEP: &'static str;
  fn deadline(&self) -> Instant;
  fn expire(self, env: &Env);
}

/// The waiting values of one type in one JS environment, keyed by ids that are never reused (a
/// continuation that comes late finds nothing and does nothing), and the sweep timer.
struct Slots<T> {
  next_id: Cell<u64>,
  waiting: RefCell<HashMap<u64, T>>,
  /// When the armed timer fires (`None`: none armed).
  sweep_at: Cell<Option<Instant>>,
  /// The armed timer, and the `setTimeout` that armed it (a test may swap in fake timers).
  timer: RefCell<Option<(Held, Held)>>,
}

fn slots<T: Expiring>(env: &Env) -> JsResult<&'static Slots<T>> {
  per_env(env, || {
    Ok(Slots {
      next_id: Cell::new(0),
      waiting: RefCell::default(),
      sweep_at: Cell::new(None),
      timer: RefCell::default(),
    })
  })
}

/// Keeps `value` until [`take`] or its deadline, and returns its id; `Err(value)` when it cannot.
pub fn keep<T: Expiring>(env: &Env, value: T) -> Result<u64, T> {
  let Ok(s) = slots::<T>(env) else { return Err(value) };
  let (id, deadline) = (s.next_id.get() + 1, value.deadline());
  s.next_id.set(id);
  s.waiting.borrow_mut().insert(id, value);
  if arm_sweep::<T>(env, s, deadline).is_err() {
    return Err(take::<T>(env, id).expect("just kept"));
  }
  Ok(id)
}

/// The value kept under `id`, once.
pub fn take<T: Expiring>(env: &Env, id: u64) -> Option<T> {
  slots::<T>(env).ok()?.waiting.borrow_mut().remove(&id)
}

/// Arms the sweep timer for `deadline` unless one is armed to fire by then (it re-arms itself for
/// what still waits), so waiting costs no timer of its own, a shorter bound is never held to a
/// longer one's timer, and one timer at most is live. A timer armed by another `setTimeout` than
/// today's (a test's fake timers, since uninstalled) is taken as lost. The timer never keeps the
/// process alive (`unref`).
fn arm_sweep<T: Expiring>(env: &Env, s: &Slots<T>, deadline: Instant) -> JsResult<()> {
  let global = env.get_global().caught(env)?;
  let set_timeout: Unknown = global.get_c_named_property_unchecked(c"setTimeout").caught(env)?;
  let armed_here = s.timer.borrow().as_ref().is_some_and(|(_, armed_with)| {
    armed_with.get(env).is_ok_and(|f| env.strict_equals(f, set_timeout).unwrap_or(false))
  });
  if armed_here && s.sweep_at.get().is_some_and(|at| at <= deadline) {
    return Ok(());
  }
  clear_sweep(env, s);
  let now = Instant::now();
  let delay = deadline.saturating_duration_since(now).as_millis().clamp(1, MAX_QUERY_TIMEOUT_MS as u128);
  let sweep = shared(env, T::SWEEP, sweep::<T>)?;
  let delay_ms = (delay as f64).into_unknown(env).caught(env)?;
  let timer = set_timeout.call_with(env, undefined(env), vec![sweep, delay_ms])?;
  if timer.is_object() {
    let _ = timer.get_loose(env, c"unref").and_then(|unref| unref.call_with(env, timer, vec![]));
  }
  *s.timer.borrow_mut() = Some((Held::new(env, timer)?, Held::new(env, set_timeout)?));
  s.sweep_at.set(Some(now + Duration::from_millis(delay as u64)));
  Ok(())
}

/// Clears the armed sweep timer, if any (`clearTimeout`: a timer for a sooner deadline replaces
/// it). A timer left armed when the last value is taken fires once and arms nothing.
fn clear_sweep<T>(env: &Env, s: &Slots<T>) {
  s.sweep_at.set(None);
  let Some((timer, _)) = s.timer.borrow_mut().take() else {
    return;
  };
  let _ = (|| -> JsResult<()> {
    let global = env.get_global().caught(env)?;
    let clear: Unknown = global.get_c_named_property_unchecked(c"clearTimeout").caught(env)?;
    clear.call_with(env, undefined(env), vec![timer.get(env)?])?;
    Ok(())
  })();
}

/// The sweep timer fired: every value whose deadline has passed expires now; the timer is armed
/// again for the earliest deadline still waiting.
fn sweep<T: Expiring>(cx: &FunctionCallContext) -> NapiResult<Returned> {
  let env = &*cx.env;
  let returned = Returned::of(undefined(env));
  let Ok(s) = slots::<T>(env) else { return Ok(returned) };
  // A timer that fires well before its time on the monotonic clock runs on a test's fake clock:
  // it is not armed again from here (`vi.runAllTimers()` would never end); the next value arms one.
  let early = s.sweep_at.get().is_some_and(|at| Instant::now() + Duration::from_millis(10) < at);
  s.sweep_at.set(None);
  s.timer.borrow_mut().take();
  let now = Instant::now() + Duration::from_millis(2);
  let expired: Vec<u64> =
    s.waiting.borrow().iter().filter_map(|(id, v)| (v.deadline() <= now).then_some(*id)).collect();
  for id in expired {
    if let Some(value) = take::<T>(env, id) {
      value.expire(env);
    }
  }
  let next = s.waiting.borrow().values().map(|v| v.deadline()).min();
  if let Some(deadline) = next.filter(|_| !early) {
    let _ = arm_sweep::<T>(env, s, deadline);
  }
  Ok(returned)
}
