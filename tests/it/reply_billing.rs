//! Through the binary: a reply part autoeval does not read is kept raw and named in a
//! warning, and a failed call's billed usage reaches the sample's and the report's
//! cost and token figures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{FakeModel, Reply, Server, openai_body, prompt_of, samples};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::Ordering;

fn run_with(base: &str, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = common::cli::bin();
    c.args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
        .args(["--model", "openai:fake-model", "--concurrency", "1"])
        .args(["--base-url", &format!("{base}/v1")])
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("OPENAI_API_KEY", "sk-never-written-5")
        .env("AUTOEVAL_CACHE_DIR", format!("{}.cache", out.display()));
    c
}

fn report(out: &Path) -> Value {
    let r = common::cli::bin()
        .args(["report", "--format", "json"])
        .arg(out)
        .output()
        .unwrap();
    common::cli::ok(&r);
    serde_json::from_slice(&r.stdout).unwrap()
}

#[test]
fn an_unknown_content_chunk_is_kept_raw_and_named_in_a_warning() {
    let model = FakeModel::new();
    let server = Server::start(move |_, r| {
        let prompt = prompt_of(r);
        let mut v: Value = serde_json::from_str(&openai_body(&model.answer(&prompt))).unwrap();
        let answer = v["choices"][0]["message"]["content"].clone();
        v["choices"][0]["message"]["content"] = json!([
            {"type": "text", "text": answer},
            {"type": "audio_transcript", "data": "hum-7731"}
        ]);
        Reply::json(200, v.to_string())
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("chunks");
    let o = run_with(&server.base, &out, &["--limit", "3"])
        .output()
        .unwrap();
    let err = common::cli::ok_stderr(&o);
    assert!(
        err.contains("audio_transcript"),
        "the warning names it: {err}"
    );
    assert_eq!(
        err.matches("audio_transcript").count(),
        1,
        "warned once per type: {err}"
    );
    let s = samples(&out);
    assert_eq!(s.len(), 3);
    for x in &s {
        assert_eq!(x["verdict"]["verdict"], "equivalent", "{x}");
        let call = &x["rounds"][0]["informalize"];
        assert!(call["unread"].to_string().contains("hum-7731"), "{call}");
        assert!(!call["output"].as_str().unwrap().contains("hum-7731"));
    }
}

#[test]
fn a_failed_calls_billed_usage_reaches_the_sample_and_the_report() {
    let model = FakeModel::new();
    let server = Server::start(move |n, r| {
        // The third call (the second sample's informalization) is refused, billed.
        if n == 2 {
            return Reply::json(
                200,
                json!({"id": "x", "object": "chat.completion",
                    "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": null,
                                    "refusal": "I'm sorry, I cannot help with that."}}],
                    "usage": {"prompt_tokens": 300, "completion_tokens": 50, "total_tokens": 350}})
                .to_string(),
            );
        }
        Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("billed");
    let p = dir.path().join("prices.json");
    std::fs::write(
        &p,
        json!({"fake-model": {"input": 1.0, "output": 2.0}}).to_string(),
    )
    .unwrap();
    let o = run_with(&server.base, &out, &["--limit", "4", "--prices"])
        .arg(&p)
        .output()
        .unwrap();
    common::cli::ok(&o);
    assert!(server.hits.load(Ordering::SeqCst) >= 7);
    let s = samples(&out);
    assert_eq!(s.len(), 4);
    let failed: Vec<&Value> = s
        .iter()
        .filter(|x| x["verdict"]["verdict"] == "model-error")
        .collect();
    assert_eq!(failed.len(), 1, "{s:?}");
    let f = failed[0];
    let refused = (300.0 + 50.0 * 2.0) / 1e6;
    let sample_cost = f["cost_usd"].as_f64().unwrap_or(0.0);
    assert!((sample_cost - refused).abs() < 1e-12, "{f}");
    assert_eq!(f["input_tokens"], 300, "{f}");
    assert_eq!(f["output_tokens"], 50, "{f}");
    // Three answered samples of two calls (100 in, 20 out each) and the refusal.
    let good = (100.0 + 20.0 * 2.0) / 1e6;
    let want = refused + good * 6.0;
    let rep = report(&out);
    let run = &rep["runs"][0];
    let total = run["cost_usd"].as_f64().unwrap_or(0.0);
    assert!((total - want).abs() < 1e-9, "{total} vs {want}: {run}");
    let ledger = std::fs::read_to_string(out.join("spend.jsonl")).unwrap();
    assert!(
        ledger.lines().any(|l| l.contains("\"input_tokens\":300")),
        "{ledger}"
    );
}
