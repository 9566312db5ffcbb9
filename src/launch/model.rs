//! Model flags shared by `run`, `judge` and the viewer's run form.

use super::LaunchError;
use crate::llm::Client;
use crate::llm::client::Limits;
use crate::llm::prices::PriceTable;
use crate::llm::spec::{ModelOptions, build};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Most samples in flight a run accepts (a server answers far fewer at once).
pub const MAX_CONCURRENCY: usize = 4096;

/// How to reach a model.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// `openai:<model>`, `anthropic:<model>` or `perturb` (offline, synthetic).
    #[arg(long)]
    pub model: String,
    /// Base URL (OpenAI-compatible default `https://api.openai.com/v1`; e.g. `http://127.0.0.1:8088/v1`).
    /// Repeat it for several servers of the same model: requests go round-robin.
    #[arg(long)]
    pub base_url: Vec<String>,
    /// With several --base-url: requests in flight per endpoint (default: --concurrency).
    #[arg(long, value_name = "N")]
    pub endpoint_concurrency: Option<usize>,
    /// With several --base-url: rest an endpoint after K failures in a row.
    #[arg(long, value_name = "K", default_value_t = 3)]
    pub rest_after: u32,
    /// With several --base-url: seconds a failing endpoint rests.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub rest_secs: u64,
    /// Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Sampling temperature, sent exactly as typed [default: 0.1, or none for models
    /// whose profile omits it (OpenAI reasoning models, current Claude)].
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Output token limit per call; reasoning counts against it [default: the model
    /// profile's, e.g. 1024, or 16384 for OpenAI reasoning models].
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Reasoning effort: OpenAI `reasoning_effort`, Anthropic `output_config.effort`,
    /// `reasoning_effort` for OpenAI-compatible servers.
    #[arg(long, value_name = "LEVEL", value_parser = ["none", "minimal", "low", "medium", "high", "xhigh", "max"])]
    pub reasoning_effort: Option<String>,
    /// Ask for reasoning: Anthropic thinking (adaptive, summarized; or a budget on older
    /// models), `chat_template_kwargs.enable_thinking` on OpenAI-compatible servers.
    #[arg(long, value_enum, default_value_t = crate::llm::profile::Thinking::Auto)]
    pub thinking: crate::llm::profile::Thinking,
    /// Thinking budget in tokens for models that take one (Claude before adaptive
    /// thinking); turns thinking on and raises --max-tokens above it.
    #[arg(long, value_name = "N")]
    pub thinking_budget: Option<u32>,
    /// JSON object merged into every request body (live and batch), for parameters a
    /// provider added before autoeval did, e.g. '{"top_k": 20}'. It may add fields, never replace
    /// what the run sets (model, prompt, token limits, n, stream, tools, reasoning
    /// settings: refused, naming the flag to use). Credentials in it are stored redacted.
    #[arg(long, value_name = "JSON")]
    pub extra_body: Option<String>,
    /// Another inline reasoning tag to split off the answer (the name, e.g. `thought`
    /// for <thought>…</thought>), besides think, thinking, thought, reasoning and the
    /// profile's; repeatable.
    #[arg(long, value_name = "NAME")]
    pub reasoning_tag: Vec<String>,
    /// Samples (and requests) in flight.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Requests per minute at most.
    #[arg(long)]
    pub rpm: Option<u32>,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 120)]
    pub request_timeout: u64,
    /// Retries on 429/5xx/timeouts and broken connections.
    #[arg(long, default_value_t = 5)]
    pub retries: u32,
    /// Most bytes read of one model reply (at most 64 MiB, the longest line a run file
    /// holds); a longer one becomes a model error. A sample whose texts together pass
    /// that line limit is stored with its longest reasoning (then raw answers) cut, each
    /// cut text's length and SHA-256 recorded.
    #[arg(long, default_value_t = crate::llm::client::DEFAULT_MAX_REPLY_BYTES, value_parser = crate::run::fit::parse_max_reply_bytes)]
    pub max_reply_bytes: usize,
    /// JSON price table {"model": {"input": USD/Mtok, "output": USD/Mtok}} merged over the built-in one.
    #[arg(long)]
    pub prices: Option<PathBuf>,
    /// Offline model: share of answers that are perturbed.
    #[arg(long, default_value_t = 0.3, conflicts_with = "perturb_per_op")]
    pub perturb_rate: f64,
    /// Offline model: perturb each operator of φ₀ (regex: each depth level) independently
    /// with probability R, so accuracy falls with complexity (exclusive with --perturb-rate).
    #[arg(long, value_name = "R")]
    pub perturb_per_op: Option<f64>,
    /// Offline model: seed.
    #[arg(long, default_value_t = 0)]
    pub model_seed: u64,
}

impl ModelArgs {
    /// Builds the client.
    pub fn client(&self) -> Result<Client, LaunchError> {
        self.client_with(false)
    }

    /// [`Self::client`], or with `keyless` one that needs no key (a dry run sends
    /// nothing, so a missing key is no reason to refuse it).
    pub fn client_with(&self, keyless: bool) -> Result<Client, LaunchError> {
        // A variable the user names must hold the key (`run` and the viewer's form).
        if let Some(name) = self.api_key_env.as_ref().filter(|_| !keyless) {
            crate::llm::spec::check_key_env(name).map_err(LaunchError::other)?;
        }
        let mut prices = PriceTable::builtin();
        if let Some(p) = &self.prices {
            prices.merge_file(p).map_err(LaunchError::other)?;
        }
        if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            return Err(LaunchError::other(format!(
                "--concurrency must be between 1 and {}, not {}",
                MAX_CONCURRENCY, self.concurrency
            )));
        }
        let extra_body = self
            .extra_body
            .as_deref()
            .map(crate::llm::extra_body::parse)
            .transpose()
            .map_err(LaunchError::other)?;
        let opts = ModelOptions {
            asked: crate::llm::profile::Asked {
                temperature: self.temperature,
                max_tokens: self.max_tokens,
                effort: self.reasoning_effort.clone(),
                thinking: self.thinking,
                thinking_budget: self.thinking_budget,
                extra_body,
                reasoning_tags: self.reasoning_tag.clone(),
            },
            profiles: None,
            base_url: self.base_url.first().cloned(),
            more_base_urls: self.base_url.iter().skip(1).cloned().collect(),
            endpoint_concurrency: self.endpoint_concurrency.map(|n| n.max(1)),
            rest: crate::llm::pool::RestPolicy {
                after: self.rest_after.max(1),
                rest: Duration::from_secs(self.rest_secs),
            },
            api_key_env: self.api_key_env.clone(),
            limits: Limits {
                max_in_flight: self.concurrency,
                rpm: self.rpm,
                timeout: Duration::from_secs(self.request_timeout.max(1)),
                max_retries: self.retries,
                max_reply_bytes: self.max_reply_bytes.max(1),
                ..Limits::default()
            },
            prices,
            perturb_rate: self.perturb_rate,
            perturb_per_op: self.perturb_per_op,
            seed: self.model_seed,
            keyless,
        };
        build(&self.model, &opts).map_err(LaunchError::other)
    }
}
