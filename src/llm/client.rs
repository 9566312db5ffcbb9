//! The wrapper every model call goes through: in-flight bound, requests-per-minute
//! pacing, retries with exponential backoff and equal jitter, Retry-After, cost.

use super::budget::{self, Budget};
use super::cache::{self, ResponseCache};
use super::ledger::{Ledger, Spend, SpendKind};
use super::prices::PriceTable;
use super::request::RequestParams;
use super::{ChatModel, ChatRequest, Completion, LlmError, ModelInfo};
use crate::base::rng::Rng;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, Semaphore};

/// Request limits and retry policy.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Requests in flight at once.
    pub max_in_flight: usize,
    /// Requests started per minute (`None`: unlimited).
    pub rpm: Option<u32>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff step.
    pub backoff_base: Duration,
    /// Longest single wait.
    pub backoff_cap: Duration,
    /// Most bytes read of one reply; a longer reply is a model error naming the cap.
    pub max_reply_bytes: usize,
}

/// Default reply cap: far above any formula or description, far below a runaway reply.
pub(crate) const DEFAULT_MAX_REPLY_BYTES: usize = 256 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_in_flight: 8,
            rpm: None,
            timeout: Duration::from_secs(120),
            max_retries: 5,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(60),
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
        }
    }
}

/// A completed call with its accounting.
#[derive(Clone, Debug)]
pub struct CallResult {
    /// The answer.
    pub completion: Completion,
    /// Wall time of the successful attempt, in ms.
    pub latency_ms: u64,
    /// Attempts made (1 = no retry).
    pub attempts: u32,
    /// Cost in USD, if the model is priced.
    pub cost_usd: Option<f64>,
    /// The server's token counts could not be real and were capped.
    pub implausible_usage: bool,
    /// Answered from the response cache: no request was made and it cost nothing.
    pub cached: bool,
    /// The provider batch that answered it (live calls: none).
    pub batch_id: Option<String>,
    /// Token counts (in, out) as the server reported them, before any cap.
    pub reported_tokens: (u64, u64),
}

/// Most tokens one call can plausibly use (no model has a context this large); larger
/// counts from a server are capped and flagged instead of trusted.
pub(crate) const MAX_PLAUSIBLE_TOKENS: u64 = 10_000_000;

/// A failed call after all retries.
#[derive(Clone, Debug)]
pub struct CallError {
    /// The last error.
    pub error: LlmError,
    /// Attempts made.
    pub attempts: u32,
    /// What the failed call billed, when the server reported usage with it (a refusal,
    /// an unreadable answer): priced like an answer.
    pub cost_usd: Option<f64>,
}

/// A model with limits applied. Cheap to share behind an `Arc`.
pub struct Client {
    model: Arc<dyn ChatModel>,
    limits: Limits,
    in_flight: Semaphore,
    next_start: Mutex<Instant>,
    jitter: std::sync::Mutex<Rng>,
    prices: PriceTable,
    cache: Option<Arc<ResponseCache>>,
    budget: Option<Arc<Budget>>,
    ledger: Option<Arc<Ledger>>,
    notes: std::sync::Mutex<Vec<String>>,
    unread_seen: std::sync::Mutex<std::collections::HashSet<String>>,
    params: Arc<RequestParams>,
}

impl Client {
    /// Wraps a model.
    pub fn new(model: Arc<dyn ChatModel>, limits: Limits, prices: PriceTable) -> Client {
        Client {
            model,
            in_flight: Semaphore::new(limits.max_in_flight.max(1)),
            limits,
            next_start: Mutex::new(Instant::now()),
            jitter: std::sync::Mutex::new(Rng::new(0x5eed)),
            prices,
            cache: None,
            budget: None,
            ledger: None,
            notes: std::sync::Mutex::new(Vec::new()),
            unread_seen: std::sync::Mutex::new(std::collections::HashSet::new()),
            params: Arc::new(RequestParams::plain(
                super::request::DEFAULT_TEMPERATURE,
                1024,
            )),
        }
    }

    /// Sends every request with these settings (resolved from the model's profile).
    pub fn with_params(mut self, params: RequestParams) -> Client {
        self.params = Arc::new(params);
        self
    }

    /// The request settings in force.
    pub fn params(&self) -> &Arc<RequestParams> {
        &self.params
    }

