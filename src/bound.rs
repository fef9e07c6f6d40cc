//! How much of tmux's text a reading may hold: every field the model reads (session name, window
//! name, a pane's command and directory) at most [`FIELD_MAX`] characters as shown, quotes and
//! marker included; the layout at most [`LAYOUT_MAX`]; at most [`PANES_MAX`] panes listed and no
//! reading over [`READING_MAX`] bytes (the roster's share is `panes.rs`'s). A longer field is cut,
//! keeping what identifies it (the start of a name or a command, the end of a directory), quoted,
//! then a marker outside the quotes that says how much was cut: no value can end in it, since it
//! follows the closing quote, and a session name (shown unquoted while short, as the JS package
//! shows it) cannot hold its `:` (tmux refuses one in a session name). Below the bounds every field
//! reads exactly as before. Pure; linear in the text's length.

use crate::quote::json_quote;

/// Characters of one field as the model reads it, quotes and marker included.
pub const FIELD_MAX: usize = 200;
/// Characters of the window layout as shown (tmux writes one cell of about 15 for each pane).
pub const LAYOUT_MAX: usize = 1024;
/// Panes listed in one reading; the rest are counted on one line.
pub const PANES_MAX: usize = 32;
/// Bytes of one reading, its first line included.
pub const READING_MAX: usize = 8192;

/// Which end of a cut text is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
  /// The start: a name, a command.
  Start,
  /// The end: a directory, whose last components say where it is.
  End,
}

/// The marker after a cut field: how many characters are not shown, and at which end.
fn marker(cut: usize, keep: Keep) -> String {
  let end = if keep == Keep::Start { "end" } else { "start" };
  format!(" [cut: {cut} more characters at the {end}]")
}

/// `text` as `JSON.stringify` quotes it when that fits in [`FIELD_MAX`] characters; otherwise the
/// longest start (or end) whose quoted form and [`marker`] fit, then the marker.
pub fn quoted(text: &str, keep: Keep) -> String {
  let whole = json_quote(text);
  if whole.chars().count() <= FIELD_MAX {
    return whole;
  }
  let total = text.chars().count();
  // The marker's length for the largest count it can show; the real one is no longer.
  let room = FIELD_MAX - 2 - marker(total, keep).chars().count();
  let width = |c: char| json_quote(c.encode_utf8(&mut [0; 4])).chars().count() - 2;
  let chars: Box<dyn Iterator<Item = char>> =
    if keep == Keep::Start { Box::new(text.chars()) } else { Box::new(text.chars().rev()) };
  let (mut kept, mut used) = (Vec::new(), 0);
  for c in chars {
    used += width(c);
    if used > room {
      break;
    }
    kept.push(c);
  }
  if keep == Keep::End {
    kept.reverse();
  }
  format!("{}{}", json_quote(&kept.iter().collect::<String>()), marker(total - kept.len(), keep))
}

/// A session name: as it is (the JS package's form) when it fits in [`FIELD_MAX`] characters,
/// else [`quoted`] with its start kept.
pub fn session(name: &str) -> String {
  if name.chars().count() <= FIELD_MAX {
    name.to_string()
  } else {
    quoted(name, Keep::Start)
  }
}

/// A window layout: as it is up to [`LAYOUT_MAX`] characters, else its start and the marker.
pub fn layout(text: &str) -> String {
  let total = text.chars().count();
  if total <= LAYOUT_MAX {
    return text.to_string();
  }
  let room = LAYOUT_MAX - marker(total, Keep::Start).chars().count();
  let kept: String = text.chars().take(room).collect();
  format!("{kept}{}", marker(total - room, Keep::Start))
}

