//! Rescoring: the copy check, extraction, parsing and verification re-applied to the
//! model replies stored in a run, with no model calls.
//!
//! Every sample is scored again round by round from its stored ψ and raw
//! autoformalization reply, exactly as the pipeline scores fresh replies. A sample
//! whose new score needs a reply that was never asked for (ψ is no longer a copy, so
//! the autoformalization was never called; or a round now passes and the run wanted
//! another) is left out of the new `samples.jsonl` and counted, so that
//! `autoeval run --resume` on the new directory asks the model for exactly those.

use super::store::{self, BoundedLines, SAMPLES};
use crate::analysis::counts::Counts;
use crate::prompt::PromptSet;
use crate::record::{Manifest, SampleRecord, now_rfc3339};
use crate::syntax::Reading;
use crate::verify::{self, VerdictKind};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

/// Longest sample line rescoring reads (longer lines are reported and kept out): the
/// limit of every reader of run files.
pub const MAX_LINE: usize = store::MAX_RECORD as usize;

pub(crate) use super::rescore_sample::{Prompts, rescore_with};
pub use super::rescore_sample::{Rescored, rescore_sample};

/// Where and how to rescore.
#[derive(Clone, Debug)]
pub struct RescoreOptions {
    /// The run to read.
    pub run: PathBuf,
    /// Where to write: a new directory, or the run itself (`in_place`).
    pub out: PathBuf,
    /// Replace the run's `samples.jsonl`, keeping the old one as a backup.
    pub in_place: bool,
    /// Verifier settings.
    pub verify: verify::Options,
    /// Reading convention for the replies (None: the one the run recorded).
    pub reading: Option<Reading>,
    /// Adds `bertscore_minilm` to every closeness record (None: a stored value is kept
    /// where φ₀ and φ₁ are unchanged, and none is computed).
    pub bertscore: Option<super::bertscore::Bertscore>,
    /// Its length is set to the samples to rescore; advanced as each chunk is done
    /// (hidden: no bar).
    pub progress: indicatif::ProgressBar,
}

/// What changed.
#[derive(Debug, Default)]
pub struct RescoreSummary {
    /// Samples read (latest line per id).
    pub samples: usize,
    /// (old kind, new kind) → samples.
    pub changes: BTreeMap<(VerdictKind, VerdictKind), usize>,
    /// Counts before.
    pub before: Counts,
    /// Counts after (samples written).
    pub after: Counts,
    /// Samples left out because they need model calls: (id, why).
    pub needs_calls: Vec<(String, String)>,
    /// Lines that could not be read.
    pub warnings: Vec<String>,
    /// The old file, when rescored in place.
    pub backup: Option<PathBuf>,
}

impl RescoreSummary {
    /// Samples whose verdict kind changed.
    pub fn changed(&self) -> usize {
        self.changes
            .iter()
            .filter(|((a, b), _)| a != b)
            .map(|(_, n)| n)
            .sum()
    }
}

/// The prompts a run was made with: its prompt set when it can be rebuilt, the
/// original's prompts that `import` kept, or nothing.
enum PromptsOwned {
    Set(PromptSet),
    Stored(HashMap<String, String>),
    Unknown,
}

impl PromptsOwned {
    fn of(m: &Manifest, run: &Path) -> PromptsOwned {
        let set = match m.prompts.source.as_str() {
            "built-in" => PromptSet::builtin(m.prompts.shots).ok(),
            "original" => {
                return super::store::stored_prompts(run)
                    .map_or(PromptsOwned::Unknown, PromptsOwned::Stored);
            }
            dir => PromptSet::load(Path::new(dir), m.prompts.shots).ok(),
        };
        set.map_or(PromptsOwned::Unknown, PromptsOwned::Set)
    }

    fn borrow(&self) -> Prompts<'_> {
        match self {
            PromptsOwned::Set(p) => Prompts::Set(p),
            PromptsOwned::Stored(m) => Prompts::Stored(m),
            PromptsOwned::Unknown => Prompts::Unknown,
        }
    }
}

/// The sample id of a line: a fast read of the `{"id":"…"` our writer puts first,
/// else a JSON parse of just the id.
fn line_id(line: &str) -> Option<String> {
    if let Some(rest) = line.strip_prefix("{\"id\":\"")
        && let Some(end) = rest.find(['"', '\\'])
        && rest.as_bytes().get(end) == Some(&b'"')
    {
        return Some(rest[..end].to_string());
    }
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: String,
    }
    serde_json::from_str::<IdOnly>(line).ok().map(|x| x.id)
}

