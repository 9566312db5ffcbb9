//! Reports: A2 compliance, A3 accuracy, A4 judge agreement, closeness; exports.
//!
//! Definitions (also in the README):
//! - **A2 compliance**: of the samples whose deciding round (the last one run)
//!   reached an autoformalization answer (final verdict not `copied` or
//!   `model-error`), the share whose φ₁ parsed (verdict not `unparseable`).
//! - **A3 accuracy**: of all samples, the share whose final verdict is `equivalent`
//!   (every round stayed equivalent). Copies, model errors and unknowns count as failures.
//! - **A4**: the judge's yes/no against the verifier (equivalent = positive);
//!   unparseable judge answers are counted apart, outside the confusion matrix.

/// Moved to [`crate::analysis::closeness`]; re-exported so existing paths keep working.
pub use crate::analysis::closeness;
pub mod breaking;
pub mod category;
pub mod compare;
pub mod corr_stats;
pub mod correlate;
pub(crate) mod correlate_plot;
pub mod correlate_render;
mod correlate_runs;
pub mod delta;
mod grid;
pub mod intervals;
pub mod labels;
pub mod leaderboard;
pub mod open;
pub mod plot;
pub mod ranks;
pub mod render;
mod render_csv;
pub mod task;
pub mod task_run;

/// Moved to [`crate::analysis::counts`]; re-exported so existing paths keep working.
pub use crate::analysis::counts::{Counts, JudgeStats};

use crate::analysis::kinds;
use crate::record::{JudgeRecord, Manifest, Metric, SampleRecord};
use crate::run::store::{self, JUDGE};
use crate::verify::VerdictKind;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// A run directory loaded for reporting.
#[derive(Debug, Clone)]
pub struct RunData {
    /// Where it is.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Finished samples (the last record per id wins).
    pub samples: Vec<SampleRecord>,
    /// Judge decisions.
    pub judge: Vec<JudgeRecord>,
    /// Skipped lines and other warnings.
    pub warnings: Vec<String>,
}

/// Loads a run directory.
pub fn load_run(dir: &Path) -> Result<RunData, store::StoreError> {
    let mut manifest = store::read_manifest(dir)?;
    store::check_samples_present(dir, &manifest)?;
    // A killed run's manifest still says `running`: show what it is.
    manifest.status = crate::run::liveness::shown_status(dir, &manifest.status);
    let s = store::read_samples(dir)?;
    let j = store::read_jsonl::<JudgeRecord>(&dir.join(JUDGE))?;
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut samples: Vec<SampleRecord> = Vec::with_capacity(s.records.len());
    for r in s.records {
        if let Some(&i) = by_id.get(&r.id) {
            samples[i] = r;
        } else {
            by_id.insert(r.id.clone(), samples.len());
            samples.push(r);
        }
    }
    let mut warnings = s.warnings;
    warnings.extend(j.warnings);
    Ok(RunData {
        dir: dir.to_path_buf(),
        manifest,
        samples,
        judge: j.records,
        warnings,
    })
}

/// Which field makes the categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// Operator count.
    Operators,
    /// Generation depth.
    Depth,
}

/// Mean and sample standard deviation.
pub(crate) fn mean_std(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let m = xs.iter().sum::<f64>() / xs.len() as f64;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64
    } else {
        0.0
    };
    Some((m, var.sqrt()))
}

/// The mean of one closeness metric over a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MetricMean {
    /// Mean over the samples that hold the metric.
    pub mean: f64,
    /// How many samples hold it.
    pub n: usize,
}

