//! Every provider's reply shape through the CLI: content arrays (Mistral Magistral),
//! inline thoughts under other tags (Gemini), OpenRouter's reasoning details, answers
//! cut at the limit, and runs that stop when no answer can be read.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::providers::{self, Style, bodies};
use common::{FakeModel, Reply, Server, manifest, model_run, model_run_ok, prompt_of, samples};
use serde_json::{Value, json};
use std::path::Path;

/// Every sample `equivalent` (the fake model answers correctly: any other verdict means
/// reasoning leaked into ψ or φ₁), its reasoning recorded apart with its tokens, and no
/// second-call prompt carrying the first call's reasoning.
fn scored_from_the_answer_alone(out: &Path, server: &Server) -> Vec<Value> {
    let s = samples(out);
    assert!(!s.is_empty());
    for x in &s {
        assert_eq!(x["verdict"]["verdict"], "equivalent", "{x}");
        let call = &x["rounds"][0]["informalize"];
        assert!(
            call["reasoning"].as_str().unwrap().contains("restating it"),
            "{call}"
        );
        assert!(!call["output"].as_str().unwrap().contains("restating"));
        assert_eq!(call["reasoning_tokens"], 600);
        assert_eq!(call["output_tokens"], 700);
    }
    for b in bodies(server) {
        let p = b["messages"][0]["content"].as_str().unwrap_or("");
        if p.contains("[NL DESCRIPTION]") {
            assert!(!p.contains("restating it"), "reasoning leaked into: {p}");
        }
    }
    s
}

/// What Mistral's chat completions endpoint refuses: fields it does not define (it
/// answers 422 "Extra inputs are not permitted"), such as OpenAI's
/// `max_completion_tokens` or vLLM's `chat_template_kwargs`.
fn mistral_rules(body: &Value) -> Option<Reply> {
    for f in ["max_completion_tokens", "chat_template_kwargs", "verbosity"] {
        if body.get(f).is_some() {
            return Some(Reply::json(
                422,
                json!({"object": "error", "message": {"detail": [{"type": "extra_forbidden",
                    "loc": ["body", f], "msg": "Extra inputs are not permitted"}]},
                    "type": "invalid_request_message_error"})
                .to_string(),
            ));
        }
    }
    None
}

