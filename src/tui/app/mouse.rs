//! The mouse as actions on the last frame's areas: the wheel scrolls the pane under
//! the pointer, a click selects the run or sample on that row, a click on the sample
//! list's header sorts by that column.

use super::{App, Pane};
use crate::tui::keymap::Action;
use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

impl App {
    /// Handles a mouse event on the areas the last frame drew.
    pub fn mouse(&mut self, m: MouseEvent) {
        let areas = self.panes.areas;
        let at = ratatui::layout::Position::new(m.column, m.row);
        let y = m.row;
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let d = if m.kind == MouseEventKind::ScrollDown {
                    Action::Down
                } else {
                    Action::Up
                };
                let prev = self.panes.focus;
                let over = if areas.detail.contains(at) {
                    Pane::Detail
                } else if areas.runs.contains(at) {
                    Pane::Runs
                } else {
                    Pane::Samples
                };
                self.panes.focus = over;
                for _ in 0..3 {
                    self.act_in(self.context(), d);
                }
                // Scrolling a list does not move the focus; scrolling the detail does.
                if over == Pane::Samples {
                    self.panes.focus = Pane::Samples;
                } else if prev != over && over != Pane::Detail {
                    self.panes.focus = prev;
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                let s = areas.samples;
                if s.contains(at) && y == s.y + 1 {
                    // The column header: sort by the column clicked (again: reversed).
                    self.panes.focus = Pane::Samples;
                    let col = usize::from(m.column.saturating_sub(s.x + 1));
                    if let Some(k) = crate::tui::ui::panes::sample_column_at(self, col) {
                        self.model.sort_by(|so| so.click(k));
                    }
                } else if s.contains(at) {
                    self.panes.focus = Pane::Samples;
                    // Row 0 is the border, row 1 the column header.
                    let line = usize::from(y.saturating_sub(s.y + 2));
                    let n = self.model.listing.visible.len();
                    if y >= s.y + 2 {
                        self.model.listing.sample_list.click(line, n);
                    }
                } else if areas.runs.contains(at) {
                    self.panes.focus = Pane::Runs;
                    // The catalogue (the run list across the top row) has a header line.
                    let first = areas.runs.y + 1 + u16::from(areas.detail.width == 0);
                    let line = usize::from(y.saturating_sub(first));
                    if y >= first {
                        self.panes.run_list.click(line, self.model.runs.len());
                    }
                } else if areas.detail.contains(at) {
                    self.panes.focus = Pane::Detail;
                }
            }
            _ => {}
        }
    }
}