    /// A request for `prompt` with the run's settings.
    pub fn request(&self, prompt: String) -> ChatRequest {
        ChatRequest::new(prompt, self.params.clone())
    }

    /// Answers from (and stores into) a response cache. The offline model is never cached.
    pub fn with_cache(mut self, cache: Arc<ResponseCache>) -> Client {
        if !self.model.info().synthetic {
            self.cache = Some(cache);
        }
        self
    }

    /// Refuses calls whose worst-case cost would pass the budget.
    pub(crate) fn with_budget(mut self, budget: Arc<Budget>) -> Client {
        self.budget = Some(budget);
        self
    }

    /// Records every billed call in `ledger` (a run's `spend.jsonl`).
    pub(crate) fn with_ledger(mut self, ledger: Arc<Ledger>) -> Client {
        self.ledger = Some(ledger);
        self
    }

    /// The spend ledger, if any.
    pub fn ledger(&self) -> Option<&Arc<Ledger>> {
        self.ledger.as_ref()
    }

    /// Writes a ledger line; a line that cannot be written stops a budgeted run (its
    /// spend could no longer be counted) and is warned about.
    pub(crate) fn record_spend(&self, s: &Spend) {
        let Some(l) = &self.ledger else {
            return;
        };
        if let Err(e) = l.record(s) {
            if let Some(b) = &self.budget {
                b.stop();
            }
            self.warn(format!(
                "the spend ledger {} could not be written ({e}); spend of call {} is not recorded{}",
                l.path().display(),
                s.call,
                if self.budget.is_some() {
                    "; stopping, as --max-cost could no longer count it"
                } else {
                    ""
                }
            ));
        }
    }

    /// The response cache, if on.
    pub fn cache(&self) -> Option<&Arc<ResponseCache>> {
        self.cache.as_ref()
    }

    /// The budget, if any.
    pub fn budget(&self) -> Option<&Arc<Budget>> {
        self.budget.as_ref()
    }

    /// The price table.
    pub fn prices(&self) -> &PriceTable {
        &self.prices
    }

