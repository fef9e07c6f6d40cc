//! Reading the executor's stdout back into an [`Answer`]: our own escaped record (and the
//! winlinks of the pane, when its window is linked or its session grouped), or any other output
//! exactly as the JS package reads it. Pure; linear in the output's length.

use crate::command::{ESCAPED_LINE_MARKER, FIELD_SEP, WINLINK_LINE_MARKER};

/// One reading of where this process runs, as tmux prints the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
  pub session_name: String,
  pub window_index: String,
  pub window_name: String,
  pub pane_index: String,
  pub pane_id: String,
  pub window_active: String,
  pub pane_active: String,
  pub window_layout: String,
}

/// One session's link to the pane's window: which session, at which index, and whether it is
/// that session's current window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Winlink {
  /// `#{session_id}` without its `$`.
  pub session_id: u64,
  pub session_name: String,
  pub window_index: String,
  pub window_active: String,
}

/// What the query answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
  /// The location as `display-message -t $TMUX_PANE` names it: through the session of the
  /// group (or of the links) a client used last.
  pub location: Location,
  /// Whether tmux renames the window after its active pane's command (`automatic-rename`); `false`
  /// when unknown (output in the JS package's shape).
  pub automatic_rename: bool,
  /// Every session's link to the window, when it has more than one (linked window, grouped
  /// session); empty otherwise.
  pub winlinks: Vec<Winlink>,
}

impl Answer {
  /// The location named by a rule that does not depend on client activity: among the sessions
  /// that hold the window, the one with the lowest id (the one created first: the group's original
  /// session, the window's own session); its window index and whether the window is its current
  /// one. Without winlinks, the location as tmux printed it.
  pub fn location(&self) -> Location {
    match self.winlinks.iter().min_by_key(|w| w.session_id) {
      Some(first) => Location {
        session_name: first.session_name.clone(),
        window_index: first.window_index.clone(),
        window_active: first.window_active.clone(),
        ..self.location.clone()
      },
      None => self.location.clone(),
    }
  }
}

fn location_from_parts<S: Into<String>>(parts: Vec<S>) -> Option<Location> {
  let [session_name, window_index, window_name, pane_index, pane_id, window_active, pane_active, window_layout]: [S;
    8] = parts.try_into().ok()?;
  let pane_id: String = pane_id.into();
  if pane_id.is_empty() {
    return None;
  }
  Some(Location {
    session_name: session_name.into(),
    window_index: window_index.into(),
    window_name: window_name.into(),
    pane_index: pane_index.into(),
    pane_id,
    window_active: window_active.into(),
    pane_active: pane_active.into(),
    window_layout: window_layout.into(),
  })
}

/// The JS package's parse of one line: split on the two-character separator; exactly 8 parts.
fn parse_plain_line(line: &str) -> Option<Location> {
  let mut parts = Vec::with_capacity(8);
  for part in line.split(FIELD_SEP) {
    if parts.len() == 8 {
      return None;
    }
    parts.push(part);
  }
  location_from_parts(parts)
}

/// Splits text escaped by tmux's `q:` modifier into exactly `count` fields: an unescaped `\t`
/// separates fields, `\x` stands for `x`. Ends at the end of the text or at a newline after the
/// last field; a newline inside an earlier field (a name holding one: `q:` leaves it raw) makes it
/// malformed. Returns the fields and the text after that newline. One pass, linear.
fn split_escaped(text: &str, count: usize) -> Option<(Vec<String>, &str)> {
  let mut fields = vec![String::new()];
  let mut chars = text.char_indices();
  while let Some((at, c)) = chars.next() {
    match c {
      '\\' => match chars.next() {
        Some((_, 't')) => {
          if fields.len() == count {
            return None;
          }
          fields.push(String::new());
        }
        Some((_, other)) => fields.last_mut()?.push(other),
        None => fields.last_mut()?.push('\\'),
      },
      '\n' if fields.len() == count => return Some((fields, &text[at + 1..])),
      '\n' => return None,
      other => fields.last_mut()?.push(other),
    }
  }
  (fields.len() == count).then_some((fields, ""))
}

