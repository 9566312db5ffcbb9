//! Request profiles: which body fields a provider's model accepts (token-limit field,
//! sampling parameters, how reasoning is asked for, default limits), as data
//! (`data/profiles.toml`, extendable from the user's config), and the settings of one
//! run resolved against them before the first call.

use super::request::{
    ANSWER_ROOM, DEFAULT_TEMPERATURE, MIN_BUDGET, OnOff, ReasoningStyle, RequestParams,
    TemperatureRule, TokenField,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The shipped profile table.
const BUILTIN: &str = include_str!("data/profiles.toml");

/// File name of the user's own profiles in the config directory (tried first).
pub const USER_FILE: &str = "profiles.toml";

/// One profile as written in the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Name recorded in `run.json`.
    pub name: String,
    /// `openai`, `anthropic` or `perturb` (another name refuses the table, listing these).
    pub provider: super::provider::Provider,
    /// Model-name patterns (`*` matches any run of characters; case ignored).
    pub models: Vec<String>,
    /// Which field carries the output limit.
    pub token_field: TokenField,
    /// Whether the temperature is sent.
    pub temperature: TemperatureRule,
    /// How reasoning is asked for.
    pub reasoning: ReasoningStyle,
    /// What `--thinking auto` means.
    pub thinking_default: OnOff,
    /// Accepted `--reasoning-effort` values.
    #[serde(default)]
    pub efforts: Vec<String>,
    /// `--max-tokens` when not given.
    pub default_max_tokens: u32,
    /// `--thinking-budget` when thinking is on (budget style) and none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_budget: Option<u32>,
    /// Inline reasoning tags read besides the defaults (`think`, `thinking`, `thought`,
    /// `reasoning`), as names without brackets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning_tags: Vec<String>,
    /// Reasoning tokens a call is expected to spend (the dry run's estimate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_estimate: Option<u32>,
}

/// The table's file shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    #[serde(default)]
    profile: Vec<Profile>,
}

/// Why a profile table or a run's request settings were refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ProfileError {
    /// The user's table does not parse.
    #[error("{path}: {message} (see docs/src/guide/reasoning-models.md for the fields)")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A setting the model's profile cannot send.
    #[error("{0}")]
    Refused(String),
}

/// `--thinking`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Thinking {
    /// The profile's default.
    #[default]
    Auto,
    /// Ask for reasoning.
    On,
    /// Ask for none.
    Off,
}

/// What the user asked for (flags or the viewer's form), before the profile is applied.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Asked {
    /// `--temperature`, if given.
    pub temperature: Option<f64>,
    /// `--max-tokens`, if given.
    pub max_tokens: Option<u32>,
    /// `--reasoning-effort`.
    pub effort: Option<String>,
    /// `--thinking`.
    pub thinking: Thinking,
    /// `--thinking-budget`.
    pub thinking_budget: Option<u32>,
    /// `--extra-body`: merged into every request body.
    pub extra_body: Option<Map<String, Value>>,
    /// `--reasoning-tag`: inline reasoning tags read besides the profile's.
    pub reasoning_tags: Vec<String>,
}

