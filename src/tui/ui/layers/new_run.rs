//! The new-run form.

use super::super::block;
use super::centered;
use crate::tui::app::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::live::Form;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use std::ops::Range;

/// Columns of the field labels; values start after them.
const LABEL: usize = 24;

/// The new-run form.
pub fn new_run(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(form) = app.form() else { return };
    let w = area.width.saturating_sub(6).min(100);
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let (mut lines, sel_lines) = field_lines(form, inner, t);
    let hint = format!(
        "dataset: ksat, pl, fol, fol-english, regex or a file · or, with the dataset empty, a reference task: {} · model: perturb, openai:<m>, anthropic:<m> · empty temperature, max tokens, reasoning: the model's profile decides · relative paths: from the shell's directory",
        crate::tui::form_task::names()
    );
    // The help is prose: wrapped at words (paths and the command below are cut anywhere).
    lines.extend(
        crate::tui::ui::text::word_wrap(&hint, inner)
            .into_iter()
            .map(|row| Line::from(Span::styled(row, Style::default().fg(t.muted)))),
    );
    let error = tail_lines(form, inner, t);
    // Every line is cut to the width already: the popup is exactly as tall as they are,
    // so the whole command is on screen to read or copy. On a short terminal the fields
    // scroll to keep the one being typed in view; cost, command and error stay.
    let room = usize::from(area.height.saturating_sub(2));
    let body = room.saturating_sub(error.len()).max(3);
    let scrolled = lines.len() > body;
    if scrolled {
        let off = sel_lines
            .start
            .saturating_sub(body / 3)
            .min(lines.len() - body)
            .max(sel_lines.end.saturating_sub(body))
            .min(sel_lines.start);
        lines = lines.into_iter().skip(off).take(body).collect();
    }
    lines.extend(error);
    let r = centered(area, w, u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(block(&title(app, scrolled), r, true, t)),
        r,
    );
}

/// The form's title: its keys, and the scroll keys while the fields scroll.
fn title(app: &App, scrolled: bool) -> String {
    format!(
        "New run · {} starts · {} closes{}",
        app.key_name(Context::Form, Action::Confirm),
        app.key_name(Context::Form, Action::Cancel),
        if scrolled {
            format!(
                " · {}/{} scroll",
                app.key_name(Context::Form, Action::PrevField),
                app.key_name(Context::Form, Action::NextField)
            )
        } else {
            String::new()
        }
    )
}

/// The fields, label then value, `inner` wide; and the lines of the field under the
/// cursor, kept in view when the form is scrolled.
fn field_lines(form: &Form, inner: usize, t: &Theme) -> (Vec<Line<'static>>, Range<usize>) {
    let mut lines = Vec::new();
    let mut sel_lines = 0..0;
    for (i, (label, _)) in crate::tui::live::FIELDS.iter().enumerate() {
        let sel = i == form.sel;
        let first = lines.len();
        let v = form.values.get(i).map_or("", String::as_str);
        let value = if sel {
            format!("{v}▏")
        } else {
            v.to_string()
        };
        // Long values (paths) wrap in full, cut anywhere (a path has no good break
        // points), each row under the value: nothing of what the run gets is hidden,
        // and the end of a long default path never reads as a value of its own.
        let style = if sel {
            Style::default().fg(t.selection_fg).bg(t.selection_bg)
        } else {
            Style::default().fg(t.fg)
        };
        let rows = crate::tui::ui::text::hard_wrap(
            &[Span::styled(value, style)],
            inner.saturating_sub(LABEL).max(2),
        );
        for (k, row) in rows.into_iter().enumerate() {
            let head = if k == 0 {
                Span::styled(format!("{label:<LABEL$}"), Style::default().fg(t.title))
            } else {
                Span::raw(" ".repeat(LABEL))
            };
            let mut spans = vec![head];
            spans.extend(row.spans);
            lines.push(Line::from(spans));
        }
        if sel {
            sel_lines = first..lines.len();
        }
    }
    (lines, sel_lines)
}

/// What starting costs, the command and the form's error, `inner` wide: they stay at
/// the bottom, below the fields that scroll, so a run never starts with its cost or
/// output directory out of sight.
fn tail_lines(form: &Form, inner: usize, t: &Theme) -> Vec<Line<'static>> {
    let mut tail = crate::tui::ui::text::hard_wrap(
        &[
            Span::styled("cost      ", Style::default().fg(t.title)),
            Span::styled(form.estimate.clone(), Style::default().fg(t.fg)),
        ],
        inner,
    );
    // The command on lines of its own, cut at the popup's width with no indent, so a
    // terminal selection of those lines is the command.
    tail.push(Line::from(Span::styled(
        "command (as `autoeval run` takes it)",
        Style::default().fg(t.title),
    )));
    tail.extend(crate::tui::ui::text::hard_wrap(
        &[Span::styled(
            form.command.clone(),
            Style::default().fg(t.fg),
        )],
        inner,
    ));
    if !form.error.is_empty() {
        tail.extend(crate::tui::ui::text::hard_wrap(
            &[Span::styled(
                form.error.clone(),
                Style::default().fg(t.warning),
            )],
            inner,
        ));
    }
    tail
}
