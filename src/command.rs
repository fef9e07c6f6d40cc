//! The tmux query: one POSIX `sh` command, built from constants and numbers only (this process's
//! pid, and a checked tmux server's pid and start time), that prints the location only when the
//! process really lives in `$TMUX_PANE`; its steps and exit codes are listed in docs/design.md.
//! `tmux` is the server's own binary (`/proc/<pid>/exe`) once `server.rs` checked it, else `PATH`'s.
//! Pure.

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

/// Separates the escaped fields from the plain ones inside tmux's output (never printed).
const PLAIN_MARKER: &str = "dsh-tmux-context:plain";

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

/// The query for process `pid`, through `server`'s binary when given.
pub fn build_command(pid: u32, server: Option<ServerBinary>) -> String {
  let mut lines = tty_lines(pid);
  lines.extend(server.map(server_lines).unwrap_or_default());
  lines.extend(pane_lines(pid));
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
fn pane_lines(pid: u32) -> Vec<String> {
  let sep = FIELD_SEP;
  let format = format!(
    "#{{pane_tty}}{sep}#{{window_linked}}#{{session_grouped}}#{{q:pane_id}}{sep}{ESCAPED_LINE_MARKER}{sep}{escaped}{sep}#{{automatic-rename}}{sep}{PLAIN_MARKER}{sep}{plain}",
    escaped = format_of(true),
    plain = format_of(false),
  );
  let mut lines = vec![
    format!("out=$(tmux display-message -t \"$TMUX_PANE\" -p '{format}') || {{ [ $? = 127 ] && exit {EXIT_TMUX_MISSING}; exit {EXIT_TMUX_FAILED}; }}"),
    format!("[ -n \"$out\" ] || exit {EXIT_TMUX_SILENT}"),
    "pane_tty=${out%%'\\t'*}; rest=${out#*'\\t'}; links=${rest%%'\\t'*}; record=${rest#*'\\t'}".into(),
  ];
  lines.extend(ancestor_lines(pid));
  lines.extend([
    "case $links in".into(),
    // tmux before 2.9 prints `#{q:pane_id}` empty: the plain fields, as the JS package reads them.
    format!("  ??) printf '%s\\n' \"${{record#*'{sep}{PLAIN_MARKER}{sep}'}}\" ;;"),
    format!("  *) printf '%s\\n' \"${{record%%'{sep}{PLAIN_MARKER}{sep}'*}}\""),
    "    case $links in 00*) ;; *)".into(),
    format!("      tmux list-panes -a -F '#{{pane_id}}{sep}#{{session_id}}{sep}#{{window_index}}{sep}#{{window_active}}{sep}#{{q:session_name}}{sep}#{{session_id}}' 2>/dev/null |"),
    format!("        {}", winlink_filter()),
    "    ;; esac ;;".into(),
    "esac".into(),
  ]);
  lines
}

/// The tty must be the pane's, or, for a nested terminal (`script`, an editor's terminal, `sudo`'s
/// pty), the first ancestor on another terminal (within 32 levels) must hold the pane's tty, in
/// that tty's foreground process group (not a terminal started in the background, nor setsid).
fn ancestor_lines(pid: u32) -> Vec<String> {
  vec![
    "if [ \"$pane_tty\" = \"/dev/$self_tty\" ]; then :; else".into(),
    format!("  p={pid}; n=0; found="),
    "  while [ $n -lt 32 ]; do".into(),
    "    if proc_stat \"$p\"; then :; else set -f; set -- $(ps -o ppid= -p \"$p\" 2>/dev/null); set +f; parent=$1; fi"
      .into(),
    "    p=$parent; [ -n \"$p\" ] && [ \"$p\" -gt 1 ] || break".into(),
    "    if proc_stat \"$p\"; then :; else".into(),
    "      set -f; set -- $(ps -o pgid=,tpgid=,tty= -p \"$p\" 2>/dev/null); set +f; pgrp=$1 fg=$2 tty=$3".into(),
    "    fi".into(),
    "    if [ \"$tty\" != \"$self_tty\" ]; then".into(),
    "      [ -n \"$tty\" ] && [ \"/dev/$tty\" = \"$pane_tty\" ] && [ \"$pgrp\" = \"$fg\" ] && found=1".into(),
    "      break".into(),
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
    for c in [build_command(4242, None), build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }))] {
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
    let c = build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }));
    assert!(c.contains("exec /proc/77/exe \"$@\""));
    assert!(c.contains("= 12345 ]"));
    assert!(!build_command(4242, None).contains("/exe"), "without a checked server, tmux comes from PATH");
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
    let cmd = build_command(me, None);
    assert_eq!(run(&cmd, "exit 0", &[]).0, EXIT_NOT_IN_TMUX as i32);
    // This test process has no controlling tty under cargo test in CI (or one that is not a pane's).
    let (code, _) = run(&cmd, "echo '/dev/pts/999\\t00\\%1\\tx'", &[("TMUX_PANE", "%1")]);
    assert!([EXIT_NO_TTY as i32, EXIT_NOT_THE_PANE as i32].contains(&code), "{code}");
  }
}
