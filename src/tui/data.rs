//! What the viewer keeps of a run: a compact row per sample (offset into
//! `samples.jsonl`, verdict, category, searchable text). Full records are read
//! from disk only for the sample on screen, so a 100,000-sample run stays small.

use crate::record::{LabelRecord, Manifest, SampleRecord};
pub use crate::run::rows::{MAX_LINE, Row, SEP};
use crate::run::scan::Scan;
use crate::run::store;
pub use crate::run::texts::TextStore;
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The manifest with every string made safe to draw (run names, model names, paths).
fn safe_manifest(m: Manifest) -> Manifest {
    let Ok(mut v) = serde_json::to_value(&m) else {
        return m;
    };
    crate::base::sanitize::json_for_terminal(&mut v);
    serde_json::from_value(v).unwrap_or(m)
}

/// The manifest with a dead run's `running` read as `interrupted` (nothing writes it).
fn shown(dir: &Path, mut m: Manifest) -> Manifest {
    m.status = crate::run::liveness::shown_status(dir, &m.status);
    m
}

/// A run as the viewer holds it.
#[derive(Debug)]
pub struct RunIndex {
    /// Directory.
    pub dir: PathBuf,
    /// Manifest, if readable.
    pub manifest: Option<Manifest>,
    /// Rows by sample index (the latest line of each sample).
    pub rows: Vec<Row>,
    /// The rows' texts (φ₀, ψ, φ₁), shared with search workers.
    pub texts: TextStore,
    /// Bytes of `samples.jsonl` consumed (complete lines); following resumes here.
    pub consumed: u64,
    /// Complete lines read (for line numbers in warnings).
    pub lines: usize,
    /// Latest labels per sample id (newest per annotator merged).
    pub labels: HashMap<String, Vec<LabelRecord>>,
    /// Every label line per sample id in file order, retractions included (the label
    /// panel's history).
    pub label_history: HashMap<String, Vec<LabelRecord>>,
    /// When `run.json` was last read (its modification time), to notice status changes.
    pub manifest_mtime: Option<std::time::SystemTime>,
    /// The newest judge decision per sample id (`judge.jsonl`).
    pub judge: HashMap<String, crate::record::JudgeRecord>,
    /// The newest answer per (judge model, sample id), as `report` counts judges.
    pub judge_by_model: HashMap<(String, String), crate::llm::judge::JudgeAnswer>,
    /// Problems found while loading.
    pub warnings: Vec<String>,
    /// USD spent on the samples' calls (every line, retries too) or by the spend
    /// ledger, whichever is more; None when nothing was priced.
    pub cost: Option<f64>,
    /// Changes whenever the rows change (a new process-wide number), so aggregates
    /// drawn from them can be cached until then.
    pub generation: u64,
    /// Changes when the rows change other than by appending (open, a rewritten file).
    pub base_generation: u64,
    /// [`RunIndex::text_index`]'s cache: (generation, indices).
    text_index: std::sync::Mutex<(u64, std::sync::Arc<[u32]>)>,
    /// Row position per sample id, built at the first append (a retried sample's new
    /// line replaces its row instead of adding one).
    ids: Option<HashMap<Box<str>, u32>>,
    /// When the viewer first saw the run running, and its samples then (for the ETA).
    seen_running: Option<(std::time::Instant, usize)>,
    /// Rows whose failure kinds were still to be proved when the run was read, and
    /// how many are still (the kinds pass fills them in the background).
    pub kinds_pending: (usize, usize),
    /// Whether the rows still pending were handed to the kinds worker.
    pub kinds_asked: bool,
}

use crate::run::row_kinds::is_pending;

/// Most not-equivalent samples whose kinds opening a run proves before it is shown.
pub const INLINE_KINDS: usize = 128;

