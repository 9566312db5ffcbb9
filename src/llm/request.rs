//! The request as it will be sent: the body fields a call carries (token-limit field,
//! temperature, reasoning controls, extra body), which the clients read and the
//! profiles resolve to. Below the provider table, so the clients need nothing above.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which body field carries the output limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenField {
    /// `max_tokens`.
    MaxTokens,
    /// `max_completion_tokens` (OpenAI reasoning models).
    MaxCompletionTokens,
}

impl TokenField {
    /// The JSON field name.
    pub fn name(self) -> &'static str {
        match self {
            TokenField::MaxTokens => "max_tokens",
            TokenField::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// Whether the temperature is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TemperatureRule {
    /// Sent as typed.
    Send,
    /// Never sent; an explicit `--temperature` is refused.
    Omit,
    /// Sent only while thinking is off (Anthropic's extended thinking allows none).
    OmitWhenThinking,
}

/// How reasoning is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReasoningStyle {
    /// No reasoning controls.
    None,
    /// OpenAI `reasoning_effort`.
    Openai,
    /// `reasoning_effort` and `chat_template_kwargs.enable_thinking` (vLLM, SGLang, llama.cpp).
    Compatible,
    /// Anthropic `thinking: {type: "adaptive"}` and `output_config.effort`.
    AnthropicAdaptive,
    /// Anthropic `thinking: {type: "enabled", budget_tokens}`.
    AnthropicBudget,
}

/// On or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnOff {
    /// On.
    On,
    /// Off.
    Off,
}

/// Temperature when none is given and the profile sends one.
pub const DEFAULT_TEMPERATURE: f64 = 0.1;

/// The request as it will be sent, recorded in `run.json` under `request` and part of
/// the cache key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// The profile's name.
    pub profile: String,
    /// The field that carries the output limit.
    pub token_field: TokenField,
    /// The output limit sent (reasoning counts against it).
    pub max_tokens: u32,
    /// The temperature sent, exactly as typed; `None` when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Parameters deliberately not sent, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<String>,
    /// How reasoning is asked for.
    pub reasoning: ReasoningStyle,
    /// Reasoning effort sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// Thinking asked for (`None`: nothing sent either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<OnOff>,
    /// Thinking budget sent (budget style).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
    /// Merged into every request body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_body: Option<Map<String, Value>>,
    /// Inline reasoning tags read (names); empty: the defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning_tags: Vec<String>,
    /// Reasoning tokens a call is expected to spend, when the model reasons (the dry
    /// run's estimate; not sent, not recorded).
    #[serde(skip)]
    pub reasoning_estimate: Option<u32>,
}

impl RequestParams {
    /// Plain settings for tests and callers without a profile: `max_tokens`, the given
    /// temperature, no reasoning controls.
    pub fn plain(temperature: f64, max_tokens: u32) -> RequestParams {
        RequestParams {
            profile: "plain".into(),
            token_field: TokenField::MaxTokens,
            max_tokens,
            temperature: Some(temperature),
            omitted: Vec::new(),
            reasoning: ReasoningStyle::None,
            effort: None,
            thinking: None,
            thinking_budget: None,
            extra_body: None,
            reasoning_tags: Vec::new(),
            reasoning_estimate: None,
        }
    }

    /// The inline reasoning tags to read: the defaults and any the profile or
    /// `--reasoning-tag` added.
    pub fn tags(&self) -> Vec<&str> {
        let mut t: Vec<&str> = super::reasoning::DEFAULT_TAGS.to_vec();
        for x in &self.reasoning_tags {
            if !t.contains(&x.as_str()) {
                t.push(x);
            }
        }
        t
    }

    /// Whether the response cache is on by default: only for a temperature of 0 sent.
    pub fn deterministic(&self) -> bool {
        self.temperature == Some(0.0)
    }
}

/// Answer room kept above a thinking budget when `max_tokens` has to be raised.
pub const ANSWER_ROOM: u32 = 1024;

/// Smallest thinking budget Anthropic accepts.
pub const MIN_BUDGET: u32 = 1024;
