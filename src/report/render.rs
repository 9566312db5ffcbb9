//! Report output: aligned table, CSV, JSON, Markdown.

use super::intervals::show;
use super::{RunReport, across_runs, mean_std};
use std::collections::BTreeSet;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text.
    Table,
    /// Comma-separated, one row per run and category.
    Csv,
    /// Structured JSON.
    Json,
    /// Markdown tables.
    Markdown,
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{:.1}", 100.0 * v))
}

fn f3(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{v:.3}"))
}

pub(crate) use super::grid::grid;

fn summary_rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        "run".into(),
        "model".into(),
        "dataset".into(),
        "n".into(),
        "A2 %".into(),
        "A3 %".into(),
        "A2 95% CI".into(),
        "A3 95% CI".into(),
        "A3 batches mean±std".into(),
        "A3 batch bootstrap 95%".into(),
        "BLEU".into(),
        "ROUGE-L".into(),
        "tree".into(),
        "tokens".into(),
        "reasoning tok".into(),
        "truncated".into(),
        "cost $".into(),
        "status".into(),
    ]];
    for r in reports {
        let batches = mean_std(&r.batch_accuracy).map_or_else(
            || "–".into(),
            |(m, s)| {
                format!(
                    "{:.1}±{:.1} ({})",
                    100.0 * m,
                    100.0 * s,
                    r.batch_accuracy.len()
                )
            },
        );
        let c = r.closeness;
        rows.push(vec![
            r.run.clone(),
            r.model.clone(),
            r.dataset.clone(),
            r.total.n.to_string(),
            pct(r.total.compliance()),
            pct(r.total.accuracy()),
            show(r.intervals.total.a2),
            show(r.intervals.total.a3),
            batches,
            show(
                r.intervals
                    .batch_bootstrap
                    .as_ref()
                    .and_then(|b| b.total.a3),
            ),
            f3(c.map(|c| c[0])),
            f3(c.map(|c| c[1])),
            f3(c.map(|c| c[2])),
            (r.tokens.0 + r.tokens.1).to_string(),
            r.reasoning_tokens.to_string(),
            r.truncated.to_string(),
            r.cost_usd
                .map_or_else(|| "unpriced".into(), |c| format!("{c:.4}")),
            r.status.clone(),
        ]);
    }
    rows
}

/// One row per run, one column per stored closeness metric some run holds.
fn metric_rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    let present: Vec<crate::record::Metric> = crate::record::Metric::ALL
        .into_iter()
        .filter(|m| {
            reports
                .iter()
                .any(|r| r.closeness_metrics.contains_key(m.name()))
        })
        .collect();
    let mut rows = vec![
        std::iter::once("run".to_string())
            .chain(present.iter().map(|m| m.label().to_string()))
            .collect::<Vec<_>>(),
    ];
    for r in reports {
        let mut row = vec![r.run.clone()];
        for m in &present {
            row.push(
                r.closeness_metrics
                    .get(m.name())
                    .map_or_else(|| "–".into(), |x| format!("{:.3} ({})", x.mean, x.n)),
            );
        }
        rows.push(row);
    }
    rows
}

fn category_rows(reports: &[RunReport], label: &str) -> Vec<Vec<String>> {
    let keys: BTreeSet<usize> = reports
        .iter()
        .flat_map(|r| r.by_category.keys().copied())
        .collect();
    let mut head = vec![label.to_string()];
    for r in reports {
        head.push(format!("{} n", r.run));
        head.push(format!("{} A2%", r.run));
        head.push(format!("{} A3%", r.run));
        head.push(format!("{} A2 95% CI", r.run));
        head.push(format!("{} A3 95% CI", r.run));
        head.push(format!("{} copy%", r.run));
    }
    let mut rows = vec![head];
    for k in keys {
        let mut row = vec![k.to_string()];
        for r in reports {
            let c = r.by_category.get(&k);
            row.push(c.map_or_else(|| "0".into(), |c| c.n.to_string()));
            row.push(pct(c.and_then(super::Counts::compliance)));
            row.push(pct(c.and_then(super::Counts::accuracy)));
            let ci = r.intervals.by_category.get(&k);
            row.push(show(ci.and_then(|c| c.a2)));
            row.push(show(ci.and_then(|c| c.a3)));
            row.push(pct(c.and_then(super::Counts::copy_share)));
        }
        rows.push(row);
    }
    rows
}

