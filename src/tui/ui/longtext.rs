//! Long texts in the detail pane (reasoning, raw replies, a long ψ): wrapped here, once
//! per text and width, into row offsets, and only the rows on screen are made into
//! lines and drawn. Wrapping 18 MB with ratatui on every frame took 35 s a key; here a
//! key costs the rows shown plus, once, one pass over the text.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use std::cell::RefCell;
use std::rc::Rc;
use unicode_width::UnicodeWidthChar;

/// One piece of a pane's content.
pub(crate) enum Piece<'a> {
    /// A line wrapped by ratatui, as any paragraph is.
    Line(Line<'static>),
    /// A text wrapped here: each of its rows starts with `prefix`.
    Text {
        /// The text (raw: made safe for the terminal as its rows are drawn).
        text: &'a str,
        /// Drawn before every row (an indent, a `│ ` rule).
        prefix: &'static str,
        /// The rows' style.
        style: Style,
    },
}

impl From<Line<'static>> for Piece<'_> {
    fn from(l: Line<'static>) -> Self {
        Piece::Line(l)
    }
}

/// Columns `c` takes as drawn: an unsafe character as its `\u{…}` escape, a tab as
/// one space.
fn columns(c: char) -> usize {
    if crate::sanitize::is_unsafe(c) {
        escape(c).len()
    } else if c == '\t' {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

fn escape(c: char) -> String {
    format!("\\u{{{:04X}}}", c as u32)
}

/// The rows of one line (no newline in it) at `w` columns as byte ranges: broken after
/// the last space that fits, else anywhere; always at least one row.
fn wrap_line(line: &str, base: usize, w: usize, rows: &mut Vec<(usize, usize)>) {
    let w = w.max(1);
    let (mut start, mut col) = (0usize, 0usize);
    // Just after the last space of the current row, and the columns up to there.
    let mut space: Option<(usize, usize)> = None;
    for (i, c) in line.char_indices() {
        let cw = columns(c);
        if col + cw > w && col > 0 {
            match space.take() {
                Some((b, at)) if b > start => {
                    rows.push((base + start, base + b));
                    start = b;
                    col -= at;
                }
                _ => {
                    rows.push((base + start, base + i));
                    start = i;
                    col = 0;
                }
            }
            if col + cw > w && col > 0 {
                rows.push((base + start, base + i));
                start = i;
                col = 0;
            }
        }
        col += cw;
        if c == ' ' {
            space = Some((i + 1, col));
        }
    }
    rows.push((base + start, base + line.len()));
}

/// Every row of `text` at `w` columns, as byte ranges.
fn wrap(text: &str, w: usize) -> Vec<(usize, usize)> {
    let mut rows = Vec::new();
    let mut base = 0usize;
    for line in text.split('\n') {
        if line.is_ascii() && line.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            // Plain ASCII without spaces to break at wraps by arithmetic.
            if !line.contains(' ') {
                let n = line.len().div_ceil(w.max(1)).max(1);
                for k in 0..n {
                    let a = (k * w).min(line.len());
                    let b = ((k + 1) * w).min(line.len());
                    rows.push((base + a, base + b));
                }
                base += line.len() + 1;
                continue;
            }
        }
        wrap_line(line, base, w, &mut rows);
        base += line.len() + 1;
    }
    rows
}

/// The key of a wrapped text: where it lives, its length, a sample of its bytes (a
/// text freed and another put at the same place differs in them) and the width.
type Key = (usize, usize, u64, usize);

/// A text's rows as byte ranges.
type Rows = Rc<Vec<(usize, usize)>>;

fn key(text: &str, w: usize) -> Key {
    use std::hash::{Hash, Hasher};
    let b = text.as_bytes();
    let mut h = rustc_hash::FxHasher::default();
    b[..b.len().min(256)].hash(&mut h);
    b[b.len().saturating_sub(256)..].hash(&mut h);
    (text.as_ptr() as usize, text.len(), h.finish(), w)
}

thread_local! {
    /// The texts wrapped lately (a frame draws a few; a new sample brings new ones).
    static WRAPPED: RefCell<Vec<(Key, Rows)>> = const { RefCell::new(Vec::new()) };
}

/// How many wrapped texts are kept.
const KEEP: usize = 16;

/// The rows of `text` at `w` columns, wrapped once and then reused.
fn rows_of(text: &str, w: usize) -> Rows {
    let k = key(text, w);
    if let Some(hit) = WRAPPED.with(|c| {
        c.borrow()
            .iter()
            .find(|(x, _)| *x == k)
            .map(|(_, r)| r.clone())
    }) {
        return hit;
    }
    let rows = Rc::new(wrap(text, w));
    WRAPPED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= KEEP {
            c.remove(0);
        }
        c.push((k, rows.clone()));
    });
    rows
}

