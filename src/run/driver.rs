//! Driving a whole run: resume, bounded concurrency, append-as-you-go, clean cancel.

use super::pipeline::{Job, Pipeline};
use super::store::{self, Appender, SAMPLES};
use crate::dataset::Dataset;
use crate::record::{DatasetInfo, FORMAT, Manifest, PromptInfo, SampleRecord, now_rfc3339};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

pub use super::events::{Event, RunError};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// All samples done.
    Finished,
    /// Stopped by the user; resumable.
    Cancelled,
    /// Stopped because the server refused the run's requests (a non-retryable 4xx that
    /// repeats); resumable once the settings are fixed.
    Refused,
}

/// Exit code of a run stopped because the server could not be reached or refused its
/// requests: EX_TEMPFAIL, "try again later" (resumable).
pub const EXIT_SERVER_GONE: i32 = 75;

/// Samples in a row whose request the server refused before the run stops.
pub const REFUSED_IN_A_ROW: usize = 5;

/// Samples refused with the same status at the start of a new run (before any answer)
/// that stop it.
pub const REFUSED_AT_START: usize = 3;

/// Why a sample failed when the server refused its request (a non-retryable 4xx: bad
/// parameter, bad key, unknown model) or answered with nothing that can be read (empty
/// choices, an unreadable body, a refusal): the cause (`HTTP 400`, `unreadable`) and
/// the message. Repeated, either stops the run.
fn refused_request(rec: &SampleRecord) -> Option<(String, String)> {
    if rec.verdict.kind() != crate::verify::VerdictKind::ModelError {
        return None;
    }
    let last = rec.rounds.last()?;
    let call = last
        .autoformalize
        .as_ref()
        .filter(|c| c.error.is_some())
        .unwrap_or(&last.informalize);
    let message = call.error.clone().unwrap_or_default();
    if call.unreadable {
        return Some(("unreadable".into(), message));
    }
    let status = call.http_status?;
    ((400..500).contains(&status) && status != 408 && status != 429)
        .then(|| (format!("HTTP {status}"), message))
}

