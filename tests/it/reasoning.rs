//! Reasoning models end to end through the CLI, against servers that enforce each
//! provider's request rules and return reasoning the way each one does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::providers::{self, Claude, Style, bodies};
use common::{manifest, model_run, model_run_ok, samples};
use serde_json::Value;
use std::path::Path;

/// Every sample of the run is `equivalent` (the fake model answers correctly, so any
/// other verdict means reasoning leaked into ψ, the second prompt or the extraction).
fn all_equivalent(out: &Path) -> Vec<Value> {
    let s = samples(out);
    assert!(!s.is_empty());
    for x in &s {
        assert_eq!(x["verdict"]["verdict"], "equivalent", "{x}");
    }
    s
}

/// No second-call prompt carries the first call's reasoning (φ₀ restated).
fn fresh_second_calls(server: &common::Server) {
    for b in bodies(server) {
        let p = b["messages"][0]["content"].as_str().unwrap_or("");
        if p.contains("[NL DESCRIPTION]") {
            assert!(!p.contains("restating it"), "reasoning leaked into: {p}");
        }
    }
}

#[test]
fn openai_o3_sends_max_completion_tokens_and_no_temperature() {
    let server = providers::openai_server(Style::Hidden, providers::openai_reasoning_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o3");
    model_run_ok(&server.base, &out, "openai:o3", &["--limit", "6"]);
    let s = all_equivalent(&out);
    for b in bodies(&server) {
        assert_eq!(b["max_completion_tokens"], 16384, "{b}");
        assert!(b.get("max_tokens").is_none() && b.get("temperature").is_none());
    }
    let m = manifest(&out);
    assert_eq!(m["request"]["profile"], "openai-reasoning");
    assert_eq!(m["request"]["token_field"], "max_completion_tokens");
    assert!(m["temperature"].is_null());
    assert!(
        m["request"]["omitted"][0]
            .as_str()
            .unwrap()
            .starts_with("temperature")
    );
    // Billed tokens: reasoning is inside the output count, not added again.
    let call = &s[0]["rounds"][0]["informalize"];
    assert_eq!(call["reasoning_tokens"], 600);
    assert_eq!(call["output_tokens"], 700);
    let cost = call["cost_usd"].as_f64().unwrap();
    assert!(
        (cost - (100.0 * 2.0 + 700.0 * 8.0) / 1e6).abs() < 1e-12,
        "{cost}"
    );
    let r = common::cli::bin()
        .args(["report", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap();
    let rep: Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(rep["runs"][0]["reasoning_tokens"], 600 * 2 * 6);
}

#[test]
fn an_explicit_temperature_for_o3_is_refused_before_any_call() {
    let server = providers::openai_server(Style::Hidden, providers::openai_reasoning_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o3t");
    let c = &mut model_run(&server.base, &out, "openai:o3", &["--temperature", "0.1"]);
    let o = c.output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("o3") && err.contains("temperature"), "{err}");
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn a_refused_request_stops_the_run_with_exit_75_and_stays_resumable() {
    // A server that refuses every request the way OpenAI refuses max_tokens.
    let server = common::Server::start(|_, _| {
        common::Reply::json(
            400,
            serde_json::json!({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}).to_string(),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refused");
    let o = model_run(
        &server.base,
        &out,
        "openai:fake",
        &["--limit", "8", "--concurrency", "1"],
    )
    .output()
    .unwrap();
    assert_eq!(
        o.status.code(),
        Some(75),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("max_completion_tokens"), "{err}");
    assert!(!err.contains("sk-never-written"), "no key in messages");
    assert!(
        server.hits.load(std::sync::atomic::Ordering::SeqCst) < 8,
        "stopped early"
    );
    assert_eq!(manifest(&out)["status"], "cancelled");
    assert!(
        samples(&out).is_empty(),
        "refused samples are left for --resume"
    );
}

#[test]
fn gpt_5_1_with_low_effort_and_extra_body() {
    let server = providers::openai_server(Style::Hidden, providers::openai_reasoning_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g51");
    model_run_ok(
        &server.base,
        &out,
        "openai:gpt-5.1",
        &[
            "--limit",
            "3",
            "--reasoning-effort",
            "low",
            "--extra-body",
            r#"{"verbosity": "low"}"#,
        ],
    );
    all_equivalent(&out);
    for b in bodies(&server) {
        assert_eq!(b["reasoning_effort"], "low");
        assert_eq!(b["verbosity"], "low");
    }
    let m = manifest(&out);
    assert_eq!(m["request"]["effort"], "low");
    assert_eq!(m["request"]["extra_body"]["verbosity"], "low");
}

#[test]
fn open_weight_reasoning_in_every_shape_never_reaches_scoring() {
    for style in [
        Style::Field,
        Style::OldField,
        Style::Inline,
        Style::InlineNoOpen,
    ] {
        let server = providers::openai_server(style, providers::no_rules);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("qwen3");
        let mut c = model_run(&server.base, &out, "openai:qwen3-8b", &["--limit", "5"]);
        c.args(["--thinking", "on"]);
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "{style:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let s = all_equivalent(&out);
        fresh_second_calls(&server);
        for b in bodies(&server) {
            assert_eq!(b["chat_template_kwargs"]["enable_thinking"], true);
            assert_eq!(b["temperature"], 0.1, "sent exactly as typed");
        }
        for x in &s {
            for stage in ["informalize", "autoformalize"] {
                let call = &x["rounds"][0][stage];
                let reasoning = call["reasoning"].as_str().unwrap_or_default();
                assert!(
                    reasoning.contains("Draft answer"),
                    "{style:?} {stage}: {call}"
                );
                assert!(
                    !call["output"].as_str().unwrap().contains("Draft"),
                    "{call}"
                );
            }
        }
    }
}

#[test]
fn reasoning_that_runs_out_of_tokens_is_truncated_not_a_model_error() {
    let server = providers::openai_server(Style::Truncated, providers::no_rules);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trunc");
    let mut c = model_run(
        &server.base,
        &out,
        "openai:qwen3-8b",
        &["--limit", "4", "--max-tokens", "700"],
    );
    let o = c.output().unwrap();
    common::cli::ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("truncated: 4 of 4 calls"), "{err}");
    assert!(err.contains("--retry-truncated"), "{err}");
    for x in samples(&out) {
        assert_eq!(x["verdict"]["verdict"], "unparseable");
        let reason = x["verdict"]["reason"].as_str().unwrap();
        assert!(reason.contains("stopped at max tokens (700)"), "{reason}");
        let call = &x["rounds"][0]["informalize"];
        assert_eq!(call["truncated"], true);
        assert_eq!(call["output_tokens"], 700, "billed tokens recorded");
    }
    let r = common::cli::bin().arg("report").arg(&out).output().unwrap();
    assert!(String::from_utf8_lossy(&r.stdout).contains("truncated: 4"));
    // Redo them with a larger limit: allowed with --retry-truncated, one new line each.
    providers::redo_truncated(&out);
}

#[test]
fn claude_opus_4_7_thinks_adaptively_without_temperature() {
    let server = providers::anthropic_server(Claude::Current);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("opus");
    model_run_ok(
        &server.base,
        &out,
        "anthropic:claude-opus-4-7",
        &["--limit", "3", "--reasoning-effort", "medium"],
    );
    let s = all_equivalent(&out);
    fresh_second_calls(&server);
    for b in bodies(&server) {
        assert_eq!(b["thinking"]["type"], "adaptive");
        assert_eq!(b["thinking"]["display"], "summarized");
        assert_eq!(b["output_config"]["effort"], "medium");
        assert!(b.get("temperature").is_none());
        assert_eq!(b["max_tokens"], 16000);
    }
    let call = &s[0]["rounds"][0]["autoformalize"];
    assert!(call["reasoning"].as_str().unwrap().contains("Draft answer"));
    assert_eq!(call["output_tokens"], providers::THINKING_TOKENS + 20);
}

#[test]
fn claude_opus_4_7_with_a_small_limit_is_truncated_and_billed() {
    let server = providers::anthropic_server(Claude::Current);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("opus-small");
    model_run_ok(
        &server.base,
        &out,
        "anthropic:claude-opus-4-7",
        &["--limit", "2", "--max-tokens", "1024"],
    );
    for x in samples(&out) {
        assert_eq!(x["verdict"]["verdict"], "unparseable", "{x}");
        assert_eq!(x["rounds"][0]["informalize"]["output_tokens"], 1024);
        assert!(x["cost_usd"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn claude_sonnet_4_5_with_a_thinking_budget() {
    let server = providers::anthropic_server(Claude::Legacy);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sonnet");
    model_run_ok(
        &server.base,
        &out,
        "anthropic:claude-sonnet-4-5",
        &["--limit", "3", "--thinking-budget", "2048"],
    );
    all_equivalent(&out);
    for b in bodies(&server) {
        assert_eq!(b["thinking"]["type"], "enabled");
        assert_eq!(b["thinking"]["budget_tokens"], 2048);
        assert!(b["max_tokens"].as_u64().unwrap() > 2048);
        assert!(b.get("temperature").is_none());
    }
    // A budget under the provider's minimum is refused before any call.
    let out2 = dir.path().join("sonnet-low");
    let mut c = model_run(
        &server.base,
        &out2,
        "anthropic:claude-sonnet-4-5",
        &["--limit", "1"],
    );
    c.args(["--thinking-budget", "512"])
        .env("ANTHROPIC_API_KEY", "sk-ant-never-written");
    let before = server.hits.load(std::sync::atomic::Ordering::SeqCst);
    assert!(!c.output().unwrap().status.success());
    assert_eq!(
        server.hits.load(std::sync::atomic::Ordering::SeqCst),
        before
    );
}

#[test]
fn batch_request_lines_follow_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b");
    let files = dir.path().join("requests");
    let o = common::cli::bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "1",
            "--seed",
            "3",
            "--limit",
            "2",
        ])
        .args([
            "--model",
            "openai:o3",
            "--reasoning-effort",
            "high",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .arg("--batch-file-out")
        .arg(&files)
        .env_remove("OPENAI_API_KEY")
        .env("AUTOEVAL_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    common::cli::ok(&o);
    let written = String::from_utf8_lossy(&o.stdout);
    let first = written.lines().next().expect("a request file");
    for line in std::fs::read_to_string(first).unwrap().lines() {
        let q: Value = serde_json::from_str(line).unwrap();
        assert!(
            providers::openai_reasoning_rules(&q["body"]).is_none(),
            "{q}"
        );
        assert_eq!(q["body"]["max_completion_tokens"], 16384);
        assert_eq!(q["body"]["reasoning_effort"], "high");
    }
}

#[test]
fn score_reads_only_the_answer_of_a_reply_with_thinking() {
    let o = common::cli::bin()
        .args(["score", "--syntax", "pl", "--phi0", "p1 ∧ p2"])
        .args([
            "--reply",
            "I restate p1 ∧ p2; draft: ```p1 ∨ p2```\n</think>\nAnswer: p1 ∧ p2",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "equivalent", "{v}");
    assert_eq!(v["reasoning_split"], true);
    let o = common::cli::bin()
        .args(["score", "--syntax", "pl", "--phi0", "p1 ∧ p2"])
        .args(["--reply", "<think>p1 ∧ p2 is the draft"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "unparseable", "{v}");
}

#[test]
fn exports_carry_the_reasoning_of_the_shipped_reasoning_run() {
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs/pl-perturb-reasoning");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("json");
    let o = common::cli::bin()
        .args(["export", "--format", "inspect-json", "--out"])
        .arg(&out)
        .arg(&run)
        .output()
        .unwrap();
    common::cli::ok(&o);
    let file = std::fs::read_dir(&out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains("\"type\":\"reasoning\""), "reasoning content");
    assert!(
        text.contains("\"reasoning_tokens\""),
        "reasoning tokens in usage"
    );
    let flat = dir.path().join("flat");
    let o = common::cli::bin()
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&flat)
        .arg(&run)
        .output()
        .unwrap();
    common::cli::ok(&o);
    let rows = std::fs::read_to_string(flat.join("data/pl-perturb-reasoning.jsonl")).unwrap();
    let total: u64 = rows
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["reasoning_tokens"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert!(total > 0, "reasoning_tokens column filled");
}

#[test]
fn a_cached_answer_keeps_its_reasoning() {
    let server = providers::openai_server(Style::Field, providers::no_rules);
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let second = dir.path().join("second");
    let cache = dir.path().join("cache");
    for out in [&first, &second] {
        let o = model_run(&server.base, out, "openai:qwen3-8b", &["--limit", "4"])
            .args(["--temperature", "0", "--cache"])
            .env("AUTOEVAL_CACHE_DIR", &cache)
            .output()
            .unwrap();
        common::cli::ok(&o);
    }
    let calls = server.hits.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(calls, 8, "the second run is answered from the cache");
    let (a, b) = (all_equivalent(&first), all_equivalent(&second));
    assert_eq!(a.len(), b.len());
    for y in &b {
        let x = a.iter().find(|x| x["id"] == y["id"]).unwrap();
        let (cx, cy) = (
            &x["rounds"][0]["informalize"],
            &y["rounds"][0]["informalize"],
        );
        assert_eq!(cy["cached"], true, "{cy}");
        assert_eq!(cx["reasoning"], cy["reasoning"]);
        assert_eq!(cy["reasoning_tokens"], 600);
        assert!(cy["reasoning"].as_str().unwrap().contains("restating it"));
    }
}

#[test]
fn truncated_samples_are_their_own_failure_kind_not_own_grammar() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("r");
    std::fs::create_dir_all(&run).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs/pl-perturb-reasoning");
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(shipped.join(f), run.join(f)).unwrap();
    }
    let o = common::cli::bin()
        .args(["report", "--format", "json"])
        .arg(&run)
        .output()
        .unwrap();
    let rep: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &rep["runs"][0];
    let kinds = &r["failure_kinds"];
    let n: u64 = kinds["truncated"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(n, r["truncated"].as_u64().unwrap(), "{kinds}");
    assert!(n > 0);
    assert!(kinds.get("foreign-syntax").is_none(), "{kinds}");
}

#[test]
fn an_older_claude_gets_its_temperature_as_typed_and_refuses_reasoning_flags() {
    let server = providers::anthropic_server(Claude::Legacy);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("haiku");
    let model = "anthropic:claude-3-5-haiku-latest";
    let o = model_run(&server.base, &out, model, &["--limit", "2"])
        .args(["--temperature", "0.1"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    all_equivalent(&out);
    let raw = server.requests.lock().unwrap().clone();
    assert!(!raw.is_empty());
    for r in &raw {
        assert!(r.body.contains("\"temperature\":0.1"), "{}", r.body);
        let b: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(b["max_tokens"], 1024);
        assert!(b.get("thinking").is_none(), "{b}");
    }
    assert_eq!(manifest(&out)["request"]["profile"], "anthropic");
    let before = raw.len();
    let refused = dir.path().join("haiku-effort");
    let o = model_run(
        &server.base,
        &refused,
        model,
        &["--reasoning-effort", "low"],
    )
    .output()
    .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("profile anthropic") && err.contains("--reasoning-effort"),
        "{err}"
    );
    assert_eq!(
        server.requests.lock().unwrap().len(),
        before,
        "refused before any call"
    );
}

#[test]
fn the_offline_reasoning_model_runs_under_the_offline_profile() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("offline");
    let o = common::cli::bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "2",
            "--seed",
            "5",
            "--quiet",
        ])
        .args(["--model", "perturb:reasoning", "--out"])
        .arg(&out)
        .env("AUTOEVAL_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    common::cli::ok(&o);
    assert_eq!(manifest(&out)["request"]["profile"], "offline");
    let s = samples(&out);
    assert!(!s.is_empty());
    for x in &s {
        let r = &x["rounds"][0];
        assert!(
            r["informalize"]["reasoning"]
                .as_str()
                .is_some_and(|t| !t.is_empty()),
            "{x}"
        );
        let psi = r["psi"].as_str().unwrap_or("");
        assert!(
            !psi.contains("Restating") && !psi.contains("<think>"),
            "{psi}"
        );
    }
}
