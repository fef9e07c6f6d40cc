//! The N-API edge: `apply(ctx, config)` registers the `agent/pre-step` listener, and the listener
//! moves values between JS and the pure core. Everything runs on the JS thread; every await is a
//! promise continuation, so the event loop is never blocked. Any failure after `next()` resolves
//! (a thrown JS error, a Rust panic) becomes one `ctx.logger.warn` and the decision passes through.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

use napi::sys;

use crate::core::{self, Injection, Previous, ScanPlan, SessionIndex};
use crate::js::{Failure, Js, JsRef, JsResult, Val};

/// Grace after `queryTimeoutMs` before our own timer gives up on an executor that ignored it, ms.
const OWN_TIMER_GRACE_MS: f64 = 1_000.0;

/// Type tag of the session objects this addon attaches a [`SessionState`] to.
const SESSION_INDEX_TAG: sys::napi_type_tag = sys::napi_type_tag { lower: 0x746d_7578_2d63_7478, upper: 0x7365_7373_696f_6e31 };

/// One applied plugin: its context, its config and its per-session index of readings.
struct Plugin {
  ctx: JsRef,
  /// Fallback index store for session objects that cannot carry one (another addon wrapped or
  /// tagged them): `WeakMap<Session, External<RefCell<SessionState>>>`.
  sessions: JsRef,
  /// `ctx.get` (a function bound to the context's reflect service), read once: reading it through
  /// the context proxy each turn costs an accessor call and an `Error` with its stack.
  ctx_get: RefCell<Option<JsRef>>,
  /// The global `setTimeout`, read once.
  set_timeout: JsRef,
  /// Whether the sweep timer (see [`sweep`]) is armed.
  sweep_armed: Cell<bool>,
  refresh_interval_ms: Option<f64>,
  query_timeout_ms: u64,
  /// `{ command, timeoutMs }`: the query's JS values, made once.
  request_parts: JsRef,
  /// The promise continuations, made once per plugin and bound per call to the id of a slot.
  continuations: OnceCell<Continuations>,
  /// Per-call state waiting for a continuation.
  slots: Rc<Slots>,
}

/// The continuation functions, each `(id, value) => ...` once bound to a slot id, the sweep timer's
/// callback, and `Function.prototype.bind`. Making a JS function per call costs a function template
/// each time; binding a shared one does not, and needs no finalizer.
struct Continuations {
  bind: JsRef,
  sweep: JsRef,
  after_next: JsRef,
  next_rejected: JsRef,
  query_result: JsRef,
  query_failed: JsRef,
}

/// The state of calls in flight, keyed by ids that are never reused, so a continuation that comes
/// late (after another one settled the call) finds nothing and does nothing.
#[derive(Default)]
struct Slots {
  next_id: Cell<u64>,
  map: RefCell<HashMap<u64, Slot>>,
}

enum Slot {
  /// Waiting for `next()`; the deferred settles the promise the listener returned.
  Step(PreStep, sys::napi_deferred),
  /// Waiting for the executor (or our timer).
  Query(Query),
}

/// A query in flight: the promise the listener returned, and what deciding needs.
struct Query {
  deferred: sys::napi_deferred,
  /// When our own bound runs out: `queryTimeoutMs` plus a grace, on the monotonic clock.
  deadline: Instant,
  decision: Held,
  previous: Option<Previous>,
  turn: String,
}

impl Slots {
  fn insert(&self, slot: Slot) -> u64 {
    let id = self.next_id.get() + 1;
    self.next_id.set(id);
    self.map.borrow_mut().insert(id, slot);
    id
  }

  fn take(&self, js: Js, id: Val) -> Option<Slot> {
    self.remove(js.number_of(id)? as u64)
  }

  fn remove(&self, id: u64) -> Option<Slot> {
    self.map.borrow_mut().remove(&id)
  }
}

/// What a step of the listener decided.
enum Outcome {
  /// Hand `next()`'s decision back untouched.
  Pass,
  /// Hand back this value (a new decision).
  Value(Val),
}

/// A JS value kept alive across continuations, whatever its type.
struct Held {
  holder: JsRef,
  boxed: bool,
}

