//! Reading the executor's stdout back into an [`Answer`]: our own escaped record (then the
//! session's clients and the panes of the window or the session, as the [`Query`] asked, and the
//! winlinks of the pane, when its window is linked or its session grouped), or any other output exactly as the JS package reads it (then the plain roster
//! lines of a tmux before 2.9, when asked for). Pure; linear in the output's length.

use crate::bound::Keep;
use crate::command::{
  roster_fields, Ask, Query, Scope, CLIENTS_LINE_MARKER, CUT, CUT_MARKER, END_KEPT_CLOSE, ESCAPED_LINE_MARKER,
  FIELD_SEP, PANE_LINE_MARKER, PLAIN_MARKER, PLAIN_PANE_LINE_MARKER, WHOLE, WINLINK_LINE_MARKER,
};

/// One reading of where this process runs, as tmux prints the fields; whether tmux cut the free
/// texts at its own bound (`command.rs`) is told beside them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
  pub session_name: String,
  pub window_index: String,
  pub window_name: String,
  pub pane_index: String,
  pub pane_id: String,
  pub window_active: String,
  pub pane_active: String,
  pub window_layout: String,
  pub session_name_cut: bool,
  pub window_name_cut: bool,
}

/// One session's link to the pane's window: which session, at which index, and whether it is
/// that session's current window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Winlink {
  /// `#{session_id}` without its `$`.
  pub session_id: u64,
  pub session_name: String,
  pub window_index: String,
  pub window_active: String,
  pub session_name_cut: bool,
}

/// One pane of the agent's window (or session), its fields as tmux prints them (`list-panes`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pane {
  /// `#{pane_id}`: `%` and digits.
  pub id: String,
  /// `#{pane_index}`: digits.
  pub index: String,
  /// `#{pane_current_command}`: any text (a newline and a tab included).
  pub command: String,
  /// `#{pane_current_path}`: any text; absolute where tmux could read it.
  pub path: String,
  pub command_cut: bool,
  pub path_cut: bool,
  /// How its program ended, for a pane tmux keeps after it (`remain-on-exit`).
  pub ending: Ending,
  /// Its window, when the roster lists the session's panes.
  pub window: Option<PaneWindow>,
  /// The options asked for (`paneOptions`), in that order: each name and its value, empty where
  /// unset.
  pub options: Vec<(String, Text)>,
  /// Its title, when asked for (`paneTitles`); empty where it is tmux's default, the host name.
  pub title: Text,
}

/// A text tmux bounds (`command.rs`), and whether it cut it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
  pub text: String,
  pub cut: bool,
}

/// How a dead pane's program ended, as tmux tells it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Ending {
  /// Not dead.
  #[default]
  Running,
  /// Its exit status: 1 to 3 digits.
  Exited(String),
  /// The signal that killed it, as tmux prints it (from 3.3): 1 to 10 letters and digits.
  Killed(String),
  /// Dead, with no status or signal that reads (before 3.3 for a signal; up to 3.6 where tmux
  /// marks the pane dead before it knows the status).
  Unknown,
}

impl Ending {
  /// From `#{pane_dead}`, `#{pane_dead_status}` and `#{pane_dead_signal}`.
  fn of(dead: &str, status: &str, signal: &str) -> Ending {
    let signal_ok = (1..=10).contains(&signal.len()) && signal.bytes().all(|b| b.is_ascii_alphanumeric());
    let status_ok = (1..=3).contains(&status.len()) && status.bytes().all(|b| b.is_ascii_digit());
    match dead {
      "1" if signal_ok => Ending::Killed(signal.into()),
      "1" if status_ok => Ending::Exited(status.into()),
      "1" => Ending::Unknown,
      _ => Ending::Running,
    }
  }
}

/// A pane's window, in a roster of the session's panes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaneWindow {
  /// `#{window_index}`: digits.
  pub index: String,
  pub name: Text,
  /// Whether tmux names it after its active pane's command (`automatic-rename`).
  pub automatic_rename: bool,
}

/// The session's clients (`clients`): how many are attached, and how many show the agent's
/// window (`None` before tmux 3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clients {
  pub attached: u32,
  pub showing: Option<u32>,
}

/// What the query answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
  /// The location as `display-message -t $TMUX_PANE` names it: through the session of the
  /// group (or of the links) a client used last.
  pub location: Location,
  /// Whether tmux renames the window after its active pane's command (`automatic-rename`); `false`
  /// when unknown (output in the JS package's shape).
  pub automatic_rename: bool,
  /// Every session's link to the window (more than one for a linked window or a grouped
  /// session), from the same tmux command; empty when they do not all read, and in output of the
  /// JS package's shape.
  pub winlinks: Vec<Winlink>,
  /// The panes of the window, in tmux's order (by index), when the output held a roster that
  /// reads whole ([`check_roster`]); `None` without one (the query without `panes`, or output in
  /// the JS package's shape).
  pub panes: Option<Vec<Pane>>,
  /// The session's clients, when asked for and read.
  pub clients: Option<Clients>,
}

impl Answer {
  /// The location named by a rule that does not depend on client activity: among the sessions
  /// that hold the window, the one with the lowest id (the one created first: the group's original
  /// session, the window's own session); its window index and whether the window is its current
  /// one. Without winlinks, the location as tmux printed it.
  pub fn location(&self) -> Location {
    match self.winlinks.iter().min_by_key(|w| w.session_id) {
      Some(first) => Location {
        session_name: first.session_name.clone(),
        session_name_cut: first.session_name_cut,
        window_index: first.window_index.clone(),
        window_active: first.window_active.clone(),
        ..self.location.clone()
      },
      None => self.location.clone(),
    }
  }
}

fn location_from_parts<S: Into<String>>(parts: Vec<S>) -> Option<Location> {
  let [session_name, window_index, window_name, pane_index, pane_id, window_active, pane_active, window_layout]: [S;
    8] = parts.try_into().ok()?;
  let pane_id: String = pane_id.into();
  if pane_id.is_empty() {
    return None;
  }
  Some(Location {
    session_name: session_name.into(),
    window_index: window_index.into(),
    window_name: window_name.into(),
    pane_index: pane_index.into(),
    pane_id,
    window_active: window_active.into(),
    pane_active: pane_active.into(),
    window_layout: window_layout.into(),
    ..Location::default()
  })
}

/// The JS package's parse of one line: split on the two-character separator; exactly 8 parts.
fn parse_plain_line(line: &str) -> Option<Location> {
  let mut parts = Vec::with_capacity(8);
  for part in line.split(FIELD_SEP) {
    if parts.len() == 8 {
      return None;
    }
    parts.push(part);
  }
  location_from_parts(parts)
}

/// Takes the flag that follows a plain text (tmux 2.6 to 2.8) that tmux bounds (`command.rs`):
/// whether it was cut. `None` when the text holds no flag (output that is not our command's).
fn take_flag(text: &mut String) -> Option<bool> {
  match text.pop()? {
    WHOLE => Some(false),
    CUT => Some(true),
    _ => None,
  }
}

/// A plain location whose session and window names are followed by their flags ([`take_flag`]).
fn with_flags(mut location: Location) -> Option<Location> {
  location.session_name_cut = take_flag(&mut location.session_name)?;
  location.window_name_cut = take_flag(&mut location.window_name)?;
  Some(location)
}

