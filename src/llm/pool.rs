//! Several endpoints serving one model: requests go round-robin, each endpoint with
//! its own in-flight bound; one that fails K times in a row rests for a while and the
//! run goes on on the others.

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

    /// The endpoint for the next request: round-robin over those not resting; when all
    /// rest, the one whose rest ends first.
    fn pick(&self) -> usize {
        let n = self.members.len().max(1);
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut soonest = (start % n, None::<Instant>);
        for k in 0..n {
            let i = (start + k) % n;
            let until = self.members[i].health.lock().map_or(None, |h| h.1);
            match until {
                Some(t) if t > now => {
                    if soonest.1.is_none_or(|s| t < s) {
                        soonest = (i, Some(t));
                    }
                }
                _ => return i,
            }
        }
        soonest.0
    }

    fn outcome(&self, i: usize, r: &Result<Completion, LlmError>) {
        let Ok(mut h) = self.members[i].health.lock() else {
            return;
        };
        match r {
            Err(e) if e.retryable => {
                h.0 += 1;
                if h.0 >= self.policy.after.max(1) {
                    h.0 = 0;
                    h.1 = Some(Instant::now() + self.policy.rest);
                }
            }
            // An answer, or an error about the request itself: the endpoint is fine.
            _ => *h = (0, None),
        }
    }

    /// Endpoints resting now (for status).
    pub fn resting(&self) -> usize {
        let now = Instant::now();
        self.members
            .iter()
            .filter(|m| m.health.lock().is_ok_and(|h| h.1.is_some_and(|t| t > now)))
            .count()
    }

    async fn send_one(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let i = self.pick();
        let m = &self.members[i];
        let _permit = m
            .slots
            .acquire()
            .await
            .map_err(|_| LlmError::fatal("endpoint pool closed"))?;
        let r = m.model.send(req).await;
        self.outcome(i, &r);
        r.map_err(|mut e| {
            if let Some(url) = m.model.info().base_url {
                e.message = format!("{url}: {}", e.message);
            }
            e
        })
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
            let _ = pool.send(&req).await;
        }
        assert_eq!(
            b.calls.load(Ordering::SeqCst),
            2,
            "rested after two failures"
        );
        assert_eq!(a.calls.load(Ordering::SeqCst), 18);
        assert_eq!(pool.resting(), 1);
        assert_eq!(pool.info().base_url.as_deref(), Some("a,b"));
    }
}
