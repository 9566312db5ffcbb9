//! The detail view: overview, structural diff, countermodel, raw exchange.

use super::detail_blind::{BLIND_NOTE, muted};
use super::detail_overview::countermodel_lines;
use super::detail_raw::raw;
use super::longtext::{self, Piece};
use super::{block, text};
use crate::tui::app::{App, Pane, Tab};
use crate::tui::theme::Theme;
use crate::verify::Verdict;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

fn tv(b: bool) -> &'static str {
    if b { "T" } else { "F" }
}

fn diff_lines(app: &App, width: usize, t: &Theme) -> Vec<Line<'static>> {
    let Some(d) = &app.panes.detail else {
        return vec![];
    };
    if d.diff.is_empty() {
        return vec![muted(
            "no φ₁ to compare (it did not parse or was never produced)",
            t,
        )];
    }
    let col = width.saturating_sub(3) / 2;
    let equivalent = d.record.as_ref().is_ok_and(|r| r.verdict.is_equivalent());
    let changed = d.diff.iter().any(|l| l.change.is_change());
    let mut out = Vec::new();
    // Whether the marked places are mistakes: an equivalent pair's are rewrites; a
    // failing pair's kinds are proved by the verifier unless said otherwise.
    if equivalent && changed {
        out.push(muted(
            "equivalent (rewritten): no change; the marks show where φ₁ is written differently",
            t,
        ));
    } else if !equivalent && changed && d.unproved() {
        out.push(Line::from(Span::styled(
            "unproved: no explanation of ≤ 2 edits found; the marks are the structural guess",
            Style::default().fg(t.warning),
        )));
    }
    out.push(muted(format!("{:<col$} │ φ₁", "φ₀"), t));
    for (k, l) in d.diff.iter().enumerate() {
        let ind = "  ".repeat(l.depth);
        let cell = |s: &Option<String>| {
            super::text::clip(&format!("{ind}{}", s.clone().unwrap_or_default()), col)
        };
        let style = match l.change {
            crate::syntax::diff::Change::Same | crate::syntax::diff::Change::Kept => {
                Style::default().fg(t.fg)
            }
            crate::syntax::diff::Change::NegationAdded | crate::syntax::diff::Change::StarAdded => {
                Style::default().fg(t.diff_added)
            }
            crate::syntax::diff::Change::NegationRemoved
            | crate::syntax::diff::Change::StarRemoved => Style::default().fg(t.diff_removed),
            _ => Style::default().fg(t.diff_changed),
        };
        let mut spans = vec![
            Span::styled(cell(&l.left), style),
            Span::styled(" │ ", Style::default().fg(t.border)),
            Span::styled(cell(&l.right), style),
        ];
        // An equivalent pair's marks are rewrites; a failing pair's are named as
        // `verify --explain` names the change (a moved negation is "widened").
        let mark = if equivalent {
            l.change.is_change().then(|| "rewritten".to_string())
        } else {
            d.marks.get(k).filter(|m| !m.is_empty()).cloned()
        };
        if let Some(m) = mark {
            spans.push(Span::styled(
                format!(" ◀ {m}"),
                style.add_modifier(Modifier::BOLD),
            ));
        }
        out.push(Line::from(spans));
    }
    // The changes and kinds in `verify --explain`'s own words and layout.
    out.push(Line::from(""));
    explained_lines(d, t, &mut out);
    out
}

/// Below the diff: the changes, rewrites and kinds as `verify --explain` gives them, or
/// that the proof search is still running.
fn explained_lines(d: &crate::tui::model::Detail, t: &Theme, out: &mut Vec<Line<'static>>) {
    let Some((ex, kinds)) = d.explained() else {
        out.push(muted(
            "changes: proving… (the proof search runs in the background)",
            t,
        ));
        return;
    };
    let head = if ex.changes.is_empty() {
        if ex.rewrites.is_empty() {
            "changes: none"
        } else {
            "changes: none (equivalent, rewritten)"
        }
    } else if ex.proved {
        "changes (proved by the verifier):"
    } else {
        "changes (unproved: no explanation of ≤ 2 edits found; from the structural diff):"
    };
    out.push(muted(head, t));
    for c in &ex.changes {
        out.push(Line::from(Span::styled(
            format!("  {}", crate::base::sanitize::one_line(&c.text)),
            Style::default().fg(t.diff_changed),
        )));
    }
    for r in &ex.rewrites {
        out.push(muted(
            format!("  rewrite: {}", crate::base::sanitize::one_line(r)),
            t,
        ));
    }
    let ids: Vec<&str> = kinds.iter().map(|k| k.id()).collect();
    out.push(muted(
        format!(
            "kinds: {}",
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ),
        t,
    ));
}

fn countermodel_tab(app: &App, width: usize, t: &Theme) -> Vec<Line<'static>> {
    let Some(d) = &app.panes.detail else {
        return vec![];
    };
    let Ok(rec) = &d.record else { return vec![] };
    let Verdict::NotEquivalent { countermodel, .. } = &rec.verdict else {
        return vec![muted(
            format!("no countermodel: the verdict is {}", rec.verdict.name()),
            t,
        )];
    };
    let mut out = Vec::new();
    countermodel_lines(countermodel, true, t, &mut out);
    if !d.explain.is_empty() {
        out.push(Line::from(""));
        out.push(Line::from(Span::styled(
            "subformulas under this model (◀ where they first split)",
            Style::default().fg(t.title),
        )));
        let col = width.saturating_sub(14) / 2;
        for l in &d.explain {
            let ind = "  ".repeat(l.depth);
            let cell = |x: &Option<(String, Option<bool>)>| {
                let (text, v) = x.clone().unwrap_or_default();
                let v = v.map_or("·", tv);
                format!("{v} {}", super::text::clip(&format!("{ind}{text}"), col))
            };
            let style = if l.split {
                Style::default().fg(t.split).add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(t.fg)
            };
            let mut spans = vec![
                Span::styled(cell(&l.left), style),
                Span::styled(" │ ", Style::default().fg(t.border)),
                Span::styled(cell(&l.right), style),
            ];
            if l.split {
                spans.push(Span::styled(" ◀", style));
            }
            out.push(Line::from(spans));
        }
        out.push(muted(
            "T/F: value under the model · '·': has free variables here",
            t,
        ));
    }
    out
}