/// The report for one run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunReport {
    /// Run id.
    pub run: String,
    /// Directory.
    pub dir: String,
    /// `provider:model`.
    pub model: String,
    /// Dataset kind.
    pub dataset: String,
    /// The prompt set and shots the run was made with (None: no run.json to say).
    pub prompts: Option<crate::record::PromptInfo>,
    /// Whole-run counts.
    pub total: Counts,
    /// Counts per category value.
    pub by_category: BTreeMap<usize, Counts>,
    /// Accuracy per batch (when the dataset has several).
    pub batch_accuracy: Vec<f64>,
    /// Verdict name → count.
    pub verdicts: BTreeMap<String, usize>,
    /// Mean closeness of φ₁ to φ₀ where φ₁ parsed: BLEU, ROUGE-L, tree.
    pub closeness: Option<[f64; 3]>,
    /// Every stored closeness metric (field name → mean and samples) over the samples
    /// whose `closeness` record holds it; metrics no sample holds are left out.
    pub closeness_metrics: BTreeMap<String, MetricMean>,
    /// Judge agreement, one entry per judge model.
    pub judges: Vec<JudgeStats>,
    /// Tokens in and out.
    pub tokens: (u64, u64),
    /// Reasoning tokens (part of the tokens out), as providers reported them.
    pub reasoning_tokens: u64,
    /// Samples with a call that stopped at the token limit before answering (counted
    /// as `unparseable`).
    pub truncated: usize,
    /// Cost, if every call was priced.
    pub cost_usd: Option<f64>,
    /// Run status.
    pub status: String,
    /// What the categories are: `operators` or `depth`.
    pub by: String,
    /// Per category, the lowest and highest A3 across batches (when there are several).
    pub spread: BTreeMap<usize, (f64, f64)>,
    /// Automatic failure kind (id) → category value → failing samples of that kind.
    pub failure_kinds: BTreeMap<String, BTreeMap<usize, usize>>,
    /// Samples with a `reading:` note: a φ₁ that reads differently under the other
    /// reading convention, or writes `^` (so its verdict hangs on the convention).
    pub reading_notes: usize,
    /// The reading convention the run's replies were read under.
    pub reading: String,
    /// 95 % intervals: Wilson per bucket and overall, bootstrap over batches.
    pub intervals: intervals::RunIntervals,
    /// Where predicted A3 crosses a level (`breaking_point` in JSON), and whether the
    /// run's design was adaptive.
    #[serde(flatten)]
    pub breaking: breaking::Breaking,
}

impl By {
    /// The category field a run of this dataset kind is grouped by unless asked otherwise:
    /// depth for regexes (their operator counts say little), operators for logic.
    pub(crate) fn default_for(dataset_kind: &str) -> By {
        if dataset_kind.starts_with("regex") {
            By::Depth
        } else {
            By::Operators
        }
    }

    /// The column name.
    pub fn label(self) -> &'static str {
        match self {
            By::Operators => "operators",
            By::Depth => "depth",
        }
    }

    /// The sample's category value under this grouping.
    pub fn key(self, s: &SampleRecord) -> Option<usize> {
        match self {
            By::Operators => s.num_operators,
            By::Depth => s.depth,
        }
    }
}

/// Folds samples into a [`RunReport`] one at a time, so a report never needs the
/// records of a run in memory: the one place the report's numbers are computed,
/// whether the samples come from full records or from the row index.
#[derive(Default)]
pub(crate) struct ReportBuilder {
    total: Counts,
    cat_batches: BTreeMap<(usize, usize), Counts>,
    failure_kinds: BTreeMap<String, BTreeMap<usize, usize>>,
    by_category: BTreeMap<usize, Counts>,
    batches: BTreeMap<usize, Counts>,
    verdicts: BTreeMap<String, usize>,
    clo: [f64; Metric::COUNT],
    nclo: usize,
    clo_n: [usize; Metric::COUNT],
    tokens: (u64, u64),
    cost: Option<f64>,
    verifier: HashMap<String, VerdictKind>,
    judged: std::collections::HashSet<String>,
    reading_notes: usize,
    truncated: usize,
    reasoning_tokens: u64,
    /// A reference task's rule for A2 and A3 (None: a dataset run's).
    task: Option<crate::analysis::counts::TaskScoring>,
}

/// One sample as the report counts it.
pub(crate) struct ReportSample<'a> {
    /// Sample id.
    pub id: &'a str,
    /// Final verdict.
    pub kind: VerdictKind,
    /// Category value (operators or depth).
    pub key: Option<usize>,
    /// Dataset batch.
    pub batch: usize,
    /// Automatic failure kinds ([`kinds::mask`]).
    pub fails: u32,
    /// Every stored closeness metric ([`crate::run::rows::metric_values`], NaN: absent).
    pub closeness: Option<[f64; Metric::COUNT]>,
    /// Tokens in and out.
    pub tokens: (u64, u64),
    /// Cost in USD, when priced.
    pub cost: Option<f64>,
    /// Whether a round's verdict has a `reading:` note.
    pub reading_note: bool,
    /// Whether a call stopped at the token limit before answering.
    pub truncated: bool,
    /// Reasoning tokens over the sample's calls.
    pub reasoning_tokens: u64,
}

impl ReportBuilder {
    /// A builder that will match judge decisions on these sample ids.
    pub fn new(judge: &[JudgeRecord]) -> Self {
        ReportBuilder {
            cost: Some(0.0),
            judged: judge.iter().map(|j| j.id.clone()).collect(),
            ..Default::default()
        }
    }