/// A run to execute.
pub struct RunSpec {
    /// Output directory.
    pub out: PathBuf,
    /// The dataset.
    pub dataset: Dataset,
    /// Description for the manifest.
    pub dataset_info: DatasetInfo,
    /// The pipeline.
    pub pipeline: Arc<Pipeline>,
    /// Samples in flight.
    pub concurrency: usize,
    /// Continue an existing run directory.
    pub resume: bool,
    /// The command line.
    pub command: Vec<String>,
    /// At most N dataset items (the dataset is already cut to them, spread over its
    /// buckets: see [`crate::dataset::limit`]).
    pub limit: Option<usize>,
    /// What `--limit` kept, as one line for the user (None: no limit or not needed).
    pub limit_note: Option<String>,
    /// While true, no new samples start (in-flight ones finish).
    pub pause: Option<watch::Receiver<bool>>,
    /// The switch behind `pause`, when the run may pause itself: with it, a server that
    /// is gone pauses the run instead of cancelling it.
    pub pause_switch: Option<watch::Sender<bool>>,
    /// Resume even if request settings (temperature, token limit, reasoning settings,
    /// extra body) differ after samples finished under the old ones.
    pub force: bool,
    /// Resume even if the dataset, rounds, shots, prompt set, syntax or reading differ.
    pub force_experiment: bool,
    /// Re-run the samples whose latest record is a `model-error`.
    pub retry_errors: bool,
    /// Re-run the samples whose latest record has a call that stopped at the token
    /// limit before answering (a different `--max-tokens` is then allowed).
    pub retry_truncated: bool,
    /// Stop (cancelled, resumable) after this many consecutive samples that could not
    /// reach the server; 0 never stops.
    pub max_consecutive_failures: usize,
    /// More fields for `run.json` (an adaptive run's design), kept on resume.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Jobs are made one at a time as tasks start: φ₀ is parsed then, and an item whose
/// φ₀ does not parse becomes a warning instead of a job.
fn next_job(
    items: &mut std::iter::Take<std::slice::Iter<'_, crate::dataset::Item>>,
    syntax: crate::syntax::SyntaxKind,
    task: bool,
    done: &HashSet<String>,
    events: &mpsc::UnboundedSender<Event>,
) -> Option<Job> {
    for item in items.by_ref() {
        let id = item.idx.to_string();
        if done.contains(&id) {
            continue;
        }
        match Job::of(item, syntax, task) {
            Ok(job) => return Some(job),
            Err(e) => {
                let _ = events.send(Event::Warning(format!(
                    "sample {id}: φ₀ does not parse ({e}); skipped"
                )));
            }
        }
    }
    None
}

fn manifest(spec: &RunSpec, id: &str) -> Manifest {
    let p = &spec.pipeline;
    let mut m = Manifest {
        format: FORMAT.into(),
        id: id.to_string(),
        created: now_rfc3339(),
        tool_version: format!("autoeval {}", env!("CARGO_PKG_VERSION")),
        command: spec.command.clone(),
        dataset: spec.dataset_info.clone(),
        model: p.client.info(),
        temperature: p.client.params().temperature,
        max_tokens: p.client.params().max_tokens,
        prompts: PromptInfo {
            source: p.prompts.source.clone(),
            shots: p.prompts.shots,
            // A task run's prompts are the `task-` templates, hashed apart.
            hash: if p.task.is_some() {
                p.prompts.task_hash.clone()
            } else {
                p.prompts.hash.clone()
            },
        },
        rounds: p.rounds,
        verifier_timeout_ms: p.verify.timeout.as_millis() as u64,
        concurrency: spec.concurrency,
        status: crate::record::RunStatus::Running,
        updated: None,
        task: p.task.as_ref().map(|t| t.kind),
        extra: [
            (
                crate::record::READING_KEY.to_string(),
                serde_json::Value::String(p.reading.name().into()),
            ),
            (
                crate::record::REQUEST_KEY.to_string(),
                serde_json::to_value(stored_request(p.client.params())).unwrap_or_default(),
            ),
        ]
        .into_iter()
        .collect(),
    };
    m.extra
        .extend(spec.extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    m
}

/// The request settings as `run.json` stores them: credentials in the extra body
/// redacted.
fn stored_request(p: &crate::llm::profile::RequestParams) -> crate::llm::profile::RequestParams {
    let mut p = p.clone();
    p.extra_body = p.extra_body.as_ref().map(crate::llm::extra_body::redacted);
    p
}

/// A temperature as the manifest shows it.
fn shown_temperature(t: Option<f64>) -> String {
    t.map_or_else(|| "omitted".into(), |t| t.to_string())
}

/// The reasoning settings of a request, as compared on resume.
fn reasoning_settings(p: &crate::llm::profile::RequestParams) -> String {
    serde_json::json!({
        "effort": p.effort,
        "thinking": p.thinking,
        "thinking_budget": p.thinking_budget,
        "extra_body": p.extra_body.as_ref().map(crate::llm::extra_body::redacted),
    })
    .to_string()
}

/// What a resumed run must share with the run it continues, as (field, old, new).
fn resume_differences(old: &Manifest, new: &Manifest) -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    let mut cmp = |name: &'static str, a: String, b: String| {
        if a != b {
            out.push((name, a, b));
        }
    };
    let (o, n) = (&old.dataset, &new.dataset);
    cmp("dataset kind", o.kind.clone(), n.kind.clone());
    if let Some((k, a, b)) = super::resume_check::dataset_difference(old, new) {
        cmp(k, a, b);
    }
    cmp("dataset items", o.items.to_string(), n.items.to_string());
    cmp(
        "dataset seed",
        format!("{:?}", o.seed),
        format!("{:?}", n.seed),
    );
    cmp(
        "syntax",
        format!("{:?}", o.syntax),
        format!("{:?}", n.syntax),
    );
    cmp("rounds", old.rounds.to_string(), new.rounds.to_string());
    // An adaptive run resumed without --adaptive would ask every item.
    cmp(
        "adaptive design",
        crate::record::adaptive(old).is_some().to_string(),
        crate::record::adaptive(new).is_some().to_string(),
    );
    cmp(
        "reading",
        old.reading().name().into(),
        new.reading().name().into(),
    );
    cmp(
        "shots",
        old.prompts.shots.to_string(),
        new.prompts.shots.to_string(),
    );
    cmp(
        "prompt set",
        old.prompts.source.clone(),
        new.prompts.source.clone(),
    );
    cmp(
        "prompt hash",
        old.prompts.hash.clone(),
        new.prompts.hash.clone(),
    );
    // Sampling and verification settings change the answers and verdicts too.
    cmp(
        "temperature",
        shown_temperature(old.temperature),
        shown_temperature(new.temperature),
    );
    // Runs from before request settings were recorded asked for no reasoning settings.
    if let (Some(o), Some(n)) = (old.request(), new.request()) {
        cmp(
            "reasoning settings (effort, thinking, budget, extra body)",
            reasoning_settings(&o),
            reasoning_settings(&n),
        );
    }
    cmp(
        "max tokens",
        old.max_tokens.to_string(),
        new.max_tokens.to_string(),
    );
    cmp(
        "verifier timeout (ms)",
        old.verifier_timeout_ms.to_string(),
        new.verifier_timeout_ms.to_string(),
    );
    out
}

