//! tmux's window layout string (`#{window_layout}`, e.g. `c0de,200x50,0,0{100x50,0,0,1,99x50,101,0,2}`)
//! reduced to what the agent's place depends on: the pane tree and its split directions, without
//! the checksum, the sizes and the offsets, which change whenever a client of another size is used
//! (`window-size latest`) or a terminal is resized. Pure.

/// The pane tree of a layout: `%<pane>` leaves, `{…}` for panes side by side (left-right), `[…]` for
/// panes stacked (top-bottom), then `<…>` for the floating panes that tmux 3.7 lists after the
/// tree (`new-pane`; their sizes and places dropped too). `None` when `layout` is not a tmux
/// layout string.
pub fn pane_tree(layout: &str) -> Option<String> {
  let (checksum, cell) = layout.split_once(',')?;
  if checksum.len() != 4 || !checksum.bytes().all(|b| b.is_ascii_hexdigit()) {
    return None;
  }
  let mut parser = Parser { rest: cell.as_bytes(), out: String::new(), depth: 0 };
  parser.cell()?;
  if parser.rest.first() == Some(&b'<') {
    // Listed in z-order, which focusing a floating pane changes: the set is compared, not the order.
    let tiled = parser.out.len();
    parser.cells(b'<', b'>')?;
    let mut floating: Vec<&str> = parser.out[tiled + 1..parser.out.len() - 1].split(',').collect();
    floating.sort_unstable();
    parser.out = format!("{}<{}>", &parser.out[..tiled], floating.join(","));
  }
  parser.rest.is_empty().then_some(parser.out)
}

/// Deepest nesting of splits accepted: tmux builds trees 80 deep without complaint (alternating
/// splits of a 400x200 window), and each level costs this parser one small frame of recursion.
const MAX_DEPTH: usize = 512;

struct Parser<'a> {
  rest: &'a [u8],
  out: String,
  depth: usize,
}

