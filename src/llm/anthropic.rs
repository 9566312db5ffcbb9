//! Anthropic messages API.

use super::endpoint::Endpoint;
use super::extra_body::merge_into;
use super::request::{OnOff, ReasoningStyle};
use super::{BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo, post_json};
use serde_json::{Value, json};

/// Default base URL.
pub(crate) const DEFAULT_BASE: &str = "https://api.anthropic.com";

/// A client for `POST {base}/v1/messages`.
#[derive(Debug)]
pub struct Anthropic(pub Endpoint);

/// The request body for `model`, as the request's profile allows (live and batch):
/// adaptive thinking with summarized display and `output_config.effort`, or the legacy
/// budget form; no temperature where the profile omits it.
pub(crate) fn body(model: &str, req: &ChatRequest) -> Value {
    let p = &req.params;
    let mut b = json!({
        "model": model,
        "max_tokens": p.max_tokens,
        "messages": [{"role": "user", "content": req.prompt}],
    });
    if let Some(t) = p.temperature {
        b["temperature"] = json!(t);
    }
    match (p.reasoning, p.thinking) {
        (ReasoningStyle::AnthropicAdaptive, Some(OnOff::On)) => {
            b["thinking"] = json!({"type": "adaptive", "display": "summarized"});
        }
        (ReasoningStyle::AnthropicAdaptive, Some(OnOff::Off)) => {
            b["thinking"] = json!({"type": "disabled"});
        }
        (ReasoningStyle::AnthropicBudget, Some(OnOff::On)) => {
            b["thinking"] = json!({"type": "enabled", "budget_tokens": p.thinking_budget});
        }
        _ => {}
    }
    if p.reasoning == ReasoningStyle::AnthropicAdaptive
        && let Some(e) = &p.effort
    {
        b["output_config"] = json!({"effort": e});
    }
    if let Some(extra) = &p.extra_body {
        merge_into(&mut b, extra);
    }
    b
}

/// Reads a message ([`super::reply::anthropic`]): text blocks are the answer, thinking
/// blocks the reasoning, a redacted thinking block is recorded as redacted (never as
/// text).
pub(crate) fn parse_with<S: AsRef<str>>(v: &Value, tags: &[S]) -> Result<Completion, LlmError> {
    super::finish(super::reply::anthropic(v)?, tags)
}

impl Anthropic {
    async fn call(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let mut rb = self
            .0
            .http
            .post(self.0.url("/v1/messages"))
            .header("anthropic-version", "2023-06-01")
            .json(&body(&self.0.model, req));
        if let Some(k) = &self.0.key {
            rb = rb.header("x-api-key", k);
        }
        let v = post_json(rb, &self.0).await?;
        parse_with(&v, &req.params.tags())
    }
}

impl ChatModel for Anthropic {
    fn info(&self) -> ModelInfo {
        self.0.info()
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(self.call(req))
    }
}
