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
use crate::command::build_command;
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
  pub panes: bool,
}

/// One applied plugin: what it was configured with, and what it remembers between steps.
pub struct Plugin {
  config: Config,
  pid: u32,
  /// No query while a stuck tmux is given time.
  backoff: RefCell<Backoff<Instant>>,
  /// Why the last query gave no reading, as logged (`None` after a location).
  last_reason: RefCell<Option<Reason>>,
  /// The command, for the `$TMUX` it was made under (checking the server reads `/proc`).
  command: RefCell<Option<(Option<String>, String)>>,
}

/// `apply(config, pid)`: the applied plugin, for index.js's listener to hand back each step.
#[napi(ts_return_type = "ExternalObject<'tmux-context'>")]
pub fn apply(config: Config, pid: u32) -> External<Plugin> {
  External::new(Plugin {
    config,
    pid,
    backoff: RefCell::default(),
    last_reason: RefCell::default(),
    command: RefCell::default(),
  })
}

/// The newest reading index.js found: the text after its first newline, and its event's `time`.
#[napi(object)]
pub struct Reading {
  pub state: String,
  pub time: f64,
}

/// What index.js read after `next()` ([`Step`]).
#[napi(object)]
pub struct StepFacts {
  pub first: bool,
  pub now: f64,
  pub previous: Option<Reading>,
  pub visible: bool,
  pub generation_before: Option<f64>,
  pub generation_seen: Option<f64>,
  pub generation: Option<f64>,
}

/// A query to run: the `sh` command, and the state to compare its answer with (handed back to
/// `read`).
#[napi(object)]
pub struct Query {
  pub command: String,
  pub compare: Option<String>,
}

/// `plan(plugin, facts)`: `null` to pass the step through, or the query to run.
#[napi(ts_args_type = "plugin: ExternalObject<'tmux-context'>, facts: StepFacts")]
pub fn plan(plugin: &External<Plugin>, facts: StepFacts) -> Option<Query> {
  let StepFacts { first, now, previous, visible, generation_before, generation_seen, generation } = facts;
  let previous = previous.map(|Reading { state, time }| Previous { state, time, seq: None });
  let step = Step { first, now, previous, visible, generation_before, generation_seen, generation };
  let Due::Query(compare) = due(step, plugin.config.refresh_interval_ms) else { return None };
  if plugin.backoff.borrow().holds(Instant::now()) {
    return None;
  }
  Some(Query { command: plugin.command(), compare: compare.map(|p| p.state) })
}

/// How a query ended, as index.js saw it: one of `failed` (the executor threw or rejected: its
/// message), `expired` (our own bound ran out), `noExecutor`, `lacks` (what the executor's result
/// lacks), else the result's fields.
#[napi(object)]
#[derive(Default)]
pub struct Outcome {
  pub turn: String,
  pub compare: Option<String>,
  pub failed: Option<String>,
  pub expired: Option<bool>,
  pub no_executor: Option<bool>,
  pub lacks: Option<String>,
  pub exit_code: Option<f64>,
  pub timed_out: Option<bool>,
  pub stdout: Option<String>,
  pub stderr: Option<String>,
}

/// What index.js does with an outcome: inject `text`, and log `warn` or `debug`.
#[napi(object)]
#[derive(Debug, Default, PartialEq)]
pub struct Said {
  pub text: Option<String>,
  pub warn: Option<String>,
  pub debug: Option<String>,
}

