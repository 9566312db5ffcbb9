//! The filter editor.

use super::super::block;
use super::centered;
use crate::report::By;
use crate::tui::app::App;
use crate::tui::components::filter_edit::Field;
use crate::tui::keymap::{Action, Context};
use crate::tui::model::LabelFilter;
use crate::tui::theme::Theme;
use crate::verify::VerdictKind;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// The filter editor.
pub fn filter(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let inverted = crate::tui::components::filter_edit::invalid(&app.model.listing.filter);
    let mut rows = range_rows(app, inverted);
    rows.extend(closeness_rows(app));
    rows.extend(other_rows(app));
    let mut lines = styled(app, t, rows, inverted);
    // A short screen shows the fields around the cursor (the summary line stays, and so
    // does the footer's line under the box), and the title says which.
    let fields = lines.len();
    let room = usize::from(area.height.saturating_sub(4)).max(1);
    let title = if fields > room {
        let cursor = app.filter_editor().field.index();
        let start = cursor.saturating_sub(room - 1).min(fields - room);
        lines = lines.into_iter().skip(start).take(room).collect();
        format!(
            "Filters · fields {}–{} of {fields}",
            start + 1,
            start + room
        )
    } else {
        "Filters".to_string()
    };
    lines.push(Line::from(Span::styled(
        format!("showing {}", app.filter_summary()),
        Style::default().fg(t.muted),
    )));
    // The hint goes first when the screen is short: the footer says the same keys.
    if lines.len() + 3 < usize::from(area.height) {
        lines.push(Line::from(Span::styled(
            format!(
                "no verdict ticked = all · digits type a range · {}/{} choose",
                app.keymap.hint(Context::Filter, Action::Decrease),
                app.keymap.hint(Context::Filter, Action::Increase)
            ),
            Style::default().fg(t.muted),
        )));
    }
    let r = centered(area, 60, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(lines).block(block(&title, r, true, t)), r);
}

/// The fields from the measure's range through "passes in", one text each, in
/// [`Field::ALL`]'s order; `inverted` when the range is.
fn range_rows(app: &App, inverted: bool) -> Vec<String> {
    let filter = &app.model.listing.filter;
    let max = app.model.derived.buckets.last().copied().unwrap_or(0);
    let (lo, hi) = filter.range.unwrap_or((0, max));
    let name = if app.model.by == By::Operators {
        "operators"
    } else {
        "depth"
    };
    let bad = if inverted { "  invalid: from > to" } else { "" };
    let mut rows: Vec<String> = vec![
        format!("{name} from  ◂ {lo} ▸{bad}"),
        format!("{name} to    ◂ {hi} ▸{bad}"),
    ];
    for k in VerdictKind::ALL {
        let ticked = filter.verdicts.contains(&k);
        rows.push(format!("[{}] {}", if ticked { "x" } else { " " }, k.name()));
    }
    rows.push(format!(
        "labels   ◂ {} ▸",
        match filter.labels {
            LabelFilter::Any => "any",
            LabelFilter::Labelled => "labelled",
            LabelFilter::Unlabelled => "unlabelled",
        }
    ));
    rows.push(format!(
        "dataset  ◂ {} ▸",
        filter
            .kinds
            .iter()
            .next()
            .cloned()
            .unwrap_or_else(|| "any".into())
    ));
    let any = |x: Option<String>| x.unwrap_or_else(|| "any".into());
    rows.push(format!(
        "failure  ◂ {} ▸",
        any(filter.failure.map(|k| k.name().to_string()))
    ));
    let cur = app
        .model
        .taxonomy
        .categories
        .get(app.filter_editor().label_cursor)
        .map(|c| c.id.clone())
        .unwrap_or_default();
    for (tag, set) in [
        ("label any of ", &filter.label_any),
        ("label none of", &filter.label_none),
    ] {
        let tick = if set.contains(&cur) { "x" } else { " " };
        rows.push(format!("{tag} ◂ [{tick}] {cur} ▸ {} ticked", set.len()));
    }
    rows.push(format!("judge    ◂ {} ▸", filter.judge.name()));
    rows.push(format!(
        "passes in ◂ {} ▸ fails here",
        any(filter
            .passes_in
            .and_then(|i| app.model.runs.get(i))
            .map(crate::tui::data::RunIndex::name))
    ));
    rows
}

/// The closeness fields: the metric, then its bounds; how to use a field shows on it
/// while the cursor is there.
fn closeness_rows(app: &App) -> [String; 3] {
    let close = &app.model.listing.filter.closeness;
    let (clo, chi) = close.bounds();
    let on = |k: Field| app.filter_editor().field == k;
    let metric = format!(
        "closeness ◂ {} ▸{}",
        close.metric.label(),
        if close.missing {
            "  only samples without it"
        } else if on(Field::Metric) {
            "  space: only samples without it"
        } else {
            ""
        }
    );
    let bad = if close.invalid() {
        "  invalid: from > to"
    } else {
        ""
    };
    let typing = |k: Field| {
        if bad.is_empty() && on(k) {
            "  type hundredths: 75 = 0.75"
        } else {
            bad
        }
    };
    [
        metric,
        format!("  from    ◂ {clo:.2} ▸{}", typing(Field::CloseFrom)),
        format!("  to      ◂ {chi:.2} ▸{}", typing(Field::CloseTo)),
    ]
}

/// The fields after closeness: annotators, truncation and the reference-task fields.
fn other_rows(app: &App) -> [String; 5] {
    let filter = &app.model.listing.filter;
    [
        format!("annotators ◂ {} ▸", filter.disagree.name()),
        format!("truncated ◂ {} ▸", filter.truncated.name()),
        // Reference-task samples only; a dataset sample has no gold label or answer.
        format!("gold     ◂ {} ▸  task samples", filter.gold.name()),
        format!("answer   ◂ {} ▸", filter.answer.name()),
        format!("correct  ◂ {} ▸", filter.correct.name()),
    ]
}

/// The field texts styled: the cursor's field selected, verdicts in their colour, an
/// inverted range (`inverted`) or closeness bounds in the failing colour.
fn styled(app: &App, t: &Theme, rows: Vec<String>, inverted: bool) -> Vec<Line<'static>> {
    let close_bad = app.model.listing.filter.closeness.invalid();
    rows.into_iter()
        .enumerate()
        .map(|(i, s)| {
            let field = Field::ALL.get(i).copied();
            let here = field == Some(app.filter_editor().field);
            let style = if here {
                Style::default().fg(t.selection_fg).bg(t.selection_bg)
            } else {
                Style::default().fg(t.fg)
            };
            let kind = match field {
                Some(Field::Verdict(k)) => Some(k),
                _ => None,
            };
            let range = matches!(field, Some(Field::From | Field::To));
            let closeness_bound = matches!(field, Some(Field::CloseFrom | Field::CloseTo));
            let color = if (range && inverted) || (closeness_bound && close_bad) {
                Style::default().fg(t.verdict_color(VerdictKind::NotEquivalent))
            } else if let Some(k) = kind {
                Style::default().fg(t.verdict_color(k))
            } else {
                style
            };
            Line::from(Span::styled(s, if here { style } else { color }))
        })
        .collect()
}
