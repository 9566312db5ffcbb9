//! Building a client from a model spec on the command line.

use super::anthropic::{self, Anthropic};
use super::client::{Client, Limits};
use super::endpoint::Endpoint;
use super::offline::Perturb;
use super::openai::{self, OpenAi};
use super::prices::PriceTable;
use std::sync::Arc;

/// Options that go with a model spec.
#[derive(Clone, Debug)]
pub struct ModelOptions {
    /// Base URL override.
    pub base_url: Option<String>,
    /// Environment variable holding the key (default per provider).
    pub api_key_env: Option<String>,
    /// Limits and retries.
    pub limits: Limits,
    /// Prices.
    pub prices: PriceTable,
    /// Offline model: share of perturbed answers.
    pub perturb_rate: f64,
    /// Offline model: seed.
    pub seed: u64,
    /// More endpoints serving the same model (requests go round-robin over all).
    pub more_base_urls: Vec<String>,
    /// Requests in flight per endpoint when there are several (default: no own bound).
    pub endpoint_concurrency: Option<usize>,
    /// When an endpoint of several is rested.
    pub rest: super::pool::RestPolicy,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            base_url: None,
            api_key_env: None,
            limits: Limits::default(),
            prices: PriceTable::builtin(),
            perturb_rate: 0.3,
            seed: 0,
            more_base_urls: Vec::new(),
            endpoint_concurrency: None,
            rest: super::pool::RestPolicy::default(),
        }
    }
}

/// Why a model client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The spec names no known provider.
    #[error("unknown model spec '{0}': use openai:<model>, anthropic:<model> or perturb")]
    Unknown(String),
    /// A hosted API without a key.
    #[error("no API key: set ${env} (or --api-key-env NAME){hint}")]
    NoKey {
        /// The variable that was read.
        env: String,
        /// What else would work.
        hint: &'static str,
    },
    /// The offline model's perturbation rate is not a share.
    #[error("--perturb-rate {0} must be between 0 and 1")]
    PerturbRate(f64),
    /// The HTTP client could not be set up.
    #[error("cannot build the HTTP client: {0}")]
    Http(#[from] reqwest::Error),
}

/// One endpoint as it is, several behind a round-robin [`super::pool::Pool`].
fn pooled(mut all: Vec<Arc<dyn super::ChatModel>>, o: &ModelOptions) -> Arc<dyn super::ChatModel> {
    if all.len() == 1
        && let Some(one) = all.pop()
    {
        return one;
    }
    let per = o.endpoint_concurrency.unwrap_or(o.limits.max_in_flight);
    Arc::new(super::pool::Pool::new(all, per, o.rest))
}

/// Builds a client for `openai:<model>`, `anthropic:<model>` or `perturb`.
pub fn build(spec: &str, o: &ModelOptions) -> Result<Client, SpecError> {
    let http = || {
        reqwest::Client::builder()
            .timeout(o.limits.timeout)
            .pool_max_idle_per_host(o.limits.max_in_flight.max(1))
            .build()
    };
    let key = |env: &str| std::env::var(env).ok().filter(|k| !k.trim().is_empty());
    let (provider, model) = spec.split_once(':').unwrap_or((spec, ""));
    let chat: Arc<dyn super::ChatModel> = match provider {
        "perturb" => {
            if !(0.0..=1.0).contains(&o.perturb_rate) {
                return Err(SpecError::PerturbRate(o.perturb_rate));
            }
            Arc::new(Perturb::new(o.perturb_rate, o.seed))
        }
        "openai" if !model.is_empty() => {
            let env = o
                .api_key_env
                .clone()
                .unwrap_or_else(|| "OPENAI_API_KEY".into());
            let base = o
                .base_url
                .clone()
                .unwrap_or_else(|| openai::DEFAULT_BASE.into());
            let k = key(&env);
            if k.is_none() && base == openai::DEFAULT_BASE {
                return Err(SpecError::NoKey {
                    env,
                    hint: ", or point --base-url at a local server",
                });
            }
            let mut all: Vec<Arc<dyn super::ChatModel>> = Vec::new();
            for b in std::iter::once(&base).chain(&o.more_base_urls) {
                all.push(Arc::new(OpenAi(Endpoint {
                    max_reply_bytes: o.limits.max_reply_bytes,
                    ..Endpoint::new(http()?, b, model, k.clone(), &env)
                })));
            }
            pooled(all, o)
        }
        "anthropic" if !model.is_empty() => {
            let env = o
                .api_key_env
                .clone()
                .unwrap_or_else(|| "ANTHROPIC_API_KEY".into());
            let base = o
                .base_url
                .clone()
                .unwrap_or_else(|| anthropic::DEFAULT_BASE.into());
            let k = key(&env);
            if k.is_none() && base == anthropic::DEFAULT_BASE {
                return Err(SpecError::NoKey { env, hint: "" });
            }
            let mut all: Vec<Arc<dyn super::ChatModel>> = Vec::new();
            for b in std::iter::once(&base).chain(&o.more_base_urls) {
                all.push(Arc::new(Anthropic(Endpoint {
                    max_reply_bytes: o.limits.max_reply_bytes,
                    ..Endpoint::new(http()?, b, model, k.clone(), &env)
                })));
            }
            pooled(all, o)
        }
        _ => {
            return Err(SpecError::Unknown(spec.to_string()));
        }
    };
    Ok(Client::new(chat, o.limits.clone(), o.prices.clone()))
}
