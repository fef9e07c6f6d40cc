//! How tmux's free text (a window name, a pane's command or directory) reaches the model: as a JSON
//! string, so that no text can end a line or pose as a field. Pure.

/// `JSON.stringify(text)` for a string: quotes, backslash and C0 controls escaped, as ECMAScript does.
pub fn json_quote(text: &str) -> String {
  serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}
