//! Model clients behind one trait, with retries, rate limits and cost accounting.

pub mod anthropic;
pub mod client;
pub mod endpoint;
pub mod judge;
pub mod offline;
pub mod openai;
pub mod prices;
pub mod spec;
pub mod verbalize;

pub use client::{Client, Limits};

use std::future::Future;
use std::pin::Pin;

/// A boxed future (the trait is used as `dyn`).
pub type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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
    pub fn fatal(message: impl Into<String>) -> Self {
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

/// Removes `secret` from `text` (defence in depth for error bodies that echo keys).
pub fn scrub(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(s) if s.len() >= 4 => text.replace(s, "[redacted]"),
        _ => text.to_string(),
    }
}

/// Parses a Retry-After header value given in seconds.
pub fn parse_retry_after(v: Option<&reqwest::header::HeaderValue>) -> Option<f64> {
    v.and_then(|h| h.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|x| *x >= 0.0)
}

/// Maps a failed HTTP status to an error.
pub fn status_error(
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
pub fn transport_error(e: &reqwest::Error) -> LlmError {
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

/// Sends a JSON request; returns the parsed body of a 2xx answer. Other statuses,
/// transport failures and malformed bodies become errors, with any echoed key scrubbed.
pub async fn post_json(
    rb: reqwest::RequestBuilder,
    key: Option<&str>,
    key_env: &str,
) -> Result<serde_json::Value, LlmError> {
    let resp = rb.send().await.map_err(|e| transport_error(&e))?;
    let status = resp.status().as_u16();
    let retry_after = parse_retry_after(resp.headers().get("retry-after"));
    let text = resp.text().await.map_err(|e| transport_error(&e))?;
    let text = scrub(&text, key);
    if !(200..300).contains(&status) {
        return Err(status_error(status, &text, retry_after, Some(key_env)));
    }
    serde_json::from_str(&text)
        .map_err(|e| LlmError::fatal(format!("malformed JSON from server: {e}")))
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
