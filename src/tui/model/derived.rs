//! Views derived from the model (chart aggregates, measures, label counts, the run
//! summary, the comparison), computed in `update` after a change and read by drawing.

use super::Model;
use crate::analysis::kinds::FailureKind;
use crate::report::By;
use crate::syntax::diff::{DiffLine, diff};
use crate::syntax::parse;
use crate::tui::components::chart_pick::ChartPick;
use crate::tui::data::RunIndex;
use crate::verify::VerdictKind;
use std::collections::{BTreeMap, BTreeSet};

/// One run's answer in the comparison.
#[derive(Clone, Debug)]
pub struct CompareColumn {
    /// Run name.
    pub run: String,
    /// `provider:model`.
    pub model: String,
    /// Final verdict.
    pub verdict: VerdictKind,
    /// ψ.
    pub psi: String,
    /// φ₁ (empty when there is none).
    pub phi1: String,
}

/// The same φ₀ across runs, side by side, and how the first two φ₁ differ.
#[derive(Clone, Debug)]
pub struct CompareView {
    /// φ₀.
    pub phi0: String,
    /// The selected sample's run first, then every other run with this φ₀.
    pub columns: Vec<CompareColumn>,
    /// The two columns whose φ₁ are diffed: by default a run that passes against one
    /// that fails; the detail tab keys step the second.
    pub pair: (usize, usize),
    /// Aligned diff of the pair's φ₁ (empty when either is missing).
    pub phi1_diff: Vec<DiffLine>,
    /// The syntax φ₁ is parsed in.
    pub syntax: Option<crate::syntax::SyntaxKind>,
}

impl CompareView {
    /// Diffs columns `a` and `b`.
    pub(crate) fn set_pair(&mut self, a: usize, b: usize) {
        self.pair = (a, b);
        self.phi1_diff = match (self.columns.get(a), self.columns.get(b), self.syntax) {
            (Some(x), Some(y), Some(sx)) if a != b => {
                match (parse(&x.phi1, sx), parse(&y.phi1, sx)) {
                    (Ok(x), Ok(y)) => diff(&x, &y),
                    _ => vec![],
                }
            }
            _ => vec![],
        };
    }

    /// Steps the second column of the pair (skipping the first), `d` = ±1.
    pub(crate) fn step_pair(&mut self, d: isize) {
        let n = self.columns.len();
        if n < 3 {
            return;
        }
        let (a, mut b) = self.pair;
        loop {
            b = (b as isize + d).rem_euclid(n as isize) as usize;
            if b != a {
                break;
            }
        }
        self.set_pair(a, b);
    }
}

/// A picked chart bucket: run name, its counts, and the lowest and highest A3 across batches.
pub type PickedBucket = (String, Bucket, Option<(f64, f64)>);

/// Failing samples per automatic failure kind and bucket.
pub type KindCounts = Vec<(FailureKind, BTreeMap<usize, usize>)>;

/// Per-bucket counts for the chart: the core's one A2/A3 tally.
pub type Bucket = crate::report::Counts;

/// The chart's aggregates and what they were computed from.
#[derive(Clone, Default)]
pub(crate) struct ChartCache {
    key: String,
    /// Per run, how many rows are counted.
    done: Vec<usize>,
    runs: Vec<RunChart>,
}

/// One run's chart counts: per bucket, and per (bucket, batch) for the spread.
#[derive(Clone, Default)]
struct RunChart {
    buckets: BTreeMap<usize, Bucket>,
    cells: BTreeMap<(usize, u16), Bucket>,
}

/// Every bucket from the smallest to the largest in the chart data.
pub fn axis(data: &[(String, BTreeMap<usize, Bucket>)]) -> Vec<usize> {
    let lo = data.iter().filter_map(|(_, m)| m.keys().next()).min();
    let hi = data.iter().filter_map(|(_, m)| m.keys().next_back()).max();
    match (lo, hi) {
        (Some(&lo), Some(&hi)) => (lo..=hi).collect(),
        _ => vec![],
    }
}

/// Each row's φ₀ (by hash) and whether it passed, for the pass/fail matrix.
pub fn outcomes(x: &RunIndex) -> Vec<(u64, bool)> {
    x.rows
        .iter()
        .map(|r| (r.phi0_hash, r.verdict.is_pass()))
        .collect()
}

