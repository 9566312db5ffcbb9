//! Loading warnings.

use super::super::block;
use super::{centered, close_key};
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// Loading warnings.
pub fn warnings(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let lines: Vec<Line> = if app.model.warnings.is_empty() {
        vec![Line::from("no warnings")]
    } else {
        app.model
            .warnings
            .iter()
            .map(|w| {
                Line::from(Span::styled(
                    crate::base::sanitize::one_line(w).into_owned(),
                    Style::default().fg(t.warning),
                ))
            })
            .collect()
    };
    let r = centered(
        area,
        area.width.saturating_sub(6),
        area.height.saturating_sub(4),
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(
                &format!("Warnings · {} closes", close_key(app)),
                r,
                true,
                t,
            )),
        r,
    );
}
