//! Model clients behind one trait, with retries, rate limits and cost accounting.

pub mod anthropic;
pub mod batch_api;
pub(crate) mod batch_download;
pub mod budget;
pub mod cache;
pub mod client;
mod echo;
pub mod endpoint;
pub mod judge;
pub mod offline;
pub mod openai;
pub mod pool;
pub mod prices;
pub mod spec;
pub mod verbalize;

pub use client::{Client, Limits};

use std::future::Future;
use std::pin::Pin;

/// A boxed future (the trait is used as `dyn`).
pub(crate) type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One chat request: a fresh conversation of a single user message.
#[derive(Clone, Debug)]
pub struct ChatRequest {
    /// The prompt.
    pub prompt: String,
    /// Sampling temperature.
    pub temperature: f32,
    /// Output token limit.
    pub max_tokens: u32,
}

/// A model's answer.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Completion {
    /// Answer text.
    pub text: String,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Why generation stopped (`stop`, `length`, …), if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
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
}

impl LlmError {
    /// A non-retryable error.
    pub(crate) fn fatal(message: impl Into<String>) -> Self {
        LlmError {
            message: message.into(),
            status: None,
            retryable: false,
            retry_after: None,
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
    let text = String::from_utf8_lossy(&body);
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
    let mut v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| LlmError::fatal(scrub(&format!("malformed JSON from server: {e}"), key)))?;
    scrub_json(&mut v, key);
    Ok(v)
}

/// A completion, or the "empty answer" error when the text is blank.
pub fn completion(
    text: String,
    input_tokens: u64,
    output_tokens: u64,
    finish_reason: Option<String>,
) -> Result<Completion, LlmError> {
    if text.trim().is_empty() {
        return Err(LlmError::fatal(format!(
            "empty answer (finish reason: {})",
            finish_reason.as_deref().unwrap_or("none")
        )));
    }
    Ok(Completion {
        text,
        input_tokens,
        output_tokens,
        finish_reason,
    })
}
