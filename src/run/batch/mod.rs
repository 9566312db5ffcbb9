//! Runs through provider batch jobs or batch files, stage by stage: every unfinished
//! sample is replayed against the answers in hand; the calls still missing (round r's
//! informalizations, then its autoformalizations) go out as one batch, split by the
//! provider's limits; when it ends, its answers are stored and the replay goes on.

mod adaptive;
mod collect;
mod replay;
pub mod state;

use super::driver::{Event, RunError, RunSpec, prepare};
use super::store::{self, Appender, SAMPLES};
use crate::llm::batch_api::{self, BatchApi, BatchInfo, Provider};
use crate::llm::client::MAX_PLAUSIBLE_TOKENS;
use crate::llm::{ChatRequest, LlmError};
use crate::record::now_rfc3339;
use collect::{cancel_open, cap_outputs, ingest, sanitize_id, spend_lines};
use replay::{Replay, jobs, replay};
use state::{BatchEvent, Open, State, StoredResult};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// Warnings that start with this are batch status lines, not problems.
pub(crate) const STATUS_PREFIX: &str = "batch status: ";

/// How a batch run talks to the model.
pub enum Mode {
    /// Submit to the provider's batch API and wait.
    Api(BatchApi),
    /// Exchange files: ingest `input` (a result file) if given, write the next
    /// requests to `out_dir` if given, and stop.
    Files {
        /// A result file (`vllm run-batch` output or any OpenAI batch output).
        input: Option<PathBuf>,
        /// Where request files go.
        out_dir: Option<PathBuf>,
    },
}

/// Batch settings.
pub struct BatchSpec {
    /// API or files.
    pub mode: Mode,
    /// Most requests per batch (or file).
    pub max_requests: usize,
    /// Most bytes per batch (or file).
    pub max_bytes: usize,
    /// Time between status polls.
    pub poll: Duration,
}

impl BatchSpec {
    /// Settings with the provider's limits where none are given; `poll_secs` must be a
    /// positive number of seconds.
    pub fn new(
        mode: Mode,
        max_requests: Option<usize>,
        max_bytes: Option<usize>,
        poll_secs: f64,
    ) -> Result<BatchSpec, String> {
        // A poll too long for a Duration is refused too (it would panic).
        let poll = Duration::try_from_secs_f64(poll_secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or("--batch-poll must be a positive number of seconds")?;
        let provider = match &mode {
            Mode::Api(api) => api.provider,
            Mode::Files { .. } => Provider::Openai,
        };
        Ok(BatchSpec {
            mode,
            max_requests: max_requests.unwrap_or(provider.max_requests()).max(1),
            max_bytes: max_bytes.unwrap_or(provider.max_bytes()).max(1),
            poll,
        })
    }
}

/// How a batch run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchOutcome {
    /// Every sample is written.
    Finished,
    /// Stopped (user, budget); resumable.
    Cancelled,
    /// Stopped because the provider could not be reached or refused a submission
    /// (exit 75, as a live run whose server is gone); resumable.
    Unreachable,
    /// Request files were written (or answers are missing): run again with `--batch-file-in`.
    Waiting {
        /// Requests still to be answered.
        pending: usize,
        /// Files written.
        files: Vec<PathBuf>,
    },
}

fn event(kind: &str, id: &str, provider: Option<Provider>, info: Option<BatchInfo>) -> BatchEvent {
    BatchEvent {
        event: kind.into(),
        batch_id: id.into(),
        provider,
        info,
        custom_ids: Vec::new(),
        reserved_usd: None,
        time: now_rfc3339(),
    }
}

fn status_line(info: &BatchInfo) -> String {
    format!(
        "{STATUS_PREFIX}{} {}: {} of {} answered, {} failed",
        info.id, info.status, info.succeeded, info.total, info.failed
    )
}

