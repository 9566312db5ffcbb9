//! One batch execution, step by step: replay what is answered, let the response cache
//! answer what it can, split the new requests into batches, submit them (or write
//! request files), and wait for the open batches.

use super::collect::{cancel_open, cap_outputs, ingest, spend_lines};
use super::replay::{Replay, jobs, replay};
use super::state::{self, Open, State, StoredResult};
use super::{
    BatchOutcome, BatchSpec, Mode, STATUS_PREFIX, event, ingest_file, io_err, split, status_line,
    write_request_files,
};
use crate::llm::batch_api::{self, BatchApi, Provider};
use crate::llm::{ChatRequest, Client, ModelInfo};
use crate::record::{Manifest, now_rfc3339};
use crate::run::driver::{Event, RunError, RunSpec, prepare};
use crate::run::job::Job;
use crate::run::store::{self, Appender, SAMPLES};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// Request lines split into batches: (custom id, line) per request.
type Parts = Vec<Vec<(String, String)>>;

/// [`super::execute`] on a borrowed spec (an adaptive run executes one per round).
pub(crate) async fn execute_on(
    spec: &RunSpec,
    batch: &BatchSpec,
    events: &mpsc::UnboundedSender<Event>,
    cancel: &mut watch::Receiver<bool>,
) -> Result<BatchOutcome, RunError> {
    let (mut manifest, done, _lock) = prepare(spec, events)?;
    let client = spec.pipeline.client.clone();
    let info = client.info();
    let mut st = State::load(&spec.out, spec.retry_errors).map_err(RunError::Store)?;
    for w in st.warnings.drain(..) {
        let _ = events.send(Event::Warning(w));
    }
    let todo = jobs(spec, &done, events);
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
    let mut ex = Exec {
        spec,
        batch,
        events,
        dir: spec.out.clone(),
        client,
        info,
        provider,
        st,
        poll_failures: 0,
    };
    if let Mode::Files {
        input: Some(path), ..
    } = &batch.mode
    {
        ex.read_results_file(path)?;
    }
    let rp = Arc::new(Replay::new(
        std::mem::take(&mut ex.st.results),
        ex.client.prices().clone(),
        ex.info.name.clone(),
        ex.client.cache().map(|c| (c.clone(), ex.info.clone())),
    ));
    let mut out = Appender::open(&ex.dir.join(SAMPLES))?;
    let outcome = ex.run(&rp, &mut out, todo, &manifest.id, cancel).await?;
    ex.close(&mut manifest, &outcome, &mut out)?;
    Ok(outcome)
}

/// What polling one open batch gave.
enum Poll {
    /// Still open (or its download failed and is tried again): on to the next one.
    Next,
    /// Ended and ingested (or gone): removed from the open list.
    Removed,
    /// A stop signal that was no stop: poll the same batch again.
    Again,
    /// The run ends so.
    End(BatchOutcome),
}

/// A batch execution's state, shared by its steps.
struct Exec<'a> {
    spec: &'a RunSpec,
    batch: &'a BatchSpec,
    events: &'a mpsc::UnboundedSender<Event>,
    dir: PathBuf,
    client: Arc<Client>,
    info: ModelInfo,
    provider: Provider,
    st: State,
    /// Status checks failed in a row.
    poll_failures: usize,
}

