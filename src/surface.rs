//! Whether the newest reading is still on the model's surface. A compaction (any surface
//! `replace`) can shadow it: the event stays in the log, but the model no longer sees it, so it
//! counts as absent. Pure: the edge reads `surface.replaceGeneration` and, only when needed,
//! looks the reading's seq up in `surface.nodes`.

/// What was last seen of a reading on a session's surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sighting {
  /// The reading event's `seq`.
  pub seq: f64,
  /// `surface.replaceGeneration` when it was looked at.
  pub generation: f64,
  /// Whether `surface.nodes` held `seq` then.
  pub visible: bool,
}

/// Where the newest reading stands on the surface now, and whether that is news.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
  /// The model sees it.
  Visible,
  /// A replacement shadowed it; `newly` when it was not already known to be shadowed (it was seen
  /// visible before, or never looked at).
  Shadowed { newly: bool },
}

/// Looks at the reading `seq` on a surface of replace generation `generation`, given what was seen
/// `last`. `on_surface` looks `seq` up in `surface.nodes`; it is called only when the surface was
/// replaced since the reading was last seen visible, or at first sight once any replacement
/// happened (generation 0: none ever did, so nothing is shadowed). A shadowed seq never comes back:
/// a replacement removes seqs, an append only adds new ones.
pub fn look(
  last: Option<Sighting>,
  seq: f64,
  generation: f64,
  on_surface: impl FnOnce() -> bool,
) -> (Standing, Sighting) {
  let known = last.filter(|l| l.seq == seq);
  let visible = match known {
    Some(l) if !l.visible => false,
    Some(l) if l.generation == generation => true,
    _ if generation == 0.0 => true,
    _ => on_surface(),
  };
  let standing = match (visible, known) {
    (true, _) => Standing::Visible,
    (false, Some(l)) => Standing::Shadowed { newly: l.visible },
    (false, None) => Standing::Shadowed { newly: true },
  };
  (standing, Sighting { seq, generation, visible })
}

/// Whether a step after the first must look at the surface: only when its replace generation `now`
/// differs from the one before `next()` (a compaction inside it) or from the one the session was
/// last looked at with (a compaction elsewhere since, such as the overflow recovery of a model
/// request). `None` where there is no surface, or it was never looked at.
pub fn surface_moved(before_next: Option<f64>, last_seen: Option<f64>, now: Option<f64>) -> bool {
  let Some(now) = now else { return false };
  before_next.is_some_and(|b| b != now) || last_seen.is_some_and(|l| l != now)
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;
  use std::cell::Cell;

  fn seen(seq: f64, generation: f64, visible: bool) -> Option<Sighting> {
    Some(Sighting { seq, generation, visible })
  }

  #[test]
  fn an_unchanged_generation_costs_no_lookup() {
    let (standing, now) = look(seen(4.0, 2.0, true), 4.0, 2.0, || panic!("looked up"));
    assert_eq!(standing, Standing::Visible);
    assert_eq!(now, seen(4.0, 2.0, true).unwrap());
  }

  #[test]
  fn a_replacement_is_looked_up_once() {
    let (standing, now) = look(seen(4.0, 2.0, true), 4.0, 3.0, || false);
    assert_eq!(standing, Standing::Shadowed { newly: true });
    let (standing, _) = look(Some(now), 4.0, 3.0, || panic!("looked up"));
    assert_eq!(standing, Standing::Shadowed { newly: false });
    let (standing, _) = look(Some(now), 4.0, 9.0, || panic!("shadowed stays shadowed"));
    assert_eq!(standing, Standing::Shadowed { newly: false });
  }

  #[test]
  fn a_replacement_elsewhere_keeps_the_reading() {
    let (standing, now) = look(seen(4.0, 2.0, true), 4.0, 3.0, || true);
    assert_eq!(standing, Standing::Visible);
    assert_eq!(now.generation, 3.0);
  }

  #[test]
  fn another_reading_is_looked_up_afresh() {
    let (standing, _) = look(seen(4.0, 2.0, false), 9.0, 2.0, || true);
    assert_eq!(standing, Standing::Visible);
    let (standing, _) = look(None, 9.0, 1.0, || false);
    assert_eq!(standing, Standing::Shadowed { newly: true });
  }

  #[test]
  fn only_a_changed_generation_is_a_replacement() {
    assert!(surface_moved(Some(1.0), None, Some(2.0)), "inside next()");
    assert!(surface_moved(Some(2.0), Some(1.0), Some(2.0)), "since the last look, outside next()");
    assert!(!surface_moved(Some(2.0), Some(2.0), Some(2.0)));
    assert!(!surface_moved(None, None, Some(2.0)), "never looked at");
    assert!(!surface_moved(Some(1.0), Some(1.0), None), "no surface");
  }

  #[test]
  fn a_surface_never_replaced_shadows_nothing() {
    let (standing, _) = look(None, 4.0, 0.0, || panic!("looked up"));
    assert_eq!(standing, Standing::Visible);
  }

  proptest! {
    /// Against a surface whose seqs only ever leave, a cached look answers as a fresh lookup would,
    /// and looks up only when the generation moved and the reading was last seen visible.
    #[test]
    fn cached_looks_agree_with_the_surface(steps in proptest::collection::vec((any::<bool>(), any::<bool>()), 1..40)) {
      let seq = 7.0;
      let (mut generation, mut on_surface, mut last) = (0.0_f64, true, None::<Sighting>);
      for (replace, shadows) in steps {
        if replace {
          generation += 1.0;
          on_surface &= !shadows;
        }
        let looked = Cell::new(false);
        let before = last;
        let (standing, now) = look(last, seq, generation, || { looked.set(true); on_surface });
        prop_assert_eq!(standing == Standing::Visible, on_surface);
        let must_look = generation != 0.0 && before.is_none_or(|b| b.visible && b.generation != generation);
        prop_assert_eq!(looked.get(), must_look);
        if let Standing::Shadowed { newly } = standing {
          prop_assert_eq!(newly, before.is_none_or(|b| b.visible));
        }
        last = Some(now);
      }
    }
  }
}
