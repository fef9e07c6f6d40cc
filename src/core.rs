//! The pure core: configuration rules, the tmux query command, parsing its output, rendering the
//! reading, and deciding whether an injection is due. Nothing here touches N-API, so every rule is
//! unit- and property-tested with `cargo test`.

/// Cordis plugin name, also the `source.plugin` of every reading and its section name.
pub const PLUGIN_NAME: &str = "tmux-context";

/// First line prefix of a rendered reading (`tmux location (turn <turn>):`).
pub const READING_PREFIX: &str = "tmux location (turn ";

/// The two characters backslash and `t` that separate the tmux format fields. tmux prints them
/// verbatim, so the command holds no raw whitespace.
pub const FIELD_SEP: &str = "\\t";

/// Starts the output of our own command, whose record has the session and window names escaped
/// by tmux's `q:` modifier, so that a name holding `\t` (or a newline) cannot shift the fields.
/// Output without it (an executor written for the JS package) is read as the JS package reads it.
pub const ESCAPED_LINE_MARKER: &str = "dsh-tmux-context:q1";

/// The eight tmux format fields, in query (and parse) order (the JS package's `session_name`,
/// `window_index`, `window_name`, `pane_index`, `pane_id`, `window_active`, `pane_active`,
/// `window_layout`), with free-text names (session and window) shell-quoted by tmux (`q:`): every
/// backslash is doubled and no field can then hold the separator. The pane id is quoted too (`%`
/// becomes `\%`): a tmux without `q:` prints it empty, which reads as no location.
pub const TMUX_ESCAPED_FIELDS: [&str; 8] = [
  "#{q:session_name}",
  "#{window_index}",
  "#{q:window_name}",
  "#{pane_index}",
  "#{q:pane_id}",
  "#{window_active}",
  "#{pane_active}",
  "#{window_layout}",
];

/// Default bound on one tmux query, in ms (`queryTimeoutMs`).
pub const DEFAULT_QUERY_TIMEOUT_MS: u64 = 5_000;

/// Largest delay Node's timers keep without clamping (2^31 - 1 ms); the cap of `queryTimeoutMs`.
pub const MAX_QUERY_TIMEOUT_MS: u64 = 2_147_483_647;

/// Largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

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

/// The newest reading found in a session's durable events.
#[derive(Debug, Clone, PartialEq)]
pub struct Previous {
  /// The reading's text after its first `\n` (`""` when it has none): the compared state.
  pub state: String,
  /// The event's `time`, epoch ms.
  pub time: f64,
}

/// `Number.isSafeInteger(value)`.
pub fn is_safe_integer(value: f64) -> bool {
  value.is_finite() && value.trunc() == value && value.abs() <= MAX_SAFE_INTEGER
}

/// `refreshIntervalMs`: a safe integer `>= 0` (`-0` included, as in JS); `None` when invalid.
pub fn valid_refresh_interval(value: f64) -> Option<f64> {
  (is_safe_integer(value) && value >= 0.0).then_some(value)
}

/// `queryTimeoutMs`: a safe integer in `1..=MAX_QUERY_TIMEOUT_MS`; `None` when invalid.
pub fn valid_query_timeout(value: f64) -> Option<u64> {
  (is_safe_integer(value) && value >= 1.0 && value <= MAX_QUERY_TIMEOUT_MS as f64).then_some(value as u64)
}

/// The exact load-time error of an invalid `refreshIntervalMs`; `shown` is JS `String(value)`.
pub fn refresh_interval_error(shown: &str) -> String {
  format!("tmux-context: refreshIntervalMs must be a non-negative safe integer, got {shown}")
}

/// The exact load-time error of an invalid `queryTimeoutMs`; `shown` is JS `String(value)`.
pub fn query_timeout_error(shown: &str) -> String {
  format!(
    "tmux-context: queryTimeoutMs must be a positive safe integer no greater than {MAX_QUERY_TIMEOUT_MS}, got {shown}"
  )
}

