//! The tmux query: one POSIX `sh` command, built from constants and numbers only (this process's
//! pid, and a checked tmux server's pid and start time), that prints the location only when the
//! process really lives in `$TMUX_PANE`; its steps and exit codes are listed in docs/design.md.
//! `tmux` is the server's own binary (`/proc/<pid>/exe`) once `server.rs` checked it, else `PATH`'s.
//! With `panes`, the same tmux process also lists the panes of the window (`list-panes`, after a
//! `;` in the same client command). Pure.

/// The two characters backslash and `t` that separate the tmux format fields. tmux prints them
/// verbatim, so the command holds no raw whitespace.
pub const FIELD_SEP: &str = "\\t";

/// Starts our own command's record: the fields escaped by tmux's `q:` modifier (a name holding `\t`
/// or a newline cannot shift or forge fields), then `#{automatic-rename}`. Output without it (an
/// executor written for the JS package, or tmux before 2.9) is read as the JS package reads it.
pub const ESCAPED_LINE_MARKER: &str = "dsh-tmux-context:q2";

/// Starts each line of a winlink of the pane (linked windows, grouped sessions): the session id,
/// the window index and whether it is the session's current window, the session name, escaped, and
/// the session id again, so that a name holding a newline (which `q:` leaves raw) cannot end a line
/// that reads as whole.
pub const WINLINK_LINE_MARKER: &str = "dsh-tmux-context:wl";

/// Starts each line of the window's pane roster (with `panes`) from tmux 2.9 on: the pane id, its
/// index, its command and its directory, the free text and the ids escaped by `q:`, then the pane
/// id again. `q:` doubles every backslash, so no text can hold the separator, and the id again
/// ends the entry: a newline inside a command or a directory (which `q:` leaves raw) is read as
/// part of it.
pub const PANE_LINE_MARKER: &str = "dsh-tmux-context:pq";

/// Starts each roster line from tmux 2.6 to 2.8 (no `q:`): the same fields, plain. Such a line is
/// read only when it reads whole; see `parse.rs`.
pub const PLAIN_PANE_LINE_MARKER: &str = "dsh-tmux-context:pp";

/// Separates the escaped fields from the plain ones inside tmux's output (never printed).
const PLAIN_MARKER: &str = "dsh-tmux-context:plain";

/// The roster fields after the marker, in query (and parse) order; the pane id comes again last.
pub const PANE_FIELDS: [&str; 4] = ["pane_id", "pane_index", "pane_current_command", "pane_current_path"];

/// The roster fields `q:` escapes from tmux 2.9 on: the free text and the pane ids.
const PANE_QUOTED: [&str; 3] = ["pane_id", "pane_current_command", "pane_current_path"];

/// The eight fields, in query (and parse) order: the JS package's `session_name`, `window_index`,
/// `window_name`, `pane_index`, `pane_id`, `window_active`, `pane_active`, `window_layout`.
pub const TMUX_FIELDS: [&str; 8] = [
  "session_name",
  "window_index",
  "window_name",
  "pane_index",
  "pane_id",
  "window_active",
  "pane_active",
  "window_layout",
];

/// The free-text fields (and the pane id, so that a tmux without `q:` prints it empty), which the
/// escaped record quotes with `q:`: every backslash doubled, so no field can hold the separator.
const QUOTED: [&str; 3] = ["session_name", "window_name", "pane_id"];

/// Exit status of the query when `$TMUX_PANE` is not set (not in tmux, or a `display-popup`).
pub const EXIT_NOT_IN_TMUX: i64 = 10;
/// Exit status when this process has no controlling tty (a `setsid` child).
pub const EXIT_NO_TTY: i64 = 11;
/// Exit status when neither this process's tty nor a foreground ancestor's is the pane's.
pub const EXIT_NOT_THE_PANE: i64 = 12;
/// Exit status when tmux failed (its message is on stderr).
pub const EXIT_TMUX_FAILED: i64 = 13;
/// Exit status when tmux printed nothing (`access not allowed`, a server too old for the client).
pub const EXIT_TMUX_SILENT: i64 = 14;
/// Exit status when `tmux` is not found.
pub const EXIT_TMUX_MISSING: i64 = 127;

/// The tmux server to query through, once checked (see `server.rs`): its pid and its start time
/// (`/proc/<pid>/stat` field 22), which the command checks again before running its binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerBinary {
  pub pid: u32,
  pub start_time: u64,
}

