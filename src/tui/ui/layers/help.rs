//! The help overlay, generated from the keymap.

use super::super::block;
use super::{centered, close_key, scroll_keys};
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// The help overlay, generated from the keymap (two columns when the screen is short).
pub fn help(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let lines = key_lines(app, t);
    let w = area.width.saturating_sub(4).min(90);
    // Rows after wrapping, so the last line can be scrolled into view.
    let inner_w = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_w).max(1))
        .sum();
    let rows = rows.min(u16::MAX as usize - 2) as u16;
    let h = (rows + 2).min(area.height.saturating_sub(1));
    let r = centered(area, w, h);
    let max_scroll = (rows + 2).saturating_sub(h);
    if let Some(o) = app
        .layers
        .last()
        .and_then(crate::tui::layer::Layer::overlay)
    {
        o.shown.set((h.saturating_sub(2), max_scroll));
    }
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((app.overlay_scroll().min(max_scroll), 0))
            .block(block(
                &format!(
                    "Help · {} scroll · {} closes",
                    scroll_keys(app),
                    close_key(app)
                ),
                r,
                true,
                t,
            )),
        r,
    );
}

/// Every context's keys under its title, then how to change them.
fn key_lines(app: &App, t: &Theme) -> Vec<Line<'static>> {
    use crate::tui::keymap::{Context, Keymap};
    let key_w = app
        .keymap
        .bindings
        .iter()
        .map(|b| crate::tui::ui::text::width(&Keymap::keys_text(b)))
        .max()
        .unwrap_or(8)
        .min(24);
    let head = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::from(Span::styled(
        "keys (one keymap: every footer and this list come from it)",
        head,
    ))];
    for ctx in Context::ALL {
        if ctx != Context::Normal {
            lines.push(Line::from(""));
            let tail = if ctx.fallback().is_some() {
                " · other keys as when browsing"
            } else {
                ""
            };
            lines.push(Line::from(Span::styled(
                format!("{}{tail}", app.keymap.title(ctx)),
                head,
            )));
        }
        for b in app.keymap.of(ctx) {
            lines.push(Line::from(vec![
                Span::styled(
                    crate::tui::ui::text::clip(&Keymap::keys_text(b), key_w),
                    Style::default().fg(t.highlight),
                ),
                Span::raw("  "),
                Span::raw(b.desc.to_string()),
            ]));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "wheel scrolls · click selects",
        Style::default().fg(t.muted),
    )));
    lines.push(Line::from(Span::styled(
        format!(
            "change keys in ~/.config/autoeval/config.toml: [keys] for browsing, [keys.<mode>] ({}) for the rest",
            Context::config_modes()
        ),
        Style::default().fg(t.muted),
    )));
    lines
}
