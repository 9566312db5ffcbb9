//! The run catalogue: the run list across the whole top row while it has focus, one
//! column per fact about a run (status, created, samples, pass rate, cost, prompt set,
//! shots, model), as many as fit, sorted by `s` / `d`.

use super::block;
use super::text::clip;
use crate::tui::app::App;
use crate::tui::components::run_sort::RunSortKey;
use crate::tui::data::RunIndex;
use crate::tui::keymap::{Action, Context};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A catalogue column: header, width, the sort key it shows, right-aligned or not.
struct Col {
    head: &'static str,
    w: usize,
    key: Option<RunSortKey>,
    right: bool,
}

/// The columns beside the name, most telling first: the first ones that fit are drawn.
const COLS: [Col; 8] = [
    Col {
        head: "status",
        w: 11,
        key: Some(RunSortKey::Status),
        right: false,
    },
    Col {
        head: "samples",
        w: 9,
        key: Some(RunSortKey::Samples),
        right: true,
    },
    Col {
        head: "pass",
        w: 6,
        key: Some(RunSortKey::Pass),
        right: true,
    },
    Col {
        head: "created",
        w: 16,
        key: Some(RunSortKey::Created),
        right: false,
    },
    Col {
        head: "cost",
        w: 8,
        key: Some(RunSortKey::Cost),
        right: true,
    },
    Col {
        head: "shots",
        w: 5,
        key: None,
        right: true,
    },
    Col {
        head: "prompts",
        w: 12,
        key: None,
        right: false,
    },
    Col {
        head: "model",
        w: 16,
        key: None,
        right: false,
    },
];

/// The name column's least width.
const NAME_MIN: usize = 14;

/// A run's cell in column `k` of [`COLS`].
fn cell(app: &App, r: &RunIndex, k: usize) -> String {
    let blind = app.model.blind.is_some();
    match k {
        0 => r.status().to_string(),
        1 => match (r.progress(), r.total()) {
            (Some(_), Some(total)) => format!("{}/{total}", r.rows.len()),
            _ => r.rows.len().to_string(),
        },
        2 if blind => "·".into(),
        2 => r
            .accuracy()
            .map_or_else(|| "–".into(), |a| format!("{:.1}%", a * 100.0)),
        3 => r.created(),
        4 if blind => "·".into(),
        4 => r.cost.map_or_else(|| "–".into(), |c| format!("${c:.4}")),
        5 => r.prompts().map_or_else(|| "?".into(), |p| p.1.to_string()),
        6 => r.prompts().map_or_else(|| "?".into(), |p| p.0),
        _ if blind => "·".into(),
        _ => r.model(),
    }
}

