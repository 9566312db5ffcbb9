//! Model clients behind one trait, with retries, rate limits and cost accounting.

pub mod anthropic;
pub mod batch_api;
pub(crate) mod batch_download;
pub mod budget;
pub mod cache;
pub mod client;
mod echo;
pub mod endpoint;
pub mod extra_body;
pub mod judge;
pub mod ledger;
pub mod offline;
pub mod openai;
pub mod pool;
pub mod prices;
pub mod profile;
pub mod provider;
pub mod reasoning;
pub mod reply;
pub mod request;
pub mod spec;
pub mod verbalize;

pub use client::{Client, Limits};

use std::future::Future;
use std::pin::Pin;

/// A boxed future (the trait is used as `dyn`).
pub(crate) type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One chat request: a fresh conversation of a single user message, sent with the
/// run's resolved request settings.
#[derive(Clone, Debug)]
pub struct ChatRequest {
    /// The prompt.
    pub prompt: String,
    /// Token limit, temperature, reasoning settings and extra body, as the profile allows.
    pub params: std::sync::Arc<request::RequestParams>,
}

impl ChatRequest {
    /// A request with the given settings.
    pub fn new(prompt: String, params: std::sync::Arc<request::RequestParams>) -> ChatRequest {
        ChatRequest { prompt, params }
    }

    /// A request with plain settings (a temperature, `max_tokens`, no reasoning controls).
    pub fn plain(prompt: impl Into<String>, temperature: f64, max_tokens: u32) -> ChatRequest {
        ChatRequest {
            prompt: prompt.into(),
            params: std::sync::Arc::new(request::RequestParams::plain(temperature, max_tokens)),
        }
    }

    /// The output token limit sent (reasoning counts against it).
    pub fn max_tokens(&self) -> u32 {
        self.params.max_tokens
    }
}

/// A model's answer.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Completion {
    /// Answer text: never the reasoning.
    pub text: String,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Output tokens as billed (reasoning included where the provider counts it so).
    pub output_tokens: u64,
    /// Why generation stopped (`stop`, `length`, …), if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The model's reasoning, when the provider returned any as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Reasoning tokens, when the provider reports them (part of `output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// The provider returned reasoning only in redacted or encrypted form.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasoning_redacted: bool,
    /// Generation stopped at the token limit: `text` is empty or cut short, and is
    /// never scored.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Reply chunks of types not read, kept as the server sent them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<serde_json::Value>,
}

/// What went wrong talking to a model. Messages never contain API keys.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
#[error("{message}")]
pub struct LlmError {
    /// Human-readable message.
    pub message: String,
    /// HTTP status, if any.
    pub status: Option<u16>,
    /// Worth retrying (429, 5xx, timeouts, connection errors).
    pub retryable: bool,
    /// Server-requested wait in seconds (Retry-After).
    pub retry_after: Option<f64>,
    /// The server answered, but no answer could be read from its reply (empty choices,
    /// an unreadable body, a refusal, only reasoning).
    pub unreadable: bool,
    /// Tokens (in, out) the server reported for the failed call: it billed them.
    pub billed: Option<(u64, u64)>,
}

impl LlmError {
    /// A non-retryable error.
    pub(crate) fn fatal(message: impl Into<String>) -> Self {
        LlmError {
            message: message.into(),
            status: None,
            retryable: false,
            retry_after: None,
            unreadable: false,
            billed: None,
        }
    }
}

/// Provider and model as recorded in run manifests (never a key).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct ModelInfo {
    /// `openai`, `anthropic` or `perturb`.
    pub provider: String,
    /// Model name.
    pub name: String,
    /// Base URL for HTTP providers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Name of the environment variable holding the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// True for the offline model: its answers are synthetic.
    #[serde(default)]
    pub synthetic: bool,
}

/// A chat model: one attempt per call; [`Client`] adds retries and limits.
pub trait ChatModel: Send + Sync {
    /// Manifest description.
    fn info(&self) -> ModelInfo;
    /// Sends one request.
    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>>;
}

/// Shortest piece of a key that counts as leaked when it appears in server text.
pub const MIN_KEY_ECHO: usize = 8;

pub use echo::scrub;

