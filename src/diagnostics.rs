//! What the plugin tells the host's logger (`ctx.logger`), word for word: the warnings the
//! contract names, and, at debug level, why there is no reading. Pure.

use crate::command::{
  EXIT_ANOTHER_PANE, EXIT_NOT_A_PANE_ID, EXIT_NOT_IN_TMUX, EXIT_NOT_THE_PANE, EXIT_NO_PANE_OF_SERVER, EXIT_NO_TTY,
  EXIT_PANE_EMPTY, EXIT_TMUX_FAILED, EXIT_TMUX_MISSING, EXIT_TMUX_SILENT,
};

/// The warning logged when the executor throws or rejects; `reason` is the error's message.
pub fn query_failed_warning(reason: &str) -> String {
  format!("tmux location query failed: {reason}; injecting no location this turn")
}

/// Why a first step got no reading (logged at debug level, once each time it changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
  /// `$TMUX_PANE` is not set.
  NotInTmux,
  /// `$TMUX_PANE` is set but empty.
  PaneEmpty,
  /// `$TMUX_PANE` is not `%` and digits.
  NotAPaneId,
  /// Neither `ctx.shell` nor `ctx.bash` is mounted.
  NoExecutor,
  /// This process has no controlling terminal.
  NoTty,
  /// An ancestor's terminal is the pane's, but in its background.
  NotThePane,
  /// This process's terminal is another pane of the server.
  AnotherPane,
  /// This process's terminal is no pane of the server tmux asked.
  NoPaneOfServer,
  /// tmux 3.3 and later refused this user (`server-access`).
  AccessRefused,
  /// tmux cannot connect to the socket of `$TMUX`: the server is gone, or a sandbox hides it.
  CannotConnect(String),
  /// `tmux` is not on the executor's `PATH`.
  TmuxMissing,
  /// tmux failed otherwise; its first line of error output.
  TmuxFailed(String),
  /// tmux did not answer in time; no query for `backoff_s` seconds.
  TimedOut { timeout_ms: u64, backoff_s: u64 },
  /// The output could not be read as a location.
  Unreadable,
  /// The executor kept only a part of tmux's answer.
  Truncated,
  /// The executor's result lacks what a finished query has (an object, a numeric `exitCode`).
  Malformed(String),
  /// The query exited with another status (an executor of its own kind).
  Exited(String),
}

impl Reason {
  /// The reason of a finished query that gave no location: its exit status (`None`: killed by a
  /// signal) and the first line of its error output.
  pub fn of_exit(exit_code: Option<i64>, stderr: &str) -> Reason {
    let line = stderr.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string();
    match exit_code {
      Some(EXIT_NOT_IN_TMUX) => Reason::NotInTmux,
      Some(EXIT_PANE_EMPTY) => Reason::PaneEmpty,
      Some(EXIT_NOT_A_PANE_ID) => Reason::NotAPaneId,
      Some(EXIT_NO_TTY) => Reason::NoTty,
      Some(EXIT_NOT_THE_PANE) => Reason::NotThePane,
      Some(EXIT_ANOTHER_PANE) => Reason::AnotherPane,
      Some(EXIT_NO_PANE_OF_SERVER) => Reason::NoPaneOfServer,
      Some(EXIT_TMUX_MISSING) => Reason::TmuxMissing,
      Some(EXIT_TMUX_SILENT | EXIT_TMUX_FAILED) if line.contains("access not allowed") => Reason::AccessRefused,
      Some(EXIT_TMUX_FAILED) if line.contains("error connecting to") || line.contains("no server running") => {
        Reason::CannotConnect(line)
      }
      Some(EXIT_TMUX_SILENT | EXIT_TMUX_FAILED) => Reason::TmuxFailed(line),
      Some(code) => Reason::Exited(format!("status {code}")),
      None => Reason::Exited("no status (killed by a signal)".into()),
    }
  }

