//! What the viewer keeps of a run: a compact row per sample (offset into
//! `samples.jsonl`, verdict, category, searchable text). Full records are read
//! from disk only for the sample on screen, so a 100,000-sample run stays small.

use crate::run::format::{LabelRecord, Manifest, SampleRecord};
use crate::run::store;
use crate::verify::VerdictKind;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Longest sample line the viewer reads (longer lines are skipped with a warning).
pub const MAX_LINE: u64 = 16 << 20;

/// Field separator inside [`Row::text`].
pub const SEP: char = '\u{1f}';

/// One sample as the lists need it.
#[derive(Clone, Debug)]
pub struct Row {
    /// Byte offset of the line in `samples.jsonl`.
    pub offset: u64,
    /// Line length without the newline.
    pub len: u32,
    /// Sample id.
    pub id: Box<str>,
    /// The final verdict's kind.
    pub verdict: VerdictKind,
    /// Automatic failure kinds (a [`crate::report::kinds::mask`]).
    pub fails: u32,
    /// Dataset batch (0 when the dataset has one).
    pub batch: u16,
    /// BLEU of φ₁ against φ₀ in percent (None when φ₁ did not parse).
    pub bleu: Option<u8>,
    /// Operator count.
    pub ops: Option<u16>,
    /// Generation depth.
    pub depth: Option<u16>,
    /// φ₀, ψ and φ₁ joined by [`SEP`] (what search looks at).
    pub text: Box<str>,
}

impl Row {
    /// φ₀.
    pub fn phi0(&self) -> &str {
        self.text.split(SEP).next().unwrap_or("")
    }
    /// The verdict's name.
    pub fn verdict_name(&self) -> &'static str {
        self.verdict.name()
    }

    /// The final verdict's kind.
    pub fn kind(&self) -> VerdictKind {
        self.verdict
    }
}

#[derive(Deserialize)]
struct LightVerdict<'a> {
    #[serde(borrow)]
    verdict: Cow<'a, str>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LightRound<'a> {
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    psi: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    phi1: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LightCloseness {
    bleu: f64,
}

#[derive(Deserialize)]
struct LightSample<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default)]
    num_operators: Option<usize>,
    #[serde(default)]
    depth: Option<usize>,
    #[serde(default)]
    batch: Option<usize>,
    #[serde(default)]
    closeness: Option<LightCloseness>,
    #[serde(borrow)]
    phi0: Cow<'a, str>,
    #[serde(default)]
    syntax: Option<crate::syntax::SyntaxKind>,
    #[serde(borrow)]
    verdict: LightVerdict<'a>,
    #[serde(borrow, default)]
    rounds: Vec<LightRound<'a>>,
}

fn verdict_kind(name: &str) -> VerdictKind {
    VerdictKind::from_name(name).unwrap_or(VerdictKind::Unknown)
}

/// The manifest with every string made safe to draw (run names, model names, paths).
fn safe_manifest(m: Manifest) -> Manifest {
    let Ok(mut v) = serde_json::to_value(&m) else {
        return m;
    };
    crate::sanitize::json_for_terminal(&mut v);
    serde_json::from_value(v).unwrap_or(m)
}

/// Parses one complete line into a row (None for blank lines), or a warning.
fn parse_row(line: &[u8], offset: u64, path: &Path, lineno: usize) -> Result<Option<Row>, String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let s = serde_json::from_slice::<LightSample>(line)
        .map_err(|e| format!("{}:{lineno}: skipped: {e}", path.display()))?;
    let r1 = s.rounds.first();
    // Text from files reaches the screen: bidi overrides, zero-width and control
    // characters are shown as `\u{…}`, never obeyed.
    let safe = crate::sanitize::for_terminal;
    let psi = safe(r1.and_then(|r| r.psi.as_deref()).unwrap_or(""));
    let phi1 = safe(r1.and_then(|r| r.phi1.as_deref()).unwrap_or(""));
    let verdict = verdict_kind(&s.verdict.verdict);
    let deciding = s.rounds.iter().rev().find(|r| r.phi1.is_some());
    let fails = match s.syntax {
        Some(syntax) => crate::report::kinds::mask(&crate::report::kinds::classify_parts(
            verdict,
            s.verdict.reason.as_deref(),
            syntax,
            deciding.and_then(|r| r.input.as_deref()),
            deciding.and_then(|r| r.phi1.as_deref()),
        )),
        None => 0,
    };
    Ok(Some(Row {
        offset,
        len: line.len() as u32,
        id: crate::sanitize::one_line(&s.id).as_ref().into(),
        verdict,
        fails,
        batch: s.batch.unwrap_or(0).min(u16::MAX as usize) as u16,
        bleu: s
            .closeness
            .map(|c| (c.bleu.clamp(0.0, 1.0) * 100.0).round() as u8),
        ops: s.num_operators.map(|v| v.min(u16::MAX as usize) as u16),
        depth: s.depth.map(|v| v.min(u16::MAX as usize) as u16),
        text: format!("{}{SEP}{psi}{SEP}{phi1}", safe(&s.phi0)).into(),
    }))
}

