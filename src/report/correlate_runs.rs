//! `correlate`'s scores from run directories: a ∀uto∃∨∧L run's A3 on a comparable
//! subset, a reference-task run's accuracy (`folio-i`: a mean text score, METEOR by default), each pooled over
//! runs of one model, or per operator count with `--by-category` (Fig. 17).

use super::Counts;
use super::correlate::{AUTOEVAL_PREFIX, Entry, Scores, Subset, clean_name, is_regex};
use super::task_run::{TaskRunReport, TextMetric};
use crate::analysis::counts::TaskScoring;
use crate::dataset::task_kind::TaskKind;
use crate::run::store;
use std::collections::BTreeMap;
use std::path::Path;

/// Per (model, dataset) with --x-score breaking-point: counts per category, and the runs.
type Curve = (BTreeMap<usize, Counts>, Vec<String>);

/// Why `correlate` could not take its scores from the runs.
#[derive(Debug, thiserror::Error)]
pub enum RunScoresError {
    /// A run directory that does not read.
    #[error("{0}")]
    Store(store::StoreError),
    /// Two scores for one model on one benchmark (runs and score files together).
    #[error("{0}")]
    Twice(String),
}

/// The scores being gathered from the runs, before they enter [`Scores`].
#[derive(Default)]
struct Gathered {
    /// (model, dataset) → pooled counts of the subset, and the runs.
    pooled: BTreeMap<(String, String), (Counts, Vec<String>)>,
    /// (model, task) → (score × samples, samples, runs).
    tasks: BTreeMap<(String, String), (f64, usize, Vec<String>)>,
    /// With --x-score breaking-point: per (model, dataset), counts per category.
    buckets: BTreeMap<(String, String), Curve>,
}

impl Scores {
    /// Adds ∀uto∃∨∧L runs: per (model, dataset) the A3 accuracy of the pooled samples in `subset`.
    ///
    /// A reference-task run (`run --task`) contributes its task's name with its
    /// accuracy (`folio-i`: its mean text score chosen by the subset, METEOR by default), pooled over runs of one model; the subset
    /// is for ∀uto∃∨∧L runs only. With `by_category`, every score is per operator count
    /// instead (Fig. 17): the "model" of a point is `model · operators k`, regex runs and
    /// Multi-LogiEval (by depth) left out.
    pub fn add_runs(
        &mut self,
        dirs: &[std::path::PathBuf],
        subset: &Subset,
        by_category: bool,
    ) -> Result<(), RunScoresError> {
        let mut g = Gathered::default();
        for dir in dirs {
            self.add_run(dir, subset, by_category, &mut g)?;
        }
        self.add_curves(g.buckets)?;
        for (key, (c, dirs)) in g.pooled {
            let Some(score) = c.accuracy() else { continue };
            let source = format!("A3 of {} samples in {}", c.n, dirs.join(", "));
            self.put(key, Entry { score, source })?;
        }
        for (key, (sum, n, dirs)) in g.tasks {
            if n == 0 {
                continue;
            }
            let source = format!("{n} samples in {}", dirs.join(", "));
            self.put(
                key,
                Entry {
                    score: sum / n as f64,
                    source,
                },
            )?;
        }
        Ok(())
    }

    /// [`Scores::insert`], its refusal typed.
    fn put(&mut self, key: (String, String), e: Entry) -> Result<(), RunScoresError> {
        self.insert(key, e)
            .map_err(|e| RunScoresError::Twice(e.to_string()))
    }

