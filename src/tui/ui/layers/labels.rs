//! The label panel.

use super::super::block;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// The label panel: one key per category, ticks for this annotator. Over the detail
/// pane it takes at most half of it; over the sample list (`whole`) all of it.
pub fn labels(f: &mut Frame, area: Rect, app: &App, t: &Theme, whole: bool) {
    let (mine, note) = app.model.my_labels();
    // Blind mode: the diff's suggestion would say what went wrong.
    let suggestion = app
        .panes
        .detail
        .as_ref()
        .filter(|d| !app.model.hidden(d.key))
        .and_then(crate::tui::model::Detail::suggestion);
    // Over the detail, φ₀, ψ and φ₁ stay visible above the panel: more, narrower
    // columns when the pane is short.
    let max_rows = if whole {
        (area.height as usize).saturating_sub(2).max(6)
    } else {
        (area.height as usize / 2).max(6)
    };
    let inner_w = (area.width as usize).saturating_sub(2);
    // The suggestion's lines, wrapped to the panel (they stay in view below the
    // categories).
    let sugg = suggestion.map_or_else(Vec::new, |s| suggestion_lines(app, &s, t, inner_w));
    let mut lines = category_lines(app, t, &mine, inner_w, max_rows, 2 + 1 + sugg.len());
    let cat_rows = lines.len();
    lines.extend(sugg);
    lines.push(note_line(app, &note, t));
    lines.extend(history(app, t, inner_w));
    // Category rows that do not fit scroll (page keys); the suggestion and the note
    // stay in view below them.
    let tail = lines.len() - cat_rows;
    let room = (area.height as usize).saturating_sub(2 + tail).max(1);
    let scrolled = cat_rows > room;
    let top = if scrolled {
        let top = if let Some(crate::tui::layer::Layer::Label(top)) = app.layers.last() {
            *top
        } else {
            0
        };
        top.min(cat_rows - room)
    } else {
        0
    };
    app.panes.label_rows.set(room.min(cat_rows));
    app.panes
        .label_rows_total
        .set(cat_rows.saturating_sub(room));
    if scrolled {
        let rest = lines.split_off(cat_rows);
        let shown: Vec<Line> = lines.drain(top..top + room).collect();
        lines = shown;
        lines.extend(rest);
    }
    let title = title(app, area, scrolled.then_some((top, room, cat_rows)));
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect {
        x: area.x,
        y: area.y + area.height - h,
        width: area.width,
        height: h,
    };
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(lines).block(block(&title, r, true, t)), r);
}

/// The panel's title; while the category rows scroll (`rows`: the first shown, how
/// many show, how many there are), which rows show and the key to the others.
fn title(app: &App, area: Rect, rows: Option<(usize, usize, usize)>) -> String {
    use crate::tui::keymap::{Action, Context};
    let Some((top, room, cat_rows)) = rows else {
        return format!("Labels · {}", app.model.annotator);
    };
    let key_of = |a| app.keymap.hint(Context::Label, a);
    // The rows and the scroll keys first: a narrow panel cuts the title's end.
    let (more, key) = if top + room < cat_rows {
        ("more", key_of(Action::PageDown))
    } else {
        ("back", key_of(Action::PageUp))
    };
    // The rows and how to reach the others outlast the annotator's name.
    let rows = format!(
        "Labels {}–{}/{cat_rows} · {key} {more}",
        top + 1,
        top + room
    );
    super::super::text::first_fitting(
        &[format!("{rows} · {}", app.model.annotator), rows],
        usize::from(area.width.saturating_sub(4)),
    )
}

/// The diff's suggestion wrapped to `inner_w`: both readings, each with its key (the
/// diff cannot tell which side went wrong).
fn suggestion_lines(
    app: &App,
    s: &crate::labels::suggest::Suggestion,
    t: &Theme,
    inner_w: usize,
) -> Vec<Line<'static>> {
    use crate::tui::keymap::{Action, Context};
    let tax = &app.model.taxonomy;
    let muted = Style::default().fg(t.muted);
    let hot = Style::default().fg(t.diff_changed);
    let mut sugg = crate::tui::ui::text::hard_wrap(
        &[Span::styled(
            format!("from the φ₀/φ₁ diff ({}), read ψ to choose:", s.kind),
            muted,
        )],
        inner_w,
    );
    for (c, when) in suggestion_sides(s) {
        let key = tax
            .categories
            .iter()
            .find(|x| x.id == c)
            .map(|x| x.key.clone())
            .unwrap_or_default();
        let takes = if s.accepted() == Some(c) {
            format!(
                " ({} takes it)",
                app.keymap.hint(Context::Label, Action::AcceptSuggestion)
            )
        } else {
            String::new()
        };
        sugg.extend(crate::tui::ui::text::hard_wrap(
            &[
                Span::styled(format!("  {key} {}", tax.name(c)), hot),
                Span::styled(format!(" if {when}{takes}"), muted),
            ],
            inner_w,
        ));
    }
    sugg
}

