//! The `agent/pre-step` listener, step by step as the contract lists them: `await next()` first,
//! then, on the first step of a turn that was not rejected or aborted, find the newest reading
//! the model still sees, hold back within the refresh interval, and query tmux ([`crate::query`]).
//! On a later step, only a compaction inside `next()` that shadowed the newest reading brings a
//! reading. The step's promise is `next()`'s continued by a function bound to the plugin's handle
//! and the payload fields: nothing of a step is kept on the Rust side, so a step whose `next()`
//! never settles holds nothing of ours once its promises are garbage.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use napi::bindgen_prelude::{Env, FunctionCallContext, JsObjectValue, Result as NapiResult, ToNapiValue, Unknown};
use napi::JsValue;

use crate::diagnostics::Reason;
use crate::host::{contain, Outcome, Plugin};
use crate::napi_ext::{
  argument, take_exception, thrown_as_value, undefined, Args, Caught, Deferred, Failure, Held, JsResult, Returned,
  UnknownExt,
};
use crate::query::{query, PreviousReading};
use crate::refresh::within_refresh_interval;
use crate::session_index::{newest_reading, previous_reading, replace_generation, seen_generation};
use crate::surface::surface_moved;
use crate::waiting;

/// `v === undefined || v === null`.
fn is_nullish(v: &Unknown) -> bool {
  matches!(v.get_type(), Ok(napi::ValueType::Undefined | napi::ValueType::Null))
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
        None => Ok(undefined(env)),
      }
    };
    Ok(vec![
      or_undefined(self.agent)?,
      or_undefined(self.signal)?,
      self.turn.as_str().into_unknown(env).caught(env)?,
      self.first_step.into_unknown(env).caught(env)?,
      match self.generation {
        Some(g) => g.into_unknown(env).caught(env)?,
        None => undefined(env),
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
  let undefined = undefined(env);
  let called = match next.as_function() {
    Some(next) => thrown_as_value(env, next.apply(undefined, Args(vec![]))),
    None => Err(take_exception(env).unwrap_or(undefined)),
  };
  let (value, fulfilled) = match called {
    Ok(pending) => match await_next(env, plugin, pending, &pre) {
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

/// The step's promise: `next()`'s, continued by [`continue_after_next`] bound to the plugin's
/// handle (an object that owns the plugin, [`Plugin::handle`]), its context and the payload
/// fields; a rejection passes through as it is, as `await next()` rethrows.
fn await_next<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pending: Unknown<'env>,
  pre: &PreStep<'env>,
) -> JsResult<Unknown<'env>> {
  let mut args = vec![plugin.handle(env)?, plugin.context(env)?];
  args.extend(pre.bound_args(env)?);
  let continuation = waiting::shared(env, "tmuxContextAfterNext", continue_after_next)?;
  let continued = waiting::bind(env, continuation, args)?;
  waiting::then(env, pending, vec![continued])
}

/// `(pluginHandle, ctx, ...payload fields, decision) => decision'`: `next()` resolved with
/// `decision`, contract steps 2 to 8 ([`after_next`]). Returns what the step's promise resolves
/// with: the decision itself, a new one, or the promise of a query's.
fn continue_after_next(cx: &FunctionCallContext) -> NapiResult<Returned> {
  let env = &*cx.env;
  let decision = argument(cx, 2 + PreStep::BOUND_ARGS);
  let Some(plugin) = Plugin::of_handle(argument(cx, 0)) else {
    return Ok(Returned::of(decision));
  };
  Ok(Returned::of(contain(env, &plugin, decision, |_| {
    let pre = PreStep::from_bound(cx, 2);
    after_next(env, &plugin, &pre, decision)
  })))
}

/// Contract steps 2 to 6, once `next()` has resolved with `decision`. When a query starts, the
/// outcome is the promise of its decision.
fn after_next<'env>(
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
    return query(env, plugin, pre.signal, &pre.turn, shell, decision, previous);
  }
  let previous = previous_reading(env, agent)?;
  if previous.is_some() && within_refresh_interval(interval, previous.as_ref(), date_now(env)?) {
    return Ok(Outcome::Pass);
  }
  let previous = PreviousReading::Known(previous);
  query(env, plugin, pre.signal, &pre.turn, shell, decision, previous)
}

/// `Date.now()`, the JS package's clock for the refresh floor (a test may fake it).
fn date_now(env: &Env) -> JsResult<f64> {
  let global = env.get_global().caught(env)?;
  let date: Unknown = global.get_c_named_property_unchecked(c"Date").caught(env)?;
  let now = date.get_loose(env, c"now")?.call_with(env, date, vec![])?;
  Ok(now.as_number().unwrap_or(f64::NAN))
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
  query(
    env,
    plugin,
    pre.signal,
    &pre.turn,
    shell,
    decision,
    PreviousReading::Known(None),
  )
}