/// What drawing reads about the runs as a whole, recomputed when the listing changes.
#[derive(Clone, Debug, Default)]
pub struct Derived {
    /// The listing generation and run count these were computed for.
    pub(super) stamp: Option<(u64, usize)>,
    /// For each shown run with rows: its name and counts per bucket.
    pub chart: Vec<(String, BTreeMap<usize, Bucket>)>,
    /// For each run in `chart` order with several batches: per bucket, the lowest and
    /// highest A3 across its batches (empty maps for one-batch runs).
    pub spreads: Vec<BTreeMap<usize, (f64, f64)>>,
    /// For each run in `chart` order: its logistic fit and breaking point (None when
    /// the buckets identify no curve).
    pub fits: Vec<Option<ChartFit>>,
    /// The runs the chart draws, as indices into `runs`, in its order.
    pub chart_runs: Vec<usize>,
    /// The chart's x axis: every bucket from the smallest to the largest present.
    pub buckets: Vec<usize>,
    /// The measures the shown runs are charted by, each with the runs that use it.
    pub measures: BTreeMap<&'static str, Vec<String>>,
    /// How the chart axis is labelled: `ops`, or `ops/depth` for a mixed view.
    pub axis_name: &'static str,
    /// Dataset kinds of the loaded runs, sorted.
    pub kinds: Vec<String>,
    /// Rows in every run.
    pub total: usize,
    /// Samples per (category, bucket) over the shown runs; a sample counts once per
    /// category however many annotators chose it.
    pub label_counts: BTreeMap<String, BTreeMap<usize, usize>>,
}

/// What the chart's aggregates depend on, apart from rows appended since: the
/// category field and each run's identity. Every run is counted; the run filter only
/// picks which are shown.
fn chart_key(m: &Model) -> String {
    let runs: Vec<(u64, String)> = m
        .runs
        .iter()
        .map(|r| (r.base_generation, r.name()))
        .collect();
    format!("{:?}|{runs:?}", m.by)
}

/// Brings the per-run chart aggregates up to date: rows appended by a live run are
/// added, anything else recomputes (a million rows take a tenth of a second, too long
/// for every frame).
fn update_chart(m: &Model, c: &mut ChartCache) {
    let key = chart_key(m);
    if c.key != key || c.done.len() != m.runs.len() {
        *c = ChartCache {
            key,
            done: vec![0; m.runs.len()],
            runs: vec![RunChart::default(); m.runs.len()],
        };
    }
    for (ri, run) in m.runs.iter().enumerate() {
        let from = c.done[ri];
        if from >= run.rows.len() {
            continue;
        }
        let agg = &mut c.runs[ri];
        // A task run's buckets count by its task's rule, as its report does.
        let task = run.manifest.as_ref().and_then(crate::run::task::scoring_of);
        for i in from..run.rows.len() {
            let r = &run.rows[i];
            let Some(b) = m.category(ri as u32, i as u32) else {
                continue;
            };
            agg.buckets.entry(b).or_default().add_scored(r.kind(), task);
            agg.cells
                .entry((b, r.batch))
                .or_default()
                .add_scored(r.kind(), task);
        }
        c.done[ri] = run.rows.len();
    }
}

impl Model {
    /// Recomputes the derived views when the listing changed since they were made.
    pub(crate) fn refresh_derived(&mut self) {
        let stamp = (self.listing.generation, self.runs.len());
        if self.derived.stamp == Some(stamp) {
            return;
        }
        let mut cache = std::mem::take(&mut self.chart_cache);
        update_chart(self, &mut cache);
        let mut d = derive(self, &cache);
        self.chart_cache = cache;
        d.stamp = Some(stamp);
        self.derived = d;
    }

    /// Whether the run filter lets run `ri` into the chart.
    fn chart_shows(&self, ri: usize) -> bool {
        let f = &self.listing.filter;
        f.runs.is_empty() || f.runs.contains(&ri)
    }
}