/// Whether `text`, the start of a text tmux kept the end of, begins with the second half of an
/// escaped backslash (`q:` escapes, then tmux cuts). tmux escapes exactly these characters (2.9 to
/// 3.7c), each with one backslash, so a text cut on an escape's edge begins with a run of
/// backslashes one longer than it can be: the run before a character is pairs, and one more when
/// that character is escaped. Text not cut always reads as even, and so does a run that is cut by
/// the field's flag (never escaped).
fn starts_inside_an_escape(text: &str) -> bool {
  const ESCAPED: &str = "|&;<>()$`\\\"'*?[# =%";
  let run = text.bytes().take_while(|&b| b == b'\\').count();
  let escaped_next = text[run..].chars().next().is_some_and(|c| ESCAPED.contains(c));
  run > 0 && (run - usize::from(escaped_next)) % 2 == 1
}

/// Splits text escaped by tmux's `q:` modifier into exactly `count` fields: an unescaped `\t`
/// separates fields, `\x` stands for `x`. Ends at the end of the text or at a newline after the
/// last field; a newline inside an earlier field (a name holding one: `q:` leaves it raw up to
/// tmux 3.7c and escapes it after) makes it malformed. Returns the fields and the text after that
/// newline. One pass, linear.
fn split_escaped<'a>(text: &'a str, count: usize, bounds: Bounds) -> Option<(Vec<Text>, &'a str)> {
  match split_escaped_in(text, count, false, bounds)? {
    (fields, rest, Ended::Line) => Some((fields, rest)),
    (_, _, Ended::Separator) => None,
  }
}

/// Where a run of escaped fields ended: at a newline (or the end of the text), or at one more
/// unescaped separator after its last field.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
  Line,
  Separator,
}

/// For each field of a line, whether it is a text that tmux bounds (`command.rs`), and which end
/// it keeps: tmux then writes [`CUT_MARKER`] raw after the text (its start kept) or before it (its
/// end kept, the text then followed by [`END_KEPT_CLOSE`]) when it cut it. `q:` escapes every `$`
/// of a text, so only the marker holds a raw one.
type Bounds<'a> = &'a [Option<Keep>];

/// [`split_escaped`], where a newline inside a field before the last one is part of it when
/// `newlines_inside` (the roster's text: its last field is a pane id, which never holds one), and
/// the last field may end at a separator too (then the text after it is returned). A bounded field
/// ([`Bounds`]) loses its marker, and where tmux cut inside an escape (it escapes, then cuts), the
/// lone backslash left: at the end, the marker's first character escaped by it; at the start
/// ([`starts_inside_an_escape`]), skipped.
fn split_escaped_in<'a>(
  text: &'a str,
  count: usize,
  newlines_inside: bool,
  bounds: Bounds,
) -> Option<(Vec<Text>, &'a str, Ended)> {
  let keeps = |index: usize| bounds.get(index).copied().flatten();
  let mut fields: Vec<Text> = Vec::new();
  // Whether the current field's last character was an unescaped `$`.
  let mut raw_dollar = false;
  let mut chars = text.char_indices();
  // Starts field `fields.len()` at byte `from`: takes a marker and a lone backslash before its text.
  let begin = |fields: &mut Vec<Text>, chars: &mut std::str::CharIndices, from: usize| {
    let cut = keeps(fields.len()) == Some(Keep::End) && text[from..].starts_with(CUT_MARKER);
    if cut {
      let skip = CUT_MARKER.len() + usize::from(starts_inside_an_escape(&text[from + CUT_MARKER.len()..]));
      chars.nth(skip - 1);
    }
    fields.push(Text { text: String::new(), cut });
  };
  // Ends the current field: a raw `$` last is the marker after a text whose start tmux kept; a
  // text whose end tmux kept ends with [`END_KEPT_CLOSE`].
  let end = |fields: &mut Vec<Text>, raw_dollar: bool| -> Option<()> {
    let index = fields.len() - 1;
    let field = fields.last_mut()?;
    match keeps(index) {
      Some(Keep::Start) if raw_dollar => {
        field.text.pop();
        field.text.pop()?;
        field.cut = true;
      }
      Some(Keep::End) if field.text.pop()? != END_KEPT_CLOSE => return None,
      _ => {}
    }
    Some(())
  };
  begin(&mut fields, &mut chars, 0);
  while let Some((at, c)) = chars.next() {
    let mut raw = false;
    match c {
      '\\' => match chars.next() {
        Some((_, 't')) => {
          end(&mut fields, raw_dollar)?;
          if fields.len() == count {
            return Some((fields, &text[at + 2..], Ended::Separator));
          }
          begin(&mut fields, &mut chars, at + 2);
        }
        // tmux after 3.7c escapes a newline too (its master, d57d75de): still malformed.
        Some((_, '\n')) if !newlines_inside => return None,
        Some((_, other)) => fields.last_mut()?.text.push(other),
        None => fields.last_mut()?.text.push('\\'),
      },
      '\n' if fields.len() == count => {
        end(&mut fields, raw_dollar)?;
        return Some((fields, &text[at + 1..], Ended::Line));
      }
      '\n' if newlines_inside => fields.last_mut()?.text.push('\n'),
      '\n' => return None,
      other => {
        raw = other == '$';
        fields.last_mut()?.text.push(other);
      }
    }
    raw_dollar = raw;
  }
  end(&mut fields, raw_dollar)?;
  (fields.len() == count).then_some((fields, "", Ended::Line))
}

/// The texts of `fields`, where whether tmux cut them is read apart or not at all.
fn texts(fields: Vec<Text>) -> Vec<String> {
  fields.into_iter().map(|f| f.text).collect()
}

/// One winlink line: `<marker>\t$<id>\t<index>\t<active>\t<q:session_name>\t$<id>`; the id again
/// at the end proves the line whole.
fn parse_winlink(line: &str) -> Option<Winlink> {
  let rest = line.strip_prefix(WINLINK_LINE_MARKER)?.strip_prefix(FIELD_SEP)?;
  let (fields, after) = split_escaped(rest, 5, &[None, None, None, Some(Keep::Start), None])?;
  let session_name_cut = fields.get(3)?.cut;
  let [id, window_index, window_active, session_name, id_again]: [String; 5] = texts(fields).try_into().ok()?;
  if id != id_again {
    return None;
  }
  let session_id = id.strip_prefix('$')?.parse().ok()?;
  (after.is_empty()).then_some(Winlink { session_id, session_name, window_index, window_active, session_name_cut })
}

/// Which end of each roster field tmux keeps, for those it bounds ([`Bounds`]).
fn roster_bounds(query: &Query) -> Vec<Option<Keep>> {
  let keeps = |ask: &Ask| match ask {
    Ask::Cut(keep, _) => Some(*keep),
    Ask::Command => Some(Keep::Start),
    Ask::Title => Some(Keep::Start),
    Ask::Plain | Ask::Quoted => None,
  };
  roster_fields(query).iter().map(|(_, ask)| keeps(ask)).collect()
}

