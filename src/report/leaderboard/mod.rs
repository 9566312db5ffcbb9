//! The leaderboard: many runs folded into one table, one row per model and one column
//! group per dataset (or swapped), with A2, A3 and their Wilson intervals, the copy
//! share, the judge's F1 and n. Runs of one model under different prompt conditions
//! (shots, prompt set as `run.json` records them) are rows of their own unless pooled.
//! Rendered as text, Markdown, CSV, JSON or LaTeX (`render`).

use super::intervals::wilson95;
use super::{Counts, JudgeStats, RunReport};
use std::collections::{BTreeMap, BTreeSet};

mod render;

pub(crate) use render::render_grouped;
pub use render::{render, render_width};

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
    /// The prompt condition of its runs (`2-shot`; `0+2-shot` when pooled over several).
    pub condition: String,
    /// Shots of its runs (one value unless conditions were pooled).
    pub shots: Vec<usize>,
    /// SHA-256 of its runs' prompt sets (one unless pooled).
    pub prompt_hashes: Vec<String>,
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
    /// The row or column key of its model side: the model, with its condition when
    /// conditions are split.
    #[serde(skip)]
    pub(super) system: String,
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
    /// The prompt conditions among the runs (`0-shot`, `2-shot`, …).
    pub conditions: Vec<String>,
    /// Whether runs of different prompt conditions were pooled (`--pool`); otherwise
    /// each condition of a model is a row (a column with `--rows dataset`) of its own.
    pub pooled: bool,
    /// Every (model, dataset) that has runs or judge decisions.
    pub cells: Vec<Cell>,
}

/// A prompt condition: shots (None: no run.json to say) and the prompt set's hash.
type Condition = (Option<usize>, String);

fn model_name(model: &str) -> &str {
    model.split_once(':').map_or(model, |(_, n)| n)
}

/// A run's prompt condition: its shots and prompt-set hash (unknown without run.json).
fn condition_of(r: &RunReport) -> Condition {
    r.prompts
        .as_ref()
        .map_or((None, String::new()), |p| (Some(p.shots), p.hash.clone()))
}

/// How a condition reads: `2-shot`, with the prompt set's hash when sets differ.
fn condition_label(shots: &[Option<usize>], hashes: &[String], show_hash: bool) -> String {
    let s: Vec<String> = shots
        .iter()
        .map(|s| s.map_or_else(|| "?".into(), |n| n.to_string()))
        .collect();
    let mut label = format!("{}-shot", s.join("+"));
    if show_hash {
        let h: Vec<String> = hashes
            .iter()
            .map(|h| {
                if h.is_empty() {
                    "?".to_string()
                } else {
                    h.chars().take(8).collect()
                }
            })
            .collect();
        label.push_str(&format!(" prompts {}", h.join("+")));
    }
    label
}

/// Cells keyed by (system, dataset).
type Cells = BTreeMap<(String, String), Cell>;

/// Folds run reports into a leaderboard. Runs of one model under different prompt
/// conditions stay apart (the model's key gets ` · 2-shot`) unless `pool`.
pub fn build(reports: &[RunReport], rows: Rows, pool: bool) -> Leaderboard {
    let conds: BTreeSet<Condition> = reports.iter().map(condition_of).collect();
    let hashes_differ = conds.iter().map(|c| &c.1).collect::<BTreeSet<_>>().len() > 1;
    let split = !pool && conds.len() > 1;
    let mut cells: Cells = BTreeMap::new();
    // Conditions of each cell's runs, in order.
    let mut cell_conds: BTreeMap<(String, String), BTreeSet<Condition>> = BTreeMap::new();
    // Judges are keyed by their model's name; a row is found by the name part of
    // `provider:name` (a judge that has no runs of its own gets a row by name).
    let mut judges: BTreeMap<(String, String), JudgeStats> = BTreeMap::new();
    for r in reports {
        let cond = condition_of(r);
        let system = if split {
            format!(
                "{} · {}",
                r.model,
                condition_label(&[cond.0], std::slice::from_ref(&cond.1), hashes_differ)
            )
        } else {
            r.model.clone()
        };
        let key = (system.clone(), r.dataset.clone());
        cell_conds.entry(key.clone()).or_default().insert(cond);
        let c = cells.entry(key).or_insert_with(|| Cell {
            model: r.model.clone(),
            dataset: r.dataset.clone(),
            system,
            ..Cell::default()
        });
        add_run(c, r);
        add_judges(&mut judges, r);
    }
    place_judges(&mut cells, judges);
    for (key, c) in &mut cells {
        let cs = cell_conds.remove(key).unwrap_or_default();
        finish_cell(c, &cs, hashes_differ);
    }
    let (row_keys, columns) = ranked_keys(&cells, rows);
    Leaderboard {
        rows,
        row_keys,
        column_keys: columns,
        conditions: conds
            .iter()
            .map(|c| condition_label(&[c.0], std::slice::from_ref(&c.1), hashes_differ))
            .collect(),
        pooled: pool && conds.len() > 1,
        cells: cells.into_values().collect(),
    }
}

