//! The newest reading in a session's durable events: an index attached to the session object
//! (`napi_wrap`: it dies with the session), built newest-first on first sight, then extended by the
//! events appended since, while the event it saw last still stands at its place (else read afresh).
//! A reading counts while the session's surface, where it has one, still holds its seq.

use napi::bindgen_prelude::{Env, FromNapiValue, JsObjectValue, Object, ToNapiValue, Unknown};
use napi::JsValue;

use crate::helpers::Helpers;
use crate::napi_ext::{take_exception, undefined, Caught, Failure, JsResult, UnknownExt, Weak};
use crate::reading_index::{ReadingIndex, ScanPlan};
use crate::refresh::Previous;
use crate::render::PLUGIN_NAME;
use crate::surface::{look, Sighting, Standing};

/// What is kept per session object: the index, the last event it saw (weakly), what it last saw of
/// the newest reading on the surface, and the surface's replace generation then.
#[derive(Default)]
struct SessionState {
  index: ReadingIndex,
  last: Option<Weak>,
  sighting: Option<Sighting>,
  generation: Option<f64>,
}

/// The newest reading of a session, as the model sees it.
pub struct Newest {
  /// `None` when there is none, its first content block is not text, or it was shadowed.
  pub previous: Option<Previous>,
  /// Found shadowed just now (seen visible before, or never looked at).
  pub newly_shadowed: bool,
}

/// `agent.session.events`' newest reading of this plugin, while it is on `agent.session.surface`.
pub fn newest_reading(env: &Env, helpers: &Helpers, agent: Unknown) -> JsResult<Newest> {
  let session = agent.get_loose(env, c"session")?;
  let (events, len) = spread_unless_array(env, helpers, session.get_loose(env, c"events")?)?;
  let mut session = session.as_object().ok_or_else(|| Failure::new("agent.session is not an object"))?;
  // The state is taken out while the log is read (a getter may run JS), and put back after.
  let (state, attached) = match session.unwrap::<SessionState>() {
    Ok(state) => (std::mem::take(state), true),
    Err(_) => {
      take_exception(env);
      (SessionState::default(), false)
    }
  };
  let (index, last) = rescan(env, helpers, &events, len, attached, state.index, state.last)?;
  let (newest, sighting, generation) = on_surface(env, session, index.latest.clone(), state.sighting);
  let state = SessionState { index, last, sighting, generation };
  // First sight attaches the index; an object that cannot take it (wrapped by another addon, a
  // Proxy) is read afresh each turn, as the JS package reads it (`caught` leaves nothing pending).
  let put =
    if attached { session.unwrap::<SessionState>().map(|slot| *slot = state) } else { session.wrap(state, None) };
  let _ = put.caught(env);
  Ok(newest)
}

/// The index after reading what it has not seen of `events`, and the event it saw last now.
fn rescan(
  env: &Env,
  helpers: &Helpers,
  events: &Object,
  len: usize,
  attached: bool,
  index: ReadingIndex,
  last: Option<Weak>,
) -> JsResult<(ReadingIndex, Option<Weak>)> {
  let stands = attached && still_stands(env, &index, last.as_ref(), events, len);
  let plan = index.plan(len, stands);
  let (from, len) = match plan {
    ScanPlan::Nothing => return Ok((index, last)),
    ScanPlan::NewestFirst { len } => (0, len),
    ScanPlan::Appended { from, len } => (from, len),
  };
  let index = index.after_scan(&plan, scan(env, helpers, events, from, len)?);
  let last = match index.scanned {
    0 => None,
    n => events
      .get_element::<Unknown>((n - 1) as u32)
      .ok()
      .and_then(|e| e.as_object())
      .and_then(|e| Weak::new(env, e).ok()),
  };
  Ok((index, last))
}

/// Whether the event the index saw last still stands at its place in `events`.
fn still_stands(env: &Env, index: &ReadingIndex, last: Option<&Weak>, events: &Object, len: usize) -> bool {
  match (last, index.scanned) {
    (_, 0) => true,
    (Some(last), n) if n <= len => match (last.get(env), events.get_element::<Unknown>((n - 1) as u32)) {
      (Some(last), Ok(now)) => env.strict_equals(last, now).unwrap_or(false),
      _ => false,
    },
    _ => false,
  }
}

