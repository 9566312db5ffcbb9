//! One run at a glance.

use super::{close_key, draw_overlay, scroll_keys};
use crate::tui::app::App;
use crate::tui::model::RunSummary;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// One run at a glance: A2/A3, failure kinds, the judge against the verifier, pass/fail
/// against the other runs that answered the same φ₀.
pub fn run_summary(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(s) = app.summary() else {
        return draw_overlay(
            f,
            area,
            vec![Line::from("no run loaded")],
            &format!("Run summary · {} closes", close_key(app)),
            None,
            t,
        );
    };
    let mut lines = head_lines(s, t);
    kind_lines(s, t, &mut lines);
    judge_lines(s, t, &mut lines);
    versus_lines(s, t, &mut lines);
    draw_overlay(
        f,
        area,
        lines,
        &format!(
            "Run summary · {} scroll · {} closes",
            scroll_keys(app),
            close_key(app)
        ),
        app.layers
            .last()
            .and_then(crate::tui::layer::Layer::overlay),
        t,
    );
}

/// A section's heading style.
fn heading(t: &Theme) -> Style {
    Style::default().fg(t.title).add_modifier(Modifier::BOLD)
}

/// The run's name and model, A2/A3 with their intervals, and the leaderboard of the
/// loaded runs when there is one.
fn head_lines(s: &RunSummary, t: &Theme) -> Vec<Line<'static>> {
    let title = heading(t);
    let mut lines: Vec<Line> = Vec::new();
    let pct = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{:.1}%", 100.0 * v));
    lines.push(Line::from(Span::styled(
        format!("{} · {}", s.name, s.model),
        title,
    )));
    lines.push(Line::from(format!(
        "{} samples · A2 compliance {} · A3 accuracy {} · copied {}",
        s.counts.n,
        pct(s.counts.compliance()),
        pct(s.counts.accuracy()),
        s.counts.copied
    )));
    let ci = |x: Option<[f64; 2]>| {
        x.map_or_else(
            || "–".into(),
            |[l, h]| format!("[{:.1}%, {:.1}%]", 100.0 * l, 100.0 * h),
        )
    };
    lines.push(Line::from(format!(
        "Wilson 95 % intervals: A2 {} (n {}) · A3 {} (n {})",
        ci(s.ci.a2),
        s.counts.answered,
        ci(s.ci.a3),
        s.counts.scored()
    )));
    if let Some(lb) = &s.leaderboard {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(
            "leaderboard of the loaded runs (as autoeval leaderboard; ranked by pooled A3)",
            title,
        )));
        // Grouped by model, one line per dataset: the wide table wraps at 100 columns.
        let text = crate::report::leaderboard::render_grouped(lb);
        for l in text.lines() {
            lines.push(Line::from(format!(
                "  {}",
                crate::base::sanitize::one_line(l)
            )));
        }
    }
    lines
}

/// The failure kinds section.
fn kind_lines(s: &RunSummary, t: &Theme, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "failure kinds (automatic, from the diff)",
        heading(t),
    )));
    if s.kinds.is_empty() {
        lines.push(Line::from(Span::styled(
            "  none",
            Style::default().fg(t.muted),
        )));
    }
    for (k, n) in &s.kinds {
        lines.push(Line::from(format!("  {:<22} {n:>6}", k.name())));
    }
}

/// The judge section: its confusion matrix against the verifier and the scores.
fn judge_lines(s: &RunSummary, t: &Theme, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "judge (A4) against the verifier",
        heading(t),
    )));
    match &s.judge {
        None => lines.push(Line::from(Span::styled(
            "  no judge decisions (autoeval judge RUN)",
            Style::default().fg(t.muted),
        ))),
        Some(j) => {
            lines.push(Line::from(format!("  judge {}", j.model)));
            lines.push(Line::from("                 verifier ≡   verifier ≢"));
            lines.push(Line::from(format!(
                "  judge yes      {:>10}   {:>10}",
                j.tp, j.fp
            )));
            lines.push(Line::from(format!(
                "  judge no       {:>10}   {:>10}",
                j.fn_, j.tn
            )));
            let f3 = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{v:.3}"));
            lines.push(Line::from(format!(
                "  unparseable {} · precision {} · recall {} · F1 {}",
                j.unparseable,
                f3(j.precision()),
                f3(j.recall()),
                f3(j.f1())
            )));
        }
    }
}

/// Pass/fail against the other runs of the same dataset, paired by φ₀.
fn versus_lines(s: &RunSummary, t: &Theme, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "pass/fail against runs of the same dataset, paired by φ₀ (this run = A)",
        heading(t),
    )));
    if s.versus.is_empty() {
        lines.push(Line::from(Span::styled(
            "  no other run of this dataset answered these φ₀",
            Style::default().fg(t.muted),
        )));
    }
    if s.other_datasets > 0 {
        lines.push(Line::from(Span::styled(
            format!(
                "  {} run(s) of other datasets not paired (equal φ₀ there are a coincidence)",
                s.other_datasets
            ),
            Style::default().fg(t.muted),
        )));
    }
    for (name, p) in &s.versus {
        let mc = crate::report::compare::format_p(p.mcnemar_p());
        lines.push(Line::from(format!(
            "  {name}: n {} · both {} · A only {} · B only {} · neither {} · McNemar p {mc}",
            p.n(),
            p.both,
            p.a_only,
            p.b_only,
            p.neither
        )));
    }
}
