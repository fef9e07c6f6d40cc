//! Which executor API the query goes through, read off the executor's shape, and what follows from
//! that generation of the harness: the request's stdout bound and the shape of the reading's source.
//! Pure.

/// How an executor member (`run`, `execute`) looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
  Function,
  /// There, but not a function.
  Other,
  /// `undefined`.
  Absent,
}

/// The harness generation's executor API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutorApi {
  /// `run(spec)` resolves with the run's result: `ctx.bash` (0.0.x) and `ctx.shell` (0.1.0-rc.8,
  /// 0.1.1-rc.2). Also a `run` that is there but not a function: the call then fails with the JS
  /// package's words, as there.
  Run,
  /// `execute(spec)` resolves with an execution handle whose `result()` resolves with the run's
  /// result: upstream 0.1.7 and later (0.2), where `ShellExecutor` has no `run`.
  Execute,
}

/// The API to use, `None` when the executor has neither (a warning, once).
pub fn executor_api(run: Member, execute: Member) -> Option<ExecutorApi> {
  match (run, execute) {
    (Member::Function | Member::Other, _) => Some(ExecutorApi::Run),
    (Member::Absent, Member::Function) => Some(ExecutorApi::Execute),
    (Member::Absent, _) => None,
  }
}

/// The stdout capture budget the query asks for where the request has one (`stdoutMaxBytes`, the
/// `execute()` generation), bytes: far above what the query prints (one line per session that holds
/// the pane's window), far below a runaway output.
pub const QUERY_STDOUT_MAX_BYTES: u32 = 1 << 20;

impl ExecutorApi {
  /// Whether the reading's source is the host's own kind, `{ kind: 'tmux-context', form, sections }`
  /// (declared in `MessageSourceMap` from upstream 0.1.7 on), rather than `{ kind: 'plugin', plugin:
  /// 'tmux-context', form, sections }`.
  pub fn own_source_kind(self) -> bool {
    self == ExecutorApi::Execute
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn run_wherever_it_is_there_else_execute() {
    use Member::*;
    assert_eq!(executor_api(Function, Absent), Some(ExecutorApi::Run));
    assert_eq!(executor_api(Function, Function), Some(ExecutorApi::Run), "rc.8 with an extra execute");
    assert_eq!(executor_api(Other, Function), Some(ExecutorApi::Run), "JS's words for a run that is not a function");
    assert_eq!(executor_api(Absent, Function), Some(ExecutorApi::Execute));
    assert_eq!(executor_api(Absent, Other), None);
    assert_eq!(executor_api(Absent, Absent), None);
    assert!(ExecutorApi::Execute.own_source_kind());
    assert!(!ExecutorApi::Run.own_source_kind());
  }
}
