//! The matrix view: φ₀ down the side, the dataset's runs across, each cell the run's
//! verdict as a glyph in its theme colour; the selected cell's sample named below.

use crate::tui::app::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::model::matrix::{MatrixRow, MatrixView, glyph};
use crate::tui::theme::Theme;
use crate::tui::ui::text::{clip, width};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// Width of a run column (a short name; the glyph sits in its middle).
const COL_W: usize = 9;
/// The widest a column grows for its run's name to be told apart.
const MAX_COL_W: usize = 22;
/// The φ₀ column's least width.
const PHI0_MIN: usize = 16;

/// The first column drawn so that `sel` is in view with `fit` columns, moved as little
/// as possible from `off`.
fn col_window(off: usize, sel: usize, fit: usize, n: usize) -> usize {
    let fit = fit.max(1);
    let mut off = off;
    if sel < off {
        off = sel;
    } else if sel >= off + fit {
        off = sel + 1 - fit;
    }
    off.min(n.saturating_sub(fit))
}

/// Draws the matrix over `area` (the screen above the status lines).
pub fn matrix(f: &mut Frame, area: Rect, app: &App, m: &MatrixView, t: &Theme) {
    let title = format!(
        "Matrix · {} · {} φ₀ × {} runs · {}",
        m.dataset,
        m.rows.len(),
        m.columns.len(),
        app.filter_summary()
    );
    let b = super::super::block(&title, area, true, t);
    let inner = b.inner(area);
    f.render_widget(Clear, area);
    f.render_widget(b, area);
    let w = usize::from(inner.width);
    let h = usize::from(inner.height);
    if w == 0 || h < 3 {
        return;
    }
    let grid = Grid::new(app, m, w);
    let mut lines = Vec::with_capacity(h);
    lines.push(grid.header(m, t));
    // Rows, leaving the last line for the selected cell.
    let rows_h = h - 2;
    app.panes.matrix_rows.set(rows_h);
    let top = m.cursor.offset.place(m.cursor.sel, m.rows.len(), rows_h);
    for (k, row) in m.rows.iter().enumerate().skip(top).take(rows_h) {
        lines.push(grid.row(app, m, row, k == m.cursor.sel, t));
    }
    if m.rows.is_empty() {
        lines.push(Line::from(Span::styled(
            "no φ₀ of this dataset in the list (the filter or search hides them)",
            Style::default().fg(t.warning),
        )));
    }
    while lines.len() < h - 1 {
        lines.push(Line::default());
    }
    lines.push(Line::from(Span::styled(
        clip(&cell_line(app, m), w),
        Style::default().fg(t.highlight),
    )));
    f.render_widget(Paragraph::new(lines), inner);
}

/// The columns drawn: which runs, how wide, and the φ₀ column's width.
struct Grid {
    /// The first run column shown.
    off: usize,
    /// The run columns shown.
    shown: Vec<usize>,
    col_w: usize,
    phi0_w: usize,
    /// The runs' names told apart in `col_w - 1` columns.
    names: Vec<String>,
}

impl Grid {
    /// Columns that fit beside the φ₀ column in `w`; the rest scroll with the column
    /// cursor (its offset kept in `m`).
    fn new(app: &App, m: &MatrixView, w: usize) -> Self {
        let names: Vec<String> = m
            .columns
            .iter()
            .map(|&r| crate::tui::ui::panes::run_name(app, r))
            .collect();
        // Columns widen (fewer fit) until every run's head is told apart by its own text:
        // 0-shot and 2-shot twins read `…qwen-0…` twice at nine columns.
        let col_w = (COL_W..=MAX_COL_W)
            .find(|&cw| crate::tui::model::names::apart_by_text(&names, cw - 1))
            .unwrap_or(MAX_COL_W);
        let fit = (w.saturating_sub(PHI0_MIN + 1) / col_w).clamp(1, m.columns.len().max(1));
        let off = col_window(m.col_offset.get(), m.col, fit, m.columns.len());
        m.col_offset.set(off);
        let shown: Vec<usize> = (off..m.columns.len()).take(fit).collect();
        let phi0_w = w.saturating_sub(shown.len() * col_w + 1).max(1);
        let names = crate::tui::model::names::distinct(&names, col_w - 1);
        Self {
            off,
            shown,
            col_w,
            phi0_w,
            names,
        }
    }