impl Parser<'_> {
  fn number(&mut self) -> Option<&str> {
    let digits = self.rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
      return None;
    }
    let (number, rest) = self.rest.split_at(digits);
    self.rest = rest;
    std::str::from_utf8(number).ok()
  }

  fn byte(&mut self, expected: u8) -> Option<()> {
    let (&first, rest) = self.rest.split_first()?;
    (first == expected).then(|| self.rest = rest)
  }

  /// `WxH,X,Y` then `,<pane>`, `{cells}` or `[cells]`.
  fn cell(&mut self) -> Option<()> {
    self.number()?;
    self.byte(b'x')?;
    self.number()?;
    self.byte(b',')?;
    self.number()?;
    self.byte(b',')?;
    self.number()?;
    match self.rest.first()? {
      b',' => {
        self.byte(b',')?;
        let pane = self.number()?.to_string();
        self.out.push('%');
        self.out.push_str(&pane);
        Some(())
      }
      b'{' => self.cells(b'{', b'}'),
      b'[' => self.cells(b'[', b']'),
      _ => None,
    }
  }

  /// `open`, cells separated by `,`, `close`.
  fn cells(&mut self, open: u8, close: u8) -> Option<()> {
    self.depth += 1;
    if self.depth > MAX_DEPTH {
      return None;
    }
    self.byte(open)?;
    self.out.push(open as char);
    self.cell()?;
    while self.rest.first() == Some(&b',') {
      self.byte(b',')?;
      self.out.push(',');
      self.cell()?;
    }
    self.byte(close)?;
    self.out.push(close as char);
    self.depth -= 1;
    Some(())
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  #[test]
  fn reduces_real_layouts_to_their_pane_tree() {
    assert_eq!(pane_tree("b25f,80x24,0,0,3").as_deref(), Some("%3"));
    assert_eq!(pane_tree("9c63,160x49,0,0{80x49,0,0,0,79x49,81,0,1}").as_deref(), Some("{%0,%1}"));
    assert_eq!(
      pane_tree("fc2d,100x29,0,0{50x29,0,0,0,49x29,51,0,1}"),
      pane_tree("9c63,160x49,0,0{80x49,0,0,0,79x49,81,0,1}"),
      "the same tree at two client sizes"
    );
    assert_eq!(
      pane_tree("5a4e,200x50,0,0[200x25,0,0,1,200x24,0,26{100x24,0,26,2,99x24,101,26,3}]").as_deref(),
      Some("[%1,{%2,%3}]")
    );
  }

  #[test]
  fn floating_panes_of_tmux_3_7_read_without_their_sizes() {
    // tmux 3.7c, one floating pane (%2): among the tiled cells, then again after the tree.
    let floating = "959d,160x50,0,0{80x50,0,0,0,79x50,81,0,1,80x12,4,2,2}<80x12,4,2,2>";
    assert_eq!(pane_tree(floating).as_deref(), Some("{%0,%1,%2}<%2>"));
    // Two floating panes, the one focused last listed last (z-order): the same tree.
    let two = "959d,160x50,0,0{80x50,0,0,0,79x50,81,0,1,80x12,4,2,2,9x9,1,1,3}<80x12,4,2,2,9x9,1,1,3>";
    let refocused = "959d,160x50,0,0{80x50,0,0,0,79x50,81,0,1,80x12,4,2,2,9x9,1,1,3}<9x9,1,1,3,80x12,4,2,2>";
    assert_eq!(pane_tree(two), pane_tree(refocused));
    assert_eq!(pane_tree(two).as_deref(), Some("{%0,%1,%2,%3}<%2,%3>"));
    let resized = "a1b2,120x40,0,0{60x40,0,0,0,59x40,61,0,1,30x10,9,9,2}<30x10,9,9,2>";
    assert_eq!(pane_tree(resized), pane_tree(floating));
    assert_ne!(pane_tree("959d,160x50,0,0{80x50,0,0,0,79x50,81,0,1}"), pane_tree(floating));
    for broken in
      ["959d,80x24,0,0,3<", "959d,80x24,0,0,3<>", "959d,80x24,0,0,3<1x1,0,0,2", "959d,80x24,0,0,3<1x1,0,0,2>x"]
    {
      assert_eq!(pane_tree(broken), None, "{broken}");
    }
  }

  #[test]
  fn a_split_direction_or_a_new_pane_is_a_change() {
    let side_by_side = pane_tree("9c63,160x49,0,0{80x49,0,0,0,79x49,81,0,1}");
    let stacked = pane_tree("9c63,160x49,0,0[160x24,0,0,0,160x24,0,25,1]");
    let three = pane_tree("9c63,160x49,0,0{80x49,0,0,0,39x49,81,0,1,39x49,121,0,2}");
    assert_ne!(side_by_side, stacked);
    assert_ne!(side_by_side, three);
  }

  #[test]
  fn anything_else_is_not_a_layout() {
    for bad in [
      "",
      "x",
      "b25f",
      "b25f,",
      "zzzz,80x24,0,0,3",
      "b25f,80x24,0,0",
      "b25f,80x24,0,0,3,",
      "b25f,80x24,0,0{80x24,0,0,1",
    ] {
      assert_eq!(pane_tree(bad), None, "{bad}");
    }
    let deep = |n: usize| format!("abcd,{}1x1,0,0,1{}", "1x1,0,0{".repeat(n), "}".repeat(n));
    assert_eq!(pane_tree(&deep(600)), None);
    assert_eq!(pane_tree(&deep(100)).map(|t| t.len()), Some(100 * 2 + 2), "100 deep, as tmux can build");
  }

  proptest! {
    #[test]
    fn never_panics(text in ".{0,80}") {
      let _ = pane_tree(&text);
    }

    #[test]
    fn sizes_never_matter(w in 1u32..500, h in 1u32..200, x in 0u32..500, a in 0u32..99, b in 0u32..99) {
      let one = format!("abcd,{w}x{h},0,0{{{w}x{h},0,0,{a},{w}x{h},{x},0,{b}}}");
      let other = format!("0123,{h}x{w},0,0{{1x1,0,0,{a},2x2,{x},1,{b}}}");
      prop_assert_eq!(pane_tree(&one), pane_tree(&other));
      prop_assert_eq!(pane_tree(&one), Some(format!("{{%{a},%{b}}}")));
    }
  }

  #[test]
  fn a_layout_with_a_stray_character_has_no_pane_tree() {
    assert_eq!(pane_tree("b25f,80x24,0,0,3"), pane_tree("c000,80x24,0,0,3"));
    for broken in ["b25f,80x24,0,0!3", "b25f,80x24,0,0{80x24,0,0,3x", "b25f,80x24,0,0[", "b25f,"] {
      assert_eq!(pane_tree(broken), None, "{broken}");
    }
  }
}
