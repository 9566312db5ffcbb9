//! One file per layer: each draws its layer over the browsing screen.

mod adjudicate;
mod compare;
mod copy;
mod filter;
mod help;
mod label_counts;
mod labels;
mod matrix;
mod new_run;
mod rank;
mod run_summary;
mod warnings;

pub use adjudicate::adjudicate;
pub use compare::compare;
pub use copy::copy;
pub use filter::filter;
pub use help::help;
pub use label_counts::label_counts;
pub use labels::labels;
pub use matrix::matrix;
pub use new_run::new_run;
pub use rank::rank;
pub use run_summary::run_summary;
pub use warnings::warnings;

use super::block;
use crate::tui::app::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::layer::Layer;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

pub(super) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The key that closes an overlay, from the keymap.
pub(super) fn close_key(app: &App) -> String {
    app.key_name(Context::Overlay, Action::Back)
}

/// The keys that scroll an overlay (`j/k`), from the keymap.
pub(super) fn scroll_keys(app: &App) -> String {
    format!(
        "{}/{}",
        app.key_name(Context::Overlay, Action::Down),
        app.key_name(Context::Overlay, Action::Up)
    )
}

pub(super) fn draw_overlay(
    f: &mut Frame,
    area: Rect,
    lines: Vec<Line>,
    title: &str,
    overlay: Option<&crate::tui::components::overlay::Overlay>,
    t: &Theme,
) {
    let scroll = overlay.map_or(0, |o| o.scroll);
    let w = area.width.saturating_sub(4).min(100);
    let inner_w = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_w).max(1))
        .sum();
    let rows = rows.min(u16::MAX as usize - 2) as u16;
    let h = (rows + 2).min(area.height);
    let r = centered(area, w, h);
    let max_scroll = (rows + 2).saturating_sub(h);
    if let Some(o) = overlay {
        o.shown.set((h.saturating_sub(2), max_scroll));
    }
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(max_scroll), 0))
            .block(block(title, r, true, t)),
        r,
    );
}

/// Draws `layer` over the browsing screen. Exhaustive: a new layer must say how it
/// draws, or that something else shows it.
pub(crate) fn draw(layer: &Layer, f: &mut Frame, c: &Canvas, app: &App, t: &Theme) {
    match layer {
        Layer::Help(_) => help(f, c.screen, app, t),
        Layer::Warnings(_) => warnings(f, c.screen, app, t),
        Layer::Compare(_) => compare(f, c.screen, app, t),
        Layer::RunSummary(..) => run_summary(f, c.screen, app, t),
        Layer::LabelCounts(_) => label_counts(f, c.screen, app, t),
        Layer::Filter(_) => filter(f, c.screen, app, t),
        Layer::Label(_) | Layer::Note => labels(f, c.panel, app, t, c.panel_whole),
        Layer::NewRun(_) => new_run(f, c.above_footer, app, t),
        Layer::Rank(_) => rank(f, c.screen, app, t),
        Layer::Adjudicate(_) => adjudicate(f, c.screen, app, t),
        Layer::Copy => copy(f, c.screen, app, t),
        Layer::Matrix(m) => matrix(f, c.above_status, app, m, t),
        // Shown by the browsing screen itself: the search box in the sample list's
        // title, the jump prompt in the footer, the questions in the status line, the
        // picked bucket on the chart.
        Layer::Search
        | Layer::Jump(_)
        | Layer::ConfirmCancel
        | Layer::ConfirmRescore(_)
        | Layer::Chart(_) => {}
    }
}

/// Where layers draw: the whole screen, the screen above the status lines, and the
/// label panel's place (the detail, or on a short screen the left column).
pub(crate) struct Canvas {
    /// The whole frame.
    pub screen: Rect,
    /// Above the live status line and the footer.
    pub above_status: Rect,
    /// Above the footer's key hints (a form that keeps them in view).
    pub above_footer: Rect,
    /// Where the label panel goes.
    pub panel: Rect,
    /// The panel covers the left column (a short screen) rather than the detail.
    pub panel_whole: bool,
}
