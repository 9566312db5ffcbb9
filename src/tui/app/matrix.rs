//! The matrix layer's keys: moving over φ₀ rows and run columns, `Enter` opening the
//! cell's sample, and the list's own filter, search and sort keys (the matrix follows
//! the list, so they change it too).

use super::{App, Pane};
use crate::tui::keymap::{Action, Context};
use crate::tui::layer::Layer;

impl App {
    /// Opens the matrix on the selected sample's dataset (or the run under the cursor).
    pub(super) fn open_matrix(&mut self) {
        let anchor = self.model.selected().map(|(r, _)| r as usize).or_else(|| {
            (self.panes.run_list.sel < self.model.runs.len()).then_some(self.panes.run_list.sel)
        });
        let Some(anchor) = anchor else {
            self.status = "no runs: nothing to show in the matrix".into();
            return;
        };
        let mut m = self.model.matrix(anchor);
        // Open on the selected sample's φ₀.
        if let Some((r, i)) = self.model.selected() {
            let h = self.model.runs[r as usize].rows[i as usize].phi0_hash;
            if let Some(k) = m.rows.iter().position(|row| row.phi0_hash == h) {
                m.cursor.sel = k;
            }
        }
        self.push(Layer::Matrix(Box::new(m)));
    }

    /// Keeps an open matrix in step with the list (a filter, search or sort changed it).
    pub(super) fn refresh_matrix(&mut self) {
        let generation = self.model.listing.generation;
        let model = &self.model;
        for l in &mut self.layers {
            if let Layer::Matrix(m) = l
                && m.generation != generation
            {
                **m = model.rebuilt_matrix(m);
            }
        }
    }

    /// An action of the matrix context (its own bindings, or the list's keys it lets
    /// through).
    pub(super) fn matrix_action(&mut self, a: Action) {
        let page = self.panes.matrix_rows.get().max(1);
        let Some(Layer::Matrix(m)) = self.layers.last_mut() else {
            return;
        };
        match a {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                let n = m.rows.len();
                m.cursor.handle(a, n, page);
            }
            Action::PrevField => {
                m.step_col(-1);
            }
            Action::NextField => {
                m.step_col(1);
            }
            Action::Open => match m.selected() {
                Some(at) => {
                    self.pop();
                    let cleared = self.model.select_sample(at);
                    self.panes.focus = Pane::Detail;
                    self.status = format!(
                        "sample {} of {}{}",
                        crate::base::sanitize::one_line(self.model.id_of(at)),
                        crate::tui::ui::panes::run_name(self, at.0 as usize),
                        if cleared {
                            " (filters and search cleared to show it)"
                        } else {
                            ""
                        }
                    );
                }
                None => self.status = "this run has no sample with this φ₀".into(),
            },
            Action::Back | Action::Matrix => self.pop(),
            // The list's keys: the matrix follows the list they change.
            Action::Search
            | Action::Filter
            | Action::ClearFilters
            | Action::Sort
            | Action::SortReverse
            | Action::SortMetric
            | Action::ToggleOrder
            | Action::ToggleBy
            | Action::Help
            | Action::Warnings => self.act(a),
            other => {
                self.status = format!(
                    "not in the matrix: {} goes back to the list ({})",
                    self.key_name(Context::Matrix, Action::Back),
                    other.name()
                );
            }
        }
    }
}
