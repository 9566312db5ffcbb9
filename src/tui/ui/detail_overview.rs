//! The detail view's Overview tab of an open sample: φ₀, ψ, φ₁, the verdict and what
//! was found about it (closeness, failure kinds, hand labels, the judge, the
//! countermodel). Split from `detail`, which draws the pane and the other tabs.

use super::detail_blind::{BLIND_NOTE, blind_overview, muted, psi_lines};
use super::detail_raw::reasoning_summary;
use super::formula;
use super::longtext::{LONG, Piece};
use crate::record::SampleRecord;
use crate::tui::app::App;
use crate::tui::data::{Row, RunIndex};
use crate::tui::model::Detail;
use crate::tui::theme::Theme;
use crate::verify::{Countermodel, Verdict};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

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
pub(super) fn countermodel_lines(
    c: &Countermodel,
    tables: bool,
    t: &Theme,
    out: &mut Vec<Line<'static>>,
) {
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
pub(super) fn overview<'a>(app: &'a App, width: usize, t: &Theme) -> Vec<Piece<'a>> {
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
        long_psi = formula_lines(app, d, rec, width.saturating_sub(1), t, &mut out);
    }
    if app.model.hidden(d.key) {
        out.push(muted(BLIND_NOTE, t));
        return (out, long_psi);
    }
    verdict_lines(rec, t, &mut out);
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
        out.extend(kinds_line(r, t));
        label_lines(app, run, r, t, &mut out);
        judge_lines(run, r, t, &mut out);
    }
    if let Verdict::NotEquivalent { countermodel, .. } = &rec.verdict {
        countermodel_lines(countermodel, false, t, &mut out);
    }
    (out, long_psi)
}

/// φ₀, ψ and φ₁ in `w` columns (as trees when the tree view is on); returns where a
/// ψ too long to draw here goes among `out`'s lines.
fn formula_lines(
    app: &App,
    d: &Detail,
    rec: &SampleRecord,
    w: usize,
    t: &Theme,
    out: &mut Vec<Line<'static>>,
) -> Option<usize> {
    let mut long_psi = None;
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
        psi_lines(app, psi, copied, t, out);
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
    long_psi
}

/// The verdict (with the rounds passed of several), its reason and its notes.
fn verdict_lines(rec: &SampleRecord, t: &Theme, out: &mut Vec<Line<'static>>) {
    let vi = rec.verdict.kind();
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
}

/// The row's failure kinds (or that they are not proved yet), if any.
fn kinds_line(r: &Row, t: &Theme) -> Option<Line<'static>> {
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
        Some(Line::from(line))
    } else if crate::run::row_kinds::is_pending(r.fails) {
        Some(Line::from(vec![
            Span::styled("kinds ", Style::default().fg(t.title)),
            Span::styled(
                "not proved yet (the Diff tab proves this sample now)",
                Style::default().fg(t.muted),
            ),
        ]))
    } else {
        None
    }
}

/// Hand labels, each annotator's: categories by name, the note (in a blind session
/// only this annotator's: the others' would sway a later change).
fn label_lines(app: &App, run: &RunIndex, r: &Row, t: &Theme, out: &mut Vec<Line<'static>>) {
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
}

/// The judge's answer, whether it agrees with the verifier, and its reply's first lines.
fn judge_lines(run: &RunIndex, r: &Row, t: &Theme, out: &mut Vec<Line<'static>>) {
    use crate::llm::judge::JudgeAnswer;
    let Some(j) = run.judge.get(&*r.id) else {
        return;
    };
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
