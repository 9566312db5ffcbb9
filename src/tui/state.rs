//! Viewer state and its transitions; no terminal types, so it is tested directly.

use super::data::RunIndex;
use super::keymap::{Action, Context, Keymap};
use super::keys::Key;
use super::search::Query;
use crate::report::By;
use crate::report::kinds::FailureKind;
use crate::run::format::SampleRecord;
use crate::syntax::diff::{DiffLine, diff, summary};
use crate::syntax::{Expr, parse};
use crate::verify::Verdict;
use crate::verify::VerdictKind;
use crate::verify::explain::{EvalLine, explain};
use crate::verify::model::FiniteModel;
use std::collections::{BTreeMap, BTreeSet};

/// Panes that take focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    /// The run list.
    Runs,
    /// The sample list.
    Samples,
    /// The detail view.
    Detail,
}

/// Detail tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// φ₀, ψ, φ₁, verdict.
    Overview,
    /// Structural diff.
    Diff,
    /// Countermodel tables and evaluated subformulas.
    Countermodel,
    /// The raw model exchange.
    Raw,
}

impl Tab {
    /// All tabs in order.
    pub const ALL: [Tab; 4] = [Tab::Overview, Tab::Diff, Tab::Countermodel, Tab::Raw];
    /// Title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::Diff => "Diff",
            Tab::Countermodel => "Countermodel",
            Tab::Raw => "Raw",
        }
    }
}

/// What has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Browsing.
    Normal,
    /// Help overlay.
    Help,
    /// Typing a search.
    Search,
    /// Filter editor.
    Filter,
    /// Same φ₀ across runs.
    Compare,
    /// Loading warnings.
    Warnings,
    /// Picking a chart bucket.
    Chart,
    /// Hand-labelling the selected sample.
    Label,
    /// Typing a note for the selected sample.
    Note,
    /// Filling in the new-run form.
    NewRun,
    /// Label counts by category and operator count.
    LabelCounts,
    /// Summary of one run.
    RunSummary,
}

pub use super::components::list::{ListCursor, ListOffset};

/// The start-up status: where to find every key (the footer drops it when its own
/// hints already show `?`).
pub const HELP_HINT: &str = "? shows every key";

/// Label state filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LabelFilter {
    /// All samples.
    #[default]
    Any,
    /// Only labelled ones.
    Labelled,
    /// Only unlabelled ones.
    Unlabelled,
}

/// The active filters (search aside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Inclusive range of the category metric.
    pub range: Option<(usize, usize)>,
    /// Verdicts shown (empty: all).
    pub verdicts: BTreeSet<VerdictKind>,
    /// Dataset kinds shown (empty: all).
    pub kinds: BTreeSet<String>,
    /// Runs shown (empty: all).
    pub runs: BTreeSet<usize>,
    /// Label state.
    pub labels: LabelFilter,
    /// Only samples whose automatic failure kinds include this one.
    pub failure: Option<FailureKind>,
    /// Only samples some annotator gave any of these categories (empty: no condition).
    pub label_any: BTreeSet<String>,
    /// Only samples no annotator gave any of these categories.
    pub label_none: BTreeSet<String>,
    /// The judge's answer.
    pub judge: JudgeFilter,
    /// Only failing samples whose φ₀ passes in this run (index into the runs).
    pub passes_in: Option<usize>,
    /// Closeness of φ₁ to φ₀ (BLEU) in a band.
    pub closeness: ClosenessFilter,
}

/// Closeness bands (BLEU of φ₁ against φ₀).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClosenessFilter {
    /// All samples.
    #[default]
    Any,
    /// BLEU ≥ 0.9: φ₁ nearly φ₀ (small slips).
    Near,
    /// 0.7 ≤ BLEU < 0.9.
    Close,
    /// 0.5 ≤ BLEU < 0.7.
    Mid,
    /// BLEU < 0.5: φ₁ far from φ₀.
    Far,
    /// No φ₁ to compare.
    Missing,
}

impl ClosenessFilter {
    pub const ALL: [ClosenessFilter; 6] = [
        ClosenessFilter::Any,
        ClosenessFilter::Near,
        ClosenessFilter::Close,
        ClosenessFilter::Mid,
        ClosenessFilter::Far,
        ClosenessFilter::Missing,
    ];

    /// Its name in the filter editor.
    pub fn name(self) -> &'static str {
        match self {
            ClosenessFilter::Any => "any",
            ClosenessFilter::Near => "BLEU ≥ 0.9",
            ClosenessFilter::Close => "BLEU 0.7–0.9",
            ClosenessFilter::Mid => "BLEU 0.5–0.7",
            ClosenessFilter::Far => "BLEU < 0.5",
            ClosenessFilter::Missing => "no φ₁",
        }
    }

    /// Whether a row's BLEU (percent) is in the band.
    pub fn admits(self, bleu: Option<u8>) -> bool {
        match (self, bleu) {
            (ClosenessFilter::Any, _) => true,
            (ClosenessFilter::Missing, b) => b.is_none(),
            (_, None) => false,
            (ClosenessFilter::Near, Some(b)) => b >= 90,
            (ClosenessFilter::Close, Some(b)) => (70..90).contains(&b),
            (ClosenessFilter::Mid, Some(b)) => (50..70).contains(&b),
            (ClosenessFilter::Far, Some(b)) => b < 50,
        }
    }
}

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
}

/// Judge filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JudgeFilter {
    /// All samples.
    #[default]
    Any,
    /// The judge said equivalent.
    Yes,
    /// The judge said not equivalent.
    No,
    /// The judge's answer had no verdict.
    Unparseable,
    /// The judge and the verifier disagree (unparseable answers aside).
    Disagrees,
    /// No judge answer for the sample.
    Unjudged,
}

impl JudgeFilter {
    pub const ALL: [JudgeFilter; 6] = [
        JudgeFilter::Any,
        JudgeFilter::Yes,
        JudgeFilter::No,
        JudgeFilter::Unparseable,
        JudgeFilter::Disagrees,
        JudgeFilter::Unjudged,
    ];

    /// Its name in the filter editor.
    pub fn name(self) -> &'static str {
        match self {
            JudgeFilter::Any => "any",
            JudgeFilter::Yes => "said yes",
            JudgeFilter::No => "said no",
            JudgeFilter::Unparseable => "unparseable",
            JudgeFilter::Disagrees => "≠ verifier",
            JudgeFilter::Unjudged => "not judged",
        }
    }
}

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
    pub fn set_pair(&mut self, a: usize, b: usize) {
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
    pub fn step_pair(&mut self, d: isize) {
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
pub type ChartPick = (String, Bucket, Option<(f64, f64)>);

/// Failing samples per automatic failure kind and bucket.
pub type KindCounts = Vec<(FailureKind, BTreeMap<usize, usize>)>;

/// A formula as printed and the byte range to highlight in it.
pub type Highlighted = (String, Option<(usize, usize)>);

/// Everything derived for the selected sample.
#[derive(Debug)]
pub struct Detail {
    /// (run, row) it belongs to.
    pub key: (u32, u32),
    /// The full record, or why it could not be read.
    pub record: Result<SampleRecord, super::data::RecordError>,
    /// φ₀ parsed.
    pub phi0: Option<Expr>,
    /// Round 1's φ₁ parsed.
    pub phi1: Option<Expr>,
    /// Aligned diff.
    pub diff: Vec<DiffLine>,
    /// Kinds of change.
    pub changes: Vec<&'static str>,
    /// Subformulas evaluated under the countermodel.
    pub explain: Vec<EvalLine>,
    /// φ₀ and φ₁ as printed, each with the byte range of the smallest subformula that
    /// holds every difference (highlighted on the Overview).
    pub highlight: Option<[Highlighted; 2]>,
    /// Every model call as a conversation (the Raw tab).
    pub transcript: Vec<super::transcript::Call>,
}

/// Per-bucket counts for the chart: the core's one A2/A3 tally.
pub type Bucket = crate::report::Counts;

/// Opens run directories on background threads and hands them over in order.
pub struct Loader {
    dirs: Vec<std::path::PathBuf>,
    rx: std::sync::mpsc::Receiver<(usize, RunIndex)>,
    ready: BTreeMap<usize, RunIndex>,
    next: usize,
}

impl Loader {
    /// Starts opening `dirs` (two at a time: reading is mostly parsing or page-cache
    /// copies, and the UI keeps a core).
    pub fn start(dirs: Vec<std::path::PathBuf>) -> Loader {
        let (tx, rx) = std::sync::mpsc::channel();
        let queue = std::sync::Arc::new(std::sync::Mutex::new(
            dirs.iter()
                .cloned()
                .enumerate()
                .collect::<Vec<_>>()
                .into_iter(),
        ));
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 2);
        for _ in 0..threads {
            let (tx, queue) = (tx.clone(), queue.clone());
            std::thread::spawn(move || {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).ok().flatten();
                    let Some((k, dir)) = next else { break };
                    if tx.send((k, RunIndex::open(&dir))).is_err() {
                        break;
                    }
                }
            });
        }
        Loader {
            dirs,
            rx,
            ready: BTreeMap::new(),
            next: 0,
        }
    }

    /// Runs opened so far that are next in order.
    fn take(&mut self) -> Vec<RunIndex> {
        while let Ok((k, run)) = self.rx.try_recv() {
            self.ready.insert(k, run);
        }
        let mut out = Vec::new();
        while let Some(run) = self.ready.remove(&self.next) {
            out.push(run);
            self.next += 1;
        }
        out
    }

    /// Whether `dir` is still being opened.
    fn pending(&self, dir: &std::path::Path) -> bool {
        self.dirs[self.next.min(self.dirs.len())..]
            .iter()
            .any(|d| d == dir)
    }
}