impl Held {
  fn new(js: Js, v: Val) -> JsResult<Held> {
    if js.is_object(v) {
      Ok(Held { holder: JsRef::new(js, v)?, boxed: false })
    } else {
      Ok(Held { holder: JsRef::new(js, js.array_of(&[v])?)?, boxed: true })
    }
  }

  fn get(&self, js: Js) -> JsResult<Val> {
    let v = self.holder.get(js)?;
    if self.boxed { js.element(v, 0) } else { Ok(v) }
  }
}

/// `apply(ctx, config)`: validates config (throws the contract's `TypeError`), registers the
/// prepended `agent/pre-step` listener on `ctx` (disposed with it), returns `undefined`.
pub fn apply(js: Js, ctx: Val, config: Val) -> JsResult<Val> {
  let refresh_interval_ms = read_config_number(js, config, c"refreshIntervalMs")?
    .map(|v| core::valid_refresh_interval(v.0).ok_or_else(|| throw_type_error(js, &core::refresh_interval_error(&v.1))))
    .transpose()?;
  let query_timeout_ms = read_config_number(js, config, c"queryTimeoutMs")?
    .map(|v| core::valid_query_timeout(v.0).ok_or_else(|| throw_type_error(js, &core::query_timeout_error(&v.1))))
    .transpose()?
    .unwrap_or(core::DEFAULT_QUERY_TIMEOUT_MS);
  let weak_map = js.global("WeakMap")?;
  let mut sessions = std::ptr::null_mut();
  let status = unsafe { sys::napi_new_instance(js.env, weak_map, 0, std::ptr::null(), &mut sessions) };
  if status != sys::Status::napi_ok {
    return Err(Failure("tmux-context: cannot create the session index".into()));
  }
  let plugin = Rc::new(Plugin {
    continuations: OnceCell::new(),
    slots: Rc::new(Slots::default()),
    // Strong, as the JS listener's closure holds it: the listener keeps its context. This makes no
    // leak: Cordis drops the listener when the context is disposed, and the listener owns this.
    ctx: JsRef::new(js, ctx)?,
    sessions: JsRef::new(js, sessions)?,
    ctx_get: RefCell::new(None),
    set_timeout: JsRef::new(js, js.global("setTimeout")?)?,
    sweep_armed: Cell::new(false),
    refresh_interval_ms,
    query_timeout_ms,
    request_parts: JsRef::new(
      js,
      js.object_of(&[
        (c"command", js.string(&core::build_command(std::process::id()))?),
        (c"timeoutMs", js.number(query_timeout_ms as f64)?),
      ])?,
    )?,
  });
  let _ = plugin.continuations.set(continuations(js, &plugin)?);
  let listener = js.function(c"tmuxContextPreStep", move |js, _this, args| pre_step(js, &plugin, args[0], args[1]))?;
  let options = js.object_of(&[(c"prepend", js.boolean(true)?)])?;
  js.call_method(ctx, c"on", &[js.string("agent/pre-step")?, listener, options])?;
  Ok(js.undefined())
}

/// Throws a `TypeError` and returns the failure that tells the trampoline it is already thrown.
fn throw_type_error(js: Js, message: &str) -> Failure {
  js.throw_type_error(message);
  Failure(message.to_string())
}

/// `config[key]`: `None` when undefined (or config itself is), else `(number, String(value))`;
/// a non-number gives `NaN`, which every rule rejects.
fn read_config_number(js: Js, config: Val, key: &std::ffi::CStr) -> JsResult<Option<(f64, String)>> {
  if !js.is_object(config) {
    return Ok(None);
  }
  let value = js.get(config, key)?;
  if js.is_undefined(value) {
    return Ok(None);
  }
  let shown = js.to_js_string(value)?;
  Ok(Some((js.number_of(value).unwrap_or(f64::NAN), shown)))
}

/// The payload fields the listener reads before calling `next()`, as the JS listener destructures.
struct PreStep {
  agent: Option<Held>,
  signal: Option<Held>,
  turn: String,
  first_step: bool,
}