/// The warning logged when the executor throws or rejects; `reason` is the error's message.
pub fn query_failed_warning(reason: &str) -> String {
  format!("tmux location query failed: {reason}; injecting no location this turn")
}

/// The warning logged when anything else inside the listener fails (a thrown JS error, a panic).
pub fn listener_failed_warning(reason: &str) -> String {
  format!("tmux-context: pre-step failed: {reason}; passing the step through unchanged")
}

/// Whether the refresh floor holds the query back: an interval `> 0`, a previous reading, and `now`
/// in `[previous.time, previous.time + interval)`, all in epoch ms as JS numbers.
pub fn within_refresh_interval(refresh_interval_ms: Option<f64>, previous: Option<&Previous>, now: f64) -> bool {
  match (refresh_interval_ms, previous) {
    (Some(interval), Some(previous)) if interval > 0.0 => now >= previous.time && now - previous.time < interval,
    _ => false,
  }
}

/// The compared state of a reading's text: everything after the first `\n`, `""` without one.
pub fn state_of_text(text: &str) -> &str {
  text.split_once('\n').map_or("", |(_, state)| state)
}

/// The POSIX `sh` query for process `pid`. It prints only when the process really lives in
/// `$TMUX_PANE`: its controlling tty (from `/proc/<pid>/stat`, else `ps -o tty= -p <pid>`, as on
/// BusyBox or macOS respectively) must equal the pane's `#{pane_tty}`. One `tmux display-message`
/// prints the pane tty and the fields, so a query spawns `sh` and `tmux` (plus `ps` where `/proc`
/// is missing). Output: the marker, then the 8 escaped fields, all joined by `\t`.
pub fn build_command(pid: u32) -> String {
  let escaped = TMUX_ESCAPED_FIELDS.join(FIELD_SEP);
  [
    "[ -n \"$TMUX_PANE\" ] || exit 1".to_string(),
    "self_tty=".to_string(),
    format!("if [ -r /proc/{pid}/stat ] && read -r stat < /proc/{pid}/stat; then"),
    "  set -f; set -- ${stat##*') '}".to_string(),
    "  tty_major=$(( ($5 >> 8) & 4095 )); tty_minor=$(( ($5 & 255) | (($5 >> 12) & 1048320) ))".to_string(),
    "  if [ \"$tty_major\" -ge 136 ] && [ \"$tty_major\" -le 143 ]; then self_tty=pts/$(( (tty_major - 136) * 256 + tty_minor )); fi".to_string(),
    "fi".to_string(),
    format!("[ -n \"$self_tty\" ] || self_tty=$(ps -o tty= -p {pid} 2>/dev/null)"),
    "self_tty=${self_tty#\"${self_tty%%[! ]*}\"}; self_tty=${self_tty%\"${self_tty##*[! ]}\"}".to_string(),
    "[ -n \"$self_tty\" ] || exit 1".to_string(),
    format!("out=$(tmux display-message -t \"$TMUX_PANE\" -p '#{{pane_tty}}{FIELD_SEP}{ESCAPED_LINE_MARKER}{FIELD_SEP}{escaped}') || exit 1"),
    "pane_tty=${out%%'\\t'*}".to_string(),
    "[ \"$pane_tty\" = \"/dev/$self_tty\" ] || exit 1".to_string(),
    "printf '%s\\n' \"${out#*'\\t'}\"".to_string(),
  ]
  .join("\n")
}

fn location_from_parts<S: Into<String>>(parts: Vec<S>) -> Option<Location> {
  let [session_name, window_index, window_name, pane_index, pane_id, window_active, pane_active, window_layout]: [S; 8] =
    parts.try_into().ok()?;
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
  if let Some(record) = stdout.strip_prefix(ESCAPED_LINE_MARKER).and_then(|r| r.strip_prefix(FIELD_SEP)) {
    let record = record.strip_suffix('\n').unwrap_or(record);
    let fields = split_escaped_line(record)?;
    if fields.iter().any(|f| f.contains('\n')) {
      return None;
    }
    return location_from_parts(fields);
  }
  parse_plain_line(stdout.split('\n').next().unwrap_or(""))
}

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