fn pad(s: &str, w: usize, right: bool) -> String {
    let s = clip(s, w).trim_end().to_string();
    let fill = " ".repeat(w.saturating_sub(super::text::width(&s)));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// Draws the catalogue in `area`.
pub fn catalogue(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let k = |a| app.key_name(Context::Normal, a);
    let sort = app.panes.run_sort;
    let mut title = format!(
        "Runs · catalogue · {} sorts · {} reverses · {} shows/hides",
        k(Action::Sort),
        k(Action::SortReverse),
        k(Action::ToggleRun)
    );
    if sort.key.is_some() {
        title = format!("{title} · {}", sort.describe());
    }
    let b = block(&title, area, true, t);
    let inner = b.inner(area);
    f.render_widget(b, area);
    let w = usize::from(inner.width);
    let order = app.model.run_order(sort);
    let l = Columns::new(app, &order, w);
    let mut lines = vec![l.header(app, t)];
    let h = usize::from(inner.height).saturating_sub(1);
    let off = app
        .panes
        .run_list
        .offset
        .place(app.panes.run_list.sel, order.len(), h);
    for (pos, &i) in order.iter().enumerate().skip(off).take(h) {
        let r = &app.model.runs[i];
        let shown =
            app.model.listing.filter.runs.is_empty() || app.model.listing.filter.runs.contains(&i);
        let mut text = format!(
            "{} {}",
            if shown { "●" } else { "○" },
            pad(&l.names[pos], l.name_w, false)
        );
        for &c in &l.cols {
            text.push(' ');
            text.push_str(&pad(&cell(app, r, c), l.ws[c], COLS[c].right));
        }
        let mut style = Style::default().fg(if shown { t.fg } else { t.muted });
        if pos == app.panes.run_list.sel {
            style = style.fg(t.selection_fg).bg(t.selection_bg);
        }
        lines.push(Line::from(Span::styled(clip(&text, w), style)));
    }
    if app.model.runs.is_empty() {
        lines.push(Line::from(Span::styled(
            "no runs found",
            Style::default().fg(t.warning),
        )));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The catalogue's columns in a pane `w` wide: which show, their widths, and the run
/// names told apart in the name column.
struct Columns {
    /// The columns shown, as indices into [`COLS`].
    cols: Vec<usize>,
    /// Every column's width.
    ws: Vec<usize>,
    name_w: usize,
    /// The runs' names in `order`.
    names: Vec<String>,
}

impl Columns {
    /// As many columns as leave the name its least width; room the names do not need
    /// goes to the model column.
    fn new(app: &App, order: &[usize], w: usize) -> Self {
        let mut used = 2 + NAME_MIN;
        let cols: Vec<usize> = (0..COLS.len())
            .take_while(|&c| {
                used += COLS[c].w + 1;
                used <= w
            })
            .collect();
        let mut name_w = w
            .saturating_sub(2 + cols.iter().map(|&c| COLS[c].w + 1).sum::<usize>())
            .max(NAME_MIN);
        let names: Vec<String> = order
            .iter()
            .map(|&i| crate::tui::ui::panes::run_name(app, i))
            .collect();
        // Room the names do not need goes to the model column, up to its longest model
        // (16 columns cut `openrouter:google/gemma-3-27b-it` on any screen).
        let mut ws: Vec<usize> = COLS.iter().map(|c| c.w).collect();
        if let Some(&model) = cols.iter().find(|&&c| c == COLS.len() - 1) {
            let need = |v: &mut dyn Iterator<Item = String>| {
                v.map(|s| super::text::width(&s)).max().unwrap_or(0)
            };
            let name_need = need(&mut names.iter().cloned()).max(NAME_MIN);
            let model_need = need(&mut order.iter().map(|&i| cell(app, &app.model.runs[i], model)));
            let extra = model_need
                .saturating_sub(ws[model])
                .min(name_w.saturating_sub(name_need));
            ws[model] += extra;
            name_w -= extra;
        }
        let names = crate::tui::model::names::distinct(&names, name_w);
        Self {
            cols,
            ws,
            name_w,
            names,
        }
    }

    /// The header line; the sorted column's head highlighted with its direction.
    fn header(&self, app: &App, t: &Theme) -> Line<'static> {
        let sort = app.panes.run_sort;
        let head_style = |key: Option<RunSortKey>| {
            let s = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
            if key.is_some() && key == sort.key {
                s.fg(t.highlight)
            } else {
                s
            }
        };
        let mark = |key: Option<RunSortKey>, head: &str| {
            if key.is_some() && key == sort.key {
                format!("{head}{}", if sort.desc { "▼" } else { "▲" })
            } else {
                head.to_string()
            }
        };
        let mut head = vec![Span::styled(
            pad(
                &format!("  {}", mark(Some(RunSortKey::Name), "name")),
                self.name_w + 2,
                false,
            ),
            head_style(Some(RunSortKey::Name)),
        )];
        for &c in &self.cols {
            let col = &COLS[c];
            head.push(Span::raw(" "));
            head.push(Span::styled(
                pad(&mark(col.key, col.head), self.ws[c], col.right),
                head_style(col.key),
            ));
        }
        Line::from(head)
    }
}
