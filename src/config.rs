//! Plugin configuration rules, checked at plugin load: which values `refreshIntervalMs` and
//! `queryTimeoutMs` accept, and the exact `TypeError` messages of the ones they refuse. Pure.

/// Default bound on one tmux query, in ms (`queryTimeoutMs`).
pub const DEFAULT_QUERY_TIMEOUT_MS: u64 = 5_000;

/// Largest delay Node's timers keep without clamping (2^31 - 1 ms); the cap of `queryTimeoutMs`.
pub const MAX_QUERY_TIMEOUT_MS: u64 = 2_147_483_647;

/// Largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The validated configuration of one applied plugin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
  /// Minimum ms between two readings in one session; `None` when omitted (0 behaves the same).
  pub refresh_interval_ms: Option<f64>,
  /// Bound on one query, ms, passed to the executor as `timeoutMs`.
  pub query_timeout_ms: u64,
}

/// A config value as read from JS: the number it holds (`NaN` for a non-number) and how JS shows
/// it (`String(value)`), for the error message.
#[derive(Debug, Clone, PartialEq)]
pub struct RawValue {
  pub number: f64,
  pub shown: String,
}

/// `refreshIntervalMs` as read (`None`: `undefined`): the interval, or the exact `TypeError` message.
pub fn refresh_interval(raw: Option<RawValue>) -> Result<Option<f64>, String> {
  raw
    .map(|v| valid_refresh_interval(v.number).ok_or_else(|| refresh_interval_error(&v.shown)))
    .transpose()
}

/// `queryTimeoutMs` as read (`None`: `undefined`, the default): the bound, or the exact `TypeError` message.
pub fn query_timeout(raw: Option<RawValue>) -> Result<u64, String> {
  Ok(
    raw
      .map(|v| valid_query_timeout(v.number).ok_or_else(|| query_timeout_error(&v.shown)))
      .transpose()?
      .unwrap_or(DEFAULT_QUERY_TIMEOUT_MS),
  )
}

/// `Number.isSafeInteger(value)`.
pub fn is_safe_integer(value: f64) -> bool {
  value.is_finite() && value.trunc() == value && value.abs() <= MAX_SAFE_INTEGER
}

/// `refreshIntervalMs`: a safe integer `>= 0` (`-0` included, as in JS); `None` when invalid.
pub fn valid_refresh_interval(value: f64) -> Option<f64> {
  (is_safe_integer(value) && value >= 0.0).then_some(value)
}

/// `queryTimeoutMs`: a safe integer in `1..=MAX_QUERY_TIMEOUT_MS`; `None` when invalid.
pub fn valid_query_timeout(value: f64) -> Option<u64> {
  (is_safe_integer(value) && value >= 1.0 && value <= MAX_QUERY_TIMEOUT_MS as f64).then_some(value as u64)
}

/// The exact load-time error of an invalid `refreshIntervalMs`; `shown` is JS `String(value)`.
pub fn refresh_interval_error(shown: &str) -> String {
  format!("tmux-context: refreshIntervalMs must be a non-negative safe integer, got {shown}")
}

/// The exact load-time error of an invalid `queryTimeoutMs`; `shown` is JS `String(value)`.
pub fn query_timeout_error(shown: &str) -> String {
  format!(
    "tmux-context: queryTimeoutMs must be a positive safe integer no greater than {MAX_QUERY_TIMEOUT_MS}, got {shown}"
  )
}

#[cfg(test)]
mod tests {
  use super::*;

  fn raw(number: f64) -> Option<RawValue> {
    Some(RawValue {
      number,
      shown: number.to_string(),
    })
  }

  #[test]
  fn refresh_interval_rules() {
    assert_eq!(valid_refresh_interval(0.0), Some(0.0));
    assert_eq!(valid_refresh_interval(-0.0), Some(-0.0));
    assert_eq!(valid_refresh_interval(MAX_SAFE_INTEGER), Some(MAX_SAFE_INTEGER));
    for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, 9_007_199_254_740_992.0] {
      assert_eq!(valid_refresh_interval(bad), None, "{bad}");
    }
    assert_eq!(
      refresh_interval_error("-1"),
      "tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1"
    );
  }

  #[test]
  fn query_timeout_rules() {
    assert_eq!(valid_query_timeout(1.0), Some(1));
    assert_eq!(valid_query_timeout(2_147_483_647.0), Some(2_147_483_647));
    for bad in [0.0, -0.0, -5.0, 1.5, f64::NAN, 2_147_483_648.0] {
      assert_eq!(valid_query_timeout(bad), None, "{bad}");
    }
  }

  #[test]
  fn defaults_and_exact_errors() {
    assert_eq!(refresh_interval(None), Ok(None));
    assert_eq!(query_timeout(None), Ok(DEFAULT_QUERY_TIMEOUT_MS));
    assert_eq!(refresh_interval(raw(60_000.0)), Ok(Some(60_000.0)));
    assert_eq!(query_timeout(raw(250.0)), Ok(250));
    assert_eq!(refresh_interval(raw(-1.0)), Err(refresh_interval_error("-1")));
    assert_eq!(query_timeout(raw(0.0)), Err(query_timeout_error("0")));
  }
}
