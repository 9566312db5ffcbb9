//! Drawing: pure functions of the state and the theme.

pub mod catalogue;
pub(crate) mod chart;
mod chart_fit;
pub mod detail;
mod detail_blind;
mod detail_overview;
mod detail_raw;
pub mod formula;
pub mod layers;
mod list_title;
pub(crate) mod longtext;
mod longtext_wrap;
pub mod panes;
pub(crate) mod task_detail;
pub mod text;

use super::app::App;
use super::keymap::{Action, Context};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};

pub use super::app::panes::Areas;

/// A bordered pane with a title fitted to `area` (whole words, least telling parts
/// first to go); focused panes get the focus colour.
pub fn block<'a>(title: &str, area: Rect, focused: bool, t: &Theme) -> Block<'a> {
    // Two corners and a space either side of the title.
    let title = text::fit_title(title, usize::from(area.width.saturating_sub(4)));
    let border = if focused { t.border_focus } else { t.border };
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(Style::default().fg(border))
        .title(Span::styled(
            format!(" {title} "),
            Style::default().fg(t.title).add_modifier(Modifier::BOLD),
        ))
}

fn footer(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    if let Some(crate::tui::layer::Layer::Jump(field)) = app.layers.last() {
        // The jump prompt takes the footer, as a shell's `:` line does.
        let keys = app.keymap.hint_line(
            Context::Note,
            &[(Action::Confirm, "jumps"), (Action::Cancel, "cancels")],
        );
        let text = format!(
            "jump to sample (ID, or RUN/ID): {}▏ · {keys}",
            crate::base::sanitize::one_line(&field.text)
        );
        f.render_widget(
            Paragraph::new(Line::from(Span::styled(
                text::clip(&text, area.width as usize),
                Style::default().fg(t.highlight),
            ))),
            area,
        );
        return;
    }
    let mut spans = Vec::new();
    let hints = app.keymap.hints(app.context());
    // Warnings and status first: they must stay visible however narrow the screen.
    // The start-up hint about `?` is dropped when the key hints already show it.
    let help_key = app.keymap.hint(Context::Normal, Action::Help);
    let help_shown = hints.iter().any(|(k, _)| *k == help_key);
    let redundant = help_shown && app.status == crate::tui::app::help_hint(&app.keymap);
    // Statuses quote paths and errors; they are drawn safe, whoever wrote them.
    let right = if !(app.status.is_empty() || redundant) {
        crate::base::sanitize::one_line(&app.status).into_owned()
    } else if !app.model.warnings.is_empty() {
        format!(
            "⚠ {} warning(s): {}",
            app.model.warnings.len(),
            app.keymap.hint(Context::Normal, Action::Warnings)
        )
    } else {
        String::new()
    };
    let w = area.width as usize;
    // A status wider than the line ends at its last whole word and `…`, never on a
    // dangling comma (a list of runs cut off mid-name).
    let right = text::cut_at_word(&right, w);
    let budget = w.saturating_sub(text::width(&right) + usize::from(!right.is_empty()));
    let mut used = 0;
    for (k, d) in hints {
        let len = text::width(&k) + text::width(d) + 2;
        if used + len > budget {
            break;
        }
        used += len;
        spans.push(Span::styled(
            k,
            Style::default()
                .fg(t.highlight)
                .add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(format!(" {d} "), Style::default().fg(t.muted)));
    }
    if !right.is_empty() {
        spans.push(Span::raw(
            " ".repeat(w.saturating_sub(used + text::width(&right))),
        ));
        spans.push(Span::styled(right, Style::default().fg(t.warning)));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Draws the whole screen from the app as it is and returns the pane areas: drawing
/// reads the state, never changes it (the list page and the detail's scroll limit it
/// lays out are noted in cells for the next key).
pub fn view(f: &mut Frame, app: &App, t: &Theme) -> Areas {
    let area = f.area();
    f.render_widget(
        Block::default().style(Style::default().fg(t.fg).bg(t.bg)),
        area,
    );
    let top_h = if area.height >= 40 {
        11
    } else if area.height >= 28 {
        8
    } else {
        6
    };
    // A live run gets a full-width status line above the footer; so does a run another
    // process is writing (its progress from the samples that appear).
    let followed = if app.jobs.live.is_none() {
        app.followed_progress()
    } else {
        None
    };
    let live_h = u16::from(app.jobs.live.is_some() || followed.is_some());
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(top_h),
            Constraint::Min(5),
            Constraint::Length(live_h),
            Constraint::Length(1),
        ])
        .split(area);
    let top = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
        .split(rows[0]);
    let left = if area.width >= 120 { 40 } else { 45 };
    let mid = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([
            Constraint::Percentage(left),
            Constraint::Percentage(100 - left),
        ])
        .split(rows[1]);
    // The run list with focus is the catalogue, across the whole top row; the chart
    // (which follows the run under the cursor) takes the detail's place meanwhile.
    let catalogue = app.panes.focus == crate::tui::app::Pane::Runs;
    if catalogue {
        catalogue::catalogue(f, rows[0], app, t);
        chart::chart(f, mid[1], app, t);
    } else {
        panes::runs(f, top[0], app, t);
        chart::chart(f, top[1], app, t);
        detail::draw(f, mid[1], app, t);
    }
    panes::samples(f, mid[0], app, t);
    if let Some(l) = &app.jobs.live {
        live_status(f, rows[2], app, l, t);
    }
    if let Some(text) = followed {
        f.render_widget(
            Paragraph::new(Line::from(Span::styled(
                text::clip(
                    &crate::base::sanitize::one_line(&text),
                    usize::from(rows[2].width),
                ),
                Style::default().fg(t.selection_fg).bg(t.selection_bg),
            ))),
            rows[2],
        );
    }
    footer(f, rows[3], app, t);
    draw_layers(f, &canvas(area, &rows, &mid), app, t);
    Areas {
        runs: if catalogue { rows[0] } else { top[0] },
        samples: mid[0],
        detail: if catalogue { Rect::default() } else { mid[1] },
        chart: if catalogue { mid[1] } else { top[1] },
    }
}

/// The live run's status line in `area`: its header, and the reason it paused or last
/// warned as far as the line has room.
fn live_status(f: &mut Frame, area: Rect, app: &App, l: &crate::tui::live::Live, t: &Theme) {
    let width = usize::from(area.width);
    let text = match &l.last_warning {
        None => l.header_for(width),
        Some(w) => {
            // The reason (why it paused) gets room first: the header drops its least
            // telling parts; what still does not fit is in the warnings list whole.
            // The header keeps at least three fifths: state, progress, pass rate
            // and a batch's state are never given up for the reason.
            let head = l.header_for(width.saturating_sub(text::width(w) + 3).max(width * 3 / 5));
            let full = format!("{head} · {w}");
            if text::width(&full) <= width {
                full
            } else {
                let more = format!(
                    " ({} shows it whole)",
                    app.key_name(Context::Normal, Action::Warnings)
                );
                let room = width.saturating_sub(text::width(&head) + 3 + text::width(&more));
                format!("{head} · {}{more}", text::clip(w, room))
            }
        }
    };
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(
            text,
            Style::default().fg(t.selection_fg).bg(if l.paused {
                t.warning
            } else {
                t.selection_bg
            }),
        ))),
        area,
    );
}