/// `read(plugin, outcome)`: contract steps 6 (the result) to 8.
#[napi(ts_args_type = "plugin: ExternalObject<'tmux-context'>, outcome: Outcome")]
pub fn read(plugin: &External<Plugin>, outcome: Outcome) -> Said {
  plugin.read(outcome, Instant::now())
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
        let command = build_command(self.pid, server, self.config.panes);
        *made = Some((tmux, command.clone()));
        command
      }
    }
  }

  fn read(&self, outcome: Outcome, now: Instant) -> Said {
    let Outcome { turn, compare, failed, expired, no_executor, lacks, exit_code, timed_out, stdout, stderr } = outcome;
    if let Some(message) = failed {
      return Said { warn: Some(query_failed_warning(&message)), ..Said::default() };
    }
    let reason = match (exit_code, lacks) {
      _ if no_executor == Some(true) => Reason::NoExecutor,
      _ if expired == Some(true) => self.timed_out(now),
      (_, Some(what)) => Reason::Malformed(what),
      (Some(0.0), None) => {
        self.backoff.borrow_mut().finished();
        let Some(answer) = parse_output(stdout.as_deref().unwrap_or_default()) else {
          return self.no_reading(Reason::Unreadable);
        };
        self.last_reason.borrow_mut().take();
        let previous = compare.map(|state| Previous { state, time: 0.0, seq: None });
        let home = std::env::var("HOME").ok();
        return match decide_injection(&answer, previous.as_ref(), &turn, home.as_deref()) {
          Injection::Unchanged => Said::default(),
          Injection::Inject(text) => Said { text: Some(text), ..Said::default() },
        };
      }
      _ if timed_out == Some(true) => self.timed_out(now),
      (code, None) => {
        self.backoff.borrow_mut().finished();
        let code = code.filter(|c| c.fract() == 0.0).map(|c| c as i64);
        Reason::of_exit(code, stderr.as_deref().unwrap_or_default())
      }
    };
    self.no_reading(reason)
  }

  /// tmux did not answer in time: no query for the backoff's pause.
  fn timed_out(&self, now: Instant) -> Reason {
    let pause = self.backoff.borrow_mut().timed_out(now);
    Reason::TimedOut { timeout_ms: self.config.query_timeout_ms.into(), backoff_s: pause.as_secs() }
  }

  /// Why there is no reading, at debug level, once each time the reason changes.
  fn no_reading(&self, reason: Reason) -> Said {
    let mut last = self.last_reason.borrow_mut();
    if last.as_ref() == Some(&reason) {
      return Said::default();
    }
    let debug = Some(reason.message());
    *last = Some(reason);
    Said { debug, ..Said::default() }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::command::{EXIT_NOT_IN_TMUX, FIELD_SEP};

  fn plugin(refresh_interval_ms: Option<f64>) -> External<Plugin> {
    apply(Config { refresh_interval_ms, query_timeout_ms: 250, panes: false }, 4242)
  }

  fn first(previous: Option<Reading>, now: f64) -> StepFacts {
    StepFacts {
      first: true,
      now,
      previous,
      visible: true,
      generation_before: None,
      generation_seen: None,
      generation: None,
    }
  }

  /// What the JS package's format prints for session `s`, window 1 `w`, pane 0 `%3`.
  fn answer() -> String {
    ["s", "1", "w", "0", "%3", "1", "1", "b25d,80x24,0,0,3"].join(FIELD_SEP) + "\n"
  }

  fn finished(compare: Option<String>, stdout: String) -> Outcome {
    Outcome { turn: "2".into(), compare, exit_code: Some(0.0), stdout: Some(stdout), ..Outcome::default() }
  }

  #[test]
  fn a_planned_query_reads_back_into_a_reading_or_nothing_when_unchanged() {
    let plugin = plugin(None);
    let query = plan(&plugin, first(None, 0.0)).expect("a first step asks");
    assert!(query.command.contains("[ -n \"$TMUX_PANE\" ]") && query.command.contains("4242"));
    let said = read(&plugin, finished(query.compare, answer()));
    let text = said.text.expect("a reading");
    assert!(text.starts_with("tmux location (turn 2):\nsession s, window 1 \"w\", pane 0 %3\n"), "{text}");
    let state = text.split_once('\n').unwrap().1.to_string();
    assert_eq!(read(&plugin, finished(Some(state), answer())), Said::default());
  }

  #[test]
  fn the_refresh_floor_and_a_stuck_tmux_hold_the_query_back() {
    let plugin = plugin(Some(100.0));
    assert!(plan(&plugin, first(Some(Reading { state: "x".into(), time: 1_000.0 }), 1_050.0)).is_none());
    let timed_out = read(&plugin, Outcome { expired: Some(true), ..Outcome::default() });
    assert_eq!(
      timed_out.debug.as_deref(),
      Some("tmux-context: no location this turn: tmux did not answer within 250 ms; not asking again for 60 s")
    );
    assert!(plan(&plugin, first(None, 0.0)).is_none(), "backing off");
  }

  #[test]
  fn why_there_is_no_reading_is_told_once_per_change() {
    let plugin = plugin(None);
    let exit = |code| Outcome { exit_code: Some(code), ..Outcome::default() };
    let not_in_tmux = Some("tmux-context: no location this turn: not in tmux: $TMUX_PANE is not set (outside tmux, or in a display-popup, where tmux sets $TMUX only)".to_string());
    assert_eq!(read(&plugin, exit(EXIT_NOT_IN_TMUX as f64)).debug, not_in_tmux);
    assert_eq!(read(&plugin, exit(EXIT_NOT_IN_TMUX as f64)), Said::default());
    let lacks = Outcome { lacks: Some("a numeric exitCode (got \"0\")".into()), ..Outcome::default() };
    assert_eq!(
      read(&plugin, lacks).debug.as_deref(),
      Some("tmux-context: no location this turn: the executor's result lacks a numeric exitCode (got \"0\")")
    );
    let failed = read(&plugin, Outcome { failed: Some("boom".into()), ..Outcome::default() });
    assert_eq!(failed.warn.as_deref(), Some("tmux location query failed: boom; injecting no location this turn"));
    let signal = read(&plugin, Outcome { exit_code: None, ..Outcome::default() });
    assert_eq!(
      signal.debug.as_deref(),
      Some("tmux-context: no location this turn: the query ended with no status (killed by a signal)")
    );
  }
}