/// Pools run `r` into cell `c`: its counts, and its category buckets while every run
/// counts them by the same field.
fn add_run(c: &mut Cell, r: &RunReport) {
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
}

/// Adds run `r`'s judge decisions to the judges' totals, keyed by (judge, dataset).
fn add_judges(judges: &mut BTreeMap<(String, String), JudgeStats>, r: &RunReport) {
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

/// Puts each judge's totals on its model's row.
fn place_judges(cells: &mut Cells, judges: BTreeMap<(String, String), JudgeStats>) {
    for ((judge, dataset), js) in judges {
        // A judge's decisions belong to the model, not to one of its prompt conditions:
        // they go to its first row of that dataset.
        let key = cells
            .iter()
            .find(|((_, d), c)| *d == dataset && model_name(&c.model) == judge)
            .map(|(k, _)| k.clone())
            .unwrap_or((judge.clone(), dataset.clone()));
        let c = cells.entry(key).or_insert_with(|| Cell {
            model: judge.clone(),
            dataset,
            system: judge,
            ..Cell::default()
        });
        c.judge_f1 = js.f1();
        c.judge = Some(js);
    }
}

/// Fills a cell's derived fields: its prompt condition (from its runs' conditions
/// `cs`), the metrics with their intervals and the breaking point.
fn finish_cell(c: &mut Cell, cs: &BTreeSet<Condition>, hashes_differ: bool) {
    let shots: Vec<Option<usize>> = cs
        .iter()
        .map(|c| c.0)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let hashes: Vec<String> = cs
        .iter()
        .map(|c| c.1.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !cs.is_empty() {
        c.condition = condition_label(&shots, &hashes, hashes_differ);
    }
    c.shots = shots.into_iter().flatten().collect();
    c.prompt_hashes = hashes.into_iter().filter(|h| !h.is_empty()).collect();
    let k = &c.counts;
    c.a2 = k.compliance();
    c.a2_ci = wilson95(k.compliant, k.answered);
    c.a3 = k.accuracy();
    c.a3_ci = wilson95(k.accurate, k.scored());
    c.copy_share = k.copy_share();
    c.breaking_point = c.by_category.as_ref().map(|(_, m)| {
        let cells = crate::analysis::breaking::cells_of(m);
        crate::analysis::breaking::breaking_point(&cells, crate::analysis::breaking::DEFAULT_LEVEL)
            .0
    });
}

/// The row keys, ranked by their pooled A3 across the column groups then by name, and
/// the column keys.
fn ranked_keys(cells: &Cells, rows: Rows) -> (Vec<String>, Vec<String>) {
    let key = |c: &Cell| match rows {
        Rows::Model => (c.system.clone(), c.dataset.clone()),
        Rows::Dataset => (c.dataset.clone(), c.system.clone()),
    };
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
    (
        row_keys.into_iter().map(|(k, _)| k).collect(),
        columns.into_iter().collect(),
    )
}

impl Leaderboard {
    pub(super) fn cell(&self, row: &str, col: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| match self.rows {
            Rows::Model => c.system == row && c.dataset == col,
            Rows::Dataset => c.dataset == row && c.system == col,
        })
    }

    pub(super) fn row_label(&self) -> &'static str {
        match self.rows {
            Rows::Model => "model",
            Rows::Dataset => "dataset",
        }
    }

    /// Whether the model side is split by prompt condition.
    pub(super) fn split(&self) -> bool {
        !self.pooled && self.conditions.len() > 1
    }
}
