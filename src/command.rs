//! The tmux query: one POSIX `sh` command, built from constants and numbers only (this process's
//! pid, and a checked tmux server's pid and start time), that prints the location only when the
//! process really lives in `$TMUX_PANE`; its steps and exit codes are listed in docs/design.md.
//! `tmux` is the server's own binary (`/proc/<pid>/exe`) once `server.rs` checked it, else `PATH`'s.
//! One tmux client command answers everything (the record, with `panes` the window's panes, and
//! the pane's winlinks, each after a `;`): one reading describes one moment of tmux. Pure.

use crate::bound::{self, Keep};

/// The two characters backslash and `t` that separate the tmux format fields. tmux prints them
/// verbatim, so the command holds no raw whitespace.
pub const FIELD_SEP: &str = "\\t";

/// Starts our own command's record: the fields escaped by tmux's `q:` modifier (a name holding `\t`
/// or a newline cannot shift or forge fields), then `#{automatic-rename}` (before tmux 2.9, then
/// the plain fields). Output without it (an executor written for the JS package) is read as the JS
/// package reads it.
pub const ESCAPED_LINE_MARKER: &str = "dsh-tmux-context:q2";

/// Starts each line of a winlink of the pane (one for each session that holds its window: more
/// than one for a linked window or a grouped session): the session id,
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

/// Starts the line of the session's clients (with `clients`): how many are attached, and how many
/// show the agent's window (from tmux 3.1; empty before).
pub const CLIENTS_LINE_MARKER: &str = "dsh-tmux-context:cl";

/// Starts each roster line from tmux 2.6 to 2.8 (no `q:`): the same fields, plain. Such a line is
/// read only when it reads whole; see `parse.rs`.
pub const PLAIN_PANE_LINE_MARKER: &str = "dsh-tmux-context:pp";

/// Separates the escaped fields from the plain ones that a tmux before 2.9 adds to the record.
pub const PLAIN_MARKER: &str = "dsh-tmux-context:plain";

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

/// How a field of the query is asked for: as tmux prints it, escaped by `q:` from tmux 2.9 on, or
/// a free text escaped and cut by tmux itself ([`bounded`]), its start or its end kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
  Plain,
  Quoted,
  /// Cut to this many display cells, this end kept ([`bounded`]); from tmux 3.2 left out where
  /// the cut is still long ([`ZERO_WIDTH_GUARD`]).
  Cut(Keep, usize),
  /// A pane's command: cut as [`Ask::Cut`], without the guard, which would have tmux read each
  /// pane's command twice (`/proc/<pid>/cmdline`: with 100 siblings of 131,000 characters, 0.23 s
  /// of the query's time became 0.45 s).
  Command,
  /// A pane's title: cut as [`Ask::Cut`], and empty where it is tmux's default, the host name.
  Title,
}

/// The record's fields: the free texts cut by tmux, the pane id escaped (so that a tmux without
/// `q:` prints it empty).
const RECORD_ASKS: [Ask; 8] = [
  Ask::Cut(Keep::Start, CUT_WIDTH),
  Ask::Plain,
  Ask::Cut(Keep::Start, CUT_WIDTH),
  Ask::Plain,
  Ask::Quoted,
  Ask::Plain,
  Ask::Plain,
  Ask::Plain,
];

/// Which panes a reading lists (config `panes`): none, the agent's window's, or its session's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scope {
  #[default]
  Off,
  Window,
  Session,
}

/// What a query asks tmux for beyond the location: the config's opt-in keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
  pub panes: Scope,
  /// Pane user options shown for each pane (`paneOptions`); only names that [`option_name_ok`].
  pub pane_options: Vec<String>,
  pub pane_titles: bool,
  pub clients: bool,
}

impl Query {
  /// The option names the query asks for: those of `pane_options` that [`option_name_ok`].
  pub fn option_names(&self) -> impl Iterator<Item = &String> {
    self.pane_options.iter().filter(|name| option_name_ok(name))
  }
}

