//! Building a client from a model spec on the command line.

use super::client::{Client, Limits};
use super::endpoint::Endpoint;
use super::offline::Perturb;
use super::prices::PriceTable;
use super::provider::{Hosted, Provider};
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
    /// Offline model: each operator perturbed with this probability (instead of the rate).
    pub perturb_per_op: Option<f64>,
    /// Offline model: seed.
    pub seed: u64,
    /// More endpoints serving the same model (requests go round-robin over all).
    pub more_base_urls: Vec<String>,
    /// Requests in flight per endpoint when there are several (default: no own bound).
    pub endpoint_concurrency: Option<usize>,
    /// When an endpoint of several is rested.
    pub rest: super::pool::RestPolicy,
    /// Request settings as asked (flags or the form); the model's profile resolves them.
    pub asked: super::profile::Asked,
    /// The profile table (`None`: the shipped one under the user's `profiles.toml`, as
    /// the CLI and the viewer's form use it; the default is the shipped one alone).
    pub profiles: Option<super::profile::Profiles>,
    /// Build a hosted model's client without its key (`run --dry-run` sends nothing).
    pub keyless: bool,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            base_url: None,
            api_key_env: None,
            limits: Limits::default(),
            prices: PriceTable::builtin(),
            perturb_rate: 0.3,
            perturb_per_op: None,
            seed: 0,
            more_base_urls: Vec::new(),
            endpoint_concurrency: None,
            rest: super::pool::RestPolicy::default(),
            asked: super::profile::Asked::default(),
            // The shipped table: library callers (tests, benches) never read a user's config.
            profiles: Some(super::profile::Profiles::builtin()),
            keyless: false,
        }
    }
}

/// Why a model client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The spec names no known provider.
    #[error("unknown model spec '{0}': use {forms}", forms = Provider::usages())]
    Unknown(String),
    /// A hosted API without a key.
    #[error("no API key: set ${env} (or --api-key-env NAME){hint}")]
    NoKey {
        /// The variable that was read.
        env: String,
        /// What else would work.
        hint: &'static str,
    },
    /// `--api-key-env` was given something that is not a variable name (never echoed:
    /// it is most likely the key itself).
    #[error(
        "--api-key-env takes the NAME of an environment variable that holds the key (like OPENAI_API_KEY), \
         and what was given is not a variable name; it is not shown or stored, in case it is the key itself. \
         Put the key in a variable (export MY_KEY=…) and pass --api-key-env MY_KEY"
    )]
    KeyEnvNotAName,
    /// `--api-key-env` names a variable that is not set (or is empty).
    #[error(
        "--api-key-env: the variable {0} is not set (or empty); export it, or leave out --api-key-env"
    )]
    KeyEnvUnset(String),
    /// `--base-url` is not an http(s) URL.
    #[error("--base-url {0:?} is not an http:// or https:// URL (e.g. http://127.0.0.1:8088/v1)")]
    BadBaseUrl(String),
    /// `--base-url` carries a user name or password (never echoed or stored).
    #[error(
        "--base-url carries a user name or password (user:pass@host); it is not shown or stored. \
         Give the key through an environment variable (--api-key-env NAME) instead"
    )]
    BaseUrlCredentials,
    /// The offline model's perturbation rate is not a share.
    #[error("--perturb-rate {0} must be between 0 and 1")]
    PerturbRate(f64),
    /// `--perturb-per-op` outside [0, 1].
    #[error("--perturb-per-op {0} must be between 0 and 1")]
    PerturbPerOp(f64),
    /// The request settings do not fit the model's profile, or the user's table is bad.
    #[error(transparent)]
    Profile(#[from] super::profile::ProfileError),
    /// The HTTP client could not be set up.
    #[error("cannot build the HTTP client: {0}")]
    Http(#[from] reqwest::Error),
}

/// Longest variable name `--api-key-env` accepts.
const MAX_ENV_NAME: usize = 128;

/// Whether `s` is a portable environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(crate) fn is_env_name(s: &str) -> bool {
    let mut b = s.bytes();
    s.len() <= MAX_ENV_NAME
        && b.next()
            .is_some_and(|c| c == b'_' || c.is_ascii_alphabetic())
        && b.all(|c| c == b'_' || c.is_ascii_alphanumeric())
}