/// `#{name}`, or `#{q:name}` for the quoted fields when `escaped`.
fn format_of(escaped: bool) -> String {
  TMUX_FIELDS
    .iter()
    .map(|f| if escaped && QUOTED.contains(f) { format!("#{{q:{f}}}") } else { format!("#{{{f}}}") })
    .collect::<Vec<_>>()
    .join(FIELD_SEP)
}

/// The `sh` loop that keeps the `list-panes -a` lines of `$TMUX_PANE` and prints each as a winlink line
/// (the marker, then the fields after the pane id). The marker goes through `%s`: `printf` would turn
/// the two characters `\t` of its own format into a tab.
fn winlink_filter() -> String {
  let sep = FIELD_SEP;
  format!(
    "while IFS= read -r line; do case $line in \"$TMUX_PANE\"'{sep}'*) printf '%s%s\\n' '{WINLINK_LINE_MARKER}{sep}' \"${{line#*'{sep}'}}\" ;; esac; done"
  )
}

/// One roster line's format: the marker, [`PANE_FIELDS`] and the pane id again, escaped or plain.
fn pane_line_format(escaped: bool) -> String {
  let field = |f: &str| if escaped && PANE_QUOTED.contains(&f) { format!("#{{q:{f}}}") } else { format!("#{{{f}}}") };
  let marker = if escaped { PANE_LINE_MARKER } else { PLAIN_PANE_LINE_MARKER };
  let fields: Vec<String> = PANE_FIELDS.iter().chain(&["pane_id"]).map(|f| field(f)).collect();
  format!("{marker}{FIELD_SEP}{}", fields.join(FIELD_SEP))
}

/// `#{?#{q:pane_id},<if tmux knows q:>,<if not>}`: tmux 2.6 to 2.8 expand the unknown `q:` to
/// nothing, so they take the second branch (tmux expands a condition written as a format since
/// before 2.6). Neither branch may hold a comma: it would end the branch.
fn if_escaping(escaped: &str, plain: &str) -> String {
  debug_assert!(!escaped.contains(',') && !plain.contains(','));
  format!("#{{?#{{q:pane_id}},{escaped},{plain}}}")
}

/// The query for process `pid`, through `server`'s binary when given; with `panes`, the panes of
/// the window follow the location (without, the command is the one before panes existed, byte for
/// byte).
pub fn build_command(pid: u32, server: Option<ServerBinary>, panes: bool) -> String {
  let mut lines = tty_lines(pid);
  lines.extend(server.map(server_lines).unwrap_or_default());
  lines.extend(pane_lines(pid, panes));
  lines.join("\n")
}

/// `$TMUX_PANE`, `proc_stat`, and this process's controlling tty (`$self_tty`).
fn tty_lines(pid: u32) -> Vec<String> {
  vec![
    format!("[ -n \"$TMUX_PANE\" ] || exit {EXIT_NOT_IN_TMUX}"),
    // proc_stat <pid>: tty (`pts/N`, or empty), parent, pgrp and the tty's foreground group, from
    // /proc/<pid>/stat without spawning a process; fails where /proc has no such file.
    "proc_stat() {".into(),
    "  tty= parent= pgrp= fg=".into(),
    "  [ -r \"/proc/$1/stat\" ] || return 1".into(),
    // Every line: a command name may hold a newline.
    "  stat=; while IFS= read -r line || [ -n \"$line\" ]; do stat=\"$stat $line\"; done < \"/proc/$1/stat\"".into(),
    "  set -f; set -- ${stat##*') '}; set +f".into(),
    "  case \"$2$3$5$6\" in ''|*[!0-9-]*) return 1 ;; esac".into(),
    "  parent=$2 pgrp=$3 fg=$6".into(),
    "  major=$(( ($5 >> 8) & 4095 )); minor=$(( ($5 & 255) | (($5 >> 12) & 1048320) ))".into(),
    "  if [ \"$major\" -ge 136 ] && [ \"$major\" -le 143 ]; then tty=pts/$(( (major - 136) * 256 + minor )); fi".into(),
    "}".into(),
    format!("if proc_stat {pid}; then self_tty=$tty; else self_tty=$(ps -o tty= -p {pid} 2>/dev/null); fi"),
    "self_tty=${self_tty#\"${self_tty%%[! ]*}\"}; self_tty=${self_tty%\"${self_tty##*[! ]}\"}".into(),
    format!("case $self_tty in ''|'?'|'??') exit {EXIT_NO_TTY};; esac"),
  ]
}

