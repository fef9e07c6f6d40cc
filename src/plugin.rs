//! The Node-API edge: plain values in, plain values out. index.js reads the payload, the session
//! and the executor, and builds the message; here the applied plugin decides. A queried step
//! crosses twice: `plan` after `next()` (pass, or the command to run), then `read` with what the
//! executor answered (the reading to inject, and what to log).

use std::cell::RefCell;
use std::time::Instant;

use napi::bindgen_prelude::External;
use napi_derive::napi;

use crate::backoff::Backoff;
use crate::change::{decide_injection, Injection};
use crate::command::{build_command, Query, Scope};
use crate::diagnostics::{query_failed_warning, Reason};
use crate::parse::parse_output;
use crate::refresh::Previous;
use crate::schedule::{due, Due, Step};
use crate::server::{checked_server, own_uid};

/// The config as index.js checked it (its defaults filled in).
#[napi(object)]
pub struct Config {
  pub refresh_interval_ms: Option<f64>,
  pub query_timeout_ms: u32,
  /// `off`, `window` or `session`.
  pub panes: String,
  pub pane_options: Vec<String>,
  pub pane_titles: bool,
  pub clients: bool,
}

impl Config {
  /// What a query asks tmux for.
  fn query(&self) -> Query {
    let panes = match self.panes.as_str() {
      "window" => Scope::Window,
      "session" => Scope::Session,
      _ => Scope::Off,
    };
    Query { panes, pane_options: self.pane_options.clone(), pane_titles: self.pane_titles, clients: self.clients }
  }
}

/// One applied plugin: what it was configured with, and what it remembers between steps.
pub struct Plugin {
  config: Config,
  /// What each query asks tmux for (from `config`).
  query: Query,
  pid: u32,
  /// No query while a stuck tmux is given time.
  backoff: RefCell<Backoff<Instant>>,
  /// Why the last query gave no reading, as logged (`None` after a location).
  last_reason: RefCell<Option<Reason>>,
  /// The command, for the `$TMUX` it was made under (checking the server reads `/proc`).
  command: RefCell<Option<(Option<String>, String)>>,
  /// `$HOME`, resolved as tmux reports a pane's directory (a symlinked home, FreeBSD's `/home`).
  home: Option<String>,
}

/// `apply(config, pid)`: the applied plugin, for index.js's listener to hand back each step.
#[napi(ts_return_type = "ExternalObject<'tmux-context'>")]
pub fn apply(config: Config, pid: u32) -> External<Plugin> {
  External::new(Plugin {
    query: config.query(),
    config,
    pid,
    backoff: RefCell::default(),
    last_reason: RefCell::default(),
    command: RefCell::default(),
    home: std::env::var("HOME")
      .ok()
      .map(|home| std::fs::canonicalize(&home).map_or(home, |p| p.to_string_lossy().into_owned())),
  })
}

/// `plan(plugin, first, now, state, time, shadowed, replaced)`, after `next()`: the command to run,
/// or `null` to pass the step through. index.js hands over what it read (positional values: each
/// crosses without a property lookup): whether this is the turn's first step, `Date.now()`, the
/// newest reading the model still sees (its state, the text after the first newline, and its
/// event's `time`), whether a newer one was shadowed, and whether the surface was just replaced.
#[napi(
  ts_args_type = "plugin: ExternalObject<'tmux-context'>, first: boolean, now: number, state: string | undefined, time: number, shadowed: boolean, replaced: boolean"
)]
pub fn plan(
  plugin: &External<Plugin>,
  first: bool,
  now: f64,
  state: Option<String>,
  time: f64,
  shadowed: bool,
  replaced: bool,
) -> Option<String> {
  let previous = state.map(|state| Previous { state, time, seq: None });
  let Due::Query(_) = due(Step { first, now, previous, shadowed, replaced }, plugin.config.refresh_interval_ms) else {
    return None;
  };
  if plugin.backoff.borrow().holds(Instant::now()) {
    return None;
  }
  Some(plugin.command())
}

