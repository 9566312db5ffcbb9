//! The rank view: the answers φ₁ to one φ₀ side by side with their ψ, covering the
//! browsing screen so no verdict or metric shows until the ranking is submitted.

use super::super::block;
use crate::tui::app::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::model::rank::{RankCandidate, RankView, letter};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Narrowest column worth reading; narrower screens stack the answers instead.
const MIN_COLUMN: u16 = 24;

/// The hint line: how ranks are typed, then the keymap's keys.
fn hint(app: &App, v: &RankView) -> String {
    if v.submitted {
        return app.keymap.hint_line(
            Context::Rank,
            &[(Action::Cancel, "closes"), (Action::Down, "scrolls")],
        );
    }
    let keys = app.keymap.hint_line(
        Context::Rank,
        &[
            (Action::NextField, "next answer"),
            (Action::DeleteChar, "clears"),
            (Action::Confirm, "submits"),
            (Action::Cancel, "cancels"),
        ],
    );
    format!(
        "1-{} set the highlighted answer's rank (1 = best, equal ranks tie) · {keys}",
        v.candidates.len()
    )
}

fn candidate_lines<'a>(v: &RankView, k: usize, c: &'a RankCandidate, t: &Theme) -> Vec<Line<'a>> {
    let label = Style::default().fg(t.title);
    let mut head = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
    if k == v.cursor && !v.submitted {
        head = Style::default()
            .fg(t.selection_fg)
            .bg(t.selection_bg)
            .add_modifier(Modifier::BOLD);
    }
    let rank = v.ranks[k].map_or_else(|| "rank –".to_string(), |r| format!("rank {r}"));
    let mut lines = vec![Line::from(vec![Span::styled(
        format!(" {} · {rank} ", letter(k)),
        head,
    )])];
    if v.submitted && v.reveal {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} · {}/{} · ", c.model, c.candidate.run, c.candidate.id),
                Style::default().fg(t.muted),
            ),
            Span::styled(
                c.verdict.name(),
                Style::default().fg(t.verdict_color(c.verdict)),
            ),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled("ψ  ", label),
        Span::raw(c.psi.as_str()),
    ]));
    lines.push(Line::from(vec![
        // Blind: the reply as written (φ₁'s parse would tell).
        Span::styled(if v.reveal { "φ₁ " } else { "reply " }, label),
        Span::raw(if c.phi1.is_empty() {
            "—"
        } else {
            c.phi1.as_str()
        }),
    ]));
    if v.submitted && v.reveal {
        if c.metrics.is_empty() {
            lines.push(Line::from(Span::styled(
                "no closeness metrics",
                Style::default().fg(t.muted),
            )));
        }
        for (m, x) in &c.metrics {
            lines.push(Line::from(vec![
                Span::styled(format!("{m} "), Style::default().fg(t.muted)),
                Span::raw(format!("{x:.3}")),
            ]));
        }
    }
    lines
}

/// Draws the rank view over everything but the footer.
pub fn rank(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(v) = app.rank() else { return };
    let r = Rect {
        height: area.height.saturating_sub(1),
        ..area
    };
    f.render_widget(Clear, r);
    let title = if v.submitted {
        "Rank the answers · submitted".to_string()
    } else {
        format!(
            "Rank the answers · {}/{} ranked · blind until submitted",
            v.ranked(),
            v.candidates.len()
        )
    };
    let outer = block(&title, r, true, t);
    let inner = outer.inner(r);
    f.render_widget(outer, r);
    let hint = hint(app, v);
    let w = usize::from(inner.width.max(1));
    let rows = |s: &str, extra: usize| (super::super::text::width(s) + extra).div_ceil(w).max(1);
    let head_h = (rows(&v.phi0, 3) + rows(&hint, 0)).min(usize::from(inner.height / 3)) as u16;
    let head = Paragraph::new(vec![
        Line::from(vec![
            Span::styled("φ₀ ", Style::default().fg(t.title)),
            Span::raw(v.phi0.as_str()),
        ]),
        Line::from(Span::styled(hint, Style::default().fg(t.muted))),
    ])
    .wrap(Wrap { trim: false });
    let [top, body] =
        Layout::vertical([Constraint::Length(head_h.max(2)), Constraint::Min(3)]).areas(inner);
    f.render_widget(head, top);
    let n = v.candidates.len().max(1);
    let side_by_side = body.width / n as u16 >= MIN_COLUMN;
    if side_by_side {
        let areas = Layout::horizontal(vec![Constraint::Ratio(1, n as u32); n]).split(body);
        for (k, (c, a)) in v.candidates.iter().zip(areas.iter()).enumerate() {
            let border = if k == v.cursor && !v.submitted {
                t.highlight
            } else {
                t.border
            };
            f.render_widget(
                Paragraph::new(candidate_lines(v, k, c, t))
                    .wrap(Wrap { trim: false })
                    .scroll((v.scroll, 0))
                    .block(
                        Block::default()
                            .borders(Borders::LEFT)
                            .border_style(Style::default().fg(border)),
                    ),
                *a,
            );
        }
    } else {
        // Too narrow for columns: one answer under the other, scrolled together.
        let mut lines = Vec::new();
        for (k, c) in v.candidates.iter().enumerate() {
            lines.extend(candidate_lines(v, k, c, t));
            lines.push(Line::from(""));
        }
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((v.scroll, 0)),
            body,
        );
    }
}
