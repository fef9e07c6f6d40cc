//! The plugin's configuration, as index.js hands it over once checked (the accepted values and the
//! exact `TypeError` of the others are index.js's `checkConfig`, which runs where no build loads
//! too). Pure.

/// Default bound on one tmux query, in ms (`queryTimeoutMs`).
pub const DEFAULT_QUERY_TIMEOUT_MS: u64 = 5_000;

/// Largest delay Node's timers keep without clamping (2^31 - 1 ms); the cap of `queryTimeoutMs`.
pub const MAX_QUERY_TIMEOUT_MS: u64 = 2_147_483_647;

/// The configuration of one applied plugin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
  /// Minimum ms between two readings in one session; `None` when omitted (0 behaves the same).
  pub refresh_interval_ms: Option<f64>,
  /// Bound on one query, ms, passed to the executor as `timeoutMs`.
  pub query_timeout_ms: u64,
}

impl Config {
  /// The config of checked values (`refreshIntervalMs`, `queryTimeoutMs`, in ms), the default
  /// bound where `queryTimeoutMs` is omitted.
  pub fn of_checked(refresh_interval_ms: Option<f64>, query_timeout_ms: Option<u32>) -> Config {
    Config { refresh_interval_ms, query_timeout_ms: query_timeout_ms.map_or(DEFAULT_QUERY_TIMEOUT_MS, u64::from) }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn an_omitted_bound_is_the_default_and_the_cap_fits() {
    assert_eq!(Config::of_checked(None, None).query_timeout_ms, DEFAULT_QUERY_TIMEOUT_MS);
    assert_eq!(
      Config::of_checked(Some(0.0), Some(250)),
      Config { refresh_interval_ms: Some(0.0), query_timeout_ms: 250 }
    );
    assert_eq!(Config::of_checked(None, Some(u32::MAX >> 1)).query_timeout_ms, MAX_QUERY_TIMEOUT_MS);
  }
}