    /// Queues a warning for the run to show (set-up problems that did not stop it).
    pub fn warn(&self, message: String) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(message);
        }
    }

    /// Warns once per chunk type of a reply that was not read (kept raw in the record).
    fn warn_unread(&self, chunks: &[serde_json::Value]) {
        let mut names: Vec<String> = chunks
            .iter()
            .map(|c| {
                c["type"].as_str().map_or_else(
                    || "(untyped)".to_string(),
                    |t| {
                        crate::base::sanitize::one_line(t)
                            .chars()
                            .take(60)
                            .collect()
                    },
                )
            })
            .collect();
        names.sort();
        names.dedup();
        let new: Vec<String> = match self.unread_seen.lock() {
            Ok(mut seen) => names
                .into_iter()
                .filter(|n| seen.len() < 64 && seen.insert(n.clone()))
                .collect(),
            Err(_) => return,
        };
        for n in new {
            self.warn(format!(
                "the reply held a part of type {n:?} that autoeval does not read; it is kept \
                 raw in the call's record (`unread`) and was not scored — see \
                 docs/src/guide/reasoning-models.md to add a shape"
            ));
        }
    }

    /// Warnings (set-up notes, then the cache's) since the last call.
    pub(crate) fn take_warnings(&self) -> Vec<String> {
        let mut out = self
            .notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default();
        if let Some(c) = &self.cache {
            out.extend(c.take_warnings());
        }
        out
    }

    /// Worst-case cost of a request: every prompt byte a token, the full output limit
    /// (which reasoning counts against, so it is the worst case with reasoning too).
    pub(crate) fn worst_cost(&self, req: &ChatRequest) -> Option<f64> {
        let info = self.model.info();
        if info.synthetic {
            return Some(0.0);
        }
        self.prices.cost(
            &info.name,
            budget::worst_input_tokens(req.prompt.len()),
            u64::from(req.max_tokens()),
        )
    }

    /// Manifest description of the model.
    pub fn info(&self) -> ModelInfo {
        self.model.info()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    async fn pace(&self) {
        let Some(rpm) = self.limits.rpm.filter(|r| *r > 0) else {
            return;
        };
        let interval = Duration::from_secs_f64(60.0 / rpm as f64);
        let start = {
            let mut next = self.next_start.lock().await;
            let now = Instant::now();
            let slot = (*next).max(now);
            *next = slot + interval;
            slot
        };
        tokio::time::sleep_until(start.into()).await;
    }

    fn backoff(&self, attempt: u32, retry_after: Option<f64>) -> Duration {
        let exp = self
            .limits
            .backoff_base
            .saturating_mul(1u32 << attempt.min(16));
        let capped = exp.min(self.limits.backoff_cap);
        let frac = self.jitter.lock().map_or(0.5, |mut r| r.unit());
        // Equal jitter (half the capped delay, plus a random share of the other half)
        // spreads retries of many workers yet never retries at once; Retry-After is a floor.
        let jittered = capped.mul_f64(0.5 + 0.5 * frac);
        match retry_after {
            Some(s) => jittered.max(Duration::from_secs_f64(
                s.min(self.limits.backoff_cap.as_secs_f64()),
            )),
            None => jittered,
        }
    }

    /// Answers from the cache, else sends the request with retries (each attempt holds an
    /// in-flight permit) within the budget, and caches a successful answer.
    pub async fn complete(&self, req: &ChatRequest) -> Result<CallResult, CallError> {
        self.complete_as(req, "").await
    }

    /// [`Client::complete`] for the call named `call` (`SAMPLE_rROUND_i`) in the
    /// spend ledger: its bill is recorded as soon as it is known, and a request
    /// dropped after it was sent (a stop) is recorded at its worst case.
    pub async fn complete_as(
        &self,
        req: &ChatRequest,
        call: &str,
    ) -> Result<CallResult, CallError> {
        let key = self
            .cache
            .as_ref()
            .map(|_| cache::key(&self.model.info(), req));
        if let (Some(c), Some(k)) = (&self.cache, &key)
            && let Some(completion) = c.get(k)
        {
            return Ok(CallResult {
                completion,
                latency_ms: 0,
                attempts: 0,
                cost_usd: Some(0.0),
                implausible_usage: false,
                cached: true,
                batch_id: None,
                reported_tokens: (0, 0),
            });
        }
        let reserved = match &self.budget {
            Some(b) => {
                // An unpriced model cannot be budgeted: the CLI refuses that before starting.
                let worst = self.worst_cost(req).unwrap_or(f64::INFINITY);
                if !b.reserve(worst) {
                    return Err(CallError {
                        error: LlmError::fatal(b.refusal()),
                        attempts: 0,
                        cost_usd: None,
                    });
                }
                Some((b, worst))
            }
            None => None,
        };
        let mut guard = InFlight {
            client: self,
            call,
            worst: reserved
                .as_ref()
                .map(|(_, w)| *w)
                .or_else(|| self.worst_cost(req)),
            budget: reserved.as_ref().map(|(b, _)| (*b).clone()),
            sent: AtomicBool::new(false),
            done: false,
        };
        let mut r = self.send_with_retries(req, &guard.sent).await;
        guard.done = true;
        // A failed call the server reported usage for was billed: it is priced, counted
        // against the budget and written to the ledger like an answer.
        let billed = r.as_ref().err().and_then(|e| e.error.billed);
        if let (Err(e), Some((i, o))) = (&mut r, billed) {
            let info = self.model.info();
            e.cost_usd = if info.synthetic {
                Some(0.0)
            } else {
                self.prices.cost(&info.name, i, o)
            };
        }
        let mut overrun = false;
        if let Some((b, worst)) = reserved {
            let spent = match &r {
                Ok(c) => c.cost_usd,
                Err(e) => e.cost_usd,
            }
            .unwrap_or(0.0);
            overrun = b.settle_checked(worst, spent, &format!("call {}", shown(call)));
        }
        let bill = match &r {
            Ok(c) => Some((c.cost_usd, c.reported_tokens, c.implausible_usage)),
            Err(e) => billed.map(|t| (e.cost_usd, t, false)),
        };
        if let Some((cost, tokens, implausible)) = bill {
            let mut s = Spend::new(SpendKind::Live, call, cost);
            (s.input_tokens, s.output_tokens) = tokens;
            s.reserved_usd = guard.budget.as_ref().and(guard.worst);
            s.implausible = implausible;
            s.overrun = overrun;
            self.record_spend(&s);
        }
        if let Ok(c) = &r
            && !c.completion.unread.is_empty()
        {
            self.warn_unread(&c.completion.unread);
        }
        if let (Some(c), Some(k), Ok(done)) = (&self.cache, &key, &r) {
            c.put(k, &self.model.info(), &done.completion);
        }
        r
    }

    async fn send_with_retries(
        &self,
        req: &ChatRequest,
        sent: &AtomicBool,
    ) -> Result<CallResult, CallError> {
        let mut attempt = 0;
        loop {
            self.pace().await;
            let result = {
                let _permit = self.in_flight.acquire().await;
                let started = Instant::now();
                sent.store(true, Ordering::SeqCst);
                let r = tokio::time::timeout(self.limits.timeout, self.model.send(req)).await;
                let r = r.unwrap_or_else(|_| {
                    Err(LlmError {
                        message: format!("request timed out after {:.0?}", self.limits.timeout),
                        status: None,
                        retryable: true,
                        retry_after: None,
                        unreadable: false,
                        billed: None,
                    })
                });
                r.map(|c| (c, started.elapsed()))
            };
            attempt += 1;
            match result {
                Ok((mut completion, took)) => {
                    let reported = (completion.input_tokens, completion.output_tokens);
                    let implausible = completion.input_tokens > MAX_PLAUSIBLE_TOKENS
                        || completion.output_tokens > MAX_PLAUSIBLE_TOKENS;
                    completion.input_tokens = completion.input_tokens.min(MAX_PLAUSIBLE_TOKENS);
                    completion.output_tokens = completion.output_tokens.min(MAX_PLAUSIBLE_TOKENS);
                    completion.reasoning_tokens = completion
                        .reasoning_tokens
                        .map(|r| r.min(completion.output_tokens));
                    let info = self.model.info();
                    // Usage the server cannot have meant is flagged, yet charged as
                    // reported: a provider bills what it reports, and --max-cost must see it.
                    let cost_usd = if info.synthetic {
                        Some(0.0)
                    } else {
                        self.prices.cost(&info.name, reported.0, reported.1)
                    };
                    return Ok(CallResult {
                        completion,
                        latency_ms: took.as_millis() as u64,
                        attempts: attempt,
                        cost_usd,
                        implausible_usage: implausible,
                        cached: false,
                        batch_id: None,
                        reported_tokens: reported,
                    });
                }
                // An error the server answered with is not billed; a timeout may be.
                Err(e) if e.status.is_some() => {
                    sent.store(false, Ordering::SeqCst);
                    if e.retryable && attempt <= self.limits.max_retries {
                        tokio::time::sleep(self.backoff(attempt - 1, e.retry_after)).await;
                    } else {
                        return Err(CallError {
                            error: e,
                            attempts: attempt,
                            cost_usd: None,
                        });
                    }
                }
                Err(e) if e.retryable && attempt <= self.limits.max_retries => {
                    tokio::time::sleep(self.backoff(attempt - 1, e.retry_after)).await;
                }
                Err(error) => {
                    return Err(CallError {
                        error,
                        attempts: attempt,
                        cost_usd: None,
                    });
                }
            }
        }
    }
}

/// A call name as a message shows it.
fn shown(call: &str) -> String {
    if call.is_empty() {
        "a call".into()
    } else {
        super::ledger::safe_id(call)
    }
}

/// A call in progress. Dropped before its reply (the sample was aborted by a stop),
/// it settles its reservation and, if a request had gone out, records the worst case
/// as spent: the server may have billed it, and --max-cost must not forget that.
struct InFlight<'c> {
    client: &'c Client,
    call: &'c str,
    worst: Option<f64>,
    budget: Option<Arc<Budget>>,
    sent: AtomicBool,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let sent = self.sent.load(Ordering::SeqCst);
        if let (Some(b), Some(w)) = (&self.budget, self.worst) {
            b.settle(w, if sent { w } else { 0.0 });
        }
        if sent {
            let mut s = Spend::new(SpendKind::Interrupted, self.call, self.worst);
            s.reserved_usd = self.budget.as_ref().and(self.worst);
            self.client.record_spend(&s);
        }
    }
}
