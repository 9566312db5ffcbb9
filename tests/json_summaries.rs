//! `--format json` (and `--json`) on the commands that print a result summary: each
//! summary is one JSON object on stdout, and its fields agree with what was written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::cli::{bin_in, ok};
use serde_json::Value;
use std::path::Path;

/// The JSON object a command printed on stdout (nothing else may be there).
fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The lines of a run's samples.jsonl, parsed.
fn samples(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run_args(limit: &str, out: &Path) -> Vec<String> {
    let mut a: Vec<String> = [
        "run",
        "--kind",
        "pl",
        "--per-category",
        "1",
        "--limit",
        limit,
        "--model",
        "perturb",
        "--out",
    ]
    .map(String::from)
    .to_vec();
    a.push(out.display().to_string());
    a
}

#[test]
fn run_prints_its_summary_as_json_and_counts_only_this_time() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("r");
    let first = json(&ok(&bin_in(home.path())
        .args(run_args("3", &out))
        .args(["--format", "json"])
        .output()
        .unwrap()));
    let written = samples(&out);
    assert_eq!(first["samples"], written.len());
    assert_eq!(first["status"], "finished");
    assert_eq!(first["out"], out.display().to_string());
    let tokens: u64 = written
        .iter()
        .map(|s| s["input_tokens"].as_u64().unwrap() + s["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(first["tokens"], tokens);
    let mut by_verdict = serde_json::Map::new();
    for s in &written {
        let v = s["verdict"]["verdict"].as_str().unwrap().to_string();
        let n = by_verdict.get(&v).and_then(Value::as_u64).unwrap_or(0);
        by_verdict.insert(v, (n + 1).into());
    }
    assert_eq!(first["verdicts"], Value::Object(by_verdict));
    assert!(first["elapsed_s"].as_f64().unwrap() >= 0.0);
    assert!(first["cost_usd"].is_number() && first["unpriced"] == false);

    // Resumed with the older spelling: only the samples added this time are counted.
    let second = json(&ok(&bin_in(home.path())
        .args(run_args("5", &out))
        .args(["--resume", "--json"])
        .output()
        .unwrap()));
    assert_eq!(samples(&out).len(), 5);
    assert_eq!(second["samples"], 2);
    let sum: u64 = second["verdicts"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(sum, 2);

    // A dry run's estimate is text: asking it for JSON is refused, not ignored.
    let o = bin_in(home.path())
        .args(run_args("5", &out))
        .args(["--dry-run", "--json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::cli::stderr(&o));
}