/// Matches `name` against a pattern with `*` wildcards, ignoring case.
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.to_ascii_lowercase(), name.to_ascii_lowercase());
    let parts: Vec<&str> = p.split('*').collect();
    if parts.len() == 1 {
        return p == n;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !n.starts_with(first) || n.len() < first.len() + last.len() || !n.ends_with(last) {
        return false;
    }
    let mut rest = &n[first.len()..n.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The profile table: the user's entries first, then the shipped ones.
#[derive(Clone, Debug)]
pub struct Profiles(Vec<Profile>);

impl Profiles {
    /// The shipped table alone.
    pub fn builtin() -> Profiles {
        Profiles(toml::from_str::<Table>(BUILTIN).map_or_else(|_| Vec::new(), |t| t.profile))
    }

    /// The shipped table under the user's `profiles.toml` from the config directory,
    /// if there is one.
    pub fn load() -> Result<Profiles, ProfileError> {
        let mut all = Profiles::builtin();
        let Some(path) = crate::base::config_dir::config_dir().map(|d| d.join(USER_FILE)) else {
            return Ok(all);
        };
        if !path.exists() {
            return Ok(all);
        }
        let err = |message: String| ProfileError::File {
            path: path.display().to_string(),
            message: crate::base::sanitize::one_line(&message).into_owned(),
        };
        let text = crate::base::fsread::read_to_string(&path, crate::base::fsread::MAX_SMALL)
            .map_err(|e| err(e.to_string()))?;
        let mine = toml::from_str::<Table>(&text).map_err(|e| err(e.to_string()))?;
        all.0.splice(0..0, mine.profile);
        Ok(all)
    }

    /// The profile of `provider:model`: the first whose provider and a pattern match.
    pub fn find(&self, provider: super::provider::Provider, model: &str) -> Option<&Profile> {
        self.0
            .iter()
            .find(|p| p.provider == provider && p.models.iter().any(|m| glob(m, model)))
    }

    /// Every profile, in lookup order.
    pub fn all(&self) -> &[Profile] {
        &self.0
    }
}

/// A refusal of what was asked.
fn refuse<T>(m: String) -> Result<T, ProfileError> {
    Err(ProfileError::Refused(m))
}

impl Profile {
    /// Applies the profile to what was asked: refuses what the model cannot take (before
    /// any call), fills in defaults, and says what is omitted.
    pub fn resolve(&self, model: &str, asked: &Asked) -> Result<RequestParams, ProfileError> {
        let who = format!("{model} (profile {})", self.name);
        self.check_reasoning(&who, asked)?;
        let thinking = self.thinking(&who, asked)?;
        let thinking_now = thinking == Some(OnOff::On);
        let mut omitted = Vec::new();
        let temperature = self.temperature(&who, asked, thinking_now, &mut omitted)?;
        let mut max_tokens = asked.max_tokens.unwrap_or(self.default_max_tokens);
        if max_tokens == 0 {
            return refuse("--max-tokens must be at least 1".into());
        }
        let thinking_budget = self.budget(asked, thinking_now, &mut max_tokens)?;
        let effort = asked.effort.clone();
        if let Some(extra) = &asked.extra_body {
            super::extra_body::check(extra).map_err(ProfileError::Refused)?;
        }
        let reasoning_tags = self.tags(asked)?;
        Ok(RequestParams {
            profile: self.name.clone(),
            token_field: self.token_field,
            max_tokens,
            temperature,
            omitted,
            reasoning: self.reasoning,
            effort,
            thinking,
            thinking_budget,
            extra_body: asked.extra_body.clone(),
            reasoning_tags,
            reasoning_estimate: if thinking == Some(OnOff::Off) {
                None
            } else {
                thinking_budget
                    .or(self.reasoning_estimate)
                    .map(|r| r.min(max_tokens))
            },
        })
    }

    /// Refuses reasoning settings the profile cannot send (`who` names the model).
    fn check_reasoning(&self, who: &str, asked: &Asked) -> Result<(), ProfileError> {
        let reasoning_controls = self.reasoning != ReasoningStyle::None;
        if !reasoning_controls
            && (asked.effort.is_some()
                || asked.thinking != Thinking::Auto
                || asked.thinking_budget.is_some())
        {
            return refuse(format!(
                "{who} takes no reasoning settings: leave out --reasoning-effort, --thinking and \
                 --thinking-budget, or add a profile for it in profiles.toml"
            ));
        }
        if let Some(e) = &asked.effort
            && !self.efforts.iter().any(|x| x == e)
        {
            return refuse(format!(
                "{who} does not take --reasoning-effort {e}; it takes {}",
                if self.efforts.is_empty() {
                    "none".to_string()
                } else {
                    self.efforts.join(", ")
                }
            ));
        }
        let budgeted = self.reasoning == ReasoningStyle::AnthropicBudget;
        if asked.thinking_budget.is_some() && !budgeted {
            return refuse(format!(
                "{who} has no thinking budget ({}); use --reasoning-effort instead of --thinking-budget",
                match self.reasoning {
                    ReasoningStyle::AnthropicAdaptive => "it thinks adaptively",
                    _ => "its reasoning is asked for by effort",
                }
            ));
        }
        if asked.thinking == Thinking::Off && asked.thinking_budget.is_some() {
            return refuse("--thinking off and --thinking-budget contradict each other".into());
        }
        Ok(())
    }

    /// What is sent about thinking: nothing unless the style has a switch and the user
    /// or the profile's default says something.
    fn thinking(&self, who: &str, asked: &Asked) -> Result<Option<OnOff>, ProfileError> {
        let thinking_on = match asked.thinking {
            Thinking::On => true,
            Thinking::Off => false,
            Thinking::Auto => asked.thinking_budget.is_some() || self.thinking_default == OnOff::On,
        };
        let thinking = match self.reasoning {
            ReasoningStyle::None | ReasoningStyle::Openai => None,
            ReasoningStyle::Compatible => match asked.thinking {
                Thinking::Auto => None,
                Thinking::On => Some(OnOff::On),
                Thinking::Off => Some(OnOff::Off),
            },
            ReasoningStyle::AnthropicAdaptive | ReasoningStyle::AnthropicBudget => {
                Some(if thinking_on { OnOff::On } else { OnOff::Off })
            }
        };
        if self.reasoning == ReasoningStyle::Openai && asked.thinking == Thinking::Off {
            return refuse(format!(
                "{who} always reasons; lower it with --reasoning-effort {} instead of --thinking off",
                if self.efforts.iter().any(|e| e == "none") {
                    "none"
                } else {
                    "minimal"
                }
            ));
        }
        Ok(thinking)
    }

    /// The temperature sent (None: omitted, and why in `omitted`), in range.
    fn temperature(
        &self,
        who: &str,
        asked: &Asked,
        thinking_now: bool,
        omitted: &mut Vec<String>,
    ) -> Result<Option<f64>, ProfileError> {
        let temperature = match self.temperature {
            TemperatureRule::Send => Some(asked.temperature.unwrap_or(DEFAULT_TEMPERATURE)),
            TemperatureRule::Omit => {
                if let Some(t) = asked.temperature {
                    return refuse(format!(
                        "{who} does not accept a temperature (the provider refuses it); \
                         leave out --temperature {t}"
                    ));
                }
                omitted.push("temperature (not accepted by this model)".to_string());
                None
            }
            TemperatureRule::OmitWhenThinking if thinking_now => {
                if let Some(t) = asked.temperature {
                    return refuse(format!(
                        "{who} takes no temperature while thinking; leave out --temperature {t} \
                         or add --thinking off"
                    ));
                }
                omitted.push("temperature (not allowed with thinking)".to_string());
                None
            }
            TemperatureRule::OmitWhenThinking => {
                Some(asked.temperature.unwrap_or(DEFAULT_TEMPERATURE))
            }
        };
        if let Some(t) = temperature
            && !(0.0..=2.0).contains(&t)
        {
            return refuse(format!("--temperature {t} must be between 0 and 2"));
        }
        Ok(temperature)
    }

    /// The thinking budget sent (budget style, thinking on), `max_tokens` raised to keep
    /// room for the answer above it.
    fn budget(
        &self,
        asked: &Asked,
        thinking_now: bool,
        max_tokens: &mut u32,
    ) -> Result<Option<u32>, ProfileError> {
        if self.reasoning != ReasoningStyle::AnthropicBudget || !thinking_now {
            return Ok(None);
        }
        let b = asked
            .thinking_budget
            .or(self.default_budget)
            .unwrap_or(MIN_BUDGET);
        if b < MIN_BUDGET {
            return refuse(format!(
                "--thinking-budget {b} is below the provider's minimum of {MIN_BUDGET} tokens"
            ));
        }
        if *max_tokens <= b {
            // The budget is part of max_tokens: keep room for the answer.
            *max_tokens = b.saturating_add((*max_tokens).max(ANSWER_ROOM));
        }
        Ok(Some(b))
    }

    /// The inline reasoning tags read besides the defaults (the profile's, then the
    /// user's), each checked.
    fn tags(&self, asked: &Asked) -> Result<Vec<String>, ProfileError> {
        let mut reasoning_tags: Vec<String> = Vec::new();
        for t in self.reasoning_tags.iter().chain(&asked.reasoning_tags) {
            super::reasoning::check_tag(t).map_err(ProfileError::Refused)?;
            if !super::reasoning::DEFAULT_TAGS.contains(&t.as_str()) && !reasoning_tags.contains(t)
            {
                reasoning_tags.push(t.clone());
            }
        }
        Ok(reasoning_tags)
    }
}

#[cfg(test)]
#[path = "profile_tests.rs"]
mod tests;