/// The chart's aggregates and what they were computed from.
#[derive(Default)]
struct ChartCache {
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

/// The viewer.
pub struct App {
    /// Runs still being opened in the background (the viewer starts drawing at once).
    pub loader: Option<Loader>,
    /// Whether the user has pressed a key (loading then stops moving the selection).
    touched: bool,
    /// The chart's aggregates, recomputed only when their inputs change.
    chart_cache: std::cell::RefCell<ChartCache>,
    /// Loaded runs.
    pub runs: Vec<RunIndex>,
    /// The open overlay's scroll (help, run summary).
    pub overlay: super::components::overlay::Overlay,
    /// Folders given to the viewer, re-scanned for run directories made later.
    pub watch: Vec<std::path::PathBuf>,
    /// `C` was pressed: the next key says whether to cancel the live run.
    pub confirm_cancel: bool,
    /// The comparison shown by `c` (computed when opened).
    pub compare: Option<CompareView>,
    /// Where `E` writes exports (default: the working directory).
    pub export_dir: Option<std::path::PathBuf>,
    /// The run summary shown by `i` (computed when opened, so drawing only reads).
    pub summary: Option<RunSummary>,
    /// φ₀ that pass in the run the "passes in" filter names (rebuilt by `refilter`).
    pub passing_elsewhere: std::collections::HashSet<u64>,
    /// Keys.
    pub keymap: Keymap,
    /// Category metric for chart and range filter.
    pub by: By,
    /// Filters.
    pub filter: Filter,
    /// The search box: the query and the searches' bookkeeping.
    pub search: super::components::search_box::SearchBox,
    /// Rows passing the filters (before search).
    base: std::sync::Arc<Vec<(u32, u32)>>,
    /// Rows shown: (run, row).
    pub visible: Vec<(u32, u32)>,
    /// The sample list's selection (an index into `visible`) and scroll.
    pub sample_list: ListCursor,
    /// The run list's selection and scroll.
    pub run_list: ListCursor,
    /// Focused pane.
    pub focus: Pane,
    /// Keyboard mode.
    pub mode: Mode,
    /// The detail pane's tab, tree toggle and scroll.
    pub detail_view: super::components::detail_view::DetailView,
    /// The filter editor (`f`).
    pub filter_edit: super::components::filter_edit::FilterEditor,
    /// The chart picker (`v`).
    pub chart_pick: super::components::chart_pick::ChartPick,
    /// Cached detail of the selected sample.
    pub detail: Option<Detail>,
    /// Warnings from loading (themes, config, files).
    pub warnings: Vec<String>,
    /// A one-line message.
    pub status: String,
    /// A rescore running on its own thread: the new directory and the result.
    pub rescore: Option<(
        std::path::PathBuf,
        std::thread::JoinHandle<Result<String, crate::run::rescore::RescoreError>>,
    )>,
    /// Set when the user quits.
    pub quit: bool,
    /// Rows of the sample list on screen (for paging), as the last frame laid them out.
    pub page: std::cell::Cell<usize>,
    /// The sample list's sort.
    pub sort: super::components::sort::Sort,
    /// The chart's first drawn run row (it scrolls to keep the focused run in view).
    pub chart_top: std::cell::Cell<usize>,
    /// Label categories.
    pub taxonomy: super::labels::Taxonomy,
    /// Who labels.
    pub annotator: String,
    /// Label mode's panel: the note being typed and the undo history.
    pub labelling: super::components::label_panel::LabelPanel,
    /// Size of each run's labels.jsonl when last read (to notice other writers).
    label_sizes: Vec<u64>,
    /// The new-run form while it is open.
    pub form: Option<super::live::Form>,
    /// A run started from the viewer.
    pub live: Option<super::live::Live>,
}

fn labels_len(dir: &std::path::Path) -> u64 {
    std::fs::metadata(dir.join(crate::run::store::LABELS)).map_or(0, |m| m.len())
}

impl App {
    /// A viewer over `runs`.
    pub fn new(runs: Vec<RunIndex>, keymap: Keymap, warnings: Vec<String>) -> App {
        let mut app = App {
            loader: None,
            touched: false,
            chart_cache: Default::default(),
            overlay: super::components::overlay::Overlay::default(),
            watch: Vec::new(),
            confirm_cancel: false,
            compare: None,
            export_dir: None,
            summary: None,
            runs,
            passing_elsewhere: std::collections::HashSet::new(),
            keymap,
            by: By::Operators,
            filter: Filter::default(),
            search: super::components::search_box::SearchBox::default(),
            base: Default::default(),
            visible: Vec::new(),
            sample_list: ListCursor::default(),
            run_list: ListCursor::default(),
            focus: Pane::Samples,
            mode: Mode::Normal,
            detail_view: super::components::detail_view::DetailView::default(),
            filter_edit: super::components::filter_edit::FilterEditor::default(),
            chart_pick: super::components::chart_pick::ChartPick::default(),
            detail: None,
            warnings,
            status: String::new(),
            rescore: None,
            quit: false,
            page: std::cell::Cell::new(10),
            chart_top: std::cell::Cell::new(0),
            sort: super::components::sort::Sort::default(),
            taxonomy: super::labels::Taxonomy::builtin(),
            annotator: super::labels::annotator(None),
            labelling: super::components::label_panel::LabelPanel::default(),
            label_sizes: Vec::new(),
            form: None,
            live: None,
        };
        app.label_sizes = app.runs.iter().map(|r| labels_len(&r.dir)).collect();
        for r in &app.runs {
            app.warnings.extend(r.warnings.iter().cloned());
        }
        if app.runs.iter().all(|r| {
            r.manifest
                .as_ref()
                .is_some_and(|m| m.dataset.filter_field == "depth")
        }) && !app.runs.is_empty()
        {
            app.by = By::Depth;
        }
        app.refilter();
        app.select_first_failure();
        // Warnings take the footer's corner when there are any.
        if app.warnings.is_empty() {
            app.status = HELP_HINT.into();
        }
        app
    }

    /// The category value of a row under the current metric.
    /// A sample without the chosen metric (regexes have no operator count) falls back
    /// to the other, so every run has a chart and a category column.
    pub fn category(&self, run: u32, row: u32) -> Option<usize> {
        let r = &self.runs[run as usize].rows[row as usize];
        match self.by {
            By::Operators => r.ops.or(r.depth).map(usize::from),
            By::Depth => r.depth.or(r.ops).map(usize::from),
        }
    }

    /// Which measure [`App::category`] gives for a row: the chosen one, or the other
    /// when the row lacks it (a regex has a depth, no operator count).
    pub fn measure_of(&self, run: u32, row: u32) -> &'static str {
        let r = &self.runs[run as usize].rows[row as usize];
        match (self.by, r.ops.is_some(), r.depth.is_some()) {
            (By::Operators, false, true) | (By::Depth, _, true) => "depth",
            _ => "ops",
        }
    }

