//! Test servers that behave like the real providers for reasoning models: they enforce
//! each provider's request rules with the provider's own error bodies, and return
//! reasoning the way each one does. The reasoning always restates φ₀ and holds a wrong
//! draft formula, so a test fails whenever reasoning leaks into ψ, the second call or
//! the extraction of φ₁.

use super::{FakeModel, Reply, Request, Server, model_run_ok, prompt_of, samples};
use serde_json::{Value, json};
use std::path::Path;

/// How an OpenAI-compatible server returns reasoning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// OpenAI proper: no reasoning text, `reasoning_tokens` in usage.
    Hidden,
    /// vLLM ≥ 0.11 with a reasoning parser: `message.reasoning`.
    Field,
    /// Older vLLM, SGLang, llama.cpp: `message.reasoning_content`.
    OldField,
    /// No parser: `<think>…</think>` inside `content`.
    Inline,
    /// No parser, DeepSeek-R1 style: `…</think>` without the opening tag.
    InlineNoOpen,
    /// No parser and the limit reached while thinking: an unclosed block, `length`.
    Truncated,
    /// Mistral Magistral: `content` is a list of a `thinking` chunk (itself a list of
    /// text chunks) and a `text` chunk.
    Magistral,
    /// Gemini's OpenAI-compatible endpoint with `include_thoughts`: thoughts inline in
    /// `content` inside `<thought>` tags.
    GeminiThought,
    /// The limit reached after the reasoning, mid-answer: a partial answer, `length`.
    CutMidAnswer,
    /// OpenRouter: `reasoning` and `reasoning_details` (text and encrypted parts).
    OpenRouter,
}

/// The reasoning a model "thinks" for a prompt: restates the formula (informalization)
/// or the description, and drafts a wrong formula in a code fence.
pub fn thoughts(prompt: &str) -> String {
    let formula = FakeModel::block_pub(prompt, "[FORMULA]").unwrap_or("");
    format!(
        "The formula is {formula}; restating it: {formula}.\nDraft answer:\n```\np1 ∧ ¬p1\n```\n\
         Answer: p1 ∧ ¬p1\nNo, that draft is wrong; I will answer properly."
    )
}

fn openai_error(param: &str, message: &str, code: &str) -> Reply {
    Reply::json(
        400,
        json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}})
            .to_string(),
    )
}

/// OpenAI's rules for reasoning models (o-series, gpt-5.x): `max_tokens` and a
/// temperature other than 1 are refused with OpenAI's own error bodies.
pub fn openai_reasoning_rules(body: &Value) -> Option<Reply> {
    if body.get("max_tokens").is_some() {
        return Some(openai_error(
            "max_tokens",
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "unsupported_parameter",
        ));
    }
    if let Some(t) = body.get("temperature")
        && t.as_f64() != Some(1.0)
    {
        return Some(openai_error(
            "temperature",
            &format!(
                "Unsupported value: 'temperature' does not support {t} with this model. Only the default (1) value is supported."
            ),
            "unsupported_value",
        ));
    }
    if let Some(e) = body.get("reasoning_effort").and_then(Value::as_str)
        && !["none", "minimal", "low", "medium", "high", "xhigh"].contains(&e)
    {
        return Some(openai_error(
            "reasoning_effort",
            &format!("Invalid value: '{e}'."),
            "invalid_value",
        ));
    }
    None
}

/// An OpenAI-compatible reply in `style`, answering `answer` after reasoning.
pub fn openai_reply(style: Style, prompt: &str, answer: &str) -> String {
    let t = thoughts(prompt);
    let (content, finish) = match style {
        Style::Hidden | Style::Field | Style::OldField => (answer.to_string(), "stop"),
        Style::Inline => (format!("<think>\n{t}\n</think>\n\n{answer}"), "stop"),
        Style::InlineNoOpen => (format!("{t}\n</think>\n\n{answer}"), "stop"),
        Style::Truncated => (format!("<think>\n{t}\nStill checking"), "length"),
        Style::Magistral | Style::OpenRouter => (answer.to_string(), "stop"),
        Style::GeminiThought => (format!("<thought>{t}</thought>{answer}"), "stop"),
        Style::CutMidAnswer => {
            let cut: String = answer.chars().take(answer.chars().count() / 2).collect();
            (format!("<think>\n{t}\n</think>\n\n{cut}"), "length")
        }
    };
    let mut message = json!({"role": "assistant", "content": content});
    match style {
        Style::Field => message["reasoning"] = json!(t),
        Style::OldField => message["reasoning_content"] = json!(t),
        Style::Magistral => {
            message["content"] = json!([
                {"type": "thinking", "thinking": [{"type": "text", "text": t}]},
                {"type": "text", "text": answer}
            ]);
        }
        Style::OpenRouter => {
            message["reasoning"] = json!(t);
            message["reasoning_details"] = json!([
                {"type": "reasoning.text", "text": t, "format": "unknown", "index": 0},
                {"type": "reasoning.encrypted", "data": "gAAAAB", "format": "unknown", "index": 1}
            ]);
        }
        _ => {}
    }
    json!({
        "id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 700, "total_tokens": 800,
                  "completion_tokens_details": {"reasoning_tokens": 600}}
    })
    .to_string()
}

/// An OpenAI-compatible server; `rules` may refuse a request body first.
pub fn openai_server(style: Style, rules: fn(&Value) -> Option<Reply>) -> Server {
    let model = FakeModel::new();
    Server::start(move |_, r: &Request| {
        let body: Value = serde_json::from_str(&r.body).unwrap_or_default();
        if let Some(refusal) = rules(&body) {
            return refusal;
        }
        let prompt = prompt_of(r);
        Reply::json(200, openai_reply(style, &prompt, &model.answer(&prompt)))
    })
}

