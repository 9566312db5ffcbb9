//! A list's cursor: the selected row and the first row shown, kept between frames as
//! ratatui's `TableState` keeps them, so drawing and mouse clicks agree on what is where.

use super::super::keymap::Action;
use std::cell::Cell;

/// A list's first shown row. A frame moves it only as far as the selection needs, and a
/// mouse click reads the offset of the frame the user clicked on. A `Cell`, because
/// drawing takes `&App`.
#[derive(Debug, Default)]
pub struct ListOffset(Cell<usize>);

impl ListOffset {
    /// The offset that shows `sel` in `h` rows of a `len`-row list, moved as little as
    /// possible from the last frame's (and never leaving blank rows below a shrunk list).
    pub fn place(&self, sel: usize, len: usize, h: usize) -> usize {
        let mut off = self.0.get();
        if h > 0 {
            if sel < off {
                off = sel;
            } else if sel >= off + h {
                off = sel + 1 - h;
            }
            off = off.min(len.saturating_sub(h));
        }
        self.0.set(off);
        off
    }

    /// The last frame's offset.
    pub fn get(&self) -> usize {
        self.0.get()
    }
}

/// The selection and scroll of one list (runs, samples).
#[derive(Debug, Default)]
pub struct ListCursor {
    /// The selected row.
    pub sel: usize,
    /// The first row shown.
    pub offset: ListOffset,
}

impl ListCursor {
    /// Moves the selection by `delta` rows within a `len`-row list; returns whether it
    /// moved.
    pub fn step(&mut self, delta: isize, len: usize) -> bool {
        if len == 0 {
            return false;
        }
        let to = (self.sel as isize)
            .saturating_add(delta)
            .clamp(0, len as isize - 1) as usize;
        let moved = to != self.sel;
        self.sel = to;
        moved
    }

    /// Handles a movement action (`page` rows to a page); returns whether it moved.
    pub fn handle(&mut self, a: Action, len: usize, page: usize) -> bool {
        let page = page.max(1) as isize;
        let delta = match a {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            _ => return false,
        };
        self.step(delta, len)
    }

    /// Selects the row drawn on visible line `line` of the last frame; returns whether a
    /// row is there.
    pub fn click(&mut self, line: usize, len: usize) -> bool {
        let k = self.offset.get() + line;
        if k < len {
            self.sel = k;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_scroll_minimally_and_clicks_go_through_the_offset() {
        let mut c = ListCursor::default();
        assert!(!c.handle(Action::Up, 10, 3));
        assert!(c.handle(Action::Bottom, 10, 3));
        assert_eq!(c.sel, 9);
        assert_eq!(c.offset.place(c.sel, 10, 4), 6);
        c.handle(Action::PageUp, 10, 3);
        assert_eq!(c.sel, 6);
        assert_eq!(
            c.offset.place(c.sel, 10, 4),
            6,
            "still on screen: no scroll"
        );
        c.handle(Action::Up, 10, 3);
        assert_eq!(c.offset.place(c.sel, 10, 4), 5);
        assert!(c.click(2, 10));
        assert_eq!(c.sel, 7);
        assert!(!c.click(9, 10), "below the last row");
        assert_eq!(
            c.offset.place(0, 3, 4),
            0,
            "a shrunk list shows from the top"
        );
        assert!(!c.step(1, 0));
    }
}
