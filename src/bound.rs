//! How much of tmux's text a reading may hold: every field the model reads (session name, window
//! name, a pane's command and directory) at most [`FIELD_MAX`] characters as shown, quotes and
//! marker included, an option's value or a title [`SHORT_FIELD_MAX`]; the layout at most [`LAYOUT_MAX`]; at most [`PANES_MAX`] panes listed and no
//! reading over [`READING_MAX`] bytes (the roster's share is `panes.rs`'s). A longer field is cut,
//! keeping what identifies it (the start of a name or a command, the end of a directory), quoted,
//! then a marker outside the quotes that says how much was cut: no value can end in it, since it
//! follows the closing quote, and a session name (shown unquoted while short, as the JS package
//! shows it) cannot hold its `:` (tmux refuses one in a session name). Below the bounds every field
//! reads exactly as before. Pure; linear in the text's length.

use crate::layout::pane_tree;
use crate::quote::json_quote;

/// Characters of one field as the model reads it, quotes and marker included.
pub const FIELD_MAX: usize = 200;
/// Characters of a short field (an option's value, a title) as the model reads it.
pub const SHORT_FIELD_MAX: usize = 64;
/// Bytes of the window layout as shown (tmux writes one cell of about 15 for each pane).
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

/// The marker after a cut field: how many characters are not shown (`None`: tmux cut the text
/// before printing it and did not say how much), and at which end.
fn marker(cut: Option<usize>, keep: Keep) -> String {
  let end = if keep == Keep::Start { "end" } else { "start" };
  match cut {
    Some(cut) => format!(" [cut: {cut} more characters at the {end}]"),
    None => format!(" [cut: more characters at the {end}]"),
  }
}

/// `text` as `JSON.stringify` quotes it when that fits in [`FIELD_MAX`] characters and tmux did
/// not cut it (`tmux_cut`: tmux printed only its start, or its end, within its own bound); otherwise
/// the longest start (or end) whose quoted form and [`marker`] fit, then the marker.
pub fn quoted(text: &str, keep: Keep, tmux_cut: bool) -> String {
  quoted_within(text, keep, tmux_cut, FIELD_MAX)
}

/// [`quoted`] within `max` characters (a short field: an option's value, a title).
pub fn quoted_within(text: &str, keep: Keep, tmux_cut: bool, max: usize) -> String {
  let whole = json_quote(text);
  if whole.chars().count() <= max && !tmux_cut {
    return whole;
  }
  let total = text.chars().count();
  // The marker's length for the largest count it can show; the real one is no longer.
  let room = max.saturating_sub(2 + marker(Some(total), keep).chars().count());
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
  let cut = (!tmux_cut).then(|| total - kept.len());
  format!("{}{}", json_quote(&kept.iter().collect::<String>()), marker(cut, keep))
}

/// A field shown unquoted as the JS package shows it (a session name; an index, a pane id, `0` or
/// `1`, which only output of the JS package's shape makes long): as it is when it fits in
/// [`FIELD_MAX`] characters and tmux did not cut it, else [`quoted`] with its start kept.
pub fn plain(text: &str, tmux_cut: bool) -> String {
  if text.chars().count() <= FIELD_MAX && !tmux_cut {
    text.to_string()
  } else {
    quoted(text, Keep::Start, tmux_cut)
  }
}

/// What stands for the sizes and offsets of a layout too long to show.
const SIZES_CUT: &str = " [cut: the sizes]";

/// A window layout: as it is up to [`LAYOUT_MAX`] bytes. A longer one (a window of some 70 panes
/// and more) is shown by its pane tree ([`pane_tree`]) and a marker, so that, as with a short
/// layout, a resize changes nothing the place compares; a tree still too long keeps its start and
/// says how much was cut; text that is no layout keeps its start.
pub fn layout(text: &str) -> String {
  if text.len() <= LAYOUT_MAX {
    return text.to_string();
  }
  let (text, tail) = match pane_tree(text) {
    Some(tree) if tree.len() + SIZES_CUT.len() <= LAYOUT_MAX => return format!("{tree}{SIZES_CUT}"),
    Some(tree) => (tree, " more characters of the pane tree at the end, and the sizes]"),
    None => (text.to_string(), " more characters at the end]"),
  };
  let total = text.chars().count();
  let room = LAYOUT_MAX - format!(" [cut: {total}{tail}").len();
  let (mut kept, mut count) = (String::new(), 0);
  for c in text.chars() {
    if kept.len() + c.len_utf8() > room {
      break;
    }
    kept.push(c);
    count += 1;
  }
  format!("{kept} [cut: {}{tail}", total - count)
}

