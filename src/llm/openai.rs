//! OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, Ollama).

use super::endpoint::Endpoint;
use super::{
    BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo, completion, post_json,
};
use serde_json::json;

/// Default base URL.
pub(crate) const DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// A client for `POST {base}/chat/completions`.
#[derive(Debug)]
pub(crate) struct OpenAi(pub Endpoint);

impl OpenAi {
    async fn call(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let body = json!({
            "model": self.0.model,
            "messages": [{"role": "user", "content": req.prompt}],
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
            "stream": false,
        });
        let mut rb = self
            .0
            .http
            .post(self.0.url("/chat/completions"))
            .json(&body);
        if let Some(k) = &self.0.key {
            rb = rb.bearer_auth(k);
        }
        let v = post_json(rb, &self.0).await?;
        let choice = &v["choices"][0];
        let content = choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let finish = choice["finish_reason"].as_str().map(str::to_string);
        completion(
            content,
            v["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
            v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
            finish,
        )
    }
}

impl ChatModel for OpenAi {
    fn info(&self) -> ModelInfo {
        self.0.info("openai")
    }

    fn send<'a>(&'a self, req: &'a ChatRequest) -> BoxFut<'a, Result<Completion, LlmError>> {
        Box::pin(self.call(req))
    }
}