/// No extra rules (a local server).
pub fn no_rules(_: &Value) -> Option<Reply> {
    None
}

fn anthropic_error(message: &str) -> Reply {
    Reply::json(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
            .to_string(),
    )
}

/// Which Claude generation the server plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Claude {
    /// Opus 4.7 and later: no temperature, adaptive thinking on by default.
    Current,
    /// Sonnet 4.5: thinking only with a budget, no temperature while thinking.
    Legacy,
}

/// Tokens the server's model thinks before answering.
pub const THINKING_TOKENS: u64 = 1500;

/// An Anthropic server for `gen`, enforcing its request rules.
pub fn anthropic_server(generation: Claude) -> Server {
    let model = FakeModel::new();
    Server::start(move |_, r: &Request| {
        let body: Value = serde_json::from_str(&r.body).unwrap_or_default();
        let max = body["max_tokens"].as_u64().unwrap_or(0);
        let thinking = &body["thinking"];
        let thinks = match generation {
            Claude::Current => {
                if body.get("temperature").is_some() {
                    return anthropic_error("`temperature` is deprecated for this model.");
                }
                if thinking["type"] == "enabled" {
                    return anthropic_error(
                        "thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior.",
                    );
                }
                thinking["type"] != "disabled"
            }
            Claude::Legacy => {
                if thinking["type"] == "enabled" {
                    let b = thinking["budget_tokens"].as_u64().unwrap_or(0);
                    if b < 1024 {
                        return anthropic_error(
                            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                        );
                    }
                    if max <= b {
                        return anthropic_error(
                            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
                        );
                    }
                    if body
                        .get("temperature")
                        .is_some_and(|t| t.as_f64() != Some(1.0))
                    {
                        return anthropic_error(
                            "`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility",
                        );
                    }
                    true
                } else if thinking["type"] == "adaptive" {
                    return anthropic_error(
                        "thinking.type: adaptive is not supported for this model.",
                    );
                } else {
                    false
                }
            }
        };
        let prompt = prompt_of(r);
        let answer = model.answer(&prompt);
        let mut content = Vec::new();
        if thinks {
            let shown = if thinking["display"] == "summarized" || generation == Claude::Legacy {
                thoughts(&prompt)
            } else {
                String::new()
            };
            content.push(json!({"type": "thinking", "thinking": shown, "signature": "sig"}));
            if max < THINKING_TOKENS + 50 {
                // The thinking used the whole budget: no text block.
                return Reply::json(
                    200,
                    json!({"id": "m", "type": "message", "role": "assistant", "content": content,
                           "stop_reason": "max_tokens", "usage": {"input_tokens": 90, "output_tokens": max}})
                    .to_string(),
                );
            }
        }
        content.push(json!({"type": "text", "text": answer}));
        let out = if thinks { THINKING_TOKENS + 20 } else { 20 };
        Reply::json(
            200,
            json!({"id": "m", "type": "message", "role": "assistant", "content": content,
                   "stop_reason": "end_turn", "usage": {"input_tokens": 90, "output_tokens": out}})
            .to_string(),
        )
    })
}

/// Bodies the server received, parsed.
pub fn bodies(s: &Server) -> Vec<Value> {
    s.requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| serde_json::from_str(&r.body).unwrap_or_default())
        .collect()
}

/// What OpenAI's chat completions endpoint refuses of any request: another path or
/// method (404), a body that is not JSON, no `model`, or no non-empty `messages` of
/// `{role, content}` (400, with OpenAI's error bodies).
pub fn openai_chat_rules(r: &Request) -> Option<Reply> {
    if r.method != "POST" || !r.path.ends_with("/chat/completions") {
        return Some(Reply::json(
            404,
            json!({"error": {"message": format!("Invalid URL ({} {})", r.method, r.path), "type": "invalid_request_error", "param": null, "code": null}}).to_string(),
        ));
    }
    let Ok(body) = serde_json::from_str::<Value>(&r.body) else {
        return Some(openai_error(
            "",
            "We could not parse the JSON body of your request.",
            "invalid_json",
        ));
    };
    if !body["model"].is_string() {
        return Some(openai_error(
            "model",
            "you must provide a model parameter",
            "missing_required_parameter",
        ));
    }
    let ok = body["messages"].as_array().is_some_and(|m| {
        !m.is_empty()
            && m.iter()
                .all(|x| x["role"].is_string() && x["content"].is_string())
    });
    if !ok {
        return Some(openai_error(
            "messages",
            "Invalid 'messages': expected a non-empty array of messages with role and content.",
            "invalid_value",
        ));
    }
    None
}

/// Redoes the 4 truncated samples of the `qwen3-8b` run in `out` with a larger limit
/// against a server that answers in full (`--resume --retry-truncated`): one new line
/// each, all of them equivalent.
pub fn redo_truncated(out: &Path) {
    let server = openai_server(Style::Inline, no_rules);
    model_run_ok(
        &server.base,
        out,
        "openai:qwen3-8b",
        &[
            "--limit",
            "4",
            "--max-tokens",
            "4000",
            "--resume",
            "--retry-truncated",
        ],
    );
    let s = samples(out);
    assert_eq!(s.len(), 8);
    assert!(
        s[4..]
            .iter()
            .all(|x| x["verdict"]["verdict"] == "equivalent")
    );
}
