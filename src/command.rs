//! The tmux query: one POSIX `sh` command, built from constants and this process's pid only, that
//! prints the location only when the process really lives in `$TMUX_PANE`. Pure.

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
    format!(
      "out=$(tmux display-message -t \"$TMUX_PANE\" -p '#{{pane_tty}}{FIELD_SEP}{ESCAPED_LINE_MARKER}{FIELD_SEP}{escaped}') || exit 1"
    ),
    "pane_tty=${out%%'\\t'*}".to_string(),
    "[ \"$pane_tty\" = \"/dev/$self_tty\" ] || exit 1".to_string(),
    "printf '%s\\n' \"${out#*'\\t'}\"".to_string(),
  ]
  .join("\n")
}

#[cfg(test)]
mod tests {
  use super::*;

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
}