/// One winlink line: `<marker>\t$<id>\t<index>\t<active>\t<q:session_name>\t$<id>`; the id again
/// at the end proves the line whole.
fn parse_winlink(line: &str) -> Option<Winlink> {
  let rest = line.strip_prefix(WINLINK_LINE_MARKER)?.strip_prefix(FIELD_SEP)?;
  let (fields, after) = split_escaped(rest, 5)?;
  let [id, window_index, window_active, session_name, id_again]: [String; 5] = fields.try_into().ok()?;
  if id != id_again {
    return None;
  }
  let session_id = id.strip_prefix('$')?.parse().ok()?;
  (after.is_empty()).then_some(Winlink { session_id, session_name, window_index, window_active })
}

/// Parses the executor's stdout. Our own command's output (it starts with the marker) is read as
/// one escaped record, then its winlink lines; a name holding a newline makes it malformed, since
/// a reading keeps to three lines, and winlink lines that do not all read are left out (the
/// location is then the one tmux printed). Any other output is read exactly as the JS package
/// reads it: its first line split on `\t`, exactly 8 parts, non-empty pane id.
pub fn parse_output(stdout: &str) -> Option<Answer> {
  let Some(record) = stdout.strip_prefix(ESCAPED_LINE_MARKER).and_then(|r| r.strip_prefix(FIELD_SEP)) else {
    let location = parse_plain_line(stdout.split('\n').next().unwrap_or(""))?;
    return Some(Answer { location, automatic_rename: false, winlinks: Vec::new() });
  };
  let (mut fields, rest) = split_escaped(record, 9)?;
  let automatic_rename = fields.pop()? == "1";
  let location = location_from_parts(fields)?;
  let lines: Vec<&str> = rest.split_terminator('\n').collect();
  let winlinks = lines.iter().map(|line| parse_winlink(line)).collect::<Option<Vec<_>>>().unwrap_or_default();
  Some(Answer { location, automatic_rename, winlinks })
}

#[cfg(test)]
pub(crate) mod tests {
  use super::*;
  use proptest::prelude::*;

  pub fn loc(session: &str, window: &str) -> Location {
    Location {
      session_name: session.into(),
      window_index: "1".into(),
      window_name: window.into(),
      pane_index: "0".into(),
      pane_id: "%3".into(),
      window_active: "1".into(),
      pane_active: "1".into(),
      window_layout: "b25f,80x24,0,0,3".into(),
    }
  }

  fn plain_line(l: &Location) -> String {
    [
      &l.session_name,
      &l.window_index,
      &l.window_name,
      &l.pane_index,
      &l.pane_id,
      &l.window_active,
      &l.pane_active,
      &l.window_layout,
    ]
    .map(|s| s.as_str())
    .join("\\t")
  }