    /// Counts one sample (the latest record of its id).
    pub fn add(&mut self, s: &ReportSample) {
        let task = self.task;
        self.total.add_scored(s.kind, task);
        self.reading_notes += usize::from(s.reading_note);
        self.truncated += usize::from(s.truncated);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(s.reasoning_tokens);
        if let Some(k) = s.key {
            self.by_category
                .entry(k)
                .or_default()
                .add_scored(s.kind, task);
            self.cat_batches
                .entry((k, s.batch))
                .or_default()
                .add_scored(s.kind, task);
            for kind in kinds::unmask(s.fails) {
                *self
                    .failure_kinds
                    .entry(kind.id().to_string())
                    .or_default()
                    .entry(k)
                    .or_default() += 1;
            }
        }
        self.batches
            .entry(s.batch)
            .or_default()
            .add_scored(s.kind, task);
        *self.verdicts.entry(s.kind.name().to_string()).or_default() += 1;
        if let Some(c) = s.closeness {
            for ((a, n), b) in self.clo.iter_mut().zip(&mut self.clo_n).zip(c) {
                if b.is_finite() {
                    *a += b;
                    *n += 1;
                }
            }
            self.nclo += 1;
        }
        self.tokens.0 += s.tokens.0;
        self.tokens.1 += s.tokens.1;
        self.cost = self.cost.zip(s.cost).map(|(a, b)| a + b);
        if self.judged.contains(s.id) {
            self.verifier.insert(s.id.to_string(), s.kind);
        }
    }

    /// The report, with the judge decisions matched against the verifier.
    pub fn finish(self, m: &Manifest, dir: &Path, judge: &[JudgeRecord], by: By) -> RunReport {
        let mut judges: BTreeMap<String, JudgeStats> = BTreeMap::new();
        // The newest decision per (judge model, sample) counts.
        let mut latest: HashMap<(String, &str), &JudgeRecord> = HashMap::new();
        for j in judge {
            latest.insert((j.model.name.clone(), j.id.as_str()), j);
        }
        for ((model, id), j) in latest {
            let Some(&kind) = self.verifier.get(id) else {
                continue;
            };
            judges
                .entry(model.clone())
                .or_insert_with(|| JudgeStats {
                    model,
                    ..Default::default()
                })
                .add(j.answer, kind);
        }
        let several = self.batches.len() > 1;
        let judges: Vec<JudgeStats> = judges.into_values().collect();
        let intervals = intervals::run_intervals(
            &self.total,
            &self.by_category,
            &self.batches,
            &self.cat_batches,
            &judges,
        );
        let breaking = breaking::Breaking::new(&self.by_category, m);
        RunReport {
            breaking,
            intervals,
            run: m.id.clone(),
            dir: dir.display().to_string(),
            model: format!("{}:{}", m.model.provider, m.model.name),
            dataset: m.dataset.kind.clone(),
            prompts: Some(m.prompts.clone()),
            total: self.total,
            by_category: self.by_category,
            batch_accuracy: if several {
                self.batches.values().filter_map(Counts::accuracy).collect()
            } else {
                vec![]
            },
            verdicts: self.verdicts,
            closeness: (self.nclo > 0)
                .then(|| [0, 1, 2].map(|k| self.clo[k] / self.nclo.max(1) as f64)),
            closeness_metrics: Metric::ALL
                .into_iter()
                .filter(|m| self.clo_n[m.index()] > 0)
                .map(|m| {
                    let (sum, n) = (self.clo[m.index()], self.clo_n[m.index()]);
                    (
                        m.name().to_string(),
                        MetricMean {
                            mean: sum / n as f64,
                            n,
                        },
                    )
                })
                .collect(),
            judges,
            tokens: self.tokens,
            reasoning_tokens: self.reasoning_tokens,
            truncated: self.truncated,
            cost_usd: billed(self.cost, dir),
            status: m.status.to_string(),
            by: by.label().to_string(),
            spread: if several {
                spread(&self.cat_batches)
            } else {
                BTreeMap::new()
            },
            failure_kinds: self.failure_kinds,
            reading_notes: self.reading_notes,
            reading: m.reading().name().to_string(),
        }
    }
}

/// A run's cost: what its samples recorded, or what its spend ledger says was billed
/// when that is more (calls of samples dropped by a stop, refused or retried).
fn billed(recorded: Option<f64>, dir: &Path) -> Option<f64> {
    let ledger = crate::run::spend::read(dir).ok().flatten();
    match (recorded, ledger) {
        (Some(r), Some(l)) => Some(r.max(l.usd)),
        (None, Some(l)) if l.unpriced == 0 && l.calls > 0 => Some(l.usd),
        (r, _) => r,
    }
}