#[test]
fn magistral_content_arrays_are_read() {
    let server = providers::openai_server(Style::Magistral, mistral_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("magistral");
    model_run_ok(
        &server.base,
        &out,
        "openai:magistral-medium-latest",
        &["--limit", "5"],
    );
    scored_from_the_answer_alone(&out, &server);
    let m = manifest(&out);
    assert_eq!(m["request"]["profile"], "compatible-reasoning");
    assert_eq!(m["max_tokens"], 16384, "a reasoning-sized default limit");
}

#[test]
fn gemini_thought_tags_are_split_off() {
    let server = providers::openai_server(Style::GeminiThought, providers::no_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gemini");
    model_run_ok(
        &server.base,
        &out,
        "openai:gemini-2.5-flash",
        &["--limit", "5"],
    );
    scored_from_the_answer_alone(&out, &server);
}

#[test]
fn a_tag_named_with_reasoning_tag_is_split_off() {
    // A server whose chat template wraps reasoning in <mind> (Vertex lets the caller
    // pick the tag with thought_tag_marker).
    let model = FakeModel::new();
    let server = Server::start(move |_, r| {
        let prompt = prompt_of(r);
        let body = providers::openai_reply(Style::Hidden, &prompt, &model.answer(&prompt));
        let mut v: Value = serde_json::from_str(&body).unwrap();
        let answer = v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .to_string();
        v["choices"][0]["message"]["content"] = json!(format!(
            "<mind>{}</mind>\n{answer}",
            providers::thoughts(&prompt)
        ));
        Reply::json(200, v.to_string())
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mind");
    model_run_ok(
        &server.base,
        &out,
        "openai:my-model",
        &["--limit", "4", "--reasoning-tag", "mind"],
    );
    scored_from_the_answer_alone(&out, &server);
    assert_eq!(manifest(&out)["request"]["reasoning_tags"], json!(["mind"]));
    // The same tag from the user's own profiles.toml, with no flag.
    let home = dir.path().join("home");
    let config = home.join(".config/autoeval");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("profiles.toml"),
        "[[profile]]\nname = \"my-server\"\nprovider = \"openai\"\nmodels = [\"my-model\"]\n\
         token_field = \"max_tokens\"\ntemperature = \"send\"\nreasoning = \"compatible\"\n\
         thinking_default = \"on\"\nefforts = [\"low\"]\ndefault_max_tokens = 4096\n\
         reasoning_tags = [\"mind\"]\n",
    )
    .unwrap();
    let out2 = dir.path().join("mind-profile");
    let mut c = model_run(&server.base, &out2, "openai:my-model", &["--limit", "4"]);
    common::cli::isolate(&mut c, &home);
    let o = c.output().unwrap();
    common::cli::ok(&o);
    scored_from_the_answer_alone(&out2, &server);
    assert_eq!(manifest(&out2)["request"]["profile"], "my-server");
    assert_eq!(
        manifest(&out2)["request"]["reasoning_tags"],
        json!(["mind"])
    );
    // A tag that is not a name is refused before any call.
    let before = server.hits.load(std::sync::atomic::Ordering::SeqCst);
    let o = model_run(
        &server.base,
        &dir.path().join("bad"),
        "openai:my-model",
        &["--reasoning-tag", "<mind>"],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        server.hits.load(std::sync::atomic::Ordering::SeqCst),
        before
    );
}

#[test]
fn openrouter_reasoning_details_are_read_and_encrypted_parts_marked() {
    let server = providers::openai_server(Style::OpenRouter, providers::no_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("openrouter");
    model_run_ok(
        &server.base,
        &out,
        "openai:openai/o3-mini",
        &["--limit", "4"],
    );
    let s = scored_from_the_answer_alone(&out, &server);
    for x in &s {
        assert_eq!(x["rounds"][0]["informalize"]["reasoning_redacted"], true);
    }
    // Routed o-series: no temperature, max_tokens as routers take it.
    for b in bodies(&server) {
        assert!(b.get("temperature").is_none(), "{b}");
        assert_eq!(b["max_tokens"], 16384);
    }
}

#[test]
fn an_answer_cut_at_the_limit_is_truncated_and_retried() {
    let server = providers::openai_server(Style::CutMidAnswer, providers::no_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cut");
    let err = model_run_ok(
        &server.base,
        &out,
        "openai:qwen3-8b",
        &["--limit", "4", "--max-tokens", "700"],
    );
    assert!(err.contains("truncated: 4 of 4 calls"), "{err}");
    for x in samples(&out) {
        let reason = x["verdict"]["reason"].as_str().unwrap();
        assert!(reason.contains("stopped at max tokens (700)"), "{reason}");
        assert_eq!(x["rounds"][0]["informalize"]["truncated"], true);
        assert!(
            x["rounds"][0]
                .get("autoformalize")
                .is_none_or(Value::is_null)
        );
    }
    // The partial ψ never went to a fresh second call.
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 4);
    providers::redo_truncated(&out);
}

/// Prices for `model`, in a file for --prices.
fn prices(dir: &Path, model: &str) -> std::path::PathBuf {
    common::write_prices(
        dir,
        &json!({model: {"input": 1.0, "output": 2.0}}).to_string(),
    )
}

/// A run against a server whose every reply is `body`: stopped at once with exit 75,
/// nothing written, the cause and the command that continues it printed, and the
/// billed usage of the failed calls in the spend ledger.
fn stops_when_unreadable(body: Value, cause: &str) {
    let server = Server::start(move |_, _| Reply::json(200, body.to_string()));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("unreadable");
    let p = prices(dir.path(), "fake-model");
    let o = model_run(
        &server.base,
        &out,
        "openai:fake-model",
        &["--limit", "8", "--concurrency", "1", "--prices"],
    )
    .arg(&p)
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
    assert!(err.contains("no answer could be read"), "{err}");
    assert!(err.contains(cause), "{err}");
    assert!(err.contains("--resume"), "{err}");
    assert!(
        err.contains("autoeval run"),
        "the command that continues it: {err}"
    );
    assert!(server.hits.load(std::sync::atomic::Ordering::SeqCst) < 8);
    assert_eq!(manifest(&out)["status"], "cancelled");
    assert!(samples(&out).is_empty());
    let ledger = std::fs::read_to_string(out.join("spend.jsonl")).unwrap();
    let billed: Vec<Value> = ledger
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|l: &Value| l["input_tokens"] == 30)
        .collect();
    assert!(!billed.is_empty(), "failed calls are billed: {ledger}");
    let cost = billed[0]["cost_usd"].as_f64().unwrap();
    assert!((cost - (30.0 + 2.0 * 5.0) / 1e6).abs() < 1e-12, "{cost}");
}

#[test]
fn empty_choices_stop_the_run() {
    stops_when_unreadable(
        json!({"id": "x", "object": "chat.completion", "choices": [],
               "usage": {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}}),
        "choices",
    );
}

#[test]
fn repeated_refusals_stop_the_run() {
    stops_when_unreadable(
        json!({"id": "x", "object": "chat.completion",
               "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": null,
                                        "refusal": "I'm sorry, I cannot help with that."}}],
               "usage": {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}}),
        "refused",
    );
}

