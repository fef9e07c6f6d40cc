//! Reading the executor's stdout back into a [`Location`]: our own escaped record, or any other
//! output exactly as the JS package reads it. Pure; linear in the output's length.

use crate::command::{ESCAPED_LINE_MARKER, FIELD_SEP};

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

/// Splits a line escaped by tmux's `q:` modifier: an unescaped `\t` separates fields, `\x` stands for
/// `x`. One pass, linear in the line's length.
fn split_escaped_line(line: &str) -> Option<Vec<String>> {
  let mut fields = vec![String::new()];
  let mut chars = line.chars();
  while let Some(c) = chars.next() {
    let field = fields.last_mut()?;
    match c {
      '\\' => match chars.next() {
        Some('t') => {
          if fields.len() == 8 {
            return None;
          }
          fields.push(String::new());
        }
        Some(other) => field.push(other),
        None => field.push('\\'),
      },
      other => field.push(other),
    }
  }
  Some(fields)
}

/// Parses the executor's stdout. Our own command's output (it starts with the marker) is read as
/// one escaped record: an unescaped `\t` separates fields, `\x` stands for `x`; a field holding a
/// newline makes it malformed, since a reading keeps to three lines. Any other output is read
/// exactly as the JS package reads it: its first line split on `\t`, exactly 8 parts, non-empty
/// pane id.
pub fn parse_output(stdout: &str) -> Option<Location> {
  if let Some(record) = stdout
    .strip_prefix(ESCAPED_LINE_MARKER)
    .and_then(|r| r.strip_prefix(FIELD_SEP))
  {
    let record = record.strip_suffix('\n').unwrap_or(record);
    let fields = split_escaped_line(record)?;
    if fields.iter().any(|f| f.contains('\n')) {
      return None;
    }
    return location_from_parts(fields);
  }
  parse_plain_line(stdout.split('\n').next().unwrap_or(""))
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
    format!("{}\\t{}\n", ESCAPED_LINE_MARKER, plain_line(&escaped))
  }

  #[test]
  fn parses_a_plain_line_like_the_js_package() {
    let l = loc("s", "w");
    assert_eq!(parse_output(&plain_line(&l)), Some(l.clone()));
    assert_eq!(parse_output(&format!("{}\ntrailing", plain_line(&l))), Some(l));
  }

  #[test]
  fn rejects_wrong_counts_and_empty_pane_id() {
    assert_eq!(parse_output(""), None);
    assert_eq!(parse_output("a\\tb"), None);
    assert_eq!(parse_output("1\\t2\\t3\\t4\\t5\\t6\\t7\\t8\\t9"), None);
    assert_eq!(parse_output("1\\t2\\t3\\t4\\t\\t6\\t7\\t8"), None);
    assert!(parse_output("1\\t2\\t3\\t4\\t5\\t6\\t7\\t8").is_some());
  }

  #[test]
  fn names_holding_backslash_t_read_from_the_escaped_line() {
    let l = loc("my sess\\\\tx", "tab\\there \\\\ \"q\" é 😀");
    assert_eq!(parse_output(&plain_line(&l)), None, "the JS parse cannot split it");
    assert_eq!(parse_output(&our_output(&l)), Some(l));
  }

  #[test]
  fn escaped_record_needs_its_marker_first() {
    let l = loc("s", "w");
    assert_eq!(
      parse_output(&format!("x\\ty\n{}", our_output(&l))),
      None,
      "a marker after the first line is not ours"
    );
  }

  #[test]
  fn a_name_cannot_forge_the_record() {
    // A window name holding a newline and a fake record: tmux's q: leaves the newline raw.
    let forged = format!("x\n{ESCAPED_LINE_MARKER}\\tSPOOF\\t9\\tspoof");
    let l = loc("real", &forged);
    assert_eq!(parse_output(&our_output(&l)), None);
    let l = loc("real\nsession", "w");
    assert_eq!(parse_output(&our_output(&l)), None);
  }

  #[test]
  fn a_tmux_without_q_reads_as_no_location() {
    // Unknown modifiers expand to nothing: every quoted field is empty, the pane id among them.
    let out = format!("{ESCAPED_LINE_MARKER}\\t\\t1\\t\\t0\\t\\t1\\t1\\tb25f,80x24,0,0,3\n");
    assert_eq!(parse_output(&out), None);
  }

  #[test]
  fn a_megabyte_line_parses_in_linear_time() {
    let big = "x".repeat(1 << 20);
    let l = loc(&big, &big);
    assert_eq!(parse_output(&our_output(&l)), Some(l));
    let seps = "\\t".repeat(1 << 19);
    assert_eq!(parse_output(&seps), None);
    assert_eq!(parse_output(&format!("{ESCAPED_LINE_MARKER}\\t{seps}")), None);
    assert_eq!(
      parse_output(&format!("{ESCAPED_LINE_MARKER}\\t{}", "\\".repeat(1 << 20))),
      None
    );
  }

  pub fn field() -> impl Strategy<Value = String> {
    prop_oneof![
      "[a-z0-9 ]{0,8}",
      any::<String>(),
      prop::collection::vec(
        prop::sample::select(vec![
          "\\", "t", "\\t", "\"", "'", " ", "é", "😀", "\u{2028}", "\u{1}", "%", "$"
        ]),
        0..10
      )
      .prop_map(|v| v.concat()),
    ]
  }

  pub fn location() -> impl Strategy<Value = Location> {
    (
      field(),
      "[0-9]{1,3}",
      field(),
      "[0-9]{1,2}",
      "%[0-9]{1,3}",
      "[01]",
      "[01]",
      "[a-f0-9]{4},[0-9x,{}\\[\\]]{0,20}",
    )
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
      let _ = parse_output(&text);
    }

    #[test]
    fn parse_never_panics_on_line_shapes(parts in prop::collection::vec(field(), 0..12), second in prop::option::of(prop::collection::vec(field(), 0..12))) {
      let mut text = parts.join("\\t");
      if let Some(second) = second {
        text = format!("{ESCAPED_LINE_MARKER}\\t{}\n{text}", second.join("\\t"));
      }
      let _ = parse_output(&text);
    }

    #[test]
    fn our_output_round_trips_any_location(l in location()) {
      prop_assert_eq!(parse_output(&our_output(&l)), Some(l));
    }

    #[test]
    fn names_with_newlines_never_read(l in location(), at in 0usize..2) {
      let l = if at == 0 { Location { session_name: format!("{}\n", l.session_name), ..l } } else { Location { window_name: format!("a\n{}", l.window_name), ..l } };
      prop_assert_eq!(parse_output(&our_output(&l)), None);
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
      prop_assert_eq!(parse_output(&line), expected);
    }
  }
}