fn read_pre_step(js: Js, payload: Val) -> PreStep {
  let field = |key| js.get(payload, key).ok();
  let held = |v: Option<Val>| v.filter(|v| js.is_object(*v)).and_then(|v| Held::new(js, v).ok());
  PreStep {
    agent: held(field(c"agent")),
    signal: field(c"signal").and_then(|v| Held::new(js, v).ok()),
    turn: field(c"turn").and_then(|t| js.coerce_to_string(t).ok()).unwrap_or_default(),
    first_step: field(c"step").and_then(|s| js.number_of(s)) == Some(1.0),
  }
}

/// The listener: always `await next()` first; then, on the first step of a turn, maybe inject.
fn pre_step(js: Js, plugin: &Rc<Plugin>, payload: Val, next: Val) -> JsResult<Val> {
  let pre = catch_unwind(AssertUnwindSafe(|| read_pre_step(js, payload)))
    .unwrap_or(PreStep { agent: None, signal: None, turn: String::new(), first_step: false });
  // `next()` throwing: the listener's promise rejects with that error, as `await next()` in an
  // async listener would.
  let Some(pending) = js.call_rethrowing(next, js.undefined(), &[]) else {
    let error = js.take_exception().unwrap_or_else(|| js.undefined());
    let (deferred, promise) = js.deferred()?;
    js.reject_deferred(deferred, error)?;
    return Ok(promise);
  };
  // The listener returns its own promise, settled by the continuations: by `next()`'s decision
  // passed through, by the query's outcome, or by `next()`'s rejection.
  let (deferred, promise) = js.deferred()?;
  let id = plugin.slots.insert(Slot::Step(pre, deferred));
  let attached = (|| {
    let pending = if js.is_promise(pending) { pending } else { resolved(js, pending)? };
    let c = plugin.continuations.get().ok_or_else(|| Failure("tmux-context: not set up".into()))?;
    let on_decision = c.bound(js, &c.after_next, id)?;
    let on_rejected = c.bound(js, &c.next_rejected, id)?;
    js.call_method(pending, c"then", &[on_decision, on_rejected])
  })();
  if attached.is_err() {
    if let Some(Slot::Step(_, deferred)) = plugin.slots.remove(id) {
      js.resolve_deferred(deferred, pending)?;
    }
  }
  Ok(promise)
}

impl Continuations {
  /// `f.bind(undefined, id)`.
  fn bound(&self, js: Js, f: &JsRef, id: u64) -> JsResult<Val> {
    js.call(self.bind.get(js)?, f.get(js)?, &[js.undefined(), js.number(id as f64)?])
  }
}