fn derive(m: &Model, c: &ChartCache) -> Derived {
    let shown: Vec<usize> = (0..m.runs.len())
        .filter(|ri| m.chart_shows(*ri) && c.runs.get(*ri).is_some_and(|a| !a.buckets.is_empty()))
        .collect();
    let chart: Vec<(String, BTreeMap<usize, Bucket>)> = shown
        .iter()
        .map(|&ri| (m.runs[ri].name(), c.runs[ri].buckets.clone()))
        .collect();
    let spreads = shown.iter().map(|&ri| spread(&c.runs[ri])).collect();
    let fits = shown
        .iter()
        .map(|&ri| chart_fit(&c.runs[ri].buckets, m.runs[ri].manifest.as_ref()))
        .collect();
    let mut measures: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for &ri in &shown {
        if !m.runs[ri].rows.is_empty() {
            measures
                .entry(m.measure_of(ri as u32, 0))
                .or_default()
                .push(m.runs[ri].name());
        }
    }
    let axis_name = match (m.by, measures.len() > 1) {
        (By::Operators, false) => "ops",
        (By::Depth, false) => "depth",
        (By::Operators, true) => "ops/depth",
        (By::Depth, true) => "depth/ops",
    };
    Derived {
        stamp: None,
        buckets: axis(&chart),
        chart,
        spreads,
        fits,
        chart_runs: shown,
        measures,
        axis_name,
        kinds: m.kinds(),
        total: m.runs.iter().map(|r| r.rows.len()).sum(),
        label_counts: label_counts(m),
    }
}

/// A run's fitted A3 curve and breaking point, for the chart.
#[derive(Clone, Debug)]
pub struct ChartFit {
    /// Where predicted A3 crosses one half, with its interval.
    pub point: crate::analysis::breaking::BreakingPoint,
    /// The curve (its band from [`crate::analysis::breaking::Logistic::band`]).
    pub curve: crate::analysis::breaking::Logistic,
    /// Whether the run's design was adaptive (its buckets are not uniform estimates).
    pub adaptive: bool,
}

fn chart_fit(
    buckets: &BTreeMap<usize, Bucket>,
    manifest: Option<&crate::record::Manifest>,
) -> Option<ChartFit> {
    use crate::analysis::breaking as b;
    let (point, curve) = b::breaking_point(&b::cells_of(buckets), b::DEFAULT_LEVEL);
    Some(ChartFit {
        point,
        curve: curve?,
        adaptive: manifest.is_some_and(|m| crate::record::adaptive(m).is_some()),
    })
}

/// Per bucket, the lowest and highest A3 across a run's batches (empty for one batch).
fn spread(a: &RunChart) -> BTreeMap<usize, (f64, f64)> {
    let batches: BTreeSet<u16> = a.cells.keys().map(|k| k.1).collect();
    let mut m: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    if batches.len() > 1 {
        for ((b, _), counts) in &a.cells {
            if let Some(acc) = counts.accuracy() {
                let e = m.entry(*b).or_insert((acc, acc));
                e.0 = e.0.min(acc);
                e.1 = e.1.max(acc);
            }
        }
    }
    m
}

fn label_counts(m: &Model) -> BTreeMap<String, BTreeMap<usize, usize>> {
    let mut out: BTreeMap<String, BTreeMap<usize, usize>> = BTreeMap::new();
    for (ri, run) in m.runs.iter().enumerate() {
        if run.labels.is_empty() || !m.chart_shows(ri) {
            continue;
        }
        for (i, row) in run.rows.iter().enumerate() {
            let Some(labels) = run.labels.get(&*row.id) else {
                continue;
            };
            let bucket = m.category(ri as u32, i as u32).unwrap_or(0);
            let cats: BTreeSet<&String> = labels.iter().flat_map(|l| l.categories.iter()).collect();
            for c in cats {
                *out.entry(c.clone()).or_default().entry(bucket).or_default() += 1;
            }
        }
    }
    out
}

