//! Rescoring: the copy check, extraction, parsing and verification re-applied to the
//! model replies stored in a run, with no model calls.
//!
//! Every sample is scored again round by round from its stored ψ and raw
//! autoformalization reply, exactly as the pipeline scores fresh replies. A sample
//! whose new score needs a reply that was never asked for (ψ is no longer a copy, so
//! the autoformalization was never called; or a round now passes and the run wanted
//! another) is left out of the new `samples.jsonl` and counted, so that
//! `autoeval run --resume` on the new directory asks the model for exactly those.

use super::format::{Manifest, RoundRecord, SampleRecord, now_rfc3339};
use super::score;
use super::store::{self, BoundedLines, SAMPLES};
use crate::analysis::closeness::closeness;
use crate::prompt::PromptSet;
use crate::report::Counts;
use crate::syntax::{Expr, parse};
use crate::verify::{self, Verdict, VerdictKind};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Longest sample line rescoring reads (longer lines are reported and kept out).
pub const MAX_LINE: usize = 64 << 20;

/// What rescoring one sample gave.
pub enum Rescored {
    /// The sample with its new verdicts.
    Scored(Box<SampleRecord>),
    /// The new score needs a model reply the run never asked for.
    NeedsCalls(String),
}

fn round_start(old: &RoundRecord, input: &Expr) -> RoundRecord {
    RoundRecord {
        input: input.to_unicode(),
        phi1: None,
        phi1_span: None,
        verify_ms: 0.0,
        ..old.clone()
    }
}

/// Rescores one stored sample; `prompts` re-renders the autoformalization prompt for
/// the echo check (None: headers and vocabulary are still checked).
pub fn rescore_sample(
    rec: &SampleRecord,
    prompts: Option<&PromptSet>,
    rounds_wanted: usize,
    opts: &verify::Options,
) -> Rescored {
    let phi0 = match parse(&rec.phi0, rec.syntax) {
        Ok(p) => p,
        Err(e) => return Rescored::NeedsCalls(format!("φ₀ does not parse ({e})")),
    };
    let mut rounds = Vec::with_capacity(rec.rounds.len());
    let mut current = phi0.clone();
    let mut passed = 0;
    let mut first_phi1: Option<Expr> = None;
    for old in &rec.rounds {
        let mut r = round_start(old, &current);
        if old.informalize.error.is_some() {
            r.verdict = match &old.verdict {
                v @ Verdict::ModelError { .. } => v.clone(),
                _ => Verdict::ModelError {
                    message: "informalization failed".into(),
                },
            };
            rounds.push(r);
            break;
        }
        let psi = old.psi.clone().unwrap_or_default();
        if let Some(v) = score::copied(&psi, &current) {
            r.verdict = v;
            r.autoformalize = None;
            rounds.push(r);
            break;
        }
        let Some(call) = &old.autoformalize else {
            return Rescored::NeedsCalls(format!(
                "round {}: ψ is no longer a copy, and the autoformalization was never asked",
                old.round
            ));
        };
        if let Some(err) = &call.error {
            r.verdict = match &old.verdict {
                v @ Verdict::ModelError { .. } => v.clone(),
                _ => Verdict::ModelError {
                    message: format!("autoformalization failed: {err}"),
                },
            };
            rounds.push(r);
            break;
        }
        let raw = call.output.clone().unwrap_or_default();
        let prompt = prompts
            .map(|p| p.autoformalize(&psi, &current, rec.syntax).text)
            .unwrap_or_default();
        let phi1 = match score::extract_phi1(&raw, &current, &prompt, &psi, rec.syntax) {
            Ok(x) => {
                r.phi1_span = Some((x.start, x.end));
                x.value
            }
            Err(v) => {
                r.verdict = *v;
                rounds.push(r);
                break;
            }
        };
        r.phi1 = Some(phi1.to_unicode());
        if first_phi1.is_none() {
            first_phi1 = Some(phi1.clone());
        }
        let started = Instant::now();
        r.verdict = verify::verify(&phi0, &phi1, opts);
        r.verify_ms = started.elapsed().as_secs_f64() * 1000.0;
        let ok = r.verdict.is_equivalent();
        rounds.push(r);
        if !ok {
            break;
        }
        passed += 1;
        current = phi1;
    }
    if rounds.is_empty() {
        return Rescored::NeedsCalls("no round was recorded".into());
    }
    if passed == rounds.len() && passed < rounds_wanted.max(1) {
        return Rescored::NeedsCalls(format!(
            "round {passed} now passes; round {} was never asked",
            passed + 1
        ));
    }
    let verdict = score::final_verdict(&rounds);
    Rescored::Scored(Box::new(SampleRecord {
        rounds,
        verdict,
        rounds_passed: passed,
        closeness: first_phi1.map(|p| closeness(&phi0, &p)),
        ..rec.clone()
    }))
}

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