/// `read(plugin, turn, compare, end, exitCode, stdout, detail)`: contract steps 6 (the result) to 8.
/// `compare` is the state the step's reading is compared with (`undefined` when a shadowed reading
/// is replaced: any location is news); `end` how the query ended: `exited` (with the result's
/// `exitCode`, `stdout` and, as `detail`, its stderr), `timedOut` (the executor's time-out, the
/// same fields), `expired` (our own bound), `failed` (the executor threw or rejected: `detail` is
/// its message), `noExecutor`, `lacks` (`detail`: what the executor's result lacks), or `truncated`
/// (a successful query whose stdout the executor cut: only a part of tmux's answer). Returns what
/// to inject or log, `null` for nothing.
#[napi(
  ts_args_type = "plugin: ExternalObject<'tmux-context'>, turn: string, compare: string | undefined, end: 'exited' | 'timedOut' | 'expired' | 'failed' | 'noExecutor' | 'lacks' | 'truncated', exitCode: number | null | undefined, stdout: string | undefined, detail: string | undefined"
)]
pub fn read(
  plugin: &External<Plugin>,
  turn: String,
  compare: Option<String>,
  end: String,
  exit_code: Option<f64>,
  stdout: Option<String>,
  detail: Option<String>,
) -> Option<Said> {
  let detail = detail.unwrap_or_default();
  let reason = match (end.as_str(), exit_code) {
    ("failed", _) => return Some(Said { warn: Some(query_failed_warning(&detail)), ..Said::default() }),
    ("noExecutor", _) => Reason::NoExecutor,
    ("expired", _) => plugin.timed_out(),
    ("lacks", _) => Reason::Malformed(detail),
    ("truncated", _) => {
      plugin.backoff.borrow_mut().finished();
      Reason::Truncated
    }
    (_, Some(0.0)) => {
      plugin.backoff.borrow_mut().finished();
      // The roster and the clients only where they were asked for: with neither, the reading is the JS package's.
      let Some(answer) = parse_output(stdout.as_deref().unwrap_or_default(), &plugin.query) else {
        return plugin.no_reading(Reason::Unreadable);
      };
      plugin.last_reason.borrow_mut().take();
      let previous = compare.map(|state| Previous { state, time: 0.0, seq: None });
      return match decide_injection(&answer, previous.as_ref(), &turn, plugin.home.as_deref()) {
        Injection::Unchanged => None,
        Injection::Inject(text) => Some(Said { text: Some(text), ..Said::default() }),
      };
    }
    ("timedOut", _) => plugin.timed_out(),
    (_, Some(code)) if !(code.fract() == 0.0 && code.abs() <= f64::from(i32::MAX)) => {
      Reason::Malformed(format!("an integral exitCode (got {code:?})"))
    }
    (_, code) => {
      plugin.backoff.borrow_mut().finished();
      Reason::of_exit(code.map(|c| c as i64), &detail)
    }
  };
  plugin.no_reading(reason)
}

/// What index.js does with an outcome: inject `text`, and log `warn` or `debug`.
#[napi(object)]
#[derive(Debug, Default, PartialEq)]
pub struct Said {
  pub text: Option<String>,
  pub warn: Option<String>,
  pub debug: Option<String>,
}

impl Plugin {
  /// The query for this process, through the binary of `$TMUX`'s server once it checks out.
  fn command(&self) -> String {
    let tmux = std::env::var("TMUX").ok();
    let mut made = self.command.borrow_mut();
    match made.as_ref() {
      Some((key, command)) if *key == tmux => command.clone(),
      _ => {
        let server = tmux.as_deref().and_then(|t| checked_server(t, std::path::Path::new("/proc"), own_uid()?));
        let command = build_command(self.pid, server, &self.query);
        *made = Some((tmux, command.clone()));
        command
      }
    }
  }

  /// tmux did not answer in time: no query for the backoff's pause.
  fn timed_out(&self) -> Reason {
    let pause = self.backoff.borrow_mut().timed_out(Instant::now());
    Reason::TimedOut { timeout_ms: self.config.query_timeout_ms.into(), backoff_s: pause.as_secs() }
  }