impl Model {
    /// For the chart's highlighted run and bucket: (run name, counts, lowest and highest
    /// A3 across batches when the run has several).
    pub(crate) fn picked_bucket(&self, pick: &ChartPick) -> Option<PickedBucket> {
        let data = &self.derived.chart;
        let b = *self.derived.buckets.get(pick.bucket)?;
        let (name, m) = data.get(pick.run.min(data.len().saturating_sub(1)))?;
        let counts = m.get(&b).cloned().unwrap_or_default();
        let ri = self.runs.iter().position(|r| r.name() == *name)?;
        let mut batches: BTreeMap<u16, Bucket> = BTreeMap::new();
        let task = self.runs[ri]
            .manifest
            .as_ref()
            .and_then(crate::run::task::scoring_of);
        for (i, r) in self.runs[ri].rows.iter().enumerate() {
            if self.category(ri as u32, i as u32) == Some(b) {
                batches
                    .entry(r.batch)
                    .or_default()
                    .add_scored(r.kind(), task);
            }
        }
        let spread = (batches.len() > 1).then(|| {
            let accs: Vec<f64> = batches.values().filter_map(Bucket::accuracy).collect();
            let lo = accs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = accs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo, hi)
        });
        Some((name.clone(), counts, spread.filter(|(lo, hi)| lo <= hi)))
    }

    /// Failing samples of the chart's highlighted run by automatic failure kind and bucket.
    pub(crate) fn kind_counts(&self, pick: &ChartPick) -> (String, KindCounts) {
        let data = &self.derived.chart;
        let Some((name, _)) = data.get(pick.run.min(data.len().saturating_sub(1))) else {
            return (String::new(), vec![]);
        };
        let Some(ri) = self.runs.iter().position(|r| r.name() == *name) else {
            return (name.clone(), vec![]);
        };
        let mut out: KindCounts = Vec::new();
        for (k, kind) in FailureKind::ALL.into_iter().enumerate() {
            let mut m = BTreeMap::new();
            for (i, r) in self.runs[ri].rows.iter().enumerate() {
                if r.fails & (1 << k) != 0
                    && let Some(b) = self.category(ri as u32, i as u32)
                {
                    *m.entry(b).or_insert(0) += 1;
                }
            }
            if !m.is_empty() {
                out.push((kind, m));
            }
        }
        (name.clone(), out)
    }

    /// Rows of other runs with the same φ₀ as the selected one, the selected first.
    pub fn compare_rows(&self) -> Vec<(u32, u32)> {
        let Some((r, i)) = self.selected() else {
            return vec![];
        };
        let phi0 = self.runs[r as usize].rows[i as usize].phi0_hash;
        let mut out = vec![(r, i)];
        for (ri, run) in self.runs.iter().enumerate() {
            for (k, row) in run.rows.iter().enumerate() {
                if (ri as u32, k as u32) != (r, i) && row.phi0_hash == phi0 {
                    out.push((ri as u32, k as u32));
                }
            }
        }
        out
    }

    /// The comparison for the selected sample: its run and every other run with its φ₀.
    pub fn compare_view(&self) -> CompareView {
        let rows = self.compare_rows();
        let mut columns = Vec::new();
        let mut syntax = None;
        for &(r, i) in &rows {
            let run = &self.runs[r as usize];
            let row = &run.rows[i as usize];
            let text = run.text(row);
            let mut parts = text.split(crate::tui::data::SEP).skip(1);
            columns.push(CompareColumn {
                run: run.name(),
                model: run.model(),
                verdict: row.verdict,
                psi: parts.next().unwrap_or("").to_string(),
                phi1: parts.next().unwrap_or("").to_string(),
            });
            syntax = syntax.or(run.manifest.as_ref().map(|m| m.dataset.syntax));
        }
        // A run that passes against one that fails, when there are both.
        let pass = columns.iter().position(|c| c.verdict.is_pass());
        let fail = columns.iter().position(|c| !c.verdict.is_pass());
        let pair = match (pass, fail) {
            (Some(p), Some(f)) => (p.min(f), p.max(f)),
            _ => (0, 1),
        };
        let mut view = CompareView {
            phi0: rows
                .first()
                .map(|&(r, i)| {
                    let run = &self.runs[r as usize];
                    run.phi0(&run.rows[i as usize])
                })
                .unwrap_or_default(),
            columns,
            pair,
            phi1_diff: vec![],
            syntax,
        };
        view.set_pair(pair.0, pair.1);
        view
    }
}
