//! The detail view: overview, structural diff, countermodel, raw exchange.

use super::detail_blind::{BLIND_NOTE, blind_overview, muted, psi_lines};
use super::detail_raw::{raw, reasoning_summary};
use super::longtext::LONG;
use super::longtext::{self, Piece};
use super::{block, formula, text};
use crate::tui::app::{App, Pane, Tab};
use crate::tui::theme::Theme;
use crate::verify::{Countermodel, Verdict};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

fn verdict_index(v: &Verdict) -> crate::verify::VerdictKind {
    v.kind()
}

fn tv(b: bool) -> &'static str {
    if b { "T" } else { "F" }
}

/// Every stored closeness metric by its field name, `–` where the record has none:
/// autoeval's own metrics on one line, the paper's (on the FOLIO printing) on the next.
fn closeness_lines(c: &crate::record::Closeness, syntax: crate::syntax::SyntaxKind) -> Vec<String> {
    use crate::record::Metric;
    let show = |ms: &[Metric]| {
        ms.iter()
            .map(|&m| {
                let v = c.get(m).map_or_else(|| "–".into(), |v| format!("{v:.2}"));
                format!("{} {v}", m.label())
            })
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let paper = [
        Metric::BleuFol,
        Metric::RougeLFol,
        Metric::Meteor,
        Metric::Le,
        Metric::SmatchPaper,
    ];
    // The one absence the record itself explains: regexes get none of these (nor `smatch`).
    let why = if syntax == crate::syntax::SyntaxKind::Regex
        && paper.iter().all(|&m| c.get(m).is_none())
    {
        " (not defined for regexes)"
    } else {
        ""
    };
    let mut lines = vec![
        format!(
            "closeness {}",
            show(&[Metric::Bleu, Metric::RougeL, Metric::Tree, Metric::Smatch])
        ),
        format!("  paper's {}{why}", show(&paper)),
    ];
    // Stored only when the run was scored with a model (`--bertscore-model`).
    if c.get(Metric::BertscoreMinilm).is_some() {
        lines.push(format!("  {}", show(&[Metric::BertscoreMinilm])));
    }
    lines
}

/// The core's one countermodel rendering, styled for the terminal.
fn countermodel_lines(c: &Countermodel, tables: bool, t: &Theme, out: &mut Vec<Line<'static>>) {
    use crate::verify::render::Role;
    for l in crate::verify::render::countermodel_lines(c, ["φ₀", "φ₁"], tables) {
        let style = match l.role {
            Role::Head => Style::default().fg(t.title),
            Role::Text => Style::default(),
            Role::Muted => Style::default().fg(t.muted),
            Role::Strong => Style::default()
                .fg(t.highlight)
                .add_modifier(Modifier::BOLD),
        };
        out.push(Line::from(Span::styled(l.text, style)));
    }
}

/// The Overview tab; a ψ longer than [`LONG`] is drawn by its rows on screen (without
/// the search and copy highlights, which cost a span a character).
fn overview<'a>(app: &'a App, width: usize, t: &Theme) -> Vec<Piece<'a>> {
    let (lines, at) = overview_lines(app, width, t);
    let psi = app
        .panes
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref().ok())
        .and_then(|r| r.rounds.first())
        .and_then(|r| r.psi.as_deref());
    let mut out: Vec<Piece<'a>> = Vec::with_capacity(lines.len() + 1);
    for (k, l) in lines.into_iter().enumerate() {
        if Some(k) == at
            && let Some(text) = psi
        {
            out.push(Piece::Text {
                text,
                prefix: "ψ  ",
                style: Style::default(),
            });
        }
        out.push(Piece::Line(l));
    }
    out
}