/// `tmux` as the checked server's own binary, while its start time still matches.
fn server_lines(ServerBinary { pid, start_time }: ServerBinary) -> Vec<String> {
  vec![
    format!("if [ -x /proc/{pid}/exe ] && proc_stat {pid}; then"),
    "  set -f; set -- ${stat##*') '}; set +f".into(),
    // Called in subshells only (`$(…)` and a pipeline), where `exec` saves a fork.
    format!("  [ \"${{20}}\" = {start_time} ] && tmux() {{ exec /proc/{pid}/exe \"$@\"; }}"),
    "fi".into(),
  ]
}

/// The pane's record from tmux, the check that this process lives in the pane, and what is printed.
/// With `panes`, the plain fields are printed by tmux before 2.9 only (a tmux with `q:` prints
/// none, so the roster follows the escaped record directly), and `list-panes` runs in the same
/// tmux process: its lines follow the record in `$out`, and are printed after it, before the
/// winlinks.
fn pane_lines(pid: u32, panes: bool) -> Vec<String> {
  let sep = FIELD_SEP;
  let plain = if panes { if_escaping("", &format_of(false)) } else { format_of(false) };
  let format = format!(
    "#{{pane_tty}}{sep}#{{window_linked}}#{{session_grouped}}#{{q:pane_id}}{sep}{ESCAPED_LINE_MARKER}{sep}{escaped}{sep}#{{automatic-rename}}{sep}{PLAIN_MARKER}{sep}{plain}",
    escaped = format_of(true),
  );
  let roster = if panes {
    format!(" \\; list-panes -t \"$TMUX_PANE\" -F '{}'", if_escaping(&pane_line_format(true), &pane_line_format(false)))
  } else {
    String::new()
  };
  // With a tmux that knows `q:` and `panes`, the text after the plain marker is the roster.
  let escaped_tail = if panes { format!(" \"${{record#*'{sep}{PLAIN_MARKER}{sep}'}}\"") } else { String::new() };
  let escaped_printf = if panes { "%s%s\\n" } else { "%s\\n" };
  let mut lines = vec![
    format!("out=$(tmux display-message -t \"$TMUX_PANE\" -p '{format}'{roster}) || {{ [ $? = 127 ] && exit {EXIT_TMUX_MISSING}; exit {EXIT_TMUX_FAILED}; }}"),
    format!("[ -n \"$out\" ] || exit {EXIT_TMUX_SILENT}"),
    "pane_tty=${out%%'\\t'*}; rest=${out#*'\\t'}; links=${rest%%'\\t'*}; record=${rest#*'\\t'}".into(),
  ];
  lines.extend(ancestor_lines(pid));
  lines.extend([
    "case $links in".into(),
    // tmux before 2.9 prints `#{q:pane_id}` empty: the plain fields, as the JS package reads them
    // (and, with `panes`, the plain roster lines after them).
    format!("  ??) printf '%s\\n' \"${{record#*'{sep}{PLAIN_MARKER}{sep}'}}\" ;;"),
    format!("  *) printf '{escaped_printf}' \"${{record%%'{sep}{PLAIN_MARKER}{sep}'*}}\"{escaped_tail}"),
    "    case $links in 00*) ;; *)".into(),
    format!("      tmux list-panes -a -F '#{{pane_id}}{sep}#{{session_id}}{sep}#{{window_index}}{sep}#{{window_active}}{sep}#{{q:session_name}}{sep}#{{session_id}}' 2>/dev/null |"),
    format!("        {}", winlink_filter()),
    "    ;; esac ;;".into(),
    "esac".into(),
  ]);
  lines
}

