//! Anthropic messages API.

use super::{
    BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo, completion, post_json,
};
use serde_json::json;

/// Default base URL.
pub const DEFAULT_BASE: &str = "https://api.anthropic.com";

/// A client for `POST {base}/v1/messages`.
pub struct Anthropic {
    http: reqwest::Client,
    base: String,
    model: String,
    key: Option<String>,
    key_env: String,
}

impl std::fmt::Debug for Anthropic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Anthropic")
            .field("base", &self.base)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Anthropic {
    /// A client.
    pub fn new(
        http: reqwest::Client,
        base: &str,
        model: &str,
        key: Option<String>,
        key_env: &str,
    ) -> Self {
        Anthropic {
            http,
            base: base.trim_end_matches('/').to_string(),
            model: model.to_string(),
            key,
            key_env: key_env.to_string(),
        }
    }

    async fn call(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let body = json!({
            "model": self.model,
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "messages": [{"role": "user", "content": req.prompt}],
        });
        let mut rb = self
            .http
            .post(format!("{}/v1/messages", self.base))
            .header("anthropic-version", "2023-06-01")
            .json(&body);
        if let Some(k) = &self.key {
            rb = rb.header("x-api-key", k);
        }
        let v = post_json(rb, self.key.as_deref(), &self.key_env).await?;
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
        ModelInfo {
            provider: "anthropic".into(),
            name: self.model.clone(),
            base_url: Some(self.base.clone()),
            api_key_env: Some(self.key_env.clone()),
            synthetic: false,
        }
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(self.call(req))
    }
}