/// Line numbers holding the latest record of each id (latest wins).
fn latest_lines(path: &Path) -> std::io::Result<HashMap<String, usize>> {
    let f = crate::base::fsread::open(path, crate::base::fsread::STREAM)?;
    let mut lines = BoundedLines::new(BufReader::with_capacity(1 << 20, f), MAX_LINE);
    let mut out = HashMap::new();
    let mut n = 0usize;
    while let Some(line) = lines.next_line()? {
        n += 1;
        if let Ok(l) = line
            && let Some(id) = line_id(&l)
        {
            out.insert(id, n);
        }
    }
    Ok(out)
}

/// One line's outcome, computed on a worker.
enum LineResult {
    /// Not the latest line of its id, or blank.
    Skip,
    /// Unreadable.
    Bad(String),
    /// Rescored: old kind, and the new record, or why it needs calls.
    Done(String, VerdictKind, Result<Box<SampleRecord>, String>),
}

fn rescore_line(
    n: usize,
    text: &str,
    latest: &HashMap<String, usize>,
    prompts: &Prompts<'_>,
    rounds: usize,
    opts: &verify::Options,
    reading: Reading,
) -> LineResult {
    if text.trim().is_empty() {
        return LineResult::Skip;
    }
    if let Some(id) = line_id(text)
        && latest.get(&id) != Some(&n)
    {
        return LineResult::Skip;
    }
    let rec = match serde_json::from_str::<SampleRecord>(text) {
        Ok(r) => r,
        Err(e) => return LineResult::Bad(format!("skipped: {e}")),
    };
    let old = rec.verdict.kind();
    let new = match rescore_with(&rec, prompts, rounds, opts, reading) {
        Rescored::Scored(mut r) => {
            keep_bertscore(&rec, &mut r);
            Ok(r)
        }
        Rescored::NeedsCalls(why) => Err(why),
    };
    LineResult::Done(rec.id, old, new)
}

/// Keeps the old record's `bertscore_minilm` (computed only when asked, with a model)
/// when the new record compares the same φ₀ and φ₁; a later `--bertscore-model`
/// replaces it.
fn keep_bertscore(old: &SampleRecord, new: &mut SampleRecord) {
    let first = |r: &SampleRecord| r.rounds.iter().find_map(|x| x.phi1.clone());
    let Some(v) = old.closeness.and_then(|c| c.bertscore_minilm) else {
        return;
    };
    if old.phi0 == new.phi0
        && first(old) == first(new)
        && let Some(c) = new.closeness.as_mut()
    {
        c.bertscore_minilm = Some(v);
    }
}

/// Why a rescore could not be done.
#[derive(Debug, thiserror::Error)]
pub enum RescoreError {
    /// Reading the manifest, writing it, or taking the run's lock.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The run's manifest says it is still being written.
    #[error("{0} is marked running: wait for it to finish (or stop it) before rescoring")]
    Running(String),
    /// bertscore-minilm failed on a batch (nothing was replaced).
    #[error("bertscore-minilm: {0}")]
    Bertscore(String),
    /// The output directory already holds a run.
    #[error("{0} already holds a run; choose another --out or use --in-place")]
    OutExists(String),
    /// Reading or writing a file.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> RescoreError + '_ {
    move |e| RescoreError::Io(path.display().to_string(), e)
}