#[test]
fn a_refused_setting_is_corrected_on_resume_without_force() {
    // OpenAI's reasoning models refuse an effort they do not take.
    let server = Server::start(|_, r| {
        let b: Value = serde_json::from_str(&r.body).unwrap_or_default();
        if b["reasoning_effort"] == "xhigh" {
            return Reply::json(
                400,
                json!({"error": {"message": "Unsupported value: 'reasoning_effort' does not support 'xhigh' with this model.",
                    "type": "invalid_request_error", "param": "reasoning_effort", "code": "unsupported_value"}})
                .to_string(),
            );
        }
        let prompt = prompt_of(r);
        Reply::json(
            200,
            providers::openai_reply(Style::Hidden, &prompt, &FakeModel::new().answer(&prompt)),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("effort");
    let o = model_run(
        &server.base,
        &out,
        "openai:o3",
        &[
            "--limit",
            "4",
            "--concurrency",
            "1",
            "--reasoning-effort",
            "xhigh",
        ],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
    // The message names the command that works: the same one with --resume.
    let line = err
        .lines()
        .find(|l| l.trim_start().starts_with("autoeval run"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.contains("--resume") && !line.contains("--force"),
        "{line}"
    );
    let err = model_run_ok(
        &server.base,
        &out,
        "openai:o3",
        &[
            "--limit",
            "4",
            "--concurrency",
            "1",
            "--reasoning-effort",
            "low",
            "--resume",
        ],
    );
    assert!(err.contains("corrected"), "{err}");
    assert_eq!(samples(&out).len(), 4);
    assert_eq!(manifest(&out)["request"]["effort"], "low");
    // Once samples finished, another effort needs --force, which never lets another
    // prompt set or rounds through.
    let again = |extra: &[&str]| {
        model_run(
            &server.base,
            &out,
            "openai:o3",
            &[&["--limit", "6", "--resume"], extra].concat(),
        )
        .output()
        .unwrap()
    };
    let o = again(&["--reasoning-effort", "high"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    let o = again(&["--reasoning-effort", "low", "--rounds", "2", "--force"]);
    common::cli::refused(&o, "--force-experiment");
    let o = again(&["--reasoning-effort", "high", "--force"]);
    common::cli::ok(&o);
}

#[test]
fn the_dry_run_counts_the_profiles_reasoning() {
    let dir = tempfile::tempdir().unwrap();
    let o = model_run(
        "http://127.0.0.1:9",
        &dir.path().join("dry"),
        "openai:deepseek/deepseek-r1",
        &["--limit", "4", "--dry-run"],
    )
    .output()
    .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    common::cli::ok(&o);
    assert!(
        out.contains("of which 48000 reasoning: the profile's estimate of 6000 per call"),
        "{out}"
    );
    assert!(out.contains("--max-tokens 32768"), "{out}");
}

/// A server that reports no reasoning tokens (llama.cpp without a parser): the summary
/// says so instead of printing "reasoning: 0 tokens", and the JSON summary has `null`.
#[test]
fn reasoning_tokens_not_reported_are_not_printed_as_zero() {
    let server = Server::start(|_, r| {
        let t = providers::thoughts(&prompt_of(r));
        Reply::json(
            200,
            json!({
                "id": "x", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "length",
                    "message": {"role": "assistant", "content": format!("<think>\n{t}\nStill checking")}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 700, "total_tokens": 800}
            })
            .to_string(),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("unreported");
    let o = model_run(
        &server.base,
        &out,
        "openai:local-model",
        &["--limit", "3", "--format", "json"],
    )
    .output()
    .unwrap();
    let err = common::cli::ok_stderr(&o);
    assert!(
        err.contains("reasoning: tokens not reported by the provider; truncated: 3 of 3 calls"),
        "{err}"
    );
    assert!(!err.contains("reasoning: 0"), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["reasoning_tokens"].is_null(), "{v}");
    assert_eq!(v["truncated"], 3);
    for x in samples(&out) {
        let call = &x["rounds"][0]["informalize"];
        assert!(call["reasoning_tokens"].is_null(), "{call}");
        assert!(call["reasoning"].as_str().unwrap().contains("restating it"));
    }
}

/// Bodies with no answer and no usage to bill: a proxy's HTML page served as 200, and a
/// reply holding only reasoning. Each stops the run with exit 75 and nothing written.
#[test]
fn bodies_with_no_answer_stop_the_run() {
    let only_reasoning = json!({"id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "", "reasoning_content": "thinking, thinking"}}]})
    .to_string();
    for (body, cause) in [
        (
            "<html><body>502 Bad Gateway</body></html>".to_string(),
            "malformed JSON",
        ),
        (only_reasoning, "only reasoning"),
    ] {
        let server = Server::start(move |_, _| Reply::json(200, body.clone()));
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("unreadable");
        let o = model_run(
            &server.base,
            &out,
            "openai:fake-model",
            &["--limit", "8", "--concurrency", "1"],
        )
        .output()
        .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(75), "{err}");
        assert!(err.contains("no answer could be read"), "{err}");
        assert!(err.contains(cause), "{cause}: {err}");
        assert!(server.hits.load(std::sync::atomic::Ordering::SeqCst) < 8);
        assert_eq!(manifest(&out)["status"], "cancelled");
        assert!(samples(&out).is_empty());
    }
}
