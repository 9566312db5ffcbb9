//! The adjudication layer: every annotator's categories and notes side by side, and
//! the settled set being picked.

use super::super::block;
use super::centered;
use crate::base::sanitize::one_line;
use crate::tui::app::App;
use crate::tui::components::adjudicate::Adjudication;
use crate::tui::keymap::{Action, Context};
use crate::tui::layer::Layer;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// The adjudication layer.
pub fn adjudicate(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(Layer::Adjudicate(adj)) = app.layers.last() else {
        return;
    };
    let muted = Style::default().fg(t.muted);
    let w = area.width.saturating_sub(4).min(90);
    let inner = usize::from(w.saturating_sub(2)).max(1);
    // The pair being judged comes first: the overlay covers the detail pane.
    let mut lines = formulas(app, &adj.id, inner, t);
    opinion_lines(app, adj, t, &mut lines);
    option_lines(app, adj, t, &mut lines);
    let key = |a| app.keymap.hint(Context::Adjudicate, a);
    lines.push(Line::from(Span::styled(
        format!(
            "{} ticks · a category's key adds any other · {} records as {} · {} cancels",
            key(Action::Toggle),
            key(Action::Confirm),
            one_line(&app.model.annotator),
            key(Action::Back)
        ),
        muted,
    )));
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(
                &format!("Adjudicate sample {}", one_line(&adj.id)),
                r,
                true,
                t,
            )),
        r,
    );
}

/// Categories by name, or that nothing is wrong.
fn names(app: &App, cats: &[String]) -> String {
    if cats.is_empty() {
        "(nothing wrong)".to_string()
    } else {
        cats.iter()
            .map(|c| app.model.taxonomy.name(c))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Each annotator's categories and note, and the set settled before, if any.
fn opinion_lines(app: &App, adj: &Adjudication, t: &Theme, lines: &mut Vec<Line<'static>>) {
    let muted = Style::default().fg(t.muted);
    for o in &adj.opinions {
        let mut l = vec![
            Span::styled(
                format!(
                    "{}{}: ",
                    one_line(&o.annotator),
                    if o.blind { " (blind)" } else { "" }
                ),
                Style::default().fg(t.title),
            ),
            Span::styled(
                one_line(&names(app, &o.categories)).into_owned(),
                Style::default().fg(t.diff_changed),
            ),
        ];
        if !o.note.is_empty() {
            l.push(Span::styled(format!(" · {}", one_line(&o.note)), muted));
        }
        lines.push(Line::from(l));
    }
    if let Some((cats, by)) = &adj.settled {
        lines.push(Line::from(Span::styled(
            format!(
                "settled before by {}: {}",
                one_line(by),
                one_line(&names(app, cats))
            ),
            muted,
        )));
    }
}

/// The categories to settle on, ticked where chosen, each with who named it.
fn option_lines(app: &App, adj: &Adjudication, t: &Theme, lines: &mut Vec<Line<'static>>) {
    let tax = &app.model.taxonomy;
    lines.push(Line::from(Span::styled(
        "settle as:",
        Style::default().fg(t.title),
    )));
    if adj.options.is_empty() {
        lines.push(Line::from(Span::styled(
            "  nobody named a category: recording says nothing is wrong",
            Style::default().fg(t.muted),
        )));
    }
    for (k, id) in adj.options.iter().enumerate() {
        let tick = if adj.chosen.contains(id) { "x" } else { " " };
        let key = tax.by_id(id).map_or("?", |c| c.key.as_str());
        let by = adj.named_by(id);
        let text = format!(
            "[{tick}] {} {}  ← {}",
            one_line(key),
            one_line(tax.name(id)),
            if by.is_empty() {
                "nobody".to_string()
            } else {
                one_line(&by.join(", ")).into_owned()
            }
        );
        let style = if k == adj.cursor {
            Style::default()
                .fg(t.selection_fg)
                .bg(t.selection_bg)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(t.fg)
        };
        lines.push(Line::from(Span::styled(text, style)));
    }
}

/// φ₀, ψ and φ₁ of the sample being settled: φ₀ and φ₁ on a line each, ψ on at most
/// three, so the choices below stay on an 80×24 screen.
fn formulas(app: &App, id: &str, inner: usize, t: &Theme) -> Vec<Line<'static>> {
    use crate::tui::ui::text::clip;
    let Some(rec) = app
        .panes
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref().ok())
        .filter(|r| r.id == id)
    else {
        return vec![];
    };
    let round = rec.rounds.first();
    let psi = round.and_then(|r| r.psi.as_deref()).unwrap_or("(none)");
    let phi1 = round.and_then(|r| r.phi1.as_deref()).unwrap_or("(none)");
    let tag = Style::default().fg(t.title);
    let text = Style::default().fg(t.fg);
    let line = |name: &'static str, s: &str, rows: usize| {
        Line::from(vec![
            Span::styled(name, tag),
            Span::styled(
                clip(&one_line(s), (rows * inner).saturating_sub(3))
                    .trim_end()
                    .to_string(),
                text,
            ),
        ])
    };
    vec![
        line("φ₀ ", &rec.phi0, 1),
        line("ψ  ", psi, 3),
        line("φ₁ ", phi1, 1),
        Line::from(""),
    ]
}
