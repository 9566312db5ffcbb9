//! Driving a whole run: resume, bounded concurrency, append-as-you-go, clean cancel.

use super::pipeline::Pipeline;
use super::store::{self, SAMPLES};
use crate::dataset::Dataset;
use crate::record::{DatasetInfo, FORMAT, Manifest, PromptInfo, now_rfc3339};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

pub(crate) use live::execute_on;

mod live;
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
fn stored_request(p: &crate::llm::request::RequestParams) -> crate::llm::request::RequestParams {
    let mut p = p.clone();
    p.extra_body = p.extra_body.as_ref().map(crate::llm::extra_body::redacted);
    p
}

/// A temperature as the manifest shows it.
fn shown_temperature(t: Option<f64>) -> String {
    t.map_or_else(|| "omitted".into(), |t| t.to_string())
}

/// The reasoning settings of a request, as compared on resume.
fn reasoning_settings(p: &crate::llm::request::RequestParams) -> String {
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
