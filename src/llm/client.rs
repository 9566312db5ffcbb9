//! The wrapper every model call goes through: in-flight bound, requests-per-minute
//! pacing, retries with exponential backoff and full jitter, Retry-After, cost.

use super::prices::PriceTable;
use super::{ChatModel, ChatRequest, Completion, LlmError, ModelInfo};
use crate::rng::Rng;
use std::sync::Arc;
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
pub const DEFAULT_MAX_REPLY_BYTES: usize = 256 * 1024;

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
}

/// Most tokens one call can plausibly use (no model has a context this large); larger
/// counts from a server are capped and flagged instead of trusted.
pub const MAX_PLAUSIBLE_TOKENS: u64 = 10_000_000;

/// A failed call after all retries.
#[derive(Clone, Debug)]
pub struct CallError {
    /// The last error.
    pub error: LlmError,
    /// Attempts made.
    pub attempts: u32,
}

/// A model with limits applied. Cheap to share behind an `Arc`.
pub struct Client {
    model: Arc<dyn ChatModel>,
    limits: Limits,
    in_flight: Semaphore,
    next_start: Mutex<Instant>,
    jitter: std::sync::Mutex<Rng>,
    prices: PriceTable,
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
        }
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
        // Full jitter spreads retries of many workers; Retry-After is a floor.
        let jittered = capped.mul_f64(0.5 + 0.5 * frac);
        match retry_after {
            Some(s) => jittered.max(Duration::from_secs_f64(
                s.min(self.limits.backoff_cap.as_secs_f64()),
            )),
            None => jittered,
        }
    }

    /// Sends a request with retries; each attempt holds an in-flight permit.
    pub async fn complete(&self, req: &ChatRequest) -> Result<CallResult, CallError> {
        let mut attempt = 0;
        loop {
            self.pace().await;
            let result = {
                let _permit = self.in_flight.acquire().await;
                let started = Instant::now();
                let r = tokio::time::timeout(self.limits.timeout, self.model.send(req)).await;
                let r = r.unwrap_or_else(|_| {
                    Err(LlmError {
                        message: format!("request timed out after {:.0?}", self.limits.timeout),
                        status: None,
                        retryable: true,
                        retry_after: None,
                    })
                });
                r.map(|c| (c, started.elapsed()))
            };
            attempt += 1;
            match result {
                Ok((mut completion, took)) => {
                    let implausible = completion.input_tokens > MAX_PLAUSIBLE_TOKENS
                        || completion.output_tokens > MAX_PLAUSIBLE_TOKENS;
                    completion.input_tokens = completion.input_tokens.min(MAX_PLAUSIBLE_TOKENS);
                    completion.output_tokens = completion.output_tokens.min(MAX_PLAUSIBLE_TOKENS);
                    let info = self.model.info();
                    // Usage the server cannot have meant is flagged and not charged:
                    // the cost is unknown, not the capped count's price.
                    let cost_usd = if info.synthetic {
                        Some(0.0)
                    } else if implausible {
                        None
                    } else {
                        self.prices.cost(
                            &info.name,
                            completion.input_tokens,
                            completion.output_tokens,
                        )
                    };
                    return Ok(CallResult {
                        completion,
                        latency_ms: took.as_millis() as u64,
                        attempts: attempt,
                        cost_usd,
                        implausible_usage: implausible,
                    });
                }
                Err(e) if e.retryable && attempt <= self.limits.max_retries => {
                    tokio::time::sleep(self.backoff(attempt - 1, e.retry_after)).await;
                }
                Err(error) => {
                    return Err(CallError {
                        error,
                        attempts: attempt,
                    });
                }
            }
        }
    }
}