    /// The header: the run names, the selected one highlighted; arrows when columns
    /// scroll.
    fn header(&self, m: &MatrixView, t: &Theme) -> Line<'static> {
        let left_more = if self.off > 0 { "◀ " } else { "" };
        let right_more = if self.off + self.shown.len() < m.columns.len() {
            " ▶"
        } else {
            ""
        };
        let head = format!("{left_more}φ₀{right_more}");
        let mut spans = vec![Span::styled(
            format!("{} ", clip(&head, self.phi0_w)),
            Style::default().fg(t.muted),
        )];
        for &c in &self.shown {
            let style = if c == m.col {
                Style::default()
                    .fg(t.highlight)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(t.title)
            };
            spans.push(Span::styled(
                format!("{} ", clip(&self.names[c], self.col_w - 1)),
                style,
            ));
        }
        Line::from(spans)
    }

    /// A φ₀'s row: the formula, then each shown run's verdict glyph.
    fn row(
        &self,
        app: &App,
        m: &MatrixView,
        row: &MatrixRow,
        selected: bool,
        t: &Theme,
    ) -> Line<'static> {
        let model = &app.model;
        let col_w = self.col_w;
        let text = row
            .cells
            .iter()
            .zip(&m.columns)
            .find_map(|(cell, &r)| {
                cell.map(|i| model.runs[r].phi0(&model.runs[r].rows[i as usize]))
            })
            .unwrap_or_default();
        let base = if selected {
            Style::default().fg(t.selection_fg).bg(t.selection_bg)
        } else {
            Style::default().fg(t.fg)
        };
        let mut spans = vec![Span::styled(
            format!(
                "{} ",
                clip(&crate::base::sanitize::one_line(&text), self.phi0_w)
            ),
            base,
        )];
        for &c in &self.shown {
            let kind = model.cell_verdict(m.columns[c], row.cells[c]);
            let g = glyph(kind);
            let pad = (col_w - 1 - width(g)) / 2;
            let mut style = Style::default().fg(kind.map_or(t.muted, |k| t.verdict_color(k)));
            if selected && c == m.col {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            } else if selected {
                style = style.bg(t.selection_bg);
            }
            spans.push(Span::styled(
                format!(
                    "{}{g}{} ",
                    " ".repeat(pad),
                    " ".repeat(col_w - 1 - pad - width(g))
                ),
                style,
            ));
        }
        Line::from(spans)
    }
}

/// The selected cell in words, with the keys that act on it.
fn cell_line(app: &App, m: &MatrixView) -> String {
    let keys = app.keymap.hint_line(
        Context::Matrix,
        &[(Action::Open, "opens"), (Action::Back, "back")],
    );
    let Some(&run) = m.columns.get(m.col) else {
        return keys;
    };
    let name = crate::tui::ui::panes::run_name(app, run);
    match m.selected() {
        Some(at) => {
            let kind = app.model.runs[run].rows[at.1 as usize].verdict;
            format!(
                "{} · sample {} · {} · {keys}",
                crate::base::sanitize::one_line(&name),
                crate::base::sanitize::one_line(app.model.id_of(at)),
                kind.name()
            )
        }
        None if m.rows.is_empty() => keys,
        None => format!(
            "{} · no sample with this φ₀ · {keys}",
            crate::base::sanitize::one_line(&name)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::col_window;

    #[test]
    fn the_column_window_keeps_the_selected_run_in_view() {
        assert_eq!(col_window(0, 0, 3, 10), 0);
        assert_eq!(col_window(0, 5, 3, 10), 3);
        assert_eq!(col_window(3, 4, 3, 10), 3, "in view: no scroll");
        assert_eq!(col_window(3, 1, 3, 10), 1);
        assert_eq!(col_window(8, 9, 3, 4), 1, "never past the last column");
    }
}