/// The by-category table long: one row per run and category, for when the wide form
/// (six columns per run) does not fit the width.
fn category_rows_long(reports: &[RunReport], label: &str) -> Vec<Vec<String>> {
    let mut rows = vec![
        [
            "run",
            label,
            "n",
            "A2%",
            "A3%",
            "A2 95% CI",
            "A3 95% CI",
            "copy%",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for r in reports {
        for (k, c) in &r.by_category {
            let ci = r.intervals.by_category.get(k);
            rows.push(vec![
                r.run.clone(),
                k.to_string(),
                c.n.to_string(),
                pct(c.compliance()),
                pct(c.accuracy()),
                show(ci.and_then(|c| c.a2)),
                show(ci.and_then(|c| c.a3)),
                pct(c.copy_share()),
            ]);
        }
    }
    rows
}

/// The by-category table, wide when it fits [`table_width`], else long.
fn category_table(reports: &[RunReport], label: &str, md: bool) -> String {
    let wide = grid(&category_rows(reports, label), md);
    let fits = wide
        .lines()
        .all(|l| unicode_width::UnicodeWidthStr::width(l) <= super::grid::table_width());
    if fits {
        wide
    } else {
        grid(&category_rows_long(reports, label), md)
    }
}

fn verdict_rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    let names =
        crate::verify::VerdictKind::ALL.map(super::super::verify::verdict::VerdictKind::name);
    let mut rows = vec![
        std::iter::once("run".to_string())
            .chain(names.iter().map(std::string::ToString::to_string))
            .collect(),
    ];
    for r in reports {
        let mut row = vec![r.run.clone()];
        row.extend(
            names
                .iter()
                .map(|n| r.verdicts.get(*n).copied().unwrap_or(0).to_string()),
        );
        rows.push(row);
    }
    rows
}

fn judge_rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    let mut rows = vec![
        [
            "run",
            "judge",
            "TP",
            "FP",
            "TN",
            "FN",
            "unparseable",
            "precision",
            "precision 95% CI",
            "recall",
            "recall 95% CI",
            "specificity",
            "F1",
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect::<Vec<_>>(),
    ];
    for r in reports {
        for (i, j) in r.judges.iter().enumerate() {
            let ci = r.intervals.judges.get(i);
            rows.push(vec![
                r.run.clone(),
                j.model.clone(),
                j.tp.to_string(),
                j.fp.to_string(),
                j.tn.to_string(),
                j.fn_.to_string(),
                j.unparseable.to_string(),
                f3(j.precision()),
                show(ci.and_then(|c| c.precision)),
                f3(j.recall()),
                show(ci.and_then(|c| c.recall)),
                f3(j.specificity()),
                f3(j.f1()),
            ]);
        }
    }
    rows
}

/// The category column's name: the runs' grouping, or both when they differ.
fn category_label(reports: &[RunReport]) -> String {
    let bys: BTreeSet<&str> = reports.iter().map(|r| r.by.as_str()).collect();
    if bys.len() == 1 {
        bys.into_iter().next().unwrap_or("operators").to_string()
    } else {
        "operators or depth".to_string()
    }
}

/// Failure kinds: one row per kind found, one column per run (count and share of its failures).
fn kind_rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    let mut head = vec!["failure kind".to_string()];
    head.extend(reports.iter().map(|r| r.run.clone()));
    let mut rows = vec![head];
    for kind in crate::analysis::kinds::FailureKind::ALL {
        let counts: Vec<usize> = reports
            .iter()
            .map(|r| {
                r.failure_kinds
                    .get(kind.id())
                    .map_or(0, |m| m.values().sum())
            })
            .collect();
        if counts.iter().all(|&c| c == 0) {
            continue;
        }
        let mut row = vec![kind.name().to_string()];
        for (r, c) in reports.iter().zip(&counts) {
            let failing = r.total.n - r.total.accurate;
            row.push(format!("{c} ({}%)", pct(ratio(*c, failing))));
        }
        rows.push(row);
    }
    rows
}

/// Failure kinds of one run by category value.
fn kind_by_category_rows(r: &RunReport) -> Vec<Vec<String>> {
    let keys: BTreeSet<usize> = r
        .failure_kinds
        .values()
        .flat_map(|m| m.keys().copied())
        .collect();
    let mut head = vec![format!("kind \\ {}", r.by)];
    head.extend(keys.iter().map(std::string::ToString::to_string));
    let mut rows = vec![head];
    for kind in crate::analysis::kinds::FailureKind::ALL {
        let Some(m) = r.failure_kinds.get(kind.id()) else {
            continue;
        };
        let mut row = vec![kind.name().to_string()];
        row.extend(keys.iter().map(|k| match m.get(k) {
            Some(n) => n.to_string(),
            None => "·".into(),
        }));
        rows.push(row);
    }
    rows
}

fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// CSV with every cell exact, formulas too (`report --format csv --raw`).
pub fn render_csv_raw(reports: &[RunReport]) -> String {
    super::render_csv::csv_text(reports, true).unwrap_or_default()
}

/// Renders reports in a format.
pub fn render(reports: &[RunReport], format: Format) -> String {
    let label = category_label(reports);
    let label = label.as_str();
    match format {
        Format::Json => {
            let across: Vec<_> = across_runs(reports)
                .into_iter()
                .map(|(k, (n, m, s))| serde_json::json!({"group": k, "runs": n, "accuracy_mean": m, "accuracy_std": s}))
                .collect();
            serde_json::to_string_pretty(
                &serde_json::json!({"runs": reports, "across_runs": across}),
            )
            .unwrap_or_default()
        }
        Format::Csv => super::render_csv::csv_text(reports, false).unwrap_or_default(),
        Format::Table | Format::Markdown => text(reports, label, format == Format::Markdown),
    }
}

/// A section heading, as Markdown with `md`.
fn heading(t: &str, md: bool) -> String {
    if md {
        format!("\n### {t}\n\n")
    } else {
        format!("\n{t}\n")
    }
}

/// The report as aligned text or (`md`) Markdown, `label` naming the category axis.
fn text(reports: &[RunReport], label: &str, md: bool) -> String {
    let h = |t: &str| heading(t, md);
    let mut out = h("Summary (A2 compliance, A3 accuracy, closeness of φ₁ to φ₀)");
    out += &grid(&summary_rows(reports), md);
    out += &format!(
        "{}95% CI: Wilson score interval; batch bootstrap: {} resamples of the dataset's batches (runs with two or more)\n",
        if md { "\n" } else { "" },
        super::intervals::BATCH_BOOTSTRAP
    );
    if reports.iter().any(|r| !r.closeness_metrics.is_empty()) {
        out +=
            &h("Closeness metrics (mean over the samples whose record holds each, n in brackets)");
        out += &grid(&metric_rows(reports), md);
    }
    out += &h(&format!("By {label}"));
    out += &category_table(reports, label, md);
    out += &h(&format!("Breaking point (A3 by {label})"));
    out += &grid(&super::breaking::rows(reports), md);
    out += &super::breaking::note(reports);
    out += &h("Verdicts");
    out += &grid(&verdict_rows(reports), md);
    for r in reports.iter().filter(|r| r.truncated > 0) {
        out += &format!(
            "{}: truncated: {} (counted as unparseable: a call stopped at the token limit before answering; \
             rerun them with --resume --retry-truncated and a larger --max-tokens)\n",
            r.run, r.truncated
        );
    }
    if reports.iter().any(|r| !r.failure_kinds.is_empty()) {
        out += &h(
            "Failure kinds (automatic, from the verdict and the φ₀/φ₁ diff; a sample can show several)",
        );
        out += &grid(&kind_rows(reports), md);
        for r in reports.iter().filter(|r| !r.failure_kinds.is_empty()) {
            out += &h(&format!("Failure kinds of {} by {}", r.run, r.by));
            out += &grid(&kind_by_category_rows(r), md);
        }
    }
    if reports
        .iter()
        .any(|r| r.reading_notes > 0 || r.reading != "standard")
    {
        out += &h(
            "Reading conventions (samples whose φ₁ reads differently under the other convention, or writes ^)",
        );
        out += &grid(&reading_rows(reports), md);
    }
    if reports.iter().any(|r| !r.judges.is_empty()) {
        out += &h("A4: LLM as judge vs the verifier (equivalent = positive)");
        out += &grid(&judge_rows(reports), md);
    }
    let across = across_runs(reports);
    if !across.is_empty() {
        out += &h("Across runs (A3 mean ± std)");
        let mut rows = vec![vec![
            "model on dataset".to_string(),
            "runs".into(),
            "A3 %".into(),
        ]];
        for (k, (n, m, s)) in across {
            rows.push(vec![
                k,
                n.to_string(),
                format!("{:.1} ± {:.1}", 100.0 * m, 100.0 * s),
            ]);
        }
        out += &grid(&rows, md);
    }
    out
}

/// Each run's reading convention and how many samples carry a reading note.
fn reading_rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        "run".to_string(),
        "reading".into(),
        "samples with a reading note".into(),
    ]];
    for r in reports {
        rows.push(vec![
            r.run.clone(),
            r.reading.clone(),
            r.reading_notes.to_string(),
        ]);
    }
    rows
}
