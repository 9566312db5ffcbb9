//! Wrapping a long text into rows, lazily: from the top as far as the rows shown, and
//! from the end as far as the rows shown there, so that no key costs a pass over the
//! whole text (unfolding 18 MB of reasoning took 122 ms when it wrapped it all).
//!
//! A text is cut into units that wrap independently: its lines, and within a line of
//! more than [`SEG`] bytes a new unit (a new row) every [`SEG`] bytes. The rows of a
//! unit depend on it alone, so the rows read from the top and those read from the end
//! agree, and the two passes join where they meet.

use unicode_width::UnicodeWidthChar;

/// A line longer than this starts a new row every this many bytes (at a character
/// boundary): its last rows are then found without wrapping it from its start.
pub(crate) const SEG: usize = 256 << 10;

/// Columns `c` takes as drawn: an unsafe character as its `\u{…}` escape, a tab as
/// one space.
pub(crate) fn columns(c: char) -> usize {
    if crate::base::sanitize::is_unsafe(c) {
        escape(c).len()
    } else if c == '\t' {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

pub(crate) fn escape(c: char) -> String {
    format!("\\u{{{:04X}}}", c as u32)
}

/// The rows of one unit (no newline in it) at `w` columns as byte ranges: broken after
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

/// The rows of the unit `text[a..e]`, appended to `rows`.
fn wrap_unit(text: &str, a: usize, e: usize, w: usize, rows: &mut Vec<(usize, usize)>) {
    let line = text.get(a..e).unwrap_or("");
    let w = w.max(1);
    if line.bytes().all(|b| (0x20..0x7f).contains(&b)) && !line.contains(' ') {
        // Plain ASCII without spaces to break at wraps by arithmetic.
        let n = line.len().div_ceil(w).max(1);
        for k in 0..n {
            let x = (k * w).min(line.len());
            let y = ((k + 1) * w).min(line.len());
            rows.push((a + x, a + y));
        }
        return;
    }
    wrap_line(line, a, w, rows);
}

/// The first character boundary at or after `i` (or the text's end).
fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i.min(text.len())
}

/// The unit starting at `a` (a line's start or a cut within it): where it ends, and
/// where the next one starts (None at the text's end).
fn unit_at(text: &str, a: usize, seg: usize) -> (usize, Option<usize>) {
    let cut = ceil_boundary(text, a + seg.max(1));
    let b = text.as_bytes();
    if let Some(p) = memchr::memchr(b'\n', b.get(a..cut).unwrap_or(&[])) {
        return (a + p, Some(a + p + 1));
    }
    if cut >= text.len() {
        (text.len(), None)
    } else if b[cut] == b'\n' {
        (cut, Some(cut + 1))
    } else {
        (cut, Some(cut))
    }
}

/// Every row of `text` at `w` columns, as byte ranges, in one pass (what the lazy
/// wrapping must agree with).
#[cfg(test)]
pub(crate) fn wrap(text: &str, w: usize, seg: usize) -> Vec<(usize, usize)> {
    let mut rows = Vec::new();
    let mut at = Some(0);
    while let Some(a) = at {
        let (e, next) = unit_at(text, a, seg);
        wrap_unit(text, a, e, w, &mut rows);
        at = next;
    }
    rows
}

/// A text's rows at one width, wrapped as far as they were asked for, from the top
/// and from the end.
#[derive(Debug)]
pub(crate) struct Lazy {
    w: usize,
    seg: usize,
    /// Rows from the top (every row once the two passes met).
    head: Vec<(usize, usize)>,
    /// The next unit the top pass wraps; None once it reached the end.
    fwd: Option<usize>,
    /// Rows from the end, the last first.
    tail: Vec<(usize, usize)>,
    /// The first unit the end pass wrapped (None before it starts), and the start
    /// of its line.
    back: Option<(usize, usize)>,
    /// Every row is in `head`.
    done: bool,
    /// Bytes wrapped so far (what the passes cost).
    pub(crate) wrapped: usize,
}

impl Lazy {
    /// Nothing wrapped yet.
    pub(crate) fn new(w: usize, seg: usize) -> Self {
        Lazy {
            w: w.max(1),
            seg: seg.max(1),
            head: Vec::new(),
            fwd: Some(0),
            tail: Vec::new(),
            back: None,
            done: false,
            wrapped: 0,
        }
    }

    /// Every row, when both passes have met.
    pub(crate) fn total(&self) -> Option<usize> {
        self.done.then_some(self.head.len())
    }

    /// Rows known from the top.
    pub(crate) fn known_top(&self) -> usize {
        self.head.len()
    }

    /// Rows known from the end.
    pub(crate) fn known_end(&self) -> usize {
        if self.done {
            self.head.len()
        } else {
            self.tail.len()
        }
    }

    /// Row `i` from the top.
    pub(crate) fn top(&self, i: usize) -> Option<(usize, usize)> {
        self.head.get(i).copied()
    }

    /// Row `i` from the end (0 the last).
    pub(crate) fn end(&self, i: usize) -> Option<(usize, usize)> {
        if self.done {
            self.head.len().checked_sub(i + 1).map(|k| self.head[k])
        } else {
            self.tail.get(i).copied()
        }
    }

    /// Joins the passes once the top pass reached the first unit the end pass wrapped.
    fn join(&mut self) {
        let met = match (self.fwd, self.back) {
            (None, None) => true,
            (Some(f), Some((b, _))) => f == b,
            _ => false,
        };
        if met {
            self.head.extend(self.tail.drain(..).rev());
            self.tail.shrink_to_fit();
            self.fwd = None;
            self.done = true;
        }
    }

    /// Wraps from the top until `n` rows are known there (or every row is).
    pub(crate) fn ensure_top(&mut self, text: &str, n: usize) {
        while !self.done && self.head.len() < n {
            let Some(a) = self.fwd else {
                self.join();
                break;
            };
            let (e, next) = unit_at(text, a, self.seg);
            wrap_unit(text, a, e, self.w, &mut self.head);
            self.wrapped += e - a;
            self.fwd = next;
            self.join();
        }
    }

    /// Wraps from the end until `n` rows are known there (or every row is).
    pub(crate) fn ensure_end(&mut self, text: &str, n: usize) {
        let b = text.as_bytes();
        let mut unit = Vec::new();
        while !self.done && self.tail.len() < n {
            // The unit before the end pass's first: it ends at the text's end, at the
            // newline before, or at the cut.
            let (e, ls) = match self.back {
                None => (text.len(), None),
                Some((0, _)) => break,
                Some((a, ls)) if a == ls => (a - 1, None),
                Some((a, ls)) => (a, Some(ls)),
            };
            let ls = ls.unwrap_or_else(|| {
                memchr::memrchr(b'\n', b.get(..e).unwrap_or(&[])).map_or(0, |p| p + 1)
            });
            // Its start: the last cut of its line before `e` (the line's start when
            // the line is empty).
            let mut a = ls;
            loop {
                let c = ceil_boundary(text, a + self.seg);
                if c >= e {
                    break;
                }
                a = c;
            }
            unit.clear();
            wrap_unit(text, a, e, self.w, &mut unit);
            self.wrapped += e - a;
            self.tail.extend(unit.iter().rev());
            self.back = Some((a, ls));
            self.join();
        }
    }
}

#[cfg(test)]
#[path = "longtext_wrap_tests.rs"]
mod tests;