/// Splits request lines into parts within the limits; a line over the byte limit alone
/// becomes an error result instead.
fn split(
    lines: Vec<(String, String)>,
    max_requests: usize,
    max_bytes: usize,
) -> (Vec<Vec<(String, String)>>, Vec<StoredResult>) {
    let (mut parts, mut too_big) = (Vec::new(), Vec::new());
    let (mut cur, mut bytes) = (Vec::new(), 0usize);
    for (cid, line) in lines {
        let n = line.len() + 1;
        if n > max_bytes {
            too_big.push(StoredResult::from_line(
                cid,
                "none",
                Err(format!(
                    "request of {n} bytes is larger than --batch-max-bytes {max_bytes}"
                )),
            ));
            continue;
        }
        if !cur.is_empty() && (cur.len() >= max_requests.max(1) || bytes + n > max_bytes) {
            parts.push(std::mem::take(&mut cur));
            bytes = 0;
        }
        bytes += n;
        cur.push((cid, line));
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    (parts, too_big)
}

/// What a result file held: its results (the first answer per request), warnings, and
/// the requests it answered more than once.
pub(crate) type Ingested = (Vec<StoredResult>, Vec<String>, HashSet<String>);

/// Reads a result file into stored results; unknown custom ids and bad lines are
/// counted and warned about, never fatal.
pub(crate) fn ingest_file(
    path: &Path,
    batch_id: &str,
    key: Option<&str>,
    expected: Option<&HashSet<String>>,
    tags: &[&str],
) -> Result<Ingested, std::io::Error> {
    use std::io::{BufRead, Read};
    // Regular files only: a FIFO would block and /dev/zero never end.
    let file = crate::base::fsread::open(path, crate::base::fsread::STREAM)?;
    let mut reader = std::io::BufReader::new(file);
    let mut out = Vec::new();
    let (mut bad, mut unknown, mut first_bad) = (0usize, 0usize, None);
    // A second answer to the same request is not used: the first one is kept.
    let (mut seen, mut repeated, mut twice) = (HashSet::new(), 0usize, HashSet::new());
    let mut buf = Vec::new();
    for n in 0.. {
        buf.clear();
        // Bounded like every run file: a hostile file cannot make one line eat memory.
        let got = (&mut reader)
            .take(store::MAX_RECORD + 1)
            .read_until(b'\n', &mut buf)?;
        if got == 0 {
            break;
        }
        if got as u64 > store::MAX_RECORD {
            bad += 1;
            first_bad.get_or_insert(format!(
                "line {}: longer than {} bytes",
                n + 1,
                store::MAX_RECORD
            ));
            // Read through the rest of the line without keeping it.
            if buf.last() != Some(&b'\n') {
                crate::base::fsread::skip_line(&mut reader)?;
            }
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        if line.trim().is_empty() {
            continue;
        }
        match batch_api::parse_result_line(&line, key, tags) {
            Ok((cid, r)) => {
                if expected.is_some_and(|e| !e.contains(&cid)) || !valid_custom_id(&cid) {
                    unknown += 1;
                    continue;
                }
                if !seen.insert(cid.clone()) {
                    repeated += 1;
                    twice.insert(cid);
                    continue;
                }
                out.push(StoredResult::from_line(cid, batch_id, r));
            }
            Err(e) => {
                bad += 1;
                first_bad.get_or_insert(format!("line {}: {e}", n + 1));
            }
        }
    }
    let mut warnings = Vec::new();
    if bad > 0 {
        warnings.push(format!(
            "{}: {bad} lines are not batch results and were skipped (first: {})",
            path.display(),
            first_bad.unwrap_or_default()
        ));
    }
    if unknown > 0 {
        warnings.push(format!(
            "{}: {unknown} results are for requests this run did not make; skipped",
            path.display()
        ));
    }
    if repeated > 0 {
        warnings.push(format!(
            "{}: {repeated} results answer a request already answered in this file; the first answer is kept",
            path.display()
        ));
    }
    Ok((out, warnings, twice))
}

fn valid_custom_id(cid: &str) -> bool {
    let mut parts = cid.rsplitn(3, '_');
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some("i" | "a"), Some(r), Some(s)) if r.starts_with('r') && r[1..].parse::<usize>().is_ok() && !s.is_empty()
    )
}

