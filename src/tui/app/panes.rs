//! The browsing screen's own state: which pane has focus, the run list's cursor, the
//! detail view and the selected sample's detail, and what the last frame laid out.

use crate::tui::components::detail_view::DetailView;
use crate::tui::components::filter_edit::FilterEditor;
use crate::tui::components::list::ListCursor;
use crate::tui::model::Detail;
use ratatui::layout::Rect;
use std::cell::Cell;

/// Screen areas the event loop maps mouse clicks to.
#[derive(Clone, Copy, Debug, Default)]
pub struct Areas {
    /// Run list.
    pub runs: Rect,
    /// Sample list.
    pub samples: Rect,
    /// Detail view.
    pub detail: Rect,
    /// Chart.
    pub chart: Rect,
}

/// Panes that take focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    /// The run list.
    Runs,
    /// The sample list.
    Samples,
    /// The detail view.
    Detail,
}

/// The panes' state.
#[derive(Debug)]
pub struct Panes {
    /// Focused pane.
    pub focus: Pane,
    /// The run list's selection and scroll (positions in the catalogue's order).
    pub run_list: ListCursor,
    /// The run catalogue's sort (`s` / `d` while the run list has focus).
    pub run_sort: crate::tui::components::run_sort::RunSort,
    /// The detail pane's tab, tree toggle and scroll.
    pub detail_view: DetailView,
    /// The selected sample's detail (made in `update`, read by drawing).
    pub detail: Option<Detail>,
    /// The filter editor as it was left (it reopens there).
    pub filter_edit: FilterEditor,
    /// Where the last frame put the panes (mouse clicks map onto them).
    pub areas: Areas,
    /// Rows of the sample list on screen (for paging), as the last frame laid them out.
    pub page: Cell<usize>,
    /// The chart's first drawn run row (it scrolls to keep the focused run in view).
    pub chart_top: Cell<usize>,
    /// Category rows the label panel showed in the last frame (a page).
    pub label_rows: Cell<usize>,
    /// How far the label panel's category rows can scroll.
    pub label_rows_total: Cell<usize>,
    /// Rows of φ₀ the matrix showed in the last frame (a page).
    pub matrix_rows: Cell<usize>,
}

impl Default for Panes {
    fn default() -> Self {
        Panes {
            focus: Pane::Samples,
            run_list: ListCursor::default(),
            run_sort: crate::tui::components::run_sort::RunSort::default(),
            detail_view: DetailView::default(),
            detail: None,
            filter_edit: FilterEditor::default(),
            areas: Areas::default(),
            page: Cell::new(10),
            chart_top: Cell::new(0),
            label_rows: Cell::new(0),
            label_rows_total: Cell::new(0),
            matrix_rows: Cell::new(10),
        }
    }
}
