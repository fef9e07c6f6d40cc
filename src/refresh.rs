//! The refresh floor: whether a new query waits for the interval since the newest durable reading.
//! Pure.

/// The newest reading found in a session's durable events.
#[derive(Debug, Clone, PartialEq)]
pub struct Previous {
  /// The reading's text after its first `\n` (`""` when it has none): the compared state.
  pub state: String,
  /// The event's `time`, epoch ms.
  pub time: f64,
  /// The event's `seq`, where it is a number: its place on the session's surface.
  pub seq: Option<f64>,
}

/// Whether the refresh floor holds the query back: an interval `> 0`, a previous reading, and `now`
/// in `[previous.time, previous.time + interval)`, all in epoch ms as JS numbers.
pub fn within_refresh_interval(refresh_interval_ms: Option<f64>, previous: Option<&Previous>, now: f64) -> bool {
  match (refresh_interval_ms, previous) {
    (Some(interval), Some(previous)) if interval > 0.0 => now >= previous.time && now - previous.time < interval,
    _ => false,
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn schedule_follows_the_js_clock_rules() {
    let prev = Previous { state: String::new(), time: 1_000.0, seq: None };
    assert!(within_refresh_interval(Some(100.0), Some(&prev), 1_099.0));
    assert!(!within_refresh_interval(Some(100.0), Some(&prev), 1_100.0));
    assert!(!within_refresh_interval(Some(100.0), Some(&prev), 999.0), "clock went back");
    assert!(!within_refresh_interval(Some(0.0), Some(&prev), 1_000.0));
    assert!(!within_refresh_interval(None, Some(&prev), 1_000.0));
    assert!(!within_refresh_interval(Some(100.0), None, 1_000.0));
  }
}