/// The shared continuations of one plugin. They hold the plugin weakly (it owns them) and its slots
/// strongly, so a call in flight always settles, even after the plugin itself is gone.
fn continuations(js: Js, plugin: &Rc<Plugin>) -> JsResult<Continuations> {
  let function_prototype = js.get(js.global("Function")?, c"prototype")?;
  let bind = js.get(function_prototype, c"bind")?;

  let (weak, slots) = (Rc::downgrade(plugin), Rc::clone(&plugin.slots));
  let after_next = js.function(c"tmuxContextAfterNext", move |js, _, args| {
    let decision = args[1];
    let Some(Slot::Step(pre, deferred)) = slots.take(js, args[0]) else { return Ok(js.undefined()) };
    let mut deferred = Some(deferred);
    let value = match weak.upgrade() {
      Some(plugin) => contain(js, &plugin, decision, |js| after_next(js, &plugin, &pre, decision, &mut deferred)),
      None => decision,
    };
    // Unless a query took it over, settle the listener's promise now.
    if let Some(deferred) = deferred {
      let _ = js.resolve_deferred(deferred, value);
    }
    Ok(js.undefined())
  })?;

  let slots = Rc::clone(&plugin.slots);
  let next_rejected = js.function(c"tmuxContextNextRejected", move |js, _, args| {
    // `next()` rejected: the listener's promise rejects with the same reason.
    if let Some(Slot::Step(_, deferred)) = slots.take(js, args[0]) {
      let _ = js.reject_deferred(deferred, args[1]);
    }
    Ok(js.undefined())
  })?;

  let (weak, slots) = (Rc::downgrade(plugin), Rc::clone(&plugin.slots));
  let query_result = js.function(c"tmuxContextQueryResult", move |js, _, args| {
    if let Some(Slot::Query(mut query)) = slots.take(js, args[0]) {
      let result = args[1];
      let (previous, turn) = (query.previous.take(), std::mem::take(&mut query.turn));
      query.settle(js, |js, decision| match weak.upgrade() {
        Some(plugin) => contain(js, &plugin, decision, |js| on_query_result(js, result, decision, previous.as_ref(), &turn)),
        None => decision,
      });
    }
    Ok(js.undefined())
  })?;

  let (weak, slots) = (Rc::downgrade(plugin), Rc::clone(&plugin.slots));
  let query_failed = js.function(c"tmuxContextQueryFailed", move |js, _, args| {
    // run() rejected: one warning, no location.
    if let Some(Slot::Query(query)) = slots.take(js, args[0]) {
      let reason = args[1];
      query.settle(js, |js, decision| {
        if let Some(plugin) = weak.upgrade() {
          warn(js, &plugin, &core::query_failed_warning(&js.error_message(reason)));
        }
        decision
      });
    }
    Ok(js.undefined())
  })?;

  let (weak, slots) = (Rc::downgrade(plugin), Rc::clone(&plugin.slots));
  let sweep = js.function(c"tmuxContextSweep", move |js, _, _| {
    sweep(js, &weak, &slots);
    Ok(js.undefined())
  })?;

  Ok(Continuations {
    bind: JsRef::new(js, bind)?,
    sweep: JsRef::new(js, sweep)?,
    after_next: JsRef::new(js, after_next)?,
    next_rejected: JsRef::new(js, next_rejected)?,
    query_result: JsRef::new(js, query_result)?,
    query_failed: JsRef::new(js, query_failed)?,
  })
}

/// A promise resolved with `value` (JS `await` accepts non-promises).
fn resolved(js: Js, value: Val) -> JsResult<Val> {
  let (deferred, promise) = js.deferred()?;
  js.resolve_deferred(deferred, value)?;
  Ok(promise)
}

/// Runs one step of the listener so that nothing escapes: a failure or a panic is logged once as a
/// warning and the decision passes through.
fn contain(js: Js, plugin: &Plugin, decision: Val, step: impl FnOnce(Js) -> JsResult<Outcome>) -> Val {
  match catch_unwind(AssertUnwindSafe(|| step(js))) {
    Ok(Ok(Outcome::Value(v))) => v,
    Ok(Ok(Outcome::Pass)) => decision,
    Ok(Err(Failure(reason))) => {
      warn(js, plugin, &core::listener_failed_warning(&reason));
      decision
    }
    Err(panic) => {
      let reason = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "internal panic".into());
      warn(js, plugin, &core::listener_failed_warning(&reason));
      decision
    }
  }
}

/// `ctx.logger.warn(message)`; a logger that throws is ignored.
fn warn(js: Js, plugin: &Plugin, message: &str) {
  let _ = (|| -> JsResult<()> {
    let ctx = plugin.ctx.get(js)?;
    let logger = js.get(ctx, c"logger")?;
    js.call_method(logger, c"warn", &[js.string(message)?])?;
    Ok(())
  })();
}