/// Whether `name` is a tmux user option name a query may hold: `@` and 1 to 32 of `A-Za-z0-9_-`.
/// index.js refuses any other at load, naming it; this check stands again where the name enters
/// a shell command.
pub fn option_name_ok(name: &str) -> bool {
  let rest = name.strip_prefix('@').unwrap_or_default();
  (1..=32).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// One roster entry's fields, in query (and parse) order, each with how it is asked for: the pane
/// id, its index, command and directory, whether it is dead and how its program ended; with the
/// session's panes, its window's index, name and `automatic-rename`; the options asked for; the
/// title when asked for; then the pane id again, which proves the entry whole.
pub fn roster_fields(query: &Query) -> Vec<(String, Ask)> {
  let mut fields: Vec<(String, Ask)> = [
    ("pane_id", Ask::Quoted),
    ("pane_index", Ask::Plain),
    ("pane_current_command", Ask::Command),
    ("pane_current_path", Ask::Cut(Keep::End, CUT_WIDTH)),
    ("pane_dead", Ask::Plain),
    ("pane_dead_status", Ask::Plain),
    ("pane_dead_signal", Ask::Plain),
  ]
  .map(|(name, ask)| (name.to_string(), ask))
  .into();
  if query.panes == Scope::Session {
    fields.push(("window_index".into(), Ask::Plain));
    fields.push(("window_name".into(), Ask::Cut(Keep::Start, CUT_WIDTH)));
    fields.push(("automatic-rename".into(), Ask::Plain));
  }
  let short = Ask::Cut(Keep::Start, 2 * bound::SHORT_FIELD_MAX);
  fields.extend(query.option_names().map(|name| (name.clone(), short)));
  if query.pane_titles {
    fields.push(("pane_title".into(), Ask::Title));
  }
  fields.push(("pane_id".into(), Ask::Quoted));
  fields
}

/// Display cells tmux keeps of a name, a command or a directory ([`bounded`]): twice the characters a field may show,
/// since a character takes at most two cells (a wide one, or one that `q:` escapes), so that tmux
/// never cuts what a reading would show, and its answer grows with the panes, not with their texts.
pub const CUT_WIDTH: usize = 2 * bound::FIELD_MAX;

/// What tmux writes raw after a bounded text it cut, its start kept, or before it, its end kept
/// ([`bounded`], from tmux 2.9 on). `q:` escapes every `$` of a text, so only the marker holds a
/// raw one; the `.` before it ends an escape that the cut split (`q:` escapes first, then tmux
/// cuts, and may keep the lone backslash of an escape), so that nothing after it is shifted.
pub const CUT_MARKER: &str = ".$";

/// Follows a text whose end tmux kept (from 2.9 on), so that a run of backslashes at the start of
/// a text cut inside an escape ends before the separator: its length then tells whether the cut
/// left the second half of an escaped backslash (`parse.rs`).
pub const END_KEPT_CLOSE: char = '.';

/// Follows a plain text (tmux 2.6 to 2.8) that tmux printed whole ([`bounded`]).
pub const WHOLE: char = '.';
/// Follows a plain text that tmux cut at [`CUT_WIDTH`].
pub const CUT: char = '+';

/// Whether tmux cuts with a marker (`=/N/marker:`, from 3.0), as seen in the session id it cuts.
const CUTS_WITH_A_MARKER: &str = "#{==:#{=/1/x:session_id},$x}";

/// Free text `name` cut by tmux to `cells` display cells, its start (or its end) kept. From
/// tmux 2.9 on, `q:` escapes it first, so that `=N:` counts every character, a style run `#[…]`
/// included, and [`CUT_MARKER`] follows (or precedes) it where tmux cut it: tmux writes the marker
/// itself from 3.0; 2.9 compares the cut text with the whole one (tmux expands the name twice).
/// Before 2.9, plain, then [`WHOLE`] or [`CUT`], from the same comparison. tmux prints neither the
/// whole text nor its length, so a reading says that a text was cut, not by how much.
fn bounded(name: &str, keep: Keep, cells: usize, escaped: bool, guarded: bool) -> String {
  let width = if keep == Keep::Start { format!("{cells}") } else { format!("-{cells}") };
  if !escaped {
    let cut = format!("#{{={width}:{name}}}");
    return format!("{cut}#{{?#{{==:{cut},#{{{name}}}}},{WHOLE},{CUT}}}");
  }
  let marked = format!("#{{=/{width}/{CUT_MARKER};q:{name}}}");
  let cut = format!("#{{={width};q:{name}}}");
  let marker = format!("#{{?#{{==:{cut},#{{q:{name}}}}},,{CUT_MARKER}}}");
  let (compared, close) = match keep {
    Keep::Start => (format!("{cut}{marker}"), String::new()),
    Keep::End => (format!("{marker}{cut}"), END_KEPT_CLOSE.to_string()),
  };
  let text = format!("#{{?{CUTS_WITH_A_MARKER},{marked},{compared}}}");
  if !guarded {
    return format!("{text}{close}");
  }
  format!("#{{?#{{e|>:#{{n:{text}}},{}}},{CUT_MARKER},{text}}}{close}", ZERO_WIDTH_GUARD * cells)
}

/// Bytes a cut text may take for each display cell kept before tmux leaves it out. `=N:` counts
/// display cells, and a character of no width (a combining mark) takes none, so a text of them is
/// not cut at all: a sibling's title of 300,000 combining marks made tmux's answer 1.2 MB (from a
/// break-in). From tmux 3.2 (`n:`, `e|>:`) such a text is left out, read as cut (`""` and the
/// marker); before 3.2 the condition prints nothing and the cut text stands. A real cut takes at
/// most 2 bytes a cell (an escaped character; a wide one takes 3 or 4 bytes for 2 cells).
pub const ZERO_WIDTH_GUARD: usize = 4;

/// One field of the query as `ask` says, escaped (tmux 2.9 on) or plain.
fn field(name: &str, ask: Ask, escaped: bool) -> String {
  match ask {
    Ask::Cut(keep, cells) => bounded(name, keep, cells, escaped, true),
    Ask::Command => bounded(name, Keep::Start, CUT_WIDTH, escaped, false),
    Ask::Title => {
      format!(
        "#{{?#{{==:#{{{name}}},#{{host}}}},,{}}}",
        bounded(name, Keep::Start, 2 * bound::SHORT_FIELD_MAX, escaped, true)
      )
    }
    Ask::Quoted if escaped => format!("#{{q:{name}}}"),
    Ask::Plain | Ask::Quoted => format!("#{{{name}}}"),
  }
}

/// Exit status of the query when `$TMUX_PANE` is not set (not in tmux, or a `display-popup`).
pub const EXIT_NOT_IN_TMUX: i64 = 10;
/// Exit status when this process has no controlling tty (a `setsid` child).
pub const EXIT_NO_TTY: i64 = 11;
/// Exit status when an ancestor's terminal is the pane's, but not in its foreground (a nested
/// terminal started in the background).
pub const EXIT_NOT_THE_PANE: i64 = 12;
/// Exit status when `$TMUX_PANE` is set but empty.
pub const EXIT_PANE_EMPTY: i64 = 15;
/// Exit status when `$TMUX_PANE` is not `%` and digits.
pub const EXIT_NOT_A_PANE_ID: i64 = 16;
/// Exit status when this process's terminal is no pane of the server tmux asked (`$TMUX`'s, else
/// the default): `$TMUX` names another server, or the terminal is outside tmux.
pub const EXIT_NO_PANE_OF_SERVER: i64 = 17;
/// Exit status when this process's terminal is another pane of the server than `$TMUX_PANE`.
pub const EXIT_ANOTHER_PANE: i64 = 18;
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

/// The record's fields ([`TMUX_FIELDS`] as [`RECORD_ASKS`] says), escaped or plain.
fn format_of(escaped: bool) -> String {
  let fields: Vec<String> = TMUX_FIELDS.iter().zip(RECORD_ASKS).map(|(f, ask)| field(f, ask, escaped)).collect();
  fields.join(FIELD_SEP)
}

/// One roster line's format: the marker, then [`roster_fields`], escaped or plain.
fn pane_line_format(query: &Query, escaped: bool) -> String {
  let marker = if escaped { PANE_LINE_MARKER } else { PLAIN_PANE_LINE_MARKER };
  let fields: Vec<String> = roster_fields(query).iter().map(|(f, ask)| field(f, *ask, escaped)).collect();
  format!("{marker}{FIELD_SEP}{}", fields.join(FIELD_SEP))
}

/// A pane's tty, empty for a dead pane (kept by `remain-on-exit`): tmux still names the tty a dead
/// pane had, which the system may since have given to another terminal, this process's among them.
const LIVE_PANE_TTY: &str = "#{?pane_dead,,#{pane_tty}}";

/// `#{?#{q:pane_id},<if tmux knows q:>,<if not>}`: tmux 2.6 to 2.8 expand the unknown `q:` to
/// nothing, so they take the second branch (tmux expands a condition written as a format since
/// before 2.6). A comma inside a branch must sit inside a nested `#{…}`: at the top it would end
/// the branch.
fn if_escaping(escaped: &str, plain: &str) -> String {
  format!("#{{?#{{q:pane_id}},{escaped},{plain}}}")
}

/// The `list-panes -a` format: for each pane, a winlink line where it is `$TMUX_PANE` (the pane in
/// each session that holds its window), an empty line elsewhere; nothing but empty lines before
/// tmux 2.9. `$TMUX_PANE` is spliced in quoted, after the command checked it is `%` and digits.
fn winlink_format() -> String {
  let sep = FIELD_SEP;
  let name = bounded("session_name", Keep::Start, CUT_WIDTH, true, true);
  let line = format!(
    "{WINLINK_LINE_MARKER}{sep}#{{session_id}}{sep}#{{window_index}}{sep}#{{window_active}}{sep}{name}{sep}#{{session_id}}"
  );
  if_escaping(&format!("#{{?#{{==:#{{pane_id}},'\"$TMUX_PANE\"'}},{line},}}"), "")
}

/// The query for process `pid`, through `server`'s binary when given, asking what `query` says.
pub fn build_command(pid: u32, server: Option<ServerBinary>, query: &Query) -> String {
  let mut lines = tty_lines(pid);
  lines.extend(server.map(server_lines).unwrap_or_default());
  lines.extend(pane_lines(pid, query));
  lines.join("\n")
}

/// `$TMUX_PANE` (set, and a pane id), `proc_stat`, and this process's controlling tty (`$self_tty`).
fn tty_lines(pid: u32) -> Vec<String> {
  vec![
    format!("[ -n \"$TMUX_PANE\" ] || {{ [ -n \"${{TMUX_PANE+set}}\" ] && exit {EXIT_PANE_EMPTY}; exit {EXIT_NOT_IN_TMUX}; }}"),
    format!("case $TMUX_PANE in %|%*[!0-9]*|[!%]*) exit {EXIT_NOT_A_PANE_ID};; esac"),
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

/// One tmux client command reads everything, so that one reading describes one moment of tmux:
/// the pane's tty and record, with `panes` the window's roster, then the pane's winlinks (every
/// session that holds its window). `sh` splits off only the tty, which comes first and is short
/// (a shell's pattern removal costs time quadratic in the text it scans), checks that this
/// process lives in the pane, and prints the rest as tmux printed it: `parse.rs` reads it in one
/// linear pass. Before tmux 2.9 (no `q:`) the record also holds the plain fields, after
/// [`PLAIN_MARKER`].
fn pane_lines(pid: u32, query: &Query) -> Vec<String> {
  let sep = FIELD_SEP;
  let plain = if_escaping("", &format!("{sep}{PLAIN_MARKER}{sep}{}", format_of(false)));
  let format =
    format!("{LIVE_PANE_TTY}{sep}{ESCAPED_LINE_MARKER}{sep}{}{sep}#{{automatic-rename}}{plain}", format_of(true));
  let clients = if query.clients {
    format!(" \\; display-message -t \"$TMUX_PANE\" -p '{CLIENTS_LINE_MARKER}{sep}#{{session_attached}}{sep}#{{window_active_clients}}'")
  } else {
    String::new()
  };
  let scope = match query.panes {
    Scope::Off => None,
    Scope::Window => Some(""),
    Scope::Session => Some(" -s"),
  };
  let roster = scope.map_or(String::new(), |scope| {
    let line = if_escaping(&pane_line_format(query, true), &pane_line_format(query, false));
    format!(" \\; list-panes{scope} -t \"$TMUX_PANE\" -F '{line}'")
  });
  let mut lines = vec![
    format!(
      "out=$(tmux display-message -t \"$TMUX_PANE\" -p '{format}'{clients}{roster} \\; list-panes -a -F '{}') || {{ [ $? = 127 ] && exit {EXIT_TMUX_MISSING}; exit {EXIT_TMUX_FAILED}; }}",
      winlink_format()
    ),
    format!("[ -n \"$out\" ] || exit {EXIT_TMUX_SILENT}"),
    "pane_tty=${out%%'\\t'*}".into(),
  ];
  lines.extend(ancestor_lines(pid));
  lines.push("printf '%s\\n' \"${out#*'\\t'}\"".into());
  lines
}

/// The tty must be the pane's, or, for a nested terminal (`script`, an editor's terminal, `sudo`'s
/// pty, one inside another), an ancestor reached up the chain of terminals (within 32 levels) must
/// hold the pane's tty, in that tty's foreground process group (not a terminal started in the
/// background); an ancestor with no terminal (setsid, a daemon) ends the walk. Otherwise the exit
/// status says what the process runs in instead: a nested terminal in the pane's background,
/// another pane of this server, or no pane of this server at all (asked of tmux on this path only;
/// dead panes are left out, here as in the first read: [`LIVE_PANE_TTY`]).
fn ancestor_lines(pid: u32) -> Vec<String> {
  vec![
    "if [ \"$pane_tty\" = \"/dev/$self_tty\" ]; then :; else".into(),
    format!("  p={pid}; n=0; found=; met=; term=$self_tty"),
    "  while [ $n -lt 32 ]; do".into(),
    "    if proc_stat \"$p\"; then :; else set -f; set -- $(ps -o ppid= -p \"$p\" 2>/dev/null); set +f; parent=$1; fi"
      .into(),
    "    p=$parent; [ -n \"$p\" ] && [ \"$p\" -gt 1 ] || break".into(),
    "    if proc_stat \"$p\"; then :; else".into(),
    "      set -f; set -- $(ps -o pgid=,tpgid=,tty= -p \"$p\" 2>/dev/null); set +f; pgrp=$1 fg=$2 tty=$3".into(),
    "    fi".into(),
    "    if [ \"$tty\" != \"$term\" ]; then".into(),
    "      case $tty in ''|'?'|'??') break ;; esac".into(),
    "      if [ \"/dev/$tty\" = \"$pane_tty\" ]; then met=1; [ \"$pgrp\" = \"$fg\" ] && found=1; break; fi".into(),
    "      term=$tty".into(),
    "    fi".into(),
    "    n=$((n + 1))".into(),
    "  done".into(),
    "  if [ -z \"$found\" ]; then".into(),
    format!("    [ -z \"$met\" ] || exit {EXIT_NOT_THE_PANE}"),
    format!(
      "    tmux list-panes -a -F '{LIVE_PANE_TTY}' 2>/dev/null | while IFS= read -r t; do [ \"$t\" != \"/dev/$self_tty\" ] || exit 1; done || exit {EXIT_ANOTHER_PANE}"
    ),
    format!("    exit {EXIT_NO_PANE_OF_SERVER}"),
    "  fi".into(),
    "fi".into(),
  ]
}

#[cfg(test)]
mod tests {
  use super::*;

  /// The query of `panes: true` (or none), without the other keys.
  fn asked(panes: bool) -> Query {
    Query { panes: if panes { Scope::Window } else { Scope::Off }, ..Query::default() }
  }

  #[test]
  fn command_keeps_the_contract_fragments() {
    for c in [false, true].into_iter().flat_map(|panes| {
      [
        build_command(4242, None, &asked(panes)),
        build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }), &asked(panes)),
      ]
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
      let c = build_command(4242, Some(ServerBinary { pid: 77, start_time: 12345 }), &asked(panes));
      assert!(c.contains("exec /proc/77/exe \"$@\""));
      assert!(c.contains("= 12345 ]"));
      assert!(
        !build_command(4242, None, &asked(panes)).contains("/exe"),
        "without a checked server, tmux comes from PATH"
      );
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
  fn exit_statuses_name_the_reason() {
    let me = std::process::id();
    let cmd = build_command(me, None, &asked(false));
    assert_eq!(run(&cmd, "exit 0", &[]).0, EXIT_NOT_IN_TMUX as i32);
    assert_eq!(run(&cmd, "exit 0", &[("TMUX_PANE", "")]).0, EXIT_PANE_EMPTY as i32);
    for not_an_id in ["main:0.1", "%", "%1x", "%1'\"$(id)\"'", "1"] {
      assert_eq!(run(&cmd, "exit 0", &[("TMUX_PANE", not_an_id)]).0, EXIT_NOT_A_PANE_ID as i32, "{not_an_id}");
    }
    // This test process has no controlling tty under cargo test in CI (or one that is not a pane's).
    let (code, _) = run(&cmd, "echo '/dev/pts/999\\t00\\%1\\tx'", &[("TMUX_PANE", "%1")]);
    assert!([EXIT_NO_TTY as i32, EXIT_NO_PANE_OF_SERVER as i32].contains(&code), "{code}");
  }

  #[test]
  fn one_tmux_client_command_answers_everything() {
    for panes in [false, true] {
      let c = build_command(4242, None, &asked(panes));
      assert_eq!(c.matches("tmux display-message").count(), 1);
      let query = c.lines().find(|l| l.starts_with("out=$(tmux display-message")).expect("the query");
      assert_eq!(query.matches("\\; list-panes").count(), 1 + usize::from(panes), "{query}");
      let session = bounded("session_name", Keep::Start, CUT_WIDTH, true, true);
      assert!(query.contains(&format!(" \\; list-panes -a -F '#{{?#{{q:pane_id}},#{{?#{{==:#{{pane_id}},'\"$TMUX_PANE\"'}},dsh-tmux-context:wl\\t#{{session_id}}\\t#{{window_index}}\\t#{{window_active}}\\t{session}\\t#{{session_id}},}},}}')")), "{query}");
      assert!(
        query.contains("\\t#{automatic-rename}#{?#{q:pane_id},,\\tdsh-tmux-context:plain\\t#{=400:session_name}#{?#{==:#{=400:session_name},#{session_name}},.,+}\\t"),
        "plain fields before 2.9 only, cut by tmux too"
      );
      // Every free text cut by tmux, with its marker from 3.0 on, left out from 3.2 where its cut
      // is still long (characters of no width).
      for name in ["session_name", "window_name"] {
        let text = format!("#{{?#{{==:#{{=/1/x:session_id}},$x}},#{{=/400/.$;q:{name}}},#{{=400;q:{name}}}#{{?#{{==:#{{=400;q:{name}}},#{{q:{name}}}}},,.$}}}}");
        assert!(query.contains(&format!("\\t#{{?#{{e|>:#{{n:{text}}},1600}},.$,{text}}}\\t")), "{name}");
      }
      // The only other tmux call is on the path where the process is not in the pane; it skips dead panes.
      let rest: Vec<&str> = c.lines().filter(|l| l.contains("tmux ") && !l.starts_with("out=$(tmux")).collect();
      assert_eq!(rest.len(), 1, "{rest:?}");
      assert!(
        rest[0].contains("tmux list-panes -a -F '#{?pane_dead,,#{pane_tty}}'")
          && rest[0].contains(&format!("exit {EXIT_ANOTHER_PANE}"))
      );
      for forbidden in
        ["pane_title", "capture-pane", "pane_pid", "${out#*'\\t'dsh", "%%'\\tdsh", "while IFS= read -r line; do case"]
      {
        assert!(!c.contains(forbidden), "{forbidden}");
      }
    }
    let roster = build_command(4242, None, &asked(true));
    let marked = |name: &str, width: &str| format!("#{{=/{width}/.$;q:{name}}}");
    let plain =
      |name: &str, width: &str| format!("#{{={width}:{name}}}#{{?#{{==:#{{={width}:{name}}},#{{{name}}}}},.,+}}");
    assert!(
      roster.contains(&format!(
        "\\t#{{q:pane_id}}\\t#{{pane_index}}\\t#{{?#{{==:#{{=/1/x:session_id}},$x}},{},",
        marked("pane_current_command", "400")
      )),
      "{roster}"
    );
    let ending = "#{pane_dead}\\t#{pane_dead_status}\\t#{pane_dead_signal}";
    let path = format!(
      "#{{?#{{==:#{{=/1/x:session_id}},$x}},{},#{{?#{{==:#{{=-400;q:pane_current_path}},#{{q:pane_current_path}}}},,.$}}#{{=-400;q:pane_current_path}}}}",
      marked("pane_current_path", "-400")
    );
    assert!(
      roster.contains(&format!("\\t#{{?#{{e|>:#{{n:{path}}},1600}},.$,{path}}}.\\t{ending}\\t#{{q:pane_id}}")),
      "{roster}"
    );
    let plain_line = format!(
      "dsh-tmux-context:pp\\t#{{pane_id}}\\t#{{pane_index}}\\t{}\\t{}\\t{ending}\\t#{{pane_id}}}}'",
      plain("pane_current_command", "400"),
      plain("pane_current_path", "-400")
    );
    assert!(roster.contains(&plain_line), "{roster}");
  }

  /// Runs what the command does with tmux's answer (`$out`): its split and its printing, without
  /// the tty check.
  fn print_answer(raw: &str, panes: bool) -> String {
    let command = build_command(1, None, &asked(panes));
    let split = command.lines().find(|l| l.starts_with("pane_tty=")).expect("the split");
    let print = command.lines().last().expect("the printing");
    let input = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut &input, raw.as_bytes()).unwrap();
    std::io::Seek::rewind(&mut &input).unwrap();
    let out = std::process::Command::new("/bin/sh")
      .arg("-c")
      .arg(format!("out=$(cat)\n{split}\nprintf '%s\\n' \"$pane_tty\" >&2\n{print}"))
      .env("TMUX_PANE", "%0")
      .stdin(input)
      .output()
      .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stderr).unwrap(), format!("{}\n", raw.split("\\t").next().unwrap()));
    String::from_utf8(out.stdout).unwrap()
  }

  #[test]
  fn prints_what_real_tmux_answered_after_its_tty() {
    use crate::parse::tests::{RAW_2_6, RAW_2_6_ODD, RAW_3_3A};
    for raw in [RAW_3_3A, RAW_2_6, RAW_2_6_ODD] {
      let after_tty = &raw[raw.find("\\t").unwrap() + 2..];
      assert_eq!(print_answer(raw, true), format!("{}\n", after_tty.trim_end_matches('\n')));
    }
  }

  /// `Some` when `ok`; else says why the test is skipped.
  fn skip_unless(ok: bool, why: &str) -> Option<()> {
    if !ok {
      eprintln!("{why}: skipped");
    }
    ok.then_some(())
  }

  /// The tmux binaries to test with: `$DSH_TEST_TMUX`, else `tmux` from `PATH` and each build in
  /// `$TMUX_BUILDS` (else `../shared/tmux` beside the checkout), `tmux-<version>/bin/tmux`.
  fn tmux_builds() -> Vec<String> {
    if let Ok(one) = std::env::var("DSH_TEST_TMUX") {
      return vec![one];
    }
    let folder = std::env::var("TMUX_BUILDS")
      .map(std::path::PathBuf::from)
      .unwrap_or_else(|_| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tmux"));
    let mut builds: Vec<String> = std::fs::read_dir(folder)
      .into_iter()
      .flatten()
      .flatten()
      .map(|entry| entry.path().join("bin/tmux"))
      .filter(|bin| bin.is_file())
      .map(|bin| bin.display().to_string())
      .collect();
    builds.sort();
    builds.insert(0, "tmux".into());
    builds
  }

  /// Polls `done` every 20 ms for up to 10 s; fails naming `what`.
  fn wait_for(what: &str, done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
      assert!(started.elapsed().as_secs() < 10, "timed out waiting for {what}");
      std::thread::sleep(std::time::Duration::from_millis(20));
    }
  }

  /// A private tmux server of binary `tmux`, killed when dropped.
  struct Server {
    tmux: String,
    socket: std::path::PathBuf,
    dir: tempfile::TempDir,
  }

  impl Server {
    fn start(tmux: &str) -> Option<Server> {
      let tmux = tmux.to_string();
      let runs = std::process::Command::new(&tmux).arg("-V").output().is_ok_and(|o| o.status.success());
      skip_unless(runs, "no tmux")?;
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
      skip_unless(started, "tmux could not start a server here")?;
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
    for tmux in tmux_builds() {
      answers_the_command_with_the_windows_panes(&tmux);
    }
  }

  fn answers_the_command_with_the_windows_panes(tmux: &str) {
    use crate::change::{decide_injection, Injection};
    use crate::parse::{parse_output, Pane};
    let Some(server) = Server::start(tmux) else { return };
    // The panes' own process stands for the agent: its tty is the pane's.
    let pane_pid: u32 = server.tmux(&["display-message", "-t", "%0", "-p", "#{pane_pid}"]).parse().unwrap();
    wait_for("the panes to run sleep", || {
      server.tmux(&["list-panes", "-t", "%0", "-F", "#{pane_current_command}"]) == "sleep\nsleep"
    });
    let (code, off) = server.run(&build_command(pane_pid, None, &asked(false)));
    assert_eq!(code, 0, "{tmux}: {off}");
    let off = parse_output(&off, &asked(true)).expect("a location");
    let (code, on) = server.run(&build_command(pane_pid, None, &asked(true)));
    assert_eq!(code, 0, "{tmux}: {on}");
    let on = parse_output(&on, &asked(true)).expect("a location");
    assert_eq!(off.panes, None);
    assert_eq!((&on.location, on.automatic_rename, &on.winlinks), (&off.location, off.automatic_rename, &off.winlinks));
    assert_eq!((on.location.session_name.as_str(), on.location.window_name.as_str()), ("main", "editor"));
    let pane = |id: &str, index: &str, path: &str| Pane {
      id: id.into(),
      index: index.into(),
      command: "sleep".into(),
      path: server.path(path),
      ..Pane::default()
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

  #[test]
  fn real_tmux_cuts_long_texts_before_it_prints_them() {
    for tmux in tmux_builds() {
      cuts_long_texts_before_it_prints_them(&tmux);
    }
  }

  fn cuts_long_texts_before_it_prints_them(tmux: &str) {
    use crate::parse::parse_output;
    let Some(server) = Server::start(tmux) else { return };
    // A window name of 3,000 characters that `q:` escapes, set through a file (a command line of
    // tmux is bounded); a sibling whose command is 3,000 `$` in a directory 700 characters deep.
    let name = "$\\".repeat(1_500);
    assert_eq!(name.len(), 3_000);
    let conf = server.path("rename.conf");
    std::fs::write(&conf, format!("rename-window -t %0 '{name}'\n")).unwrap();
    server.tmux(&["source-file", &conf]);
    let deep: String = (0..7).map(|i| format!("/{i}{}", "d\\$".repeat(33))).collect();
    let dir = format!("{}{deep}", server.path("proj"));
    std::fs::create_dir_all(&dir).unwrap();
    let argv0 = "exec -a \"$(head -c 3000 /dev/zero | tr '\\0' '$')\" sleep 60";
    let sibling =
      server.tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "%0", "-c", &dir, "bash", "-c", argv0]);
    let pane_pid: u32 = server.tmux(&["display-message", "-t", "%0", "-p", "#{pane_pid}"]).parse().unwrap();
    wait_for("the sibling to run its long argv[0]", || {
      server.tmux(&["display-message", "-t", &sibling, "-p", "#{pane_current_command}"]).len() == 3_000
    });
    let (code, out) = server.run(&build_command(pane_pid, None, &asked(true)));
    assert_eq!(code, 0, "{out}");
    assert!(out.len() < 4 * CUT_WIDTH + 2_000, "{} bytes: tmux printed the texts whole", out.len());
    let answer = parse_output(&out, &asked(true)).expect("a location");
    let window = &answer.location.window_name;
    assert!(answer.location.window_name_cut && !answer.location.session_name_cut);
    // tmux shows a name's backslash as two (`#{window_name}` too).
    let whole = server.tmux(&["display-message", "-t", "%0", "-p", "#{window_name}"]);
    assert!(whole.starts_with(window.as_str()) && window.chars().count() >= CUT_WIDTH / 2, "{window:?}");
    let panes = answer.panes.expect("a roster");
    let pane = panes.iter().find(|p| p.id == sibling).expect("the sibling");
    assert!(pane.command_cut && pane.command.len() >= CUT_WIDTH / 2 && pane.command.bytes().all(|b| b == b'$'));
    let whole = server.tmux(&["display-message", "-t", &sibling, "-p", "#{pane_current_path}"]);
    assert!(whole.len() >= dir.len(), "tmux 3.4 shows a directory's backslash as two");
    assert!(
      pane.path_cut && whole.ends_with(pane.path.as_str()) && pane.path.len() >= CUT_WIDTH / 2,
      "{:?}",
      pane.path
    );
    let own = panes.iter().find(|p| p.id == "%0").expect("the agent's pane");
    assert!(!own.command_cut && !own.path_cut && own.path == server.path("proj"));
  }

  #[test]
  fn real_tmux_tells_what_happens_around_the_agent() {
    for tmux in tmux_builds() {
      tells_what_happens_around_the_agent(&tmux);
    }
  }

  fn tells_what_happens_around_the_agent(tmux: &str) {
    use crate::parse::{parse_output, Ending};
    let Some(server) = Server::start(tmux) else { return };
    let version = server.tmux(&["-V"]);
    let at_least = |major: u32, minor: u32| {
      let digits: String =
        version.trim_start_matches("tmux ").chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
      let (a, b) = digits.split_once('.').unwrap_or((&digits, "0"));
      (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap()) >= (major, minor)
    };
    server.tmux(&["set-option", "-g", "remain-on-exit", "on"]);
    // A `sleep 1` left behind (not a child) holds each terminal open a moment after its program
    // ends, so that tmux up to 3.6 has the status before it marks the pane dead.
    let exited = server.tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "%0", "(sleep 1 &); exit 3"]);
    let killed =
      server.tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "%0", "(sleep 1 &); kill -TERM $$"]);
    let scope = if at_least(3, 0) { "-p" } else { "-w" };
    server.tmux(&["set-option", scope, "-t", "%1", "@agent-name", "scout \"1\""]);
    server.tmux(&["select-pane", "-t", "%1", "-T", "building"]);
    server.tmux(&["new-window", "-d", "-n", "logs", "-t", "main:", "exec sleep 60"]);
    // Both dead, with their status.
    wait_for(&format!("{version}: both panes to end"), || {
      let dead = server.tmux(&["list-panes", "-t", "%0", "-F", "#{pane_dead}#{pane_dead_status}"]);
      dead.lines().filter(|l| l.starts_with('1')).count() == 2
        && server.tmux(&["display-message", "-t", &exited, "-p", "#{pane_dead_status}"]) == "3"
    });
    let pane_pid: u32 = server.tmux(&["display-message", "-t", "%0", "-p", "#{pane_pid}"]).parse().unwrap();
    let query =
      Query { panes: Scope::Session, pane_options: vec!["@agent-name".into()], pane_titles: true, clients: true };
    let (code, out) = server.run(&build_command(pane_pid, None, &query));
    assert_eq!(code, 0, "{version}: {out}");
    let answer = parse_output(&out, &query).unwrap_or_else(|| panic!("{version}: {out}"));
    let clients = answer.clients.unwrap_or_else(|| panic!("{version}: no clients line in {out}"));
    assert_eq!((clients.attached, clients.showing), (0, at_least(3, 1).then_some(0)), "{version}");
    let panes = answer.panes.unwrap_or_else(|| panic!("{version}: no roster in {out}"));
    assert_eq!(panes.len(), 5, "{version}: {panes:?}");
    let find = |id: &str| panes.iter().find(|p| p.id == id).unwrap_or_else(|| panic!("{version}: {id}"));
    assert_eq!(find(&exited).ending, Ending::Exited("3".into()), "{version}");
    let signal = if at_least(3, 3) { Ending::Killed("15".into()) } else { Ending::Unknown };
    assert_eq!(find(&killed).ending, signal, "{version}");
    let sibling = find("%1");
    assert_eq!((sibling.ending.clone(), sibling.title.text.as_str()), (Ending::Running, "building"), "{version}");
    assert_eq!(sibling.options[0].1.text, "scout \"1\"", "{version}");
    assert_eq!(
      find("%0").options[0].1.text.is_empty(),
      at_least(3, 0),
      "{version}: a pane option from 3.0, the window's before"
    );
    assert_eq!(find("%0").title.text, "", "{version}: the host name, tmux's default, is left out");
    let logs =
      panes.iter().find(|p| p.window.as_ref().is_some_and(|w| w.name.text == "logs")).expect("the second window");
    assert_eq!(logs.window.as_ref().unwrap().index, "1", "{version}");
  }

  #[test]
  fn real_tmux_leaves_out_a_text_of_no_width_from_3_2() {
    for tmux in tmux_builds() {
      leaves_out_a_text_of_no_width(&tmux);
    }
  }

  /// A window name of 50,000 combining marks (from a break-in): `=N:` counts cells, and they take
  /// none, so only the length guard keeps the answer small.
  fn leaves_out_a_text_of_no_width(tmux: &str) {
    use crate::parse::parse_output;
    let Some(server) = Server::start(tmux) else { return };
    let version = server.tmux(&["-V"]);
    let name = format!("a{}", "\u{301}".repeat(50_000));
    let conf = server.path("marks.conf");
    std::fs::write(&conf, format!("rename-window -t %0 '{name}'\n")).unwrap();
    server.tmux(&["source-file", &conf]);
    let whole = server.tmux(&["display-message", "-t", "%0", "-p", "#{window_name}"]);
    let pane_pid: u32 = server.tmux(&["display-message", "-t", "%0", "-p", "#{pane_pid}"]).parse().unwrap();
    let (code, out) = server.run(&build_command(pane_pid, None, &asked(true)));
    assert_eq!(code, 0, "{version}: {}", &out[..out.len().min(300)]);
    let answer = parse_output(&out, &asked(true)).unwrap_or_else(|| panic!("{version}: no location"));
    let guarded = ["3.2a", "3.3a", "3.4", "3.5a", "3.7c"].iter().any(|v| version == format!("tmux {v}"));
    assert!(whole.len() > 100_000, "{version}: tmux keeps the marks");
    if guarded {
      assert!(out.len() < 4_000, "{version}: {} bytes", out.len());
      assert_eq!((answer.location.window_name.as_str(), answer.location.window_name_cut), ("", true), "{version}");
    } else {
      assert!(out.len() > 50_000, "{version}: before 3.2 tmux cannot tell the length");
      assert!(whole.starts_with(&answer.location.window_name), "{version}");
    }
  }
}
