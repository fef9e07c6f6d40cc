//! Whether a location is news against the newest durable reading: the same text, or the same
//! place (sizes and automatic names aside), is not. Pure.

use crate::layout::pane_tree;
use crate::parse::{Answer, Location};
use crate::refresh::Previous;
use crate::render::{parse_state, render_reading, render_state};

/// What a pre-step does once the location is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
  /// Nothing changed since the newest reading: pass the decision through.
  Unchanged,
  /// Put this reading (full text) in front of the step's messages.
  Inject(String),
}

/// Whether `answer` is news against `previous`, and the reading to inject if it is. The same state
/// text is no news, as in the JS package; beyond it, neither is a state that names the same place
/// ([`same_place`]).
pub fn decide_injection(answer: &Answer, previous: Option<&Previous>, turn: &str) -> Injection {
  let location = answer.location();
  let state = render_state(&location);
  match previous {
    Some(previous) if previous.state == state => Injection::Unchanged,
    Some(previous)
      if parse_state(&previous.state).is_some_and(|p| same_place(&p, &location, answer.automatic_rename)) =>
    {
      Injection::Unchanged
    }
    _ => Injection::Inject(render_reading(turn, &state)),
  }
}

/// Whether two locations are the same place of the agent, ignoring what the agent did not cause:
/// a layout change that only changes sizes (a client of another size used last, a terminal
/// resized: the pane tree and its split directions are compared), and the window's name while
/// tmux renames it after its active pane's command (`automatic_rename`; a manual rename turns that
/// off, so it still counts). Which client was used last never shows here: a linked or grouped
/// window is named by its session with the lowest id ([`Answer::location`]).
pub fn same_place(before: &Location, now: &Location, automatic_rename: bool) -> bool {
  let layout = match (pane_tree(&before.window_layout), pane_tree(&now.window_layout)) {
    (Some(before), Some(now)) => before == now,
    _ => before.window_layout == now.window_layout,
  };
  layout
    && (automatic_rename || before.window_name == now.window_name)
    && before.session_name == now.session_name
    && before.window_index == now.window_index
    && before.pane_index == now.pane_index
    && before.pane_id == now.pane_id
    && before.window_active == now.window_active
    && before.pane_active == now.pane_active
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::parse::tests::loc;

  fn answer(location: Location, automatic_rename: bool) -> Answer {
    Answer { location, automatic_rename, winlinks: Vec::new(), panes: None }
  }

  fn injects(l: &Location, before: &Location, automatic_rename: bool) -> bool {
    let prev = Previous { state: render_state(before), time: 0.0, seq: None };
    let decided = decide_injection(&answer(l.clone(), automatic_rename), Some(&prev), "3");
    matches!(decided, Injection::Inject(t) if t.starts_with("tmux location (turn 3):\n"))
  }

  #[test]
  fn suppresses_unchanged_state() {
    let l = loc("s", "w");
    assert!(!injects(&l, &l, false));
    assert!(injects(&loc("s", "w2"), &l, false));
    assert!(injects(&loc("t", "w"), &l, true), "another session");
  }

  #[test]
  fn sizes_alone_and_automatic_names_are_not_news() {
    let before = Location { window_layout: "9c63,160x49,0,0{80x49,0,0,3,79x49,81,0,4}".into(), ..loc("s", "sh") };
    let resized = Location { window_layout: "fc2d,100x29,0,0{50x29,0,0,3,49x29,51,0,4}".into(), ..before.clone() };
    assert!(!injects(&resized, &before, false));
    let stacked = Location { window_layout: "fc2d,100x29,0,0[100x14,0,0,3,100x14,0,15,4]".into(), ..before.clone() };
    assert!(injects(&stacked, &before, false), "a split direction changed");
    let one_pane = Location { window_layout: "b25f,80x24,0,0,3".into(), ..before.clone() };
    assert!(injects(&one_pane, &before, false), "a sibling pane went away");
    let renamed = Location { window_name: "top".into(), ..before.clone() };
    assert!(!injects(&renamed, &before, true), "automatic-rename named it after a command");
    assert!(injects(&renamed, &before, false), "a manual rename (automatic-rename off)");
    for moved in [
      Location { window_index: "2".into(), ..before.clone() },
      Location { pane_index: "1".into(), ..before.clone() },
      Location { pane_id: "%9".into(), ..before.clone() },
      Location { window_active: "0".into(), ..before.clone() },
      Location { pane_active: "0".into(), ..before.clone() },
    ] {
      assert!(injects(&moved, &before, true), "{moved:?}");
    }
  }
}