/// A pane from its roster fields, as [`roster_fields`] lists them for `query` (the pane id again
/// last: the proof that the entry is whole).
fn pane_from_fields(fields: Vec<Text>, query: &Query) -> Option<Pane> {
  if fields.len() != roster_fields(query).len() {
    return None;
  }
  let mut fields = fields.into_iter();
  let mut next = || fields.next().unwrap_or_default();
  let (id, index, command, path) = (next().text, next().text, next(), next());
  let (dead, status, signal) = (next().text, next().text, next().text);
  let window = (query.panes == Scope::Session).then(|| PaneWindow {
    index: next().text,
    name: next(),
    automatic_rename: next().text == "1",
  });
  let options = query.option_names().map(|name| (name.clone(), next())).collect();
  let title = if query.pane_titles { next() } else { Text::default() };
  (next().text == id).then(|| Pane {
    id,
    index,
    command: command.text,
    path: path.text,
    command_cut: command.cut,
    path_cut: path.cut,
    ending: Ending::of(&dead, &status, &signal),
    window,
    options,
    title,
  })
}

/// The escaped roster entries at the start of `text` (from tmux 2.9 on), and the text after them.
/// An entry ends at the newline after its last field, the pane id again; a newline inside its
/// command or directory is part of it, and no text can hold an unescaped separator, so no text
/// can end an entry or start another. `None` for an entry that does not read whole.
fn read_escaped_roster<'a>(mut text: &'a str, query: &Query) -> Option<(Vec<Pane>, &'a str)> {
  let bounds = roster_bounds(query);
  let mut panes = Vec::new();
  while let Some(entry) = text.strip_prefix(PANE_LINE_MARKER).and_then(|r| r.strip_prefix(FIELD_SEP)) {
    let (fields, after) = match split_escaped_in(entry, bounds.len(), true, &bounds)? {
      (fields, after, Ended::Line) => (fields, after),
      (_, _, Ended::Separator) => return None,
    };
    panes.push(pane_from_fields(fields, query)?);
    text = after;
  }
  Some((panes, text))
}

/// One plain roster line (tmux 2.6 to 2.8): the marker, then exactly the fields of
/// [`roster_fields`] split on the separator, each text tmux bounds followed by its flag
/// ([`take_flag`]; a title tmux left out, empty, has none).
fn parse_plain_pane(line: &str, query: &Query) -> Option<Pane> {
  let rest = line.strip_prefix(PLAIN_PANE_LINE_MARKER)?.strip_prefix(FIELD_SEP)?;
  let bounds = roster_bounds(query);
  let fields = rest.split(FIELD_SEP).zip(bounds.iter().chain(std::iter::repeat(&None)));
  let fields = fields.map(|(text, keep)| {
    let mut text = text.to_string();
    let cut = if keep.is_some() && !text.is_empty() { take_flag(&mut text)? } else { false };
    Some(Text { text, cut })
  });
  pane_from_fields(fields.collect::<Option<Vec<_>>>()?, query)
}

/// A roster as the model may read it: one pane at least, each id `%` and digits and found once,
/// each index digits, and the agent's own pane among them. Plain roster lines (no `q:`) can be
/// trusted this way only: a command or a directory holding a newline or the two characters `\t`
/// leaves a line that does not read whole, or a second line for a pane (a line can only end in the
/// id of the pane whose entry it ends), and a session or window name holding a newline leaves a
/// line that ends in the window layout. So every line must read whole, or there is no roster.
fn check_roster(panes: Vec<Pane>, own_pane_id: &str) -> Option<Vec<Pane>> {
  let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
  let mut ids = std::collections::HashSet::new();
  let well_formed =
    panes.iter().all(|p| p.id.strip_prefix('%').is_some_and(digits) && digits(&p.index) && ids.insert(p.id.as_str()));
  (well_formed && ids.contains(own_pane_id)).then_some(panes)
}

/// Parses the executor's stdout. Our own command's output (it starts with the marker) is read as
/// one escaped record, then the roster entries (with `panes`), then its winlink lines (the empty
/// lines of the other panes between them left out); a name holding a newline makes it malformed,
/// since a reading keeps to three lines; winlink lines that do not all read are left out (the
/// location is then the one tmux printed), and so is a roster that does not read whole (and then
/// the winlinks after it). A tmux before 2.9 (no `q:`: the escaped fields empty) adds the plain
/// fields to the record, read exactly as the JS package reads a line, and prints plain roster
/// lines. Any other output is read exactly as the JS package reads it: its first line split on
/// `\t`, exactly 8 parts, non-empty pane id; the lines after it are a roster (a tmux before 2.9,
/// with `panes`) only when every one reads whole. One pass over the output: linear in its length.
pub fn parse_output(stdout: &str, query: &Query) -> Option<Answer> {
  let Some(record) = stdout.strip_prefix(ESCAPED_LINE_MARKER).and_then(|r| r.strip_prefix(FIELD_SEP)) else {
    return parse_plain(stdout, false, query);
  };
  let start = Some(Keep::Start);
  let (mut fields, rest, ended) = split_escaped_in(record, 9, false, &[start, None, start])?;
  let automatic_rename = fields.pop()?.text == "1";
  if ended == Ended::Separator {
    // Before tmux 2.9: the plain fields after their marker, read as the JS package reads them.
    return parse_plain(rest.strip_prefix(PLAIN_MARKER)?.strip_prefix(FIELD_SEP)?, true, query);
  }
  let (session_name_cut, window_name_cut) = (fields[0].cut, fields[2].cut);
  let location = Location { session_name_cut, window_name_cut, ..location_from_parts(texts(fields))? };
  let (clients, rest) = read_clients(rest, query);
  let (panes, rest) = match (query.panes, read_escaped_roster(rest, query)) {
    (Scope::Off, _) => (None, rest),
    (_, Some((panes, rest))) if panes.is_empty() => (None, rest),
    (_, Some((panes, rest))) => (check_roster(panes, &location.pane_id), rest),
    (_, None) => (None, ""),
  };
  let mut lines = rest.split_terminator('\n').filter(|line| !line.is_empty());
  let winlinks = lines.try_fold(Vec::new(), |mut all, line| {
    all.push(parse_winlink(line)?);
    Some(all)
  });
  Some(Answer { location, automatic_rename, winlinks: winlinks.unwrap_or_default(), panes, clients })
}

/// The clients line at the start of `text` (with `clients`): `<marker>\t<attached>\t<showing>`, the
/// second empty before tmux 3.1; and the text after it. `None` for the clients when it does not
/// read (the text after it is still read).
fn read_clients<'a>(text: &'a str, query: &Query) -> (Option<Clients>, &'a str) {
  let Some(line) = text.strip_prefix(CLIENTS_LINE_MARKER).filter(|_| query.clients) else { return (None, text) };
  let (line, rest) = line.split_once('\n').unwrap_or((line, ""));
  let count = |s: &str| s.parse::<u32>().ok().filter(|_| s.bytes().all(|b| b.is_ascii_digit()));
  let clients = line.strip_prefix(FIELD_SEP).and_then(|line| {
    let (attached, showing) = line.split_once(FIELD_SEP)?;
    let showing = if showing.is_empty() { None } else { Some(count(showing)?) };
    Some(Clients { attached: count(attached)?, showing })
  });
  (clients, rest)
}