/// The prompt set a run was made with, when it can be rebuilt.
fn prompts_of(m: &Manifest) -> Option<PromptSet> {
    match m.prompts.source.as_str() {
        "built-in" => PromptSet::builtin(m.prompts.shots).ok(),
        "original" => None,
        dir => PromptSet::load(Path::new(dir), m.prompts.shots).ok(),
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
    let f = std::fs::File::open(path)?;
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
    /// Rescored: old kind, and the new kind with its line, or why it needs calls.
    Done(String, VerdictKind, Result<(VerdictKind, String), String>),
}

fn rescore_line(
    n: usize,
    text: &str,
    latest: &HashMap<String, usize>,
    prompts: Option<&PromptSet>,
    rounds: usize,
    opts: &verify::Options,
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
    let new = match rescore_sample(&rec, prompts, rounds, opts) {
        Rescored::Scored(r) => serde_json::to_string(&r)
            .map(|line| (r.verdict.kind(), line))
            .map_err(|e| e.to_string()),
        Rescored::NeedsCalls(why) => Err(why),
    };
    LineResult::Done(rec.id, old, new)
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
    if manifest.status == "running" {
        return Err(RescoreError::Running(opts.run.display().to_string()));
    }
    // Rewriting a run in place is writing it: take the run's lock like a run does.
    let _lock = if opts.in_place {
        Some(store::RunLock::acquire(&opts.run)?)
    } else {
        None
    };
    let src = opts.run.join(SAMPLES);
    let latest = latest_lines(&src).map_err(io_at(&src))?;
    if !opts.in_place {
        if opts.out.join(store::MANIFEST).exists() {
            return Err(RescoreError::OutExists(opts.out.display().to_string()));
        }
        std::fs::create_dir_all(&opts.out).map_err(io_at(&opts.out))?;
    }
    let tmp = opts.out.join(".samples.jsonl.rescore");
    let file = std::fs::File::create(&tmp).map_err(io_at(&tmp))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let prompts = prompts_of(&manifest);
    let mut summary = RescoreSummary::default();
    let f = std::fs::File::open(&src).map_err(io_at(&src))?;
    let mut lines = BoundedLines::new(BufReader::with_capacity(1 << 20, f), MAX_LINE);
    let mut n = 0usize;
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    loop {
        let mut chunk: Vec<(usize, String)> = Vec::with_capacity(CHUNK);
        while chunk.len() < CHUNK {
            let Some(line) = lines.next_line().map_err(io_at(&src))? else {
                break;
            };
            n += 1;
            match line {
                Ok(t) => chunk.push((n, t)),
                Err(len) => summary.warnings.push(format!(
                    "{}:{n}: line of {len} bytes skipped (limit {MAX_LINE})",
                    src.display()
                )),
            }
        }
        if chunk.is_empty() {
            break;
        }
        let per = chunk.len().div_ceil(threads).max(1);
        let (latest, prompts, verify_opts) = (&latest, prompts.as_ref(), &opts.verify);
        let rounds = manifest.rounds;
        let results: Vec<LineResult> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .chunks(per)
                .map(|part| {
                    let h = s.spawn(move || {
                        part.iter()
                            .map(|(n, t)| rescore_line(*n, t, latest, prompts, rounds, verify_opts))
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
        });
        for ((n, _), r) in chunk.iter().zip(results) {
            match r {
                LineResult::Skip => {}
                LineResult::Bad(why) => summary
                    .warnings
                    .push(format!("{}:{n}: {why}", src.display())),
                LineResult::Done(id, old, new) => {
                    summary.samples += 1;
                    summary.before.add_kind(old);
                    match new {
                        Ok((kind, line)) => {
                            summary.after.add_kind(kind);
                            *summary.changes.entry((old, kind)).or_default() += 1;
                            w.write_all(line.as_bytes())
                                .and_then(|()| w.write_all(b"\n"))
                                .map_err(io_at(&tmp))?;
                        }
                        Err(why) => summary.needs_calls.push((id, why)),
                    }
                }
            }
        }
    }
    w.flush().map_err(io_at(&tmp))?;
    drop(w);
    finish(opts, manifest, &tmp, &mut summary)?;
    Ok(summary)
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
        std::fs::rename(&dst, &backup).map_err(io_at(&backup))?;
        summary.backup = Some(backup);
    } else {
        for name in [store::JUDGE, store::LABELS, "dataset.json"] {
            let from = opts.run.join(name);
            if from.exists() {
                std::fs::copy(&from, opts.out.join(name)).map_err(io_at(&from))?;
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
    std::fs::rename(tmp, &dst).map_err(io_at(&dst))?;
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
    if !summary.needs_calls.is_empty() {
        manifest.status = "cancelled".into();
    }
    manifest.updated = Some(now_rfc3339());
    Ok(store::write_manifest(&opts.out, &manifest)?)
}