  /// The debug line.
  pub fn message(&self) -> String {
    let why = match self {
      Reason::NotInTmux => "not in tmux: $TMUX_PANE is not set (outside tmux, or in a display-popup, where tmux sets $TMUX only)".into(),
      Reason::NoExecutor => "no executor: neither ctx.shell nor ctx.bash is mounted".into(),
      Reason::NoTty => "this process has no controlling terminal (started with setsid?), so it cannot be matched to the pane of $TMUX_PANE".into(),
      Reason::PaneEmpty => "$TMUX_PANE is set but empty, so it names no pane".into(),
      Reason::NotAPaneId => "$TMUX_PANE is not a pane id (% and digits, as tmux sets it), so it is not trusted".into(),
      Reason::NotThePane => "this process runs in a terminal nested in the pane (script, an editor's terminal) that is in the pane's background, not its foreground".into(),
      Reason::AnotherPane => "this process's terminal is another pane of this tmux server than $TMUX_PANE: the variable was inherited, from a shell in another pane".into(),
      Reason::NoPaneOfServer => "this process's terminal is no pane of the tmux server that $TMUX names (or of the default server, without $TMUX): $TMUX names another server than the one this process runs in, or this process runs in a terminal outside tmux that inherited $TMUX_PANE".into(),
      Reason::AccessRefused => "tmux refused access to its server (tmux 3.3 and later allow only the server's owner by default); the owner can allow this user with `tmux server-access -a <user>`".into(),
      Reason::CannotConnect(line) => format!("tmux cannot connect to its server ({line}): the server is gone, or the sandbox hides the tmux socket"),
      Reason::TmuxMissing => "tmux is not on the executor's PATH".into(),
      Reason::TmuxFailed(line) if line.is_empty() => "tmux failed without a message".into(),
      Reason::TmuxFailed(line) => format!("tmux failed: {line}"),
      Reason::TimedOut { timeout_ms, backoff_s } => format!("tmux did not answer within {timeout_ms} ms; not asking again for {backoff_s} s"),
      Reason::Unreadable => "tmux's answer could not be read as a location".into(),
      Reason::Truncated => "tmux's answer was longer than the executor keeps (1 MiB asked), so none of it is read: a pane holds a command or a directory of that size, or the window hundreds of panes".into(),
      Reason::Malformed(what) => format!("the executor's result lacks {what}"),
      Reason::Exited(status) => format!("the query ended with {status}"),
    };
    format!("tmux-context: no location this turn: {why}")
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn exit_statuses_and_tmux_messages_name_the_reason() {
    assert_eq!(Reason::of_exit(Some(10), ""), Reason::NotInTmux);
    assert_eq!(Reason::of_exit(Some(11), ""), Reason::NoTty);
    assert_eq!(Reason::of_exit(Some(12), ""), Reason::NotThePane);
    assert_eq!(Reason::of_exit(Some(15), ""), Reason::PaneEmpty);
    assert!(Reason::PaneEmpty.message().contains("$TMUX_PANE is set but empty"));
    assert_eq!(Reason::of_exit(Some(16), ""), Reason::NotAPaneId);
    assert_eq!(Reason::of_exit(Some(17), ""), Reason::NoPaneOfServer);
    assert!(Reason::NoPaneOfServer.message().contains("$TMUX names another server than the one this process runs in"));
    assert_eq!(Reason::of_exit(Some(18), ""), Reason::AnotherPane);
    assert!(Reason::AnotherPane.message().contains("another pane of this tmux server"));
    assert_eq!(Reason::of_exit(Some(127), ""), Reason::TmuxMissing);
    assert_eq!(Reason::of_exit(Some(14), "access not allowed\n"), Reason::AccessRefused);
    let hidden = "error connecting to /tmp/tmux-1000/default (No such file or directory)";
    assert_eq!(Reason::of_exit(Some(13), hidden), Reason::CannotConnect(hidden.into()));
    assert!(Reason::of_exit(Some(13), hidden).message().contains("the sandbox hides the tmux socket"));
    assert_eq!(
      Reason::of_exit(Some(14), "server version is too old for client"),
      Reason::TmuxFailed("server version is too old for client".into())
    );
    assert_eq!(Reason::of_exit(Some(1), ""), Reason::Exited("status 1".into()));
    assert!(Reason::AccessRefused.message().contains("tmux server-access -a <user>"));
  }

  #[test]
  fn a_failed_tmux_is_told_with_its_first_line_or_as_silent() {
    assert_eq!(
      Reason::TmuxFailed(String::new()).message(),
      "tmux-context: no location this turn: tmux failed without a message"
    );
    assert_eq!(
      Reason::TmuxFailed("no server running".into()).message(),
      "tmux-context: no location this turn: tmux failed: no server running"
    );
  }
}
