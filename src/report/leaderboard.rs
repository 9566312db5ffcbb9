//! The leaderboard: many runs folded into one table, one row per model and one column
//! group per dataset (or swapped), with A2, A3 and their Wilson intervals, the copy
//! share, the judge's F1 and n. Rendered as text, Markdown, CSV, JSON or LaTeX.

use super::intervals::wilson95;
use super::{Counts, JudgeStats, RunReport};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// What the rows are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rows {
    /// One row per model, a column group per dataset.
    Model,
    /// One row per dataset, a column group per model.
    Dataset,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text.
    Table,
    /// A Markdown table.
    Markdown,
    /// One line per (model, dataset).
    Csv,
    /// Structured JSON.
    Json,
    /// A LaTeX `tabular` with booktabs rules, for papers.
    Latex,
}

/// One (model, dataset) cell: its runs pooled.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Cell {
    /// Model (`provider:name`).
    pub model: String,
    /// Dataset kind.
    pub dataset: String,
    /// Runs pooled into it.
    pub runs: Vec<String>,
    /// Pooled counts.
    pub counts: Counts,
    /// A2 compliance.
    pub a2: Option<f64>,
    /// Its Wilson 95 % interval.
    pub a2_ci: Option<[f64; 2]>,
    /// A3 accuracy.
    pub a3: Option<f64>,
    /// Its Wilson 95 % interval.
    pub a3_ci: Option<[f64; 2]>,
    /// Share of copied ψ.
    pub copy_share: Option<f64>,
    /// This model as the judge (A4) on this dataset's runs, pooled.
    pub judge: Option<JudgeStats>,
    /// The judge's F1.
    pub judge_f1: Option<f64>,
    /// Where pooled A3 crosses one half by the runs' category (None when the runs are
    /// grouped by different fields).
    pub breaking_point: Option<crate::analysis::breaking::BreakingPoint>,
    /// Pooled counts per category value, and the category field (None: runs differ).
    #[serde(skip)]
    by_category: Option<(String, BTreeMap<usize, Counts>)>,
}

/// The folded table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Leaderboard {
    /// What the rows are.
    pub rows: Rows,
    /// Row keys, best pooled A3 first.
    pub row_keys: Vec<String>,
    /// Column group keys, in name order.
    pub column_keys: Vec<String>,
    /// Every (model, dataset) that has runs or judge decisions.
    pub cells: Vec<Cell>,
}

fn model_name(model: &str) -> &str {
    model.split_once(':').map_or(model, |(_, n)| n)
}

/// Folds run reports into a leaderboard.
pub fn build(reports: &[RunReport], rows: Rows) -> Leaderboard {
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    // Judges are keyed by their model's name; a row is found by the name part of
    // `provider:name` (a judge that has no runs of its own gets a row by name).
    let mut judges: BTreeMap<(String, String), JudgeStats> = BTreeMap::new();
    for r in reports {
        let c = cells
            .entry((r.model.clone(), r.dataset.clone()))
            .or_insert_with(|| Cell {
                model: r.model.clone(),
                dataset: r.dataset.clone(),
                ..Cell::default()
            });
        c.by_category = if c.runs.is_empty() {
            Some((r.by.clone(), r.by_category.clone()))
        } else {
            // Buckets pool only when every run counts them by the same field.
            c.by_category
                .take()
                .filter(|(by, _)| *by == r.by)
                .map(|(by, mut m)| {
                    for (k, v) in &r.by_category {
                        m.entry(*k).or_default().merge(v);
                    }
                    (by, m)
                })
        };
        c.runs.push(r.run.clone());
        c.counts.merge(&r.total);
        for j in &r.judges {
            let e = judges
                .entry((j.model.clone(), r.dataset.clone()))
                .or_insert_with(|| JudgeStats {
                    model: j.model.clone(),
                    ..JudgeStats::default()
                });
            e.tp += j.tp;
            e.fp += j.fp;
            e.tn += j.tn;
            e.fn_ += j.fn_;
            e.unparseable += j.unparseable;
        }
    }
    for ((judge, dataset), js) in judges {
        let key = cells
            .keys()
            .find(|(m, d)| *d == dataset && model_name(m) == judge)
            .cloned()
            .unwrap_or((judge.clone(), dataset.clone()));
        let c = cells.entry(key).or_insert_with(|| Cell {
            model: judge,
            dataset,
            ..Cell::default()
        });
        c.judge_f1 = js.f1();
        c.judge = Some(js);
    }
    for c in cells.values_mut() {
        let k = &c.counts;
        c.a2 = k.compliance();
        c.a2_ci = wilson95(k.compliant, k.answered);
        c.a3 = k.accuracy();
        c.a3_ci = wilson95(k.accurate, k.scored());
        c.copy_share = k.copy_share();
        c.breaking_point = c.by_category.as_ref().map(|(_, m)| {
            let cells = crate::analysis::breaking::cells_of(m);
            crate::analysis::breaking::breaking_point(
                &cells,
                crate::analysis::breaking::DEFAULT_LEVEL,
            )
            .0
        });
    }
    let key = |c: &Cell| match rows {
        Rows::Model => (c.model.clone(), c.dataset.clone()),
        Rows::Dataset => (c.dataset.clone(), c.model.clone()),
    };
    // Rows ranked by their pooled A3 across the column groups, then by name.
    let mut pooled: BTreeMap<String, Counts> = BTreeMap::new();
    let mut columns = BTreeSet::new();
    for c in cells.values() {
        let (r, col) = key(c);
        pooled.entry(r).or_default().merge(&c.counts);
        columns.insert(col);
    }
    let mut row_keys: Vec<(String, Option<f64>)> =
        pooled.into_iter().map(|(k, c)| (k, c.accuracy())).collect();
    row_keys.sort_by(|a, b| {
        b.1.unwrap_or(-1.0)
            .total_cmp(&a.1.unwrap_or(-1.0))
            .then_with(|| a.0.cmp(&b.0))
    });
    Leaderboard {
        rows,
        row_keys: row_keys.into_iter().map(|(k, _)| k).collect(),
        column_keys: columns.into_iter().collect(),
        cells: cells.into_values().collect(),
    }
}

