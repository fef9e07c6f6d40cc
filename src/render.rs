//! What the model sees: the three-line reading of a [`Location`], and the state compared for
//! suppression (its last two lines). Pure; byte-identical to the JS package's rendering.

use crate::parse::Location;

/// Cordis plugin name, also the `source.plugin` of every reading and its section name.
pub const PLUGIN_NAME: &str = "tmux-context";

/// First line prefix of a rendered reading (`tmux location (turn <turn>):`).
pub const READING_PREFIX: &str = "tmux location (turn ";

/// `JSON.stringify(text)` for a string: quotes, backslash and C0 controls escaped, as ECMAScript does.
pub fn json_quote(text: &str) -> String {
  serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

/// The compared state: the reading's last two lines.
pub fn render_state(location: &Location) -> String {
  format!(
    "session {}, window {} {}, pane {} {}\nwindow active={}, pane active={}, layout {}",
    location.session_name,
    location.window_index,
    json_quote(&location.window_name),
    location.pane_index,
    location.pane_id,
    location.window_active,
    location.pane_active,
    location.window_layout
  )
}

/// The full reading: `tmux location (turn <turn>):` then the state. `turn` is JS `String(turn)`.
pub fn render_reading(turn: &str, state: &str) -> String {
  format!("{READING_PREFIX}{turn}):\n{state}")
}

/// The compared state of a reading's text: everything after the first `\n`, `""` without one.
/// index.js's `readingOf` takes a stored reading's state by this rule, through the JS package's own
/// reads (`text.indexOf('\n')`, `text.slice(…)`), and hands the state over as it is.
pub fn state_of_text(text: &str) -> &str {
  text.split_once('\n').map_or("", |(_, state)| state)
}

/// The location a state (the last two lines of a reading, as [`render_state`] writes them) names,
/// read back; `None` for text that [`render_state`] does not write. A state reads back in one way
/// only: the window name is JSON-quoted, so a session name cannot imitate the fields after it.
pub fn parse_state(state: &str) -> Option<Location> {
  let (first, second) = state.split_once('\n')?;
  let rest = second.strip_prefix("window active=")?;
  let (window_active, rest) = rest.split_once(", pane active=")?;
  let (pane_active, window_layout) = rest.split_once(", layout ")?;
  let first = first.strip_prefix("session ")?;
  first.match_indices(", window ").find_map(|(at, sep)| {
    let rest = &first[at + sep.len()..];
    let (window_index, rest) = rest.split_once(' ')?;
    let mut quoted = serde_json::Deserializer::from_str(rest).into_iter::<String>();
    let window_name = quoted.next()?.ok()?;
    let rest = rest[quoted.byte_offset()..].strip_prefix(", pane ")?;
    let (pane_index, pane_id) = rest.split_once(' ')?;
    let plain = |s: &str| !s.is_empty() && !s.contains(' ');
    (plain(window_index) && plain(pane_index) && plain(pane_id)).then(|| Location {
      session_name: first[..at].to_string(),
      window_index: window_index.to_string(),
      window_name,
      pane_index: pane_index.to_string(),
      pane_id: pane_id.to_string(),
      window_active: window_active.to_string(),
      pane_active: pane_active.to_string(),
      window_layout: window_layout.to_string(),
    })
  })
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::parse::tests::{loc, location};
  use proptest::prelude::*;

  #[test]
  fn renders_the_contract_reading() {
    let l = loc("main", "editor \"x\"");
    let state = render_state(&l);
    assert_eq!(
      render_reading("2", &state),
      "tmux location (turn 2):\nsession main, window 1 \"editor \\\"x\\\"\", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3"
    );
  }

  #[test]
  fn a_session_name_cannot_imitate_the_fields_after_it() {
    let l = loc("s, window 1 \"x\", pane 0 %3", "w, window 2 \"y\"");
    assert_eq!(parse_state(&render_state(&l)), Some(l));
    assert_eq!(parse_state("session s, window 1 \"w\", pane 0 %3\nwindow active=1"), None);
    assert_eq!(parse_state("not a state"), None);
  }

  #[test]
  fn state_is_text_after_first_newline() {
    assert_eq!(state_of_text("a\nb\nc"), "b\nc");
    assert_eq!(state_of_text("no newline"), "");
    assert_eq!(state_of_text("\n"), "");
  }

  /// JSON.stringify reference for strings (ECMAScript QuoteJSONString over well-formed text).
  fn js_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
      match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push(c),
      }
    }
    out.push('"');
    out
  }

  proptest! {
    #[test]
    fn json_quote_matches_ecmascript(s in any::<String>()) {
      prop_assert_eq!(json_quote(&s), js_quote(&s));
    }

    #[test]
    fn a_state_reads_back_as_its_location(l in location()) {
      let l = Location { window_index: l.window_index.replace(' ', "_"), pane_index: l.pane_index.replace(' ', "_"), ..l };
      prop_assert_eq!(parse_state(&render_state(&l)), Some(l));
    }

    #[test]
    fn state_round_trips_through_the_reading(l in location(), turn in 1u32..10_000) {
      let state = render_state(&l);
      let reading = render_reading(&turn.to_string(), &state);
      prop_assert_eq!(state_of_text(&reading), state.as_str());
    }
  }

  #[test]
  fn json_quote_escapes_every_control_character_as_ecmascript() {
    let text = "\u{8}\u{c}\r\t\n\"\\\u{1}\u{1f} é";
    assert_eq!(json_quote(text), js_quote(text));
    assert_eq!(json_quote("\u{1}"), "\"\\u0001\"");
  }
}