/// Contract steps 2 to 7, once `next()` has resolved with `decision`.
fn after_next(js: Js, plugin: &Rc<Plugin>, pre: &PreStep, decision: Val, deferred: &mut Option<sys::napi_deferred>) -> JsResult<Outcome> {
  let kind = js.get_loose(decision, c"kind")?;
  if js.string_is(kind, "reject") {
    return Ok(Outcome::Pass);
  }
  let aborted = match &pre.signal {
    Some(signal) => js.get_loose(signal.get(js)?, c"aborted")?,
    None => return Err(Failure("pre-step payload has no abort signal".into())),
  };
  if js.truthy(aborted) || !pre.first_step {
    return Ok(Outcome::Pass);
  }
  let ctx = plugin.ctx.get(js)?;
  let shell = executor(js, plugin, ctx)?;
  let Some(shell) = shell else { return Ok(Outcome::Pass) };
  let agent = pre.agent.as_ref().ok_or_else(|| Failure("pre-step payload has no agent".into()))?.get(js)?;
  let previous = previous_reading(js, plugin, agent)?;
  if plugin.refresh_interval_ms.is_some_and(|i| i > 0.0) && previous.is_some() {
    let now = js.call_method(js.global("Date")?, c"now", &[])?;
    let now = js.number_of(now).unwrap_or(f64::NAN);
    if core::within_refresh_interval(plugin.refresh_interval_ms, previous.as_ref(), now) {
      return Ok(Outcome::Pass);
    }
  }
  query(js, plugin, pre, shell, decision, previous, deferred)
}

/// `ctx.get('shell')`, else `ctx.get('bash')` (the 0.0.x harness's executor); `None` when neither
/// is mounted.
fn executor(js: Js, plugin: &Plugin, ctx: Val) -> JsResult<Option<Val>> {
  let cached = plugin.ctx_get.borrow().as_ref().and_then(|f| f.get(js).ok());
  let get = match cached {
    Some(get) => get,
    None => {
      let get = js.get(ctx, c"get")?;
      if js.is_object(get) {
        *plugin.ctx_get.borrow_mut() = JsRef::new(js, get).ok();
      }
      get
    }
  };
  for name in ["shell", "bash"] {
    let service = js.call(get, ctx, &[js.string(name)?])?;
    if !js.is_undefined(service) {
      return Ok(Some(service));
    }
  }
  Ok(None)
}

/// The newest reading in `agent.session.events`, from the per-session index: built newest-first
/// on a miss, then extended only by the events appended since. The index is checked against the
/// log each time (the event it last saw must still stand at its place), so a log that is not
/// append-only is read afresh.
fn previous_reading(js: Js, plugin: &Plugin, agent: Val) -> JsResult<Option<Previous>> {
  let session = js.get(agent, c"session")?;
  let events = js.get(session, c"events")?;
  let len = js.length_of(events)? as usize;
  let (cell, built) = session_index(js, plugin, session)?;
  // SAFETY: the index lives while `session` lives (attached to it, or held by the WeakMap under
  // it), and `session` is on this call's stack.
  let cell = unsafe { &*cell };
  let mut state = cell.replace(SessionState::default());
  let still_valid = built && state.still_stands(js, events, len);
  let plan = state.index.plan(len, still_valid);
  let scanned = plan != ScanPlan::Nothing;
  let result = update_index(js, events, &mut state.index, plan);
  if result.is_ok() && scanned {
    state.last = match state.index.scanned {
      0 => None,
      n => js.element(events, (n - 1) as u32).ok().filter(|e| js.is_object(*e)).and_then(|e| JsRef::weak(js, e).ok()),
    };
  } else if result.is_err() {
    state = SessionState::default();
  }
  let latest = state.index.latest.clone();
  *cell.borrow_mut() = state;
  result.map(|_| latest)
}

/// What this addon keeps per session object: the index, and the last event it saw (weakly).
#[derive(Default)]
struct SessionState {
  index: SessionIndex,
  last: Option<JsRef>,
}

impl SessionState {
  /// Whether the event the index saw last still stands at its place in `events`.
  fn still_stands(&self, js: Js, events: Val, len: usize) -> bool {
    let scanned = self.index.scanned;
    match (&self.last, scanned) {
      (_, 0) => true,
      (Some(last), n) if n <= len => match (last.get(js), js.element(events, (n - 1) as u32)) {
        (Ok(last), Ok(now)) => js.strict_equals(last, now),
        _ => false,
      },
      _ => false,
    }
  }
}

