//! One reader for every documented reply shape: a chat completion's `message` (string or
//! array `content` with text, thinking, reasoning and refusal chunks; `reasoning`,
//! `reasoning_content`, OpenRouter's `reasoning_details`; `refusal`) and Anthropic's
//! content blocks become the same [`Reply`]: answer text, reasoning parts by kind, the
//! finish state and usage. Chunk types it does not know are kept raw and named.

use super::LlmError;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What a reasoning part holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// The reasoning as written.
    Text,
    /// A provider's summary of it.
    Summary,
    /// Reasoning returned redacted or encrypted (no readable text).
    Redacted,
}

/// One piece of reasoning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its kind.
    pub kind: PartKind,
    /// Its text (empty when redacted).
    pub text: String,
}

/// Token usage as the provider reported it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens.
    pub input: u64,
    /// Output tokens as billed (reasoning included; see [`usage_openai`]).
    pub output: u64,
    /// Reasoning tokens, if reported.
    pub reasoning: Option<u64>,
}

/// A reply read from any shape, before inline reasoning is split off the answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The answer text (may still hold inline reasoning blocks).
    pub answer: String,
    /// Reasoning returned apart from the answer, in order.
    pub parts: Vec<Part>,
    /// The model declined, with its reason.
    pub refusal: Option<String>,
    /// Why generation stopped.
    pub finish_reason: Option<String>,
    /// Token usage.
    pub usage: Usage,
    /// Chunks of types this reader does not know, as the server sent them.
    pub unknown: Vec<Value>,
}

/// Most unknown chunks kept raw per reply (each also bounded by the reply cap).
const MAX_UNKNOWN: usize = 16;

/// An error for a body that answered 2xx but holds no answer that can be read.
pub(crate) fn unreadable(message: String, usage: Usage) -> LlmError {
    let mut e = LlmError::fatal(message);
    e.unreadable = true;
    e.billed = (usage.input > 0 || usage.output > 0).then_some((usage.input, usage.output));
    e
}

/// Text of a value that is a string, or a list of `{type: text, text}` chunks (Mistral
/// writes a thinking chunk's `thinking` so).
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|c| match c {
                Value::String(s) => Some(s.as_str()),
                _ => c["text"].as_str(),
            })
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

impl Reply {
    fn reason(&mut self, kind: PartKind, text: String) {
        if kind == PartKind::Redacted || !text.trim().is_empty() {
            self.parts.push(Part { kind, text });
        }
    }

    fn keep_unknown(&mut self, chunk: &Value) {
        if self.unknown.len() < MAX_UNKNOWN {
            self.unknown.push(chunk.clone());
        }
    }

    /// Reads one content chunk (chat-completion arrays and Anthropic blocks alike).
    fn chunk(&mut self, c: &Value) {
        match c["type"].as_str() {
            Some("text" | "output_text") => self.answer.push_str(&text_of(&c["text"])),
            Some("thinking") => {
                let t = text_of(&c["thinking"]);
                if t.trim().is_empty() {
                    // Display "omitted": the thinking happened, its text is not returned.
                    self.reason(PartKind::Redacted, String::new());
                } else {
                    self.reason(PartKind::Text, t);
                }
            }
            Some("reasoning") => {
                let t = [&c["reasoning"], &c["text"], &c["content"]]
                    .into_iter()
                    .map(text_of)
                    .find(|t| !t.is_empty())
                    .unwrap_or_default();
                self.reason(PartKind::Text, t);
            }
            Some("redacted_thinking" | "redacted_reasoning") => {
                self.reason(PartKind::Redacted, String::new());
            }
            Some("refusal") => {
                let r = text_of(&c["refusal"]);
                self.refusal = Some(r);
            }
            _ if c.is_string() => self.answer.push_str(c.as_str().unwrap_or_default()),
            _ => self.keep_unknown(c),
        }
    }

