//! The `agent/pre-step` listener after `await next()` (index.js's `preStep` reads the payload and
//! awaits it), as the contract lists its steps: on the first step of a turn, find the newest reading
//! the model still sees, hold back within the refresh interval, and query tmux ([`crate::query`]);
//! on a later step, query only when a compaction inside `next()` shadowed the newest reading.

use std::rc::Rc;

use napi::bindgen_prelude::{Env, External, JsObjectValue, Unknown, ValueType};
use napi_derive::napi;

use crate::diagnostics::Reason;
use crate::host::{contain, Outcome, Plugin};
use crate::napi_ext::{Caught, Failure, JsResult, UnknownExt};
use crate::query::{query, PreStep, PreviousReading};
use crate::refresh::within_refresh_interval;
use crate::session_index::{newest_reading, replace_generation, seen_generation};
use crate::surface::surface_moved;

/// `afterNext(plugin, decision, agent, signal, turn, firstStep, generation)`, once `next()` resolved
/// with `decision`: the decision itself, a new one, or index.js's marker of a query started.
#[napi(
  js_name = "afterNext",
  ts_args_type = "plugin: ExternalObject<unknown>, decision: unknown, agent: unknown, signal: unknown, turn: string, firstStep: boolean, generation: number | undefined",
  ts_return_type = "unknown"
)]
#[allow(clippy::too_many_arguments)]
pub fn after_next_call<'env>(
  env: &'env Env,
  plugin: &External<Rc<Plugin>>,
  decision: Unknown<'env>,
  agent: Unknown<'env>,
  signal: Unknown<'env>,
  turn: String,
  first_step: bool,
  generation: Option<f64>,
) -> Unknown<'env> {
  let nullish = matches!(signal.get_type(), Ok(ValueType::Undefined | ValueType::Null));
  let pre = PreStep {
    agent: Some(agent).filter(|v| v.is_object()),
    signal: Some(signal).filter(|_| !nullish),
    turn,
    first_step,
    generation,
  };
  contain(env, plugin, decision, |env| after_next(env, plugin, &pre, decision))
}

/// Contract steps 2 to 6.
fn after_next<'env>(
  env: &'env Env,
  plugin: &Rc<Plugin>,
  pre: &PreStep<'env>,
  decision: Unknown<'env>,
) -> JsResult<Outcome<'env>> {
  if decision.get_loose(env, c"kind")?.string_is("reject") {
    return Ok(Outcome::Pass);
  }
  let signal = pre.signal.ok_or_else(|| Failure::new("pre-step payload has no abort signal"))?;
  if signal.get_loose(env, c"aborted")?.truthy(env) {
    return Ok(Outcome::Pass);
  }
  if !pre.first_step {
    return after_a_replacement(env, plugin, pre);
  }
  let Some(shell) = plugin.executor(env)? else {
    plugin.no_reading(env, Reason::NoExecutor);
    return Ok(Outcome::Pass);
  };
  let agent = pre.agent.ok_or_else(|| Failure::new("pre-step payload has no agent"))?;
  let interval = plugin.config.refresh_interval_ms;
  if !interval.is_some_and(|i| i > 0.0) {
    // Without a refresh floor the log is read only once a location is known.
    return query(env, plugin, pre, shell, PreviousReading::Unread);
  }
  let previous = newest_reading(env, &plugin.helpers, agent)?.previous;
  if previous.is_some() && within_refresh_interval(interval, previous.as_ref(), date_now(env)?) {
    return Ok(Outcome::Pass);
  }
  let previous = PreviousReading::Known(previous);
  query(env, plugin, pre, shell, previous)
}

/// `Date.now()`, the JS package's clock for the refresh floor (a test may fake it).
fn date_now(env: &Env) -> JsResult<f64> {
  let global = env.get_global().caught(env)?;
  let date: Unknown = global.get_c_named_property_unchecked(c"Date").caught(env)?;
  let now = date.get_loose(env, c"now")?.call_with(env, date, vec![])?;
  Ok(now.as_number().unwrap_or(f64::NAN))
}

/// A later step: a reading only when a replacement (a compaction) inside `next()`, or since the
/// surface was last looked at, just shadowed the newest reading.
fn after_a_replacement<'env>(env: &'env Env, plugin: &Rc<Plugin>, pre: &PreStep<'env>) -> JsResult<Outcome<'env>> {
  let Some(agent) = pre.agent else {
    return Ok(Outcome::Pass);
  };
  let moved = surface_moved(pre.generation, seen_generation(env, agent), replace_generation(env, agent));
  if !moved || !newest_reading(env, &plugin.helpers, agent)?.newly_shadowed {
    return Ok(Outcome::Pass);
  }
  let Some(shell) = plugin.executor(env)? else {
    return Ok(Outcome::Pass);
  };
  query(env, plugin, pre, shell, PreviousReading::Known(None))
}
