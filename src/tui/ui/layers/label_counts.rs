//! Label counts by category and bucket.

use super::super::block;
use super::{centered, close_key};
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// Label counts by category × operator count (or depth).
pub fn label_counts(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let counts = &app.model.derived.label_counts;
    let buckets: std::collections::BTreeSet<usize> =
        counts.values().flat_map(|m| m.keys().copied()).collect();
    let max = counts
        .values()
        .flat_map(|m| m.values().copied())
        .max()
        .unwrap_or(1)
        .max(1);
    let name_w = 24;
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:name_w$} {}  total",
            "",
            buckets
                .iter()
                .map(|b| format!("{b:>3}"))
                .collect::<String>()
        ),
        Style::default().fg(t.muted),
    ))];
    for (c, m) in counts {
        let mut spans = vec![Span::styled(
            format!(
                "{:name_w$} ",
                app.model
                    .taxonomy
                    .name(c)
                    .chars()
                    .take(name_w)
                    .collect::<String>()
            ),
            Style::default().fg(t.title),
        )];
        for b in &buckets {
            spans.push(cell(m.get(b).copied().unwrap_or(0), max, t));
        }
        spans.push(Span::raw(format!("  {:>5}", m.values().sum::<usize>())));
        lines.push(Line::from(spans));
    }
    if counts.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(
                "no labels yet: select a sample and press {}",
                app.keymap.hint(
                    crate::tui::keymap::Context::Normal,
                    crate::tui::keymap::Action::Label
                )
            ),
            Style::default().fg(t.muted),
        )));
    }
    let by = if app.model.by == crate::report::By::Operators {
        "operators"
    } else {
        "depth"
    };
    let r = centered(area, area.width.saturating_sub(4), lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(block(
            &format!("Labels by category × {by} · {} closes", close_key(app)),
            r,
            true,
            t,
        )),
        r,
    );
}

/// A count of labels in a bucket (of at most `max` in any): `·` for none, highlighted
/// above half the most.
fn cell(n: usize, max: usize, t: &Theme) -> Span<'static> {
    let text = if n == 0 {
        "  ·".to_string()
    } else {
        format!("{n:>3}")
    };
    let color = if n == 0 {
        t.muted
    } else if n * 2 > max {
        t.highlight
    } else {
        t.fg
    };
    Span::styled(text, Style::default().fg(color))
}