impl Exec<'_> {
    /// Sends a warning (or status line) to the run's events.
    fn warn(&self, w: String) {
        let _ = self.events.send(Event::Warning(w));
    }

    /// Reads a result file (`--batch-file-in`): only answers to requests this run wrote
    /// to a request file and has no answer for yet; the rest are counted and warned about.
    fn read_results_file(&mut self, path: &Path) -> Result<(), RunError> {
        let name = path
            .file_name()
            .map_or_else(|| "results".into(), |n| n.to_string_lossy().into_owned());
        let expected: HashSet<String> = self
            .st
            .written
            .iter()
            .filter(|c| self.st.results.get(*c).is_none_or(|r| r.output.is_none()))
            .cloned()
            .collect();
        let (mut rs, warns, _) = ingest_file(
            path,
            &format!("file:{name}"),
            None,
            Some(&expected),
            &self.client.params().tags(),
        )
        .map_err(io_err(path))?;
        cap_outputs(&mut rs, self.client.limits().max_reply_bytes);
        for w in warns {
            self.warn(w);
        }
        self.warn(format!(
            "{STATUS_PREFIX}{} results read from {}",
            rs.len(),
            path.display()
        ));
        let prices = self.client.prices().clone();
        let probe = Replay::new(HashMap::new(), prices, self.info.name.clone(), None);
        for s in spend_lines(&probe, &rs) {
            self.client.record_spend(&s);
        }
        state::save_results(&self.dir, &rs)?;
        state::log(
            &self.dir,
            &event("ingested", &format!("file:{name}"), None, None),
        )?;
        for r in rs {
            self.st.results.insert(r.custom_id.clone(), r);
        }
        Ok(())
    }

    /// The run loop: replay, then ask for what is missing, until every sample is
    /// written or the run stops.
    async fn run(
        &mut self,
        rp: &Arc<Replay>,
        out: &mut Appender,
        mut todo: Vec<Job>,
        run_id: &str,
        cancel: &mut watch::Receiver<bool>,
    ) -> Result<BatchOutcome, RunError> {
        let batch = self.batch;
        loop {
            // 1. Replay: write every sample whose answers are all in hand.
            let (finished, waiting) = replay(self.spec, rp, std::mem::take(&mut todo)).await;
            for rec in finished {
                out.append_sample(&rec)?;
                let _ = self.events.send(Event::Sample(Box::new(rec)));
            }
            todo = waiting;
            let mut pending = rp
                .pending
                .lock()
                .map(|mut p| std::mem::take(&mut *p))
                .unwrap_or_default();
            if todo.is_empty() {
                return Ok(BatchOutcome::Finished);
            }
            if *cancel.borrow() {
                return Ok(BatchOutcome::Cancelled);
            }
            // 2. The response cache answers what it can, for free.
            if self.answer_from_cache(rp, &mut pending)? {
                continue;
            }
            // 3. New requests: those no open batch holds already.
            let (parts, worst) = self.new_parts(rp, pending)?;
            let api = match &batch.mode {
                Mode::Files { out_dir, .. } => {
                    return self.write_files(out_dir.as_deref(), run_id, &parts);
                }
                Mode::Api(api) => api,
            };
            // 4. Submit each part; its id goes to disk before anything else.
            if let Some(end) = self.submit(api, parts, &worst).await? {
                return Ok(end);
            }
            if self.st.open.is_empty() {
                // Nothing out and nothing submitted: only the budget stops here.
                if self.client.budget().is_some_and(|b| b.exhausted()) {
                    return Ok(BatchOutcome::Cancelled);
                }
                continue;
            }
            // 5. Wait for the open batches; ingest each as it ends.
            if let Some(end) = self.wait(api, rp, cancel).await? {
                return Ok(end);
            }
        }
    }

    /// Answers pending calls from the response cache; true when some were (the loop
    /// then replays again).
    fn answer_from_cache(
        &self,
        rp: &Replay,
        pending: &mut Vec<(String, ChatRequest)>,
    ) -> Result<bool, RunError> {
        let Some(c) = self.client.cache() else {
            return Ok(false);
        };
        let mut hits = Vec::new();
        pending.retain(
            |(cid, req)| match c.get(&crate::llm::cache::key(&self.info, req)) {
                Some(done) => {
                    let mut r = StoredResult::from_line(cid.clone(), "cache", Ok(done));
                    r.cached = true;
                    hits.push(r);
                    false
                }
                None => true,
            },
        );
        if hits.is_empty() {
            return Ok(false);
        }
        state::save_results(&self.dir, &hits)?;
        if let Ok(mut m) = rp.results.write() {
            for h in hits {
                m.insert(h.custom_id.clone(), h);
            }
        }
        Ok(true)
    }

    /// The pending calls no open batch holds, as request lines split into parts, with
    /// each request's worst-case batch cost; lines over the byte limit are stored as
    /// errors.
    fn new_parts(
        &self,
        rp: &Replay,
        pending: Vec<(String, ChatRequest)>,
    ) -> Result<(Parts, HashMap<String, f64>), RunError> {
        let in_flight: HashSet<String> = self
            .st
            .in_flight()
            .into_iter()
            .map(str::to_string)
            .collect();
        let fresh: Vec<(String, ChatRequest)> = pending
            .into_iter()
            .filter(|(cid, _)| !in_flight.contains(cid))
            .collect();
        let lines: Vec<(String, String)> = fresh
            .iter()
            .map(|(cid, req)| {
                (
                    cid.clone(),
                    batch_api::request_line(self.provider, &self.info.name, cid, req),
                )
            })
            .collect();
        let worst: HashMap<String, f64> = fresh
            .iter()
            .map(|(cid, req)| {
                let w = self.client.worst_cost(req).unwrap_or(f64::INFINITY);
                let factor = self
                    .client
                    .prices()
                    .get(&self.info.name)
                    .and_then(|p| p.batch)
                    .unwrap_or(crate::llm::prices::BATCH_FACTOR);
                (cid.clone(), w * factor)
            })
            .collect();
        let (parts, too_big) = split(lines, self.batch.max_requests, self.batch.max_bytes);
        if !too_big.is_empty() {
            state::save_results(&self.dir, &too_big)?;
            if let Ok(mut m) = rp.results.write() {
                for r in too_big {
                    m.insert(r.custom_id.clone(), r);
                }
            }
        }
        Ok((parts, worst))
    }

    /// Batch files: writes the parts as request files to `out_dir` (none given: only
    /// counts them) and stops, waiting for their answers.
    fn write_files(
        &self,
        out_dir: Option<&Path>,
        run_id: &str,
        parts: &Parts,
    ) -> Result<BatchOutcome, RunError> {
        let n: usize = parts.iter().map(Vec::len).sum();
        let Some(d) = out_dir else {
            return Ok(BatchOutcome::Waiting {
                pending: n,
                files: Vec::new(),
            });
        };
        let files = write_request_files(d, run_id, parts)?;
        for (f, part) in files.iter().zip(parts) {
            // The ids go with the event: only their answers are read back.
            let mut e = event("written", &format!("file:{}", f.display()), None, None);
            e.custom_ids = part.iter().map(|(c, _)| c.clone()).collect();
            state::log(&self.dir, &e)?;
        }
        Ok(BatchOutcome::Waiting { pending: n, files })
    }

    /// Submits each part within the budget, logging its id first; `Some` when the run
    /// ends (a refused submission).
    async fn submit(
        &mut self,
        api: &BatchApi,
        parts: Parts,
        worst: &HashMap<String, f64>,
    ) -> Result<Option<BatchOutcome>, RunError> {
        for part in parts {
            let reserve: f64 = part
                .iter()
                .map(|(c, _)| worst.get(c).copied().unwrap_or(0.0))
                .sum();
            if let Some(b) = self.client.budget()
                && !self.st.open.is_empty()
                && !b.room_for(reserve)
            {
                // Open batches still hold their worst case: wait for them to settle
                // at their real cost, then try this part again.
                break;
            }
            if let Some(b) = self.client.budget()
                && !b.reserve(reserve)
            {
                self.warn(format!(
                    "a batch of {} requests (worst case ${reserve:.4}) would pass --max-cost; not submitted",
                    part.len()
                ));
                break;
            }
            let lines: Vec<String> = part.iter().map(|(_, l)| l.clone()).collect();
            match api.submit(&lines).await {
                Ok(info) => {
                    let ids: Vec<String> = part.into_iter().map(|(c, _)| c).collect();
                    let mut e = event(
                        "submitted",
                        &info.id,
                        Some(self.provider),
                        Some(info.clone()),
                    );
                    e.custom_ids = ids.clone();
                    e.reserved_usd = Some(reserve);
                    state::log(&self.dir, &e)?;
                    self.warn(status_line(&info));
                    self.st.open.push((
                        info.id.clone(),
                        Open {
                            provider: Some(self.provider),
                            info,
                            custom_ids: ids,
                            reserved_usd: reserve,
                        },
                    ));
                }
                Err(e) => {
                    if let Some(b) = self.client.budget() {
                        b.settle(reserve, 0.0);
                    }
                    self.warn(format!(
                        "submitting a batch failed: {e}; the run is cancelled and resumable (--resume --batch-api)"
                    ));
                    return Ok(Some(BatchOutcome::Unreachable));
                }
            }
        }
        Ok(None)
    }

    /// Polls the open batches until one ends (or is gone); `Some` when the run ends.
    async fn wait(
        &mut self,
        api: &BatchApi,
        rp: &Replay,
        cancel: &mut watch::Receiver<bool>,
    ) -> Result<Option<BatchOutcome>, RunError> {
        loop {
            let mut progressed = false;
            let mut i = 0;
            while i < self.st.open.len() {
                match self.poll(api, rp, i, cancel).await? {
                    Poll::Next => i += 1,
                    Poll::Removed => progressed = true,
                    Poll::Again => {}
                    Poll::End(end) => return Ok(Some(end)),
                }
            }
            if progressed || self.st.open.is_empty() {
                return Ok(None);
            }
            tokio::select! {
                () = tokio::time::sleep(self.batch.poll) => {}
                changed = cancel.changed() => {
                    if changed.is_err() || *cancel.borrow() {
                        cancel_open(api, &self.st, &self.dir, self.provider, self.events).await?;
                        return Ok(Some(BatchOutcome::Cancelled));
                    }
                }
            }
        }
    }

    /// Checks the status of open batch `i`, ingesting it when it has ended.
    async fn poll(
        &mut self,
        api: &BatchApi,
        rp: &Replay,
        i: usize,
        cancel: &mut watch::Receiver<bool>,
    ) -> Result<Poll, RunError> {
        let id = self.st.open[i].0.clone();
        match api.status(&id).await {
            Ok(now) => {
                self.poll_failures = 0;
                if now != self.st.open[i].1.info {
                    self.warn(status_line(&now));
                    state::log(
                        &self.dir,
                        &event("state", &id, Some(self.provider), Some(now.clone())),
                    )?;
                }
                self.st.open[i].1.info = now.clone();
                if !now.terminal {
                    return Ok(Poll::Next);
                }
                // A download is interrupted at once by a stop (R15).
                let got = tokio::select! {
                    got = ingest(&self.dir, api, rp, &self.client, &self.st.open[i].1, &now, self.events) => got?,
                    changed = cancel.changed() => {
                        if changed.is_err() || *cancel.borrow() {
                            return Ok(Poll::End(BatchOutcome::Cancelled));
                        }
                        return Ok(Poll::Again);
                    }
                };
                match got {
                    Ok(()) => {
                        self.st.open.remove(i);
                        state::log(
                            &self.dir,
                            &event("ingested", &id, Some(self.provider), Some(now)),
                        )?;
                        if self.client.budget().is_some_and(|b| b.overrun().is_some()) {
                            // It billed more than it reserved: nothing more goes out.
                            cancel_open(api, &self.st, &self.dir, self.provider, self.events)
                                .await?;
                            return Ok(Poll::End(BatchOutcome::Cancelled));
                        }
                        Ok(Poll::Removed)
                    }
                    Err(e) => {
                        // Kept open: the next poll downloads again.
                        self.warn(format!(
                            "downloading the results of batch {id} failed: {e}; trying again"
                        ));
                        Ok(Poll::Next)
                    }
                }
            }
            // A batch the provider no longer has never ends: its requests
            // become errors, which --retry-errors submits anew.
            Err(e) if matches!(e.status, Some(404 | 410)) => {
                self.poll_failures = 0;
                let why = format!(
                    "batch {id} no longer exists at the provider (HTTP {}); its requests are errors, \
                     resubmit them with --resume --retry-errors",
                    e.status.unwrap_or(404)
                );
                self.drop_gone(rp, i, &id, &why)?;
                Ok(Poll::Removed)
            }
            Err(e) => {
                self.poll_failures += 1;
                let k = self.spec.max_consecutive_failures;
                if k > 0 && self.poll_failures >= k {
                    self.warn(format!(
                        "stopping: {k} status checks in a row failed (last: {e}); the batches keep running \
                         at the provider, resume with --resume --batch-api to collect them"
                    ));
                    return Ok(Poll::End(BatchOutcome::Unreachable));
                }
                Ok(Poll::Next)
            }
        }
    }

    /// Open batch `i` is gone at the provider: its requests are stored as errors
    /// (`why`), its reservation released, and it leaves the open list.
    fn drop_gone(&mut self, rp: &Replay, i: usize, id: &str, why: &str) -> Result<(), RunError> {
        self.warn(why.to_string());
        let o = &self.st.open[i].1;
        let gone: Vec<StoredResult> = o
            .custom_ids
            .iter()
            .map(|c| StoredResult::from_line(c.clone(), id, Err(why.to_string())))
            .collect();
        if let Some(b) = self.client.budget() {
            b.settle(o.reserved_usd, 0.0);
        }
        state::save_results(&self.dir, &gone)?;
        if let Ok(mut m) = rp.results.write() {
            for r in gone {
                m.insert(r.custom_id.clone(), r);
            }
        }
        self.st.open.remove(i);
        state::log(&self.dir, &event("ingested", id, Some(self.provider), None))?;
        Ok(())
    }

    /// Syncs the samples, passes on the last warnings and writes the manifest with the
    /// run's end.
    fn close(
        &self,
        manifest: &mut Manifest,
        outcome: &BatchOutcome,
        out: &mut Appender,
    ) -> Result<(), RunError> {
        out.sync()?;
        for w in self.client.take_warnings() {
            self.warn(w);
        }
        if let Some(l) = self.client.ledger() {
            let _ = l.sync();
        }
        if let Some(b) = self.client.budget().filter(|b| b.exhausted()) {
            self.warn(crate::run::driver::budget_stop(b));
        }
        manifest.status = match outcome {
            BatchOutcome::Finished => crate::record::RunStatus::Finished,
            _ => crate::record::RunStatus::Cancelled,
        };
        manifest.updated = Some(now_rfc3339());
        manifest.extra.insert(
            "batch".into(),
            serde_json::Value::String(match &self.batch.mode {
                Mode::Api(_) => "api".into(),
                Mode::Files { .. } => "files".into(),
            }),
        );
        store::write_manifest(&self.dir, manifest)?;
        Ok(())
    }
}