/// Refuses a dataset whose items share an `idx`: sample ids must be unique.
fn check_unique_ids(spec: &RunSpec) -> Result<(), RunError> {
    let mut seen: HashMap<usize, usize> = HashMap::new();
    for (pos, item) in spec.dataset.file.data.iter().enumerate() {
        if let Some(first) = seen.insert(item.idx, pos) {
            return Err(RunError::Refused(format!(
                "the dataset has two items with idx {} (items {} and {}): sample ids come from idx \
                 and must be unique; renumber the items",
                item.idx,
                first + 1,
                pos + 1
            )));
        }
    }
    Ok(())
}

/// Prepares the directory: a new run, or a resumed one with its finished ids. The
/// returned lock is held for the whole run.
pub(crate) fn prepare(
    spec: &RunSpec,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<(Manifest, HashSet<String>, store::RunLock), RunError> {
    let dir = &spec.out;
    let has_run = dir.join(store::MANIFEST).exists();
    if has_run && !spec.resume {
        return Err(RunError::Refused(format!(
            "{} already holds a run: add --resume to continue it, or choose another --out",
            dir.display()
        )));
    }
    let samples = dir.join(SAMPLES);
    if !has_run && std::fs::metadata(&samples).is_ok_and(|m| m.len() > 0) {
        return Err(RunError::Refused(format!(
            "{} holds a samples.jsonl but no run.json: it is not a run this tool can continue; \
             move the file away or choose another --out",
            dir.display()
        )));
    }
    check_unique_ids(spec)?;
    std::fs::create_dir_all(dir)
        .map_err(|e| store::StoreError::Io(dir.display().to_string(), e))?;
    let lock = store::RunLock::acquire(dir)?;
    let id = dir
        .file_name()
        .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned());
    let mut m = manifest(spec, &id);
    let mut done = HashSet::new();
    if has_run {
        let old = store::read_manifest(dir)?;
        store::check_samples_present(dir, &old)?;
        if old.model.provider != m.model.provider || old.model.name != m.model.name {
            return Err(RunError::Refused(format!(
                "{} was run with {}:{}, not {}:{}; resume with the same model or choose another --out",
                dir.display(),
                old.model.provider,
                old.model.name,
                m.model.provider,
                m.model.name
            )));
        }
        let mut diffs = resume_differences(&old, &m);
        if spec.retry_truncated {
            // A larger limit is what redoing truncated samples is for.
            diffs.retain(|(k, _, _)| *k != "max tokens");
        }
        super::resume_check::check_differences(
            dir,
            &diffs,
            spec.force,
            spec.force_experiment,
            events,
        )?;
        if let Some(note) = super::resume_check::record_endpoints(&old, &mut m) {
            let _ = events.send(Event::Warning(note));
        }
        m.created = old.created;
        m.id = old.id;
        let loaded = store::read_samples(dir)?;
        for w in loaded.warnings {
            let _ = events.send(Event::Warning(w));
        }
        // Everything billed in earlier sessions counts against --max-cost: the ledger
        // holds it, calls of samples that were dropped or retried included.
        let recorded: f64 = loaded.records.iter().filter_map(|r| r.cost_usd).sum();
        let before = carried_spend(spec, dir, recorded, events)?;
        if let Some(b) = spec.pipeline.client.budget() {
            // An adaptive run's later rounds resume in the same process: what its
            // budget already counts is not added twice.
            b.add_spent((before - b.spent()).max(0.0));
        }
        // The latest line per id is the sample's record (a retried sample has two).
        let mut latest: HashMap<String, bool> = HashMap::new();
        for r in loaded.records {
            let again = (spec.retry_errors
                && r.verdict.kind() == crate::verify::VerdictKind::ModelError)
                || (spec.retry_truncated && r.truncated());
            latest.insert(r.id, again);
        }
        done = latest
            .into_iter()
            .filter(|(_, again)| !*again)
            .map(|(id, _)| id)
            .collect();
    }
    store::write_manifest(dir, &m)?;
    Ok((m, done, lock))
}

