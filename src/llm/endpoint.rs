//! What every HTTP model client holds: client, base URL, model, and the key.

use super::ModelInfo;

/// An HTTP endpoint for one model. `Debug` never shows the key.
pub struct Endpoint {
    /// The provider's name, as the run's manifest records it (`openai`).
    pub provider: &'static str,
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
    /// An endpoint of `provider` (its name); `key` may be absent for local servers.
    pub fn new(
        provider: &'static str,
        http: reqwest::Client,
        base: &str,
        model: &str,
        key: Option<String>,
        key_env: &str,
    ) -> Self {
        Endpoint {
            provider,
            http,
            base: base.trim_end_matches('/').to_string(),
            model: model.to_string(),
            key,
            key_env: key_env.to_string(),
            max_reply_bytes: super::client::DEFAULT_MAX_REPLY_BYTES,
        }
    }

    /// The URL of `path` on this endpoint: before any query the base carries
    /// (`…/v1?api-version=…` gives `…/v1/chat/completions?api-version=…`).
    pub fn url(&self, path: &str) -> String {
        join_url(&self.base, path)
    }

    /// Manifest description: the base URL without its query (which can hold a token).
    pub fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: self.provider.into(),
            name: self.model.clone(),
            base_url: Some(super::cache::public_base(&self.base)),
            api_key_env: Some(self.key_env.clone()),
            synthetic: false,
        }
    }
}

/// `base` + `path`, the path put before the query of `base`, if it has one.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    match base.split_once('?') {
        Some((b, q)) => format!("{}{path}?{q}", b.trim_end_matches('/')),
        None => format!("{}{path}", base.trim_end_matches('/')),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_goes_before_the_query() {
        use super::join_url;
        assert_eq!(join_url("http://h/v1", "/x"), "http://h/v1/x");
        assert_eq!(
            join_url("http://h/v1/?a=1&b=2", "/x"),
            "http://h/v1/x?a=1&b=2"
        );
    }
}
