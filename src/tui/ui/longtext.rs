//! Long texts in the detail pane (reasoning, raw replies, a long ψ): wrapped here
//! into row offsets as far as the rows on screen need ([`super::longtext_wrap`]), and
//! only those rows are made into lines and drawn. Wrapping 18 MB with ratatui on every
//! frame took 35 s a key, one eager pass 122 ms; here a key costs the rows it shows.

use super::longtext_wrap::{Lazy, SEG, escape};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use std::cell::RefCell;
use std::rc::Rc;

/// Texts longer than this are wrapped and drawn by rows on screen only
/// (this module); shorter ones as any paragraph.
pub(super) const LONG: usize = 64 << 10;

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

/// Where the pane is scrolled to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    /// This many rows below the top.
    Top(usize),
    /// This many rows above the last screenful (`G` goes to `End(0)` without
    /// measuring what lies between).
    End(usize),
}

/// The key of a wrapped text: where it lives, its length, a sample of its bytes (a
/// text freed and another put at the same place differs in them) and the width.
type Key = (usize, usize, u64, usize);

/// A text's rows as far as they are wrapped.
type Rows = Rc<RefCell<Lazy>>;

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

/// The rows of `text` at `w` columns, as far as wrapped before (kept between frames).
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
    let rows = Rc::new(RefCell::new(Lazy::new(w, SEG)));
    WRAPPED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= KEEP {
            c.remove(0);
        }
        c.push((k, rows.clone()));
    });
    rows
}

thread_local! {
    /// Characters in the texts counted lately.
    static COUNTED: RefCell<Vec<(Key, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Characters in `text`, counted once per text: a fold line names a reasoning's
/// length every frame, and counting 64 MiB took 10 ms a key.
pub(crate) fn chars(text: &str) -> usize {
    if text.len() <= LONG {
        return text.chars().count();
    }
    let k = key(text, 0);
    if let Some(n) = COUNTED.with(|c| c.borrow().iter().find(|(x, _)| *x == k).map(|x| x.1)) {
        return n;
    }
    let n = text.chars().count();
    COUNTED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= KEEP {
            c.remove(0);
        }
        c.push((k, n));
    });
    n
}

/// Bytes the kept texts' passes have wrapped in all (what keys have cost).
#[cfg(test)]
pub(crate) fn wrapped_bytes() -> usize {
    WRAPPED.with(|c| c.borrow().iter().map(|(_, r)| r.borrow().wrapped).sum())
}

fn prefix_width(p: &str) -> usize {
    super::text::width(p)
}

/// The columns a text piece wraps its rows at.
fn text_width(prefix: &str, w: usize) -> usize {
    w.saturating_sub(prefix_width(prefix)).max(1)
}

/// Rows a line piece takes at `w` columns.
fn line_height(l: &Line<'static>, w: usize) -> usize {
    if l.width() <= w {
        1
    } else {
        Paragraph::new(l.clone())
            .wrap(Wrap { trim: false })
            .line_count(u16::try_from(w).unwrap_or(u16::MAX).max(1))
    }
}