/// Output in the JS package's shape: its first line split on `\t`, then plain roster lines, read
/// only when every one reads whole (the empty lines `list-panes -a` prints for other panes before
/// tmux 2.9 left out: a line a newline split always ends in a pane id, so none is empty). `ours`:
/// our command's plain record (tmux 2.6 to 2.8), its names followed by their flags, then the
/// clients line when asked for.
fn parse_plain(text: &str, ours: bool, query: &Query) -> Option<Answer> {
  let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
  let location = parse_plain_line(first)?;
  let location = if ours { with_flags(location)? } else { location };
  let (clients, rest) = if ours { read_clients(rest, query) } else { (None, rest) };
  let lines: Vec<&str> = rest.split_terminator('\n').filter(|line| !line.is_empty()).collect();
  let asked = query.panes != Scope::Off && !lines.is_empty();
  let panes = if asked { lines.into_iter().map(|l| parse_plain_pane(l, query)).collect() } else { None };
  let panes = panes.and_then(|panes| check_roster(panes, &location.pane_id));
  Some(Answer { location, automatic_rename: false, winlinks: Vec::new(), panes, clients })
}

#[cfg(test)]
pub(crate) mod tests {
  use super::*;
  use proptest::prelude::*;

  /// The query of `panes: true`, without the other keys.
  pub const WINDOW: Query =
    Query { panes: Scope::Window, pane_options: Vec::new(), pane_titles: false, clients: false };

  pub fn loc(session: &str, window: &str) -> Location {
    Location {
      session_name: session.into(),
      window_index: "1".into(),
      window_name: window.into(),
      pane_index: "0".into(),
      pane_id: "%3".into(),
      window_active: "1".into(),
      pane_active: "1".into(),
      window_layout: "b25f,80x24,0,0,3".into(),
      ..Location::default()
    }
  }

  fn plain_line(l: &Location) -> String {
    [
      &l.session_name,
      &l.window_index,
      &l.window_name,
      &l.pane_index,
      &l.pane_id,
      &l.window_active,
      &l.pane_active,
      &l.window_layout,
    ]
    .map(|s| s.as_str())
    .join("\\t")
  }

