//! The matrix view (promptfoo's grid): one row per φ₀ of one dataset, one column per
//! run of that dataset, each cell that run's verdict. Rows follow the sample list
//! (filter, search and sort are the list's own), so the matrix never filters or sorts
//! by itself: a φ₀ is a row when any of its samples is listed.

use super::Model;
use crate::tui::components::list::ListCursor;
use crate::verify::VerdictKind;
use std::collections::{HashMap, HashSet};

/// One φ₀: the row of each column's run that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixRow {
    /// The hash of φ₀ as shown (what matches samples across runs).
    pub phi0_hash: u64,
    /// Per column, the run's row holding this φ₀ (None: the run has no such sample).
    pub cells: Vec<Option<u32>>,
}

/// The matrix and where its cursor is.
#[derive(Debug, Default)]
pub struct MatrixView {
    /// The runs shown as columns (indices into the model's runs), in run-list order.
    pub columns: Vec<usize>,
    /// The rows, in the sample list's order.
    pub rows: Vec<MatrixRow>,
    /// The selected row and the first row drawn.
    pub cursor: ListCursor,
    /// The selected column.
    pub col: usize,
    /// The first column drawn (kept between frames, as the row offset is).
    pub col_offset: std::cell::Cell<usize>,
    /// The listing generation the rows were built from (rebuilt when it moves).
    pub generation: u64,
    /// The dataset's kind, for the title.
    pub dataset: String,
}

impl MatrixView {
    /// The (run, row) under the cursor, if that run holds the row's φ₀.
    pub fn selected(&self) -> Option<(u32, u32)> {
        let row = self.rows.get(self.cursor.sel)?;
        let run = *self.columns.get(self.col)?;
        row.cells
            .get(self.col)
            .copied()
            .flatten()
            .map(|i| (run as u32, i))
    }

    /// Moves the column cursor by `delta`, within the columns; true when it moved.
    pub fn step_col(&mut self, delta: isize) -> bool {
        let n = self.columns.len();
        if n == 0 {
            return false;
        }
        let to = (self.col as isize)
            .saturating_add(delta)
            .clamp(0, n as isize - 1) as usize;
        let moved = to != self.col;
        self.col = to;
        moved
    }
}

/// A verdict as one cell glyph (colour comes from the theme).
pub fn glyph(k: Option<VerdictKind>) -> &'static str {
    match k {
        Some(VerdictKind::Equivalent) => "✓",
        Some(VerdictKind::NotEquivalent) => "✗",
        Some(VerdictKind::Unparseable) => "?",
        Some(VerdictKind::Unknown) => "~",
        Some(VerdictKind::Copied) => "=",
        Some(VerdictKind::ModelError) => "!",
        None => "·",
    }
}

impl Model {
    /// The matrix of the dataset of run `anchor` (the selected sample's run): columns
    /// are the runs answering the same dataset (by [`super::super::data::RunIndex::dataset_key`];
    /// a run without a readable manifest stands alone), rows the φ₀ the list shows.
    pub fn matrix(&self, anchor: usize) -> MatrixView {
        let key = self
            .runs
            .get(anchor)
            .and_then(crate::tui::data::RunIndex::dataset_key);
        let columns: Vec<usize> = (0..self.runs.len())
            .filter(|&k| k == anchor || (key.is_some() && self.runs[k].dataset_key() == key))
            .collect();
        let col_of: HashMap<usize, usize> =
            columns.iter().enumerate().map(|(c, &r)| (r, c)).collect();
        // Each run's rows by φ₀: the first sample of a φ₀ stands for it (a dataset with a
        // φ₀ twice shows it once, as compare does).
        let by_hash: Vec<HashMap<u64, u32>> = columns
            .iter()
            .map(|&r| {
                let rows = &self.runs[r].rows;
                let mut m = HashMap::with_capacity(rows.len());
                for (i, row) in rows.iter().enumerate() {
                    m.entry(row.phi0_hash).or_insert(i as u32);
                }
                m
            })
            .collect();
        let mut seen = HashSet::new();
        let mut rows = Vec::new();
        for &(r, i) in &self.listing.visible {
            if !col_of.contains_key(&(r as usize)) {
                continue;
            }
            let h = self.runs[r as usize].rows[i as usize].phi0_hash;
            if !seen.insert(h) {
                continue;
            }
            rows.push(MatrixRow {
                phi0_hash: h,
                cells: by_hash.iter().map(|m| m.get(&h).copied()).collect(),
            });
        }
        MatrixView {
            col: col_of.get(&anchor).copied().unwrap_or(0),
            columns,
            rows,
            cursor: ListCursor::default(),
            col_offset: std::cell::Cell::new(0),
            generation: self.listing.generation,
            dataset: self
                .runs
                .get(anchor)
                .map(crate::tui::data::RunIndex::kind)
                .unwrap_or_default(),
        }
    }

    /// The matrix rebuilt after the list changed, its cursor kept on the same φ₀ and run.
    pub(crate) fn rebuilt_matrix(&self, old: &MatrixView) -> MatrixView {
        let anchor = old
            .columns
            .get(old.col)
            .or(old.columns.first())
            .copied()
            .unwrap_or(0);
        let mut m = self.matrix(anchor);
        let keep = old.rows.get(old.cursor.sel).map(|r| r.phi0_hash);
        m.cursor.sel = keep
            .and_then(|h| m.rows.iter().position(|r| r.phi0_hash == h))
            .unwrap_or(0);
        m
    }

    /// The verdict in a cell.
    pub fn cell_verdict(&self, run: usize, row: Option<u32>) -> Option<VerdictKind> {
        row.map(|i| self.runs[run].rows[i as usize].verdict)
    }

    /// Selects the sample `at` in the list (clearing filters and search when they hide
    /// it, as a jump does); returns whether they had to be cleared.
    pub(crate) fn select_sample(&mut self, at: (u32, u32)) -> bool {
        let mut cleared = false;
        if !self.listing.visible.contains(&at) {
            self.listing.filter = super::Filter::default();
            self.listing.search.field.text.clear();
            self.refilter();
            cleared = true;
        }
        if let Some(k) = self.listing.visible.iter().position(|v| *v == at) {
            self.listing.sample_list.sel = k;
            self.listing.generation += 1;
        }
        cleared
    }
}