/// Rows `pieces` take at `w` columns, when known without wrapping more.
fn known_total(pieces: &[Piece<'_>], w: usize) -> Option<usize> {
    pieces.iter().try_fold(0usize, |n, p| {
        Some(
            n + match p {
                Piece::Line(l) => line_height(l, w),
                Piece::Text { text, prefix, .. } => {
                    rows_of(text, text_width(prefix, w)).borrow().total()?
                }
            },
        )
    })
}

/// What a frame draws: a line piece's rows from `skip`, or a text's rows as lines.
enum Part {
    Para { piece: usize, skip: usize },
    Rows(Vec<Line<'static>>),
}

/// A part and the rows of the area it takes (top row, count).
type Placed = (usize, usize, Part);

/// The rows of text piece `i` from `a` to `b` (from the top, or from the end when
/// `from_end`), top to bottom, as drawn.
fn text_rows(
    lazy: &Lazy,
    text: &str,
    prefix: &str,
    style: Style,
    (a, b): (usize, usize),
    from_end: bool,
) -> Vec<Line<'static>> {
    let row = |r: Option<(usize, usize)>| {
        let (x, y) = r.unwrap_or((0, 0));
        row_line(text.get(x..y).unwrap_or(""), prefix, style)
    };
    if from_end {
        (a..b).rev().map(|i| row(lazy.end(i))).collect()
    } else {
        (a..b).map(|i| row(lazy.top(i))).collect()
    }
}

/// The parts shown `s` rows below the top in `h` rows at `w` columns: texts wrapped
/// from their top as far as the screen reaches.
fn layout_top(pieces: &[Piece<'_>], w: usize, h: usize, s: usize) -> Vec<Placed> {
    let end = s + h;
    let mut out = Vec::new();
    let mut at = 0usize;
    for (i, p) in pieces.iter().enumerate() {
        if at >= end {
            break;
        }
        let n = match p {
            Piece::Line(l) => {
                let n = line_height(l, w);
                let (lo, hi) = (at.max(s), (at + n).min(end));
                if lo < hi {
                    let part = Part::Para {
                        piece: i,
                        skip: lo - at,
                    };
                    out.push((lo - s, hi - lo, part));
                }
                n
            }
            Piece::Text {
                text,
                prefix,
                style,
            } => {
                let rows = rows_of(text, text_width(prefix, w));
                let mut lazy = rows.borrow_mut();
                lazy.ensure_top(text, end - at);
                let n = lazy.total().unwrap_or_else(|| lazy.known_top());
                let (lo, hi) = (at.max(s), (at + n).min(end));
                if lo < hi {
                    let lines = text_rows(&lazy, text, prefix, *style, (lo - at, hi - at), false);
                    out.push((lo - s, hi - lo, Part::Rows(lines)));
                }
                n
            }
        };
        at += n;
    }
    out
}

/// The parts shown `t` rows above the last screenful in `h` rows at `w` columns:
/// texts wrapped from their end as far as the screen reaches. None when every row
/// got known on the way (the frame is then laid out from the top).
fn layout_end(pieces: &[Piece<'_>], w: usize, h: usize, t: usize) -> Option<Vec<Placed>> {
    // Rows counted up from the bottom: the screen shows [t, t + h).
    let end = t + h;
    let mut out = Vec::new();
    let mut below = 0usize;
    for (i, p) in pieces.iter().enumerate().rev() {
        if below >= end {
            return Some(out);
        }
        let n = match p {
            Piece::Line(l) => {
                let n = line_height(l, w);
                let (lo, hi) = (below.max(t), (below + n).min(end));
                if lo < hi {
                    let part = Part::Para {
                        piece: i,
                        skip: below + n - hi,
                    };
                    out.push((end - hi, hi - lo, part));
                }
                n
            }
            Piece::Text {
                text,
                prefix,
                style,
            } => {
                let rows = rows_of(text, text_width(prefix, w));
                let mut lazy = rows.borrow_mut();
                lazy.ensure_end(text, end - below);
                let n = lazy.total().unwrap_or_else(|| lazy.known_end());
                let (lo, hi) = (below.max(t), (below + n).min(end));
                if lo < hi {
                    let lines =
                        text_rows(&lazy, text, prefix, *style, (lo - below, hi - below), true);
                    out.push((end - hi, hi - lo, Part::Rows(lines)));
                }
                n
            }
        };
        below += n;
    }
    // The whole content was measured: short of a screen below the last screenful,
    // or every text wrapped whole.
    (below >= end && known_total(pieces, w).is_none()).then_some(out)
}

/// Draws `pieces` into `area` scrolled to `at`: only the pieces on screen are touched,
/// and of a long text only its rows on screen (wrapped from its top or its end, as far
/// as they reach). Returns the rows the content takes, once known.
pub(crate) fn draw(f: &mut Frame, area: Rect, pieces: &[Piece<'_>], at: At) -> Option<usize> {
    let (w, h) = (usize::from(area.width), usize::from(area.height));
    if w == 0 || h == 0 {
        return known_total(pieces, w);
    }
    let top = |s: usize| {
        let parts = layout_top(pieces, w, h, s);
        // Scrolled past the end (its length was not known when the key came):
        // the last screenful instead.
        match known_total(pieces, w) {
            Some(n) if s > n.saturating_sub(h) => layout_top(pieces, w, h, n.saturating_sub(h)),
            _ => parts,
        }
    };
    let parts = match at {
        At::Top(s) => top(s),
        At::End(t) => match known_total(pieces, w) {
            Some(n) => top(n.saturating_sub(h).saturating_sub(t)),
            None => {
                if let Some(parts) = layout_end(pieces, w, h, t) {
                    parts
                } else {
                    let n = known_total(pieces, w).unwrap_or(0);
                    top(n.saturating_sub(h).saturating_sub(t))
                }
            }
        },
    };
    for (y, shown, part) in parts {
        let rect = Rect {
            x: area.x,
            y: area.y + u16::try_from(y).unwrap_or(u16::MAX),
            width: area.width,
            height: u16::try_from(shown).unwrap_or(u16::MAX),
        };
        match part {
            Part::Para { piece, skip } => {
                if let Some(Piece::Line(l)) = pieces.get(piece) {
                    let para = Paragraph::new(l.clone())
                        .wrap(Wrap { trim: false })
                        .scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0));
                    f.render_widget(para, rect);
                }
            }
            Part::Rows(lines) => f.render_widget(Paragraph::new(lines), rect),
        }
    }
    known_total(pieces, w)
}

/// One row as drawn: the prefix, then the text made safe.
fn row_line(row: &str, prefix: &str, style: Style) -> Line<'static> {
    let mut s = String::with_capacity(prefix.len() + row.len());
    s.push_str(prefix);
    for c in row.chars() {
        if crate::base::sanitize::is_unsafe(c) {
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
