//! Same φ₀ across runs, side by side.

use super::super::{block, text};
use super::{centered, close_key};
use crate::tui::app::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::model::{CompareColumn, CompareView};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Same φ₀ across runs, side by side, with the first two φ₁ diffed.
pub fn compare(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let r = centered(
        area,
        area.width.saturating_sub(2),
        area.height.saturating_sub(1),
    );
    f.render_widget(Clear, r);
    let outer = block(
        &format!("Compare across runs · {} closes", close_key(app)),
        r,
        true,
        t,
    );
    let inner = outer.inner(r);
    f.render_widget(outer, r);
    let Some(view) = app.compare() else { return };
    let head = Paragraph::new(Line::from(vec![
        Span::styled("φ₀ ", Style::default().fg(t.title)),
        Span::raw(view.phi0.clone()),
    ]))
    .wrap(Wrap { trim: false });
    let diff_h = if view.phi1_diff.is_empty() {
        1
    } else {
        (view.phi1_diff.len() as u16 + 1).min(inner.height / 3)
    };
    let [top, cols_area, bottom] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(diff_h),
    ])
    .areas(inner);
    f.render_widget(head, top);
    // At most three columns side by side; more runs than that are listed in the last.
    let shown = view.columns.len().clamp(1, 3);
    let areas =
        Layout::horizontal(vec![Constraint::Ratio(1, shown as u32); shown]).split(cols_area);
    for (k, area) in areas.iter().enumerate() {
        let cols: &[CompareColumn] = if k + 1 == shown {
            &view.columns[k..]
        } else {
            std::slice::from_ref(&view.columns[k])
        };
        column(f, *area, cols, t);
    }
    if view.columns.len() < 2 {
        f.render_widget(
            Paragraph::new(Span::styled(
                "no other run has this φ₀",
                Style::default().fg(t.muted),
            )),
            bottom,
        );
        return;
    }
    f.render_widget(
        Paragraph::new(diff_lines(app, view, t)).wrap(Wrap { trim: true }),
        bottom,
    );
}

/// One column of runs' answers in `area`: each run's name, model and verdict, its ψ and
/// its φ₁.
fn column(f: &mut Frame, area: Rect, cols: &[CompareColumn], t: &Theme) {
    let title = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
    // Rows cut here at words (a run or model name is never split mid-word when a
    // space or `-` is in reach), ψ with its own line breaks, each value's wrapped
    // rows under the value.
    let w = usize::from(area.width.saturating_sub(1)).max(1);
    let mut lines = Vec::new();
    for c in cols {
        let head = format!("{} · {} · ", c.run, c.model);
        let rows = text::word_wrap(&format!("{head}{}", c.verdict.name()), w);
        let n = rows.len();
        for (k, row) in rows.into_iter().enumerate() {
            // The verdict (the last word) in its colour.
            let verdict = c.verdict.name();
            if k + 1 == n
                && let Some(before) = row.strip_suffix(verdict)
            {
                lines.push(Line::from(vec![
                    Span::styled(before.to_string(), title),
                    Span::styled(verdict, Style::default().fg(t.verdict_color(c.verdict))),
                ]));
            } else {
                lines.push(Line::from(Span::styled(row, title)));
            }
        }
        let psi = crate::base::sanitize::for_terminal(&c.psi);
        labelled(&mut lines, "ψ  ", &psi, w, t);
        let phi1 = if c.phi1.is_empty() {
            "—"
        } else {
            c.phi1.as_str()
        };
        labelled(&mut lines, "φ₁ ", phi1, w, t);
        lines.push(Line::from(""));
    }
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::LEFT)
                .border_style(Style::default().fg(t.border)),
        ),
        area,
    );
}

/// The picked pair's φ₁ diffed: the changed subformulas with what changed.
fn diff_lines(app: &App, view: &CompareView, t: &Theme) -> Vec<Line<'static>> {
    let (a, b) = view.pair;
    let pick = if view.columns.len() > 2 {
        format!(
            " · {}/{} picks the other run",
            app.key_name(Context::Overlay, Action::PrevTab),
            app.key_name(Context::Overlay, Action::NextTab)
        )
    } else {
        String::new()
    };
    let name = |k: usize| view.columns.get(k).map_or("", |c| c.run.as_str());
    let mut dl = vec![Line::from(Span::styled(
        format!("φ₁ of {} vs φ₁ of {}{pick}", name(a), name(b)),
        Style::default().fg(t.title),
    ))];
    if view.phi1_diff.is_empty() {
        dl[0] = Line::from(Span::styled(
            "φ₁ vs φ₁: one of them did not parse",
            Style::default().fg(t.muted),
        ));
    }
    for l in view.phi1_diff.iter().filter(|l| l.change.is_change()) {
        dl.push(Line::from(vec![
            Span::raw(format!(
                "  {} │ {}",
                l.left.clone().unwrap_or_default(),
                l.right.clone().unwrap_or_default()
            )),
            Span::styled(
                format!("  ◀ {}", l.change.describe()),
                Style::default().fg(t.diff_changed),
            ),
        ]));
    }
    if view.phi1_diff.iter().all(|l| !l.change.is_change()) && !view.phi1_diff.is_empty() {
        dl.push(Line::from(Span::styled(
            "  the same φ₁",
            Style::default().fg(t.muted),
        )));
    }
    dl
}

/// `label` then `value` at words in `w` columns, its wrapped rows and further lines
/// under the value.
fn labelled(lines: &mut Vec<Line<'static>>, label: &str, value: &str, w: usize, t: &Theme) {
    let pad = " ".repeat(text::width(label));
    for (k, row) in text::hanging(value, label, &pad, w).into_iter().enumerate() {
        match row.strip_prefix(label) {
            Some(rest) if k == 0 => lines.push(Line::from(vec![
                Span::styled(label.to_string(), Style::default().fg(t.title)),
                Span::raw(rest.to_string()),
            ])),
            _ => lines.push(Line::from(Span::raw(row))),
        }
    }
}