/// Rescores a run into `opts.out` (or in place) and says what changed.
pub fn rescore(opts: &RescoreOptions) -> Result<RescoreSummary, RescoreError> {
    let manifest = store::read_manifest(&opts.run)?;
    store::check_samples_present(&opts.run, &manifest)?;
    let _lock = lock_for(opts, &manifest)?;
    let src = opts.run.join(SAMPLES);
    let latest = latest_lines(&src).map_err(io_at(&src))?;
    opts.progress.set_length(latest.len() as u64);
    if !opts.in_place {
        if opts.out.join(store::MANIFEST).exists() {
            return Err(RescoreError::OutExists(opts.out.display().to_string()));
        }
        std::fs::create_dir_all(&opts.out).map_err(io_at(&opts.out))?;
    }
    let tmp = opts.out.join(".samples.jsonl.rescore");
    let file = crate::base::fswrite::room::create(&tmp).map_err(io_at(&tmp))?;
    // Removed if the rescore is interrupted (Ctrl-C) or fails; renamed into place else.
    super::scratch::register(&tmp);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let prompts = PromptsOwned::of(&manifest, &opts.run);
    let work = Work {
        latest: &latest,
        prompts: &prompts.borrow(),
        rounds: manifest.rounds,
        verify: &opts.verify,
        reading: opts.reading.unwrap_or_else(|| manifest.reading()),
    };
    let mut summary = RescoreSummary::default();
    let f = crate::base::fsread::open(&src, crate::base::fsread::STREAM).map_err(io_at(&src))?;
    let mut lines = BoundedLines::new(BufReader::with_capacity(1 << 20, f), MAX_LINE);
    let mut n = 0usize;
    loop {
        let chunk = read_chunk(&mut lines, &mut n, &src, &mut summary)?;
        if chunk.is_empty() {
            break;
        }
        let mut results = work.score_chunk(&chunk);
        if let Some(b) = &opts.bertscore {
            let mut recs: Vec<&mut SampleRecord> = results
                .iter_mut()
                .filter_map(|r| match r {
                    LineResult::Done(_, _, Ok(rec)) => Some(&mut **rec),
                    _ => None,
                })
                .collect();
            super::bertscore::fill(b.0.as_ref(), &mut recs).map_err(|e| {
                // Nothing replaced yet: the partial new file goes.
                let _ = std::fs::remove_file(&tmp);
                RescoreError::Bertscore(e)
            })?;
        }
        opts.progress.inc(chunk.len() as u64);
        write_results(&chunk, results, &src, &tmp, &mut w, &mut summary)?;
    }
    w.flush().map_err(io_at(&tmp))?;
    // On disk before it replaces anything: a crash after the rename finds it whole.
    w.get_ref().sync_all().map_err(io_at(&tmp))?;
    drop(w);
    finish(opts, manifest, &tmp, &mut summary)?;
    Ok(summary)
}

/// The run's lock when rescoring writes the run or the run says it is running.
/// Rewriting a run in place is writing it: take the run's lock like a run does. A
/// manifest that says `running` is believed only while a process holds the lock: a
/// writer killed or stopped by a full disk leaves `running` behind, not the lock.
fn lock_for(
    opts: &RescoreOptions,
    manifest: &Manifest,
) -> Result<Option<store::RunLock>, RescoreError> {
    let running = manifest.status.is_live();
    if !(opts.in_place || running) {
        return Ok(None);
    }
    match store::RunLock::acquire(&opts.run) {
        Ok(l) => Ok(Some(l)),
        Err(_) if running => Err(RescoreError::Running(opts.run.display().to_string())),
        Err(e) => Err(e.into()),
    }
}

/// The next [`CHUNK`] lines (numbered from `n`); over-long ones become warnings.
fn read_chunk<R: std::io::BufRead>(
    lines: &mut BoundedLines<R>,
    n: &mut usize,
    src: &Path,
    summary: &mut RescoreSummary,
) -> Result<Vec<(usize, String)>, RescoreError> {
    let mut chunk: Vec<(usize, String)> = Vec::with_capacity(CHUNK);
    while chunk.len() < CHUNK {
        let Some(line) = lines.next_line().map_err(io_at(src))? else {
            break;
        };
        *n += 1;
        match line {
            Ok(t) => chunk.push((*n, t)),
            Err(len) => summary.warnings.push(format!(
                "{}:{n}: line of {len} bytes skipped (limit {MAX_LINE})",
                src.display()
            )),
        }
    }
    Ok(chunk)
}

/// What every line is rescored with.
struct Work<'a> {
    latest: &'a HashMap<String, usize>,
    prompts: &'a Prompts<'a>,
    rounds: usize,
    verify: &'a verify::Options,
    reading: Reading,
}

impl Work<'_> {
    /// Rescores a chunk of lines on all cores, results in line order.
    fn score_chunk(&self, chunk: &[(usize, String)]) -> Vec<LineResult> {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let per = chunk.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .chunks(per)
                .map(|part| {
                    let h = s.spawn(move || {
                        part.iter()
                            .map(|(n, t)| {
                                rescore_line(
                                    *n,
                                    t,
                                    self.latest,
                                    self.prompts,
                                    self.rounds,
                                    self.verify,
                                    self.reading,
                                )
                            })
                            .collect::<Vec<_>>()
                    });
                    (part.len(), h)
                })
                .collect();
            // A crashed worker costs its lines, never the alignment of the rest.
            handles
                .into_iter()
                .flat_map(|(len, h)| {
                    h.join().unwrap_or_else(|_| {
                        (0..len)
                            .map(|_| LineResult::Bad("rescoring crashed on this line".into()))
                            .collect()
                    })
                })
                .collect()
        })
    }
}

