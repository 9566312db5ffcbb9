//! Batch and cache figures (issue 25), measured once, end to end through the binary:
//! - building the request files for 100,000 samples (`run --batch-file-out`);
//! - ingesting a 100,000-line result file and verifying every sample
//!   (`run --resume --batch-file-in`, autoformalization stage);
//! - a response-cache hit (`ResponseCache::get` on a 100,000-answer database).
//!
//! `cargo bench --bench batch` (release). Scratch files go to `target/bench-data/batch`.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::llm::cache::{self, ResponseCache};
use autoeval::llm::{ChatRequest, Completion, ModelInfo};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const SAMPLES: usize = 100_000;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_autoeval")
}

fn run(args: &[&str]) -> (f64, Vec<String>) {
    let t = Instant::now();
    let out = Command::new(exe())
        .args(args)
        .env("AUTOEVAL_CACHE_DIR", scratch().join("cache"))
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (secs, files)
}

fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/batch")
}

/// A vLLM-style output line answering `custom_id` with `text`.
fn answer(cid: &str, text: &str) -> String {
    json!({"id": "vllm", "custom_id": cid, "response": {"status_code": 200, "body": {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 30}}}, "error": null})
    .to_string()
}

fn answer_files(files: &[String], dest: &Path, f: impl Fn(&str) -> String) -> usize {
    let mut out = String::new();
    let mut n = 0;
    for file in files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let q: Value = serde_json::from_str(line).unwrap();
            let cid = q["custom_id"].as_str().unwrap();
            out.push_str(&answer(cid, &f(cid)));
            out.push('\n');
            n += 1;
        }
    }
    std::fs::write(dest, out).unwrap();
    n
}

fn pipeline() {
    let dir = scratch();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ds = dir.join("pl.json");
    let batches = SAMPLES.div_ceil(2000).to_string();
    let ds_s = ds.to_str().unwrap();
    run(&[
        "generate",
        "--kind",
        "pl",
        "--seed",
        "5",
        "--batches",
        &batches,
        "--quiet",
        "--out",
        ds_s,
    ]);
    let data: Value = serde_json::from_str(&std::fs::read_to_string(&ds).unwrap()).unwrap();
    let formulas: HashMap<String, String> = data["data"]
        .as_array()
        .unwrap()
        .iter()
        .take(SAMPLES)
        .map(|i| (i["idx"].to_string(), i["fs"].as_str().unwrap().to_string()))
        .collect();
    let limit = SAMPLES.to_string();
    let out = dir.join("run");
    let req = dir.join("requests");
    let base = [
        "run",
        "--dataset",
        ds_s,
        "--model",
        "openai:bench",
        "--quiet",
        "--limit",
        &limit,
        "--out",
        out.to_str().unwrap(),
        "--batch-file-out",
        req.to_str().unwrap(),
    ];
    let (t_build, files) = run(&base);
    println!(
        "request files for {} samples (informalization stage, {} file(s)): {t_build:.2} s  [target ≤ 5 s]",
        formulas.len(),
        files.len()
    );
    let r1 = dir.join("results-1.jsonl");
    let n1 = answer_files(&files, &r1, |cid| {
        format!("Statement about item {}.", cid.split('_').next().unwrap())
    });
    for f in &files {
        std::fs::remove_file(f).unwrap();
    }
    let mut resume: Vec<&str> = base.to_vec();
    let r1s = r1.to_str().unwrap().to_string();
    resume.extend(["--resume", "--batch-file-in", &r1s]);
    let (t_mid, files2) = run(&resume);
    println!(
        "ingest {n1} informalization lines + write the autoformalization requests: {t_mid:.2} s"
    );
    // The model answers φ₀ itself in a code fence: every sample is verified equivalent.
    let r2 = dir.join("results-2.jsonl");
    let n2 = answer_files(&files2, &r2, |cid| {
        let id = cid.split('_').next().unwrap();
        format!("```\n{}\n```", formulas[id])
    });
    let r2s = r2.to_str().unwrap().to_string();
    let last = [
        "run",
        "--dataset",
        ds_s,
        "--model",
        "openai:bench",
        "--quiet",
        "--limit",
        &limit,
        "--out",
        out.to_str().unwrap(),
        "--resume",
        "--batch-file-in",
        &r2s,
    ];
    let (t_ingest, _) = run(&last);
    let written = std::fs::read_to_string(out.join("samples.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"equivalent\""))
        .count();
    println!(
        "ingest a {n2}-line result file and verify {written} samples (equivalent): {t_ingest:.2} s  [target ≤ 30 s]"
    );
}

fn cache_hits() {
    let dir = scratch().join("cache-bench");
    let _ = std::fs::remove_dir_all(&dir);
    let c = ResponseCache::open(&dir).unwrap();
    let info = ModelInfo {
        provider: "openai".into(),
        name: "bench".into(),
        base_url: Some("http://127.0.0.1:8000/v1".into()),
        api_key_env: None,
        synthetic: false,
    };
    let prompt = "x".repeat(1500);
    let keys: Vec<String> = (0..SAMPLES)
        .map(|i| {
            cache::key(
                &info,
                &ChatRequest::plain(format!("{prompt}{i}"), 0.0, 1024),
            )
        })
        .collect();
    let t = Instant::now();
    for (i, k) in keys.iter().enumerate() {
        c.put(
            k,
            &info,
            &Completion {
                text: format!("answer {i} {}", "y".repeat(200)),
                input_tokens: 400,
                output_tokens: 60,
                finish_reason: Some("stop".into()),
                ..Completion::default()
            },
        );
    }
    let fill = t.elapsed().as_secs_f64();
    // Hits in a scattered order, each including the key's hash of a 1.5 kB prompt.
    let n = 20_000;
    let t = Instant::now();
    let mut found = 0;
    for i in 0..n {
        let j = (i * 7919) % SAMPLES;
        let k = cache::key(
            &info,
            &ChatRequest::plain(format!("{prompt}{j}"), 0.0, 1024),
        );
        found += usize::from(c.get(&k).is_some());
    }
    let per = t.elapsed().as_secs_f64() / n as f64;
    assert_eq!(found, n);
    println!(
        "response cache: {SAMPLES} answers stored in {fill:.1} s; a hit (key + lookup) {:.1} µs  [target ≤ 1 ms]",
        per * 1e6
    );
}

fn main() {
    cache_hits();
    pipeline();
}
