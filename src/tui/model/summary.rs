//! One run at a glance (the run summary layer): its counts, failure kinds, judge against
//! verifier, pass/fail against the other runs, and the leaderboard over the loaded runs.

use super::Model;
use super::derived::outcomes;
use crate::analysis::kinds::FailureKind;
use crate::tui::data::RunIndex;
use crate::verify::VerdictKind;

/// One run at a glance: accuracy, failure kinds, the judge against the verifier, and
/// pass/fail against every other run that answered the same φ₀.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Run name.
    pub name: String,
    /// `provider:model`.
    pub model: String,
    /// A2/A3 counts.
    pub counts: crate::report::Counts,
    /// Automatic failure kinds, most frequent first.
    pub kinds: Vec<(FailureKind, usize)>,
    /// The judge's confusion matrix (None without judge decisions).
    pub judge: Option<crate::report::JudgeStats>,
    /// Other runs sharing φ₀: their name and the pair counts (this run first).
    pub versus: Vec<(String, crate::report::compare::PairCounts)>,
    /// Runs left out of `versus` because their dataset differs.
    pub other_datasets: usize,
    /// Wilson 95 % intervals of A2 and A3 (as `report` computes them).
    pub ci: crate::report::intervals::Ci,
    /// The loaded runs folded as `autoeval leaderboard` does, when they span models.
    pub leaderboard: Option<crate::report::leaderboard::Leaderboard>,
}

impl Model {
    /// The summary of run `ri`.
    pub fn run_summary(&self, ri: usize) -> Option<RunSummary> {
        let run = self.runs.get(ri)?;
        let mut counts = crate::report::Counts::default();
        let mut kinds = [0usize; FailureKind::ALL.len()];
        let task = run.manifest.as_ref().and_then(crate::run::task::scoring_of);
        for r in &run.rows {
            counts.add_scored(r.verdict, task);
            for (i, k) in kinds.iter_mut().enumerate() {
                *k += usize::from(r.fails & (1 << i) != 0);
            }
        }
        let mut kinds: Vec<(FailureKind, usize)> = FailureKind::ALL
            .into_iter()
            .zip(kinds)
            .filter(|(_, n)| *n > 0)
            .collect();
        kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
        let judge = (!run.judge.is_empty()).then(|| {
            let by_id: std::collections::HashMap<&str, VerdictKind> =
                run.rows.iter().map(|r| (&*r.id, r.verdict)).collect();
            let mut st = crate::report::JudgeStats::default();
            for (id, j) in &run.judge {
                if let Some(v) = by_id.get(id.as_str()) {
                    st.model.clone_from(&j.model.name);
                    st.add(j.answer, *v);
                }
            }
            st
        });
        // One matrix over every run (each row hashed once), then the pairs from it.
        let mx = crate::report::compare::build(self.runs.iter().map(|x| (x.name(), outcomes(x))));
        let mut versus = Vec::new();
        let mut other_datasets = 0;
        let key = run.dataset_key();
        for (oi, other) in self.runs.iter().enumerate() {
            if oi == ri {
                continue;
            }
            // Only runs of the same dataset pair up (see `RunIndex::dataset_key`).
            if key.is_none() || other.dataset_key() != key {
                other_datasets += 1;
                continue;
            }
            let p = mx.pair(ri, oi);
            if p.n() > 0 {
                versus.push((other.name(), p));
            }
        }
        let ci = crate::report::intervals::Ci::wilson(&counts);
        Some(RunSummary {
            name: run.name(),
            model: run.model(),
            counts,
            kinds,
            judge,
            versus,
            other_datasets,
            ci,
            leaderboard: self.leaderboard(),
        })
    }

    /// The loaded runs as `autoeval leaderboard` folds them (one row per model and prompt
    /// condition), from the rows in memory; `None` when that makes one row.
    pub fn leaderboard(&self) -> Option<crate::report::leaderboard::Leaderboard> {
        let reports: Vec<crate::report::RunReport> = self.runs.iter().map(run_report).collect();
        // One row per model and prompt condition, as `autoeval leaderboard` folds them
        // unless `--pool`: a 0-shot and a 2-shot run of one model are two rows.
        let lb = crate::report::leaderboard::build(
            &reports,
            crate::report::leaderboard::Rows::Model,
            false,
        );
        (lb.row_keys.len() >= 2).then_some(lb)
    }
}

/// What the leaderboard reads of a run (name, model, dataset, counts, judge), from
/// its rows in memory.
fn run_report(run: &RunIndex) -> crate::report::RunReport {
    let mut total = crate::report::Counts::default();
    // A task run counts by its task's rule, as `report` and `leaderboard` do.
    let task = run.manifest.as_ref().and_then(crate::run::task::scoring_of);
    // Buckets by the dataset kind's default field, as `report` and `leaderboard` count
    // them, so the breaking point agrees with theirs.
    let by = crate::report::By::default_for(&run.kind());
    let mut by_category: std::collections::BTreeMap<usize, crate::report::Counts> =
        std::collections::BTreeMap::new();
    for r in &run.rows {
        total.add_scored(r.verdict, task);
        let key = match by {
            crate::report::By::Operators => r.ops,
            crate::report::By::Depth => r.depth,
        };
        if let Some(k) = key {
            by_category
                .entry(usize::from(k))
                .or_default()
                .add_scored(r.verdict, task);
        }
    }
    let by_id: std::collections::HashMap<&str, VerdictKind> =
        run.rows.iter().map(|r| (&*r.id, r.verdict)).collect();
    let mut judges: std::collections::BTreeMap<String, crate::report::JudgeStats> =
        std::collections::BTreeMap::new();
    // As `report`: the newest decision per (judge model, sample), each judge its own.
    for ((model, id), answer) in &run.judge_by_model {
        if let Some(v) = by_id.get(id.as_str()) {
            judges
                .entry(model.clone())
                .or_insert_with(|| crate::report::JudgeStats {
                    model: model.clone(),
                    ..crate::report::JudgeStats::default()
                })
                .add(*answer, *v);
        }
    }
    // `provider:model`, as `report` names it (never the list's "(synthetic)" form).
    let model = run.manifest.as_ref().map_or_else(
        || "?".into(),
        |m| format!("{}:{}", m.model.provider, m.model.name),
    );
    crate::report::RunReport {
        run: run.name(),
        dir: run.dir.display().to_string(),
        model,
        dataset: run.kind(),
        prompts: run.manifest.as_ref().map(|m| m.prompts.clone()),
        total,
        by_category,
        batch_accuracy: Vec::new(),
        verdicts: std::collections::BTreeMap::new(),
        closeness: None,
        closeness_metrics: std::collections::BTreeMap::new(),
        judges: judges.into_values().collect(),
        tokens: (0, 0),
        reasoning_tokens: 0,
        truncated: 0,
        cost_usd: None,
        status: String::new(),
        by: by.label().to_string(),
        spread: std::collections::BTreeMap::new(),
        failure_kinds: std::collections::BTreeMap::new(),
        reading_notes: 0,
        reading: String::new(),
        intervals: crate::report::intervals::RunIntervals::default(),
        breaking: crate::report::breaking::Breaking::default(),
    }
}