/// Where the layers draw, from the screen's `rows` (top, middle, status, footer) and
/// the middle row's columns `mid`.
fn canvas(area: Rect, rows: &[Rect], mid: &[Rect]) -> layers::Canvas {
    // On a short screen the label panel covers the left column (run list and sample
    // list), not the detail, so φ₀, ψ and φ₁ stay readable while labelling and the
    // category names fit in full (the detail's title names the sample and run).
    layers::Canvas {
        screen: area,
        above_status: Rect {
            height: rows[2].y - area.y,
            ..area
        },
        above_footer: Rect {
            height: rows[3].y - area.y,
            ..area
        },
        panel: if mid[1].height < 24 {
            Rect {
                y: rows[0].y,
                height: rows[0].height + mid[0].height,
                ..mid[0]
            }
        } else {
            mid[1]
        },
        panel_whole: mid[1].height < 24,
    }
}

/// The open layers over the panes: the top one, and a matrix under the layers opened
/// from it (filter, help), which draw over it.
fn draw_layers(f: &mut Frame, canvas: &layers::Canvas, app: &App, t: &Theme) {
    if let Some(m) = app
        .layers
        .iter()
        .rev()
        .find(|l| matches!(l, crate::tui::layer::Layer::Matrix(_)))
        && !matches!(app.layers.last(), Some(crate::tui::layer::Layer::Matrix(_)))
    {
        layers::draw(m, f, canvas, app, t);
    }
    if let Some(top) = app.layers.last() {
        layers::draw(top, f, canvas, app, t);
    }
}
