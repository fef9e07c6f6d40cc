//! Which session events a pre-step must read to know the newest reading: the per-session index
//! of this plugin's readings ([`ReadingIndex`]) and its scan plan. Pure.

use crate::refresh::Previous;

/// The per-session index of this plugin's readings, derived from the durable events and extended
/// only by the events appended since it last looked.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ReadingIndex {
  /// How many events (from seq 0) the index has seen.
  pub scanned: usize,
  /// The newest reading among them: `None` when there is none, or when the newest one's first
  /// content block is not text (the contract then treats the previous reading as absent).
  pub latest: Option<Previous>,
}

/// Which events a pre-step must read to bring a [`ReadingIndex`] up to date with `len` events.
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

impl ReadingIndex {
  /// The events to read for a log of `len` events; `built` tells whether the index still
  /// describes this log (it was built, and the event it saw last still stands at its place).
  pub fn plan(&self, len: usize, built: bool) -> ScanPlan {
    if !built || len < self.scanned {
      ScanPlan::NewestFirst { len }
    } else if len == self.scanned {
      ScanPlan::Nothing
    } else {
      ScanPlan::Appended { from: self.scanned, len }
    }
  }

  /// The index after reading `plan`, where `found` is what the newest-first read of the planned
  /// range found: `Some(reading)` at the first reading met (`reading` is `None` when its first
  /// content block is not text), `None` when the range holds no reading.
  pub fn after_scan(&self, plan: &ScanPlan, found: Option<Option<Previous>>) -> ReadingIndex {
    match (plan, found) {
      (ScanPlan::Nothing, _) => self.clone(),
      (ScanPlan::NewestFirst { len } | ScanPlan::Appended { len, .. }, Some(latest)) => {
        ReadingIndex { scanned: *len, latest }
      }
      (ScanPlan::NewestFirst { len }, None) => ReadingIndex { scanned: *len, latest: None },
      (ScanPlan::Appended { len, .. }, None) => ReadingIndex { scanned: *len, latest: self.latest.clone() },
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn index_plans() {
    let idx = ReadingIndex::default();
    assert_eq!(idx.plan(10, false), ScanPlan::NewestFirst { len: 10 });
    let idx = ReadingIndex { scanned: 10, latest: None };
    assert_eq!(idx.plan(10, true), ScanPlan::Nothing);
    assert_eq!(idx.plan(12, true), ScanPlan::Appended { from: 10, len: 12 });
    assert_eq!(idx.plan(3, true), ScanPlan::NewestFirst { len: 3 });
  }

  #[test]
  fn index_after_a_scan() {
    let old = Previous { state: "old".into(), time: 1.0, seq: None };
    let new = Previous { state: "new".into(), time: 2.0, seq: None };
    let idx = ReadingIndex { scanned: 10, latest: Some(old.clone()) };
    let appended = ScanPlan::Appended { from: 10, len: 12 };
    assert_eq!(idx.after_scan(&appended, None), ReadingIndex { scanned: 12, latest: Some(old.clone()) });
    assert_eq!(idx.after_scan(&appended, Some(Some(new.clone()))), ReadingIndex { scanned: 12, latest: Some(new) });
    assert_eq!(idx.after_scan(&appended, Some(None)), ReadingIndex { scanned: 12, latest: None }, "non-text newest");
    let rebuild = ScanPlan::NewestFirst { len: 3 };
    assert_eq!(idx.after_scan(&rebuild, None), ReadingIndex { scanned: 3, latest: None });
    assert_eq!(idx.after_scan(&ScanPlan::Nothing, None), idx);
  }
}