/// Writes request files for vLLM `run-batch` (OpenAI batch format); returns their paths.
fn write_request_files(
    dir: &Path,
    run_id: &str,
    parts: &[Vec<(String, String)>],
) -> Result<Vec<PathBuf>, RunError> {
    crate::base::fswrite::room::dir(dir)
        .map_err(|e| store::StoreError::Io(dir.display().to_string(), e))?;
    let stamp = now_rfc3339().replace([':', '-'], "");
    let mut paths = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        // Built from the sanitised id only: an id from run.json names no other folder.
        let path = dir.join(format!("{}-{stamp}-{}.jsonl", sanitize_id(run_id), i + 1));
        let mut text = String::new();
        for (_, l) in part {
            text.push_str(l);
            text.push('\n');
        }
        crate::base::fswrite::room::write(&path, text.as_bytes())
            .map_err(|e| store::StoreError::Io(path.display().to_string(), e))?;
        paths.push(path);
    }
    Ok(paths)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |e| RunError::Store(store::StoreError::Io(path.display().to_string(), e))
}

/// Executes a run through batches or batch files; an adaptive run goes in rounds, each
/// round's calls in batches of their own (`adaptive::rounds`).
pub async fn execute(
    spec: RunSpec,
    batch: BatchSpec,
    events: mpsc::UnboundedSender<Event>,
    mut cancel: watch::Receiver<bool>,
) -> Result<BatchOutcome, RunError> {
    match super::adaptive::Design::of(&spec.extra) {
        Some(d) => adaptive::rounds(spec, &batch, &d, &events, &mut cancel).await,
        None => execute_on(&spec, &batch, &events, &mut cancel).await,
    }
}

