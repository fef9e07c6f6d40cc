//! How tmux's free text (a window name, a pane's command or directory) reaches the model: as a JSON
//! string, so that no text can end a line or pose as a field. Pure.

/// `JSON.stringify(text)` for a string: quotes, backslash and C0 controls escaped, as ECMAScript does.
pub fn json_quote(text: &str) -> String {
  serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn quotes_as_json_stringify_does() {
    assert_eq!(json_quote("editor"), "\"editor\"");
    assert_eq!(json_quote("a\"b\\c\nd\te\u{1}"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
    assert_eq!(json_quote("é ✓ \u{2028}"), "\"é ✓ \u{2028}\"", "non-ASCII as it is, as JSON.stringify");
  }
}