/// The tty must be the pane's, or, for a nested terminal (`script`, an editor's terminal, `sudo`'s
/// pty, one inside another), an ancestor reached up the chain of terminals (within 32 levels) must
/// hold the pane's tty, in that tty's foreground process group (not a terminal started in the
/// background); an ancestor with no terminal (setsid, a daemon) ends the walk.
fn ancestor_lines(pid: u32) -> Vec<String> {
  vec![
    "if [ \"$pane_tty\" = \"/dev/$self_tty\" ]; then :; else".into(),
    format!("  p={pid}; n=0; found=; term=$self_tty"),
    "  while [ $n -lt 32 ]; do".into(),
    "    if proc_stat \"$p\"; then :; else set -f; set -- $(ps -o ppid= -p \"$p\" 2>/dev/null); set +f; parent=$1; fi"
      .into(),
    "    p=$parent; [ -n \"$p\" ] && [ \"$p\" -gt 1 ] || break".into(),
    "    if proc_stat \"$p\"; then :; else".into(),
    "      set -f; set -- $(ps -o pgid=,tpgid=,tty= -p \"$p\" 2>/dev/null); set +f; pgrp=$1 fg=$2 tty=$3".into(),
    "    fi".into(),
    "    if [ \"$tty\" != \"$term\" ]; then".into(),
    "      case $tty in ''|'?'|'??') break ;; esac".into(),
    "      if [ \"/dev/$tty\" = \"$pane_tty\" ]; then [ \"$pgrp\" = \"$fg\" ] && found=1; break; fi".into(),
    "      term=$tty".into(),
    "    fi".into(),
    "    n=$((n + 1))".into(),
    "  done".into(),
    format!("  [ -n \"$found\" ] || exit {EXIT_NOT_THE_PANE}"),
    "fi".into(),
  ]
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn command_keeps_the_contract_fragments() {
    for c in [false, true].into_iter().flat_map(|panes| {
      [build_command(4242, None, panes), build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }), panes)]
    }) {
      for fragment in [
        "[ -n \"$TMUX_PANE\" ]",
        "ps -o tty= -p 4242",
        "#{pane_tty}",
        "[ \"$pane_tty\" = \"/dev/$self_tty\" ]",
        "tmux display-message -t \"$TMUX_PANE\" -p",
      ] {
        assert!(c.contains(fragment), "{fragment}");
      }
      assert!(!c.contains("| tr"));
    }
  }

  #[test]
  fn built_from_constants_and_numbers_only() {
    for panes in [false, true] {
      let c = build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }), panes);
      assert!(c.contains("exec /proc/77/exe \"$@\""));
      assert!(c.contains("= 12345 ]"));
      assert!(!build_command(4242, None, panes).contains("/exe"), "without a checked server, tmux comes from PATH");
    }
  }

  /// Runs the command with `sh` where `tmux` is a stand-in script, for the shell logic itself.
  fn run(command: &str, tmux: &str, env: &[(&str, &str)]) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("dshtc-cmd-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let stand_in = dir.join("tmux");
    std::fs::write(&stand_in, format!("#!/bin/sh\n{tmux}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", dir.display());
    let out = std::process::Command::new("/bin/sh")
      .arg("-c")
      .arg(command)
      .env_clear()
      .env("PATH", path)
      .envs(env.iter().copied())
      .output()
      .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
  }

  fn rand_suffix() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos() as u64
  }

  #[test]
  fn winlink_lines_read_back_as_printed() {
    let lines = "%5\\t$3\\t0\\t1\\tview\\t$3\n%7\\t$0\\t2\\t1\\tother\\t$0\n%5\\t$0\\t1\\t0\\tmain\\ \\\"x\\\"\\t$0\n";
    let out = std::process::Command::new("/bin/sh")
      .arg("-c")
      .arg(format!("printf '%s' '{}' | {}", lines.replace('\'', "'\\''"), winlink_filter()))
      .env("TMUX_PANE", "%5")
      .output()
      .unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    let record = "dsh-tmux-context:q2\\tview\\t0\\tw\\t0\\t\\%5\\t1\\t1\\tb25f,80x24,0,0,5\\t1\n";
    let answer = crate::parse::parse_output(&format!("{record}{printed}")).expect("reads");
    let ids: Vec<u64> = answer.winlinks.iter().map(|w| w.session_id).collect();
    assert_eq!(ids, [3, 0], "{printed}");
    let location = answer.location();
    assert_eq!((location.session_name.as_str(), location.window_index.as_str()), ("main \"x\"", "1"));
  }

  #[test]
  fn exit_statuses_name_the_reason() {
    let me = std::process::id();
    let cmd = build_command(me, None, false);
    assert_eq!(run(&cmd, "exit 0", &[]).0, EXIT_NOT_IN_TMUX as i32);
    // This test process has no controlling tty under cargo test in CI (or one that is not a pane's).
    let (code, _) = run(&cmd, "echo '/dev/pts/999\\t00\\%1\\tx'", &[("TMUX_PANE", "%1")]);
    assert!([EXIT_NO_TTY as i32, EXIT_NOT_THE_PANE as i32].contains(&code), "{code}");
  }

  /// `build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }))` before panes existed.
  const BEFORE_PANES: &str = r#"[ -n "$TMUX_PANE" ] || exit 10