/// Writes a chunk's new records to `w` and counts them (before, after, changes, left
/// for resume, warnings) in `summary`.
fn write_results(
    chunk: &[(usize, String)],
    results: Vec<LineResult>,
    src: &Path,
    tmp: &Path,
    w: &mut impl Write,
    summary: &mut RescoreSummary,
) -> Result<(), RescoreError> {
    for ((n, _), r) in chunk.iter().zip(results) {
        match r {
            LineResult::Skip => {}
            LineResult::Bad(why) => summary
                .warnings
                .push(format!("{}:{n}: {why}", src.display())),
            LineResult::Done(id, old, new) => {
                summary.samples += 1;
                summary.before.add_kind(old);
                let new = new.and_then(|r| {
                    serde_json::to_string(&r)
                        .map(|line| (r.verdict.kind(), line))
                        .map_err(|e| e.to_string())
                });
                match new {
                    Ok((kind, line)) => {
                        summary.after.add_kind(kind);
                        *summary.changes.entry((old, kind)).or_default() += 1;
                        w.write_all(line.as_bytes())
                            .and_then(|()| w.write_all(b"\n"))
                            .map_err(io_at(tmp))?;
                    }
                    Err(why) => summary.needs_calls.push((id, why)),
                }
            }
        }
    }
    Ok(())
}

/// Keeps the old samples file under `backup` while it stays in place: a second name
/// (hard link), or a copy where links are not supported. Never a rename, which would
/// leave the run without `samples.jsonl` until the new file is moved in.
fn keep_backup(dst: &Path, backup: &Path) -> Result<(), RescoreError> {
    if std::fs::hard_link(dst, backup).is_ok() {
        return Ok(());
    }
    let copied = crate::base::fswrite::room::copy(dst, backup)
        .and_then(|_| std::fs::File::open(backup))
        .and_then(|f| f.sync_all());
    copied.map_err(|e| {
        let _ = std::fs::remove_file(backup);
        RescoreError::Io(backup.display().to_string(), e)
    })
}

/// Lines rescored in parallel at a time; bounds memory on any run size.
const CHUNK: usize = 4096;

fn finish(
    opts: &RescoreOptions,
    mut manifest: Manifest,
    tmp: &Path,
    summary: &mut RescoreSummary,
) -> Result<(), RescoreError> {
    let dst = opts.out.join(SAMPLES);
    if opts.in_place {
        let stamp = now_rfc3339().replace(':', "");
        let backup = opts.run.join(format!("samples.jsonl.bak-{stamp}"));
        keep_backup(&dst, &backup)?;
        summary.backup = Some(backup);
    } else {
        for name in [
            store::JUDGE,
            store::LABELS,
            "dataset.json",
            store::ORIGINAL_PROMPTS,
        ] {
            let from = opts.run.join(name);
            if from.exists() {
                let to = opts.out.join(name);
                crate::base::fswrite::room::copy(&from, &to).map_err(io_at(&to))?;
            }
        }
        manifest.id = opts
            .out
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or(manifest.id);
        // A dataset generated into the old run now lives beside the new one.
        if manifest
            .dataset
            .path
            .as_deref()
            .is_some_and(|p| Path::new(p) == opts.run.join("dataset.json"))
        {
            manifest.dataset.path = Some(opts.out.join("dataset.json").display().to_string());
        }
    }
    // One rename replaces the old file with the new: at every instant samples.jsonl
    // is one of the two, whole.
    crate::base::fswrite::room::commit(tmp, &dst).map_err(io_at(&dst))?;
    super::scratch::unregister(tmp);
    if let Ok(d) = std::fs::File::open(&opts.out) {
        let _ = d.sync_all();
    }
    manifest.extra.insert(
        "rescored".into(),
        serde_json::json!({
            "from": opts.run.display().to_string(),
            "time": now_rfc3339(),
            "tool_version": format!("autoeval {}", env!("CARGO_PKG_VERSION")),
            "changed": summary.changed(),
            "left_for_resume": summary.needs_calls.len(),
        }),
    );
    // A run left `running` by a writer that is gone, or with samples still to ask
    // for, is one `--resume` continues.
    if !summary.needs_calls.is_empty() || manifest.status.is_live() {
        manifest.status = crate::record::RunStatus::Cancelled;
    }
    let reading = opts.reading.unwrap_or_else(|| manifest.reading());
    manifest.set_reading(reading);
    manifest.updated = Some(now_rfc3339());
    Ok(store::write_manifest(&opts.out, &manifest)?)
}