/// What earlier sessions of the run at `dir` billed: the spend ledger's total, or,
/// for a run from before the ledger, its records' (`recorded`), which then start the
/// ledger as one `carried` line.
pub(crate) fn carried_spend(
    spec: &RunSpec,
    dir: &Path,
    recorded: f64,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<f64, RunError> {
    use crate::llm::ledger::{Spend, SpendKind};
    if let Some(l) = super::spend::read(dir)? {
        for w in l.warnings {
            let _ = events.send(Event::Warning(w));
        }
        return Ok(l.usd);
    }
    if recorded > 0.0 {
        spec.pipeline
            .client
            .record_spend(&Spend::new(SpendKind::Carried, "", Some(recorded)));
    }
    Ok(recorded)
}

/// Executes a run, sending events; returns when finished or cancelled.
pub async fn execute(
    spec: RunSpec,
    events: mpsc::UnboundedSender<Event>,
    mut cancel: watch::Receiver<bool>,
) -> Result<Outcome, RunError> {
    match super::adaptive::Design::of(&spec.extra) {
        Some(d) => rounds(spec, &d, &events, &mut cancel).await,
        None => execute_on(&spec, &events, &mut cancel).await,
    }
}

/// An adaptive run: plan a round, run its items, until the design says stop.
async fn rounds(
    mut spec: RunSpec,
    d: &super::adaptive::Design,
    events: &mpsc::UnboundedSender<Event>,
    cancel: &mut watch::Receiver<bool>,
) -> Result<Outcome, RunError> {
    let mut rounds = super::adaptive::Rounds::start(
        &spec.out,
        &mut spec.dataset.file.data,
        &spec.dataset_info.kind,
        d,
    )?;
    let mut outcome = Outcome::Finished;
    while rounds.next(&spec.out, &mut spec.resume) {
        let Some(round) = super::adaptive::plan(&spec.out, &mut rounds.items, d, &rounds.kind)?
        else {
            break;
        };
        spec.dataset.file.data = round.items;
        outcome = execute_on(&spec, events, cancel).await?;
        if outcome != Outcome::Finished {
            break;
        }
    }
    Ok(outcome)
}

/// [`execute`] on a borrowed spec (an adaptive run executes one spec per round).
pub(crate) async fn execute_on(
    spec: &RunSpec,
    events: &mpsc::UnboundedSender<Event>,
    cancel: &mut watch::Receiver<bool>,
) -> Result<Outcome, RunError> {
    let (mut manifest, done, _lock) = prepare(spec, events)?;
    let limit = spec.limit.unwrap_or(usize::MAX);
    let in_scope = spec.dataset.file.data.iter().take(limit);
    let todo = in_scope
        .filter(|i| !done.contains(&i.idx.to_string()))
        .count();
    let _ = events.send(Event::Started {
        todo,
        done_before: done.len(),
    });
    let client = spec.pipeline.client.clone();
    let warn_all = |events: &mpsc::UnboundedSender<Event>| {
        for w in client.take_warnings() {
            let _ = events.send(Event::Warning(w));
        }
    };
    warn_all(events);
    let over_budget = || client.budget().is_some_and(|b| b.exhausted());
    let mut out = Appender::open(&spec.out.join(SAMPLES))?;
    let mut queue = spec.dataset.file.data.iter().take(limit);
    let syntax = spec.dataset.syntax;
    let task = spec.pipeline.task.is_some();
    let mut set: JoinSet<SampleRecord> = JoinSet::new();
    let mut ids: HashMap<tokio::task::Id, String> = HashMap::new();
    let mut outcome = Outcome::Finished;
    let mut pause = spec.pause.clone();
    let mut exhausted = false;
    let mut failures_in_a_row = 0usize;
    let mut parked: Option<Job> = None;
    // Refused samples are held back until a sample gets an answer: when the refusals
    // repeat, the run stops without them, so --resume asks them again.
    let mut held: Vec<SampleRecord> = Vec::new();
    let mut answered = 0usize;
    // What run.json says: `paused` while the switch holds the run, so a reader (another
    // viewer, `autoeval runs`) does not take a held run for one making progress.
    let mut recorded_pause = false;
    loop {
        let paused = pause.as_ref().is_some_and(|p| *p.borrow());
        if paused != recorded_pause {
            recorded_pause = paused;
            manifest.status = if paused {
                crate::record::RunStatus::Paused
            } else {
                crate::record::RunStatus::Running
            };
            manifest.updated = Some(now_rfc3339());
            store::write_manifest(&spec.out, &manifest)?;
        }
        while !paused && set.len() < spec.concurrency.max(1) && !*cancel.borrow() && !over_budget()
        {
            let Some(job) = parked
                .take()
                .or_else(|| next_job(&mut queue, syntax, task, &done, events))
            else {
                exhausted = true;
                break;
            };
            if !spec.pipeline.affordable(&job, set.len()) {
                // Leave room for the samples in flight to finish; stop once none are.
                if set.is_empty() {
                    if let Some(b) = client.budget() {
                        b.stop();
                    }
                } else {
                    parked = Some(job);
                }
                break;
            }
            let p = spec.pipeline.clone();
            let id = job.id.clone();
            let handle = set.spawn(async move { p.process(job).await });
            ids.insert(handle.id(), id);
        }
        if set.is_empty() {
            let Some(p) = pause.as_mut().filter(|p| *p.borrow()) else {
                break;
            };
            // Paused with nothing in flight: wait for resume or cancel.
            tokio::select! {
                r = p.changed() => {
                    if r.is_err() {
                        pause = None;
                    }
                    continue;
                }
                changed = cancel.changed() => {
                    if changed.is_err() || *cancel.borrow() {
                        outcome = Outcome::Cancelled;
                        break;
                    }
                    continue;
                }
            }
        }
        tokio::select! {
            // A pause or resume while samples are in flight is recorded at once.
            () = pause_flipped(pause.as_mut()) => continue,
            joined = set.join_next_with_id() => match joined {
                Some(Ok((tid, rec))) => {
                    ids.remove(&tid);
                    warn_all(events);
                    if refused_by_budget(&rec) {
                        // Not a model error: the sample was never asked; --resume does it.
                        continue;
                    }
                    if let Some((cause, message)) = refused_request(&rec) {
                        let same = held.last().and_then(refused_request).is_none_or(|(s, _)| s == cause);
                        if !same {
                            for r in held.drain(..) {
                                out.append_sample(&r)?;
                                let _ = events.send(Event::Sample(Box::new(r)));
                            }
                        }
                        held.push(rec);
                        let at_start = answered == 0 && done.is_empty();
                        if held.len() >= REFUSED_IN_A_ROW || (at_start && held.len() >= REFUSED_AT_START) {
                            let what = if cause == "unreadable" {
                                format!(
                                    "no answer could be read from {} replies in a row{}",
                                    held.len(),
                                    if at_start { " at the start of the run" } else { "" },
                                )
                            } else {
                                format!(
                                    "the server refused {} requests in a row{} with {cause}",
                                    held.len(),
                                    if at_start { " at the start of the run" } else { "" },
                                )
                            };
                            let _ = events.send(Event::Warning(format!(
                                "stopping: {what}: {}\n\
                                 nothing more is sent; these samples are not written, so once the \
                                 settings are fixed (see docs/src/guide/reasoning-models.md), continue with:\n  {}",
                                crate::base::sanitize::one_line(&message),
                                super::resume_check::resume_command(&spec.command, answered == 0 && done.is_empty())
                            )));
                            held.clear();
                            set.abort_all();
                            while set.join_next().await.is_some() {}
                            outcome = Outcome::Refused;
                            break;
                        }
                        continue;
                    }
                    answered += 1;
                    for r in held.drain(..) {
                        out.append_sample(&r)?;
                        let _ = events.send(Event::Sample(Box::new(r)));
                    }
                    out.append_sample(&rec)?;
                    failures_in_a_row = if rec.transport_failure() { failures_in_a_row + 1 } else { 0 };
                    let last_error = rec
                        .rounds
                        .last()
                        .and_then(|r| r.autoformalize.as_ref().and_then(|c| c.error.clone()).or(r.informalize.error.clone()))
                        .unwrap_or_default();
                    let _ = events.send(Event::Sample(Box::new(rec)));
                    let k = spec.max_consecutive_failures;
                    if k > 0 && failures_in_a_row >= k {
                        if let Some(switch) = &spec.pause_switch {
                            // Someone is watching (the viewer): hold the run until they resume it.
                            switch.send_replace(true);
                            failures_in_a_row = 0;
                            let _ = events.send(Event::Warning(format!(
                                "paused: {k} samples in a row could not reach the server (last: {last_error}); \
                                 resume once it answers (the failed samples can be redone with retry errors)"
                            )));
                            continue;
                        }
                        let _ = events.send(Event::Warning(format!(
                            "stopping: {k} samples in a row could not reach the server (last: {last_error}); \
                             the run is cancelled and resumable: once the server answers, continue with \
                             --resume --retry-errors"
                        )));
                        set.abort_all();
                        while set.join_next().await.is_some() {}
                        outcome = Outcome::Cancelled;
                        break;
                    }
                }
                Some(Err(e)) => {
                    let id = ids.remove(&e.id()).unwrap_or_default();
                    if !e.is_cancelled() {
                        let _ = events.send(Event::Warning(format!(
                            "sample {id}: internal error ({e}); not written — run again with --resume to retry it"
                        )));
                    }
                }
                None => break,
            },
            changed = cancel.changed() => {
                if changed.is_err() || *cancel.borrow() {
                    // In-flight samples are dropped unwritten; --resume redoes them.
                    // Their verifier checks are interrupted, not waited for.
                    crate::verify::z3_logic::interrupt_all();
                    set.abort_all();
                    while set.join_next().await.is_some() {}
                    outcome = Outcome::Cancelled;
                    break;
                }
            }
        }
    }
    // A cancel seen while nothing was in flight must not read as a finished run.
    if outcome == Outcome::Finished && *cancel.borrow() && !exhausted {
        outcome = Outcome::Cancelled;
    }
    if let Some(b) = client.budget().filter(|b| b.exhausted()) {
        // A refused call means an unfinished sample: the run stops short of the limit.
        outcome = Outcome::Cancelled;
        let _ = events.send(Event::Warning(budget_stop(b)));
    }
    // Refusals that did not repeat are ordinary model errors of their samples.
    if outcome != Outcome::Refused {
        for r in held.drain(..) {
            out.append_sample(&r)?;
            let _ = events.send(Event::Sample(Box::new(r)));
        }
    }
    if let Some(l) = client.ledger() {
        let _ = l.sync();
    }
    warn_all(events);
    out.sync()?;
    manifest.status = match outcome {
        Outcome::Finished => crate::record::RunStatus::Finished,
        Outcome::Cancelled | Outcome::Refused => crate::record::RunStatus::Cancelled,
    };
    manifest.updated = Some(now_rfc3339());
    store::write_manifest(&spec.out, &manifest)?;
    Ok(outcome)
}

/// Why a budgeted run stopped: the limit reached, or a call that billed more than it
/// reserved (then the reservations cannot be trusted and nothing more is sent).
pub(crate) fn budget_stop(b: &crate::llm::budget::Budget) -> String {
    match b.overrun() {
        Some(why) => format!(
            "stopped: {} (spent ${:.4} of --max-cost ${:.4}); the server reports more usage than a \
             request can use, so no further request was sent; every bill is in {} — check the server \
             and the price table, then continue with --resume",
            crate::base::sanitize::one_line(&why),
            b.spent(),
            b.limit(),
            crate::llm::ledger::LEDGER
        ),
        None => format!(
            "stopped before the spend passed --max-cost ${:.4} (spent ${:.4} in this run); \
             the run is cancelled and resumable: continue with --resume and a higher --max-cost",
            b.limit(),
            b.spent()
        ),
    }
}

/// Whether a call of the sample was refused by the `--max-cost` budget.
/// Waits until the pause switch flips; never, without a switch (or once it is gone).
async fn pause_flipped(pause: Option<&mut watch::Receiver<bool>>) {
    if let Some(p) = pause
        && p.changed().await.is_ok()
    {
        return;
    }
    std::future::pending::<()>().await;
}

fn refused_by_budget(rec: &SampleRecord) -> bool {
    rec.rounds.iter().any(|r| {
        std::iter::once(&r.informalize)
            .chain(r.autoformalize.as_ref())
            .any(|c| {
                c.error
                    .as_deref()
                    .is_some_and(crate::llm::budget::is_refusal)
            })
    })
}

/// Describes a dataset for the manifest.
pub fn dataset_info(ds: &Dataset, kind: &str, path: Option<&Path>) -> DatasetInfo {
    DatasetInfo {
        kind: kind.to_string(),
        syntax: ds.syntax,
        path: path.map(|p| p.display().to_string()),
        sha256: path.and_then(super::resume_check::dataset_sha256),
        seed: ds.file.info.get("seed").and_then(serde_json::Value::as_u64),
        params: ds
            .file
            .info
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "grammar" | "vocabularies"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        items: ds.file.data.len(),
        filter_field: ds.filter_field(),
    }
}