/// The index of `session` and whether it was built before: attached to the session object itself
/// (found without a JS call; shared by every plugin instance of this addon, as it is a pure function
/// of the session's events), else kept in this plugin's WeakMap.
fn session_index(js: Js, plugin: &Plugin, session: Val) -> JsResult<(*mut RefCell<SessionState>, bool)> {
  if !js.is_object(session) {
    return Err(Failure("agent.session is not an object".into()));
  }
  if let Some(ptr) = js.attached::<RefCell<SessionState>>(session, &SESSION_INDEX_TAG) {
    return Ok((ptr, true));
  }
  let sessions = plugin.sessions.get(js)?;
  let known = js.call_method(sessions, c"get", &[session])?;
  // SAFETY: only this module puts values in the WeakMap, all made by `external::<RefCell<_>>`.
  if let Some(ptr) = unsafe { js.external_data::<RefCell<SessionState>>(known) } {
    return Ok((ptr, true));
  }
  if let Some(ptr) = js.attach(session, &SESSION_INDEX_TAG, RefCell::new(SessionState::default())) {
    return Ok((ptr, false));
  }
  let (external, ptr) = js.external(RefCell::new(SessionState::default()))?;
  js.call_method(sessions, c"set", &[session, external])?;
  Ok((ptr, false))
}

/// Property keys and values a scan compares with, made once per scan.
struct ScanKeys {
  type_: Val,
  user_message: Val,
}

/// Events read between two handle scopes of a long scan, so a million-event rebuild does not pile
/// up millions of handles.
const SCAN_CHUNK: usize = 1024;

/// Reads the planned events, newest first, and stops at the first reading: the JS package's scan.
/// For `Appended`, only the events added since are read, and a reading among them replaces the
/// one the index had.
fn update_index(js: Js, events: Val, index: &mut SessionIndex, plan: ScanPlan) -> JsResult<()> {
  let (from, len, replace_all) = match plan {
    ScanPlan::Nothing => return Ok(()),
    ScanPlan::NewestFirst { len } => (0, len, true),
    ScanPlan::Appended { from, len } => (from, len, false),
  };
  let keys = ScanKeys { type_: js.string("type")?, user_message: js.string("user/message")? };
  let mut found = None;
  let mut seq = len;
  while seq > from && found.is_none() {
    let low = seq.saturating_sub(SCAN_CHUNK).max(from);
    found = js.in_handle_scope(|| -> JsResult<Option<Option<Previous>>> {
      for at in (low..seq).rev() {
        if let Some(reading) = reading_of(js, &keys, js.element(events, at as u32)?)? {
          return Ok(Some(reading));
        }
      }
      Ok(None)
    })?;
    seq = low;
  }
  match found {
    Some(reading) => index.latest = reading,
    None if replace_all => index.latest = None,
    None => {}
  }
  index.scanned = len;
  Ok(())
}

/// `None` when `event` is not one of this plugin's readings; `Some(None)` when it is but its first
/// content block is not text; else its state and time.
fn reading_of(js: Js, keys: &ScanKeys, event: Val) -> JsResult<Option<Option<Previous>>> {
  // One property read and one comparison per ordinary event: the cost of a rebuild.
  match js.get_by(event, keys.type_) {
    Ok(kind) if js.strict_equals(kind, keys.user_message) => {}
    _ => return Ok(None),
  }
  let data = js.get(event, c"data")?;
  let Ok(source) = js.get(data, c"source") else { return Ok(None) };
  let own = js.get(source, c"kind").is_ok_and(|k| js.string_is(k, "plugin"))
    && js.get(source, c"plugin").is_ok_and(|p| js.string_is(p, core::PLUGIN_NAME));
  if !own {
    return Ok(None);
  }
  let content = js.get(data, c"content")?;
  let block = if js.is_object(content) && js.length_of(content).unwrap_or(0) > 0 { Some(js.element(content, 0)?) } else { None };
  let text = match block {
    Some(block) if js.is_object(block) && js.string_is(js.get(block, c"type")?, "text") => js.string_of(js.get(block, c"text")?),
    _ => None,
  };
  let Some(text) = text else { return Ok(Some(None)) };
  // `now >= previous.time` coerces in JS: a numeric string or a Date counts as its number.
  let time = js.to_number(js.get(event, c"time")?);
  Ok(Some(Some(Previous { state: core::state_of_text(&text).to_string(), time })))
}