/// Every string inside a decoded JSON value, scrubbed of `secret`.
pub(crate) fn scrub_json(v: &mut serde_json::Value, secret: Option<&str>) {
    if secret.is_none() {
        return;
    }
    // An explicit stack: server JSON can nest deeply.
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        match x {
            serde_json::Value::String(s) => *s = scrub(s, secret),
            serde_json::Value::Array(a) => stack.extend(a.iter_mut()),
            serde_json::Value::Object(o) => stack.extend(o.values_mut()),
            _ => {}
        }
    }
}

/// Parses a Retry-After header value given in seconds.
pub(crate) fn parse_retry_after(v: Option<&reqwest::header::HeaderValue>) -> Option<f64> {
    v.and_then(|h| h.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|x| *x >= 0.0)
}

/// Maps a failed HTTP status to an error.
pub(crate) fn status_error(
    status: u16,
    body: &str,
    retry_after: Option<f64>,
    key_env: Option<&str>,
) -> LlmError {
    let retryable = status == 429 || status == 408 || status >= 500;
    let snippet: String = body.chars().take(300).collect();
    let hint = match (status, key_env) {
        (401 | 403, Some(env)) => format!(" — check the key in ${env}"),
        (404, _) => " — check --base-url and the model name".to_string(),
        _ => String::new(),
    };
    LlmError {
        message: format!("HTTP {status}{hint}: {}", snippet.trim()),
        status: Some(status),
        retryable,
        retry_after,
        unreadable: false,
        billed: None,
    }
}

/// Maps a transport error.
pub(crate) fn transport_error(e: &reqwest::Error) -> LlmError {
    let what = if e.is_timeout() {
        "request timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    // reqwest's Display includes the URL but never headers, so no key can leak here.
    // The source chain says why (refused, DNS, TLS, …), which the top line does not.
    let mut detail = String::new();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        detail.push_str(&format!(": {s}"));
        src = s.source();
    }
    LlmError {
        message: format!("{what}: {e}{detail}"),
        status: None,
        retryable: e.is_timeout() || e.is_connect() || e.is_request(),
        retry_after: None,
        unreadable: false,
        billed: None,
    }
}

/// Sends a JSON request; returns the parsed body of a 2xx answer. The body is read
/// as it streams and refused past the endpoint's byte cap. Other statuses, transport
/// failures (a reset or truncated body included, which are retried) and malformed
/// bodies become errors. Every string decoded from the server is scrubbed of the key.
pub(crate) async fn post_json(
    rb: reqwest::RequestBuilder,
    ep: &endpoint::Endpoint,
) -> Result<serde_json::Value, LlmError> {
    let key = ep.key.as_deref();
    let mut resp = rb.send().await.map_err(|e| transport_error(&e))?;
    let status = resp.status().as_u16();
    let retry_after = parse_retry_after(resp.headers().get("retry-after"));
    let cap = ep.max_reply_bytes;
    let mut body: Vec<u8> = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(c)) => {
                if body.len() + c.len() > cap {
                    return Err(LlmError::fatal(format!(
                        "reply longer than the cap of {cap} bytes (raise it with --max-reply-bytes)"
                    )));
                }
                body.extend_from_slice(&c);
            }
            Ok(None) => break,
            Err(e) => {
                // The connection broke mid-body: as retryable as a refused connection.
                let mut err = transport_error(&e);
                err.retryable = true;
                err.message = format!("reply cut off after {} bytes: {}", body.len(), err.message);
                return Err(err);
            }
        }
    }
    let mut text = String::from_utf8_lossy(&body);
    if !(200..300).contains(&status) {
        let shown = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(mut v) => {
                scrub_json(&mut v, key);
                v.to_string()
            }
            Err(_) => text.into_owned(),
        };
        return Err(status_error(
            status,
            &scrub(&shown, key),
            retry_after,
            Some(&ep.key_env),
        ));
    }
    // A lone surrogate escape (a model's reasoning cut mid-character) is not JSON to
    // serde; it is read as U+FFFD instead of losing the whole reply.
    if let Some(fixed) = reply::replace_lone_surrogates(&text) {
        text = std::borrow::Cow::Owned(fixed);
    }
    let mut v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let mut err = LlmError::fatal(scrub(&format!("malformed JSON from server: {e}"), key));
        err.unreadable = true;
        err
    })?;
    scrub_json(&mut v, key);
    Ok(v)
}

