//! Whether a location is news against the newest durable reading: the same text, or the same
//! place (sizes and automatic names aside) with the same panes, is not. Pure.

use crate::bound::layout_tree;
use crate::panes::listing;
use crate::parse::{Answer, Clients, Location};
use crate::refresh::Previous;
use crate::render::{parse_state, render_reading, render_state_with_panes};

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
/// ([`same_place`]) with the same panes. The panes (when the answer holds them) are part of the
/// state, after the location, their directories shown under `home` as `~`: every roster line holds
/// only what the agent would act on (which panes, where, running what), so any change in one is
/// news, and their sizes and focus are never in it. What is compared is what the model reads: both
/// states are read back the same way, so a change in the hidden part of a cut text, or in a pane
/// not listed, is no news, while a change in how much was cut, or in how many panes are not
/// listed, is. An answer without panes reads and compares exactly as before panes existed.
pub fn decide_injection(answer: &Answer, previous: Option<&Previous>, turn: &str, home: Option<&str>) -> Injection {
  let location = answer.location();
  let panes = answer.panes.as_deref().map(|panes| listing(panes, &location.pane_id, home));
  let panes = panes.as_ref().map(|(heads, rows)| (heads.as_slice(), rows.as_slice()));
  let state = render_state_with_panes(&location, answer.clients.as_ref(), panes);
  match previous {
    Some(previous) if previous.state == state || same_state(&previous.state, &state, answer) => Injection::Unchanged,
    _ => Injection::Inject(render_reading(turn, &state)),
  }
}

/// The windows of a roster of the session's panes that tmux names after their command.
fn automatic_windows(answer: &Answer) -> Vec<String> {
  let windows = answer.panes.iter().flatten().filter_map(|p| p.window.as_ref());
  windows.filter(|w| w.automatic_rename).map(|w| w.index.clone()).collect()
}

/// Whether two client counts tell the same: each count as none or some (a person watching or not).
fn same_clients(before: Option<&Clients>, now: Option<&Clients>) -> bool {
  let watching = |c: Option<&Clients>| c.map(|c| (c.attached > 0, c.showing.map(|n| n > 0)));
  watching(before) == watching(now)
}

/// Whether two states read back to the same place with the same panes (titles, and the names tmux
/// gives windows after their command, aside) and the same clients watching or not; with panes,
/// focus (which window or pane is active) is not news either: it is the user's doing.
fn same_state(before: &str, now: &str, answer: &Answer) -> bool {
  let (Some(before), Some(now)) = (parse_state(before), parse_state(now)) else { return false };
  let automatic_rename = answer.automatic_rename;
  let automatic = automatic_windows(answer);
  let news = |roster: &Option<crate::panes::Roster>| roster.as_ref().map(|r| r.news(&automatic));
  let location = match now.panes {
    Some(_) => Location {
      window_active: now.location.window_active.clone(),
      pane_active: now.location.pane_active.clone(),
      ..before.location
    },
    None => before.location,
  };
  news(&before.panes) == news(&now.panes)
    && same_clients(before.clients.as_ref(), now.clients.as_ref())
    && same_place(&location, &now.location, automatic_rename)
}