proc_stat() {
  tty= parent= pgrp= fg=
  [ -r "/proc/$1/stat" ] || return 1
  stat=; while IFS= read -r line || [ -n "$line" ]; do stat="$stat $line"; done < "/proc/$1/stat"
  set -f; set -- ${stat##*') '}; set +f
  case "$2$3$5$6" in ''|*[!0-9-]*) return 1 ;; esac
  parent=$2 pgrp=$3 fg=$6
  major=$(( ($5 >> 8) & 4095 )); minor=$(( ($5 & 255) | (($5 >> 12) & 1048320) ))
  if [ "$major" -ge 136 ] && [ "$major" -le 143 ]; then tty=pts/$(( (major - 136) * 256 + minor )); fi
}
if proc_stat 4242; then self_tty=$tty; else self_tty=$(ps -o tty= -p 4242 2>/dev/null); fi
self_tty=${self_tty#"${self_tty%%[! ]*}"}; self_tty=${self_tty%"${self_tty##*[! ]}"}
case $self_tty in ''|'?'|'??') exit 11;; esac
if [ -x /proc/77/exe ] && proc_stat 77; then
  set -f; set -- ${stat##*') '}; set +f
  [ "${20}" = 12345 ] && tmux() { exec /proc/77/exe "$@"; }
fi
out=$(tmux display-message -t "$TMUX_PANE" -p '#{pane_tty}\t#{window_linked}#{session_grouped}#{q:pane_id}\tdsh-tmux-context:q2\t#{q:session_name}\t#{window_index}\t#{q:window_name}\t#{pane_index}\t#{q:pane_id}\t#{window_active}\t#{pane_active}\t#{window_layout}\t#{automatic-rename}\tdsh-tmux-context:plain\t#{session_name}\t#{window_index}\t#{window_name}\t#{pane_index}\t#{pane_id}\t#{window_active}\t#{pane_active}\t#{window_layout}') || { [ $? = 127 ] && exit 127; exit 13; }
[ -n "$out" ] || exit 14
pane_tty=${out%%'\t'*}; rest=${out#*'\t'}; links=${rest%%'\t'*}; record=${rest#*'\t'}
if [ "$pane_tty" = "/dev/$self_tty" ]; then :; else
  p=4242; n=0; found=; term=$self_tty
  while [ $n -lt 32 ]; do
    if proc_stat "$p"; then :; else set -f; set -- $(ps -o ppid= -p "$p" 2>/dev/null); set +f; parent=$1; fi
    p=$parent; [ -n "$p" ] && [ "$p" -gt 1 ] || break
    if proc_stat "$p"; then :; else
      set -f; set -- $(ps -o pgid=,tpgid=,tty= -p "$p" 2>/dev/null); set +f; pgrp=$1 fg=$2 tty=$3
    fi
    if [ "$tty" != "$term" ]; then
      case $tty in ''|'?'|'??') break ;; esac
      if [ "/dev/$tty" = "$pane_tty" ]; then [ "$pgrp" = "$fg" ] && found=1; break; fi
      term=$tty
    fi
    n=$((n + 1))
  done
  [ -n "$found" ] || exit 12
fi
case $links in
  ??) printf '%s\n' "${record#*'\tdsh-tmux-context:plain\t'}" ;;
  *) printf '%s\n' "${record%%'\tdsh-tmux-context:plain\t'*}"
    case $links in 00*) ;; *)
      tmux list-panes -a -F '#{pane_id}\t#{session_id}\t#{window_index}\t#{window_active}\t#{q:session_name}\t#{session_id}' 2>/dev/null |
        while IFS= read -r line; do case $line in "$TMUX_PANE"'\t'*) printf '%s%s\n' 'dsh-tmux-context:wl\t' "${line#*'\t'}" ;; esac; done
    ;; esac ;;