impl Leaderboard {
    fn cell(&self, row: &str, col: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| match self.rows {
            Rows::Model => c.model == row && c.dataset == col,
            Rows::Dataset => c.dataset == row && c.model == col,
        })
    }

    fn row_label(&self) -> &'static str {
        match self.rows {
            Rows::Model => "model",
            Rows::Dataset => "dataset",
        }
    }
}

/// The metric columns of each group.
const METRICS: [&str; 5] = ["n", "A2 %", "A3 %", "copy %", "judge F1"];

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{:.1}", 100.0 * v))
}

fn with_ci(x: Option<f64>, ci: Option<[f64; 2]>, sep: &str) -> String {
    match (x, ci) {
        (Some(v), Some([l, h])) => {
            format!("{:.1} [{:.1}{sep}{:.1}]", 100.0 * v, 100.0 * l, 100.0 * h)
        }
        _ => "–".into(),
    }
}

fn values(c: Option<&Cell>, sep: &str) -> [String; 5] {
    let Some(c) = c else {
        return std::array::from_fn(|_| "·".to_string());
    };
    [
        c.counts.n.to_string(),
        with_ci(c.a2, c.a2_ci, sep),
        with_ci(c.a3, c.a3_ci, sep),
        pct(c.copy_share),
        c.judge_f1.map_or_else(|| "–".into(), |f| format!("{f:.3}")),
    ]
}

/// Escapes text for LaTeX.
fn tex(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => o.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(ch);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            c if c.is_control() => {}
            c => o.push(c),
        }
    }
    o
}

fn text_table(lb: &Leaderboard, markdown: bool) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec![lb.row_label().to_string()];
    for col in &lb.column_keys {
        for m in METRICS {
            head.push(format!("{col} {m}"));
        }
    }
    rows.push(head);
    for r in &lb.row_keys {
        let mut row = vec![r.clone()];
        for col in &lb.column_keys {
            row.extend(values(lb.cell(r, col), "–"));
        }
        rows.push(row);
    }
    let cols = rows[0].len();
    let width = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = " ".repeat(widths[c].saturating_sub(width(s)));
                if c == 0 {
                    format!("{s}{pad}")
                } else {
                    format!("{pad}{s}")
                }
            })
            .collect();
        if markdown {
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let rule: Vec<String> = widths
                    .iter()
                    .enumerate()
                    .map(|(c, w)| {
                        if c == 0 {
                            "-".repeat(w + 2)
                        } else {
                            format!("{}:", "-".repeat(w + 1))
                        }
                    })
                    .collect();
                let _ = writeln!(out, "|{}|", rule.join("|"));
            }
        } else {
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
    }
    out
}

/// The same table grouped by row, one line per column group: about 80 columns wide
/// whatever the number of datasets (the viewer's run summary draws this one).
pub(crate) fn render_grouped(lb: &Leaderboard) -> String {
    let col_label = match lb.rows {
        Rows::Model => "dataset",
        Rows::Dataset => "model",
    };
    let kw = lb
        .column_keys
        .iter()
        .map(|k| unicode_width::UnicodeWidthStr::width(k.as_str()))
        .chain([col_label.len()])
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let head = format!(
        "  {col_label:<kw$} {:>6}  {:<19}  {:<19}  {:>6}  {:>8}",
        "n", "A2 % [95% CI]", "A3 % [95% CI]", "copy %", "judge F1"
    );
    let _ = writeln!(out, "{}", head.trim_end());
    for r in &lb.row_keys {
        let _ = writeln!(out, "{r}");
        for col in &lb.column_keys {
            let Some(c) = lb.cell(r, col) else { continue };
            let [n, a2, a3, copy, f1] = values(Some(c), "–");
            let pad = kw.saturating_sub(unicode_width::UnicodeWidthStr::width(col.as_str()));
            let _ = writeln!(
                out,
                "  {col}{} {n:>6}  {a2:<19}  {a3:<19}  {copy:>6}  {f1:>8}",
                " ".repeat(pad)
            );
        }
    }
    out
}

