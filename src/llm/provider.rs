//! The providers a model spec (`openai:<model>`, `anthropic:<model>`, `perturb`) names,
//! as one closed kind with one place per provider holding its facts: its name, how a
//! spec names its models, and for a hosted API the key variable, the default base URL,
//! the client of one endpoint and its batch API. [`super::spec`] builds every client
//! from these facts; nothing else compares provider names.

use super::ChatModel;
use super::batch_api;
use super::endpoint::Endpoint;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The model name of the offline model's reasoning mode (`perturb:reasoning`).
pub const REASONING: &str = "reasoning";

/// A model provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI-compatible chat completions (OpenAI, vLLM, SGLang, llama.cpp, routers).
    Openai,
    /// Anthropic's messages API.
    Anthropic,
    /// The offline model: φ₀ back, perturbed at a rate (no server, free).
    Perturb,
}

/// What talking to a hosted provider takes.
#[derive(Clone, Copy, Debug)]
pub struct Hosted {
    /// The variable the key is read from unless `--api-key-env` names another.
    pub key_env: &'static str,
    /// The base URL unless `--base-url` gives one; a missing key is refused only here.
    pub default_base: &'static str,
    /// What else would do when the key is missing (appended to the message).
    pub no_key_hint: &'static str,
    /// The client of one endpoint.
    pub client: fn(Endpoint) -> Arc<dyn ChatModel>,
    /// Its batch API (`run --batch-api`), if it has one.
    pub batch: Option<batch_api::Provider>,
}

impl Provider {
    /// Every provider, in the order messages list them.
    pub const ALL: [Provider; 3] = [Provider::Openai, Provider::Anthropic, Provider::Perturb];

    /// The name a spec and `run.json` use (`openai`).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Perturb => "perturb",
        }
    }

    /// The provider a name names.
    pub fn from_name(s: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == s)
    }

    /// How a spec names a model of it, for messages (`openai:<model>`).
    pub fn usage(self) -> &'static str {
        match self {
            Provider::Openai => "openai:<model>",
            Provider::Anthropic => "anthropic:<model>",
            Provider::Perturb => "perturb or perturb:reasoning",
        }
    }

    /// Whether `model` (the spec after `provider:`, empty when there is none) names a
    /// model of it.
    pub fn takes(self, model: &str) -> bool {
        match self {
            Provider::Openai | Provider::Anthropic => !model.is_empty(),
            Provider::Perturb => model.is_empty() || model == REASONING,
        }
    }

    /// The hosted API's facts; None for the offline model.
    pub fn hosted(self) -> Option<Hosted> {
        match self {
            Provider::Openai => Some(Hosted {
                key_env: "OPENAI_API_KEY",
                default_base: super::openai::DEFAULT_BASE,
                no_key_hint: ", or point --base-url at a local server",
                client: |ep| Arc::new(super::openai::OpenAi(ep)),
                batch: Some(batch_api::Provider::Openai),
            }),
            Provider::Anthropic => Some(Hosted {
                key_env: "ANTHROPIC_API_KEY",
                default_base: super::anthropic::DEFAULT_BASE,
                no_key_hint: "",
                client: |ep| Arc::new(super::anthropic::Anthropic(ep)),
                batch: Some(batch_api::Provider::Anthropic),
            }),
            Provider::Perturb => None,
        }
    }

    /// Whether it runs here, with no server and no cost.
    pub fn is_offline(self) -> bool {
        self.hosted().is_none()
    }

    /// Its batch API, if it has one.
    pub fn batch_api(self) -> Option<batch_api::Provider> {
        self.hosted().and_then(|h| h.batch)
    }

    /// Every provider's spec forms, as `unknown model spec` lists them.
    pub fn usages() -> String {
        let all = Provider::ALL.map(Provider::usage);
        all.join(", ")
    }

    /// The spec forms of the providers with a batch API (`openai:<model> or …`).
    pub fn batch_usages() -> String {
        let with: Vec<&str> = Provider::ALL
            .into_iter()
            .filter(|p| p.batch_api().is_some())
            .map(Provider::usage)
            .collect();
        with.join(" or ")
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_messages_come_from_the_table() {
        for p in Provider::ALL {
            assert_eq!(Provider::from_name(p.name()), Some(p));
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                format!("\"{}\"", p.name())
            );
        }
        assert_eq!(
            Provider::usages(),
            "openai:<model>, anthropic:<model>, perturb or perturb:reasoning"
        );
        assert_eq!(
            Provider::batch_usages(),
            "openai:<model> or anthropic:<model>"
        );
    }

    #[test]
    fn a_spec_is_read_once_into_its_provider_and_model() {
        use super::super::spec::ModelSpec;
        let ok = |s: &str| ModelSpec::parse(s).map(|m| (m.provider, m.model)).ok();
        assert_eq!(
            ok("openai:gpt-4o"),
            Some((Provider::Openai, "gpt-4o".into()))
        );
        assert_eq!(ok("openai:a:b"), Some((Provider::Openai, "a:b".into())));
        assert_eq!(
            ok("anthropic:claude-3-5-haiku"),
            Some((Provider::Anthropic, "claude-3-5-haiku".into()))
        );
        assert_eq!(ok("perturb"), Some((Provider::Perturb, String::new())));
        assert_eq!(
            ok("perturb:reasoning"),
            Some((Provider::Perturb, REASONING.into()))
        );
        for bad in [
            "openai:",
            "openai",
            "anthropic:",
            "perturb:x",
            "bogus:m",
            "",
            "OPENAI:m",
        ] {
            let e = ModelSpec::parse(bad).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "unknown model spec '{bad}': use openai:<model>, anthropic:<model>, perturb or perturb:reasoning"
                )
            );
        }
    }
}