/// The categories in as many columns as hold every name in full (ticked where `mine`
/// has them), under their side's header when everything fits with the headers in
/// `max_rows` besides the `fixed` rows.
fn category_lines(
    app: &App,
    t: &Theme,
    mine: &[String],
    inner_w: usize,
    max_rows: usize,
    fixed: usize,
) -> Vec<Line<'static>> {
    let cats = &app.model.taxonomy.categories;
    // The widest cell, "k [x] name".
    let full = cats
        .iter()
        .map(|c| crate::tui::ui::text::width(&format!("{} [x] {}", c.key, c.name)) + 1)
        .max()
        .unwrap_or(0);
    // As many columns as hold every name in full (rows that do not fit scroll).
    let cols = (1..=4usize)
        .rev()
        .find(|n| inner_w / n >= full)
        .unwrap_or(1);
    let mut lines = vec![];
    let mut side = String::new();
    // Group headers only when everything fits with them.
    let sides = cats
        .iter()
        .map(|c| c.side.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let rows_needed = cats.len().div_ceil(cols) + sides + fixed;
    let headers = rows_needed <= max_rows;
    let w = inner_w / cols;
    let mut row: Vec<Span> = vec![];
    for c in cats {
        if headers && c.side != side {
            if !row.is_empty() {
                lines.push(Line::from(std::mem::take(&mut row)));
            }
            side = c.side.clone();
            lines.push(Line::from(Span::styled(
                side.clone(),
                Style::default().fg(t.title).add_modifier(Modifier::BOLD),
            )));
        }
        let on = mine.contains(&c.id);
        let style = if on {
            Style::default().fg(t.selection_fg).bg(t.selection_bg)
        } else {
            Style::default().fg(t.fg)
        };
        let text = format!("{} [{}] {}", c.key, if on { "x" } else { " " }, c.name);
        if cols == 1 && crate::tui::ui::text::width(&c.name) + 6 >= w {
            // One column and still too narrow: the name goes on under its key in full.
            wrap_cell(text, w, style, &mut lines);
            continue;
        }
        row.push(Span::styled(
            crate::tui::ui::text::clip(&text, w.saturating_sub(1)) + " ",
            style,
        ));
        if row.len() == cols {
            lines.push(Line::from(std::mem::take(&mut row)));
        }
    }
    if !row.is_empty() {
        lines.push(Line::from(row));
    }
    lines
}

/// A category cell too wide for its one column, `w` wide: its first line, then the
/// rest indented under the key.
fn wrap_cell(mut rest: String, w: usize, style: Style, lines: &mut Vec<Line<'static>>) {
    let mut first = true;
    while !rest.is_empty() {
        let room = if first { w } else { w.saturating_sub(6) }.max(8);
        let cut = crate::tui::ui::text::prefix_fitting(&rest, room);
        let (head, tail) = rest.split_at(cut);
        let pad = if first { "" } else { "      " };
        lines.push(Line::from(Span::styled(format!("{pad}{head}"), style)));
        rest = tail.trim_start().to_string();
        first = false;
    }
}

/// The note line: being written, absent (with the key that writes one), or this
/// annotator's `note`.
fn note_line(app: &App, note: &str, t: &Theme) -> Line<'static> {
    use crate::tui::keymap::{Action, Context};
    let note_line = if app.mode() == crate::tui::layer::Mode::Note {
        format!("note: {}▏", app.model.labelling.note.text)
    } else if note.is_empty() {
        format!(
            "note: — ({} to write one)",
            app.keymap.hint(Context::Label, Action::EditNote)
        )
    } else {
        format!("note: {note}")
    };
    Line::from(Span::styled(note_line, Style::default().fg(t.highlight)))
}

/// The suggestion's categories with the reading each stands for.
fn suggestion_sides(s: &crate::labels::suggest::Suggestion) -> Vec<(&'static str, &'static str)> {
    [
        s.informalization.map(|c| (c, "ψ says it wrongly")),
        s.autoformalization.map(|c| (c, "φ₁ misreads ψ")),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// History lines shown under the note.
const HISTORY: usize = 3;

/// The selected sample's label history, newest last: the last [`HISTORY`] records (in
/// blind mode only this annotator's, since others' labels would tell).
fn history(app: &App, t: &Theme, width: usize) -> Vec<Line<'static>> {
    use crate::tui::ui::text::clip;
    let Some((r, i)) = app.model.selected() else {
        return vec![];
    };
    let run = &app.model.runs[r as usize];
    let Some(all) = run.label_history.get(&*run.rows[i as usize].id) else {
        return vec![];
    };
    let blind = app.model.blind.is_some();
    let mine: Vec<&crate::record::LabelRecord> = all
        .iter()
        .filter(|l| !blind || l.annotator == app.model.annotator)
        .collect();
    let muted = Style::default().fg(t.muted);
    let mut out = vec![];
    let skip = mine.len().saturating_sub(HISTORY);
    let head = if skip > 0 {
        format!("history ({skip} earlier):")
    } else {
        "history:".to_string()
    };
    out.push(Line::from(Span::styled(head, muted)));
    for l in &mine[skip..] {
        let what = if l.retract {
            "retracted".to_string()
        } else if l.categories.is_empty() {
            "nothing wrong".to_string()
        } else {
            l.categories
                .iter()
                .map(|c| app.model.taxonomy.name(c))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let note = if l.note.is_empty() {
            String::new()
        } else {
            format!(" · “{}”", crate::base::sanitize::one_line(&l.note))
        };
        // Hour and minute (UTC): what tells a session's edits apart.
        let time = l.time.get(11..16).unwrap_or(&l.time);
        let text = format!(
            "  {time} {}: {what}{note}",
            crate::base::sanitize::one_line(&l.annotator)
        );
        out.push(Line::from(Span::styled(clip(&text, width), muted)));
    }
    out
}