  /// What tmux's `q:` modifier does to a name (format_quote_shell).
  fn tmux_q(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
      if "|&;<>()$`\\\"'*?[# =%".contains(c) {
        out.push('\\');
      }
      out.push(c);
    }
    out
  }

  /// What tmux prints for a text our command asks it to bound, when it is whole: escaped.
  pub fn tmux_text(s: &str) -> String {
    tmux_q(s)
  }

  /// The same for a text whose end is kept (a directory): escaped, then closed.
  pub fn tmux_end_kept(s: &str) -> String {
    format!("{}{END_KEPT_CLOSE}", tmux_q(s))
  }

  /// What our command prints for `l`, as tmux would expand it.
  fn our_output(l: &Location) -> String {
    let escaped = Location {
      session_name: tmux_text(&l.session_name),
      window_name: tmux_text(&l.window_name),
      pane_id: tmux_q(&l.pane_id),
      ..l.clone()
    };
    format!("{}\\t{}\\t0\n", ESCAPED_LINE_MARKER, plain_line(&escaped))
  }

  /// The location our parse reads from `out`, after the winlink rule.
  fn read(out: &str) -> Option<Location> {
    parse_output(out, &WINDOW).map(|answer| answer.location())
  }

  fn winlink_line(id: u64, index: &str, active: &str, name: &str) -> String {
    format!("{WINLINK_LINE_MARKER}\\t${id}\\t{index}\\t{active}\\t{}\\t${id}\n", tmux_text(name))
  }

  #[test]
  fn reads_automatic_rename() {
    let l = loc("s", "w");
    let on = our_output(&l).replace("\\t0\n", "\\t1\n");
    assert!(parse_output(&on, &WINDOW).unwrap().automatic_rename);
    assert!(!parse_output(&our_output(&l), &WINDOW).unwrap().automatic_rename);
    assert!(!parse_output(&plain_line(&l), &WINDOW).unwrap().automatic_rename, "unknown in the JS shape");
  }

  #[test]
  fn a_linked_or_grouped_window_is_named_by_its_lowest_session_id() {
    let l = loc("view", "w");
    let out =
      format!("{}{}{}", our_output(&l), winlink_line(3, "0", "1", "view"), winlink_line(0, "4", "0", "main \\ \"x\""));
    let read = read(&out).unwrap();
    assert_eq!(read.session_name, "main \\ \"x\"");
    assert_eq!(read.window_index, "4");
    assert_eq!(read.window_active, "0");
    assert_eq!(read.window_name, "w");
  }

  #[test]
  fn a_session_name_holding_a_newline_cannot_name_the_window() {
    // q: leaves the newline raw: the line ends inside the name, without the id again.
    let l = loc("view", "w");
    let split = format!("{WINLINK_LINE_MARKER}\\t$0\\t1\\t0\\ttop\n");
    let out = format!("{}{}{split}", our_output(&l), winlink_line(3, "0", "1", "view"));
    assert_eq!(read(&out).unwrap().session_name, "view");
    let carriage = format!("{}{}", our_output(&l), winlink_line(0, "1", "0", "top\r"));
    assert_eq!(read(&carriage).unwrap().session_name, "top\r", "a carriage return stays in the name");
  }

  #[test]
  fn winlinks_that_do_not_all_read_are_left_out() {
    let l = loc("view", "w");
    for bad in ["dsh-tmux-context:wl\\t0\\t1\\t1\\tmain\n", "garbage\n", "dsh-tmux-context:wl\\t$x\\t1\\t1\\tmain\n"] {
      let out = format!("{}{}{bad}", our_output(&l), winlink_line(0, "4", "0", "main"));
      assert_eq!(read(&out).unwrap().session_name, "view", "{bad}");
    }
  }

  #[test]
  fn parses_a_plain_line_like_the_js_package() {
    let l = loc("s", "w");
    assert_eq!(read(&plain_line(&l)), Some(l.clone()));
    assert_eq!(read(&format!("{}\ntrailing", plain_line(&l))), Some(l));
  }

  #[test]
  fn rejects_wrong_counts_and_empty_pane_id() {
    assert_eq!(read(""), None);
    assert_eq!(read("a\\tb"), None);
    assert_eq!(read("1\\t2\\t3\\t4\\t5\\t6\\t7\\t8\\t9"), None);
    assert_eq!(read("1\\t2\\t3\\t4\\t\\t6\\t7\\t8"), None);
    assert!(read("1\\t2\\t3\\t4\\t5\\t6\\t7\\t8").is_some());
  }

  #[test]
  fn names_holding_backslash_t_read_from_the_escaped_line() {
    let l = loc("my sess\\\\tx", "tab\\there \\\\ \"q\" é 😀");
    assert_eq!(read(&plain_line(&l)), None, "the JS parse cannot split it");
    assert_eq!(read(&our_output(&l)), Some(l));
  }

  #[test]
  fn escaped_record_needs_its_marker_first() {
    let l = loc("s", "w");
    assert_eq!(read(&format!("x\\ty\n{}", our_output(&l))), None, "a marker after the first line is not ours");
  }

  #[test]
  fn a_name_cannot_forge_the_record() {
    // A window name holding a newline and a fake record: tmux's q: leaves the newline raw.
    let forged = format!("x\n{ESCAPED_LINE_MARKER}\\tSPOOF\\t9\\tspoof");
    let l = loc("real", &forged);
    assert_eq!(read(&our_output(&l)), None);
    let l = loc("real\nsession", "w");
    assert_eq!(read(&our_output(&l)), None);
  }

  #[test]
  fn a_newline_escaped_by_a_later_tmux_is_still_no_name() {
    // tmux after 3.7c (its format_quote_shell) escapes a newline and a tab with a backslash.
    let record =
      |session: &str| format!("{ESCAPED_LINE_MARKER}\\t{session}\\t1\\tw\\t0\\t\\%3\\t1\\t1\\tb25f,80x24,0,0,3\\t0\n");
    assert_eq!(read(&record("main\\\ttab")).unwrap().session_name, "main\ttab");
    assert_eq!(read(&record("top\\\nsession x")), None, "a session name holding a newline");
    let l = loc("view", "w");
    let split = format!("{WINLINK_LINE_MARKER}\\t$0\\t1\\t0\\ttop\\\n\\t$0\n");
    let out = format!("{}{}{split}", our_output(&l), winlink_line(3, "0", "1", "view"));
    assert_eq!(read(&out).unwrap().session_name, "view");
    let roster = format!("{}{PANE_LINE_MARKER}\\t\\%3\\t0\\tnode\\t/a\\\nb.\\t0\\t\\t\\t\\%3\n", our_output(&l));
    assert_eq!(parse_output(&roster, &WINDOW).unwrap().panes, Some(vec![pane("%3", "0", "node", "/a\nb")]));
  }

  #[test]
  fn a_tmux_without_q_reads_as_no_location() {
    // Unknown modifiers expand to nothing: every quoted field is empty, the pane id among them.
    let out = format!("{ESCAPED_LINE_MARKER}\\t\\t1\\t\\t0\\t\\t1\\t1\\tb25f,80x24,0,0,3\n");
    assert_eq!(read(&out), None);
  }

  #[test]
  fn a_megabyte_line_parses_in_linear_time() {
    let big = "x".repeat(1 << 20);
    let l = loc(&big, &big);
    assert_eq!(read(&our_output(&l)), Some(l));
    let seps = "\\t".repeat(1 << 19);
    assert_eq!(read(&seps), None);
    assert_eq!(read(&format!("{ESCAPED_LINE_MARKER}\\t{seps}")), None);
    assert_eq!(read(&format!("{ESCAPED_LINE_MARKER}\\t{}", "\\".repeat(1 << 20))), None);
  }

  pub fn field() -> impl Strategy<Value = String> {
    prop_oneof![
      "[a-z0-9 ]{0,8}",
      any::<String>(),
      prop::collection::vec(
        prop::sample::select(vec!["\\", "t", "\\t", "\"", "'", " ", "é", "😀", "\u{2028}", "\u{1}", "%", "$"]),
        0..10
      )
      .prop_map(|v| v.concat()),
    ]
  }

  pub fn location() -> impl Strategy<Value = Location> {
    (field(), "[0-9]{1,3}", field(), "[0-9]{1,2}", "%[0-9]{1,3}", "[01]", "[01]", "[a-f0-9]{4},[0-9x,{}\\[\\]]{0,20}")
      .prop_map(|(s, wi, w, pi, pid, wa, pa, lay)| Location {
        session_name: s.replace('\n', " "),
        window_index: wi,
        window_name: w.replace('\n', " "),
        pane_index: pi,
        pane_id: pid,
        window_active: wa,
        pane_active: pa,
        window_layout: lay,
        ..Location::default()
      })
  }

  proptest! {
    #[test]
    fn parse_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
      let text = String::from_utf8_lossy(&bytes);
      let _ = read(&text);
    }

    #[test]
    fn parse_never_panics_on_line_shapes(parts in prop::collection::vec(field(), 0..12), second in prop::option::of(prop::collection::vec(field(), 0..12))) {
      let mut text = parts.join("\\t");
      if let Some(second) = second {
        text = format!("{ESCAPED_LINE_MARKER}\\t{}\n{text}", second.join("\\t"));
      }
      let _ = read(&text);
    }

    #[test]
    fn our_output_round_trips_any_location(l in location()) {
      prop_assert_eq!(read(&our_output(&l)), Some(l));
    }

    #[test]
    fn names_with_newlines_never_read(l in location(), at in 0usize..2) {
      let l = if at == 0 { Location { session_name: format!("{}\n", l.session_name), ..l } } else { Location { window_name: format!("a\n{}", l.window_name), ..l } };
      prop_assert_eq!(read(&our_output(&l)), None);
    }

    #[test]
    fn plain_lines_parse_exactly_as_the_js_split(parts in prop::collection::vec(field(), 0..12)) {
      let parts: Vec<String> = parts.into_iter().map(|p| p.replace('\n', "")).collect();
      let line = parts.join("\\t");
      // JS: line.split('\\t') then exactly 8 parts and a non-empty pane id.
      let js: Vec<&str> = line.split("\\t").collect();
      let expected = if js.len() == 8 && !js[4].is_empty() { location_from_parts(js) } else { None };
      // Without our marker first, ours must agree exactly.
      prop_assume!(!line.starts_with(ESCAPED_LINE_MARKER));
      prop_assert_eq!(read(&line), expected);
    }
  }

  #[test]
  fn a_line_or_an_entry_with_a_field_too_many_does_not_read() {
    let l = loc("s", "w");
    let extra = format!("{WINLINK_LINE_MARKER}\\t$0\\t1\\t1\\tmain\\t$0\\tmore\n");
    assert_eq!(parse_output(&format!("{}{extra}", our_output(&l)), &WINDOW).unwrap().winlinks, []);
    let entry = format!("{PANE_LINE_MARKER}\\t\\%3\\t0\\tsh\\t/.\\t0\\t\\t\\t\\%3\\tmore\n");
    assert_eq!(parse_output(&format!("{}{entry}", our_output(&l)), &WINDOW).unwrap().panes, None);
  }

  #[test]
  fn a_trailing_backslash_is_kept_and_a_winlink_must_end_with_its_own_id() {
    let (fields, rest) = split_escaped("a\\tb\\", 2, &[]).expect("two fields");
    assert_eq!((texts(fields), rest), (vec!["a".to_string(), "b\\".to_string()], ""));
    let line = |last: &str| {
      format!("{WINLINK_LINE_MARKER}{FIELD_SEP}$1{FIELD_SEP}0{FIELD_SEP}1{FIELD_SEP}main{FIELD_SEP}{last}")
    };
    assert!(parse_winlink(&line("$1")).is_some());
    assert_eq!(parse_winlink(&line("$2")), None, "a line cut and joined to another");
  }

  /// What tmux 3.3a printed for the query with `panes` (its `$out`; each directory then closed by
  /// the `.` that tmux now prints after a text whose end it keeps), captured from a private
  /// server: window 0 "editor" of session "main", the agent in pane %0 (`~/proj`), a shell in %1
  /// (`~/proj/src`), and in %4 a `sleep` in a directory named `we ird"q\t<tab>tab<newline>nl
  /// #{pane_id} $x;%`.
  pub const RAW_3_3A: &str = concat!(
    "/dev/pts/0\\tdsh-tmux-context:q2\\tmain\\t0\\teditor\\t0\\t\\%0\\t1\\t1\\tb06f,160x40,0,0{80x40,0,0,0,79x40,81,0[79x20,81,0,1,79x19,81,21,4]}\\t0\n",
    "dsh-tmux-context:pq\\t\\%0\\t0\\tsleep\\t/root/proj.\\t0\\t\\t\\t\\%0\n",
    "dsh-tmux-context:pq\\t\\%1\\t1\\tsh\\t/root/proj/src.\\t0\\t\\t\\t\\%1\n",
    "dsh-tmux-context:pq\\t\\%4\\t2\\tsleep\\t/tmp/we\\ ird\\\"q\\\\t\ttab\n",
    "nl\\ \\#{pane_id}\\ \\$x\\;\\%.\\t0\\t\\t\\t\\%4\n",
    "dsh-tmux-context:wl\\t$0\\t0\\t1\\tmain\\t$0",
  );

  /// What the command printed from [`RAW_3_3A`] (run against that server).
  pub const PRINTED_3_3A: &str = concat!(
    "dsh-tmux-context:q2\\tmain\\t0\\teditor\\t0\\t\\%0\\t1\\t1\\tb06f,160x40,0,0{80x40,0,0,0,79x40,81,0[79x20,81,0,1,79x19,81,21,4]}\\t0\n",
    "dsh-tmux-context:pq\\t\\%0\\t0\\tsleep\\t/root/proj.\\t0\\t\\t\\t\\%0\n",
    "dsh-tmux-context:pq\\t\\%1\\t1\\tsh\\t/root/proj/src.\\t0\\t\\t\\t\\%1\n",
    "dsh-tmux-context:pq\\t\\%4\\t2\\tsleep\\t/tmp/we\\ ird\\\"q\\\\t\ttab\n",
    "nl\\ \\#{pane_id}\\ \\$x\\;\\%.\\t0\\t\\t\\t\\%4\n",
    "dsh-tmux-context:wl\\t$0\\t0\\t1\\tmain\\t$0\n",
  );

  /// The odd directory of [`RAW_3_3A`].
  pub const ODD_DIR: &str = "/tmp/we ird\"q\\t\ttab\nnl #{pane_id} $x;%";

  /// What the command printed from tmux 3.3a with the same window linked into a second session
  /// "view" at index 5 (the odd pane closed): the roster, then the winlinks.
  pub const PRINTED_3_3A_LINKED: &str = concat!(
    "dsh-tmux-context:q2\\tview\\t5\\teditor\\t0\\t\\%0\\t1\\t1\\t033f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\\t0\n",
    "dsh-tmux-context:pq\\t\\%0\\t0\\tsleep\\t/root/proj.\\t0\\t\\t\\t\\%0\n",
    "dsh-tmux-context:pq\\t\\%1\\t1\\tsh\\t/root/proj/src.\\t0\\t\\t\\t\\%1\n",
    "dsh-tmux-context:wl\\t$0\\t0\\t1\\tmain\\t$0\n",
    "\n",
    "dsh-tmux-context:wl\\t$1\\t5\\t1\\tview\\t$1\n",
  );

  /// What tmux 2.6 (built from its tag) printed for the query with `panes` (each plain text then
  /// followed by the `.` that now says tmux printed it whole), the same window (no
  /// `q:`: the escaped fields empty, then the plain fields and the plain roster lines), as recorded
  /// before one tmux command answered everything, with the field `sh` no longer reads taken out and
  /// the empty lines that `list-panes -a` prints for the other panes added.
  pub const RAW_2_6_ODD: &str = concat!(
    "/dev/pts/8\\tdsh-tmux-context:q2\\t\\t0\\t\\t0\\t\\t1\\t1\\t306f,160x40,0,0{80x40,0,0,0,79x40,81,0[79x20,81,0,1,79x19,81,21,2]}\\t0\\tdsh-tmux-context:plain\\tmain.\\t0\\teditor.\\t0\\t%0\\t1\\t1\\t306f,160x40,0,0{80x40,0,0,0,79x40,81,0[79x20,81,0,1,79x19,81,21,2]}\n",
    "dsh-tmux-context:pp\\t%0\\t0\\tsleep.\\t/root/proj.\\t0\\t\\t\\t%0\n",
    "dsh-tmux-context:pp\\t%1\\t1\\tsh.\\t/root/proj/src.\\t0\\t\\t\\t%1\n",
    "dsh-tmux-context:pp\\t%2\\t2\\tsleep.\\t/tmp/we ird\"q\\t\ttab\n",
    "nl #{pane_id} $x;%.\\t0\\t\\t\\t%2\n",
    "\n\n",
  );

  /// What the command printed from [`RAW_2_6_ODD`].
  pub const PRINTED_2_6_ODD: &str = concat!(
    "dsh-tmux-context:q2\\t\\t0\\t\\t0\\t\\t1\\t1\\t306f,160x40,0,0{80x40,0,0,0,79x40,81,0[79x20,81,0,1,79x19,81,21,2]}\\t0\\tdsh-tmux-context:plain\\tmain.\\t0\\teditor.\\t0\\t%0\\t1\\t1\\t306f,160x40,0,0{80x40,0,0,0,79x40,81,0[79x20,81,0,1,79x19,81,21,2]}\n",
    "dsh-tmux-context:pp\\t%0\\t0\\tsleep.\\t/root/proj.\\t0\\t\\t\\t%0\n",
    "dsh-tmux-context:pp\\t%1\\t1\\tsh.\\t/root/proj/src.\\t0\\t\\t\\t%1\n",
    "dsh-tmux-context:pp\\t%2\\t2\\tsleep.\\t/tmp/we ird\"q\\t\ttab\n",
    "nl #{pane_id} $x;%.\\t0\\t\\t\\t%2\n",
  );

  /// tmux 2.6 once the odd pane was closed.
  pub const RAW_2_6: &str = concat!(
    "/dev/pts/8\\tdsh-tmux-context:q2\\t\\t0\\t\\t0\\t\\t1\\t1\\t033f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\\t0\\tdsh-tmux-context:plain\\tmain.\\t0\\teditor.\\t0\\t%0\\t1\\t1\\t033f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\n",
    "dsh-tmux-context:pp\\t%0\\t0\\tsleep.\\t/root/proj.\\t0\\t\\t\\t%0\n",
    "dsh-tmux-context:pp\\t%1\\t1\\tsh.\\t/root/proj/src.\\t0\\t\\t\\t%1\n",
    "\n",
  );

  /// What the command printed from [`RAW_2_6`].
  pub const PRINTED_2_6: &str = concat!(
    "dsh-tmux-context:q2\\t\\t0\\t\\t0\\t\\t1\\t1\\t033f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\\t0\\tdsh-tmux-context:plain\\tmain.\\t0\\teditor.\\t0\\t%0\\t1\\t1\\t033f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\n",
    "dsh-tmux-context:pp\\t%0\\t0\\tsleep.\\t/root/proj.\\t0\\t\\t\\t%0\n",
    "dsh-tmux-context:pp\\t%1\\t1\\tsh.\\t/root/proj/src.\\t0\\t\\t\\t%1\n",
  );

  pub fn pane(id: &str, index: &str, command: &str, path: &str) -> Pane {
    Pane { id: id.into(), index: index.into(), command: command.into(), path: path.into(), ..Pane::default() }
  }

  /// The two panes of the closed-odd-pane fixtures.
  fn two_panes() -> Vec<Pane> {
    vec![pane("%0", "0", "sleep", "/root/proj"), pane("%1", "1", "sh", "/root/proj/src")]
  }

  #[test]
  fn reads_the_roster_real_tmux_printed() {
    let answer = parse_output(PRINTED_3_3A, &WINDOW).expect("reads");
    assert_eq!(answer.location.session_name, "main");
    assert_eq!(answer.location.pane_id, "%0");
    assert_eq!(answer.winlinks.len(), 1, "the pane's own session, from the same tmux command");
    let mut panes = two_panes();
    panes.push(pane("%4", "2", "sleep", ODD_DIR));
    assert_eq!(answer.panes, Some(panes), "an odd directory reads exactly, its newline and tab included");

    let linked = parse_output(PRINTED_3_3A_LINKED, &WINDOW).expect("reads");
    assert_eq!(linked.panes, Some(two_panes()));
    assert_eq!(linked.winlinks.len(), 2, "the winlinks after the roster");
    assert_eq!((linked.location().session_name.as_str(), linked.location().window_index.as_str()), ("main", "0"));
  }

  #[test]
  fn reads_the_plain_roster_of_tmux_2_6_only_whole() {
    let answer = parse_output(PRINTED_2_6, &WINDOW).expect("reads");
    assert_eq!(
      answer.location,
      Location {
        window_index: "0".into(),
        window_name: "editor".into(),
        pane_id: "%0".into(),
        window_layout: "033f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}".into(),
        ..loc("main", "editor")
      }
    );
    assert_eq!(answer.panes, Some(two_panes()));
    let odd = parse_output(PRINTED_2_6_ODD, &WINDOW).expect("the location still reads");
    assert_eq!(odd.location.session_name, "main");
    assert_eq!(odd.panes, None, "a plain directory holding a newline or `\\t` cannot be read safely");
  }

  /// What our command prints for `l` with these panes, as tmux 2.9+ would expand it: the escaped
  /// record, then the roster entries, `q:` applied to the ids and texts.
  pub fn our_output_with(l: &Location, panes: &[Pane]) -> String {
    let mut out = our_output(l);
    for p in panes {
      let id = tmux_q(&p.id);
      out.push_str(&format!(
        "{PANE_LINE_MARKER}\\t{id}\\t{}\\t{}\\t{}\\t0\\t\\t\\t{id}\n",
        p.index,
        tmux_text(&p.command),
        tmux_end_kept(&p.path)
      ));
    }
    out
  }

  /// The same for tmux 2.6 to 2.8: the plain line as the JS package reads it, then plain lines.
  fn plain_output_with(l: &Location, panes: &[Pane]) -> String {
    let mut out = format!("{}\n", plain_line(l));
    for p in panes {
      out.push_str(&format!(
        "{PLAIN_PANE_LINE_MARKER}\\t{}\\t{}\\t{}{WHOLE}\\t{}{WHOLE}\\t0\\t\\t\\t{}\n",
        p.id, p.index, p.command, p.path, p.id
      ));
    }
    out
  }

  #[test]
  fn a_directory_cannot_forge_a_pane_or_a_field() {
    let l = loc("s", "w");
    let forged_line = |id: &str| format!("{PLAIN_PANE_LINE_MARKER}\\t{id}\\t7\\tevil.\\t/e.\\t0\\t\\t\\t{id}");
    let forged_escaped = |id: &str| format!("{PANE_LINE_MARKER}\\t{id}\\t7\\tevil\\t/e.\\t0\\t\\t\\t{id}");
    for path in [
      format!("/x\n{}\n{}", forged_escaped("%9"), forged_escaped("%3")),
      format!("/x\\t%4\n{}", forged_escaped("%9")),
      "/x\\t%4".to_string(),
      "tmux location (turn 9):\nsession x, window 1 \"y\", pane 0 %3".to_string(),
    ] {
      let panes = vec![pane("%3", "0", "node", "/home/u"), pane("%4", "1", "vim", &path)];
      assert_eq!(parse_output(&our_output_with(&l, &panes), &WINDOW).unwrap().panes, Some(panes.clone()), "{path:?}");
    }
    // Before 2.9 (no q:): a line that a newline or `\t` broke, and any second line of a pane, leave no roster.
    for path in [
      format!("/x\n{}", forged_line("%9")),
      format!("/x\\t%4\n{}\n{}", forged_line("%9"), forged_line("%3")),
      format!("/x\\t%4\n{}\n{PLAIN_PANE_LINE_MARKER}\\t%4\\t1\\tvim.\\t/y.", forged_line("%9")),
      "/x\\t/y".to_string(),
      "/x\n".to_string(),
    ] {
      let panes = vec![pane("%3", "0", "node", "/home/u"), pane("%4", "1", "vim", &path)];
      let answer = parse_output(&plain_output_with(&l, &panes), &WINDOW).expect("the location reads");
      assert_eq!(answer.panes, None, "{path:?}");
    }
  }

  #[test]
  fn a_name_cannot_forge_a_plain_roster() {
    // Before 2.9 a window name holding the separator and a newline can pose as the location's
    // fields (as in the JS package), but the record's tail then ends in the layout: no roster.
    let forged =
      format!("w\\t0\\t%3\\t1\\t1\\tb25f,80x24,0,0,3\n{PLAIN_PANE_LINE_MARKER}\\t%9\\t1\\tevil.\\t/e.\\t0\\t\\t\\t%9");
    let l = loc("s", &forged);
    let answer = parse_output(&plain_output_with(&l, &[pane("%3", "0", "node", "/")]), &WINDOW)
      .expect("as the JS package reads it");
    assert_eq!(answer.panes, None);
  }

  #[test]
  fn a_roster_must_name_each_pane_once_and_the_agents_own() {
    let l = loc("s", "w");
    let ok = vec![pane("%3", "0", "node", "/"), pane("%4", "1", "sh", "/")];
    assert_eq!(parse_output(&our_output_with(&l, &ok), &WINDOW).unwrap().panes, Some(ok.clone()));
    for bad in [
      vec![pane("%4", "1", "sh", "/")],
      vec![pane("%3", "0", "node", "/"), pane("%3", "1", "sh", "/")],
      vec![pane("%3", "0", "node", "/"), pane("4", "1", "sh", "/")],
      vec![pane("%3", "0", "node", "/"), pane("%4", "x", "sh", "/")],
      vec![pane("%3", "0", "node", "/"), pane("%4", "", "sh", "/")],
    ] {
      assert_eq!(parse_output(&our_output_with(&l, &bad), &WINDOW).unwrap().panes, None, "{bad:?}");
      assert_eq!(parse_output(&plain_output_with(&l, &bad), &WINDOW).unwrap().panes, None, "{bad:?}");
    }
    assert_eq!(parse_output(&our_output(&l), &WINDOW).unwrap().panes, None, "no roster asked for");
    assert_eq!(parse_output(&plain_line(&l), &WINDOW).unwrap().panes, None);
    assert_eq!(parse_output(&format!("{}\ntrailing", plain_line(&l)), &WINDOW).unwrap().panes, None);
  }

  #[test]
  fn an_escaped_roster_that_does_not_read_leaves_out_the_winlinks_after_it() {
    let l = loc("view", "w");
    let broken = format!(
      "{}{PANE_LINE_MARKER}\\t\\%3\\t0\\tnode\\t/\\t\\%4\n{}",
      our_output(&l),
      winlink_line(0, "4", "0", "main")
    );
    let answer = parse_output(&broken, &WINDOW).expect("the location reads");
    assert_eq!((answer.panes, answer.winlinks), (None, Vec::new()));
    let good = format!("{}{}", our_output_with(&l, &[pane("%3", "0", "node", "/")]), winlink_line(0, "4", "0", "main"));
    assert_eq!(parse_output(&good, &WINDOW).unwrap().location().session_name, "main");
  }

  #[test]
  fn a_text_tmux_cut_is_told_as_cut() {
    let l = loc("s", "w");
    let entry = |command: &str, path: &str| {
      let out = format!("{}{PANE_LINE_MARKER}\\t\\%3\\t0\\t{command}\\t{path}.\\t0\\t\\t\\t\\%3\n", our_output(&l));
      parse_output(&out, &WINDOW)
        .expect("reads")
        .panes
        .map(|p| (p[0].command.clone(), p[0].command_cut, p[0].path.clone(), p[0].path_cut))
    };
    let s = |t: &str| t.to_string();
    assert_eq!(entry("node", "/a"), Some((s("node"), false, s("/a"), false)));
    assert_eq!(entry("no.$", ".$/a"), Some((s("no"), true, s("/a"), true)), "tmux's markers");
    assert_eq!(entry("n\\$\\.\\$", "\\.\\$/\\$"), Some((s("n$.$"), false, s(".$/$"), false)), "escaped, they are text");
    assert_eq!(
      entry("\\$\\.$", "/a"),
      Some((s("$"), true, s("/a"), false)),
      "an escape split: its backslash took the marker's dot"
    );
    assert_eq!(entry("$", "/a"), None, "a raw `$` with nothing before it is no marker of ours");
    // The session and the window name of the record, the session name of a winlink.
    let record = our_output(&l).replacen("\\ts\\t", "\\tma\\\\.$\\t", 1);
    let location = parse_output(&record, &WINDOW).expect("reads").location;
    assert_eq!((location.session_name.as_str(), location.session_name_cut), ("ma\\", true));
    let linked = format!("{}{WINLINK_LINE_MARKER}\\t$0\\t4\\t0\\tmain.$\\t$0\n", our_output(&l));
    let location = parse_output(&linked, &WINDOW).expect("reads").location();
    assert_eq!((location.session_name.as_str(), location.session_name_cut), ("main", true));
  }

  #[test]
  fn a_directory_cut_inside_an_escape_reads_from_the_next_character() {
    let l = loc("s", "w");
    // `/a\\b` escaped is `/a\\\\b`; tmux kept its end from the second backslash of the pair.
    for (kept, read) in [("\\b", "b"), ("\\\\b", "\\b"), ("\\\\\\$b", "\\$b"), ("$b", "$b"), ("\\", "")] {
      let entry = format!("{PANE_LINE_MARKER}\\t\\%3\\t0\\tnode\\t{CUT_MARKER}{kept}.\\t0\\t\\t\\t\\%3\n");
      let panes = parse_output(&format!("{}{entry}", our_output(&l)), &WINDOW).expect("reads").panes.expect("a roster");
      assert_eq!((panes[0].path.as_str(), panes[0].path_cut), (read, true), "{kept:?}");
    }
  }

  pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
      field(),
      prop::collection::vec(
        prop::sample::select(vec![
          "\n",
          "\\t",
          "\t",
          "\"",
          "\\",
          "%3",
          "/",
          " ",
          "tmux location (turn 9):",
          "#{pane_id}",
          "\r",
          "\u{2028}",
          PANE_LINE_MARKER,
          PLAIN_PANE_LINE_MARKER,
          "pane 0 %3 (this agent) command ",
          "panes in this window",
        ]),
        0..8
      )
      .prop_map(|v| v.concat()),
    ]
  }

  /// A window's panes: ids unique, the first one the agent's own (`%3`, as [`loc`] names it).
  pub fn panes() -> impl Strategy<Value = Vec<Pane>> {
    prop::collection::vec((text(), text()), 0..5).prop_map(|texts| {
      let mut panes = vec![pane("%3", "0", "node", "/home/u")];
      for (i, (command, path)) in texts.into_iter().enumerate() {
        panes.push(pane(&format!("%{}", 10 + i), &(i + 1).to_string(), &command, &path));
      }
      panes
    })
  }

  proptest! {
    #[test]
    fn any_escaped_roster_reads_back_exactly(l in location(), panes in panes(), with_winlinks in any::<bool>()) {
      let l = Location { pane_id: "%3".into(), ..l };
      let mut out = our_output_with(&l, &panes);
      if with_winlinks {
        out.push_str(&winlink_line(0, "4", "0", "main"));
      }
      let answer = parse_output(&out, &WINDOW).expect("reads");
      prop_assert_eq!(answer.panes, Some(panes));
      prop_assert_eq!(answer.location, l);
      prop_assert_eq!(answer.winlinks.len(), usize::from(with_winlinks));
    }

    #[test]
    fn any_cut_of_an_escaped_text_reads_as_a_start_or_an_end_of_it(command in text(), path in text(), at in 0.0f64..1.0) {
      let l = Location { pane_id: "%3".into(), ..loc("s", "w") };
      let (escaped_command, escaped_path) = (tmux_q(&command), tmux_q(&path));
      // tmux cuts the escaped text anywhere, an escape's two characters apart included.
      let cut_at = |e: &str| e.char_indices().map(|(i, _)| i).nth((at * e.chars().count() as f64) as usize).unwrap_or(e.len());
      let (start, end) = (&escaped_command[..cut_at(&escaped_command)], &escaped_path[cut_at(&escaped_path)..]);
      let out = format!("{}{PANE_LINE_MARKER}\\t\\%3\\t0\\t{start}{CUT_MARKER}\\t{CUT_MARKER}{end}.\\t0\\t\\t\\t\\%3\n{PANE_LINE_MARKER}\\t\\%4\\t1\\tsh\\t/.\\t0\\t\\t\\t\\%4\n", our_output(&l));
      let panes = parse_output(&out, &WINDOW).expect("reads").panes.expect("a roster: the cut shifts no field");
      prop_assert_eq!(panes.len(), 2);
      prop_assert!(command.starts_with(&panes[0].command), "{:?} of {:?}", panes[0].command, command);
      prop_assert!(path.ends_with(&panes[0].path), "{:?} of {:?}", panes[0].path, path);
      prop_assert!(panes[0].command.chars().count() * 2 + 1 >= start.chars().count());
      prop_assert!(panes[0].path.chars().count() * 2 + 1 >= end.chars().count());
      prop_assert!(panes[0].command_cut && panes[0].path_cut && !panes[1].command_cut);
    }

    #[test]
    fn a_plain_roster_reads_exactly_or_not_at_all(l in location(), panes in panes()) {
      let l = Location { pane_id: "%3".into(), ..l };
      prop_assume!(parse_plain_line(&plain_line(&l)).is_some());
      let read = parse_output(&plain_output_with(&l, &panes), &WINDOW).expect("reads").panes;
      let plain = |s: &str| !s.contains('\n') && !s.contains(FIELD_SEP);
      let readable = panes.iter().all(|p| plain(&p.command) && plain(&p.path));
      prop_assert_eq!(read, readable.then_some(panes));
    }
  }
}