    /// Reads OpenRouter's `reasoning_details`.
    fn details(&mut self, details: &[Value]) {
        for d in details {
            match d["type"].as_str() {
                Some("reasoning.text") => self.reason(PartKind::Text, text_of(&d["text"])),
                Some("reasoning.summary") => {
                    self.reason(PartKind::Summary, text_of(&d["summary"]));
                }
                Some("reasoning.encrypted") => self.reason(PartKind::Redacted, String::new()),
                _ => self.keep_unknown(d),
            }
        }
    }
}

/// A token count as a provider reported it: a whole number from 0 up, else absent
/// (a negative, fractional, string or other value reads as no count, never an error).
fn count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64())
}

/// A nested object of a usage block; anything but an object reads as empty (an array
/// is not taken field by field).
fn object<'de, D: serde::Deserializer<'de>, T: DeserializeOwned + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(read_object(&Value::deserialize(d)?))
}

/// `v` read as `T` when it is an object, else `T::default()` (so a usage block that is
/// missing, `null`, a string or an array reads as no counts).
fn read_object<T: DeserializeOwned + Default>(v: &Value) -> T {
    if v.is_object() {
        T::deserialize(v).unwrap_or_default()
    } else {
        T::default()
    }
}

/// A chat completion's `usage` (OpenAI, vLLM, xAI, OpenRouter, …); fields it does not
/// name are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiUsage {
    #[serde(deserialize_with = "count")]
    prompt_tokens: Option<u64>,
    #[serde(deserialize_with = "count")]
    completion_tokens: Option<u64>,
    #[serde(deserialize_with = "count")]
    total_tokens: Option<u64>,
    /// Some servers report reasoning tokens at the top of the block.
    #[serde(deserialize_with = "count")]
    reasoning_tokens: Option<u64>,
    #[serde(deserialize_with = "object")]
    completion_tokens_details: CompletionDetails,
}

/// `usage.completion_tokens_details`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CompletionDetails {
    #[serde(deserialize_with = "count")]
    reasoning_tokens: Option<u64>,
}

/// An Anthropic message's `usage`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AnthropicUsage {
    #[serde(deserialize_with = "count")]
    input_tokens: Option<u64>,
    #[serde(deserialize_with = "count")]
    output_tokens: Option<u64>,
}

/// Usage of a chat completion. Reasoning tokens are inside `completion_tokens` (OpenAI,
/// vLLM) unless the server counts them apart (xAI: `total_tokens` = prompt + completion
/// + reasoning), or reports more reasoning than output (then it cannot have counted
///   them inside); apart, both were generated and both are billed.
pub fn usage_openai(u: &Value) -> Usage {
    let u: OpenAiUsage = read_object(u);
    let input = u.prompt_tokens.unwrap_or(0);
    let completion = u.completion_tokens.unwrap_or(0);
    let reasoning = u
        .completion_tokens_details
        .reasoning_tokens
        .or(u.reasoning_tokens);
    let apart = reasoning.is_some_and(|r| {
        r > 0
            && (r > completion
                || u.total_tokens == Some(input.saturating_add(completion).saturating_add(r)))
    });
    Usage {
        input,
        output: if apart {
            completion.saturating_add(reasoning.unwrap_or(0))
        } else {
            completion
        },
        reasoning,
    }
}

/// Usage of an Anthropic message (thinking is inside `output_tokens`).
pub fn usage_anthropic(u: &Value) -> Usage {
    let u: AnthropicUsage = read_object(u);
    Usage {
        input: u.input_tokens.unwrap_or(0),
        output: u.output_tokens.unwrap_or(0),
        reasoning: None,
    }
}

