//! OpenAI-compatible chat completions (OpenAI, vLLM, SGLang, llama.cpp server, Ollama).

use super::endpoint::Endpoint;
use super::extra_body::merge_into;
use super::request::{OnOff, ReasoningStyle};
use super::{BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo, post_json};
use serde_json::{Value, json};

/// Default base URL.
pub(crate) const DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// A client for `POST {base}/chat/completions`.
#[derive(Debug)]
pub(crate) struct OpenAi(pub Endpoint);

/// The request body for `model`, as the request's profile allows (live and batch).
pub(crate) fn body(model: &str, req: &ChatRequest) -> Value {
    let p = &req.params;
    let mut b = json!({
        "model": model,
        "messages": [{"role": "user", "content": req.prompt}],
    });
    b[p.token_field.name()] = json!(p.max_tokens);
    if let Some(t) = p.temperature {
        b["temperature"] = json!(t);
    }
    if matches!(
        p.reasoning,
        ReasoningStyle::Openai | ReasoningStyle::Compatible
    ) && let Some(e) = &p.effort
    {
        b["reasoning_effort"] = json!(e);
    }
    if p.reasoning == ReasoningStyle::Compatible
        && let Some(t) = p.thinking
    {
        b["chat_template_kwargs"] = json!({"enable_thinking": t == OnOff::On});
    }
    if let Some(extra) = &p.extra_body {
        merge_into(&mut b, extra);
    }
    b
}

/// Reads a chat-completion body in any documented shape ([`super::reply::openai`]):
/// the answer, reasoning apart (inline blocks under `tags` included), usage with
/// reasoning tokens, and the finish reason.
pub(crate) fn parse_with<S: AsRef<str>>(v: &Value, tags: &[S]) -> Result<Completion, LlmError> {
    super::finish(super::reply::openai(v)?, tags)
}

impl OpenAi {
    async fn call(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let mut b = body(&self.0.model, req);
        b["stream"] = json!(false);
        let mut rb = self.0.http.post(self.0.url("/chat/completions")).json(&b);
        if let Some(k) = &self.0.key {
            rb = rb.bearer_auth(k);
        }
        let v = post_json(rb, &self.0).await?;
        parse_with(&v, &req.params.tags())
    }
}

impl ChatModel for OpenAi {
    fn info(&self) -> ModelInfo {
        self.0.info()
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(self.call(req))
    }
}