/// The pane tree of a layout as [`layout`] shows it, the part of it that a resize cannot change:
/// [`pane_tree`] of a layout shown whole, else the shown text itself, which holds no sizes (the
/// tree and its marker). `None` for text that is neither. Whether a layout is shown whole or as
/// its tree depends on its length, which a resize changes; its tree does not.
pub fn layout_tree(shown: &str) -> Option<String> {
  if let Some(tree) = pane_tree(shown) {
    return Some(tree);
  }
  let tree_chars = |t: &str| t.bytes().all(|b| b.is_ascii_digit() || b"%,{}[]<>".contains(&b));
  match shown.strip_suffix(SIZES_CUT) {
    Some(tree) if tree_chars(tree) => Some(tree.to_string()),
    _ => shown.ends_with(" more characters of the pane tree at the end, and the sizes]").then(|| shown.to_string()),
  }
}

/// A field as [`quoted`] writes it, at the start of `text`: the JSON string and its marker, if
/// any, verbatim, and the text after it; `None` where none starts.
pub fn read_quoted(text: &str) -> Option<(&str, &str)> {
  let mut strings = serde_json::Deserializer::from_str(text).into_iter::<String>();
  strings.next()?.ok()?;
  let end = strings.byte_offset();
  // The marker [`marker`] writes for the count that follows (or for none), if one does.
  let rest = &text[end..];
  let digits = rest.strip_prefix(" [cut: ").map_or(0, |r| r.bytes().take_while(u8::is_ascii_digit).count());
  let count = if digits == 0 { Some(None) } else { rest.get(7..7 + digits).and_then(|d| d.parse().ok()).map(Some) };
  let end = end
    + count
      .and_then(|n| {
        [Keep::Start, Keep::End].into_iter().map(|keep| marker(n, keep)).find(|m| rest.starts_with(m.as_str()))
      })
      .map_or(0, |m| m.len());
  Some((&text[..end], &text[end..]))
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  #[test]
  fn a_field_that_fits_reads_as_before() {
    assert_eq!(quoted("editor \"x\"", Keep::Start, false), "\"editor \\\"x\\\"\"");
    let fits = "n".repeat(FIELD_MAX - 2);
    assert_eq!(quoted(&fits, Keep::Start, false), format!("\"{fits}\""));
    assert_eq!(plain(&"s".repeat(FIELD_MAX), false), "s".repeat(FIELD_MAX));
    assert_eq!(plain("%12", false), "%12");
    assert_eq!(layout("b25f,80x24,0,0,3"), "b25f,80x24,0,0,3");
  }

  #[test]
  fn a_long_name_keeps_its_start_and_says_how_much_was_cut() {
    let name = format!("build-{}", "x".repeat(99_994));
    let shown = quoted(&name, Keep::Start, false);
    assert_eq!(shown.chars().count(), FIELD_MAX - 1, "the marker's room is kept for the longest count");
    assert!(shown.starts_with("\"build-xxx"), "{shown}");
    assert!(shown.ends_with("\" [cut: 99843 more characters at the end]"), "{shown}");
    assert_eq!(plain(&name, false), shown, "a long session name is quoted, so its marker stands apart");
  }

  #[test]
  fn a_long_directory_keeps_its_end() {
    let path = format!("/{}/src/app", "d".repeat(100_000));
    let shown = quoted(&path, Keep::End, false);
    assert!(shown.starts_with("\"ddd") && shown.contains("ddd/src/app\" [cut: "), "{shown}");
    assert!(shown.ends_with(" more characters at the start]"));
    assert!(shown.chars().count() <= FIELD_MAX);
  }

  #[test]
  fn escapes_count_as_the_model_reads_them() {
    let quotes = "\"".repeat(1000);
    let shown = quoted(&quotes, Keep::Start, false);
    assert!(shown.chars().count() <= FIELD_MAX);
    assert!(shown.starts_with("\"\\\"\\\""), "{shown}");
    let controls = "\u{1}".repeat(1000);
    assert!(quoted(&controls, Keep::End, false).chars().count() <= FIELD_MAX);
  }

  /// A stacked layout of `n` panes, `width` columns wide.
  fn stacked(n: usize, width: usize) -> String {
    let cells: Vec<String> = (0..n).map(|i| format!("{width}x1,0,{},{i}", 2 * i)).collect();
    format!("abcd,{width}x{},0,0[{}]", 2 * n, cells.join(","))
  }

  #[test]
  fn a_long_layout_shows_its_pane_tree_so_a_resize_is_not_news() {
    let (narrow, wide) = (layout(&stacked(80, 80)), layout(&stacked(80, 100)));
    assert!(stacked(80, 80).len() > LAYOUT_MAX);
    assert_eq!(narrow, wide, "only the sizes differ");
    assert!(narrow.starts_with("[%0,%1,%2,") && narrow.ends_with(",%79] [cut: the sizes]"), "{narrow}");
    let huge = layout(&stacked(400, 80));
    assert!(huge.len() <= LAYOUT_MAX && huge.starts_with("[%0,%1,"), "{huge}");
    assert!(huge.ends_with(" more characters of the pane tree at the end, and the sizes]"), "{huge}");
    let junk = layout(&"é".repeat(2 * LAYOUT_MAX));
    assert!(junk.len() <= LAYOUT_MAX && junk.ends_with(" more characters at the end]"), "{junk}");
  }

  #[test]
  fn a_layout_reads_as_the_same_tree_on_either_side_of_its_bound() {
    let (short, long) = (stacked(70, 8), stacked(70, 1000));
    assert!(short.len() <= LAYOUT_MAX && long.len() > LAYOUT_MAX, "{} {}", short.len(), long.len());
    assert_eq!(layout(&short), short, "shown whole");
    assert!(layout(&long).ends_with(SIZES_CUT), "shown as its tree");
    assert_eq!(layout_tree(&layout(&short)), layout_tree(&layout(&long)));
    assert_eq!(layout_tree(&layout(&short)), pane_tree(&short));
    assert_ne!(layout_tree(&layout(&stacked(71, 1000))), layout_tree(&layout(&long)), "one pane more");
    let huge = layout(&stacked(400, 80));
    assert_eq!(layout_tree(&huge), layout_tree(&layout(&stacked(400, 90))), "a tree cut keeps no sizes");
    assert_eq!(layout_tree("not a layout"), None);
    assert_eq!(layout_tree(&format!("x y{SIZES_CUT}")), None);
  }

  #[test]
  fn a_field_tmux_cut_says_so_whatever_its_length() {
    // tmux printed only the start (or the end) and did not say how much it left out.
    assert_eq!(quoted("build", Keep::Start, true), "\"build\" [cut: more characters at the end]");
    assert_eq!(quoted("src/app", Keep::End, true), "\"src/app\" [cut: more characters at the start]");
    assert_eq!(plain("main", true), "\"main\" [cut: more characters at the end]");
    let long = quoted(&"x".repeat(400), Keep::Start, true);
    assert!(long.chars().count() <= FIELD_MAX && long.ends_with("x\" [cut: more characters at the end]"), "{long}");
    assert_eq!(read_quoted(&format!("{long}, pane")), Some((long.as_str(), ", pane")));
  }

  #[test]
  fn a_field_reads_back_with_its_marker_and_nothing_more() {
    let shown = quoted(&"w".repeat(500), Keep::Start, false);
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
      let shown = quoted(&text, keep, false);
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
      let cut = quoted(&text, keep, true);
      prop_assert!(cut.chars().count() <= FIELD_MAX);
      prop_assert_eq!(read_quoted(&cut).map(|(s, rest)| (s.len(), rest)), Some((cut.len(), "")));
    }
  }
}
