//! Several endpoints serving one model: requests go round-robin, each endpoint with
//! its own in-flight bound; one that fails K times in a row (a 400, a broken reply, a
//! 5xx, a timeout) rests for a while and the run goes on on the others. A request one
//! endpoint failed is tried at once on another, and a `Retry-After` rests only the
//! endpoint that sent it.

use super::{BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// When an endpoint is rested.
#[derive(Clone, Copy, Debug)]
pub struct RestPolicy {
    /// Consecutive failures (transport errors, 429, 5xx) that rest an endpoint.
    pub after: u32,
    /// How long it rests before it is tried again.
    pub rest: Duration,
}

impl Default for RestPolicy {
    fn default() -> Self {
        RestPolicy {
            after: 3,
            rest: Duration::from_secs(60),
        }
    }
}

struct Member {
    model: Arc<dyn ChatModel>,
    slots: Semaphore,
    /// (failures in a row, resting until).
    health: Mutex<(u32, Option<Instant>)>,
}

/// A model behind several endpoints.
pub struct Pool {
    members: Vec<Member>,
    next: AtomicUsize,
    policy: RestPolicy,
}

impl Pool {
    /// A pool of `models` (one per endpoint), each with `per_endpoint` requests in flight.
    pub fn new(models: Vec<Arc<dyn ChatModel>>, per_endpoint: usize, policy: RestPolicy) -> Pool {
        Pool {
            members: models
                .into_iter()
                .map(|model| Member {
                    model,
                    slots: Semaphore::new(per_endpoint.max(1)),
                    health: Mutex::new((0, None)),
                })
                .collect(),
            next: AtomicUsize::new(0),
            policy,
        }
    }

    /// The endpoint for the next try of a request: round-robin over those not resting
    /// and not `tried` for it; `None` when none is left. On a request's first try with
    /// every endpoint resting, the one whose rest ends first.
    fn pick(&self, tried: &[bool]) -> Option<usize> {
        let n = self.members.len();
        if n == 0 {
            return None;
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut soonest = None::<(usize, Instant)>;
        for k in 0..n {
            let i = (start + k) % n;
            if tried[i] {
                continue;
            }
            match self.members[i].health.lock().map_or(None, |h| h.1) {
                Some(t) if t > now => {
                    if soonest.is_none_or(|(_, s)| t < s) {
                        soonest = Some((i, t));
                    }
                }
                _ => return Some(i),
            }
        }
        let first_try = !tried.iter().any(|t| *t);
        soonest.filter(|_| first_try).map(|(i, _)| i)
    }

    /// Longest rest a `Retry-After` can ask for (a hostile header cannot park an
    /// endpoint for days).
    const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

    /// Books an endpoint's reply: an answer clears its failures; any failure counts
    /// (with several endpoints, a 400 or a broken reply that another endpoint does not
    /// give is the endpoint's fault); K in a row rest it; a `Retry-After` rests it now,
    /// for that long (at least the policy's rest is not imposed on the others).
    fn outcome(&self, i: usize, r: &Result<Completion, LlmError>) {
        let Ok(mut h) = self.members[i].health.lock() else {
            return;
        };
        match r {
            Ok(_) => *h = (0, None),
            Err(e) => {
                if let Some(secs) = e.retry_after.filter(|s| s.is_finite() && *s > 0.0) {
                    let rest =
                        Duration::from_secs_f64(secs.min(Self::MAX_RETRY_AFTER.as_secs_f64()));
                    h.0 = 0;
                    h.1 = Some(Instant::now() + rest);
                    return;
                }
                h.0 += 1;
                if h.0 >= self.policy.after.max(1) {
                    h.0 = 0;
                    h.1 = Some(Instant::now() + self.policy.rest);
                }
            }
        }
    }

    /// Seconds until the first resting endpoint is back (for the caller's backoff).
    fn soonest_back(&self) -> Option<f64> {
        let now = Instant::now();
        self.members
            .iter()
            .filter_map(|m| m.health.lock().ok().and_then(|h| h.1))
            .filter(|t| *t > now)
            .min()
            .map(|t| (t - now).as_secs_f64())
    }

    /// Endpoints resting now (for status).
    pub fn resting(&self) -> usize {
        let now = Instant::now();
        self.members
            .iter()
            .filter(|m| m.health.lock().is_ok_and(|h| h.1.is_some_and(|t| t > now)))
            .count()
    }

    /// Sends `req`, trying each endpoint at most once: a failure moves the request to
    /// the next endpoint not resting. Only when none is left does the last error go
    /// back to the caller (whose retries then back off, at least until an endpoint is
    /// back when the error was a `Retry-After`).
    async fn send_one(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let mut tried = vec![false; self.members.len()];
        let mut last: Option<LlmError> = None;
        while let Some(i) = self.pick(&tried) {
            tried[i] = true;
            let m = &self.members[i];
            let r = {
                let _permit = m
                    .slots
                    .acquire()
                    .await
                    .map_err(|_| LlmError::fatal("endpoint pool closed"))?;
                m.model.send(req).await
            };
            self.outcome(i, &r);
            match r {
                Ok(c) => return Ok(c),
                Err(mut e) => {
                    if let Some(url) = m.model.info().base_url {
                        e.message = format!("{url}: {}", e.message);
                    }
                    last = Some(e);
                }
            }
        }
        let mut e = last.unwrap_or_else(|| LlmError::fatal("no endpoint to send to"));
        if e.retry_after.is_some() {
            e.retry_after = self.soonest_back().or(e.retry_after);
        }
        Err(e)
    }
}

impl ChatModel for Pool {
    fn info(&self) -> ModelInfo {
        let mut info = self.members.first().map_or(
            ModelInfo {
                provider: String::new(),
                name: String::new(),
                base_url: None,
                api_key_env: None,
                synthetic: false,
            },
            |m| m.model.info(),
        );
        let urls: Vec<String> = self
            .members
            .iter()
            .filter_map(|m| m.model.info().base_url)
            .collect();
        info.base_url = Some(urls.join(","));
        info
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(self.send_one(req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    struct Fake {
        url: String,
        fail: bool,
        calls: AtomicU32,
    }

    impl ChatModel for Fake {
        fn info(&self) -> ModelInfo {
            ModelInfo {
                provider: "openai".into(),
                name: "m".into(),
                base_url: Some(self.url.clone()),
                api_key_env: None,
                synthetic: false,
            }
        }
        fn send<'a>(&'a self, _req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let r = if self.fail {
                Err(LlmError {
                    message: "refused".into(),
                    status: None,
                    retryable: true,
                    retry_after: None,
                    unreadable: false,
                    billed: None,
                })
            } else {
                super::super::completion(super::super::RawReply {
                    content: "ok".into(),
                    input_tokens: 1,
                    output_tokens: 1,
                    ..Default::default()
                })
            };
            Box::pin(async move { r })
        }
    }

    #[tokio::test]
    async fn round_robin_and_a_failing_endpoint_rests() {
        let mk = |url: &str, fail| {
            Arc::new(Fake {
                url: url.into(),
                fail,
                calls: AtomicU32::new(0),
            })
        };
        let (a, b) = (mk("a", false), mk("b", true));
        let pool = Pool::new(
            vec![a.clone(), b.clone()],
            2,
            RestPolicy {
                after: 2,
                rest: Duration::from_secs(600),
            },
        );
        let req = ChatRequest::plain("p", 0.0, 1);
        for _ in 0..20 {
            assert!(pool.send(&req).await.is_ok(), "failed over to a");
        }
        assert_eq!(
            b.calls.load(Ordering::SeqCst),
            2,
            "rested after two failures"
        );
        assert_eq!(a.calls.load(Ordering::SeqCst), 20);
        assert_eq!(pool.resting(), 1);
        assert_eq!(pool.info().base_url.as_deref(), Some("a,b"));
    }
}
