//! A live run's loop: samples started up to the concurrency limit, written as they
//! finish, refusals and unreachable servers counted, pause and cancel obeyed.

use super::{
    Event, Outcome, REFUSED_AT_START, REFUSED_IN_A_ROW, RunError, RunSpec, budget_stop, prepare,
};
use crate::llm::Client;
use crate::record::{Manifest, SampleRecord, now_rfc3339};
use crate::run::pipeline::Job;
use crate::run::store::{self, Appender, SAMPLES};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// Dataset items still to start.
type Queue<'a> = std::iter::Take<std::slice::Iter<'a, crate::dataset::Item>>;

/// [`super::execute`] on a borrowed spec (an adaptive run executes one spec per
/// round).
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
    for w in client.take_warnings() {
        let _ = events.send(Event::Warning(w));
    }
    let mut run = LiveRun {
        spec,
        events,
        client,
        done: &done,
        out: Appender::open(&spec.out.join(SAMPLES))?,
        set: JoinSet::new(),
        ids: HashMap::new(),
        queue: spec.dataset.file.data.iter().take(limit),
        parked: None,
        exhausted: false,
        held: Vec::new(),
        answered: 0,
        failures_in_a_row: 0,
    };
    let mut outcome = Outcome::Finished;
    let mut pause = spec.pause.clone();
    // What run.json says: `paused` while the switch holds the run, so a reader (another
    // viewer, `autoeval runs`) does not take a held run for one making progress.
    let mut recorded_pause = false;
    loop {
        let paused = pause.as_ref().is_some_and(|p| *p.borrow());
        if paused != recorded_pause {
            recorded_pause = paused;
            record_pause(spec, &mut manifest, paused)?;
        }
        if !paused {
            run.start_samples(cancel);
        }
        if run.set.is_empty() {
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
            joined = run.set.join_next_with_id() => match joined {
                Some(Ok((tid, rec))) => {
                    if let Some(end) = run.finished(tid, rec).await? {
                        outcome = end;
                        break;
                    }
                }
                Some(Err(e)) => run.lost(&e),
                None => break,
            },
            changed = cancel.changed() => {
                if changed.is_err() || *cancel.borrow() {
                    // In-flight samples are dropped unwritten; --resume redoes them.
                    // Their verifier checks are interrupted, not waited for.
                    crate::verify::z3_logic::interrupt_all();
                    run.abort().await;
                    outcome = Outcome::Cancelled;
                    break;
                }
            }
        }
    }
    run.close(outcome, cancel, &mut manifest)
}

/// Records in run.json that the run is paused or running again.
fn record_pause(spec: &RunSpec, manifest: &mut Manifest, paused: bool) -> Result<(), RunError> {
    manifest.status = if paused {
        crate::record::RunStatus::Paused
    } else {
        crate::record::RunStatus::Running
    };
    manifest.updated = Some(now_rfc3339());
    store::write_manifest(&spec.out, manifest)?;
    Ok(())
}

/// A live run's state between its steps.
struct LiveRun<'a> {
    spec: &'a RunSpec,
    events: &'a mpsc::UnboundedSender<Event>,
    client: Arc<Client>,
    /// Samples finished in earlier sessions.
    done: &'a HashSet<String>,
    out: Appender,
    /// Samples in flight, with their ids by task.
    set: JoinSet<SampleRecord>,
    ids: HashMap<tokio::task::Id, String>,
    queue: Queue<'a>,
    /// A job the budget could not start yet beside the samples in flight.
    parked: Option<Job>,
    /// Every item was started.
    exhausted: bool,
    /// Refused samples are held back until a sample gets an answer: when the refusals
    /// repeat, the run stops without them, so --resume asks them again.
    held: Vec<SampleRecord>,
    /// Samples answered in this session.
    answered: usize,
    /// Samples in a row that could not reach the server.
    failures_in_a_row: usize,
}

