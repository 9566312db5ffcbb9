//! What every HTTP model client holds: client, base URL, model, and the key.

use super::ModelInfo;

/// An HTTP endpoint for one model. `Debug` never shows the key.
pub struct Endpoint {
    /// Shared HTTP client.
    pub http: reqwest::Client,
    /// Base URL without a trailing slash.
    pub base: String,
    /// Model name.
    pub model: String,
    /// API key, if any.
    pub key: Option<String>,
    /// The environment variable the key came from (for error hints).
    pub key_env: String,
    /// Most bytes read of one reply.
    pub max_reply_bytes: usize,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base", &self.base)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// An endpoint; `key` may be absent for local servers.
    pub fn new(
        http: reqwest::Client,
        base: &str,
        model: &str,
        key: Option<String>,
        key_env: &str,
    ) -> Self {
        Endpoint {
            http,
            base: base.trim_end_matches('/').to_string(),
            model: model.to_string(),
            key,
            key_env: key_env.to_string(),
            max_reply_bytes: super::client::DEFAULT_MAX_REPLY_BYTES,
        }
    }

    /// Manifest description for `provider`.
    pub fn info(&self, provider: &str) -> ModelInfo {
        ModelInfo {
            provider: provider.into(),
            name: self.model.clone(),
            base_url: Some(self.base.clone()),
            api_key_env: Some(self.key_env.clone()),
            synthetic: false,
        }
    }
}
