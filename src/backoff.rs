//! How long a stuck tmux is given before the next query. Pure.

/// After a query that tmux did not answer in time, no query for a while, so a stuck tmux costs
/// one turn, not every turn: 60 s, doubling up to 10 minutes, reset by a query that finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff<T> {
  /// No query before this instant.
  until: Option<T>,
  /// The pause after the next time-out.
  next: std::time::Duration,
  /// The pause in force (the last one started).
  last: std::time::Duration,
}

/// The first pause after a time-out.
pub const BACKOFF_FIRST: std::time::Duration = std::time::Duration::from_secs(60);
/// The longest pause.
pub const BACKOFF_MAX: std::time::Duration = std::time::Duration::from_secs(600);

impl<T: Copy + PartialOrd + std::ops::Add<std::time::Duration, Output = T>> Default for Backoff<T> {
  fn default() -> Self {
    Backoff { until: None, next: BACKOFF_FIRST, last: BACKOFF_FIRST }
  }
}

impl<T: Copy + PartialOrd + std::ops::Add<std::time::Duration, Output = T>> Backoff<T> {
  /// Whether a query at `now` must wait.
  pub fn holds(&self, now: T) -> bool {
    self.until.is_some_and(|until| now < until)
  }

  /// A query timed out at `now`: the pause it starts.
  /// Queries that were already in flight and time out within the pause are the same stall: they
  /// start no longer one, and the pause in force is returned.
  pub fn timed_out(&mut self, now: T) -> std::time::Duration {
    if self.holds(now) {
      return self.last;
    }
    let pause = self.next;
    self.until = Some(now + pause);
    self.next = (pause * 2).min(BACKOFF_MAX);
    self.last = pause;
    pause
  }

  /// A query finished (whatever it found): back to no pause.
  pub fn finished(&mut self) {
    self.until = None;
    self.next = BACKOFF_FIRST;
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::time::{Duration, Instant};

  #[test]
  fn a_stuck_tmux_costs_one_turn_then_a_doubling_pause() {
    let t0 = Instant::now();
    let mut b = Backoff::default();
    assert!(!b.holds(t0));
    assert_eq!(b.timed_out(t0), Duration::from_secs(60));
    assert!(b.holds(t0 + Duration::from_secs(59)));
    assert!(!b.holds(t0 + Duration::from_secs(60)));
    assert_eq!(b.timed_out(t0), Duration::from_secs(60), "a query that was in flight too: the same stall");
    assert!(!b.holds(t0 + Duration::from_secs(60)), "and the pause is not longer");
    let t1 = t0 + Duration::from_secs(61);
    assert_eq!(b.timed_out(t1), Duration::from_secs(120));
    let mut at = t1;
    let pauses: Vec<u64> = (0..5)
      .map(|_| {
        at += Duration::from_secs(700);
        b.timed_out(at).as_secs()
      })
      .collect();
    assert_eq!(pauses, [240, 480, 600, 600, 600]);
    b.finished();
    assert!(!b.holds(t1));
    assert_eq!(b.timed_out(t1), Duration::from_secs(60));
  }
}
