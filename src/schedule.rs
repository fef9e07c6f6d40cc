//! Whether an injection is due: the refresh floor, change suppression against the newest durable
//! reading, and which session events a pre-step must read to know that reading. Pure.

use crate::parse::Location;
use crate::render::{render_reading, render_state};

/// The newest reading found in a session's durable events.
#[derive(Debug, Clone, PartialEq)]
pub struct Previous {
  /// The reading's text after its first `\n` (`""` when it has none): the compared state.
  pub state: String,
  /// The event's `time`, epoch ms.
  pub time: f64,
}

/// Whether the refresh floor holds the query back: an interval `> 0`, a previous reading, and `now`
/// in `[previous.time, previous.time + interval)`, all in epoch ms as JS numbers.
pub fn within_refresh_interval(refresh_interval_ms: Option<f64>, previous: Option<&Previous>, now: f64) -> bool {
  match (refresh_interval_ms, previous) {
    (Some(interval), Some(previous)) if interval > 0.0 => now >= previous.time && now - previous.time < interval,
    _ => false,
  }
}

/// What a pre-step does once the location is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
  /// Nothing changed since the newest reading: pass the decision through.
  Unchanged,
  /// Put this reading (full text) in front of the step's messages.
  Inject(String),
}

/// Whether `location` is news against `previous`, and the reading to inject if it is.
pub fn decide_injection(location: &Location, previous: Option<&Previous>, turn: &str) -> Injection {
  let state = render_state(location);
  match previous {
    Some(previous) if previous.state == state => Injection::Unchanged,
    _ => Injection::Inject(render_reading(turn, &state)),
  }
}

/// The per-session index of this plugin's readings, derived from the durable events and extended
/// only by the events appended since it last looked.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SessionIndex {
  /// How many events (from seq 0) the index has seen.
  pub scanned: usize,
  /// The newest reading among them: `None` when there is none, or when the newest one's first
  /// content block is not text (the contract then treats the previous reading as absent).
  pub latest: Option<Previous>,
}

/// Which events a pre-step must read to bring a [`SessionIndex`] up to date with `len` events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanPlan {
  /// Up to date.
  Nothing,
  /// Index never built (or the log shrank, which an append-only log never does): rebuild by
  /// reading `0..len` newest first, stopping at the first reading.
  NewestFirst { len: usize },
  /// Read only the events appended since, newest first: the newest reading among them wins.
  Appended { from: usize, len: usize },
}

impl SessionIndex {
  /// The events to read for a log of `len` events; `built` tells whether the index still
  /// describes this log (it was built, and the event it saw last still stands at its place).
  pub fn plan(&self, len: usize, built: bool) -> ScanPlan {
    if !built || len < self.scanned {
      ScanPlan::NewestFirst { len }
    } else if len == self.scanned {
      ScanPlan::Nothing
    } else {
      ScanPlan::Appended {
        from: self.scanned,
        len,
      }
    }
  }

  /// The index after reading `plan`, where `found` is what the newest-first read of the planned
  /// range found: `Some(reading)` at the first reading met (`reading` is `None` when its first
  /// content block is not text), `None` when the range holds no reading.
  pub fn after_scan(&self, plan: &ScanPlan, found: Option<Option<Previous>>) -> SessionIndex {
    match (plan, found) {
      (ScanPlan::Nothing, _) => self.clone(),
      (ScanPlan::NewestFirst { len } | ScanPlan::Appended { len, .. }, Some(latest)) => {
        SessionIndex { scanned: *len, latest }
      }
      (ScanPlan::NewestFirst { len }, None) => SessionIndex {
        scanned: *len,
        latest: None,
      },
      (ScanPlan::Appended { len, .. }, None) => SessionIndex {
        scanned: *len,
        latest: self.latest.clone(),
      },
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::parse::tests::loc;

  #[test]
  fn schedule_follows_the_js_clock_rules() {
    let prev = Previous {
      state: String::new(),
      time: 1_000.0,
    };
    assert!(within_refresh_interval(Some(100.0), Some(&prev), 1_099.0));
    assert!(!within_refresh_interval(Some(100.0), Some(&prev), 1_100.0));
    assert!(
      !within_refresh_interval(Some(100.0), Some(&prev), 999.0),
      "clock went back"
    );
    assert!(!within_refresh_interval(Some(0.0), Some(&prev), 1_000.0));
    assert!(!within_refresh_interval(None, Some(&prev), 1_000.0));
    assert!(!within_refresh_interval(Some(100.0), None, 1_000.0));
  }

  #[test]
  fn suppresses_unchanged_state() {
    let l = loc("s", "w");
    let prev = Previous {
      state: render_state(&l),
      time: 0.0,
    };
    assert_eq!(decide_injection(&l, Some(&prev), "3"), Injection::Unchanged);
    let moved = loc("s", "w2");
    assert!(
      matches!(decide_injection(&moved, Some(&prev), "3"), Injection::Inject(t) if t.starts_with("tmux location (turn 3):\n"))
    );
  }

  #[test]
  fn index_plans() {
    let idx = SessionIndex::default();
    assert_eq!(idx.plan(10, false), ScanPlan::NewestFirst { len: 10 });
    let idx = SessionIndex {
      scanned: 10,
      latest: None,
    };
    assert_eq!(idx.plan(10, true), ScanPlan::Nothing);
    assert_eq!(idx.plan(12, true), ScanPlan::Appended { from: 10, len: 12 });
    assert_eq!(idx.plan(3, true), ScanPlan::NewestFirst { len: 3 });
  }

  #[test]
  fn index_after_a_scan() {
    let old = Previous {
      state: "old".into(),
      time: 1.0,
    };
    let new = Previous {
      state: "new".into(),
      time: 2.0,
    };
    let idx = SessionIndex {
      scanned: 10,
      latest: Some(old.clone()),
    };
    let appended = ScanPlan::Appended { from: 10, len: 12 };
    assert_eq!(
      idx.after_scan(&appended, None),
      SessionIndex {
        scanned: 12,
        latest: Some(old.clone())
      }
    );
    assert_eq!(
      idx.after_scan(&appended, Some(Some(new.clone()))),
      SessionIndex {
        scanned: 12,
        latest: Some(new)
      }
    );
    assert_eq!(
      idx.after_scan(&appended, Some(None)),
      SessionIndex {
        scanned: 12,
        latest: None
      },
      "non-text newest"
    );
    let rebuild = ScanPlan::NewestFirst { len: 3 };
    assert_eq!(
      idx.after_scan(&rebuild, None),
      SessionIndex {
        scanned: 3,
        latest: None
      }
    );
    assert_eq!(idx.after_scan(&ScanPlan::Nothing, None), idx);
  }
}