/// Whether a variable name could itself be a key (long, mixed letters and digits, no
/// word structure): such a name is never repeated in a message.
fn could_be_a_key(s: &str) -> bool {
    s.len() >= 40
        || s.split('_').any(|w| {
            let digits = w.bytes().filter(u8::is_ascii_digit).count();
            w.len() >= 12 && digits >= 2 && digits < w.len()
        })
}

/// Checks `--api-key-env`: a variable name, and set. Errors never echo a value that is
/// not a name or that could be a key.
pub(crate) fn check_key_env(name: &str) -> Result<(), SpecError> {
    if !is_env_name(name) {
        return Err(SpecError::KeyEnvNotAName);
    }
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Ok(()),
        _ if could_be_a_key(name) => Err(SpecError::KeyEnvNotAName),
        _ => Err(SpecError::KeyEnvUnset(name.to_string())),
    }
}

/// The base URL recorded for a run made through batch files (no server contacted).
pub const FILES_BASE: &str = "file://batch-files";

/// Checks `--base-url`: an http(s) URL with a host (or the batch-files marker, which
/// contacts no server).
fn check_base_url(url: &str) -> Result<(), SpecError> {
    if url == FILES_BASE {
        return Ok(());
    }
    match reqwest::Url::parse(url) {
        Ok(u) if !u.username().is_empty() || u.password().is_some() => {
            Err(SpecError::BaseUrlCredentials)
        }
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(()),
        // Shown without what could be a secret: no user info or query.
        _ => Err(SpecError::BadBaseUrl(
            crate::base::sanitize::one_line(&super::cache::public_base(url)).into_owned(),
        )),
    }
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

/// A model spec read: `provider:model` (`perturb` and `perturb:reasoning` for the
/// offline model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelSpec {
    /// The provider.
    pub provider: Provider,
    /// The model's name at the provider (empty for plain `perturb`).
    pub model: String,
}

impl ModelSpec {
    /// Reads a spec; refuses a provider this version does not know or a model name its
    /// provider does not take (`openai:` with none).
    pub fn parse(spec: &str) -> Result<ModelSpec, SpecError> {
        let (provider, model) = spec.split_once(':').unwrap_or((spec, ""));
        match Provider::from_name(provider) {
            Some(provider) if provider.takes(model) => Ok(ModelSpec {
                provider,
                model: model.to_string(),
            }),
            _ => Err(SpecError::Unknown(
                crate::base::sanitize::one_line(spec).into_owned(),
            )),
        }
    }
}

/// Builds a client for `openai:<model>`, `anthropic:<model>` or `perturb`.
pub fn build(spec: &str, o: &ModelOptions) -> Result<Client, SpecError> {
    // Whatever is named here is recorded in run.json: a key must never pass as a name.
    if o.api_key_env.as_deref().is_some_and(|n| !is_env_name(n)) {
        return Err(SpecError::KeyEnvNotAName);
    }
    for url in o.base_url.iter().chain(&o.more_base_urls) {
        check_base_url(url)?;
    }
    let spec = ModelSpec::parse(spec)?;
    // Settings the model cannot take are refused here, before any call.
    let params = resolve(&spec, o)?;
    let chat = match spec.provider.hosted() {
        Some(h) => hosted(&spec, h, o)?,
        None => offline(&spec.model, o)?,
    };
    Ok(Client::new(chat, o.limits.clone(), o.prices.clone()).with_params(params))
}