    /// Adds the run in `dir` to what is gathered.
    fn add_run(
        &mut self,
        dir: &Path,
        subset: &Subset,
        by_category: bool,
        g: &mut Gathered,
    ) -> Result<(), RunScoresError> {
        let m = store::read_manifest(dir).map_err(RunScoresError::Store)?;
        store::check_samples_present(dir, &m).map_err(RunScoresError::Store)?;
        store::ensure_regular(&dir.join(store::SAMPLES)).map_err(RunScoresError::Store)?;
        let model = clean_name(&format!("{}:{}", m.model.provider, m.model.name));
        if m.model.synthetic {
            self.synthetic.insert(model.clone());
        }
        if let Some(task) = m.task() {
            return self.add_task_run(dir, &m, &model, task, by_category, subset, &mut g.tasks);
        }
        let kind = clean_name(&m.dataset.kind);
        let regex = is_regex(&kind);
        if by_category && regex {
            self.warnings.push(format!(
                "{}: a regex run has no operator counts to pair by (--by-category), left out",
                dir.display()
            ));
            return Ok(());
        }
        let scan = crate::run::index::load_or_build(dir, false);
        if subset.x_score == super::correlate::XScore::BreakingPoint && !by_category {
            let slot = g
                .buckets
                .entry((model, format!("{AUTOEVAL_PREFIX}{kind}")))
                .or_default();
            for i in crate::run::rows::latest_per_id(&scan.rows) {
                let r = &scan.rows[i];
                let keep = subset
                    .batches
                    .as_ref()
                    .is_none_or(|b| b.contains(&usize::from(r.batch)));
                if let (true, Some(k)) = (keep, if regex { r.depth } else { r.ops }) {
                    slot.0
                        .entry(usize::from(k))
                        .or_default()
                        .add_kind(r.verdict);
                }
            }
            slot.1.push(dir.display().to_string());
            return Ok(());
        }
        let mut c = Counts::default();
        let mut per: BTreeMap<u16, Counts> = BTreeMap::new();
        for i in crate::run::rows::latest_per_id(&scan.rows) {
            let r = &scan.rows[i];
            if subset.keeps(regex, r.ops, r.depth, r.batch) {
                c.add_kind(r.verdict);
                if let Some(o) = r.ops {
                    per.entry(o).or_default().add_kind(r.verdict);
                }
            }
        }
        if by_category {
            let bench = format!("{AUTOEVAL_PREFIX}{kind}");
            self.subsets.insert(
                bench.clone(),
                format!("{} per operator count", subset.describe(&kind)),
            );
            for (o, pc) in per {
                let slot = g
                    .pooled
                    .entry((format!("{model} · operators {o}"), bench.clone()))
                    .or_default();
                slot.0.merge(&pc);
                slot.1.push(dir.display().to_string());
            }
            return Ok(());
        }
        if c.n == 0 {
            self.warnings.push(format!(
                "{}: no sample in the subset ({}), left out",
                dir.display(),
                subset.describe(&kind)
            ));
            return Ok(());
        }
        let bench = format!("{AUTOEVAL_PREFIX}{kind}");
        self.subsets.insert(bench.clone(), subset.describe(&kind));
        let slot = g.pooled.entry((model, bench)).or_default();
        slot.0.merge(&c);
        slot.1.push(dir.display().to_string());
        Ok(())
    }

    /// With --x-score breaking-point: each (model, dataset)'s breaking point as its score.
    fn add_curves(
        &mut self,
        buckets: BTreeMap<(String, String), Curve>,
    ) -> Result<(), RunScoresError> {
        for ((model, bench), (m, dirs)) in buckets {
            let by = if is_regex(bench.trim_start_matches(AUTOEVAL_PREFIX)) {
                "depth"
            } else {
                "operators"
            };
            let cells = crate::analysis::breaking::cells_of(&m);
            let (bp, _) = crate::analysis::breaking::breaking_point(
                &cells,
                crate::analysis::breaking::DEFAULT_LEVEL,
            );
            let Some(score) = bp.value else {
                self.warnings.push(format!(
                    "{model} on {bench}: A3 does not cross 50% inside the data (no breaking point), left out"
                ));
                continue;
            };
            self.subsets.insert(
                bench.clone(),
                format!("breaking point: {by} where fitted A3 crosses 50%"),
            );
            let source = format!("breaking point of {} samples in {}", bp.n, dirs.join(", "));
            self.put((model, bench), Entry { score, source })?;
        }
        Ok(())
    }