impl LiveRun<'_> {
    /// Passes on the client's warnings.
    fn warn_all(&self) {
        for w in self.client.take_warnings() {
            let _ = self.events.send(Event::Warning(w));
        }
    }

    /// Starts samples up to the concurrency limit, while the budget allows.
    fn start_samples(&mut self, cancel: &watch::Receiver<bool>) {
        let over_budget = || self.client.budget().is_some_and(|b| b.exhausted());
        let syntax = self.spec.dataset.syntax;
        let task = self.spec.pipeline.task.is_some();
        while self.set.len() < self.spec.concurrency.max(1) && !*cancel.borrow() && !over_budget() {
            let Some(job) = self
                .parked
                .take()
                .or_else(|| next_job(&mut self.queue, syntax, task, self.done, self.events))
            else {
                self.exhausted = true;
                break;
            };
            if !self.spec.pipeline.affordable(&job, self.set.len()) {
                // Leave room for the samples in flight to finish; stop once none are.
                if self.set.is_empty() {
                    if let Some(b) = self.client.budget() {
                        b.stop();
                    }
                } else {
                    self.parked = Some(job);
                }
                break;
            }
            let p = self.spec.pipeline.clone();
            let id = job.id.clone();
            let handle = self.set.spawn(async move { p.process(job).await });
            self.ids.insert(handle.id(), id);
        }
    }

    /// A sample's task ended without a record (aborted, or panicked: then warned about).
    fn lost(&mut self, e: &tokio::task::JoinError) {
        let id = self.ids.remove(&e.id()).unwrap_or_default();
        if !e.is_cancelled() {
            let _ = self.events.send(Event::Warning(format!(
                "sample {id}: internal error ({e}); not written — run again with --resume to retry it"
            )));
        }
    }

    /// Writes a sample and everything it decides; `Some` when the run stops.
    async fn finished(
        &mut self,
        tid: tokio::task::Id,
        rec: SampleRecord,
    ) -> Result<Option<Outcome>, RunError> {
        self.ids.remove(&tid);
        self.warn_all();
        if refused_by_budget(&rec) {
            // Not a model error: the sample was never asked; --resume does it.
            return Ok(None);
        }
        if let Some((cause, message)) = refused_request(&rec) {
            return self.refused(rec, &cause, &message).await;
        }
        self.answered += 1;
        self.write_held()?;
        self.out.append_sample(&rec)?;
        self.failures_in_a_row = if rec.transport_failure() {
            self.failures_in_a_row + 1
        } else {
            0
        };
        let last_error = rec
            .rounds
            .last()
            .and_then(|r| {
                r.autoformalize
                    .as_ref()
                    .and_then(|c| c.error.clone())
                    .or(r.informalize.error.clone())
            })
            .unwrap_or_default();
        let _ = self.events.send(Event::Sample(Box::new(rec)));
        Ok(self.unreachable(&last_error).await)
    }

    /// Holds a refused sample; `Some` when the refusals repeat and stop the run.
    async fn refused(
        &mut self,
        rec: SampleRecord,
        cause: &str,
        message: &str,
    ) -> Result<Option<Outcome>, RunError> {
        let same = self
            .held
            .last()
            .and_then(refused_request)
            .is_none_or(|(s, _)| s == cause);
        if !same {
            self.write_held()?;
        }
        self.held.push(rec);
        let at_start = self.answered == 0 && self.done.is_empty();
        let n = self.held.len();
        if n < REFUSED_IN_A_ROW && !(at_start && n >= REFUSED_AT_START) {
            return Ok(None);
        }
        let when = if at_start {
            " at the start of the run"
        } else {
            ""
        };
        let what = if cause == "unreadable" {
            format!("no answer could be read from {n} replies in a row{when}")
        } else {
            format!("the server refused {n} requests in a row{when} with {cause}")
        };
        let _ = self.events.send(Event::Warning(format!(
            "stopping: {what}: {}\n\
             nothing more is sent; these samples are not written, so once the \
             settings are fixed (see docs/src/guide/reasoning-models.md), continue with:\n  {}",
            crate::base::sanitize::one_line(message),
            crate::run::resume_check::resume_command(&self.spec.command, at_start)
        )));
        self.held.clear();
        self.abort().await;
        Ok(Some(Outcome::Refused))
    }

    /// After `--max-consecutive-failures` samples in a row that could not reach the
    /// server: pauses the run when someone watches it, else stops it (`Some`).
    async fn unreachable(&mut self, last_error: &str) -> Option<Outcome> {
        let k = self.spec.max_consecutive_failures;
        if k == 0 || self.failures_in_a_row < k {
            return None;
        }
        if let Some(switch) = &self.spec.pause_switch {
            // Someone is watching (the viewer): hold the run until they resume it.
            switch.send_replace(true);
            self.failures_in_a_row = 0;
            let _ = self.events.send(Event::Warning(format!(
                "paused: {k} samples in a row could not reach the server (last: {last_error}); \
                 resume once it answers (the failed samples can be redone with retry errors)"
            )));
            return None;
        }
        let _ = self.events.send(Event::Warning(format!(
            "stopping: {k} samples in a row could not reach the server (last: {last_error}); \
             the run is cancelled and resumable: once the server answers, continue with \
             --resume --retry-errors"
        )));
        self.abort().await;
        Some(Outcome::Cancelled)
    }

    /// Writes the held refused samples.
    fn write_held(&mut self) -> Result<(), RunError> {
        for r in self.held.drain(..) {
            self.out.append_sample(&r)?;
            let _ = self.events.send(Event::Sample(Box::new(r)));
        }
        Ok(())
    }

    /// Stops the samples in flight and waits until they are gone.
    async fn abort(&mut self) {
        self.set.abort_all();
        while self.set.join_next().await.is_some() {}
    }

    /// Settles the outcome (a cancel, the budget), writes what is held and records the
    /// run's end in the manifest.
    fn close(
        mut self,
        mut outcome: Outcome,
        cancel: &watch::Receiver<bool>,
        manifest: &mut Manifest,
    ) -> Result<Outcome, RunError> {
        // A cancel seen while nothing was in flight must not read as a finished run.
        if outcome == Outcome::Finished && *cancel.borrow() && !self.exhausted {
            outcome = Outcome::Cancelled;
        }
        if let Some(b) = self.client.budget().filter(|b| b.exhausted()) {
            // A refused call means an unfinished sample: the run stops short of the limit.
            outcome = Outcome::Cancelled;
            let _ = self.events.send(Event::Warning(budget_stop(b)));
        }
        // Refusals that did not repeat are ordinary model errors of their samples.
        if outcome != Outcome::Refused {
            self.write_held()?;
        }
        if let Some(l) = self.client.ledger() {
            let _ = l.sync();
        }
        self.warn_all();
        self.out.sync()?;
        manifest.status = match outcome {
            Outcome::Finished => crate::record::RunStatus::Finished,
            Outcome::Cancelled | Outcome::Refused => crate::record::RunStatus::Cancelled,
        };
        manifest.updated = Some(now_rfc3339());
        store::write_manifest(&self.spec.out, manifest)?;
        Ok(outcome)
    }
}

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

/// Jobs are made one at a time as tasks start: φ₀ is parsed then, and an item whose
/// φ₀ does not parse becomes a warning instead of a job.
fn next_job(
    items: &mut Queue<'_>,
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

/// Waits until the pause switch flips; never, without a switch (or once it is gone).
async fn pause_flipped(pause: Option<&mut watch::Receiver<bool>>) {
    if let Some(p) = pause
        && p.changed().await.is_ok()
    {
        return;
    }
    std::future::pending::<()>().await;
}

/// Whether a call of the sample was refused by the `--max-cost` budget.
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