  /// What tmux's `q:` modifier does to a name (format_quote_shell).
  fn tmux_q(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
      if "|&;<>()$`\\\"'*?[# =%".contains(c) {
        out.push('\\');
      }
      out.push(c);
    }
    out
  }

  /// What our command prints for `l`, as tmux would expand it.
  fn our_output(l: &Location) -> String {
    let escaped = Location {
      session_name: tmux_q(&l.session_name),
      window_name: tmux_q(&l.window_name),
      pane_id: tmux_q(&l.pane_id),
      ..l.clone()
    };
    format!("{}\\t{}\\t0\n", ESCAPED_LINE_MARKER, plain_line(&escaped))
  }

  /// The location our parse reads from `out`, after the winlink rule.
  fn read(out: &str) -> Option<Location> {
    parse_output(out).map(|answer| answer.location())
  }

  fn winlink_line(id: u64, index: &str, active: &str, name: &str) -> String {
    format!("{WINLINK_LINE_MARKER}\\t${id}\\t{index}\\t{active}\\t{}\\t${id}\n", tmux_q(name))
  }

  #[test]
  fn reads_automatic_rename() {
    let l = loc("s", "w");
    let on = our_output(&l).replace("\\t0\n", "\\t1\n");
    assert!(parse_output(&on).unwrap().automatic_rename);
    assert!(!parse_output(&our_output(&l)).unwrap().automatic_rename);
    assert!(!parse_output(&plain_line(&l)).unwrap().automatic_rename, "unknown in the JS shape");
  }

  #[test]
  fn a_linked_or_grouped_window_is_named_by_its_lowest_session_id() {
    let l = loc("view", "w");
    let out =
      format!("{}{}{}", our_output(&l), winlink_line(3, "0", "1", "view"), winlink_line(0, "4", "0", "main \\ \"x\""));
    let read = read(&out).unwrap();
    assert_eq!(read.session_name, "main \\ \"x\"");
    assert_eq!(read.window_index, "4");
    assert_eq!(read.window_active, "0");
    assert_eq!(read.window_name, "w");
  }

  #[test]
  fn a_session_name_holding_a_newline_cannot_name_the_window() {
    // q: leaves the newline raw: the line ends inside the name, without the id again.
    let l = loc("view", "w");
    let split = format!("{WINLINK_LINE_MARKER}\\t$0\\t1\\t0\\ttop\n");
    let out = format!("{}{}{split}", our_output(&l), winlink_line(3, "0", "1", "view"));
    assert_eq!(read(&out).unwrap().session_name, "view");
    let carriage = format!("{}{}", our_output(&l), winlink_line(0, "1", "0", "top\r"));
    assert_eq!(read(&carriage).unwrap().session_name, "top\r", "a carriage return stays in the name");
  }

  #[test]
  fn winlinks_that_do_not_all_read_are_left_out() {
    let l = loc("view", "w");
    for bad in ["dsh-tmux-context:wl\\t0\\t1\\t1\\tmain\n", "garbage\n", "dsh-tmux-context:wl\\t$x\\t1\\t1\\tmain\n"] {
      let out = format!("{}{}{bad}", our_output(&l), winlink_line(0, "4", "0", "main"));
      assert_eq!(read(&out).unwrap().session_name, "view", "{bad}");
    }
  }

  #[test]
  fn parses_a_plain_line_like_the_js_package() {
    let l = loc("s", "w");
    assert_eq!(read(&plain_line(&l)), Some(l.clone()));
    assert_eq!(read(&format!("{}\ntrailing", plain_line(&l))), Some(l));
  }

  #[test]
  fn rejects_wrong_counts_and_empty_pane_id() {
    assert_eq!(read(""), None);
    assert_eq!(read("a\\tb"), None);
    assert_eq!(read("1\\t2\\t3\\t4\\t5\\t6\\t7\\t8\\t9"), None);
    assert_eq!(read("1\\t2\\t3\\t4\\t\\t6\\t7\\t8"), None);
    assert!(read("1\\t2\\t3\\t4\\t5\\t6\\t7\\t8").is_some());
  }

  #[test]
  fn names_holding_backslash_t_read_from_the_escaped_line() {
    let l = loc("my sess\\\\tx", "tab\\there \\\\ \"q\" é 😀");
    assert_eq!(read(&plain_line(&l)), None, "the JS parse cannot split it");
    assert_eq!(read(&our_output(&l)), Some(l));
  }

  #[test]
  fn escaped_record_needs_its_marker_first() {
    let l = loc("s", "w");
    assert_eq!(read(&format!("x\\ty\n{}", our_output(&l))), None, "a marker after the first line is not ours");
  }

  #[test]
  fn a_name_cannot_forge_the_record() {
    // A window name holding a newline and a fake record: tmux's q: leaves the newline raw.
    let forged = format!("x\n{ESCAPED_LINE_MARKER}\\tSPOOF\\t9\\tspoof");
    let l = loc("real", &forged);
    assert_eq!(read(&our_output(&l)), None);
    let l = loc("real\nsession", "w");
    assert_eq!(read(&our_output(&l)), None);
  }

  #[test]
  fn a_tmux_without_q_reads_as_no_location() {
    // Unknown modifiers expand to nothing: every quoted field is empty, the pane id among them.
    let out = format!("{ESCAPED_LINE_MARKER}\\t\\t1\\t\\t0\\t\\t1\\t1\\tb25f,80x24,0,0,3\n");
    assert_eq!(read(&out), None);
  }

  #[test]
  fn a_megabyte_line_parses_in_linear_time() {
    let big = "x".repeat(1 << 20);
    let l = loc(&big, &big);
    assert_eq!(read(&our_output(&l)), Some(l));
    let seps = "\\t".repeat(1 << 19);
    assert_eq!(read(&seps), None);
    assert_eq!(read(&format!("{ESCAPED_LINE_MARKER}\\t{seps}")), None);
    assert_eq!(read(&format!("{ESCAPED_LINE_MARKER}\\t{}", "\\".repeat(1 << 20))), None);
  }

  pub fn field() -> impl Strategy<Value = String> {
    prop_oneof![
      "[a-z0-9 ]{0,8}",
      any::<String>(),
      prop::collection::vec(
        prop::sample::select(vec!["\\", "t", "\\t", "\"", "'", " ", "é", "😀", "\u{2028}", "\u{1}", "%", "$"]),
        0..10
      )
      .prop_map(|v| v.concat()),
    ]
  }

  pub fn location() -> impl Strategy<Value = Location> {
    (field(), "[0-9]{1,3}", field(), "[0-9]{1,2}", "%[0-9]{1,3}", "[01]", "[01]", "[a-f0-9]{4},[0-9x,{}\\[\\]]{0,20}")
      .prop_map(|(s, wi, w, pi, pid, wa, pa, lay)| Location {
        session_name: s.replace('\n', " "),
        window_index: wi,
        window_name: w.replace('\n', " "),
        pane_index: pi,
        pane_id: pid,
        window_active: wa,
        pane_active: pa,
        window_layout: lay,
      })
  }

  proptest! {
    #[test]
    fn parse_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
      let text = String::from_utf8_lossy(&bytes);
      let _ = read(&text);
    }

    #[test]
    fn parse_never_panics_on_line_shapes(parts in prop::collection::vec(field(), 0..12), second in prop::option::of(prop::collection::vec(field(), 0..12))) {
      let mut text = parts.join("\\t");
      if let Some(second) = second {
        text = format!("{ESCAPED_LINE_MARKER}\\t{}\n{text}", second.join("\\t"));
      }
      let _ = read(&text);
    }

    #[test]
    fn our_output_round_trips_any_location(l in location()) {
      prop_assert_eq!(read(&our_output(&l)), Some(l));
    }

    #[test]
    fn names_with_newlines_never_read(l in location(), at in 0usize..2) {
      let l = if at == 0 { Location { session_name: format!("{}\n", l.session_name), ..l } } else { Location { window_name: format!("a\n{}", l.window_name), ..l } };
      prop_assert_eq!(read(&our_output(&l)), None);
    }

    #[test]
    fn plain_lines_parse_exactly_as_the_js_split(parts in prop::collection::vec(field(), 0..12)) {
      let parts: Vec<String> = parts.into_iter().map(|p| p.replace('\n', "")).collect();
      let line = parts.join("\\t");
      // JS: line.split('\\t') then exactly 8 parts and a non-empty pane id.
      let js: Vec<&str> = line.split("\\t").collect();
      let expected = if js.len() == 8 && !js[4].is_empty() { location_from_parts(js) } else { None };
      // Without our marker first, ours must agree exactly.
      prop_assume!(!line.starts_with(ESCAPED_LINE_MARKER));
      prop_assert_eq!(read(&line), expected);
    }
  }

  #[test]
  fn a_trailing_backslash_is_kept_and_a_winlink_must_end_with_its_own_id() {
    let (fields, rest) = split_escaped("a\\tb\\", 2).expect("two fields");
    assert_eq!((fields, rest), (vec!["a".to_string(), "b\\".to_string()], ""));
    let line = |last: &str| {
      format!("{WINLINK_LINE_MARKER}{FIELD_SEP}$1{FIELD_SEP}0{FIELD_SEP}1{FIELD_SEP}main{FIELD_SEP}{last}")
    };
    assert!(parse_winlink(&line("$1")).is_some());
    assert_eq!(parse_winlink(&line("$2")), None, "a line cut and joined to another");
  }
}