/// [`execute`] on a borrowed spec (an adaptive run executes one per round).
pub(crate) async fn execute_on(
    spec: &RunSpec,
    batch: &BatchSpec,
    events: &mpsc::UnboundedSender<Event>,
    cancel: &mut watch::Receiver<bool>,
) -> Result<BatchOutcome, RunError> {
    let (mut manifest, done, _lock) = prepare(spec, events)?;
    let dir = spec.out.clone();
    let client = spec.pipeline.client.clone();
    let info = client.info();
    let mut st = State::load(&dir, spec.retry_errors).map_err(RunError::Store)?;
    for w in st.warnings.drain(..) {
        let _ = events.send(Event::Warning(w));
    }
    let mut todo = jobs(spec, &done, events);
    let _ = events.send(Event::Started {
        todo: todo.len(),
        done_before: done.len(),
    });
    for w in client.take_warnings() {
        let _ = events.send(Event::Warning(w));
    }
    let provider = match &batch.mode {
        Mode::Api(api) => api.provider,
        Mode::Files { .. } => Provider::Openai,
    };
    if let Mode::Files {
        input: Some(path), ..
    } = &batch.mode
    {
        let name = path
            .file_name()
            .map_or_else(|| "results".into(), |n| n.to_string_lossy().into_owned());
        // Only answers to requests this run wrote to a request file and has no answer
        // for yet; the rest are counted and warned about.
        let expected: HashSet<String> = st
            .written
            .iter()
            .filter(|c| st.results.get(*c).is_none_or(|r| r.output.is_none()))
            .cloned()
            .collect();
        let (mut rs, warns, _) = ingest_file(
            path,
            &format!("file:{name}"),
            None,
            Some(&expected),
            &client.params().tags(),
        )
        .map_err(io_err(path))?;
        cap_outputs(&mut rs, client.limits().max_reply_bytes);
        for w in warns {
            let _ = events.send(Event::Warning(w));
        }
        let _ = events.send(Event::Warning(format!(
            "{STATUS_PREFIX}{} results read from {}",
            rs.len(),
            path.display()
        )));
        let prices = client.prices().clone();
        let probe = Replay::new(HashMap::new(), prices, info.name.clone(), None);
        for s in spend_lines(&probe, &rs) {
            client.record_spend(&s);
        }
        state::save_results(&dir, &rs)?;
        state::log(
            &dir,
            &event("ingested", &format!("file:{name}"), None, None),
        )?;
        for r in rs {
            st.results.insert(r.custom_id.clone(), r);
        }
    }
    let rp = Arc::new(Replay::new(
        std::mem::take(&mut st.results),
        client.prices().clone(),
        info.name.clone(),
        client.cache().map(|c| (c.clone(), info.clone())),
    ));
    let mut out = Appender::open(&dir.join(SAMPLES))?;
    let mut poll_failures = 0usize;
    let outcome = 'run: loop {
        // 1. Replay: write every sample whose answers are all in hand.
        let (finished, waiting) = replay(spec, &rp, std::mem::take(&mut todo)).await;
        for rec in finished {
            out.append_sample(&rec)?;
            let _ = events.send(Event::Sample(Box::new(rec)));
        }
        todo = waiting;
        let mut pending = rp
            .pending
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        if todo.is_empty() {
            break BatchOutcome::Finished;
        }
        if *cancel.borrow() {
            break BatchOutcome::Cancelled;
        }
        // 2. The response cache answers what it can, for free.
        if let Some(c) = client.cache() {
            let mut hits = Vec::new();
            pending.retain(
                |(cid, req)| match c.get(&crate::llm::cache::key(&info, req)) {
                    Some(done) => {
                        let mut r = StoredResult::from_line(cid.clone(), "cache", Ok(done));
                        r.cached = true;
                        hits.push(r);
                        false
                    }
                    None => true,
                },
            );
            if !hits.is_empty() {
                state::save_results(&dir, &hits)?;
                if let Ok(mut m) = rp.results.write() {
                    for h in hits {
                        m.insert(h.custom_id.clone(), h);
                    }
                }
                continue 'run;
            }
        }
        // 3. New requests: those no open batch holds already.
        let in_flight: HashSet<String> = st.in_flight().into_iter().map(str::to_string).collect();
        let fresh: Vec<(String, ChatRequest)> = pending
            .into_iter()
            .filter(|(cid, _)| !in_flight.contains(cid))
            .collect();
        let lines: Vec<(String, String)> = fresh
            .iter()
            .map(|(cid, req)| {
                (
                    cid.clone(),
                    batch_api::request_line(provider, &info.name, cid, req),
                )
            })
            .collect();
        let worst: HashMap<String, f64> = fresh
            .iter()
            .map(|(cid, req)| {
                let w = client.worst_cost(req).unwrap_or(f64::INFINITY);
                let factor = client
                    .prices()
                    .get(&info.name)
                    .and_then(|p| p.batch)
                    .unwrap_or(crate::llm::prices::BATCH_FACTOR);
                (cid.clone(), w * factor)
            })
            .collect();
        let (parts, too_big) = split(lines, batch.max_requests, batch.max_bytes);
        if !too_big.is_empty() {
            state::save_results(&dir, &too_big)?;
            if let Ok(mut m) = rp.results.write() {
                for r in too_big {
                    m.insert(r.custom_id.clone(), r);
                }
            }
        }
        let api = match &batch.mode {
            Mode::Files { out_dir, .. } => {
                let n: usize = parts.iter().map(Vec::len).sum();
                let Some(d) = out_dir else {
                    break BatchOutcome::Waiting {
                        pending: n,
                        files: Vec::new(),
                    };
                };
                let files = write_request_files(d, &manifest.id, &parts)?;
                for (f, part) in files.iter().zip(&parts) {
                    // The ids go with the event: only their answers are read back.
                    let mut e = event("written", &format!("file:{}", f.display()), None, None);
                    e.custom_ids = part.iter().map(|(c, _)| c.clone()).collect();
                    state::log(&dir, &e)?;
                }
                break BatchOutcome::Waiting { pending: n, files };
            }
            Mode::Api(api) => api,
        };
        // 4. Submit each part; its id goes to disk before anything else.
        for part in parts {
            let reserve: f64 = part
                .iter()
                .map(|(c, _)| worst.get(c).copied().unwrap_or(0.0))
                .sum();
            if let Some(b) = client.budget()
                && !st.open.is_empty()
                && !b.room_for(reserve)
            {
                // Open batches still hold their worst case: wait for them to settle
                // at their real cost, then try this part again.
                break;
            }
            if let Some(b) = client.budget()
                && !b.reserve(reserve)
            {
                let _ = events.send(Event::Warning(format!(
                    "a batch of {} requests (worst case ${reserve:.4}) would pass --max-cost; not submitted",
                    part.len()
                )));
                break;
            }
            let lines: Vec<String> = part.iter().map(|(_, l)| l.clone()).collect();
            match api.submit(&lines).await {
                Ok(info) => {
                    let ids: Vec<String> = part.into_iter().map(|(c, _)| c).collect();
                    let mut e = event("submitted", &info.id, Some(provider), Some(info.clone()));
                    e.custom_ids = ids.clone();
                    e.reserved_usd = Some(reserve);
                    state::log(&dir, &e)?;
                    let _ = events.send(Event::Warning(status_line(&info)));
                    st.open.push((
                        info.id.clone(),
                        Open {
                            provider: Some(provider),
                            info,
                            custom_ids: ids,
                            reserved_usd: reserve,
                        },
                    ));
                }
                Err(e) => {
                    if let Some(b) = client.budget() {
                        b.settle(reserve, 0.0);
                    }
                    let _ = events.send(Event::Warning(format!(
                        "submitting a batch failed: {e}; the run is cancelled and resumable (--resume --batch-api)"
                    )));
                    break 'run BatchOutcome::Unreachable;
                }
            }
        }
        if st.open.is_empty() {
            // Nothing out and nothing submitted: only the budget stops here.
            if client.budget().is_some_and(|b| b.exhausted()) {
                break BatchOutcome::Cancelled;
            }
            continue;
        }
        // 5. Wait for the open batches; ingest each as it ends.
        loop {
            let mut progressed = false;
            let mut i = 0;
            while i < st.open.len() {
                let (id, o) = &st.open[i];
                let id = id.clone();
                match api.status(&id).await {
                    Ok(now) => {
                        poll_failures = 0;
                        if now != o.info {
                            let _ = events.send(Event::Warning(status_line(&now)));
                            state::log(
                                &dir,
                                &event("state", &id, Some(provider), Some(now.clone())),
                            )?;
                        }
                        st.open[i].1.info = now.clone();
                        if now.terminal {
                            // A download is interrupted at once by a stop (R15).
                            let got = tokio::select! {
                                got = ingest(&dir, api, &rp, &client, &st.open[i].1, &now, events) => got?,
                                changed = cancel.changed() => {
                                    if changed.is_err() || *cancel.borrow() {
                                        break 'run BatchOutcome::Cancelled;
                                    }
                                    continue;
                                }
                            };
                            match got {
                                Ok(()) => {
                                    st.open.remove(i);
                                    state::log(
                                        &dir,
                                        &event("ingested", &id, Some(provider), Some(now)),
                                    )?;
                                    if client.budget().is_some_and(|b| b.overrun().is_some()) {
                                        // It billed more than it reserved: nothing more goes out.
                                        cancel_open(api, &st, &dir, provider, events).await?;
                                        break 'run BatchOutcome::Cancelled;
                                    }
                                    progressed = true;
                                    continue;
                                }
                                Err(e) => {
                                    // Kept open: the next poll downloads again.
                                    let _ = events.send(Event::Warning(format!(
                                        "downloading the results of batch {id} failed: {e}; trying again"
                                    )));
                                }
                            }
                        }
                    }
                    // A batch the provider no longer has never ends: its requests
                    // become errors, which --retry-errors submits anew.
                    Err(e) if matches!(e.status, Some(404 | 410)) => {
                        poll_failures = 0;
                        let why = format!(
                            "batch {id} no longer exists at the provider (HTTP {}); its requests are errors, \
                             resubmit them with --resume --retry-errors",
                            e.status.unwrap_or(404)
                        );
                        let _ = events.send(Event::Warning(why.clone()));
                        let gone: Vec<StoredResult> = o
                            .custom_ids
                            .iter()
                            .map(|c| StoredResult::from_line(c.clone(), &id, Err(why.clone())))
                            .collect();
                        if let Some(b) = client.budget() {
                            b.settle(o.reserved_usd, 0.0);
                        }
                        state::save_results(&dir, &gone)?;
                        if let Ok(mut m) = rp.results.write() {
                            for r in gone {
                                m.insert(r.custom_id.clone(), r);
                            }
                        }
                        st.open.remove(i);
                        state::log(&dir, &event("ingested", &id, Some(provider), None))?;
                        progressed = true;
                        continue;
                    }
                    Err(e) => {
                        poll_failures += 1;
                        let k = spec.max_consecutive_failures;
                        if k > 0 && poll_failures >= k {
                            let _ = events.send(Event::Warning(format!(
                                "stopping: {k} status checks in a row failed (last: {e}); the batches keep running \
                                 at the provider, resume with --resume --batch-api to collect them"
                            )));
                            break 'run BatchOutcome::Unreachable;
                        }
                    }
                }
                i += 1;
            }
            if progressed || st.open.is_empty() {
                break;
            }
            tokio::select! {
                () = tokio::time::sleep(batch.poll) => {}
                changed = cancel.changed() => {
                    if changed.is_err() || *cancel.borrow() {
                        cancel_open(api, &st, &dir, provider, events).await?;
                        break 'run BatchOutcome::Cancelled;
                    }
                }
            }
        }
    };
    out.sync()?;
    for w in client.take_warnings() {
        let _ = events.send(Event::Warning(w));
    }
    if let Some(l) = client.ledger() {
        let _ = l.sync();
    }
    if let Some(b) = client.budget().filter(|b| b.exhausted()) {
        let _ = events.send(Event::Warning(super::driver::budget_stop(b)));
    }
    manifest.status = match outcome {
        BatchOutcome::Finished => crate::record::RunStatus::Finished,
        _ => crate::record::RunStatus::Cancelled,
    };
    manifest.updated = Some(now_rfc3339());
    manifest.extra.insert(
        "batch".into(),
        serde_json::Value::String(match &batch.mode {
            Mode::Api(_) => "api".into(),
            Mode::Files { .. } => "files".into(),
        }),
    );
    store::write_manifest(&dir, &manifest)?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_respects_both_limits_and_refuses_oversized_lines() {
        let lines: Vec<(String, String)> = (0..10)
            .map(|i| (format!("{i}_r1_i"), "x".repeat(9)))
            .chain(std::iter::once(("big_r1_i".to_string(), "y".repeat(100))))
            .collect();
        let (parts, big) = split(lines.clone(), 4, 1000);
        assert_eq!(
            parts.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4, 3]
        );
        assert!(big.is_empty());
        let (parts, big) = split(lines, 100, 30);
        assert_eq!(
            parts.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![3, 3, 3, 1]
        );
        assert_eq!(big.len(), 1);
        assert!(
            big[0]
                .error
                .as_deref()
                .unwrap()
                .contains("--batch-max-bytes")
        );
        assert!(valid_custom_id("12_r3_a"));
        assert!(!valid_custom_id("12_x3_a"));
        assert!(!valid_custom_id("r3_a"));
    }
}