/// The tab bar in `level` 0 (every tab by name), 1 (Countermodel as "Model" unless
/// it is the tab shown) or 2 (the tab shown and its place, `[Diff] 2/4`).
fn tab_bar(shown: Tab, level: u8) -> String {
    if level >= 2 {
        let at = Tab::ALL.iter().position(|x| *x == shown).unwrap_or(0);
        return format!("[{}] {}/{}", shown.title(), at + 1, Tab::ALL.len());
    }
    let tabs: Vec<String> = Tab::ALL
        .iter()
        .map(|x| match (*x == shown, x) {
            (true, _) => format!("[{}]", x.title()),
            (false, Tab::Countermodel) if level == 1 => "Model".to_string(),
            (false, _) => x.title().to_string(),
        })
        .collect();
    tabs.join(" ")
}

/// The detail pane's title in `w` columns: the sample, its run and the tab bar; a
/// narrow pane shortens the tab bar first, then names the run by its label told apart
/// from the other runs' (`short`, as the lists show it, cut to fit `room` columns),
/// never cutting either inside a word.
fn detail_title(
    sample: Option<(&str, &str)>,
    short: &dyn Fn(usize) -> String,
    shown: Tab,
    w: usize,
) -> String {
    let bars = [0, 1, 2].map(|level| tab_bar(shown, level));
    let Some((id, run)) = sample else {
        return bars
            .iter()
            .find(|b| text::width(b) <= w)
            .cloned()
            .unwrap_or_else(|| text::fit_title(&bars[2], w));
    };
    let id = crate::base::sanitize::one_line(id);
    let with_run = bars.iter().map(|b| format!("Sample {id} · {run} · {b}"));
    // The run's label in what the shortest tab bar leaves.
    let room = w.saturating_sub(text::width(&format!("Sample {id} ·  · {}", bars[2])));
    let label = short(room);
    let with_label = (room >= 4 && text::width(&label) <= room)
        .then(|| format!("Sample {id} · {label} · {}", bars[2]));
    let without = bars[1..].iter().map(|b| format!("Sample {id} · {b}"));
    with_run
        .chain(with_label)
        .chain(without)
        .find(|s| text::width(s) <= w)
        .unwrap_or_else(|| text::fit_title(&format!("Sample {id} · {}", bars[2]), w))
}

/// Draws the detail pane.
pub fn draw(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let blind = app
        .panes
        .detail
        .as_ref()
        .is_some_and(|d| d.blind.is_some() || app.model.hidden(d.key));
    // The run is named here: the sample list's run column is `…` on a narrow screen.
    // Blind: `run N` as in the lists, labelled or not (a name gives the model away).
    let run = app
        .panes
        .detail
        .as_ref()
        .filter(|d| (d.key.0 as usize) < app.model.runs.len())
        .map(|d| super::panes::run_name(app, d.key.0 as usize))
        .unwrap_or_default();
    let sample = match app.panes.detail.as_ref().map(|d| &d.record) {
        Some(Ok(r)) => Some((r.id.as_str(), run.as_str())),
        _ => None,
    };
    // The label the lists give this run among the others, in `room` columns.
    let short = |room: usize| {
        let Some(at) = app.panes.detail.as_ref().map(|d| d.key.0 as usize) else {
            return String::new();
        };
        let names: Vec<String> = (0..app.model.runs.len())
            .map(|i| super::panes::run_name(app, i))
            .collect();
        crate::tui::model::names::distinct(&names, room)
            .into_iter()
            .nth(at)
            .unwrap_or_default()
    };
    let title = detail_title(
        sample,
        &short,
        app.panes.detail_view.tab,
        usize::from(area.width.saturating_sub(4)),
    );
    let b = block(&title, area, app.panes.focus == Pane::Detail, t);
    let inner = b.inner(area);
    let w = inner.width as usize;
    let lines = |v: Vec<Line<'static>>| v.into_iter().map(Piece::Line).collect::<Vec<_>>();
    let pieces = match app.panes.detail_view.tab {
        Tab::Diff | Tab::Countermodel | Tab::Raw if blind => lines(vec![muted(BLIND_NOTE, t)]),
        Tab::Overview => super::detail_overview::overview(app, w, t),
        Tab::Diff => lines(diff_lines(app, w, t)),
        Tab::Countermodel => lines(countermodel_tab(app, w, t)),
        Tab::Raw => raw(app, w, t),
    };
    // Scrolling stops at the last screenful, rows counted by the same wrap that draws
    // them (a count by characters fell short, and the end was out of reach). Only the
    // rows on screen are wrapped and drawn: a long reasoning costs its visible part a
    // frame, and its length stays unknown (no bound) until both ends were read.
    f.render_widget(b, area);
    let v = &app.panes.detail_view;
    let at = if v.from_end {
        longtext::At::End(v.scroll)
    } else {
        longtext::At::Top(v.scroll)
    };
    let rows = longtext::draw(f, inner, &pieces, at);
    let max = rows.map_or(usize::MAX, |n| n.saturating_sub(inner.height as usize));
    v.max_scroll.set(max);
}