fn latex(lb: &Leaderboard) -> String {
    let groups = lb.column_keys.len();
    let mut o = String::new();
    o.push_str(
        "% autoeval leaderboard: A2/A3 in %, [Wilson 95% CI]; requires \\usepackage{booktabs}\n",
    );
    let _ = writeln!(o, "\\begin{{tabular}}{{l{}}}", "rrrrr".repeat(groups));
    o.push_str("\\toprule\n");
    let _ = write!(o, "{}", tex(lb.row_label()));
    for col in &lb.column_keys {
        let _ = write!(o, " & \\multicolumn{{5}}{{c}}{{{}}}", tex(col));
    }
    o.push_str(" \\\\\n");
    for g in 0..groups {
        let from = 2 + 5 * g;
        let _ = write!(o, "\\cmidrule(lr){{{from}-{}}}", from + 4);
    }
    o.push('\n');
    for _ in 0..groups {
        o.push_str(" & $n$ & A2 (\\%) & A3 (\\%) & copy (\\%) & judge $F_1$");
    }
    o.push_str(" \\\\\n\\midrule\n");
    for r in &lb.row_keys {
        o.push_str(&tex(r));
        for col in &lb.column_keys {
            for v in values(lb.cell(r, col), "--") {
                let _ = write!(o, " & {}", tex(&v).replace('–', "--").replace('·', ""));
            }
        }
        o.push_str(" \\\\\n");
    }
    o.push_str("\\bottomrule\n\\end{tabular}\n");
    o
}

fn csv_text(lb: &Leaderboard) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "model",
        "dataset",
        "runs",
        "n",
        "answered",
        "compliant",
        "a2",
        "a2_low",
        "a2_high",
        "accurate",
        "a3",
        "a3_low",
        "a3_high",
        "copied",
        "copy_share",
        "judge_tp",
        "judge_fp",
        "judge_tn",
        "judge_fn",
        "judge_f1",
        "breaking_point",
        "breaking_point_low",
        "breaking_point_high",
    ])?;
    let f = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_default();
    for c in &lb.cells {
        let j = c.judge.as_ref();
        let ju = |g: fn(&JudgeStats) -> usize| j.map(|j| g(j).to_string()).unwrap_or_default();
        w.write_record(crate::sanitize::csv_record([
            c.model.clone(),
            c.dataset.clone(),
            c.runs.join(";"),
            c.counts.n.to_string(),
            c.counts.answered.to_string(),
            c.counts.compliant.to_string(),
            f(c.a2),
            f(c.a2_ci.map(|v| v[0])),
            f(c.a2_ci.map(|v| v[1])),
            c.counts.accurate.to_string(),
            f(c.a3),
            f(c.a3_ci.map(|v| v[0])),
            f(c.a3_ci.map(|v| v[1])),
            c.counts.copied.to_string(),
            f(c.copy_share),
            ju(|j| j.tp),
            ju(|j| j.fp),
            ju(|j| j.tn),
            ju(|j| j.fn_),
            f(c.judge_f1),
            f(c.breaking_point.and_then(|b| b.value)),
            f(c.breaking_point.and_then(|b| b.ci[0])),
            f(c.breaking_point.and_then(|b| b.ci[1])),
        ]))?;
    }
    let bytes = w.into_inner().map_err(csv::IntoInnerError::into_error)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Renders the leaderboard.
pub fn render(lb: &Leaderboard, format: Format) -> String {
    match format {
        Format::Table => {
            let mut t = text_table(lb, false);
            t.push_str("A2/A3 in % with [Wilson 95% CI]; · no runs; rows ranked by pooled A3\n");
            t.push_str(&breaking_table(lb, false));
            t
        }
        Format::Markdown => text_table(lb, true),
        Format::Csv => csv_text(lb).unwrap_or_default(),
        Format::Json => serde_json::to_string_pretty(lb).unwrap_or_default(),
        Format::Latex => latex(lb),
    }
}

/// Breaking points side by side: one row per row key, one column per column key.
fn breaking_table(lb: &Leaderboard, markdown: bool) -> String {
    if lb.cells.iter().all(|c| c.breaking_point.is_none()) {
        return String::new();
    }
    let mut rows = vec![
        std::iter::once(lb.row_label().to_string())
            .chain(lb.column_keys.iter().cloned())
            .collect::<Vec<_>>(),
    ];
    for r in &lb.row_keys {
        let mut row = vec![r.clone()];
        for col in &lb.column_keys {
            row.push(match lb.cell(r, col) {
                None => "·".into(),
                Some(c) => c
                    .breaking_point
                    .as_ref()
                    .map_or_else(|| "–".into(), crate::analysis::breaking::describe),
            });
        }
        rows.push(row);
    }
    format!(
        "\nBreaking points (where pooled A3 crosses 50%, by the runs' category; 95% profile-likelihood CI)\n{}",
        super::render::grid(&rows, markdown)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_escapes_names() {
        assert_eq!(tex("gpt_4o & 50%"), "gpt\\_4o \\& 50\\%");
        assert_eq!(tex("a\\b~"), "a\\textbackslash{}b\\textasciitilde{}");
    }
}