/// What a pre-step does once the location is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
  /// Nothing changed since the newest reading: pass the decision through.
  Unchanged,
  /// Put this reading (full text) in front of the step's messages.
  Inject(String),
}

/// Whether `location` is news against `previous`, and the reading to inject if it is.
pub fn decide_injection(location: &Location, previous: Option<&Previous>, turn: &str) -> Injection {
  let state = render_state(location);
  match previous {
    Some(previous) if previous.state == state => Injection::Unchanged,
    _ => Injection::Inject(render_reading(turn, &state)),
  }
}

/// The per-session index of this plugin's readings, derived from the durable events and extended
/// only by the events appended since it last looked.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SessionIndex {
  /// How many events (from seq 0) the index has seen.
  pub scanned: usize,
  /// The newest reading among them: `None` when there is none, or when the newest one's first
  /// content block is not text (the contract then treats the previous reading as absent).
  pub latest: Option<Previous>,
}

/// Which events a pre-step must read to bring a [`SessionIndex`] up to date with `len` events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanPlan {
  /// Up to date.
  Nothing,
  /// Index never built (or the log shrank, which an append-only log never does): rebuild by
  /// reading `0..len` newest first, stopping at the first reading.
  NewestFirst { len: usize },
  /// Read only the events appended since, oldest first: the last reading among them wins.
  Appended { from: usize, len: usize },
}