/// The Overview's lines, and where a long ψ goes among them.
fn overview_lines(app: &App, width: usize, t: &Theme) -> (Vec<Line<'static>>, Option<usize>) {
    let Some(d) = &app.panes.detail else {
        return (vec![muted("no sample selected", t)], None);
    };
    if let Some(b) = &d.blind {
        return (blind_overview(app, b, width.saturating_sub(1), t), None);
    }
    let rec = match &d.record {
        Ok(r) => r,
        Err(e) => {
            return (
                vec![Line::from(Span::styled(
                    crate::base::sanitize::one_line(&e.to_string()).into_owned(),
                    Style::default().fg(t.warning),
                ))],
                None,
            );
        }
    };
    let mut out = Vec::new();
    let mut long_psi = None;
    let w = width.saturating_sub(1);
    // A reference-task sample: its question, gold label and answer; a reasoning task
    // has no formulas to show.
    if let Some(task) = &rec.task {
        out.extend(super::task_detail::lines(
            rec,
            task,
            app.model.hidden(d.key),
            t,
        ));
    }
    if rec.task.as_ref().is_none_or(|x| x.gold.is_none()) {
        // The smallest subformula holding every difference is highlighted in φ₀ and φ₁.
        let hl = d.highlight.as_ref();
        match (&d.phi0, app.panes.detail_view.tree, hl) {
            (Some(e), true, _) => out.extend(formula::tree("φ₀", e, t)),
            (_, false, Some([(text, span), _])) => {
                out.extend(formula::lines_highlighted("φ₀ ", text, *span, w, t));
            }
            _ => out.extend(formula::lines("φ₀ ", &rec.phi0, w, t)),
        }
        let r1 = rec.rounds.first();
        let psi = match r1.and_then(|r| r.psi.as_deref()) {
            Some(p) if p.len() > LONG => {
                long_psi = Some(out.len());
                None
            }
            Some(p) => Some(p),
            None => Some("—"),
        };
        // A copied ψ shows the copied part (the copy check's byte span) struck through in
        // the warning colour: the reason for the verdict, in place.
        let copied = match &rec.verdict {
            Verdict::Copied { span, .. } if rec.rounds.len() == 1 => Some(*span),
            _ => None,
        };
        if let Some(psi) = psi {
            psi_lines(app, psi, copied, t, &mut out);
        }
        match (&d.phi1, app.panes.detail_view.tree) {
            (Some(e), true) => out.extend(formula::tree("φ₁", e, t)),
            (Some(e), false) => match hl {
                Some([_, (text, span)]) => {
                    out.extend(formula::lines_highlighted("φ₁ ", text, *span, w, t));
                }
                None => out.extend(formula::lines("φ₁ ", &e.to_unicode(), w, t)),
            },
            (None, _) => {
                let raw = r1
                    .and_then(|r| r.autoformalize.as_ref())
                    .and_then(|c| c.output.clone())
                    .unwrap_or_else(|| "—".into());
                out.push(Line::from(vec![
                    Span::styled("φ₁ ", Style::default().fg(t.title)),
                    Span::styled(raw, Style::default().fg(t.muted)),
                ]));
            }
        }
    }
    if app.model.hidden(d.key) {
        out.push(muted(BLIND_NOTE, t));
        return (out, long_psi);
    }
    let vi = verdict_index(&rec.verdict);
    let mut vline = vec![
        Span::styled("verdict ", Style::default().fg(t.title)),
        Span::styled(
            rec.verdict.name().to_string(),
            Style::default()
                .fg(t.verdict_color(vi))
                .add_modifier(Modifier::BOLD),
        ),
    ];
    if rec.rounds.len() > 1 {
        vline.push(Span::raw(format!(
            "  rounds passed {}/{}",
            rec.rounds_passed,
            rec.rounds.len()
        )));
    }
    out.push(Line::from(vline));
    match &rec.verdict {
        Verdict::Unparseable { pos, reason } => {
            out.push(Line::from(format!("  {reason} at {pos}")));
        }
        Verdict::Unknown { reason } => out.push(Line::from(format!("  {reason}"))),
        Verdict::Copied { detail, .. } => {
            out.push(Line::from(format!("  ψ copies the formula: {detail}")));
        }
        Verdict::ModelError { message } => out.push(Line::from(format!("  {message}"))),
        _ => {}
    }
    for n in rec.verdict.notes() {
        out.push(muted(format!("  note: {n}"), t));
    }
    if let Some(r) = reasoning_summary(rec) {
        out.push(Line::from(vec![
            Span::styled("reasoning ", Style::default().fg(t.title)),
            Span::styled(r, Style::default().fg(t.muted)),
        ]));
    }
    if let Some(c) = rec.closeness {
        out.extend(
            closeness_lines(&c, rec.syntax)
                .into_iter()
                .map(|l| muted(l, t)),
        );
    }
    // A failing sample shows its failure kinds below; an equivalent one written
    // differently lists no change (a rewrite is not a mistake).
    if !d.changes.is_empty() && rec.verdict.is_equivalent() {
        out.push(Line::from(vec![
            Span::styled("changes ", Style::default().fg(t.title)),
            Span::styled(
                "none · equivalent (rewritten)",
                Style::default().fg(t.muted),
            ),
        ]));
    }
    let (ri, row) = d.key;
    if let Some(run) = app.model.runs.get(ri as usize)
        && let Some(r) = run.rows.get(row as usize)
    {
        let kinds = crate::analysis::kinds::unmask(r.fails);
        if !kinds.is_empty() {
            let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            let mut line = vec![
                Span::styled("kinds ", Style::default().fg(t.title)),
                Span::styled(names.join(", "), Style::default().fg(t.diff_changed)),
            ];
            if r.fails & crate::analysis::kinds::UNPROVED != 0 {
                line.push(Span::styled(
                    " (unproved: structural guess)",
                    Style::default().fg(t.muted),
                ));
            }
            out.push(Line::from(line));
        } else if crate::run::row_kinds::is_pending(r.fails) {
            out.push(Line::from(vec![
                Span::styled("kinds ", Style::default().fg(t.title)),
                Span::styled(
                    "not proved yet (the Diff tab proves this sample now)",
                    Style::default().fg(t.muted),
                ),
            ]));
        }
        // Hand labels, each annotator's: categories by name, the note (in a blind
        // session only this annotator's: the others' would sway a later change).
        let blind = app.model.blind.is_some();
        for l in run
            .labels
            .get(&*r.id)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|l| !blind || l.annotator == app.model.annotator)
        {
            let names: Vec<&str> = l
                .categories
                .iter()
                .map(|c| app.model.taxonomy.name(c))
                .collect();
            let mut line = vec![
                Span::styled("labels ", Style::default().fg(t.title)),
                Span::raw(crate::base::sanitize::one_line(&l.annotator).into_owned()),
                Span::styled(": ", Style::default().fg(t.muted)),
                Span::styled(
                    crate::base::sanitize::one_line(&if names.is_empty() {
                        "fine (no category)".to_string()
                    } else {
                        names.join(", ")
                    })
                    .into_owned(),
                    Style::default().fg(t.diff_changed),
                ),
            ];
            if !l.note.is_empty() {
                line.push(Span::styled(
                    format!(" · {}", crate::base::sanitize::one_line(&l.note)),
                    Style::default().fg(t.fg),
                ));
            }
            out.push(Line::from(line));
        }
        if let Some(j) = run.judge.get(&*r.id) {
            use crate::llm::judge::JudgeAnswer;
            let (word, agrees) = match j.answer {
                JudgeAnswer::Yes => ("yes (equivalent)", Some(r.verdict.is_pass())),
                JudgeAnswer::No => ("no (not equivalent)", Some(!r.verdict.is_pass())),
                JudgeAnswer::Unparseable => ("no readable answer", None),
            };
            let mut line = vec![
                Span::styled("judge ", Style::default().fg(t.title)),
                Span::raw(format!("{} says {word}", j.model.name)),
            ];
            match agrees {
                Some(true) => line.push(Span::styled(
                    " · agrees with the verifier",
                    Style::default().fg(t.muted),
                )),
                Some(false) => line.push(Span::styled(
                    " · disagrees with the verifier",
                    Style::default().fg(t.warning).add_modifier(Modifier::BOLD),
                )),
                None => {}
            }
            out.push(Line::from(line));
            if let Some(text) = &j.call.output {
                for l in text.lines().filter(|l| !l.trim().is_empty()).take(6) {
                    out.push(muted(format!("  {l}"), t));
                }
            }
        }
    }
    if let Verdict::NotEquivalent { countermodel, .. } = &rec.verdict {
        countermodel_lines(countermodel, false, t, &mut out);
    }
    (out, long_psi)
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
    let Some((ex, kinds)) = d.explained() else {
        out.push(muted(
            "changes: proving… (the proof search runs in the background)",
            t,
        ));
        return out;
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
    out
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
        Tab::Overview => overview(app, w, t),
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