  /// Why there is no reading, at debug level, once each time the reason changes.
  fn no_reading(&self, reason: Reason) -> Option<Said> {
    let mut last = self.last_reason.borrow_mut();
    if last.as_ref() == Some(&reason) {
      return None;
    }
    let debug = Some(reason.message());
    *last = Some(reason);
    Some(Said { debug, ..Said::default() })
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::command::{EXIT_NOT_IN_TMUX, FIELD_SEP};

  fn plugin(refresh_interval_ms: Option<f64>) -> External<Plugin> {
    let config = Config {
      refresh_interval_ms,
      query_timeout_ms: 250,
      panes: "off".into(),
      pane_options: Vec::new(),
      pane_titles: false,
      clients: false,
    };
    apply(config, 4242)
  }

  /// What the JS package's format prints for session `s`, window 1 `w`, pane 0 `%3`.
  fn answer() -> String {
    ["s", "1", "w", "0", "%3", "1", "1", "b25d,80x24,0,0,3"].join(FIELD_SEP) + "\n"
  }

  /// `read` of a query that ended as `end`, without a state to compare with.
  fn ended(plugin: &External<Plugin>, end: &str, exit_code: Option<f64>, detail: &str) -> Option<Said> {
    read(plugin, "2".into(), None, end.into(), exit_code, None, Some(detail.into()))
  }

  #[test]
  fn a_planned_query_reads_back_into_a_reading_or_nothing_when_unchanged() {
    let plugin = plugin(None);
    let command = plan(&plugin, true, 0.0, None, 0.0, false, false).expect("a first step asks");
    assert!(command.contains("[ -n \"$TMUX_PANE\" ]") && command.contains("4242"));
    let said = read(&plugin, "2".into(), None, "exited".into(), Some(0.0), Some(answer()), None);
    let text = said.and_then(|s| s.text).expect("a reading");
    assert!(text.starts_with("tmux location (turn 2):\nsession s, window 1 \"w\", pane 0 %3\n"), "{text}");
    let state = text.split_once('\n').unwrap().1.to_string();
    assert_eq!(read(&plugin, "3".into(), Some(state), "exited".into(), Some(0.0), Some(answer()), None), None);
  }

  #[test]
  fn the_refresh_floor_and_a_stuck_tmux_hold_the_query_back() {
    let plugin = plugin(Some(100.0));
    assert_eq!(plan(&plugin, true, 1_050.0, Some("x".into()), 1_000.0, false, false), None);
    assert_eq!(plan(&plugin, false, 0.0, None, 0.0, false, true), None, "a later step, nothing shadowed");
    assert!(plan(&plugin, false, 0.0, None, 0.0, true, true).is_some(), "a later step after a compaction");
    let timed_out = ended(&plugin, "expired", None, "").and_then(|s| s.debug);
    assert_eq!(
      timed_out.as_deref(),
      Some("tmux-context: no location this turn: tmux did not answer within 250 ms; not asking again for 60 s")
    );
    assert_eq!(plan(&plugin, true, 0.0, None, 0.0, false, false), None, "backing off");
  }

  #[test]
  fn why_there_is_no_reading_is_told_once_per_change() {
    let plugin = plugin(None);
    let debug = |end, code, detail| ended(&plugin, end, code, detail).and_then(|s| s.debug);
    let not_in_tmux = "tmux-context: no location this turn: not in tmux: $TMUX_PANE is not set (outside tmux, or in a display-popup, where tmux sets $TMUX only)";
    assert_eq!(debug("exited", Some(EXIT_NOT_IN_TMUX as f64), "").as_deref(), Some(not_in_tmux));
    assert_eq!(ended(&plugin, "exited", Some(EXIT_NOT_IN_TMUX as f64), ""), None, "told once");
    assert_eq!(
      debug("lacks", None, "a numeric exitCode (got string)").as_deref(),
      Some("tmux-context: no location this turn: the executor's result lacks a numeric exitCode (got string)")
    );
    let failed = ended(&plugin, "failed", None, "boom").and_then(|s| s.warn);
    assert_eq!(failed.as_deref(), Some("tmux location query failed: boom; injecting no location this turn"));
    assert_eq!(
      debug("exited", None, "").as_deref(),
      Some("tmux-context: no location this turn: the query ended with no status (killed by a signal)")
    );
    assert!(debug("timedOut", Some(124.0), "").unwrap().contains("tmux did not answer within 250 ms"));
    for (code, shown) in [(f64::NAN, "NaN"), (0.5, "0.5"), (1e300, "1e300"), (-3e9, "-3000000000.0")] {
      assert_eq!(
        debug("exited", Some(code), "").as_deref(),
        Some(
          format!(
            "tmux-context: no location this turn: the executor's result lacks an integral exitCode (got {shown})"
          )
          .as_str()
        ),
        "not a signal, not a status it never had"
      );
    }
    assert!(debug("exited", Some(3.0), "").unwrap().ends_with("the query ended with status 3"));
  }
}