fn next_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl RunIndex {
    /// Short name for lists.
    pub fn name(&self) -> String {
        self.manifest.as_ref().map_or_else(
            || {
                self.dir
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            },
            |m| m.id.clone(),
        )
    }

    /// `provider:model`.
    pub fn model(&self) -> String {
        self.manifest.as_ref().map_or_else(
            || "?".into(),
            |m| {
                if m.model.synthetic {
                    format!("{} (synthetic)", m.model.name)
                } else {
                    m.model.name.clone()
                }
            },
        )
    }

    /// Dataset kind.
    pub fn kind(&self) -> String {
        self.manifest
            .as_ref()
            .map_or_else(|| "?".into(), |m| m.dataset.kind.clone())
    }

    /// Run status (an unreadable manifest reads `unreadable`).
    pub fn status(&self) -> crate::record::RunStatus {
        self.manifest.as_ref().map_or_else(
            || crate::record::RunStatus::Other("unreadable".into()),
            |m| m.status.clone(),
        )
    }

    /// The row's text: φ₀, ψ and φ₁ joined by [`SEP`].
    pub fn text(&self, row: &Row) -> std::borrow::Cow<'_, str> {
        self.texts.get(row.text)
    }

    /// Each row's text index, shared with search workers (rebuilt when rows change).
    pub(crate) fn text_index(&self) -> std::sync::Arc<[u32]> {
        let mut cache = self
            .text_index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.0 != self.generation || cache.1.len() != self.rows.len() {
            *cache = (
                self.generation,
                self.rows
                    .iter()
                    .map(|r| r.text)
                    .collect::<Vec<u32>>()
                    .into(),
            );
        }
        cache.1.clone()
    }

    /// The row's φ₀.
    pub fn phi0(&self, row: &Row) -> String {
        crate::run::rows::phi0_of(&self.text(row)).to_string()
    }

    /// Share of rows whose verdict is `equivalent`; for a reference-task run, its A3 by
    /// the task's rule (model errors left out; none for `folio-i`).
    pub fn accuracy(&self) -> Option<f64> {
        if let Some(task) = self
            .manifest
            .as_ref()
            .and_then(crate::run::task::scoring_of)
        {
            let mut c = crate::report::Counts::default();
            for r in &self.rows {
                c.add_task_kind(r.verdict, task);
            }
            return c.accuracy();
        }
        (!self.rows.is_empty()).then(|| {
            self.rows.iter().filter(|r| r.verdict.is_pass()).count() as f64 / self.rows.len() as f64
        })
    }

    /// Opens a run directory; problems become warnings, never errors.
    pub fn open(dir: &Path) -> RunIndex {
        let mut run = RunIndex {
            dir: dir.to_path_buf(),
            manifest: None,
            rows: Vec::new(),
            texts: TextStore::default(),
            consumed: 0,
            lines: 0,
            labels: HashMap::new(),
            label_history: HashMap::new(),
            judge: HashMap::new(),
            judge_by_model: HashMap::new(),
            manifest_mtime: None,
            warnings: Vec::new(),
            cost: None,
            generation: next_generation(),
            base_generation: next_generation(),
            text_index: std::sync::Mutex::new((0, std::sync::Arc::from(Vec::new()))),
            ids: None,
            seen_running: None,
            kinds_pending: (0, 0),
            kinds_asked: false,
        };
        run.manifest_mtime = manifest_mtime(dir);
        match store::read_manifest(dir) {
            Ok(m) => run.manifest = Some(safe_manifest(shown(dir, m))),
            Err(e) => run.warnings.push(e.to_string()),
        }
        // The row index cache makes a re-open a read instead of a parse.
        let scan = crate::run::index::load_or_build(dir, true);
        run.consumed = scan.consumed;
        run.lines = scan.lines;
        run.warnings.extend(scan.warnings);
        run.add_cost(scan.extras.iter().filter_map(|e| e.cost));
        if let Ok(Some(l)) = crate::run::spend::read(dir) {
            run.cost = Some(run.cost.map_or(l.usd, |c| c.max(l.usd)));
        }
        // Finished samples arrive in completion order; show them by index. Samples
        // appended later (a live run) go at the end, newest last. A retried sample has
        // several lines; the latest is its record.
        let order = crate::run::rows::latest_per_id(&scan.rows);
        // Texts keep file order: a row's `text` already points at its own.
        run.texts = TextStore::with_file(scan.text_file);
        for t in scan.texts {
            run.texts.push(t);
        }
        let mut rows: Vec<Option<Row>> = scan.rows.into_iter().map(Some).collect();
        run.rows = order.into_iter().filter_map(|i| rows[i].take()).collect();
        let mut left = run.rows.iter().filter(|r| is_pending(r.fails)).count();
        // A few samples are proved at once (well under a second; the run opens whole);
        // more are left to the kinds worker, so the rows are listed first.
        if left > 0 && left <= INLINE_KINDS {
            crate::run::kinds_cache::complete(dir, &mut run.rows, |_, _| {});
            left = run.rows.iter().filter(|r| is_pending(r.fails)).count();
        }
        run.kinds_pending = (left, left);
        run.reload_labels();
        run.reload_judge();
        run.note_running();
        run
    }

    /// Starts the ETA clock the first time the run is seen running.
    fn note_running(&mut self) {
        let running = self.manifest.as_ref().is_some_and(|m| m.status.is_live());
        if !running {
            self.seen_running = None;
        } else if self.seen_running.is_none() {
            self.seen_running = Some((std::time::Instant::now(), self.rows.len()));
        }
    }

    /// What identifies the run's dataset: the generator's kind, seed and parameters, or
    /// the file's kind, syntax and item count (runs are only paired when these match:
    /// equal φ₀ texts from different datasets are a coincidence, not a pairing).
    pub fn dataset_key(&self) -> Option<String> {
        Some(self.manifest.as_ref()?.dataset.key())
    }

    /// How many samples the run will have: the dataset's items, capped by the `--limit`
    /// its recorded command gives.
    pub fn total(&self) -> Option<usize> {
        let m = self.manifest.as_ref()?;
        let limit = m
            .command
            .iter()
            .position(|a| a == "--limit")
            .and_then(|i| m.command.get(i + 1))
            .and_then(|v| v.parse::<usize>().ok());
        Some(limit.map_or(m.dataset.items, |l| l.min(m.dataset.items)))
    }

    /// For a run that is running: samples done of the total and, once it has moved
    /// while the viewer watched, the estimated time left (`12/30 · ETA 1m05s`).
    pub fn progress(&self) -> Option<String> {
        let (since, at) = self.seen_running?;
        let total = self.total()?;
        let done = self.rows.len();
        let mut text = format!("{done}/{total}");
        let secs = since.elapsed().as_secs_f64();
        if done > at && total > done && secs > 0.0 {
            let left = (total - done) as f64 * secs / (done - at) as f64;
            text.push_str(&format!(
                " · ETA {:.0}m{:02.0}s",
                (left / 60.0).floor(),
                left % 60.0
            ));
        }
        Some(text)
    }

    /// Re-reads `run.json` when it changed on disk (a run that finished, paused or was
    /// cancelled, here or in another process); returns whether it did.
    pub(crate) fn refresh_manifest(&mut self) -> bool {
        let now = manifest_mtime(&self.dir);
        if now == self.manifest_mtime {
            // A killed process leaves `running` unchanged on disk: look at its lock.
            if let Some(m) = self.manifest.as_mut().filter(|m| m.status.is_live())
                && !crate::run::liveness::lock_held(&self.dir)
            {
                m.status = crate::record::RunStatus::Interrupted;
                self.note_running();
                return true;
            }
            return false;
        }
        self.manifest_mtime = now;
        match store::read_manifest(&self.dir) {
            Ok(m) => {
                self.manifest = Some(safe_manifest(shown(&self.dir, m)));
                self.note_running();
                true
            }
            // A manifest being replaced is read again at the next look.
            Err(_) => false,
        }
    }

    /// Reads `judge.jsonl` (newest decision per sample wins).
    pub(crate) fn reload_judge(&mut self) {
        match store::read_jsonl::<crate::record::JudgeRecord>(&self.dir.join(store::JUDGE)) {
            Ok(j) => {
                let mut map = HashMap::new();
                let mut by_model = HashMap::new();
                for mut rec in j.records {
                    by_model.insert((rec.model.name.clone(), rec.id.clone()), rec.answer);
                    // Judge explanations come from a model: make them safe to draw once.
                    if let Some(t) = rec.call.output.as_mut() {
                        *t = crate::base::sanitize::for_terminal(t).into_owned();
                    }
                    rec.model.name = crate::base::sanitize::one_line(&rec.model.name).into_owned();
                    map.insert(rec.id.clone(), rec);
                }
                self.judge = map;
                self.judge_by_model = by_model;
                self.warnings.extend(j.warnings);
            }
            Err(e) => self.warnings.push(e.to_string()),
        }
    }

    /// Reads lines appended since the last read; returns how many lines were read (a
    /// retried sample's line replaces its row).
    /// A file that shrank (rewritten) is read again from the start.
    pub fn refresh(&mut self) -> usize {
        let mut scan = Scan {
            consumed: self.consumed,
            lines: self.lines,
            ..Scan::default()
        };
        let added = scan.extend_from(&self.dir.join(store::SAMPLES), true);
        if scan.restarted {
            self.cost = None;
        }
        let spent: Vec<f64> = scan.extras.iter().filter_map(|e| e.cost).collect();
        self.add_cost(spent.into_iter());
        if scan.restarted {
            self.rows.clear();
            self.texts = TextStore::default();
            self.ids = None;
            self.base_generation = next_generation();
        }
        self.consumed = scan.consumed;
        self.lines = scan.lines;
        for w in scan.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
        let texts = std::mem::take(&mut scan.texts);
        let rows = &self.rows;
        let ids = self.ids.get_or_insert_with(|| {
            rows.iter()
                .enumerate()
                .map(|(i, r)| (r.id.clone(), i as u32))
                .collect()
        });
        let mut replaced = false;
        for (mut row, text) in scan.rows.into_iter().zip(texts) {
            row.text = self.texts.push(text);
            // The latest line of a sample is its record (a retry appends a new one),
            // as in `report`: it takes the old row's place.
            if let Some(&i) = ids.get(&row.id)
                && let Some(old) = self.rows.get_mut(i as usize)
            {
                *old = row;
                replaced = true;
            } else {
                ids.insert(row.id.clone(), self.rows.len() as u32);
                self.rows.push(row);
            }
        }
        if replaced {
            // Not an append: lists and aggregates drawn from the rows start over.
            self.base_generation = next_generation();
        }
        if added > 0 || scan.restarted {
            self.generation = next_generation();
            // Appended not-equivalent samples join the kinds pass.
            let left = self.rows.iter().filter(|r| is_pending(r.fails)).count();
            if left > self.kinds_pending.1 {
                self.kinds_pending = (self.kinds_pending.0.max(left), left);
                self.kinds_asked = false;
            }
        }
        added
    }

    /// Sets the kinds the kinds pass proved (by key); returns whether any row changed.
    pub fn take_kinds(&mut self, proved: &HashMap<u64, u32>) -> bool {
        let mut changed = false;
        for r in self.rows.iter_mut().filter(|r| is_pending(r.fails)) {
            if let Some(&m) = proved.get(&r.kinds_key) {
                r.fails = m;
                changed = true;
                self.kinds_pending.1 = self.kinds_pending.1.saturating_sub(1);
            }
        }
        changed
    }

    /// Share of the rows pending at open whose kinds are proved now, in percent (None
    /// when none are pending).
    pub fn kinds_percent(&self) -> Option<usize> {
        let (total, left) = self.kinds_pending;
        (left > 0).then(|| (total - left.min(total)) * 100 / total.max(1))
    }

    /// Adds priced calls to the run's cost (non-finite or negative prices are a bad
    /// file's, not spend: left out).
    fn add_cost(&mut self, costs: impl Iterator<Item = f64>) {
        for c in costs.filter(|c| c.is_finite() && *c >= 0.0) {
            self.cost = Some(self.cost.unwrap_or(0.0) + c);
        }
    }

    /// When the run was made, as the catalogue shows it (`2026-11-26 21:48`).
    pub fn created(&self) -> String {
        self.manifest.as_ref().map_or_else(String::new, |m| {
            let c = m.created.replace('T', " ");
            c.chars().take(16).collect()
        })
    }

    /// The prompt set (`built-in`, or its folder's name) and its shots.
    pub fn prompts(&self) -> Option<(String, usize)> {
        self.manifest.as_ref().map(|m| {
            let src = &m.prompts.source;
            let name = std::path::Path::new(src)
                .file_name()
                .map_or_else(|| src.clone(), |f| f.to_string_lossy().into_owned());
            (name, m.prompts.shots)
        })
    }

    /// Re-reads `labels.jsonl`.
    pub(crate) fn reload_labels(&mut self) {
        match store::read_labels(&self.dir) {
            Ok(l) => {
                let mut history: HashMap<String, Vec<LabelRecord>> = HashMap::new();
                for rec in &l.records {
                    history.entry(rec.id.clone()).or_default().push(rec.clone());
                }
                let mut map: HashMap<String, Vec<LabelRecord>> = HashMap::new();
                // The label in force per annotator, as every command folds it.
                for ((id, _), rec) in crate::labels::state::latest(&l.records) {
                    map.entry(id).or_default().push(rec);
                }
                self.labels = map;
                self.label_history = history;
                self.warnings.extend(l.warnings);
            }
            Err(e) => self.warnings.push(e.to_string()),
        }
    }

    /// The row's line of `samples.jsonl`, exactly as stored (for exports).
    pub(crate) fn raw_line(&self, row: &Row) -> Result<Vec<u8>, RecordError> {
        let path = self.dir.join(store::SAMPLES);
        let io = |e| RecordError::Io(path.display().to_string(), e);
        let mut f = std::fs::File::open(&path).map_err(io)?;
        f.seek(SeekFrom::Start(row.offset)).map_err(io)?;
        let mut buf = vec![0; row.len as usize];
        f.read_exact(&mut buf).map_err(io)?;
        Ok(buf)
    }

    /// Reads the full record of a row from disk.
    pub fn record(&self, row: &Row) -> Result<SampleRecord, RecordError> {
        let path = self.dir.join(store::SAMPLES);
        let buf = self.raw_line(row)?;
        let bad = |e| RecordError::Json {
            path: path.display().to_string(),
            id: row.id.to_string(),
            source: e,
        };
        let mut v: serde_json::Value = serde_json::from_slice(&buf).map_err(bad)?;
        crate::base::sanitize::json_for_terminal(&mut v);
        serde_json::from_value(v).map_err(bad)
    }
}

/// A sample's record that could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading `samples.jsonl` (moved, truncated, unreadable).
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// The line no longer holds the record (the file was rewritten meanwhile).
    #[error("{path}: sample {id}: {source}")]
    Json {
        /// The samples file.
        path: String,
        /// The sample's id.
        id: String,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
}

fn manifest_mtime(dir: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(dir.join(store::MANIFEST))
        .and_then(|m| m.modified())
        .ok()
}

/// Finds run directories under `path` (itself, or its immediate subdirectories).
pub(crate) fn discover(path: &Path) -> Vec<PathBuf> {
    store::discover_runs(path).0
}