esac"#;

  /// The lines [`server_lines`] adds to [`BEFORE_PANES`].
  const SERVER_LINES: &str = r#"if [ -x /proc/77/exe ] && proc_stat 77; then
  set -f; set -- ${stat##*') '}; set +f
  [ "${20}" = 12345 ] && tmux() { exec /proc/77/exe "$@"; }
fi
"#;

  #[test]
  fn without_panes_the_command_is_the_one_before_byte_for_byte() {
    // (Since: the walk up nested terminals goes on through a terminal inside another.)
    let server = ServerBinary { pid: 77, start_time: 12345 };
    assert_eq!(build_command(4242, Some(server), false), BEFORE_PANES);
    assert_eq!(build_command(4242, None, false), BEFORE_PANES.replacen(SERVER_LINES, "", 1));
  }

  #[test]
  fn with_panes_the_same_tmux_process_lists_the_window() {
    let (off, on) = (build_command(4242, None, false), build_command(4242, None, true));
    for c in [&off, &on] {
      assert_eq!(c.matches("tmux display-message").count(), 1);
      assert_eq!(c.matches("tmux ").count(), 2, "display-message, and list-panes -a for a linked window only");
    }
    let query = on.lines().find(|l| l.starts_with("out=$(tmux display-message")).expect("the query");
    assert!(query.contains("' \\; list-panes -t \"$TMUX_PANE\" -F '#{?#{q:pane_id},dsh-tmux-context:pq\\t#{q:pane_id}\\t#{pane_index}\\t#{q:pane_current_command}\\t#{q:pane_current_path}\\t#{q:pane_id},dsh-tmux-context:pp\\t#{pane_id}\\t#{pane_index}\\t#{pane_current_command}\\t#{pane_current_path}\\t#{pane_id}}')"), "{query}");
    assert!(
      query.contains("\\tdsh-tmux-context:plain\\t#{?#{q:pane_id},,#{session_name}\\t"),
      "plain fields before 2.9 only"
    );
    for forbidden in ["pane_title", "pane_active}\\tdsh", "capture-pane", "pane_pid"] {
      assert!(!on.contains(forbidden), "{forbidden}");
    }
    let changed: Vec<(&str, &str)> = off.lines().zip(on.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(
      (off.lines().count(), changed.len()),
      (on.lines().count(), 2),
      "the query and the escaped branch's printf: {changed:#?}"
    );
  }

  /// Runs what the command does with tmux's answer (`$out`): its split and its printing, without
  /// the tty check.
  fn print_answer(raw: &str, panes: bool) -> String {
    let command = build_command(1, None, panes);
    let split = command.lines().find(|l| l.starts_with("pane_tty=")).expect("the split");
    let print = &command[command.find("case $links in").expect("the printing")..];
    let input = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut &input, raw.as_bytes()).unwrap();
    std::io::Seek::rewind(&mut &input).unwrap();
    let out = std::process::Command::new("/bin/sh")
      .arg("-c")
      .arg(format!("out=$(cat)\n{split}\n{print}"))
      .env("TMUX_PANE", "%0")
      .stdin(input)
      .output()
      .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
  }

  #[test]
  fn prints_what_real_tmux_answered() {
    use crate::parse::tests::{PRINTED_2_6, PRINTED_2_6_ODD, PRINTED_3_3A, RAW_2_6, RAW_2_6_ODD, RAW_3_3A};
    for (raw, printed) in [(RAW_3_3A, PRINTED_3_3A), (RAW_2_6, PRINTED_2_6), (RAW_2_6_ODD, PRINTED_2_6_ODD)] {
      assert_eq!(print_answer(raw, true), printed);
    }
  }

  /// A private tmux server (`$DSH_TEST_TMUX`, else `tmux` from `PATH`), killed when dropped.
  struct Server {
    tmux: String,
    socket: std::path::PathBuf,
    dir: tempfile::TempDir,
  }

  impl Server {
    fn start() -> Option<Server> {
      let tmux = std::env::var("DSH_TEST_TMUX").unwrap_or_else(|_| "tmux".into());
      let runs = std::process::Command::new(&tmux).arg("-V").output().is_ok_and(|o| o.status.success());
      if !runs {
        eprintln!("no tmux: skipped");
        return None;
      }
      let dir = tempfile::tempdir().unwrap();
      let socket = dir.path().join("s");
      let server = Server { tmux, socket, dir };
      std::fs::create_dir_all(server.path("proj/src")).unwrap();
      let (proj, src) = (server.path("proj"), server.path("proj/src"));
      let new_session = "-f /dev/null new-session -d -s main -n editor -x 80 -y 24 -c";
      let started = std::process::Command::new(&server.tmux)
        .arg("-S")
        .arg(&server.socket)
        .args(new_session.split(' '))
        .args([&proj, "exec sleep 60"])
        .output()
        .is_ok_and(|o| o.status.success());
      if !started {
        eprintln!("tmux could not start a server here: skipped");
        return None;
      }
      server.tmux(&["split-window", "-h", "-t", "%0", "-c", &src, "exec sleep 60"]);
      Some(server)
    }

    fn path(&self, under: &str) -> String {
      self.dir.path().canonicalize().unwrap().join(under).display().to_string()
    }

    fn tmux(&self, args: &[&str]) -> String {
      let out = std::process::Command::new(&self.tmux).arg("-S").arg(&self.socket).args(args).output().unwrap();
      assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
      String::from_utf8(out.stdout).unwrap().trim_end().to_string()
    }

    /// Runs `command` as a process of pane `%0` would, through `PATH`'s `tmux` or the chosen one.
    fn run(&self, command: &str) -> (i32, String) {
      let bin = self.dir.path().join("bin");
      std::fs::create_dir_all(&bin).unwrap();
      let tmux =
        std::process::Command::new("/bin/sh").arg("-c").arg(format!("command -v '{}'", self.tmux)).output().unwrap();
      let tmux = String::from_utf8(tmux.stdout).unwrap();
      std::os::unix::fs::symlink(tmux.trim_end(), bin.join("tmux")).ok();
      let server_pid = self.tmux(&["display-message", "-p", "#{pid}"]);
      let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("TMUX", format!("{},{server_pid},0", self.socket.display()))
        .env("TMUX_PANE", "%0")
        .output()
        .unwrap();
      (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
    }
  }

  impl Drop for Server {
    fn drop(&mut self) {
      std::process::Command::new(&self.tmux).arg("-S").arg(&self.socket).arg("kill-server").output().ok();
    }
  }

  #[test]
  fn real_tmux_answers_the_command_with_the_windows_panes() {
    use crate::change::{decide_injection, Injection};
    use crate::parse::{parse_output, Pane};
    let Some(server) = Server::start() else { return };
    // The panes' own process stands for the agent: its tty is the pane's.
    let pane_pid: u32 = server.tmux(&["display-message", "-t", "%0", "-p", "#{pane_pid}"]).parse().unwrap();
    let started = std::time::Instant::now();
    while server.tmux(&["list-panes", "-t", "%0", "-F", "#{pane_current_command}"]) != "sleep\nsleep" {
      assert!(started.elapsed().as_secs() < 10, "the panes never ran sleep");
      std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (code, off) = server.run(&build_command(pane_pid, None, false));
    assert_eq!(code, 0, "{off}");
    let off = parse_output(&off).expect("a location");
    let (code, on) = server.run(&build_command(pane_pid, None, true));
    assert_eq!(code, 0, "{on}");
    let on = parse_output(&on).expect("a location");
    assert_eq!(off.panes, None);
    assert_eq!((&on.location, on.automatic_rename, &on.winlinks), (&off.location, off.automatic_rename, &off.winlinks));
    assert_eq!((on.location.session_name.as_str(), on.location.window_name.as_str()), ("main", "editor"));
    let pane = |id: &str, index: &str, path: &str| Pane {
      id: id.into(),
      index: index.into(),
      command: "sleep".into(),
      path: server.path(path),
    };
    assert_eq!(on.panes, Some(vec![pane("%0", "0", "proj"), pane("%1", "1", "proj/src")]));
    let home = server.path("");
    let Injection::Inject(reading) = decide_injection(&on, None, "1", Some(&home)) else { panic!() };
    assert!(
      reading.ends_with(
        "\npane 0 %0 (this agent) command \"sleep\" path \"~/proj\"\npane 1 %1 command \"sleep\" path \"~/proj/src\""
      ),
      "{reading}"
    );
  }
}