fn prefix_width(p: &str) -> usize {
    super::text::width(p)
}

/// Rows a piece takes at `w` columns.
fn height(p: &Piece<'_>, w: usize) -> usize {
    match p {
        Piece::Line(l) if l.width() <= w => 1,
        Piece::Line(l) => Paragraph::new(l.clone())
            .wrap(Wrap { trim: false })
            .line_count(u16::try_from(w).unwrap_or(u16::MAX).max(1)),
        Piece::Text { text, prefix, .. } => {
            rows_of(text, w.saturating_sub(prefix_width(prefix)).max(1)).len()
        }
    }
}

/// Rows `pieces` take at `w` columns in all.
pub(crate) fn total_rows(pieces: &[Piece<'_>], w: usize) -> usize {
    pieces.iter().map(|p| height(p, w)).sum()
}

/// Draws `pieces` into `area` from row `scroll`: only the pieces on screen are
/// touched, and of a long text only its rows on screen.
pub(crate) fn draw(f: &mut Frame, area: Rect, pieces: &[Piece<'_>], scroll: usize) {
    let (w, h) = (usize::from(area.width), usize::from(area.height));
    if w == 0 || h == 0 {
        return;
    }
    let end = scroll + h;
    let mut at = 0usize;
    for p in pieces {
        if at >= end {
            break;
        }
        let n = height(p, w);
        if at + n <= scroll {
            at += n;
            continue;
        }
        // Rows of this piece on screen: [skip, skip + shown).
        let skip = scroll.saturating_sub(at);
        let top = at.max(scroll) - scroll;
        let shown = (n - skip).min(h - top);
        let rect = Rect {
            x: area.x,
            y: area.y + u16::try_from(top).unwrap_or(u16::MAX),
            width: area.width,
            height: u16::try_from(shown).unwrap_or(u16::MAX),
        };
        match p {
            Piece::Line(l) => {
                let para = Paragraph::new(l.clone())
                    .wrap(Wrap { trim: false })
                    .scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0));
                f.render_widget(para, rect);
            }
            Piece::Text {
                text,
                prefix,
                style,
            } => {
                let rows = rows_of(text, w.saturating_sub(prefix_width(prefix)).max(1));
                let lines: Vec<Line<'static>> = rows[skip..skip + shown]
                    .iter()
                    .map(|&(a, b)| row_line(text.get(a..b).unwrap_or(""), prefix, *style))
                    .collect();
                f.render_widget(Paragraph::new(lines), rect);
            }
        }
        at += n;
    }
}

/// One row as drawn: the prefix, then the text made safe.
fn row_line(row: &str, prefix: &str, style: Style) -> Line<'static> {
    let mut s = String::with_capacity(prefix.len() + row.len());
    s.push_str(prefix);
    for c in row.chars() {
        if crate::sanitize::is_unsafe(c) {
            s.push_str(&escape(c));
        } else if c == '\t' {
            s.push(' ');
        } else {
            s.push(c);
        }
    }
    Line::from(Span::styled(s, style))
}

#[cfg(test)]
#[path = "longtext_tests.rs"]
mod tests;
