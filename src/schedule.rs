//! Whether a pre-step asks tmux: the contract's steps 2 to 5 once index.js read the session, plus
//! the rule after a compaction. Pure.
//!
//! A reading counts only while the model can see it: index.js hands over the newest reading the
//! model still sees, and whether a newer one was shadowed by a compaction (any surface `replace`).

use crate::refresh::{within_refresh_interval, Previous};

/// What index.js read of the step and the session, after `next()`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Step {
  /// `step === 1`.
  pub first: bool,
  /// `Date.now()`, the JS package's clock for the refresh floor.
  pub now: f64,
  /// The newest reading of this plugin, where its first content block is text and the model still
  /// sees it.
  pub previous: Option<Previous>,
  /// The newest reading is one the model no longer sees (a replacement shadowed it).
  pub shadowed: bool,
  /// The surface was replaced inside `next()`, or since index.js last looked.
  pub replaced: bool,
}

/// What the step does.
#[derive(Debug, Clone, PartialEq)]
pub enum Due {
  /// Pass `next()`'s decision through.
  Pass,
  /// Ask tmux, and compare the answer with this reading (`None`: inject any location).
  Query(Option<Previous>),
}

/// The first step of a turn asks unless the refresh floor holds (a visible reading younger than
/// `refresh_interval_ms`); a later step asks only when a replacement just shadowed the newest
/// reading, so that the model is not left without one until the next turn.
pub fn due(step: Step, refresh_interval_ms: Option<f64>) -> Due {
  let Step { first, now, previous, shadowed, replaced } = step;
  if first {
    return match within_refresh_interval(refresh_interval_ms, previous.as_ref(), now) {
      true => Due::Pass,
      false => Due::Query(previous),
    };
  }
  if replaced && shadowed {
    Due::Query(None)
  } else {
    Due::Pass
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  fn reading(time: f64) -> Option<Previous> {
    Some(Previous { state: "s".into(), time, seq: Some(3.0) })
  }

  fn first(previous: Option<Previous>, now: f64) -> Step {
    Step { first: true, now, previous, ..Step::default() }
  }

  #[test]
  fn a_first_step_asks_unless_a_reading_is_younger_than_the_floor() {
    assert_eq!(due(first(None, 0.0), Some(100.0)), Due::Query(None));
    assert_eq!(due(first(reading(1_000.0), 1_050.0), Some(100.0)), Due::Pass);
    assert_eq!(due(first(reading(1_000.0), 1_100.0), Some(100.0)), Due::Query(reading(1_000.0)));
    assert_eq!(due(first(reading(1_000.0), 1_050.0), None), Due::Query(reading(1_000.0)));
    let shadowed = Step { shadowed: true, ..first(None, 1_050.0) };
    assert_eq!(due(shadowed, Some(100.0)), Due::Query(None), "a shadowed reading holds nothing back");
  }

  #[test]
  fn a_later_step_asks_only_after_a_replacement_that_shadowed_the_reading() {
    let later = |shadowed, replaced| Step { first: false, shadowed, replaced, ..Step::default() };
    assert_eq!(due(later(true, true), None), Due::Query(None));
    assert_eq!(due(later(false, true), None), Due::Pass, "still visible");
    assert_eq!(due(later(true, false), None), Due::Pass, "already looked after that replacement");
    assert_eq!(due(later(false, false), None), Due::Pass);
  }

  proptest! {
    #[test]
    fn a_later_step_without_a_replacement_never_asks(shadowed: bool, time in 0.0..1e6f64, floor in proptest::option::of(0.0..1e6f64)) {
      let step = Step { first: false, now: time, previous: reading(time), shadowed, replaced: false };
      prop_assert_eq!(due(step, floor), Due::Pass);
    }
  }
}
