use super::*;
use crate::llm::finish;
use proptest::prelude::*;
use serde_json::json;

/// Reasoning with every trap: φ₀ restated, a wrong draft, an `Answer:` line.
fn thoughts(phi0: &str) -> String {
    format!(
        "restating it: {phi0}.\nDraft answer:\n```\np1 ∧ ¬p1\n```\nAnswer: p1 ∧ ¬p1\nNo, wrong."
    )
}

/// A chat completion with `message` and `finish`.
fn chat(message: Value, finish: &str) -> Value {
    json!({"choices": [{"index": 0, "message": message, "finish_reason": finish}],
           "usage": {"prompt_tokens": 10, "completion_tokens": 50,
                     "completion_tokens_details": {"reasoning_tokens": 30}}})
}

/// Every documented shape of a reply answering `answer` after reasoning `t`, and
/// whether the reasoning comes back readable.
fn shapes(t: &str, answer: &str, tag: &str) -> Vec<(String, Value, bool)> {
    let inline = format!("<{tag}>\n{t}\n</{tag}>\n\n{answer}");
    vec![
        (
            "string content, reasoning".into(),
            chat(json!({"content": answer, "reasoning": t}), "stop"),
            true,
        ),
        (
            "reasoning_content".into(),
            chat(json!({"content": answer, "reasoning_content": t}), "stop"),
            true,
        ),
        (
            format!("inline <{tag}>"),
            chat(json!({"content": inline}), "stop"),
            true,
        ),
        (
            "inline without opening tag".into(),
            chat(
                json!({"content": format!("{t}\n</think>\n{answer}")}),
                "stop",
            ),
            true,
        ),
        (
            "answer before the block".into(),
            chat(
                json!({"content": format!("{answer}\n<{tag}>{t}</{tag}>")}),
                "stop",
            ),
            true,
        ),
        (
            "Magistral content array".into(),
            chat(
                json!({"content": [
                    {"type": "thinking", "thinking": [{"type": "text", "text": t}]},
                    {"type": "text", "text": answer}]}),
                "stop",
            ),
            true,
        ),
        (
            "content array, thinking as a string".into(),
            chat(
                json!({"content": [{"type": "thinking", "thinking": t},
                                   {"type": "text", "text": answer}]}),
                "stop",
            ),
            true,
        ),
        (
            "OpenRouter reasoning_details".into(),
            chat(
                json!({"content": answer, "reasoning": t, "reasoning_details": [
                    {"type": "reasoning.summary", "summary": t},
                    {"type": "reasoning.text", "text": t}]}),
                "stop",
            ),
            true,
        ),
        (
            "OpenRouter encrypted only".into(),
            chat(
                json!({"content": answer, "reasoning_details": [
                    {"type": "reasoning.encrypted", "data": "gAAAA"}]}),
                "stop",
            ),
            false,
        ),
    ]
}

fn anthropic_shape(t: &str, answer: &str, redacted: bool) -> Value {
    let mut blocks = vec![json!({"type": "thinking", "thinking": t, "signature": "s"})];
    if redacted {
        blocks.push(json!({"type": "redacted_thinking", "data": "x"}));
    }
    blocks.push(json!({"type": "text", "text": answer}));
    json!({"content": blocks, "stop_reason": "end_turn",
           "usage": {"input_tokens": 5, "output_tokens": 9}})
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn answer_and_reasoning_come_back_apart_in_every_shape(
        atom in 1u8..9,
        op in prop::sample::select(vec!["∧", "∨", "→", "↔"]),
        tag in prop::sample::select(vec!["think", "thought", "reasoning", "thinking"]),
        redacted in any::<bool>(),
    ) {
        let answer = format!("p{atom} {op} q{atom}");
        let phi0 = format!("¬(p{atom} {op} q{atom}) ∨ r");
        let t = thoughts(&phi0);
        let mut cases = shapes(&t, &answer, tag);
        cases.push(("Anthropic blocks".into(), anthropic_shape(&t, &answer, redacted), true));
        for (name, body, readable) in cases {
            let reply = if name.starts_with("Anthropic") {
                anthropic(&body)
            } else {
                openai(&body)
            };
            let c = finish(reply.unwrap(), &crate::llm::reasoning::DEFAULT_TAGS)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            prop_assert_eq!(&c.text, &answer, "{}", name);
            prop_assert!(!c.truncated, "{}", name);
            if readable {
                let r = c.reasoning.clone().unwrap_or_default();
                prop_assert!(r.contains("restating it") && r.contains("Answer: p1 ∧ ¬p1"), "{}: {:?}", name, r);
            } else {
                prop_assert!(c.reasoning.is_none() && c.reasoning_redacted, "{}", name);
            }
            if name.starts_with("Anthropic") {
                prop_assert_eq!(c.reasoning_redacted, redacted);
            }
        }
    }
}

