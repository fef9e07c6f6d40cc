//! The sandbox policy the tmux query runs under: narrowed, never widened. Pure.
//!
//! A confining `ctx.shell` (the harness's `dsh-bash-sandbox`) stamps a policy `{ mode,
//! workspaceRoot, ... }` on the spec `resolve()` returns, and `run(spec)` confines by it. The query
//! only reads, so under the shipped `workspace-write` policy it asks for the same policy with mode
//! `read-only`: least privilege, and under bwrap the only way to see the tmux socket (the
//! `workspace-write` profile mounts a private tmpfs on `/tmp`; `read-only` binds `/` read-only,
//! `/tmp` included). `read-only` is already the narrowest mode the harness has, and
//! `danger-full-access` is left alone: an executor that does not confine is not made to start. An
//! unknown mode (a custom sandbox) is left alone too: we cannot tell whether `read-only` would be
//! narrower than it.

/// `SandboxMode` of `@deepseek-ai/dsh-sandbox`: no file writes.
pub const READ_ONLY: &str = "read-only";
/// `SandboxMode`: writes inside the workspace root (and, by backend, temporary areas).
pub const WORKSPACE_WRITE: &str = "workspace-write";
/// `SandboxMode`: not confined.
pub const DANGER_FULL_ACCESS: &str = "danger-full-access";

/// What to do with the policy a resolved spec carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrowing {
  /// Run the spec as the executor resolved it (no policy, or one we do not narrow).
  Keep,
  /// Resolve again with the same policy, this mode in place of its own.
  To(&'static str),
}

/// The narrowing for a spec whose `sandboxPolicy.mode` is `mode` (`None`: the spec has no policy,
/// or its mode is not a string).
pub fn narrowing_for(mode: Option<&str>) -> Narrowing {
  match mode {
    Some(WORKSPACE_WRITE) => Narrowing::To(READ_ONLY),
    _ => Narrowing::Keep,
  }
}

/// Whether a spec resolved for the narrowed request really carries the narrowed mode `wanted`.
/// An executor that ignores `request.sandboxPolicy` stamps its own policy again; then the spec of
/// the first `resolve()` runs, exactly as before (never a wider one).
pub fn honours(wanted: &str, resolved_mode: Option<&str>) -> bool {
  resolved_mode == Some(wanted)
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn workspace_write_narrows_to_read_only() {
    assert_eq!(narrowing_for(Some(WORKSPACE_WRITE)), Narrowing::To(READ_ONLY));
  }

  #[test]
  fn read_only_and_full_access_stay() {
    assert_eq!(narrowing_for(Some(READ_ONLY)), Narrowing::Keep);
    assert_eq!(narrowing_for(Some(DANGER_FULL_ACCESS)), Narrowing::Keep);
  }

  #[test]
  fn no_policy_or_unknown_mode_stays() {
    for mode in [None, Some(""), Some("custom-jail"), Some("Workspace-Write"), Some("workspace-write ")] {
      assert_eq!(narrowing_for(mode), Narrowing::Keep, "{mode:?}");
    }
  }

  #[test]
  fn never_widens() {
    // Whatever the mode, the result is either the mode itself (Keep) or read-only.
    for mode in [None, Some(READ_ONLY), Some(WORKSPACE_WRITE), Some(DANGER_FULL_ACCESS), Some("x")] {
      match narrowing_for(mode) {
        Narrowing::Keep => {}
        Narrowing::To(to) => assert_eq!(to, READ_ONLY),
      }
    }
  }

  #[test]
  fn a_re_resolved_spec_counts_only_with_the_narrowed_mode() {
    assert!(honours(READ_ONLY, Some(READ_ONLY)));
    assert!(!honours(READ_ONLY, Some(WORKSPACE_WRITE)));
    assert!(!honours(READ_ONLY, Some(DANGER_FULL_ACCESS)));
    assert!(!honours(READ_ONLY, None));
  }
}