/// `latest`, unless the session's surface no longer holds its seq; what was seen of it, and the
/// surface's replace generation.
fn on_surface(
  env: &Env,
  session: Object,
  latest: Option<Previous>,
  sighting: Option<Sighting>,
) -> (Newest, Option<Sighting>, Option<f64>) {
  let surface = surface_of(env, session.to_unknown());
  let generation = surface.as_ref().map(|(_, generation)| *generation);
  let seq = latest.as_ref().and_then(|p| p.seq);
  let mut newest = Newest { previous: latest, newly_shadowed: false };
  let Some((seq, (surface, now))) = seq.zip(surface) else {
    return (newest, sighting, generation);
  };
  let (standing, seen) = look(sighting, seq, now, || holds_seq(env, surface, seq));
  if let Standing::Shadowed { newly } = standing {
    newest = Newest { previous: None, newly_shadowed: newly };
  }
  (newest, Some(seen), generation)
}

/// The log as the JS package reads it, `[...events]` (index.js's `spread`) unless it is an array,
/// and its length.
fn spread_unless_array<'env>(
  env: &'env Env,
  helpers: &Helpers,
  events: Unknown<'env>,
) -> JsResult<(Object<'env>, usize)> {
  let events = if events.is_array().unwrap_or(false) {
    events
  } else {
    let spread = helpers.spread.get(env)?;
    spread.call_with(env, undefined(env), vec![events])?
  };
  let events = Object::from_unknown(events).caught(env)?;
  Ok((events, events.get_array_length().caught(env)? as usize))
}

/// `agent.session.surface.replaceGeneration`, where it can be read.
pub fn replace_generation(env: &Env, agent: Unknown) -> Option<f64> {
  let session = agent.get_loose(env, c"session").ok()?;
  surface_of(env, session).map(|(_, generation)| generation)
}

/// The replace generation of `agent.session`'s surface when [`newest_reading`] last looked.
pub fn seen_generation(env: &Env, agent: Unknown) -> Option<f64> {
  let session = agent.get_loose(env, c"session").ok()?.as_object()?;
  match session.unwrap::<SessionState>() {
    Ok(state) => state.generation,
    Err(_) => {
      take_exception(env);
      None
    }
  }
}

/// `session.surface` and its `replaceGeneration`, when the surface is an object with a finite one.
fn surface_of<'env>(env: &Env, session: Unknown<'env>) -> Option<(Unknown<'env>, f64)> {
  let surface = session.get_loose(env, c"surface").ok().filter(|s| s.is_object())?;
  let generation = surface.get_loose(env, c"replaceGeneration").ok()?.as_number()?;
  generation.is_finite().then_some((surface, generation))
}

/// `surface.nodes.lastIndexOf(seq) !== -1`, from the end, where a recent reading stands; a surface
/// whose nodes cannot be read keeps the reading.
fn holds_seq(env: &Env, surface: Unknown, seq: f64) -> bool {
  (|| -> JsResult<bool> {
    let nodes = surface.get_loose(env, c"nodes")?;
    let last_index_of = nodes.get_loose(env, c"lastIndexOf")?;
    Ok(last_index_of.call_with(env, nodes, vec![seq.into_unknown(env).caught(env)?])?.as_number() != Some(-1.0))
  })()
  .unwrap_or(true)
}

/// Reads events `from..len` newest first and stops at the first reading of this plugin (index.js's
/// `newestReading`): the JS package's scan. `Some(None)` when that reading's first content block is
/// not text.
fn scan(env: &Env, helpers: &Helpers, events: &Object, from: usize, len: usize) -> JsResult<Option<Option<Previous>>> {
  let walk = helpers.newest_reading.get(env)?;
  let range = vec![
    events.to_unknown(),
    (from as f64).into_unknown(env).caught(env)?,
    (len as f64).into_unknown(env).caught(env)?,
    PLUGIN_NAME.into_unknown(env).caught(env)?,
  ];
  let found = walk.call_with(env, undefined(env), range)?;
  if found.is_undefined() {
    return Ok(None);
  }
  let Some(reading) = found.as_object() else { return Ok(Some(None)) };
  let field = |index| reading.get_element::<Unknown>(index).caught(env);
  Ok(Some(Some(Previous {
    state: field(0)?.as_string().unwrap_or_default(),
    time: field(1)?.as_number().unwrap_or(f64::NAN),
    seq: field(2)?.as_number(),
  })))
}