#[test]
fn refusal_chunks_and_empty_choices_are_unreadable_and_billed() {
    let refused = chat(
        json!({"content": [{"type": "refusal", "refusal": "I can't help"}]}),
        "stop",
    );
    let e = finish(openai(&refused).unwrap(), &["think"]).unwrap_err();
    assert!(e.unreadable && e.message.contains("refused"), "{e:?}");
    assert_eq!(e.billed, Some((10, 50)));
    let e = finish(
        openai(&chat(json!({"content": null, "refusal": "no"}), "stop")).unwrap(),
        &["think"],
    )
    .unwrap_err();
    assert!(e.message.contains("refused: no"));
    let empty = json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0}});
    let e = openai(&empty).unwrap_err();
    assert!(e.unreadable && e.message.contains("choices"));
    assert_eq!(e.billed, Some((3, 0)));
    assert!(openai(&json!({"error": "x"})).unwrap_err().unreadable);
}

#[test]
fn unknown_chunks_are_kept_raw() {
    let body = chat(
        json!({"content": [{"type": "text", "text": "p ∨ q"},
                           {"type": "image_url", "image_url": {"url": "x"}}]}),
        "stop",
    );
    let c = finish(openai(&body).unwrap(), &["think"]).unwrap();
    assert_eq!(c.text, "p ∨ q");
    assert_eq!(
        c.unread,
        vec![json!({"type": "image_url", "image_url": {"url": "x"}})]
    );
}

#[test]
fn a_length_stop_is_truncated_even_with_answer_text() {
    let body = chat(
        json!({"content": "<think>long</think>p1 ∧ (q", "reasoning": "r"}),
        "length",
    );
    let c = finish(openai(&body).unwrap(), &["think"]).unwrap();
    assert!(c.truncated);
    let body = json!({"content": [{"type": "text", "text": "p ∨"}], "stop_reason": "max_tokens",
                      "usage": {"input_tokens": 1, "output_tokens": 1}});
    assert!(
        finish(anthropic(&body).unwrap(), &["think"])
            .unwrap()
            .truncated
    );
}

#[test]
fn xai_reasoning_counted_apart_is_added() {
    // xAI: total = prompt + completion + reasoning, reasoning below completion.
    let u = json!({"prompt_tokens": 10, "completion_tokens": 50, "total_tokens": 90,
                   "completion_tokens_details": {"reasoning_tokens": 30}});
    assert_eq!(usage_openai(&u).output, 80);
    // OpenAI: reasoning inside completion.
    let u = json!({"prompt_tokens": 10, "completion_tokens": 50, "total_tokens": 60,
                   "completion_tokens_details": {"reasoning_tokens": 30}});
    assert_eq!(usage_openai(&u).output, 50);
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    let bad = r#"{"a": "x\ud800y", "b": "\ud83d\ude00", "c": "\\ud800", "d": "\udc00"}"#;
    let fixed = replace_lone_surrogates(bad).unwrap();
    let v: Value = serde_json::from_str(&fixed).unwrap();
    assert_eq!(v["a"], "x\u{fffd}y");
    assert_eq!(v["b"], "😀");
    assert_eq!(v["c"], "\\ud800");
    assert_eq!(v["d"], "\u{fffd}");
    assert_eq!(replace_lone_surrogates(r#"{"a": "\u00e9"}"#), None);
}

/// The usage readers as they were, indexing raw JSON: the typed readers must agree
/// with them on every value, hostile ones included.
fn usage_by_index(u: &Value, anthropic: bool) -> Usage {
    if anthropic {
        return Usage {
            input: u["input_tokens"].as_u64().unwrap_or(0),
            output: u["output_tokens"].as_u64().unwrap_or(0),
            reasoning: None,
        };
    }
    let input = u["prompt_tokens"].as_u64().unwrap_or(0);
    let completion = u["completion_tokens"].as_u64().unwrap_or(0);
    let reasoning = u["completion_tokens_details"]["reasoning_tokens"]
        .as_u64()
        .or_else(|| u["reasoning_tokens"].as_u64());
    let apart = reasoning.is_some_and(|r| {
        r > 0
            && (r > completion
                || u["total_tokens"].as_u64()
                    == Some(input.saturating_add(completion).saturating_add(r)))
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

/// A token count as a hostile server might send it.
fn any_count() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..2000).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        (0u64..100).prop_map(|n| Value::from(n.to_string())),
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u64..100).prop_map(|n| json!([n])),
        (0u64..100).prop_map(|n| json!({"reasoning_tokens": n})),
    ]
}

/// A usage block: some of the fields either shape names (and one it does not), each
/// with any count; or no object at all.
fn any_usage() -> impl Strategy<Value = Value> {
    let fields = [
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "reasoning_tokens",
        "completion_tokens_details",
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
    ];
    let block =
        proptest::collection::vec((0..fields.len(), any_count()), 0..10).prop_map(move |kv| {
            let mut m = serde_json::Map::new();
            for (k, v) in kv {
                m.insert(fields[k].to_string(), v);
            }
            Value::Object(m)
        });
    prop_oneof![
        4 => block,
        1 => any_count(),
        1 => (0u64..100).prop_map(|n| json!([n, n, n, n])),
    ]
}

proptest! {
    #[test]
    fn typed_usage_reads_every_block_as_indexing_did(u in any_usage()) {
        prop_assert_eq!(usage_openai(&u), usage_by_index(&u, false));
        let anthropic = anthropic(&json!({"content": [], "usage": u.clone()})).unwrap();
        prop_assert_eq!(anthropic.usage, usage_by_index(&u, true));
    }
}