/// Contract step 6 onwards: `shell.run(shell.resolve({ command, signal, timeoutMs }))`, bounded by
/// our own timer too, then parse, compare and maybe inject. Returns a promise of the decision.
fn query(
  js: Js,
  plugin: &Rc<Plugin>,
  pre: &PreStep,
  shell: Val,
  decision: Val,
  previous: Option<Previous>,
  deferred: &mut Option<sys::napi_deferred>,
) -> JsResult<Outcome> {
  let signal = match &pre.signal {
    Some(signal) => signal.get(js)?,
    None => js.undefined(),
  };
  let parts = plugin.request_parts.get(js)?;
  let request = js.object_of(&[
    (c"command", js.get(parts, c"command")?),
    (c"signal", signal),
    (c"timeoutMs", js.get(parts, c"timeoutMs")?),
  ])?;
  let method = |key: &std::ffi::CStr, name: &str| -> JsResult<Val> {
    let f = js.get_loose(shell, key)?;
    if js.type_of(f) != sys::ValueType::napi_function {
      return Err(Failure(format!("bash.{name} is not a function")));
    }
    Ok(f)
  };
  let run = method(c"resolve", "resolve")
    .and_then(|resolve| js.call(resolve, shell, &[request]))
    .and_then(|spec| js.call(method(c"run", "run")?, shell, &[spec]));
  let pending = match run {
    Ok(v) if js.is_promise(v) => v,
    Ok(v) => resolved(js, v)?,
    Err(Failure(reason)) => {
      warn(js, plugin, &core::query_failed_warning(&reason));
      return Ok(Outcome::Pass);
    }
  };

  let c = plugin.continuations.get().ok_or_else(|| Failure("tmux-context: not set up".into()))?;
  let held = Held::new(js, decision)?;
  let Some(taken) = deferred.take() else { return Err(Failure("tmux-context: step already settled".into())) };
  let deadline = Instant::now() + Duration::from_millis(plugin.query_timeout_ms.saturating_add(OWN_TIMER_GRACE_MS as u64));
  let id = plugin.slots.insert(Slot::Query(Query { deferred: taken, deadline, decision: held, previous, turn: pre.turn.clone() }));
  let attached = (|| -> JsResult<()> {
    let on_result = c.bound(js, &c.query_result, id)?;
    let on_failed = c.bound(js, &c.query_failed, id)?;
    js.call_method(pending, c"then", &[on_result, on_failed])?;
    plugin.arm_sweep(js, deadline)
  })();
  if let Err(failure) = attached {
    // Take the promise back, so the failure is contained and the step settles now.
    if let Some(Slot::Query(query)) = plugin.slots.remove(id) {
      *deferred = Some(query.deferred);
    }
    return Err(failure);
  }
  Ok(Outcome::Pass)
}

impl Plugin {
  /// Arms the sweep timer for `deadline` unless it is armed already (it re-arms itself for the
  /// queries still in flight), so a query costs no timer of its own.
  fn arm_sweep(&self, js: Js, deadline: Instant) -> JsResult<()> {
    if self.sweep_armed.get() {
      return Ok(());
    }
    let c = self.continuations.get().ok_or_else(|| Failure("tmux-context: not set up".into()))?;
    let delay = deadline.saturating_duration_since(Instant::now()).as_millis().clamp(1, core::MAX_QUERY_TIMEOUT_MS as u128);
    let timer = js.call(self.set_timeout.get(js)?, js.undefined(), &[c.sweep.get(js)?, js.number(delay as f64)?])?;
    if js.is_object(timer) {
      // Never keeps the process alive.
      let _ = js.call_method(timer, c"unref", &[]);
    }
    self.sweep_armed.set(true);
    Ok(())
  }
}