/// A run as the viewer holds it.
#[derive(Debug)]
pub struct RunIndex {
    /// Directory.
    pub dir: PathBuf,
    /// Manifest, if readable.
    pub manifest: Option<Manifest>,
    /// Rows in file order.
    pub rows: Vec<Row>,
    /// Bytes of `samples.jsonl` consumed (complete lines); following resumes here.
    pub consumed: u64,
    /// Complete lines read (for line numbers in warnings).
    pub lines: usize,
    /// Latest labels per sample id (newest per annotator merged).
    pub labels: HashMap<String, Vec<LabelRecord>>,
    /// When `run.json` was last read (its modification time), to notice status changes.
    pub manifest_mtime: Option<std::time::SystemTime>,
    /// The newest judge decision per sample id (`judge.jsonl`).
    pub judge: HashMap<String, crate::run::format::JudgeRecord>,
    /// Problems found while loading.
    pub warnings: Vec<String>,
}

impl RunIndex {
    /// Short name for lists.
    pub fn name(&self) -> String {
        self.manifest
            .as_ref()
            .map(|m| m.id.clone())
            .unwrap_or_else(|| {
                self.dir
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
    }

    /// `provider:model`.
    pub fn model(&self) -> String {
        self.manifest
            .as_ref()
            .map(|m| {
                if m.model.synthetic {
                    format!("{} (synthetic)", m.model.name)
                } else {
                    m.model.name.clone()
                }
            })
            .unwrap_or_else(|| "?".into())
    }

    /// Dataset kind.
    pub fn kind(&self) -> String {
        self.manifest
            .as_ref()
            .map(|m| m.dataset.kind.clone())
            .unwrap_or_else(|| "?".into())
    }

    /// Run status.
    pub fn status(&self) -> String {
        self.manifest
            .as_ref()
            .map(|m| m.status.clone())
            .unwrap_or_else(|| "unreadable".into())
    }

    /// Share of rows whose verdict is `equivalent`.
    pub fn accuracy(&self) -> Option<f64> {
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
            consumed: 0,
            lines: 0,
            labels: HashMap::new(),
            judge: HashMap::new(),
            manifest_mtime: None,
            warnings: Vec::new(),
        };
        run.manifest_mtime = manifest_mtime(dir);
        match store::read_manifest(dir) {
            Ok(m) => run.manifest = Some(safe_manifest(m)),
            Err(e) => run.warnings.push(e.to_string()),
        }
        run.refresh();
        // Finished samples arrive in completion order; show them by index. Samples
        // appended later (a live run) go at the end, newest last.
        run.rows.sort_by(|a, b| {
            let key = |r: &Row| (r.id.parse::<u64>().unwrap_or(u64::MAX), r.offset);
            key(a).cmp(&key(b)).then_with(|| a.id.cmp(&b.id))
        });
        // A retried sample has several lines; the latest (largest offset) is its record.
        let mut rows: Vec<Row> = Vec::with_capacity(run.rows.len());
        for r in std::mem::take(&mut run.rows) {
            match rows.last_mut() {
                Some(last) if last.id == r.id => *last = r,
                _ => rows.push(r),
            }
        }
        run.rows = rows;
        run.reload_labels();
        run.reload_judge();
        run
    }

    /// Re-reads `run.json` when it changed on disk (a run that finished, paused or was
    /// cancelled, here or in another process); returns whether it did.
    pub fn refresh_manifest(&mut self) -> bool {
        let now = manifest_mtime(&self.dir);
        if now == self.manifest_mtime {
            return false;
        }
        self.manifest_mtime = now;
        match store::read_manifest(&self.dir) {
            Ok(m) => {
                self.manifest = Some(safe_manifest(m));
                true
            }
            // A manifest being replaced is read again at the next look.
            Err(_) => false,
        }
    }

    /// Reads `judge.jsonl` (newest decision per sample wins).
    pub fn reload_judge(&mut self) {
        match store::read_jsonl::<crate::run::format::JudgeRecord>(&self.dir.join(store::JUDGE)) {
            Ok(j) => {
                let mut map = HashMap::new();
                for mut rec in j.records {
                    // Judge explanations come from a model: make them safe to draw once.
                    if let Some(t) = rec.call.output.as_mut() {
                        *t = crate::sanitize::for_terminal(t).into_owned();
                    }
                    rec.model.name = crate::sanitize::one_line(&rec.model.name).into_owned();
                    map.insert(rec.id.clone(), rec);
                }
                self.judge = map;
                self.warnings.extend(j.warnings);
            }
            Err(e) => self.warnings.push(e.to_string()),
        }
    }

    /// Reads lines appended since the last read; returns how many rows were added.
    ///
    /// The file is streamed through a small buffer: holding a large run in memory at
    /// once costs more in page faults than parsing it. A last line without its newline
    /// is a write in progress and is left for the next call.
    pub fn refresh(&mut self) -> usize {
        let path = self.dir.join(store::SAMPLES);
        // A FIFO or device named samples.jsonl would block or never end: only read files.
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                let w = format!("{} is not a regular file; skipped", path.display());
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
                return 0;
            }
            Err(_) => return 0,
        }
        let Ok(mut f) = std::fs::File::open(&path) else {
            return 0;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len < self.consumed {
            self.warnings
                .push(format!("{} shrank; reloading it", path.display()));
            self.rows.clear();
            self.consumed = 0;
            self.lines = 0;
        }
        if len == self.consumed || f.seek(SeekFrom::Start(self.consumed)).is_err() {
            return 0;
        }
        let mut reader = BufReader::with_capacity(1 << 20, f);
        let mut line = Vec::with_capacity(8192);
        let before = self.rows.len();
        loop {
            line.clear();
            let n = match (&mut reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if line.last() != Some(&b'\n') {
                if n as u64 <= MAX_LINE {
                    break;
                }
                // Longer than any sample we write: skip to its end without holding it.
                let mut skipped = n as u64;
                loop {
                    line.clear();
                    match (&mut reader).take(1 << 20).read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => return self.rows.len() - before,
                        Ok(k) => skipped += k as u64,
                    }
                    if line.last() == Some(&b'\n') {
                        break;
                    }
                }
                self.lines += 1;
                self.warnings.push(format!(
                    "{}:{}: a line of {skipped} bytes was skipped (limit {MAX_LINE})",
                    path.display(),
                    self.lines
                ));
                self.consumed += skipped;
                continue;
            }
            self.lines += 1;
            match parse_row(&line[..n - 1], self.consumed, &path, self.lines) {
                Ok(Some(row)) => self.rows.push(row),
                Ok(None) => {}
                Err(w) => self.warnings.push(w),
            }
            self.consumed += n as u64;
        }
        self.rows.len() - before
    }