    /// The measures the shown runs are charted by (one name, or several for a view
    /// mixing logic and regex runs), each with the runs that use it.
    pub fn measures(&self) -> BTreeMap<&'static str, Vec<String>> {
        let mut out: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        for ri in self.chart_runs() {
            if !self.runs[ri].rows.is_empty() {
                out.entry(self.measure_of(ri as u32, 0))
                    .or_default()
                    .push(self.runs[ri].name());
            }
        }
        out
    }

    /// How the chart axis is labelled: `ops`, or `ops/depth` when some runs are
    /// measured otherwise (each chart row then says which).
    pub fn axis_name(&self) -> &'static str {
        let mixed = self.measures().len() > 1;
        match (self.by, mixed) {
            (By::Operators, false) => "ops",
            (By::Depth, false) => "depth",
            (By::Operators, true) => "ops/depth",
            (By::Depth, true) => "depth/ops",
        }
    }

    fn passes(&self, run: usize, row: u32) -> bool {
        let ri = &self.runs[run];
        run_passes(&self.filter, run, ri)
            && row_passes(
                &self.filter,
                self.by,
                &self.passing_elsewhere,
                run,
                ri,
                &ri.rows[row as usize],
            )
    }

    /// Recomputes the list after a filter change.
    pub fn refilter(&mut self) {
        self.passing_elsewhere = match self.filter.passes_in.and_then(|i| self.runs.get(i)) {
            Some(run) => run
                .rows
                .iter()
                .filter(|r| r.verdict.is_pass())
                .map(|r| r.phi0_hash)
                .collect(),
            None => std::collections::HashSet::new(),
        };
        let mut base = Vec::new();
        for (ri, run) in self.runs.iter().enumerate() {
            if !run_passes(&self.filter, ri, run) {
                continue;
            }
            let (f, by, elsewhere) = (&self.filter, self.by, &self.passing_elsewhere);
            let kept = super::search::filter_range_parallel(run.rows.len() as u32, |i| {
                row_passes(f, by, elsewhere, ri, run, &run.rows[i as usize])
            });
            base.extend(kept.into_iter().map(|i| (ri as u32, i)));
        }
        self.base = std::sync::Arc::new(base);
        self.search.last.clear();
        self.research();
    }

    /// Recomputes the search over the filtered rows, narrowing the previous results
    /// when the query grew (sound: a row matching a query matches its prefixes). A
    /// search over more than the search box's sync limit rows runs on a worker: the list
    /// keeps its last results until [`App::poll_search`] brings the new ones, so typing
    /// never waits for a search, and a result overtaken by newer typing is dropped.
    pub fn research(&mut self) {
        let (_, narrowed) = self.search.begin();
        let pool: std::sync::Arc<Vec<(u32, u32)>> = if narrowed {
            std::sync::Arc::new(self.visible.clone())
        } else {
            self.base.clone()
        };
        if self.search.field.text.trim().is_empty() {
            self.search.pending = None;
            self.apply_search(
                super::search::Found {
                    rows: pool.to_vec(),
                    scores: Vec::new(),
                },
                String::new(),
            );
            return;
        }
        let job = self.search_job(pool);
        if job.pool.len() <= self.search.sync_limit {
            self.search.pending = None;
            let found = super::search::run_job(&job);
            self.apply_search(found, job.query);
        } else {
            self.search.pending = Some((job.generation, job.query.clone()));
            self.search
                .worker
                .get_or_insert_with(super::search::Worker::start)
                .submit(job);
        }
    }

    /// Runs loaded and runs named, while loading goes on.
    pub fn loading(&self) -> Option<(usize, usize)> {
        self.loader.as_ref().map(|l| (l.next, l.dirs.len()))
    }

    /// Takes runs the loader has opened; returns whether any joined. Until the user
    /// presses a key, the selection follows the most instructive failure so far.
    pub fn poll_loading(&mut self) -> bool {
        let Some(loader) = self.loader.as_mut() else {
            return false;
        };
        let new = loader.take();
        let done = loader.next >= loader.dirs.len();
        if done {
            self.loader = None;
        }
        if new.is_empty() {
            return done;
        }
        for r in new {
            self.warnings.extend(r.warnings.iter().cloned());
            self.label_sizes.push(labels_len(&r.dir));
            self.runs.push(r);
        }
        if self.runs.iter().all(|r| {
            r.manifest
                .as_ref()
                .is_some_and(|m| m.dataset.filter_field == "depth")
        }) {
            self.by = By::Depth;
        }
        let untouched = !self.touched;
        self.refilter();
        if untouched {
            self.select_first_failure();
        }
        true
    }

    /// The current query over `pool`, with snapshots of the texts and the rows that
    /// match through a hand label or note (labels are few and live here).
    fn search_job(&self, pool: std::sync::Arc<Vec<(u32, u32)>>) -> super::search::Job {
        let q = Query::new(&self.search.field.text);
        let mut by_label = std::collections::HashSet::new();
        for &(r, i) in pool.iter() {
            let run = &self.runs[r as usize];
            if run.labels.is_empty() {
                continue;
            }
            // Hand labels and notes are searchable too (`/scope` finds a note about scope).
            let row = &run.rows[i as usize];
            if run.labels.get(&*row.id).is_some_and(|ls| {
                ls.iter()
                    .any(|l| q.matches(&l.note) || l.categories.iter().any(|c| q.matches(c)))
            }) {
                by_label.insert((r, i));
            }
        }
        super::search::Job {
            generation: self.search.generation,
            query: self.search.field.text.clone(),
            pool,
            text_of: self
                .runs
                .iter()
                .map(super::data::RunIndex::text_index)
                .collect(),
            stores: self.runs.iter().map(|r| r.texts.clone()).collect(),
            by_label,
            ranked: self.search.ranked,
        }
    }

    /// Search results: best match first ↔ dataset order.
    fn toggle_order(&mut self) {
        self.search.toggle_order();
        self.status = if self.search.ranked {
            "search results: best match first".into()
        } else {
            "search results: dataset order".into()
        };
        // Re-run from the filtered list: the old results are in the other order.
        self.research();
    }

    /// Whether a search is running on the worker.
    pub fn search_pending(&self) -> bool {
        self.search.pending.is_some()
    }

    /// Takes a finished background search if there is one; returns whether the list
    /// changed. Results of a search that newer typing has overtaken are dropped.
    pub fn poll_search(&mut self) -> bool {
        let mut changed = false;
        while let Some((generation, found)) = self
            .search
            .worker
            .as_ref()
            .and_then(super::search::Worker::poll)
        {
            if let Some(query) = self.search.take_if_awaited(generation) {
                self.apply_search(found, query);
                changed = true;
            }
        }
        changed
    }

    fn apply_search(&mut self, found: super::search::Found, query: String) {
        let keep = self.visible.get(self.sample_list.sel).copied();
        // A new ranked query selects its best match, as a fuzzy finder does; in
        // dataset order (or when only the rows changed) the selection stays put.
        let to_best = !found.scores.is_empty() && query != self.search.last;
        self.visible = found.rows;
        self.search.scores = found.scores;
        self.search.last = query;
        self.apply_sort();
        self.sample_list.sel = if to_best {
            0
        } else {
            keep.and_then(|k| self.visible.iter().position(|v| *v == k))
                .unwrap_or(0)
        };
        self.detail = None;
    }

    /// Selects the first failing sample (the most instructive first screen): a real
    /// model's not-equivalent answer with at least two operators if there is one,
    /// else any not-equivalent sample.
    pub fn select_first_failure(&mut self) {
        let real = |r: u32| {
            self.runs[r as usize]
                .manifest
                .as_ref()
                .is_some_and(|m| !m.model.synthetic)
        };
        let failing = |(r, i): &(u32, u32)| {
            self.runs[*r as usize].rows[*i as usize].verdict == VerdictKind::NotEquivalent
        };
        let pick = self
            .visible
            .iter()
            .position(|v| {
                failing(v)
                    && real(v.0)
                    && self.runs[v.0 as usize].rows[v.1 as usize]
                        .ops
                        .is_some_and(|o| o >= 2)
            })
            .or_else(|| self.visible.iter().position(|v| failing(v) && real(v.0)))
            .or_else(|| self.visible.iter().position(failing));
        if let Some(i) = pick {
            self.sample_list.sel = i;
            self.detail = None;
        }
    }

    /// The selected (run, row).
    pub fn selected(&self) -> Option<(u32, u32)> {
        self.visible.get(self.sample_list.sel).copied()
    }

    /// Loads the detail of the selected sample if it is not cached.
    pub fn ensure_detail(&mut self) {
        let Some(key) = self.selected() else {
            self.detail = None;
            return;
        };
        if self.detail.as_ref().is_some_and(|d| d.key == key) {
            return;
        }
        let run = &self.runs[key.0 as usize];
        let record = run.record(&run.rows[key.1 as usize]);
        let (mut phi0, mut phi1, mut d, mut changes, mut ex) = (None, None, vec![], vec![], vec![]);
        let mut highlight = None;
        let mut transcript = Vec::new();
        if let Ok(rec) = &record {
            let prompts = run
                .manifest
                .as_ref()
                .and_then(super::transcript::prompts_of);
            transcript = super::transcript::transcript(rec, prompts.as_ref());
            phi0 = parse(&rec.phi0, rec.syntax).ok();
            phi1 = rec
                .rounds
                .first()
                .and_then(|r| r.phi1.as_ref())
                .and_then(|t| parse(t, rec.syntax).ok());
            if let (Some(a), Some(b)) = (&phi0, &phi1) {
                d = diff(a, b);
                changes = summary(&d);
                if let (Expr::Logic(fa), Expr::Logic(fb)) = (a, b)
                    && let Some((sa, sb)) = crate::verify::normalize::difference_path(fa, fb)
                        .last()
                        .copied()
                {
                    highlight = Some([
                        crate::syntax::print_with_span(fa, sa),
                        crate::syntax::print_with_span(fb, sb),
                    ]);
                }
                if let (
                    Verdict::NotEquivalent { countermodel, .. },
                    Expr::Logic(fa),
                    Expr::Logic(fb),
                ) = (&rec.verdict, a, b)
                    && let Some(m) = FiniteModel::from_countermodel(countermodel)
                {
                    ex = explain(fa, fb, &m);
                }
            }
        }
        self.detail = Some(Detail {
            transcript,
            key,
            record,
            phi0,
            phi1,
            diff: d,
            changes,
            explain: ex,
            highlight,
        });
        self.detail_view.reset_scroll();
    }

    fn move_sel(&mut self, delta: isize) {
        match self.focus {
            Pane::Runs => {
                self.run_list.step(delta, self.runs.len());
            }
            Pane::Samples => {
                if self.sample_list.step(delta, self.visible.len()) {
                    self.detail = None;
                }
            }
            Pane::Detail => self.detail_view.scroll_by(delta),
        }
    }

    /// What the chart's aggregates depend on, apart from rows appended since: the
    /// category field and each run's identity (name, rows other than by appending).
    /// Every run is counted; the run filter only picks which are shown.
    fn chart_key(&self) -> String {
        let runs: Vec<(u64, String)> = self
            .runs
            .iter()
            .map(|r| (r.base_generation, r.name()))
            .collect();
        format!("{:?}|{runs:?}", self.by)
    }

    /// Per-run chart aggregates, kept up to date incrementally: rows appended by a live
    /// run are added to them, everything else recomputes (a million rows take a tenth
    /// of a second, too long for every frame or every follow).
    fn chart_cached(&self) -> std::cell::Ref<'_, ChartCache> {
        let key = self.chart_key();
        {
            let mut c = self.chart_cache.borrow_mut();
            if c.key != key || c.done.len() != self.runs.len() {
                *c = ChartCache {
                    key,
                    done: vec![0; self.runs.len()],
                    runs: vec![RunChart::default(); self.runs.len()],
                };
            }
            for (ri, run) in self.runs.iter().enumerate() {
                let from = c.done[ri];
                if from >= run.rows.len() {
                    continue;
                }
                let agg = &mut c.runs[ri];
                for i in from..run.rows.len() {
                    let r = &run.rows[i];
                    let Some(b) = self.category(ri as u32, i as u32) else {
                        continue;
                    };
                    agg.buckets.entry(b).or_default().add_kind(r.kind());
                    agg.cells
                        .entry((b, r.batch))
                        .or_default()
                        .add_kind(r.kind());
                }
                c.done[ri] = run.rows.len();
            }
        }
        self.chart_cache.borrow()
    }

    /// Whether the run filter lets run `ri` into the chart.
    fn chart_shows(&self, ri: usize) -> bool {
        self.filter.runs.is_empty() || self.filter.runs.contains(&ri)
    }

    /// Chart data: for each shown run, counts per bucket of the category metric.
    pub fn chart(&self) -> Vec<(String, BTreeMap<usize, Bucket>)> {
        let c = self.chart_cached();
        self.runs
            .iter()
            .zip(&c.runs)
            .enumerate()
            .filter(|(ri, (_, a))| self.chart_shows(*ri) && !a.buckets.is_empty())
            .map(|(_, (run, a))| (run.name(), a.buckets.clone()))
            .collect()
    }

    /// For each run in `chart()` order with several batches: per bucket, the lowest and
    /// highest A3 across its batches (empty maps for one-batch runs).
    pub fn chart_spreads(&self) -> Vec<BTreeMap<usize, (f64, f64)>> {
        let c = self.chart_cached();
        c.runs
            .iter()
            .enumerate()
            .filter(|(ri, a)| self.chart_shows(*ri) && !a.buckets.is_empty())
            .map(|(_, a)| {
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
            })
            .collect()
    }

    /// The runs the chart draws, as indices into `runs`, in its order.
    pub fn chart_runs(&self) -> Vec<usize> {
        let c = self.chart_cached();
        (0..self.runs.len())
            .filter(|ri| {
                self.chart_shows(*ri) && c.runs.get(*ri).is_some_and(|a| !a.buckets.is_empty())
            })
            .collect()
    }

    /// The chart row the chart keeps in view: the picked one while picking, else the
    /// run selected in the run list (when it has focus) or the selected sample's run.
    pub fn chart_focus(&self) -> Option<usize> {
        if self.mode == Mode::Chart {
            return Some(self.chart_pick.run);
        }
        let run = if self.focus == Pane::Runs {
            Some(self.run_list.sel)
        } else {
            self.selected().map(|(r, _)| r as usize)
        }?;
        self.chart_runs().iter().position(|ri| *ri == run)
    }

    /// The chart's x axis: every bucket from the smallest to the largest present, empty
    /// ones kept in place.
    pub fn chart_buckets(&self) -> Vec<usize> {
        axis(&self.chart())
    }

    /// For the chart's highlighted run and bucket: (run name, counts, lowest and highest
    /// A3 across batches when the run has several).
    pub fn chart_pick(&self) -> Option<ChartPick> {
        let data = self.chart();
        let b = *axis(&data).get(self.chart_pick.bucket)?;
        let (name, m) = data.get(self.chart_pick.run.min(data.len().saturating_sub(1)))?;
        let counts = m.get(&b).cloned().unwrap_or_default();
        let ri = self.runs.iter().position(|r| r.name() == *name)?;
        let mut batches: BTreeMap<u16, Bucket> = BTreeMap::new();
        for (i, r) in self.runs[ri].rows.iter().enumerate() {
            if self.category(ri as u32, i as u32) == Some(b) {
                batches.entry(r.batch).or_default().add_kind(r.kind());
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
    pub fn chart_kind_counts(&self) -> (String, KindCounts) {
        let data = self.chart();
        let Some((name, _)) = data.get(self.chart_pick.run.min(data.len().saturating_sub(1)))
        else {
            return (String::new(), vec![]);
        };
        let Some(ri) = self.runs.iter().position(|r| r.name() == *name) else {
            return (name.clone(), vec![]);
        };
        let mut out: Vec<(FailureKind, BTreeMap<usize, usize>)> = Vec::new();
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

    /// The comparison for the selected sample: its run and every other run with its φ₀.
    pub fn compare_view(&self) -> CompareView {
        let rows = self.compare_rows();
        let mut columns = Vec::new();
        let mut syntax = None;
        for &(r, i) in &rows {
            let run = &self.runs[r as usize];
            let row = &run.rows[i as usize];
            let text = run.text(row);
            let mut parts = text.split(super::data::SEP).skip(1);
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

    /// Rows of other runs with the same φ₀ as the selected one.
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

    /// Samples per (category, bucket) over the shown runs; a sample counts once per
    /// category however many annotators chose it.
    pub fn label_counts(&self) -> BTreeMap<String, BTreeMap<usize, usize>> {
        let mut out: BTreeMap<String, BTreeMap<usize, usize>> = BTreeMap::new();
        for (ri, run) in self.runs.iter().enumerate() {
            if !self.filter.runs.is_empty() && !self.filter.runs.contains(&ri) {
                continue;
            }
            for (i, row) in run.rows.iter().enumerate() {
                let Some(labels) = run.labels.get(&*row.id) else {
                    continue;
                };
                let bucket = self.category(ri as u32, i as u32).unwrap_or(0);
                let cats: BTreeSet<&String> =
                    labels.iter().flat_map(|l| l.categories.iter()).collect();
                for c in cats {
                    *out.entry(c.clone()).or_default().entry(bucket).or_default() += 1;
                }
            }
        }
        out
    }

    /// Dataset kinds of the loaded runs, sorted.
    pub fn kinds(&self) -> Vec<String> {
        self.runs
            .iter()
            .map(super::data::RunIndex::kind)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// A one-line description of the active filters and counts.
    pub fn filter_summary(&self) -> String {
        let total: usize = self.runs.iter().map(|r| r.rows.len()).sum();
        let mut parts = vec![format!("{}/{}", self.visible.len(), total)];
        if let Some((lo, hi)) = self.filter.range {
            let name = if self.by == By::Operators {
                "ops"
            } else {
                "depth"
            };
            parts.push(match lo.cmp(&hi) {
                std::cmp::Ordering::Greater => format!("{name} {lo}–{hi} invalid"),
                std::cmp::Ordering::Equal => format!("{name} {lo}"),
                std::cmp::Ordering::Less => format!("{name} {lo}–{hi}"),
            });
        }
        if !self.filter.verdicts.is_empty() {
            let v: Vec<&str> = self.filter.verdicts.iter().map(|k| k.name()).collect();
            parts.push(v.join("|"));
        }
        if !self.filter.kinds.is_empty() {
            parts.push(
                self.filter
                    .kinds
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("|"),
            );
        }
        if !self.filter.runs.is_empty() {
            parts.push(format!("{} run(s)", self.filter.runs.len()));
        }
        match self.filter.labels {
            LabelFilter::Any => {}
            LabelFilter::Labelled => parts.push("labelled".into()),
            LabelFilter::Unlabelled => parts.push("unlabelled".into()),
        }
        if let Some(k) = self.filter.failure {
            parts.push(k.name().to_string());
        }
        if !self.filter.label_any.is_empty() {
            let v: Vec<&str> = self.filter.label_any.iter().map(String::as_str).collect();
            parts.push(format!("label {}", v.join("|")));
        }
        if !self.filter.label_none.is_empty() {
            let v: Vec<&str> = self.filter.label_none.iter().map(String::as_str).collect();
            parts.push(format!("no label {}", v.join("|")));
        }
        if self.filter.judge != JudgeFilter::Any {
            parts.push(format!("judge {}", self.filter.judge.name()));
        }
        if let Some(r) = self.filter.passes_in.and_then(|i| self.runs.get(i)) {
            parts.push(format!("passes in {}", r.name()));
        }
        if self.filter.closeness != ClosenessFilter::Any {
            parts.push(self.filter.closeness.name().to_string());
        }
        if !self.search.field.text.is_empty() {
            parts.push(format!("/{}", self.search.field.text));
        }
        if self.search.pending.is_some() {
            parts.push("searching…".into());
        }
        if let Some((done, all)) = self.loading() {
            parts.push(format!("loading runs {done}/{all}…"));
        }
        parts.join(" · ")
    }

    /// Handles a key in the current mode's keymap context (its fallback, or a text field).
    pub fn key(&mut self, key: Key) {
        self.touched = true;
        // Quit is handled once, before any mode sees the key: Ctrl-C always quits.
        if key == Key::ctrl_c() {
            self.quit = true;
            return;
        }
        if self.confirm_cancel {
            self.confirm_cancel = false;
            match (key.typed(), self.live.as_mut()) {
                (Some('y' | 'Y'), Some(l)) if l.ended.is_none() => {
                    l.cancel();
                    self.status =
                        "cancelling: in-flight samples are dropped, finished ones stay".into();
                }
                _ => self.status = "the live run goes on".into(),
            }
            return;
        }
        let ctx = self.context();
        if let Some(a) = self.keymap.action(ctx, key) {
            self.act_in(ctx, a);
            return;
        }
        if ctx.takes_text() {
            if let Some(c) = key.typed() {
                self.type_char(ctx, c);
            }
            return;
        }
        if ctx == Context::Label && self.label_category(key) {
            return;
        }
        if ctx == Context::Filter && self.filter_digit(key) {
            return;
        }
        if let Some(a) = ctx.fallback().and_then(|f| self.keymap.action(f, key)) {
            if ctx == Context::Overlay {
                self.overlay_action(a);
            } else {
                if ctx == Context::Filter {
                    self.filter_edit.typed = None;
                }
                self.act(a);
            }
        }
    }

    /// Parses a key name (`j`, `ctrl-c`, `shift-tab`) and handles it like a key press.
    pub fn press(&mut self, name: &str) -> Result<(), super::keys::KeyError> {
        self.key(name.parse()?);
        Ok(())
    }

    /// Which keymap context the current mode reads keys in.
    pub fn context(&self) -> Context {
        match self.mode {
            Mode::Normal => Context::Normal,
            Mode::Search => Context::Search,
            Mode::Note => Context::Note,
            Mode::NewRun => Context::Form,
            Mode::Label => Context::Label,
            Mode::Filter => Context::Filter,
            Mode::Chart => Context::Chart,
            Mode::Help | Mode::Compare | Mode::Warnings | Mode::LabelCounts | Mode::RunSummary => {
                Context::Overlay
            }
        }
    }

    /// Handles an action bound in a context.
    pub fn act_in(&mut self, ctx: Context, a: Action) {
        match ctx {
            Context::Normal => self.act(a),
            Context::Overlay => self.overlay_action(a),
            Context::Chart => self.chart_action(a),
            Context::Search => self.search_action(a),
            Context::Note => self.note_action(a),
            Context::Form => self.form_action(a),
            Context::Label => self.label_action(a),
            Context::Filter => self.filter_action(a),
        }
    }

    fn type_char(&mut self, ctx: Context, c: char) {
        use super::components::text_field::TextEffect;
        match ctx {
            Context::Search if self.search.field.type_char(c) == TextEffect::Edited => {
                self.research();
            }
            Context::Note => {
                self.labelling.note.type_char(c);
            }
            Context::Form => {
                if let Some(form) = self.form.as_mut() {
                    form.type_char(c);
                }
            }
            _ => {}
        }
    }

    fn search_action(&mut self, a: Action) {
        use super::components::text_field::TextEffect;
        if a == Action::ToggleOrder {
            self.toggle_order();
            return;
        }
        match self.search.field.handle(a) {
            TextEffect::Edited => self.research(),
            TextEffect::Confirm => self.mode = Mode::Normal,
            TextEffect::Cancel => {
                self.mode = Mode::Normal;
                self.research();
            }
            TextEffect::Quit => self.quit = true,
            TextEffect::None => {}
        }
    }

    fn note_action(&mut self, a: Action) {
        use super::components::text_field::TextEffect;
        match self.labelling.note.handle(a) {
            TextEffect::Confirm => {
                let cats = self.my_labels().0;
                let note = std::mem::take(&mut self.labelling.note.text);
                self.save_labels(cats, note);
                self.mode = Mode::Label;
            }
            TextEffect::Cancel => self.mode = Mode::Label,
            TextEffect::Quit => self.quit = true,
            TextEffect::Edited | TextEffect::None => {}
        }
    }

    fn overlay_action(&mut self, a: Action) {
        use super::components::Effect;
        // Long overlays scroll (help lists every binding and mode).
        // In the comparison the detail tab keys pick the run diffed against the first.
        if self.mode == Mode::Compare && matches!(a, Action::NextTab | Action::PrevTab) {
            if let Some(v) = self.compare.as_mut() {
                v.step_pair(if a == Action::NextTab { 1 } else { -1 });
            }
            return;
        }
        let scrolls = matches!(self.mode, Mode::Help | Mode::RunSummary);
        match self.overlay.handle(a, scrolls) {
            Effect::Close => self.mode = Mode::Normal,
            Effect::Quit => self.quit = true,
            Effect::Refilter | Effect::None => {}
        }
    }

    fn chart_action(&mut self, a: Action) {
        use super::components::chart_pick::ChartEffect;
        let buckets = self.chart_buckets();
        let nruns = self.chart().len();
        match self.chart_pick.handle(a, buckets.len(), nruns) {
            ChartEffect::Show { one_run } => {
                if let Some(&b) = buckets.get(self.chart_pick.bucket) {
                    self.filter.range = Some((b, b));
                    self.filter.runs.clear();
                    if one_run {
                        // The highlighted run's samples in the bucket.
                        let name = self
                            .chart()
                            .get(self.chart_pick.run)
                            .map(|(n, _)| n.clone());
                        if let Some(ri) =
                            name.and_then(|n| self.runs.iter().position(|r| r.name() == n))
                        {
                            self.filter.runs = [ri].into();
                        }
                        let all = self
                            .keymap
                            .first_key(Context::Chart, Action::ChartAllRuns)
                            .unwrap_or_default();
                        self.status = format!(
                            "showing bucket {b} of one run ({all} in the chart: every run)"
                        );
                    } else {
                        self.status = format!("showing bucket {b} of every run");
                    }
                    self.refilter();
                }
                self.mode = Mode::Normal;
                self.focus = Pane::Samples;
            }
            ChartEffect::Close => self.mode = Mode::Normal,
            ChartEffect::Quit => self.quit = true,
            ChartEffect::None => {}
        }
    }

    fn toggle_run(&mut self) {
        let r = self.run_list.sel;
        if self.filter.runs.is_empty() {
            self.filter.runs = (0..self.runs.len()).filter(|i| *i != r).collect();
        } else if !self.filter.runs.remove(&r) {
            self.filter.runs.insert(r);
        }
        if self.filter.runs.len() == self.runs.len() {
            self.filter.runs.clear();
        }
        self.refilter();
    }

    /// This annotator's current categories and note for the selected sample.
    pub fn my_labels(&self) -> (Vec<String>, String) {
        let Some((r, i)) = self.selected() else {
            return (vec![], String::new());
        };
        let run = &self.runs[r as usize];
        let id = &*run.rows[i as usize].id;
        run.labels
            .get(id)
            .and_then(|l| l.iter().find(|x| x.annotator == self.annotator))
            .map(|x| (x.categories.clone(), x.note.clone()))
            .unwrap_or_default()
    }

    /// The category the structural diff suggests for the selected sample: the first
    /// taxonomy category of its automatic failure kinds (the ones `report` counts).
    pub fn suggestion(&self) -> Option<&'static str> {
        let d = self.detail.as_ref()?;
        let kinds = match &d.record {
            Ok(rec) => crate::report::kinds::classify(rec),
            Err(_) => crate::report::kinds::kinds_of_diff(&d.diff),
        };
        crate::report::kinds::categories(&kinds).first().copied()
    }

    /// Writes the selected sample's labels (appended at once) and remembers the old state.
    fn save_labels(&mut self, categories: Vec<String>, note: String) {
        let Some((r, i)) = self.selected() else {
            return;
        };
        let (old_c, old_n) = self.my_labels();
        let run = &mut self.runs[r as usize];
        let id = run.rows[i as usize].id.to_string();
        match super::labels::append(&run.dir, &id, &categories, &note, &self.annotator) {
            Ok(rec) => {
                let list = run.labels.entry(id.clone()).or_default();
                list.retain(|x| x.annotator != rec.annotator);
                list.push(rec);
                self.labelling
                    .remember(super::components::label_panel::Earlier {
                        run: r as usize,
                        id,
                        categories: old_c,
                        note: old_n,
                    });
                if let Some(s) = self.label_sizes.get_mut(r as usize) {
                    *s = labels_len(&run.dir);
                }
                self.status = "label saved".into();
            }
            Err(e) => self.status = format!("label not saved: {e}"),
        }
    }

    /// Moves to the next sample in the current list that this annotator has not labelled.
    pub fn next_unlabelled(&mut self) {
        let n = self.visible.len();
        for step in 1..=n {
            let k = (self.sample_list.sel + step) % n;
            let (r, i) = self.visible[k];
            let run = &self.runs[r as usize];
            let labelled = run
                .labels
                .get(&*run.rows[i as usize].id)
                .is_some_and(|l| l.iter().any(|x| x.annotator == self.annotator));
            if !labelled {
                self.sample_list.sel = k;
                self.detail = None;
                return;
            }
        }
        self.status = "every sample in this list is labelled".into();
    }

    /// Keys in label mode; returns true if consumed.
    /// A taxonomy category's key in label mode toggles it; the taxonomy wins over bindings.
    fn label_category(&mut self, key: Key) -> bool {
        let Some(c) = key.typed() else {
            return false;
        };
        let mut buf = [0u8; 4];
        let Some(cat) = self.taxonomy.by_key(c.encode_utf8(&mut buf)) else {
            return false;
        };
        let id = cat.id.clone();
        let (mut cats, note) = self.my_labels();
        if let Some(p) = cats.iter().position(|c| *c == id) {
            cats.remove(p);
        } else {
            cats.push(id);
        }
        self.save_labels(cats, note);
        true
    }

    fn label_action(&mut self, a: Action) {
        use super::components::label_panel::{LabelIntent, LabelPanel};
        match LabelPanel::intent(a) {
            LabelIntent::Reviewed => {
                // Reviewed, nothing wrong: an empty set is a label too (it counts for lucky-pass estimates).
                let note = self.my_labels().1;
                self.save_labels(vec![], note);
            }
            LabelIntent::AcceptSuggestion => {
                self.ensure_detail();
                match self.suggestion() {
                    Some(s) => {
                        let (mut cats, note) = self.my_labels();
                        if cats.iter().any(|c| c == s) {
                            self.status = format!("already labelled {s}");
                        } else {
                            cats.push(s.to_string());
                            self.save_labels(cats, note);
                        }
                    }
                    None => {
                        self.status =
                            "no suggestion: the diff finds no change that maps to a category"
                                .into();
                    }
                }
            }
            LabelIntent::EditNote => {
                self.labelling.note.text = self.my_labels().1;
                self.mode = Mode::Note;
            }
            LabelIntent::Undo => match self.labelling.take_last() {
                Some(e) => {
                    let run = &self.runs[e.run];
                    if let Some(k) = self.visible.iter().position(|(rr, ii)| {
                        *rr as usize == e.run && *run.rows[*ii as usize].id == *e.id
                    }) {
                        self.sample_list.sel = k;
                        self.detail = None;
                    }
                    self.save_labels(e.categories, e.note);
                    // Saving pushed the undone state; undo must not redo it.
                    self.labelling.forget_last();
                    self.status = format!("undone on sample {}", e.id);
                }
                None => self.status = "nothing to undo".into(),
            },
            LabelIntent::NextUnlabelled => self.next_unlabelled(),
            LabelIntent::Move(d) => self.move_sel(d),
            LabelIntent::Close => self.mode = Mode::Normal,
            LabelIntent::Quit => self.quit = true,
            LabelIntent::Browse(other) => self.act(other),
        }
    }

    fn form_action(&mut self, a: Action) {
        use super::live::FormEffect;
        let Some(form) = self.form.as_mut() else {
            self.mode = Mode::Normal;
            return;
        };
        match form.handle(a) {
            FormEffect::Start => match super::live::Live::start(form) {
                Ok(mut live) => {
                    live.keys = (
                        self.key_name(Context::Normal, Action::PauseRun),
                        self.key_name(Context::Normal, Action::CancelRun),
                    );
                    self.status = format!("run started in {}", live.dir.display());
                    self.live = Some(live);
                    self.form = None;
                    self.mode = Mode::Normal;
                }
                Err(e) => form.error = e.to_string(),
            },
            FormEffect::Close => {
                self.form = None;
                self.mode = Mode::Normal;
            }
            FormEffect::Quit => self.quit = true,
            FormEffect::None => {}
        }
    }

    /// Takes in the live run's progress and makes its directory part of the view.
    /// Starts rescoring the run selected in the run list (or the selected sample's run)
    /// on its own thread; [`App::live_tick`] opens the result when it is done.
    pub fn start_rescore(&mut self) {
        if self.rescore.is_some() {
            self.status = "a rescore is already running".into();
            return;
        }
        let ri = if self.focus == Pane::Runs {
            Some(self.run_list.sel)
        } else {
            self.selected().map(|(r, _)| r as usize)
        };
        let Some(run) = ri.and_then(|i| self.runs.get(i)) else {
            self.status = "no run selected".into();
            return;
        };
        let dir = run.dir.clone();
        let name = dir
            .file_name()
            .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned());
        let mut out = dir.with_file_name(format!("{name}-rescored"));
        let mut k = 2;
        while out.exists() {
            out = dir.with_file_name(format!("{name}-rescored-{k}"));
            k += 1;
        }
        let opts = crate::run::rescore::RescoreOptions {
            run: dir,
            out: out.clone(),
            in_place: false,
            verify: crate::verify::Options {
                timeout: std::time::Duration::from_millis(
                    run.manifest
                        .as_ref()
                        .map_or(5000, |m| m.verifier_timeout_ms.max(1)),
                ),
                ..Default::default()
            },
            // The viewer rescores under the reading the run recorded.
            reading: None,
        };
        self.status = format!("rescoring {name} (no model calls)…");
        let handle = std::thread::spawn(move || {
            crate::run::rescore::rescore(&opts).map(|s| {
                format!(
                    "{} changed of {}; A2 {} → {}, A3 {} → {}{}",
                    s.changed(),
                    s.samples,
                    pct(s.before.compliance()),
                    pct(s.after.compliance()),
                    pct(s.before.accuracy()),
                    pct(s.after.accuracy()),
                    if s.needs_calls.is_empty() {
                        String::new()
                    } else {
                        format!("; {} need new model calls", s.needs_calls.len())
                    }
                )
            })
        });
        self.rescore = Some((out, handle));
    }

    /// Opens a finished rescore; true when the screen changed.
    fn rescore_tick(&mut self) -> bool {
        if !self.rescore.as_ref().is_some_and(|(_, h)| h.is_finished()) {
            return false;
        }
        let Some((out, handle)) = self.rescore.take() else {
            return false;
        };
        let name = out
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match handle.join() {
            Ok(Ok(summary)) => {
                self.status = format!("rescored into {name}: {summary}");
                if !self.runs.iter().any(|r| r.dir == out) {
                    self.runs.push(super::data::RunIndex::open(&out));
                    self.label_sizes.push(labels_len(&out));
                    self.refilter();
                }
            }
            Ok(Err(e)) => {
                self.status = format!(
                    "rescore failed: {}",
                    crate::sanitize::one_line(&e.to_string())
                );
            }
            Err(_) => self.status = "rescore failed: internal error".into(),
        }
        true
    }

    pub fn live_tick(&mut self) -> bool {
        let rescored = self.rescore_tick();
        let Some(live) = self.live.as_mut() else {
            return rescored;
        };
        let changed = live.poll();
        let dir = live.dir.clone();
        let known = self.runs.iter().any(|r| r.dir == dir);
        if !known && dir.join(crate::run::store::MANIFEST).exists() {
            self.runs.push(super::data::RunIndex::open(&dir));
            self.label_sizes.push(labels_len(&dir));
            self.refilter();
            return true;
        }
        changed | self.follow()
    }

    /// Keys inside the filter editor; returns true if consumed.
    /// What the filter editor needs to know about the loaded runs.
    fn filter_env(&self) -> super::components::filter_edit::FilterEnv {
        super::components::filter_edit::FilterEnv {
            max: self.chart_buckets().last().copied().unwrap_or(0),
            kinds: self.kinds(),
            categories: self
                .taxonomy
                .categories
                .iter()
                .map(|c| c.id.clone())
                .collect(),
            runs: self.runs.len(),
        }
    }

    /// Digits and backspace type the bound of the operator-range fields.
    fn filter_digit(&mut self, key: Key) -> bool {
        let digit = key.typed().and_then(|c| c.to_digit(10));
        let backspace = key.code() == ratatui::crossterm::event::KeyCode::Backspace;
        if digit.is_none() && !backspace {
            return false;
        }
        let env = self.filter_env();
        let taken = self.filter_edit.digit(digit, &mut self.filter, &env);
        if taken {
            self.refilter();
        }
        taken
    }

    fn filter_action(&mut self, a: Action) {
        use super::components::Effect;
        let env = self.filter_env();
        match self.filter_edit.handle(a, &mut self.filter, &env) {
            Effect::Refilter => self.refilter(),
            Effect::Close => self.mode = Mode::Normal,
            Effect::Quit => self.quit = true,
            Effect::None => {}
        }
    }
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

/// The filter's run-level conditions (which runs, which dataset kinds).
fn run_passes(f: &Filter, run: usize, ri: &RunIndex) -> bool {
    (f.runs.is_empty() || f.runs.contains(&run))
        && (f.kinds.is_empty()
            || ri
                .manifest
                .as_ref()
                .is_some_and(|m| f.kinds.contains(&m.dataset.kind))
            || (ri.manifest.is_none() && f.kinds.contains("?")))
}

/// The filter's row-level conditions. A free function of what it reads, so rows can
/// be filtered on several threads.
fn row_passes(
    f: &Filter,
    by: By,
    passing_elsewhere: &std::collections::HashSet<u64>,
    run: usize,
    ri: &RunIndex,
    r: &super::data::Row,
) -> bool {
    if !f.verdicts.is_empty() && !f.verdicts.contains(&r.verdict) {
        return false;
    }
    if let Some((lo, hi)) = f.range {
        let c = match by {
            By::Operators => r.ops.or(r.depth),
            By::Depth => r.depth.or(r.ops),
        }
        .map(usize::from);
        match c {
            Some(c) if c >= lo && c <= hi => {}
            _ => return false,
        }
    }
    let labelled = match f.labels {
        LabelFilter::Any => true,
        LabelFilter::Labelled => ri.labels.contains_key(&*r.id),
        LabelFilter::Unlabelled => !ri.labels.contains_key(&*r.id),
    };
    if !labelled {
        return false;
    }
    if let Some(k) = f.failure
        && r.fails & crate::report::kinds::mask(&[k]) == 0
    {
        return false;
    }
    let has = |c: &str| {
        ri.labels
            .get(&*r.id)
            .is_some_and(|ls| ls.iter().any(|l| l.categories.iter().any(|x| x == c)))
    };
    if !f.label_any.is_empty() && !f.label_any.iter().any(|c| has(c)) {
        return false;
    }
    if f.label_none.iter().any(|c| has(c)) {
        return false;
    }
    if f.judge != JudgeFilter::Any {
        use crate::llm::judge::JudgeAnswer;
        let answer = ri.judge.get(&*r.id).map(|j| j.answer);
        let ok = match (f.judge, answer) {
            (JudgeFilter::Unjudged, a) => a.is_none(),
            (_, None) => false,
            (JudgeFilter::Yes, Some(a)) => a == JudgeAnswer::Yes,
            (JudgeFilter::No, Some(a)) => a == JudgeAnswer::No,
            (JudgeFilter::Unparseable, Some(a)) => a == JudgeAnswer::Unparseable,
            (JudgeFilter::Disagrees, Some(a)) => match a {
                JudgeAnswer::Yes => !r.verdict.is_pass(),
                JudgeAnswer::No => r.verdict.is_pass(),
                JudgeAnswer::Unparseable => false,
            },
            (JudgeFilter::Any, _) => true,
        };
        if !ok {
            return false;
        }
    }
    if !f.closeness.admits(r.bleu) {
        return false;
    }
    if let Some(other) = f.passes_in
        && (other == run || r.verdict.is_pass() || !passing_elsewhere.contains(&r.phi0_hash))
    {
        return false;
    }
    true
}

/// Each row's φ₀ (by hash) and whether it passed, for the pass/fail matrix.
pub fn outcomes(x: &RunIndex) -> Vec<(u64, bool)> {
    x.rows
        .iter()
        .map(|r| (r.phi0_hash, r.verdict.is_pass()))
        .collect()
}

impl App {
    /// The summary of the selected sample's run (or the highlighted run).
    pub fn run_summary(&self) -> Option<RunSummary> {
        let ri = self
            .selected()
            .map(|(r, _)| r as usize)
            .or((self.run_list.sel < self.runs.len()).then_some(self.run_list.sel))?;
        let run = self.runs.get(ri)?;
        let mut counts = crate::report::Counts::default();
        let mut kinds = [0usize; FailureKind::ALL.len()];
        for r in &run.rows {
            counts.add_kind(r.verdict);
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
        let m = crate::report::compare::build(self.runs.iter().map(|x| (x.name(), outcomes(x))));
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
            let p = m.pair(ri, oi);
            if p.n() > 0 {
                versus.push((other.name(), p));
            }
        }
        Some(RunSummary {
            name: run.name(),
            model: run.model(),
            counts,
            kinds,
            judge,
            versus,
            other_datasets,
        })
    }

    /// Steps one of the editor's choice fields (failure kind, label has/lacks, judge,
    /// passes in) to the next or previous choice; the first choice is "any".
    /// Applies an action.
    pub fn act(&mut self, a: Action) {
        match a {
            Action::Up => self.move_sel(-1),
            Action::Down => self.move_sel(1),
            Action::PageUp => self.move_sel(-(self.page.get().max(1) as isize)),
            Action::PageDown => self.move_sel(self.page.get().max(1) as isize),
            Action::Top => self.move_sel(isize::MIN / 2),
            Action::Bottom => self.move_sel(isize::MAX / 2),
            Action::Open => match self.focus {
                Pane::Runs => {
                    self.filter.runs = [self.run_list.sel].into();
                    self.refilter();
                    self.focus = Pane::Samples;
                }
                Pane::Samples => self.focus = Pane::Detail,
                Pane::Detail => {}
            },
            Action::Back => {
                if self.focus == Pane::Detail {
                    self.focus = Pane::Samples;
                } else if !self.search.field.text.is_empty() {
                    self.search.field.text.clear();
                    self.research();
                }
            }
            Action::Search => {
                self.mode = Mode::Search;
                self.focus = Pane::Samples;
            }
            Action::Filter => {
                // The editor opens where it was left.
                self.mode = Mode::Filter;
                self.filter_edit.typed = None;
            }
            Action::ClearFilters => {
                self.filter = Filter::default();
                self.search.field.text.clear();
                self.refilter();
            }
            Action::NextPane | Action::PrevPane => {
                let order = [Pane::Runs, Pane::Samples, Pane::Detail];
                let i = order.iter().position(|p| *p == self.focus).unwrap_or(1);
                let d = if a == Action::NextPane { 1 } else { 2 };
                self.focus = order[(i + d) % 3];
            }
            Action::NextTab | Action::PrevTab | Action::ToggleTree => {
                self.detail_view.handle(a);
            }
            Action::Compare if self.selected().is_some() => {
                self.compare = Some(self.compare_view());
                self.mode = Mode::Compare;
            }
            Action::ToggleBy => {
                self.by = if self.by == By::Operators {
                    By::Depth
                } else {
                    By::Operators
                };
                self.filter.range = None;
                self.refilter();
            }
            Action::Chart => {
                // Picking starts on the run in view (the selected one).
                self.chart_pick.run = self.chart_focus().unwrap_or(0);
                self.mode = Mode::Chart;
                let buckets = self.chart_buckets();
                self.chart_pick.bucket = self
                    .selected()
                    .and_then(|(r, i)| self.category(r, i))
                    .and_then(|c| buckets.iter().position(|b| *b == c))
                    .unwrap_or(0);
            }
            Action::Warnings => self.mode = Mode::Warnings,
            Action::Label if self.selected().is_some() => {
                self.mode = Mode::Label;
                self.focus = Pane::Samples;
            }
            Action::NextUnlabelled => self.next_unlabelled(),
            Action::NewRun => {
                if self.live.as_ref().is_some_and(|l| l.ended.is_none()) {
                    self.status = format!(
                        "a run is already going: {} cancels it",
                        self.key_name(Context::Normal, Action::CancelRun)
                    );
                } else {
                    self.form = Some(super::live::Form::remembered(self.viewed_folder()));
                    self.mode = Mode::NewRun;
                }
            }
            Action::LabelCounts => self.mode = Mode::LabelCounts,
            Action::RunSummary => {
                self.overlay.reset();
                self.summary = self.run_summary();
                self.mode = Mode::RunSummary;
            }
            Action::Rescore => self.start_rescore(),
            Action::Export => {
                let base = self
                    .export_dir
                    .clone()
                    .or_else(|| std::env::current_dir().ok())
                    .unwrap_or_else(|| std::path::PathBuf::from("."));
                self.status = match super::export::export(self, &base) {
                    Ok(dir) => format!(
                        "exported {} samples and the chart to {}",
                        self.visible.len(),
                        crate::sanitize::one_line(&dir.display().to_string())
                    ),
                    Err(e) => format!(
                        "export failed: {}",
                        crate::sanitize::one_line(&e.to_string())
                    ),
                };
            }
            Action::PauseRun => match self.live.as_mut() {
                Some(l) if l.ended.is_none() => l.toggle_pause(),
                _ => {
                    self.status = format!(
                        "no live run: {} starts one",
                        self.key_name(Context::Normal, Action::NewRun)
                    );
                }
            },
            Action::CancelRun => match self.live.as_ref() {
                Some(l) if l.ended.is_none() => {
                    self.confirm_cancel = true;
                    self.status =
                        "cancel the live run? y cancels (finished samples stay; resumable), any other key keeps it"
                            .into();
                }
                _ => self.status = "no live run".into(),
            },
            Action::Help => {
                self.overlay.reset();
                self.mode = Mode::Help;
            }
            Action::ToggleRun if self.focus == Pane::Runs => self.toggle_run(),
            Action::ToggleOrder => self.toggle_order(),
            Action::Sort => self.sort_by(super::components::sort::Sort::cycle),
            Action::SortReverse => self.sort_by(super::components::sort::Sort::reverse),
            Action::Quit => self.quit = true,
            // Actions of other contexts do nothing while browsing.
            _ => {}
        }
    }

    /// The status line of runs being written by another process: the selected run when
    /// it is one, else the first, with done/total, pass rate and ETA.
    pub fn followed_progress(&self) -> Option<String> {
        let running: Vec<usize> = (0..self.runs.len())
            .filter(|&i| self.runs[i].progress().is_some())
            .collect();
        let sel = self.selected().map(|(r, _)| r as usize);
        let pick = if self.focus == Pane::Runs {
            Some(self.run_list.sel)
        } else {
            sel
        }
        .filter(|r| running.contains(r))
        .or_else(|| running.first().copied())?;
        let run = &self.runs[pick];
        let mut text = format!(
            "running (another process) {} · {}",
            run.name(),
            run.progress().unwrap_or_default()
        );
        if let Some(a) = run.accuracy() {
            text.push_str(&format!(" · pass {:.0}%", a * 100.0));
        }
        if running.len() > 1 {
            text.push_str(&format!(" · {} runs running", running.len()));
        }
        Some(text)
    }

    /// Changes the sort and re-sorts the list (back to dataset or ranked order when the
    /// sort is cleared), keeping the selected sample selected.
    pub fn sort_by(&mut self, change: impl FnOnce(&mut super::components::sort::Sort)) {
        change(&mut self.sort);
        if self.sort.key.is_none() {
            // Unsorted: the order the filter and search give.
            self.search.last.clear();
            self.research();
        } else {
            let keep = self.visible.get(self.sample_list.sel).copied();
            self.apply_sort();
            self.sample_list.sel = keep
                .and_then(|k| self.visible.iter().position(|v| *v == k))
                .unwrap_or(0);
        }
    }

    /// The sort key of a row under a column (`None` sorts last).
    fn sort_key(&self, key: super::components::sort::SortKey, r: u32, i: u32) -> Option<u32> {
        use super::components::sort::SortKey;
        let run = &self.runs[r as usize];
        let row = &run.rows[i as usize];
        match key {
            SortKey::Measure => self.category(r, i).map(|c| c as u32),
            SortKey::Verdict => Some(row.verdict as u32),
            SortKey::Bleu => row.bleu.map(u32::from),
            SortKey::Judge => run.judge.get(&*row.id).map(|j| j.answer as u32),
            SortKey::Labelled => Some(u32::from(run.labels.contains_key(&*row.id))),
            SortKey::Run => Some(r),
        }
    }

    /// Puts the list in the sort's order (ties keep the order they had); search scores
    /// follow their rows.
    fn apply_sort(&mut self) {
        let Some(key) = self.sort.key else { return };
        let keys: Vec<Option<u32>> = self
            .visible
            .iter()
            .map(|&(r, i)| self.sort_key(key, r, i))
            .collect();
        let order = self.sort.order(&keys);
        self.visible = order.iter().map(|&k| self.visible[k as usize]).collect();
        if self.search.scores.len() == order.len() {
            self.search.scores = order
                .iter()
                .map(|&k| self.search.scores[k as usize])
                .collect();
        }
    }

    /// The first key bound to an action in a context, as titles and statuses name it
    /// (arrows as ← → ↑ ↓): never a hard-coded key the user may have rebound.
    pub fn key_name(&self, ctx: Context, a: Action) -> String {
        match self.keymap.first_key(ctx, a).as_deref() {
            Some("left") => "←".into(),
            Some("right") => "→".into(),
            Some("up") => "↑".into(),
            Some("down") => "↓".into(),
            Some(k) => k.to_string(),
            None => "?".into(),
        }
    }

    /// The folder being viewed (the first folder named on the command line, else the
    /// folder holding the first run): where a new run goes by default.
    pub fn viewed_folder(&self) -> Option<&std::path::Path> {
        self.watch
            .first()
            .map(std::path::PathBuf::as_path)
            .or_else(|| self.runs.first().and_then(|r| r.dir.parent()))
    }

    /// Picks up samples appended to the runs' files; returns whether anything changed.
    pub fn follow(&mut self) -> bool {
        let mut added = 0;
        // Rows only appended (the usual live run) are filtered and searched on their
        // own; anything else (new runs, labels, a rewritten file) filters everything.
        let before: Vec<(usize, u64)> = self
            .runs
            .iter()
            .map(|r| (r.rows.len(), r.base_generation))
            .collect();
        let mut only_appends = true;
        // Run directories created under a watched folder since the viewer started.
        for w in self.watch.clone() {
            for dir in super::data::discover(&w) {
                let loading = self.loader.as_ref().is_some_and(|l| l.pending(&dir));
                if !loading && !self.runs.iter().any(|r| r.dir == dir) {
                    only_appends = false;
                    self.runs.push(super::data::RunIndex::open(&dir));
                    self.label_sizes.push(labels_len(&dir));
                    added += 1;
                    let stale = format!("{}: no run directories here", w.display());
                    self.warnings.retain(|x| !x.starts_with(&stale));
                }
            }
        }
        for (k, r) in self.runs.iter_mut().enumerate() {
            if r.refresh_manifest() {
                added += 1;
                only_appends = false;
            }
            added += r.refresh();
            // Another viewer may be labelling the same run.
            let len = labels_len(&r.dir);
            if self.label_sizes.get(k).is_some_and(|s| *s != len) {
                r.reload_labels();
                if let Some(s) = self.label_sizes.get_mut(k) {
                    *s = len;
                }
                added += 1;
                only_appends = false;
            }
        }
        if added == 0 {
            return false;
        }
        let appended = only_appends
            && self.sort.key.is_none()
            && self.filter.passes_in.is_none()
            && self.search.pending.is_none()
            && before
                .iter()
                .zip(&self.runs)
                .all(|(&(n, g), r)| r.base_generation == g && r.rows.len() >= n);
        if appended {
            self.take_appended(&before);
        } else {
            self.refilter();
        }
        true
    }

    /// Adds rows appended since `before` (per run: rows, base generation) to the
    /// filtered list and, when they match the search, to what is shown.
    fn take_appended(&mut self, before: &[(usize, u64)]) {
        let mut new = Vec::new();
        for (ri, &(n, _)) in before.iter().enumerate() {
            for i in n..self.runs[ri].rows.len() {
                if self.passes(ri, i as u32) {
                    new.push((ri as u32, i as u32));
                }
            }
        }
        if new.is_empty() {
            return;
        }
        // Lists are in (run, row) order, as a full refilter makes them: merge.
        let base = super::search::merge_by(&self.base, &new, |a, b| a <= b);
        self.base = std::sync::Arc::new(base);
        let searching = !self.search.field.text.trim().is_empty();
        let shown = if searching {
            super::search::run_job(&self.search_job(std::sync::Arc::new(new)))
        } else {
            super::search::Found {
                rows: new,
                scores: Vec::new(),
            }
        };
        let keep = self.visible.get(self.sample_list.sel).copied();
        let ranked = searching && self.search.ranked;
        let old = super::search::Found {
            rows: std::mem::take(&mut self.visible),
            scores: std::mem::take(&mut self.search.scores),
        };
        let merged = old.merge(shown, ranked);
        self.visible = merged.rows;
        self.search.scores = merged.scores;
        if let Some(k) = keep
            && let Some(p) = self.visible.iter().position(|v| *v == k)
        {
            self.sample_list.sel = p;
        }
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))
}