/// A field as [`quoted`] writes it, at the start of `text`: the JSON string and its marker, if
/// any, verbatim, and the text after it; `None` where none starts.
pub fn read_quoted(text: &str) -> Option<(&str, &str)> {
  let mut strings = serde_json::Deserializer::from_str(text).into_iter::<String>();
  strings.next()?.ok()?;
  let mut end = strings.byte_offset();
  if let Some(rest) = text[end..].strip_prefix(" [cut: ") {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = &rest[digits..];
    let tail =
      [" more characters at the end]", " more characters at the start]"].into_iter().find(|t| after.starts_with(t));
    if let (true, Some(tail)) = (digits > 0, tail) {
      end += " [cut: ".len() + digits + tail.len();
    }
  }
  Some((&text[..end], &text[end..]))
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  #[test]
  fn a_field_that_fits_reads_as_before() {
    assert_eq!(quoted("editor \"x\"", Keep::Start), "\"editor \\\"x\\\"\"");
    let fits = "n".repeat(FIELD_MAX - 2);
    assert_eq!(quoted(&fits, Keep::Start), format!("\"{fits}\""));
    assert_eq!(session(&"s".repeat(FIELD_MAX)), "s".repeat(FIELD_MAX));
    assert_eq!(layout("b25f,80x24,0,0,3"), "b25f,80x24,0,0,3");
  }

  #[test]
  fn a_long_name_keeps_its_start_and_says_how_much_was_cut() {
    let name = format!("build-{}", "x".repeat(99_994));
    let shown = quoted(&name, Keep::Start);
    assert_eq!(shown.chars().count(), FIELD_MAX - 1, "the marker's room is kept for the longest count");
    assert!(shown.starts_with("\"build-xxx"), "{shown}");
    assert!(shown.ends_with("\" [cut: 99843 more characters at the end]"), "{shown}");
    let session = session(&name);
    assert_eq!(session, shown, "a long session name is quoted, so its marker stands apart");
  }

  #[test]
  fn a_long_directory_keeps_its_end() {
    let path = format!("/{}/src/app", "d".repeat(100_000));
    let shown = quoted(&path, Keep::End);
    assert!(shown.starts_with("\"ddd") && shown.contains("ddd/src/app\" [cut: "), "{shown}");
    assert!(shown.ends_with(" more characters at the start]"));
    assert!(shown.chars().count() <= FIELD_MAX);
  }

  #[test]
  fn escapes_count_as_the_model_reads_them() {
    let quotes = "\"".repeat(1000);
    let shown = quoted(&quotes, Keep::Start);
    assert!(shown.chars().count() <= FIELD_MAX);
    assert!(shown.starts_with("\"\\\"\\\""), "{shown}");
    let controls = "\u{1}".repeat(1000);
    assert!(quoted(&controls, Keep::End).chars().count() <= FIELD_MAX);
  }

  #[test]
  fn a_long_layout_is_cut_too() {
    let long = format!("abcd,{}", "1x1,0,0,7,".repeat(500));
    let shown = layout(&long);
    assert_eq!(shown.chars().count(), LAYOUT_MAX);
    assert!(shown.starts_with("abcd,1x1") && shown.ends_with(" more characters at the end]"));
  }

  #[test]
  fn a_field_reads_back_with_its_marker_and_nothing_more() {
    let shown = quoted(&"w".repeat(500), Keep::Start);
    let text = format!("{shown}, pane 0 %3");
    assert_eq!(read_quoted(&text), Some((shown.as_str(), ", pane 0 %3")));
    assert_eq!(
      read_quoted("\"a\" [cut: x more characters at the end]"),
      Some(("\"a\"", " [cut: x more characters at the end]"))
    );
    assert_eq!(read_quoted("no quote"), None);
  }

  proptest! {
    #[test]
    fn every_field_is_bounded_and_whole_when_it_fits(text in ".{0,400}", end in any::<bool>()) {
      let keep = if end { Keep::End } else { Keep::Start };
      let shown = quoted(&text, keep);
      prop_assert!(shown.chars().count() <= FIELD_MAX);
      if json_quote(&text).chars().count() <= FIELD_MAX {
        prop_assert_eq!(&shown, &json_quote(&text));
      } else {
        let mut strings = serde_json::Deserializer::from_str(&shown).into_iter::<String>();
        let kept = strings.next().unwrap().unwrap();
        let marker = &shown[strings.byte_offset()..];
        let cut: usize = marker.split(' ').nth(2).unwrap().parse().unwrap();
        prop_assert_eq!(kept.chars().count() + cut, text.chars().count());
        let kept_where = if end { text.ends_with(&kept) } else { text.starts_with(&kept) };
        prop_assert!(kept_where);
      }
      prop_assert_eq!(read_quoted(&shown).map(|(s, rest)| (s.len(), rest)), Some((shown.len(), "")));
    }
  }
}
