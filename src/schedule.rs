//! Whether a pre-step asks tmux: the contract's steps 2 to 5 once index.js read the session, plus
//! the rule after a compaction. Pure.
//!
//! A reading counts only while the model can see it: when a compaction (any surface `replace`)
//! shadowed the newest reading, it counts as absent, and a later step of the turn asks tmux again
//! when the compaction ran since the surface was last looked at.

use crate::refresh::{within_refresh_interval, Previous};

/// What index.js read of the step and the session, after `next()`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Step {
  /// `step === 1`.
  pub first: bool,
  /// `Date.now()`, the JS package's clock for the refresh floor.
  pub now: f64,
  /// The newest reading of this plugin whose first content block is text.
  pub previous: Option<Previous>,
  /// Whether the model still sees that reading (true where the session has no surface).
  pub visible: bool,
  /// `surface.replaceGeneration` before `next()`, when index.js last looked, and now.
  pub generation_before: Option<f64>,
  pub generation_seen: Option<f64>,
  pub generation: Option<f64>,
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
/// `refresh_interval_ms`); a later step asks only when a replacement shadowed the newest reading
/// since the surface was last looked at.
pub fn due(step: Step, refresh_interval_ms: Option<f64>) -> Due {
  let Step { first, now, previous, visible, generation_before, generation_seen, generation } = step;
  if first {
    let previous = previous.filter(|_| visible);
    return match within_refresh_interval(refresh_interval_ms, previous.as_ref(), now) {
      true => Due::Pass,
      false => Due::Query(previous),
    };
  }
  let changed = |then: Option<f64>| generation.zip(then).is_some_and(|(now, then)| now != then);
  let moved = changed(generation_before) || changed(generation_seen);
  if moved && previous.is_some() && !visible {
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

  fn first(previous: Option<Previous>, visible: bool, now: f64) -> Step {
    Step { first: true, now, previous, visible, ..Step::default() }
  }

  #[test]
  fn a_first_step_asks_unless_a_visible_reading_is_younger_than_the_floor() {
    assert_eq!(due(first(None, true, 0.0), Some(100.0)), Due::Query(None));
    assert_eq!(due(first(reading(1_000.0), true, 1_050.0), Some(100.0)), Due::Pass);
    assert_eq!(due(first(reading(1_000.0), true, 1_100.0), Some(100.0)), Due::Query(reading(1_000.0)));
    assert_eq!(due(first(reading(1_000.0), true, 1_050.0), None), Due::Query(reading(1_000.0)));
    assert_eq!(due(first(reading(1_000.0), false, 1_050.0), Some(100.0)), Due::Query(None), "shadowed: absent");
  }

  fn later(visible: bool, before: Option<f64>, seen: Option<f64>, now: Option<f64>) -> Step {
    Step {
      first: false,
      previous: reading(0.0),
      visible,
      generation_before: before,
      generation_seen: seen,
      generation: now,
      ..Step::default()
    }
  }

  #[test]
  fn a_later_step_asks_only_after_a_replacement_that_shadowed_the_reading() {
    assert_eq!(due(later(false, Some(1.0), Some(1.0), Some(2.0)), None), Due::Query(None), "inside next()");
    assert_eq!(due(later(false, Some(2.0), Some(1.0), Some(2.0)), None), Due::Query(None), "since last looked");
    assert_eq!(due(later(true, Some(1.0), Some(1.0), Some(2.0)), None), Due::Pass, "still visible");
    assert_eq!(due(later(false, Some(2.0), Some(2.0), Some(2.0)), None), Due::Pass, "already looked");
    assert_eq!(due(later(false, None, None, None), None), Due::Pass, "no surface");
    let none = Step { previous: None, ..later(false, Some(1.0), Some(1.0), Some(2.0)) };
    assert_eq!(due(none, None), Due::Pass, "no reading to lose");
  }

  proptest! {
    #[test]
    fn a_later_step_without_a_moved_generation_never_asks(g in 0u8..5, visible: bool, has: bool) {
      let g = Some(f64::from(g));
      let step = Step { previous: if has { reading(0.0) } else { None }, ..later(visible, g, g, g) };
      prop_assert_eq!(due(step, Some(1.0)), Due::Pass);
    }
  }
}
