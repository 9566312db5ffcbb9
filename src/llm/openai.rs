//! OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, Ollama).

use super::{
    BoxFut, ChatModel, ChatRequest, Completion, LlmError, ModelInfo, completion, post_json,
};
use serde_json::json;

/// Default base URL.
pub const DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// A client for `POST {base}/chat/completions`.
pub struct OpenAi {
    http: reqwest::Client,
    base: String,
    model: String,
    key: Option<String>,
    key_env: String,
}

impl std::fmt::Debug for OpenAi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAi")
            .field("base", &self.base)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl OpenAi {
    /// A client; `key` may be absent for local servers.
    pub fn new(
        http: reqwest::Client,
        base: &str,
        model: &str,
        key: Option<String>,
        key_env: &str,
    ) -> Self {
        OpenAi {
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
            "messages": [{"role": "user", "content": req.prompt}],
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
            "stream": false,
        });
        let mut rb = self
            .http
            .post(format!("{}/chat/completions", self.base))
            .json(&body);
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        let v = post_json(rb, self.key.as_deref(), &self.key_env).await?;
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
        ModelInfo {
            provider: "openai".into(),
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
