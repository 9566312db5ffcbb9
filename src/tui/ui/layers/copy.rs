//! The copy menu: what each digit copies, with the text it would copy, and the
//! `verify --explain` command in full (wrapped) so it can also be selected by hand.

use super::{centered, close_key};
use crate::base::sanitize::one_line;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::ui::text::clip;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// The copy menu.
pub fn copy(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(texts) = app.copy_texts() else {
        return;
    };
    let w = area.width.saturating_sub(4).min(100);
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let mut lines = Vec::new();
    let blind = app.panes.detail.as_ref().is_some_and(|d| d.blind.is_some());
    for (k, (digit, what)) in crate::tui::app::copy::CHOICES.iter().enumerate() {
        // Blind: 3 copies the reply as written (φ₁'s parse would tell).
        let what = if blind && k == 2 { &"the reply" } else { what };
        let shown = match (&texts[k], k) {
            (None, 3 | 4) if blind => "(blind: label the sample first)".to_string(),
            (None, _) => "(none)".to_string(),
            // The command is shown whole below.
            (Some(_), 4) => String::new(),
            (Some(s), _) => one_line(s).into_owned(),
        };
        let head = format!("{digit}  {what}  ");
        let room = inner.saturating_sub(crate::tui::ui::text::width(&head));
        lines.push(Line::from(vec![
            Span::styled(head, Style::default().fg(t.title)),
            Span::styled(
                clip(&shown, room).trim_end().to_string(),
                Style::default().fg(t.fg),
            ),
        ]));
    }
    if let Some(cmd) = &texts[4] {
        lines.push(Line::from(Span::styled(
            one_line(cmd).into_owned(),
            Style::default().fg(t.highlight),
        )));
    }
    lines.push(Line::from(Span::styled(
        format!(
            "a digit copies through the terminal (OSC 52, also over SSH) · {} closes",
            close_key(app)
        ),
        Style::default().fg(t.muted),
    )));
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let r = centered(area, w, u16::try_from(rows + 2).unwrap_or(u16::MAX));
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(super::block("Copy", r, true, t)),
        r,
    );
}