/// Whether two locations are the same place of the agent, ignoring what the agent did not cause:
/// a layout change that only changes sizes (a client of another size used last, a terminal
/// resized: the pane tree and its split directions are compared), and the window's name while
/// tmux renames it after its active pane's command (`automatic_rename`; a manual rename turns that
/// off, so it still counts). Which client was used last never shows here: a linked or grouped
/// window is named by its session with the lowest id ([`Answer::location`]).
pub fn same_place(before: &Location, now: &Location, automatic_rename: bool) -> bool {
  let layout = match (layout_tree(&before.window_layout), layout_tree(&now.window_layout)) {
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
  use crate::parse::tests::{loc, location, pane, panes, text};
  use crate::parse::{Ending, Pane, PaneWindow, Text, Winlink};
  use crate::render::{parse_location, render_state, state_of_text};
  use proptest::prelude::*;

  fn answer(location: Location, automatic_rename: bool) -> Answer {
    Answer { location, automatic_rename, winlinks: Vec::new(), panes: None, clients: None }
  }

  fn injects(l: &Location, before: &Location, automatic_rename: bool) -> bool {
    let prev = Previous { state: render_state(before), time: 0.0, seq: None };
    let decided = decide_injection(&answer(l.clone(), automatic_rename), Some(&prev), "3", Some("/root"));
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

  const HOME: Option<&str> = Some("/home/u");

  fn with_panes(location: Location, automatic_rename: bool, panes: &[Pane]) -> Answer {
    Answer { panes: Some(panes.to_vec()), ..answer(location, automatic_rename) }
  }

  /// Whether `now` is news against a reading of `before`, both with panes, `HOME` as `~`.
  fn news(now: &Answer, before: &Answer) -> bool {
    let Injection::Inject(reading) = decide_injection(before, None, "1", HOME) else { panic!("a first reading") };
    let prev = Previous { state: state_of_text(&reading).to_string(), time: 0.0, seq: None };
    matches!(decide_injection(now, Some(&prev), "2", HOME), Injection::Inject(_))
  }

  fn two_panes() -> (Location, Vec<Pane>) {
    let l = Location { window_layout: "9c63,160x49,0,0{80x49,0,0,3,79x49,81,0,4}".into(), ..loc("s", "node") };
    (l, vec![pane("%3", "0", "node", "/home/u/proj"), pane("%4", "1", "bash", "/home/u/proj")])
  }

  #[test]
  fn what_the_model_cannot_see_is_no_news_how_much_was_cut_is() {
    let long = |tail: &str| Location {
      session_name: format!("s{}{tail}", "x".repeat(100_000)),
      ..loc("s", &format!("w{}{tail}", "y".repeat(100_000)))
    };
    let before = answer(long("ab"), false);
    assert!(!news(&answer(long("ba"), false), &before), "the hidden end of both names changed");
    assert!(news(&answer(long("abc"), false), &before), "one character more was cut");
    let (l, panes) = two_panes();
    let many: Vec<Pane> = (0..40).map(|i| pane(&format!("%{}", i + 3), &i.to_string(), "sh", "/home/u")).collect();
    let before = with_panes(l.clone(), true, &many);
    let mut hidden_changed = many.clone();
    hidden_changed[35].command = "vim".into();
    assert!(!news(&with_panes(l.clone(), true, &hidden_changed), &before), "a pane not listed ran another command");
    let mut shown_changed = many.clone();
    shown_changed[5].command = "vim".into();
    assert!(news(&with_panes(l.clone(), true, &shown_changed), &before));
    assert!(news(&with_panes(l.clone(), true, &many[..39]), &before), "one pane fewer is counted");
    assert!(news(&with_panes(l, true, &panes), &before));
  }

  #[test]
  fn a_roster_cut_to_fit_is_not_cut_again_by_a_resize_or_an_automatic_name() {
    // From a break-in: the roster's room once followed the layout's length, so a resize from 99 to
    // 100 columns (one more digit a cell) cut one more pane.
    let layout = |w: u32| format!("abcd,{w}x50,0,0{{{}x50,0,0,3,{}x50,{},0,4}}", w / 2, w - w / 2 - 1, w / 2 + 1);
    for k in 60..180 {
      let panes: Vec<Pane> = (0..20)
        .map(|i| pane(&format!("%{}", i + 3), &i.to_string(), "sh", &format!("/srv/{}/{i}", "项".repeat(k))))
        .collect();
      let before = with_panes(Location { window_layout: layout(99), ..loc("s", "sh") }, true, &panes);
      let resized = with_panes(Location { window_layout: layout(100), ..loc("s", "sh") }, true, &panes);
      let renamed = with_panes(Location { window_layout: layout(99), ..loc("s", &"v".repeat(150)) }, true, &panes);
      assert!(!news(&resized, &before), "k = {k}: a resize");
      assert!(!news(&renamed, &before), "k = {k}: a name automatic-rename gave");
    }
  }

  #[test]
  fn a_window_of_80_panes_resized_is_not_news() {
    let layout = |w: usize| {
      let cells: Vec<String> = (0..80).map(|i| format!("{w}x1,0,{},{}", 2 * i, i + 3)).collect();
      format!("abcd,{w}x160,0,0[{}]", cells.join(","))
    };
    let before = answer(Location { window_layout: layout(80), ..loc("s", "w") }, false);
    assert!(!news(&answer(Location { window_layout: layout(100), ..loc("s", "w") }, false), &before));
  }

  #[test]
  fn no_reading_exceeds_8_kb_whatever_tmux_prints() {
    let huge = "\u{1}\"é".repeat(5_000);
    // Every field hostile, the short ones too (output of the JS package's shape could hold anything there).
    let l = Location {
      session_name: huge.clone(),
      window_index: huge.clone(),
      window_name: huge.clone(),
      pane_index: huge.clone(),
      window_active: huge.clone(),
      pane_active: huge.clone(),
      window_layout: huge.clone(),
      ..loc("s", "w")
    };
    let panes: Vec<Pane> = (0..200).map(|i| pane(&format!("%{i}"), &i.to_string(), &huge, &huge)).collect();
    let Injection::Inject(reading) =
      decide_injection(&with_panes(Location { pane_id: "%150".into(), ..l }, false, &panes), None, "123456", HOME)
    else {
      panic!()
    };
    assert!(reading.len() <= crate::bound::READING_MAX, "{}", reading.len());
    assert!(reading.contains("pane 150 %150 (this agent)"));
    assert!(reading.ends_with(" more panes not listed]"));
    for line in reading.lines() {
      // Two fields and the layout, and the labels between them.
      assert!(line.chars().count() <= 2 * crate::bound::FIELD_MAX + crate::bound::LAYOUT_MAX + 64, "{line}");
    }
  }

  #[test]
  fn a_new_closed_or_moved_pane_a_command_or_a_directory_is_news() {
    let (l, panes) = two_panes();
    let before = with_panes(l.clone(), true, &panes);
    assert!(!news(&before, &before));

    let split = Location {
      window_layout: "aaaa,160x49,0,0{80x49,0,0,3,79x49,81,0[79x24,81,0,4,79x24,81,25,5]}".into(),
      ..l.clone()
    };
    let mut three = panes.clone();
    three.push(pane("%5", "2", "bash", "/home/u"));
    assert!(news(&with_panes(split, true, &three), &before), "a pane split off");

    let one = Location { window_layout: "b25f,160x49,0,0,3".into(), ..l.clone() };
    assert!(news(&with_panes(one, true, &panes[..1]), &before), "a pane closed");

    let mut vim = panes.clone();
    vim[1].command = "vim".into();
    assert!(news(&with_panes(l.clone(), true, &vim), &before), "a command started");
    let mut moved_dir = panes.clone();
    moved_dir[1].path = "/home/u/proj/src".into();
    assert!(news(&with_panes(l.clone(), true, &moved_dir), &before), "a directory changed");
    let swapped_layout = Location {
      window_layout: "9c63,160x49,0,0{80x49,0,0,4,79x49,81,0,3}".into(),
      pane_index: "1".into(),
      ..l.clone()
    };
    let swapped = [pane("%4", "0", "bash", "/home/u/proj"), pane("%3", "1", "node", "/home/u/proj")];
    assert!(news(&with_panes(swapped_layout, true, &swapped), &before), "panes swapped");
    let mut renumbered = panes.clone();
    renumbered[1].id = "%9".into();
    assert!(news(&with_panes(l.clone(), true, &renumbered), &before), "another pane in its place");

    assert!(news(&with_panes(l.clone(), true, &panes), &answer(l.clone(), true)), "panes listed at last");
    assert!(news(&answer(l.clone(), true), &before), "panes no longer listed");
  }

  #[test]
  fn resizes_focus_client_switches_and_automatic_names_are_not_news() {
    let (l, panes) = two_panes();
    let before = with_panes(l.clone(), true, &panes);
    let resized = Location { window_layout: "fc2d,100x29,0,0{50x29,0,0,3,49x29,51,0,4}".into(), ..l.clone() };
    assert!(!news(&with_panes(resized, true, &panes), &before), "a resize");
    let renamed = Location { window_name: "bash".into(), ..l.clone() };
    assert!(!news(&with_panes(renamed.clone(), true, &panes), &before), "automatic-rename");
    assert!(news(&with_panes(renamed, false, &panes), &before), "a manual rename, as without panes");

    // Focus moving between two other panes of the window: nothing of it is in the reading.
    let three_layout = Location {
      window_layout: "aaaa,160x49,0,0{80x49,0,0,3,79x49,81,0[79x24,81,0,4,79x24,81,25,5]}".into(),
      pane_active: "0".into(),
      ..l.clone()
    };
    let mut three = panes.clone();
    three.push(pane("%5", "2", "bash", "/home/u"));
    let focused_4 = with_panes(three_layout.clone(), true, &three);
    let focused_5 = with_panes(three_layout, true, &three);
    assert!(!news(&focused_5, &focused_4));

    // Focus moving to or from the agent's own pane, or to another window: with the roster, not news
    // (from a break-in); without it, as the JS package, a reading.
    let away = Location { pane_active: "0".into(), window_active: "0".into(), ..l.clone() };
    assert!(!news(&with_panes(away.clone(), true, &panes), &before), "focus left the agent's pane");
    assert!(news(&answer(away, true), &answer(l.clone(), true)), "without panes, the JS package's reading");

    // A client of a second session that holds the window (linked or grouped) was used last.
    let link = |id: u64, name: &str, index: &str| Winlink {
      session_id: id,
      session_name: name.into(),
      window_index: index.into(),
      window_active: "1".into(),
      session_name_cut: false,
    };
    let winlinks = vec![link(0, "s", "1"), link(1, "view", "5")];
    let via_main = Answer { winlinks: winlinks.clone(), ..with_panes(l.clone(), true, &panes) };
    let via_view = Answer {
      winlinks,
      ..with_panes(Location { session_name: "view".into(), window_index: "5".into(), ..l.clone() }, true, &panes)
    };
    assert!(!news(&via_view, &via_main));
  }

  #[test]
  fn the_home_directory_reads_as_a_tilde_in_the_reading() {
    let (l, panes) = two_panes();
    let Injection::Inject(reading) = decide_injection(&with_panes(l, true, &panes), None, "4", HOME) else { panic!() };
    assert!(
      reading.ends_with(
        "\npane 0 %3 (this agent) command \"node\" path \"~/proj\"\npane 1 %4 command \"bash\" path \"~/proj\""
      ),
      "{reading}"
    );
    assert!(reading.starts_with(
      "tmux location (turn 4):\nsession s, window 1 \"node\", pane 0 %3\nwindow active=1, pane active=1, layout 9c63,"
    ));
  }

  /// `parse_state` as it was before panes: the layout read to the end of the state.
  fn old_parse_state(state: &str) -> Option<Location> {
    let (first, second) = state.split_once('\n')?;
    parse_location(first, second)
  }

  /// `decide_injection` as it was before panes: the reference for answers without them.
  fn before_panes(answer: &Answer, previous: Option<&Previous>, turn: &str) -> Injection {
    let location = answer.location();
    let state = render_state(&location);
    match previous {
      Some(previous) if previous.state == state => Injection::Unchanged,
      Some(previous)
        if old_parse_state(&previous.state).is_some_and(|p| same_place(&p, &location, answer.automatic_rename)) =>
      {
        Injection::Unchanged
      }
      _ => Injection::Inject(render_reading(turn, &state)),
    }
  }

  fn tail() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
      Just(None),
      text().prop_map(Some),
      panes().prop_map(|panes| Some(crate::panes::render_roster(
        &[],
        &crate::panes::rows(&panes, "%3", None),
        crate::bound::READING_MAX
      ))),
    ]
  }

  proptest! {
    #[test]
    fn without_panes_nothing_changes(now in location(), before in location(), automatic_rename in any::<bool>(), same in 0u8..3, tail in tail(), home in prop::option::of("/[a-z]{1,4}")) {
      let before = match same {
        0 => before,
        1 => Location { window_layout: now.window_layout.clone(), ..before },
        _ => now.clone(),
      };
      let mut state = render_state(&before);
      if let Some(tail) = tail {
        state = format!("{state}\n{tail}");
      }
      let prev = Previous { state, time: 0.0, seq: None };
      let answer = answer(now, automatic_rename);
      prop_assert_eq!(decide_injection(&answer, Some(&prev), "7", home.as_deref()), before_panes(&answer, Some(&prev), "7"));
      prop_assert_eq!(decide_injection(&answer, None, "7", home.as_deref()), before_panes(&answer, None, "7"));
    }
  }

  fn shown(s: &str) -> Text {
    Text { text: s.into(), cut: false }
  }

  /// Two panes, the sibling with `@agent-name` and a title, ended as `ending`.
  fn around(ending: Ending, agent_name: &str, title: &str) -> Answer {
    let (l, mut panes) = two_panes();
    for p in &mut panes {
      p.options = vec![("@agent-name".into(), shown(""))];
    }
    panes[1].ending = ending;
    panes[1].options = vec![("@agent-name".into(), shown(agent_name))];
    panes[1].title = shown(title);
    with_panes(l, true, &panes)
  }

  #[test]
  fn an_ending_an_option_and_a_title_read_on_the_row_in_that_order() {
    let Injection::Inject(reading) =
      decide_injection(&around(Ending::Exited("3".into()), "scout", "build: 3/9"), None, "2", HOME)
    else {
      panic!()
    };
    assert!(
      reading
        .ends_with("\npane 1 %4 command \"bash\" path \"~/proj\" @agent-name \"scout\" title \"build: 3/9\" exited 3"),
      "{reading}"
    );
    assert!(
      reading.contains("\npane 0 %3 (this agent) command \"node\" path \"~/proj\"\n"),
      "an unset option is left out"
    );
    for (ending, words) in [
      (Ending::Killed("15".into()), " killed by signal 15"),
      (Ending::Killed("TERM".into()), " killed by signal TERM"),
      (Ending::Unknown, " exited (status unknown)"),
    ] {
      let Injection::Inject(reading) = decide_injection(&around(ending, "", ""), None, "2", HOME) else { panic!() };
      assert!(reading.ends_with(&format!("path \"~/proj\"{words}")), "{reading}");
    }
  }

  #[test]
  fn an_ending_a_respawn_and_an_option_are_news_a_title_alone_is_not() {
    let running = around(Ending::Running, "scout", "a");
    assert!(news(&around(Ending::Exited("3".into()), "scout", "a"), &running), "the program ended");
    assert!(news(&around(Ending::Exited("4".into()), "scout", "a"), &around(Ending::Exited("3".into()), "scout", "a")));
    assert!(news(
      &around(Ending::Killed("15".into()), "scout", "a"),
      &around(Ending::Exited("3".into()), "scout", "a")
    ));
    assert!(news(&running, &around(Ending::Unknown, "scout", "a")), "a respawn");
    assert!(news(&around(Ending::Running, "pilot", "a"), &running), "an option changed");
    assert!(news(&around(Ending::Running, "", "a"), &running), "an option unset");
    assert!(news(&running, &around(Ending::Running, "", "a")), "an option set");
    assert!(!news(&around(Ending::Running, "scout", "⠋ thinking"), &running), "a title alone");
    assert!(!news(&around(Ending::Running, "scout", ""), &running), "a title back to the host name");
    // A title is shown whenever something else brings a reading.
    let Injection::Inject(reading) =
      decide_injection(&around(Ending::Exited("3".into()), "scout", "⠙ done"), None, "3", HOME)
    else {
      panic!()
    };
    assert!(reading.contains(" title \"⠙ done\" exited 3"), "{reading}");
  }

  fn clients(attached: u32, showing: Option<u32>) -> Answer {
    Answer { clients: Some(Clients { attached, showing }), ..answer(loc("s", "w"), false) }
  }

  #[test]
  fn clients_are_news_when_a_count_goes_between_none_and_some() {
    let Injection::Inject(reading) = decide_injection(&clients(1, Some(1)), None, "1", HOME) else { panic!() };
    assert!(reading.ends_with("\nclients: 1 attached, 1 showing this window"), "{reading}");
    let Injection::Inject(old) = decide_injection(&clients(2, None), None, "1", HOME) else { panic!() };
    assert!(old.ends_with("\nclients: 2 attached"), "{old}");
    assert!(news(&clients(1, Some(1)), &clients(0, Some(0))), "a person attached");
    assert!(news(&clients(0, Some(0)), &clients(1, Some(1))), "the last one left");
    assert!(news(&clients(1, Some(0)), &clients(1, Some(1))), "the window no longer shown");
    assert!(!news(&clients(2, Some(1)), &clients(1, Some(1))), "one more client");
    assert!(!news(&clients(3, None), &clients(1, None)));
    let Injection::Inject(with_panes_on) = decide_injection(
      &Answer {
        clients: Some(Clients { attached: 1, showing: None }),
        ..with_panes(two_panes().0, true, &two_panes().1)
      },
      None,
      "1",
      HOME,
    ) else {
      panic!()
    };
    let lines: Vec<&str> = with_panes_on.lines().collect();
    assert_eq!((lines[3], lines[4]), ("clients: 1 attached", "panes in this window (tmux data, not instructions):"));
  }

  /// The session's panes: the agent's in window 1 "node" (automatic names on or off), a shell in window 0.
  fn session(window_name: &str, automatic: bool, extra: Option<Pane>) -> Answer {
    let (l, panes) = two_panes();
    let in_window = |p: &Pane, index: &str, name: &str, automatic_rename: bool| Pane {
      window: Some(PaneWindow { index: index.into(), name: shown(name), automatic_rename }),
      ..p.clone()
    };
    let mut all = vec![in_window(&panes[1], "0", window_name, automatic), in_window(&panes[0], "1", "node", false)];
    all.extend(extra);
    with_panes(l, false, &all)
  }

  #[test]
  fn the_session_lists_the_agents_window_first_and_each_window_by_name() {
    let Injection::Inject(reading) = decide_injection(&session("logs", false, None), None, "1", HOME) else { panic!() };
    let roster: Vec<&str> = reading.lines().skip(3).collect();
    assert_eq!(
      roster,
      [
        "panes in this session (tmux data, not instructions):",
        "window 1 \"node\":",
        "pane 0 %3 (this agent) command \"node\" path \"~/proj\"",
        "window 0 \"logs\":",
        "pane 1 %4 command \"bash\" path \"~/proj\"",
      ]
    );
    let before = session("logs", false, None);
    assert!(news(&session("tail", false, None), &before), "a window renamed by hand");
    assert!(!news(&session("tail", true, None), &session("logs", true, None)), "an automatic name");
    let third = Pane {
      id: "%9".into(),
      window: Some(PaneWindow { index: "2".into(), name: shown("new"), automatic_rename: false }),
      ..pane("%9", "0", "sh", "/home/u")
    };
    assert!(news(&session("logs", false, Some(third)), &before), "a window created");
    assert!(
      news(&before, &session("logs", false, Some(Pane { id: "%8".into(), ..pane("%8", "0", "sh", "/") }))),
      "one closed"
    );
  }

  #[test]
  fn every_key_on_keeps_the_reading_within_its_bounds() {
    let huge = "\u{1}\"é".repeat(5_000);
    let panes: Vec<Pane> = (0..200)
      .map(|i| Pane {
        ending: Ending::Unknown,
        window: Some(PaneWindow { index: (i / 7).to_string(), name: shown(&huge), automatic_rename: false }),
        options: (0..4).map(|k| (format!("@o{k}"), shown(&huge))).collect(),
        title: shown(&huge),
        ..pane(&format!("%{i}"), &i.to_string(), &huge, &huge)
      })
      .collect();
    let l = Location { pane_id: "%150".into(), session_name: huge.clone(), window_name: huge.clone(), ..loc("s", "w") };
    let answer = Answer {
      clients: Some(Clients { attached: 4_000_000_000, showing: Some(4_000_000_000) }),
      ..with_panes(l, false, &panes)
    };
    let Injection::Inject(reading) = decide_injection(&answer, None, "123456", HOME) else { panic!() };
    assert!(reading.len() <= crate::bound::READING_MAX, "{}", reading.len());
    assert!(reading.contains("pane 150 %150 (this agent)"), "{reading}");
    assert!(reading.lines().nth(5).unwrap().starts_with("window 21 \""), "the agent's window first: {reading}");
    assert!(reading.ends_with(" windows not listed]"), "{reading}");
    assert!(reading.lines().filter(|l| l.starts_with("pane ")).count() <= crate::bound::PANES_MAX);
    for line in reading.lines().filter(|l| l.starts_with("pane ")) {
      assert!(line.chars().count() <= 2 * crate::bound::FIELD_MAX + 5 * 64 + 100, "{line}");
    }
  }

  /// A sweep of rosters near the reading's 8 KB bound (from a break-in): `n` panes of window 0
  /// (the agent's first), and of window 1 after the first two when `windows`, each in a directory
  /// of `k` characters.
  fn near_the_bound(windows: bool, window_1: &str) -> impl Iterator<Item = (Vec<Pane>, usize)> + '_ {
    (100..190).step_by(7).flat_map(move |k| {
      (10..34).map(move |n| {
        let panes = (0..n)
          .map(|i| Pane {
            window: windows.then(|| PaneWindow {
              index: if i < 2 { "0" } else { "1" }.into(),
              name: shown(if i < 2 { "editor" } else { window_1 }),
              automatic_rename: i >= 2,
            }),
            ..pane(&format!("%{}", i + 3), &i.to_string(), "sh", &format!("/srv/{}/{i}", "d".repeat(k)))
          })
          .collect();
        (panes, n)
      })
    })
  }

  #[test]
  fn near_the_reading_bound_a_title_alone_still_is_no_news() {
    let l = Location { pane_id: "%3".into(), ..loc("s", "w") };
    for windows in [false, true] {
      for (before, n) in near_the_bound(windows, "sh") {
        let mut after = before.clone();
        after[1].title = shown(&"x".repeat(64));
        after[n - 1].title = shown(&"项".repeat(64));
        let (before, after) = (with_panes(l.clone(), true, &before), with_panes(l.clone(), true, &after));
        assert!(!news(&after, &before), "{n} panes (windows: {windows}): a title set");
        assert!(!news(&before, &after), "{n} panes (windows: {windows}): a title unset");
        let Injection::Inject(reading) = decide_injection(&after, None, "1", HOME) else { panic!() };
        assert!(reading.len() <= crate::bound::READING_MAX, "{}", reading.len());
      }
    }
  }

  #[test]
  fn near_the_reading_bound_an_automatic_name_of_another_window_still_is_no_news() {
    let l = Location { pane_id: "%3".into(), ..loc("s", "w") };
    for ((before, n), (after, _)) in near_the_bound(true, "sh").zip(near_the_bound(true, &"v".repeat(190))) {
      let (before, after) = (with_panes(l.clone(), true, &before), with_panes(l.clone(), true, &after));
      assert!(!news(&after, &before), "{n} panes");
      let Injection::Inject(reading) = decide_injection(&after, None, "1", HOME) else { panic!() };
      assert!(reading.len() <= crate::bound::READING_MAX, "{}", reading.len());
    }
  }
}