    /// Re-reads `labels.jsonl`.
    pub fn reload_labels(&mut self) {
        match store::read_labels(&self.dir) {
            Ok(l) => {
                let mut map: HashMap<String, Vec<LabelRecord>> = HashMap::new();
                for rec in l.records {
                    let list = map.entry(rec.id.clone()).or_default();
                    // The newest entry per annotator wins.
                    list.retain(|x| x.annotator != rec.annotator);
                    list.push(rec);
                }
                self.labels = map;
                self.warnings.extend(l.warnings);
            }
            Err(e) => self.warnings.push(e.to_string()),
        }
    }

    /// The row's line of `samples.jsonl`, exactly as stored (for exports).
    pub fn raw_line(&self, row: &Row) -> Result<Vec<u8>, String> {
        let path = self.dir.join(store::SAMPLES);
        let mut f = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        f.seek(SeekFrom::Start(row.offset))
            .map_err(|e| e.to_string())?;
        let mut buf = vec![0; row.len as usize];
        f.read_exact(&mut buf)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(buf)
    }

    /// Reads the full record of a row from disk.
    pub fn record(&self, row: &Row) -> Result<SampleRecord, String> {
        let path = self.dir.join(store::SAMPLES);
        let buf = self.raw_line(row)?;
        let mut v: serde_json::Value = serde_json::from_slice(&buf)
            .map_err(|e| format!("{}: sample {}: {e}", path.display(), row.id))?;
        crate::sanitize::json_for_terminal(&mut v);
        serde_json::from_value(v).map_err(|e| format!("{}: sample {}: {e}", path.display(), row.id))
    }
}

fn manifest_mtime(dir: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(dir.join(store::MANIFEST))
        .and_then(|m| m.modified())
        .ok()
}

/// Finds run directories under `path` (itself, or its immediate subdirectories).
pub fn discover(path: &Path) -> Vec<PathBuf> {
    store::discover_runs(path).0
}
