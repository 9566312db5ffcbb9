//! Anthropic messages API.

use super::endpoint::Endpoint;
use super::{
    BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo, completion, post_json,
};
use serde_json::json;

/// Default base URL.
pub(crate) const DEFAULT_BASE: &str = "https://api.anthropic.com";

/// A client for `POST {base}/v1/messages`.
#[derive(Debug)]
pub struct Anthropic(pub Endpoint);

impl Anthropic {
    async fn call(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let body = json!({
            "model": self.0.model,
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "messages": [{"role": "user", "content": req.prompt}],
        });
        let mut rb = self
            .0
            .http
            .post(self.0.url("/v1/messages"))
            .header("anthropic-version", "2023-06-01")
            .json(&body);
        if let Some(k) = &self.0.key {
            rb = rb.header("x-api-key", k);
        }
        let v = post_json(rb, &self.0).await?;
        let content: String = v["content"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .filter(|p| p["type"] == "text")
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("")
            })
            .unwrap_or_default();
        let finish = v["stop_reason"].as_str().map(str::to_string);
        completion(
            content,
            v["usage"]["input_tokens"].as_u64().unwrap_or(0),
            v["usage"]["output_tokens"].as_u64().unwrap_or(0),
            finish,
        )
    }
}

impl ChatModel for Anthropic {
    fn info(&self) -> ModelInfo {
        self.0.info("anthropic")
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(self.call(req))
    }
}