/// Reads a chat-completion body (OpenAI, vLLM, SGLang, llama.cpp, Mistral, OpenRouter,
/// DeepSeek, xAI, Gemini's compatible endpoint).
pub fn openai(v: &Value) -> Result<Reply, LlmError> {
    let usage = usage_openai(&v["usage"]);
    let Some(choice) = v["choices"].as_array().and_then(|c| c.first()) else {
        return Err(unreadable(
            if v["choices"].as_array().is_some_and(Vec::is_empty) {
                "the reply has no answer: `choices` is empty".to_string()
            } else {
                "the reply has no `choices`: not a chat completion".to_string()
            },
            usage,
        ));
    };
    let msg = &choice["message"];
    if !msg.is_object() {
        return Err(unreadable(
            "the reply's first choice has no `message`".into(),
            usage,
        ));
    }
    let mut r = Reply {
        usage,
        finish_reason: choice["finish_reason"].as_str().map(str::to_string),
        ..Reply::default()
    };
    match &msg["content"] {
        Value::String(s) => r.answer.push_str(s),
        Value::Array(chunks) => {
            for c in chunks {
                r.chunk(c);
            }
        }
        _ => {}
    }
    // OpenRouter sends the same reasoning as `reasoning` and as `reasoning_details`:
    // the details (with their kinds) win, the plain field is read when they are absent.
    let details = msg["reasoning_details"].as_array().map(Vec::as_slice);
    match details.filter(|d| !d.is_empty()) {
        Some(d) => r.details(d),
        None => {
            for f in ["reasoning", "reasoning_content"] {
                let t = text_of(&msg[f]);
                if !t.trim().is_empty() {
                    r.reason(PartKind::Text, t);
                    break;
                }
            }
        }
    }
    if let Some(refusal) = msg["refusal"].as_str().filter(|s| !s.trim().is_empty()) {
        r.refusal = Some(refusal.to_string());
    }
    Ok(r)
}

/// Reads an Anthropic message: text blocks are the answer, thinking blocks the
/// reasoning, redacted thinking is recorded as redacted (never as text).
pub fn anthropic(v: &Value) -> Result<Reply, LlmError> {
    let usage = usage_anthropic(&v["usage"]);
    let Some(blocks) = v["content"].as_array() else {
        return Err(unreadable(
            "the reply has no `content` blocks: not a message".into(),
            usage,
        ));
    };
    let mut r = Reply {
        usage,
        finish_reason: v["stop_reason"].as_str().map(str::to_string),
        ..Reply::default()
    };
    for b in blocks {
        r.chunk(b);
    }
    if r.finish_reason.as_deref() == Some("refusal") && r.refusal.is_none() {
        r.refusal = Some("stop_reason: refusal".into());
    }
    Ok(r)
}

/// The JSON text with every lone surrogate escape (`\ud800` without its pair, or a
/// trailing half) replaced by `\ufffd`; `None` when it holds none. Escaped backslashes
/// are skipped, so `\\ud800` (a backslash, then text) is left alone.
pub(crate) fn replace_lone_surrogates(json: &str) -> Option<String> {
    let b = json.as_bytes();
    memchr::memmem::find(b, b"\\u")?;
    let hex = |i: usize| -> Option<u16> {
        let s = json.get(i..i + 4)?;
        u16::from_str_radix(s, 16).ok()
    };
    // An escape `\uXXXX` starting at `i`.
    let escape = |i: usize| -> Option<u16> {
        (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
            .then(|| hex(i + 2))
            .flatten()
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = escape(i) else {
            // Any other escape: skip the backslash and the escaped character.
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&u);
        let low = (0xDC00..0xE000).contains(&u);
        if high && escape(i + 6).is_some_and(|n| (0xDC00..0xE000).contains(&n)) {
            i += 12;
            continue;
        }
        if high || low {
            let o = out.get_or_insert_with(|| String::with_capacity(json.len()));
            o.push_str(&json[copied..i]);
            o.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    let mut o = out?;
    o.push_str(&json[copied..]);
    Some(o)
}

#[cfg(test)]
#[path = "reply_tests.rs"]
mod tests;