/// Our own bound on queries: every query whose deadline has passed (the executor ignored
/// `timeoutMs`, or is stuck) settles now with the decision passed through, silently, as a timeout
/// does; the timer is armed again for the earliest query still in flight.
fn sweep(js: Js, plugin: &std::rc::Weak<Plugin>, slots: &Slots) {
  let plugin = plugin.upgrade();
  if let Some(plugin) = &plugin {
    plugin.sweep_armed.set(false);
  }
  let now = Instant::now() + Duration::from_millis(2);
  let expired: Vec<u64> = slots
    .map
    .borrow()
    .iter()
    .filter_map(|(id, slot)| matches!(slot, Slot::Query(q) if q.deadline <= now).then_some(*id))
    .collect();
  for id in expired {
    if let Some(Slot::Query(query)) = slots.remove(id) {
      query.settle(js, |_, decision| decision);
    }
  }
  let next = slots.map.borrow().values().filter_map(|slot| match slot {
    Slot::Query(q) => Some(q.deadline),
    Slot::Step(..) => None,
  }).min();
  if let (Some(plugin), Some(deadline)) = (plugin, next) {
    let _ = plugin.arm_sweep(js, deadline);
  }
}

impl Query {
  /// Resolves the listener's promise with what `decide` returns (given the decision); a failure to
  /// read the held decision still settles it, with `undefined`.
  fn settle(self, js: Js, decide: impl FnOnce(Js, Val) -> Val) {
    let value = match self.decision.get(js) {
      Ok(decision) => catch_unwind(AssertUnwindSafe(|| decide(js, decision))).unwrap_or(decision),
      Err(_) => js.undefined(),
    };
    let _ = js.resolve_deferred(self.deferred, value);
  }
}

/// Contract steps 6 (result) to 8: exit code, parse, compare, build the new decision.
fn on_query_result(js: Js, result: Val, decision: Val, previous: Option<&Previous>, turn: &str) -> JsResult<Outcome> {
  let exit_code = js.get_loose(result, c"exitCode")?;
  if js.number_of(exit_code) != Some(0.0) {
    return Ok(Outcome::Pass);
  }
  let stdout = js.get_loose(js.get_loose(result, c"stdout")?, c"text")?;
  let stdout = js.string_of(stdout).ok_or_else(|| Failure("executor stdout.text is not a string".into()))?;
  let Some(location) = core::parse_output(&stdout) else { return Ok(Outcome::Pass) };
  match core::decide_injection(&location, previous, turn) {
    Injection::Unchanged => Ok(Outcome::Pass),
    Injection::Inject(text) => Ok(Outcome::Value(enter_with_reading(js, decision, &text)?)),
  }
}

/// `{ kind: 'enter', messages: [reading, ...decision.messages] }` with the deep-frozen reading.
fn enter_with_reading(js: Js, decision: Val, text: &str) -> JsResult<Val> {
  let messages = js.get_loose(decision, c"messages")?;
  if !js.is_object(messages) {
    return Err(Failure("decision.messages is not iterable".into()));
  }
  let count = js.length_of(messages)?;
  let mut all = Vec::with_capacity(count as usize + 1);
  all.push(reading_message(js, text)?);
  for i in 0..count {
    all.push(js.element(messages, i)?);
  }
  js.object_of(&[(c"kind", js.string("enter")?), (c"messages", js.array_of(&all)?)])
}

/// The user message of a reading, keys in the contract's order, every object frozen.
fn reading_message(js: Js, text: &str) -> JsResult<Val> {
  let text = js.string(text)?;
  let plugin = js.string(core::PLUGIN_NAME)?;
  let block = js.freeze(js.object_of(&[(c"type", js.string("text")?), (c"text", text)])?)?;
  let content = js.freeze(js.array_of(&[block])?)?;
  let section = js.freeze(js.object_of(&[(c"name", plugin), (c"text", text)])?)?;
  let sections = js.freeze(js.array_of(&[section])?)?;
  let source = js.freeze(js.object_of(&[
    (c"kind", js.string("plugin")?),
    (c"plugin", plugin),
    (c"form", js.string("snapshot")?),
    (c"sections", sections),
  ])?)?;
  let id = uuid::Uuid::new_v4().to_string();
  js.freeze(js.object_of(&[(c"content", content), (c"source", source), (c"role", js.string("user")?), (c"id", js.string(&id)?)])?)
}