/// A reply as a provider returned it, before the answer is separated from reasoning
/// (the offline model and tests; providers go through [`reply`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct RawReply {
    /// The answer field (may hold inline reasoning).
    pub content: String,
    /// Reasoning returned apart from the answer.
    pub reasoning: Option<String>,
    /// Reasoning came back redacted or encrypted.
    pub redacted: bool,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Output tokens as billed.
    pub output_tokens: u64,
    /// Reasoning tokens, if reported.
    pub reasoning_tokens: Option<u64>,
    /// Why generation stopped.
    pub finish_reason: Option<String>,
}

/// Whether a finish reason says the output limit was reached.
pub fn stopped_at_limit(finish_reason: Option<&str>) -> bool {
    matches!(finish_reason, Some("length" | "max_tokens"))
}

/// The completion of a raw reply, read with the default inline tags.
pub(crate) fn completion(raw: RawReply) -> Result<Completion, LlmError> {
    let mut parts = Vec::new();
    if let Some(t) = raw.reasoning {
        parts.push(reply::Part {
            kind: reply::PartKind::Text,
            text: t,
        });
    }
    if raw.redacted {
        parts.push(reply::Part {
            kind: reply::PartKind::Redacted,
            text: String::new(),
        });
    }
    finish(
        reply::Reply {
            answer: raw.content,
            parts,
            finish_reason: raw.finish_reason,
            usage: reply::Usage {
                input: raw.input_tokens,
                output: raw.output_tokens,
                reasoning: raw.reasoning_tokens,
            },
            ..reply::Reply::default()
        },
        &reasoning::DEFAULT_TAGS,
    )
}

/// The completion of a reply: inline reasoning under `tags` split off the answer, a
/// reply that stopped at the token limit marked `truncated` whatever answer text came
/// back (its tokens were billed; it is never scored), and a reply with no answer to
/// read (a refusal, only reasoning, nothing) an unreadable error carrying its usage.
pub(crate) fn finish<S: AsRef<str>>(r: reply::Reply, tags: &[S]) -> Result<Completion, LlmError> {
    let split = reasoning::split_with(&r.answer, tags);
    let answer = split.answer.trim();
    let truncated = split.unclosed || stopped_at_limit(r.finish_reason.as_deref());
    // Reasoning tokens counted apart from output are added by the usage reader; a
    // reasoning count above the output count cannot have been counted inside it.
    let output_tokens = match r.usage.reasoning {
        Some(x) if x > r.usage.output => r.usage.output.saturating_add(x),
        _ => r.usage.output,
    };
    let usage = reply::Usage {
        output: output_tokens,
        ..r.usage
    };
    if answer.is_empty() && !truncated {
        let why = match &r.refusal {
            Some(why) => format!(
                "the model refused: {}",
                crate::base::sanitize::one_line(why)
                    .chars()
                    .take(300)
                    .collect::<String>()
            ),
            None => format!(
                "empty answer (finish reason: {}{})",
                crate::base::sanitize::one_line(r.finish_reason.as_deref().unwrap_or("none")),
                if split.reasoning.is_some() || !r.parts.is_empty() {
                    "; the reply held only reasoning"
                } else {
                    ""
                }
            ),
        };
        return Err(reply::unreadable(why, usage));
    }
    let readable: Vec<&str> = r
        .parts
        .iter()
        .filter(|p| p.kind != reply::PartKind::Redacted)
        .map(|p| p.text.as_str())
        .collect();
    let separate = (!readable.is_empty()).then(|| readable.join("\n\n"));
    Ok(Completion {
        text: answer.to_string(),
        input_tokens: usage.input,
        output_tokens: usage.output,
        reasoning: reasoning::join(separate, split.reasoning),
        reasoning_tokens: usage.reasoning,
        reasoning_redacted: r.parts.iter().any(|p| p.kind == reply::PartKind::Redacted),
        truncated,
        finish_reason: r.finish_reason,
        unread: r.unknown,
    })
}