/// The offline model (`perturb`, `perturb:reasoning`) with its rate checked.
fn offline(model: &str, o: &ModelOptions) -> Result<Arc<dyn super::ChatModel>, SpecError> {
    if !(0.0..=1.0).contains(&o.perturb_rate) {
        return Err(SpecError::PerturbRate(o.perturb_rate));
    }
    if let Some(r) = o.perturb_per_op.filter(|r| !(0.0..=1.0).contains(r)) {
        return Err(SpecError::PerturbPerOp(r));
    }
    Ok(Arc::new(
        Perturb::new(o.perturb_rate, o.seed, model == super::offline::REASONING)
            .per_op(o.perturb_per_op),
    ))
}

/// A hosted model's client: its key (refused missing only for the provider's own
/// server), one endpoint per base URL, several behind a pool.
fn hosted(
    spec: &ModelSpec,
    h: Hosted,
    o: &ModelOptions,
) -> Result<Arc<dyn super::ChatModel>, SpecError> {
    let model = spec.model.as_str();
    let env = o.api_key_env.clone().unwrap_or_else(|| h.key_env.into());
    let base = o.base_url.clone().unwrap_or_else(|| h.default_base.into());
    let k = std::env::var(&env).ok().filter(|k| !k.trim().is_empty());
    if k.is_none() && base == h.default_base && !o.keyless {
        return Err(SpecError::NoKey {
            env,
            hint: h.no_key_hint,
        });
    }
    let mut all: Vec<Arc<dyn super::ChatModel>> = Vec::new();
    for b in std::iter::once(&base).chain(&o.more_base_urls) {
        let http = reqwest::Client::builder()
            .timeout(o.limits.timeout)
            .pool_max_idle_per_host(o.limits.max_in_flight.max(1))
            .build()?;
        all.push((h.client)(Endpoint {
            max_reply_bytes: o.limits.max_reply_bytes,
            ..Endpoint::new(spec.provider.name(), http, b, model, k.clone(), &env)
        }));
    }
    Ok(pooled(all, o))
}

/// The request settings for `provider:model` under its profile.
fn resolve(spec: &ModelSpec, o: &ModelOptions) -> Result<super::request::RequestParams, SpecError> {
    let (provider, model) = (spec.provider, spec.model.as_str());
    let loaded;
    let table = if let Some(t) = &o.profiles {
        t
    } else {
        loaded = super::profile::Profiles::load()?;
        &loaded
    };
    let Some(profile) = table.find(provider, model) else {
        return Err(SpecError::Unknown(
            crate::base::sanitize::one_line(&format!("{}:{model}", provider.name())).into_owned(),
        ));
    };
    Ok(profile.resolve(model, &o.asked)?)
}

/// The batch API's setup from a model spec, beside the live clients' (same key and base
/// URL rules).
impl super::batch_api::BatchApi {
    /// The batch endpoint for a `provider:model` spec, with the base URL and key rules
    /// of live calls: the one setup `run --batch-api` and the viewer's form share.
    pub fn for_model(
        model: &str,
        base_urls: &[String],
        api_key_env: Option<&str>,
        timeout_secs: u64,
    ) -> Result<Self, String> {
        let spec = ModelSpec::parse(model).ok();
        let Some((spec, hosted, provider)) = spec.and_then(|spec| {
            let hosted = spec.provider.hosted()?;
            Some((spec, hosted, hosted.batch?))
        }) else {
            return Err(format!(
                "batch jobs need an {}, not {model}",
                Provider::batch_usages()
            ));
        };
        let (env, default, name) = (hosted.key_env, hosted.default_base, spec.model.as_str());
        let env = api_key_env.unwrap_or(env);
        let key = std::env::var(env).ok().filter(|k| !k.trim().is_empty());
        if base_urls.len() > 1 {
            return Err(
                "batch jobs go to one endpoint: give a single --base-url with --batch-api".into(),
            );
        }
        let base = base_urls.first().map_or(default, String::as_str);
        if key.is_none() && base == default {
            return Err(format!("no API key: set ${env} (or --api-key-env NAME)"));
        }
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(timeout_secs.max(1)))
            .build()
            .map_err(|e| format!("cannot set up HTTP: {e}"))?;
        Ok(Self {
            provider,
            ep: Endpoint::new(spec.provider.name(), http, base, name, key, env),
        })
    }
}
