//! What the plugin tells the host's logger (`ctx.logger`), word for word. Pure.

/// The warning logged when the executor throws or rejects; `reason` is the error's message.
pub fn query_failed_warning(reason: &str) -> String {
  format!("tmux location query failed: {reason}; injecting no location this turn")
}

/// The warning logged when anything else inside the listener fails (a thrown JS error, a panic).
pub fn listener_failed_warning(reason: &str) -> String {
  format!("tmux-context: pre-step failed: {reason}; passing the step through unchanged")
}