impl SessionIndex {
  /// The events to read for a log of `len` events.
  pub fn plan(&self, len: usize, built: bool) -> ScanPlan {
    if !built || len < self.scanned {
      ScanPlan::NewestFirst { len }
    } else if len == self.scanned {
      ScanPlan::Nothing
    } else {
      ScanPlan::Appended { from: self.scanned, len }
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  fn loc(session: &str, window: &str) -> Location {
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
      &l.session_name, &l.window_index, &l.window_name, &l.pane_index, &l.pane_id, &l.window_active, &l.pane_active,
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
  fn renders_the_contract_reading() {
    let l = loc("main", "editor \"x\"");
    let state = render_state(&l);
    assert_eq!(
      render_reading("2", &state),
      "tmux location (turn 2):\nsession main, window 1 \"editor \\\"x\\\"\", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3"
    );
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
    assert_eq!(parse_output(&format!("x\\ty\n{}", our_output(&l))), None, "a marker after the first line is not ours");
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
  fn refresh_interval_rules() {
    assert_eq!(valid_refresh_interval(0.0), Some(0.0));
    assert_eq!(valid_refresh_interval(-0.0), Some(-0.0));
    assert_eq!(valid_refresh_interval(MAX_SAFE_INTEGER), Some(MAX_SAFE_INTEGER));
    for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, 9_007_199_254_740_992.0] {
      assert_eq!(valid_refresh_interval(bad), None, "{bad}");
    }
    assert_eq!(
      refresh_interval_error("-1"),
      "tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1"
    );
  }

  #[test]
  fn query_timeout_rules() {
    assert_eq!(valid_query_timeout(1.0), Some(1));
    assert_eq!(valid_query_timeout(2_147_483_647.0), Some(2_147_483_647));
    for bad in [0.0, -0.0, -5.0, 1.5, f64::NAN, 2_147_483_648.0] {
      assert_eq!(valid_query_timeout(bad), None, "{bad}");
    }
  }

  #[test]
  fn schedule_follows_the_js_clock_rules() {
    let prev = Previous { state: String::new(), time: 1_000.0 };
    assert!(within_refresh_interval(Some(100.0), Some(&prev), 1_099.0));
    assert!(!within_refresh_interval(Some(100.0), Some(&prev), 1_100.0));
    assert!(!within_refresh_interval(Some(100.0), Some(&prev), 999.0), "clock went back");
    assert!(!within_refresh_interval(Some(0.0), Some(&prev), 1_000.0));
    assert!(!within_refresh_interval(None, Some(&prev), 1_000.0));
    assert!(!within_refresh_interval(Some(100.0), None, 1_000.0));
  }

  #[test]
  fn state_is_text_after_first_newline() {
    assert_eq!(state_of_text("a\nb\nc"), "b\nc");
    assert_eq!(state_of_text("no newline"), "");
    assert_eq!(state_of_text("\n"), "");
  }

  #[test]
  fn suppresses_unchanged_state() {
    let l = loc("s", "w");
    let prev = Previous { state: render_state(&l), time: 0.0 };
    assert_eq!(decide_injection(&l, Some(&prev), "3"), Injection::Unchanged);
    let moved = loc("s", "w2");
    assert!(matches!(decide_injection(&moved, Some(&prev), "3"), Injection::Inject(t) if t.starts_with("tmux location (turn 3):\n")));
  }

  #[test]
  fn command_keeps_the_contract_fragments() {
    let c = build_command(4242);
    for fragment in [
      "[ -n \"$TMUX_PANE\" ]",
      "ps -o tty= -p 4242",
      "#{pane_tty}",
      "[ \"$pane_tty\" = \"/dev/$self_tty\" ]",
      "tmux display-message -t \"$TMUX_PANE\" -p",
    ] {
      assert!(c.contains(fragment), "{fragment}");
    }
    assert_eq!(c.matches("tmux ").count(), 1, "one tmux process");
    assert!(!c.contains("| tr"));
  }

  #[test]
  fn index_plans() {
    let idx = SessionIndex::default();
    assert_eq!(idx.plan(10, false), ScanPlan::NewestFirst { len: 10 });
    let idx = SessionIndex { scanned: 10, latest: None };
    assert_eq!(idx.plan(10, true), ScanPlan::Nothing);
    assert_eq!(idx.plan(12, true), ScanPlan::Appended { from: 10, len: 12 });
    assert_eq!(idx.plan(3, true), ScanPlan::NewestFirst { len: 3 });
  }

  #[test]
  fn a_megabyte_line_parses_in_linear_time() {
    let big = "x".repeat(1 << 20);
    let l = loc(&big, &big);
    assert_eq!(parse_output(&our_output(&l)), Some(l));
    let seps = "\\t".repeat(1 << 19);
    assert_eq!(parse_output(&seps), None);
    assert_eq!(parse_output(&format!("{ESCAPED_LINE_MARKER}\\t{seps}")), None);
    assert_eq!(parse_output(&format!("{ESCAPED_LINE_MARKER}\\t{}", "\\".repeat(1 << 20))), None);
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

  fn field() -> impl Strategy<Value = String> {
    prop_oneof![
      "[a-z0-9 ]{0,8}",
      any::<String>(),
      prop::collection::vec(prop::sample::select(vec!["\\", "t", "\\t", "\"", "'", " ", "é", "😀", "\u{2028}", "\u{1}", "%", "$"]), 0..10)
        .prop_map(|v| v.concat()),
    ]
  }

  fn location() -> impl Strategy<Value = Location> {
    (field(), "[0-9]{1,3}", field(), "[0-9]{1,2}", "%[0-9]{1,3}", "[01]", "[01]", "[a-f0-9]{4},[0-9x,{}\\[\\]]{0,20}").prop_map(
      |(s, wi, w, pi, pid, wa, pa, lay)| Location {
        session_name: s.replace('\n', " "),
        window_index: wi,
        window_name: w.replace('\n', " "),
        pane_index: pi,
        pane_id: pid,
        window_active: wa,
        pane_active: pa,
        window_layout: lay,
      },
    )
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

    #[test]
    fn json_quote_matches_ecmascript(s in any::<String>()) {
      prop_assert_eq!(json_quote(&s), js_quote(&s));
    }

    #[test]
    fn state_round_trips_through_the_reading(l in location(), turn in 1u32..10_000) {
      let state = render_state(&l);
      let reading = render_reading(&turn.to_string(), &state);
      prop_assert_eq!(state_of_text(&reading), state.as_str());
    }
  }
}