    /// Adds one task run's score (or its scores per operator count) to `tasks`:
    /// (model, task) → (score × samples, samples, runs), pooled as the runs are.
    #[allow(clippy::too_many_arguments)]
    fn add_task_run(
        &mut self,
        dir: &Path,
        m: &crate::record::Manifest,
        model: &str,
        kind: TaskKind,
        by_category: bool,
        subset: &Subset,
        tasks: &mut BTreeMap<(String, String), (f64, usize, Vec<String>)>,
    ) -> Result<(), RunScoresError> {
        let (r, _) =
            super::task_run::task_report(dir, m, kind, None).map_err(RunScoresError::Store)?;
        let task = clean_name(kind.name());
        let metric = subset.folio_i_metric;
        // folio-i is scored by a text metric, every other task by its accuracy.
        let by_text = match kind.scoring() {
            TaskScoring::Text => true,
            TaskScoring::Answer | TaskScoring::Formula => false,
        };
        let what = if by_text {
            format!("mean {} against FOLIO's premises", metric.label())
        } else {
            "accuracy (no answer counts wrong)".to_string()
        };
        if by_text && !self.text_metric_usable(dir, &r, metric) {
            return Ok(());
        }
        let mut add = |model: String, score: f64, n: usize| {
            let slot = tasks.entry((model, task.clone())).or_default();
            slot.0 += score * n as f64;
            slot.1 += n;
            slot.2.push(dir.display().to_string());
        };
        if by_category {
            if r.by != "operators" {
                self.warnings.push(format!(
                    "{}: {} is grouped by {}, not operator count (--by-category), left out",
                    dir.display(),
                    task,
                    r.by
                ));
                return Ok(());
            }
            self.subsets
                .insert(task.clone(), format!("{what} per operator count"));
            let per: Vec<(usize, usize, f64)> = if by_text {
                r.text_by_category
                    .iter()
                    .filter_map(|c| c.scores.get(metric).map(|(s, n)| (c.value, n, s)))
                    .collect()
            } else {
                r.by_category
                    .iter()
                    .map(|c| (c.value, c.n, c.accuracy))
                    .collect()
            };
            for (value, n, score) in per {
                if subset
                    .operators
                    .is_none_or(|(lo, hi)| (lo..=hi).contains(&value))
                {
                    add(format!("{model} · operators {value}"), score, n);
                }
            }
            return Ok(());
        }
        let score = if by_text {
            r.text_scores.as_ref().and_then(|t| t.get(metric))
        } else {
            r.accuracy.map(|a| (a, r.n))
        };
        match score {
            Some((s, n)) if n > 0 => {
                self.subsets.insert(task.clone(), what.clone());
                add(model.to_string(), s, n);
            }
            _ => self.warnings.push(format!(
                "{}: no scored sample of {task}, left out",
                dir.display()
            )),
        }
        Ok(())
    }

    /// Whether `folio-i`'s run `r` has the chosen text metric (warned when not, or when
    /// only some samples have it).
    fn text_metric_usable(&mut self, dir: &Path, r: &TaskRunReport, metric: TextMetric) -> bool {
        let Some(t) = &r.text_scores else {
            return true;
        };
        if t.get(metric).is_none() {
            self.warnings.push(format!(
                "{}: folio-i has no {} (the run was made without --bertscore-model), left out",
                dir.display(),
                metric.label()
            ));
            return false;
        }
        if metric == TextMetric::BertscoreMinilm && t.bertscore_n < t.n {
            self.warnings.push(format!(
                "{}: folio-i has a {} on {} of {} samples; its score is their mean",
                dir.display(),
                metric.label(),
                t.bertscore_n,
                t.n
            ));
        }
        true
    }
}
