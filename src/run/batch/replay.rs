//! The replay of a batch run: every unfinished sample goes through the pipeline
//! against the answers in hand; the calls with no answer yet are collected for the
//! next batch.

use super::state::{self, StoredResult};
use crate::llm::client::{CallError, CallResult, MAX_PLAUSIBLE_TOKENS};
use crate::llm::{BoxFut, ChatRequest, Completion, LlmError};
use crate::record::SampleRecord;
use crate::run::driver::{Event, RunSpec};
use crate::run::job::{Caller, Job, Stage};
use crate::run::score::Scored;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::mpsc;

/// The answers in hand, and the calls found missing during a replay.
pub(super) struct Replay {
    /// Stored answers by custom id.
    pub(super) results: RwLock<HashMap<String, StoredResult>>,
    /// Calls a replay asked for that have no answer yet: (custom id, request).
    pub(super) pending: Mutex<Vec<(String, ChatRequest)>>,
    verdicts: Mutex<HashMap<(String, usize), Scored>>,
    /// Prices, for the batch cost of each answer.
    pub(super) prices: crate::llm::prices::PriceTable,
    /// The model's name, for batch prices.
    pub(super) model: String,
    /// Batch answers go into the response cache once, when a replay meets their request.
    cache: Option<(Arc<crate::llm::cache::ResponseCache>, crate::llm::ModelInfo)>,
    cached_ids: Mutex<HashSet<String>>,
}

impl Replay {
    /// A replay over the answers in hand.
    pub(super) fn new(
        results: HashMap<String, StoredResult>,
        prices: crate::llm::prices::PriceTable,
        model: String,
        cache: Option<(Arc<crate::llm::cache::ResponseCache>, crate::llm::ModelInfo)>,
    ) -> Replay {
        Replay {
            results: RwLock::new(results),
            pending: Mutex::new(Vec::new()),
            verdicts: Mutex::new(HashMap::new()),
            prices,
            model,
            cache,
            cached_ids: Mutex::new(HashSet::new()),
        }
    }

    fn answer(&self, r: &StoredResult) -> Result<CallResult, CallError> {
        match (&r.output, &r.error) {
            (Some(text), None) => {
                let implausible =
                    r.input_tokens > MAX_PLAUSIBLE_TOKENS || r.output_tokens > MAX_PLAUSIBLE_TOKENS;
                let (i, o) = (
                    r.input_tokens.min(MAX_PLAUSIBLE_TOKENS),
                    r.output_tokens.min(MAX_PLAUSIBLE_TOKENS),
                );
                Ok(CallResult {
                    completion: Completion {
                        text: text.clone(),
                        input_tokens: i,
                        output_tokens: o,
                        finish_reason: r.finish_reason.clone(),
                        reasoning: r.reasoning.clone(),
                        reasoning_tokens: r.reasoning_tokens,
                        reasoning_redacted: r.reasoning_redacted,
                        truncated: r.truncated,
                        unread: Vec::new(),
                    },
                    latency_ms: 0,
                    attempts: u32::from(!r.cached),
                    // Charged as reported, implausible or not (the provider bills it).
                    cost_usd: if r.cached {
                        Some(0.0)
                    } else {
                        self.prices
                            .batch_cost(&self.model, r.input_tokens, r.output_tokens)
                    },
                    implausible_usage: implausible,
                    cached: r.cached,
                    batch_id: (!r.cached).then(|| r.batch_id.clone()),
                    reported_tokens: (r.input_tokens, r.output_tokens),
                })
            }
            (_, e) => Err(CallError {
                error: LlmError::fatal(format!(
                    "{} (batch {})",
                    e.as_deref().unwrap_or("no answer"),
                    r.batch_id
                )),
                attempts: 1,
                cost_usd: None,
            }),
        }
    }
}

impl Caller for Replay {
    fn call<'a>(
        &'a self,
        id: &'a str,
        round: usize,
        stage: Stage,
        req: ChatRequest,
    ) -> BoxFut<'a, Option<Result<CallResult, CallError>>> {
        let cid = state::custom_id(id, round, stage);
        let found = self
            .results
            .read()
            .ok()
            .and_then(|m| m.get(&cid).map(|r| self.answer(r)));
        match &found {
            None => {
                if let Ok(mut p) = self.pending.lock() {
                    p.push((cid, req));
                }
            }
            Some(Ok(c)) if !c.cached => {
                if let Some((cache, info)) = &self.cache
                    && self.cached_ids.lock().is_ok_and(|mut s| s.insert(cid))
                {
                    cache.put(&crate::llm::cache::key(info, &req), info, &c.completion);
                }
            }
            Some(_) => {}
        }
        Box::pin(async move { found })
    }

    fn known_score(&self, id: &str, round: usize) -> Option<Scored> {
        self.verdicts
            .lock()
            .ok()?
            .get(&(id.to_string(), round))
            .cloned()
    }

    fn keep_score(&self, id: &str, round: usize, s: &Scored) {
        if let Ok(mut m) = self.verdicts.lock() {
            m.insert((id.to_string(), round), s.clone());
        }
    }
}

/// The samples still to do: every dataset item up to `--limit` not in `done` whose φ₀
/// parses (one that does not is a warning and is skipped).
pub(super) fn jobs(
    spec: &RunSpec,
    done: &HashSet<String>,
    events: &mpsc::UnboundedSender<Event>,
) -> Vec<Job> {
    let mut out = Vec::new();
    for item in spec
        .dataset
        .file
        .data
        .iter()
        .take(spec.limit.unwrap_or(usize::MAX))
    {
        let id = item.idx.to_string();
        if done.contains(&id) {
            continue;
        }
        match Job::of(item, spec.dataset.syntax, spec.pipeline.task.is_some()) {
            Ok(job) => out.push(job),
            Err(e) => {
                let _ = events.send(Event::Warning(format!(
                    "sample {id}: φ₀ does not parse ({e}); skipped"
                )));
            }
        }
    }
    out
}

/// Replays every job in parallel: finished ones come back as records, the rest stay.
pub(super) async fn replay(
    spec: &RunSpec,
    rp: &Arc<Replay>,
    todo: Vec<Job>,
) -> (Vec<SampleRecord>, Vec<Job>) {
    let width = std::thread::available_parallelism().map_or(2, usize::from) * 2;
    let mut set = tokio::task::JoinSet::new();
    let mut iter = todo.into_iter();
    let (mut finished, mut waiting) = (Vec::new(), Vec::new());
    loop {
        while set.len() < width {
            let Some(job) = iter.next() else { break };
            let (p, r) = (spec.pipeline.clone(), rp.clone());
            set.spawn(async move {
                let rec = p.process_with(job.clone(), r.as_ref()).await;
                (job, rec)
            });
        }
        match set.join_next().await {
            Some(Ok((_, Some(rec)))) => finished.push(rec),
            Some(Ok((job, None))) => waiting.push(job),
            // A crashed replay leaves its sample for the next run; never fatal.
            Some(Err(_)) => {}
            None => break,
        }
    }
    (finished, waiting)
}
