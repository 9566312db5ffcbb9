//! Tests of the request profiles.

use super::*;

fn find(provider: &str, model: &str) -> Profile {
    let p = super::super::provider::Provider::from_name(provider).unwrap();
    Profiles::builtin().find(p, model).unwrap().clone()
}

#[test]
fn shipped_table_parses_and_every_provider_has_a_catch_all() {
    let t = Profiles::builtin();
    assert!(t.all().len() >= 6);
    for p in super::super::provider::Provider::ALL {
        assert!(t.find(p, "some-unknown-model").is_some(), "{p}");
    }
}

#[test]
fn models_map_to_their_profiles() {
    for (prov, m, want) in [
        ("openai", "o3", "openai-reasoning"),
        ("openai", "o3-mini-2025-01-31", "openai-reasoning"),
        ("openai", "o4-mini", "openai-reasoning"),
        ("openai", "gpt-5.1", "openai-reasoning"),
        ("openai", "gpt-5-mini", "openai-reasoning"),
        ("openai", "gpt-4.1-nano", "openai-compatible"),
        ("openai", "qwen3-8b", "compatible-reasoning"),
        ("openai", "qwen/qwen3-235b-a22b", "compatible-reasoning"),
        ("openai", "openai/o3-mini", "openai-reasoning-routed"),
        ("openai", "deepseek/deepseek-r1", "deepseek-reasoner"),
        ("openai", "deepseek-reasoner", "deepseek-reasoner"),
        ("openai", "magistral-medium-latest", "compatible-reasoning"),
        ("openai", "grok-3-mini", "compatible-reasoning"),
        ("openai", "gemini-2.5-flash", "compatible-reasoning"),
        ("openai", "gpt-oss-20b", "compatible-reasoning"),
        ("openai", "qwq-32b", "compatible-reasoning"),
        ("openai", "deepseek-chat", "openai-compatible"),
        ("openai", "omni-model", "openai-compatible"),
        ("anthropic", "claude-opus-4-7", "anthropic-adaptive"),
        ("anthropic", "claude-sonnet-5", "anthropic-adaptive"),
        ("anthropic", "claude-sonnet-4-5", "anthropic-budget"),
        (
            "anthropic",
            "claude-sonnet-4-5-20250929",
            "anthropic-budget",
        ),
        ("anthropic", "claude-3-7-sonnet-latest", "anthropic-budget"),
        ("anthropic", "claude-3-5-haiku", "anthropic"),
    ] {
        assert_eq!(find(prov, m).name, want, "{prov}:{m}");
        if want != "openai-compatible" && !want.starts_with("anthropic") {
            // Reasoning counts against the limit: a reasoning-sized default.
            assert!(find(prov, m).default_max_tokens >= 16384, "{m}");
            assert!(find(prov, m).reasoning_estimate.is_some(), "{m}");
        }
    }
}

#[test]
fn openai_reasoning_omits_temperature_and_refuses_an_explicit_one() {
    let p = find("openai", "o3");
    let r = p.resolve("o3", &Asked::default()).unwrap();
    assert_eq!(r.temperature, None);
    assert_eq!(r.token_field, TokenField::MaxCompletionTokens);
    assert_eq!(r.max_tokens, 16384);
    assert!(r.omitted[0].starts_with("temperature"));
    let e = p
        .resolve(
            "o3",
            &Asked {
                temperature: Some(0.2),
                ..Asked::default()
            },
        )
        .unwrap_err();
    assert!(e.to_string().contains("o3") && e.to_string().contains("temperature"));
}

#[test]
fn legacy_claude_budget_rules() {
    let p = find("anthropic", "claude-sonnet-4-5");
    let plain = p.resolve("m", &Asked::default()).unwrap();
    assert_eq!(
        (plain.temperature, plain.thinking),
        (Some(0.1), Some(OnOff::Off))
    );
    let asked = Asked {
        thinking_budget: Some(2048),
        ..Asked::default()
    };
    let r = p.resolve("m", &asked).unwrap();
    assert_eq!(r.thinking, Some(OnOff::On));
    assert_eq!(r.thinking_budget, Some(2048));
    assert!(r.max_tokens > 2048);
    assert_eq!(r.temperature, None);
    let low = Asked {
        thinking_budget: Some(500),
        ..Asked::default()
    };
    assert!(p.resolve("m", &low).is_err());
    let hot = Asked {
        thinking_budget: Some(2048),
        temperature: Some(0.5),
        ..Asked::default()
    };
    assert!(p.resolve("m", &hot).is_err());
}

#[test]
fn adaptive_claude_thinks_by_default_and_refuses_a_budget() {
    let p = find("anthropic", "claude-opus-4-7");
    let r = p.resolve("m", &Asked::default()).unwrap();
    assert_eq!(r.thinking, Some(OnOff::On));
    assert!(r.max_tokens >= 8000);
    assert_eq!(r.temperature, None);
    let b = Asked {
        thinking_budget: Some(2048),
        ..Asked::default()
    };
    assert!(p.resolve("m", &b).is_err());
    let e = Asked {
        effort: Some("bogus".into()),
        ..Asked::default()
    };
    assert!(p.resolve("m", &e).unwrap_err().to_string().contains("low"));
}

#[test]
fn temperatures_stay_as_typed() {
    let p = find("openai", "gpt-4o");
    let r = p
        .resolve(
            "gpt-4o",
            &Asked {
                temperature: Some(0.1),
                ..Asked::default()
            },
        )
        .unwrap();
    let mut body = serde_json::json!({});
    body["temperature"] = serde_json::json!(r.temperature);
    assert_eq!(body.to_string(), r#"{"temperature":0.1}"#);
}

#[test]
fn glob_matches() {
    assert!(glob("o3", "O3"));
    assert!(!glob("o3", "o3-mini"));
    assert!(glob("o3-*", "o3-mini"));
    assert!(glob("claude-sonnet-5*", "claude-sonnet-5-20261101"));
    assert!(!glob("claude-sonnet-5*", "claude-sonnet-4-5"));
    assert!(glob("*", ""));
    assert!(glob("a*b*c", "aXbYc"));
    assert!(!glob("a*b*c", "ac"));
}
