//! vLLM batch files (`--batch-file-out` / `--batch-file-in`) through the binary: calls
//! priced from `--prices` like live calls, and answers read with the profile's and
//! `--reasoning-tag`'s inline tags.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{FakeModel, openai_body, samples};
use serde_json::{Value, json};
use std::path::Path;

/// Runs the request-file / result-file loop to its end the way `vllm run-batch` would,
/// each answer made by `wrap` from the fake model's answer; returns each pass's stderr.
fn loop_out_and_in(
    dir: &Path,
    out: &Path,
    common_args: &[&str],
    wrap: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let files = dir.join("requests");
    let model = FakeModel::new();
    let mut round = 0;
    let mut errs = Vec::new();
    let mut extra: Vec<String> = vec!["--batch-file-out".into(), files.display().to_string()];
    loop {
        let o = common::cli::bin()
            .args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
            .args(["--model", "openai:fake", "--quiet", "--out"])
            .arg(out)
            .args(common_args)
            .args(&extra)
            .env_remove("OPENAI_API_KEY")
            .env("AUTOEVAL_CACHE_DIR", dir.join("cache"))
            .output()
            .unwrap();
        common::cli::ok(&o);
        errs.push(String::from_utf8_lossy(&o.stderr).into_owned());
        let written: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if written.is_empty() {
            break;
        }
        round += 1;
        assert!(round <= 4, "the loop ends");
        let mut results = Vec::new();
        for f in &written {
            for line in std::fs::read_to_string(f).unwrap().lines() {
                let q: Value = serde_json::from_str(line).unwrap();
                let a = model.answer(q["body"]["messages"][0]["content"].as_str().unwrap());
                let body: Value = serde_json::from_str(&openai_body(&wrap(&a))).unwrap();
                results.push(json!({"id": "vllm-1", "custom_id": q["custom_id"], "response": {"status_code": 200, "body": body}, "error": null}).to_string());
            }
        }
        let res = dir.join(format!("results-{round}.jsonl"));
        std::fs::write(&res, results.join("\n") + "\n").unwrap();
        extra = vec![
            "--resume".into(),
            "--batch-file-in".into(),
            res.display().to_string(),
            "--batch-file-out".into(),
            files.display().to_string(),
        ];
    }
    assert_eq!(round, 2, "informalizations, then autoformalizations");
    errs
}

#[test]
fn batch_file_calls_are_priced_from_the_prices_table() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let prices = tmp.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"fake": {"input": 1.0, "output": 10.0, "batch": 0.5}}"#,
    )
    .unwrap();
    let p = prices.display().to_string();
    let errs = loop_out_and_in(tmp.path(), &out, &["--prices", &p], &|a| a.to_string());
    let recs = samples(&out);
    assert!(!recs.is_empty());
    // openai_body reports 100 prompt and 20 completion tokens; batch price is half.
    let each = (100.0 * 1.0 + 20.0 * 10.0) / 1e6 * 0.5;
    for r in &recs {
        assert_eq!(r["verdict"]["verdict"], "equivalent", "{r}");
        for stage in ["informalize", "autoformalize"] {
            let c = r["rounds"][0][stage]["cost_usd"].as_f64().unwrap_or(0.0);
            assert!((c - each).abs() < 1e-12, "{stage}: {c} in {r}");
        }
    }
    let rep = common::cli::bin()
        .args(["report", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(rep.status.success());
    let rep: Value = serde_json::from_slice(&rep.stdout).unwrap();
    let total = rep["runs"][0]["cost_usd"].as_f64().unwrap_or(0.0);
    let want = each * 2.0 * recs.len() as f64;
    assert!((total - want).abs() < 1e-9, "{total} vs {want}: {rep}");
    // Each pass that reads a result file says what it billed, though the samples are
    // written only in the next pass.
    let stage = format!("${:.4} billed at batch prices", each * recs.len() as f64);
    assert_eq!(errs.len(), 3);
    assert!(errs[0].contains("$0.0000 billed"), "{}", errs[0]);
    for e in &errs[1..] {
        assert!(e.contains(&stage), "{stage} in {e}");
    }
}

#[test]
fn batch_file_calls_of_an_unpriced_model_are_not_shown_as_free() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let errs = loop_out_and_in(tmp.path(), &out, &[], &|a| a.to_string());
    let n = samples(&out).len();
    assert!(
        errs[1].contains(&format!("{n} calls unpriced")),
        "{}",
        errs[1]
    );
}

#[test]
fn batch_file_answers_are_read_with_the_reasoning_tag_given() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    // The reasoning holds a wrong draft in the answer's shape: read as the answer, it
    // would be scored (and fail).
    let wrap = |a: &str| format!("<scratch>Draft: p & ~p\nAnswer: q | ~q</scratch>\n{a}");
    loop_out_and_in(tmp.path(), &out, &["--reasoning-tag", "scratch"], &wrap);
    let recs = samples(&out);
    assert!(!recs.is_empty());
    for r in &recs {
        assert_eq!(r["verdict"]["verdict"], "equivalent", "{r}");
        for stage in ["informalize", "autoformalize"] {
            let c = &r["rounds"][0][stage];
            let reasoning = c["reasoning"].to_string();
            assert!(reasoning.contains("Draft: p & ~p"), "{stage}: {c}");
            assert!(!c["output"].to_string().contains("scratch"), "{stage}: {c}");
        }
    }
}