/// Builds the report of one run from its full records.
pub fn report_run(run: &RunData, by: By) -> RunReport {
    report_run_by(run, by, |s| by.key(s))
}

/// [`report_run`] with categories from `key` (`report --by` a field other than
/// operators or depth); the report's `by` is then `label`.
pub fn report_run_field(run: &RunData, field: &category::Field) -> RunReport {
    let mut r = report_run_by(run, By::Operators, |s| field.key(s));
    r.by.clone_from(&field.label);
    r
}

fn report_run_by(run: &RunData, by: By, key: impl Fn(&SampleRecord) -> Option<usize>) -> RunReport {
    let mut b = ReportBuilder::new(&run.judge);
    b.task = crate::run::task::scoring_of(&run.manifest);
    for s in &run.samples {
        b.add(&ReportSample {
            id: &s.id,
            kind: s.verdict.kind(),
            key: key(s),
            batch: s.batch.unwrap_or(0),
            fails: kinds::mask(&kinds::classify(s)),
            closeness: s.closeness.map(|c| crate::run::rows::metric_values(&c)),
            tokens: (s.input_tokens, s.output_tokens),
            cost: s.cost_usd,
            truncated: s.truncated(),
            reasoning_tokens: s.reasoning_tokens(),
            reading_note: s.rounds.iter().any(|r| {
                r.verdict
                    .notes()
                    .iter()
                    .any(|n| crate::syntax::reading::is_reading_note(n))
            }),
        });
    }
    b.finish(&run.manifest, &run.dir, &run.judge, by)
}

/// Builds the report of a run directory from its row index (built and cached on the
/// first call), holding one compact row per sample rather than full records. `by`
/// None picks the dataset kind's default. Returns the report and the warnings met.
pub(crate) fn report_dir(
    dir: &Path,
    by: Option<By>,
) -> Result<(RunReport, Vec<String>), store::StoreError> {
    let mut manifest = store::read_manifest(dir)?;
    store::check_samples_present(dir, &manifest)?;
    manifest.status = crate::run::liveness::shown_status(dir, &manifest.status);
    let by = by.unwrap_or_else(|| By::default_for(&manifest.dataset.kind));
    let j = store::read_jsonl::<JudgeRecord>(&dir.join(JUDGE))?;
    store::ensure_regular(&dir.join(store::SAMPLES))?;
    let mut scan = crate::run::index::load_or_build(dir, false);
    crate::run::kinds_cache::complete_as_asked(dir, &mut scan.rows);
    let mut b = ReportBuilder::new(&j.records);
    b.task = crate::run::task::scoring_of(&manifest);
    for i in crate::run::rows::latest_per_id(&scan.rows) {
        let (r, e) = (&scan.rows[i], &scan.extras[i]);
        b.add(&ReportSample {
            id: &r.id,
            kind: r.verdict,
            key: match by {
                By::Operators => r.ops,
                By::Depth => r.depth,
            }
            .map(usize::from),
            batch: usize::from(r.batch),
            fails: r.fails,
            closeness: e.closeness,
            tokens: (e.tokens_in, e.tokens_out),
            cost: e.cost,
            reading_note: e.reading_note,
            truncated: e.truncated,
            reasoning_tokens: e.reasoning_tokens,
        });
    }
    let mut warnings = scan.warnings;
    warnings.extend(j.warnings);
    Ok((b.finish(&manifest, dir, &j.records, by), warnings))
}

/// Lowest and highest batch accuracy per category.
fn spread(cat_batches: &BTreeMap<(usize, usize), Counts>) -> BTreeMap<usize, (f64, f64)> {
    let mut out: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    for (&(k, _), c) in cat_batches {
        if let Some(a) = c.accuracy() {
            let e = out.entry(k).or_insert((a, a));
            e.0 = e.0.min(a);
            e.1 = e.1.max(a);
        }
    }
    out
}

/// Accuracy mean ± std across runs of the same model (repeated runs of one batch).
pub fn across_runs(reports: &[RunReport]) -> BTreeMap<String, (usize, f64, f64)> {
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in reports {
        if let Some(a) = r.total.accuracy() {
            groups
                .entry(format!("{} on {}", r.model, r.dataset))
                .or_default()
                .push(a);
        }
    }
    groups
        .into_iter()
        .filter(|(_, v)| v.len() > 1)
        .filter_map(|(k, v)| mean_std(&v).map(|(m, s)| (k, (v.len(), m, s))))
        .collect()
}
