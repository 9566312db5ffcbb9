//! Figures for the one scoring path: extraction time per reply on the extraction
//! corpus (median over replies of each reply's median time), and `autoeval score
//! --samples` on 100,000 stored samples end to end (process start included).
//!
//! `cargo bench --bench score` (set `SCORE_SKIP_100K=1` to measure extraction only).
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::prompt::PromptSet;
use autoeval::run::score::extract_phi1;
use autoeval::syntax::{SyntaxKind, parse};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_autoeval"))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// Each corpus reply's median extraction time (with its prompt context, as `run`
/// extracts), then the median, 90th percentile and maximum over replies.
fn extraction() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/extraction-corpus.jsonl")).unwrap();
    let mut per_reply = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let e: Value = serde_json::from_str(line).unwrap();
        let syntax: SyntaxKind = serde_json::from_value(e["syntax"].clone()).unwrap();
        let phi0 = parse(e["phi0"].as_str().unwrap(), syntax).unwrap();
        let psi = e["psi"].as_str().unwrap_or("");
        let prompt = e["shots"].as_u64().map_or(String::new(), |s| {
            PromptSet::builtin(s as usize)
                .unwrap()
                .autoformalize(psi, &phi0, syntax)
                .text
        });
        let reply = e["reply"].as_str().unwrap();
        let mut times: Vec<Duration> = (0..51)
            .map(|_| {
                let t = Instant::now();
                let r = extract_phi1(
                    reply,
                    &phi0,
                    &prompt,
                    psi,
                    syntax,
                    autoeval::syntax::Reading::Standard,
                );
                std::hint::black_box(&r);
                t.elapsed()
            })
            .collect();
        times.sort();
        per_reply.push(times[times.len() / 2]);
    }
    per_reply.sort();
    println!(
        "extraction over {} corpus replies: median {:.1?}, p90 {:.1?}, max {:.1?} per reply",
        per_reply.len(),
        percentile(&per_reply, 0.5),
        percentile(&per_reply, 0.9),
        per_reply[per_reply.len() - 1]
    );
}

/// JSON lines for `score --samples` from a run's stored samples (round 1 of each).
fn score_lines(samples: &str) -> Vec<String> {
    samples
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| {
            let round = &r["rounds"][0];
            let reply = round["autoformalize"]["output"].as_str()?;
            Some(
                json!({
                    "syntax": r["syntax"],
                    "phi0": round["input"],
                    "psi": round["psi"],
                    "reply": reply,
                })
                .to_string(),
            )
        })
        .collect()
}

fn time_score(file: &Path, n: usize, what: &str) {
    let t = Instant::now();
    let o = bin()
        .args(["score", "--samples"])
        .arg(file)
        .stdout(Stdio::piped())
        .output()
        .expect("runs");
    let elapsed = t.elapsed();
    let out = String::from_utf8_lossy(&o.stdout);
    let lines = out.lines().count();
    assert_eq!(lines, n, "one output line per input line");
    let eq = out.lines().filter(|l| l.contains("\"equivalent\"")).count();
    println!(
        "score --samples, {n} {what}: {elapsed:.2?} end to end ({:.0} samples/s, {eq} equivalent)",
        n as f64 / elapsed.as_secs_f64()
    );
}

fn main() {
    extraction();
    if std::env::var_os("SCORE_SKIP_100K").is_some() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // The stored samples `rescore`'s figure uses: a 98,450-sample offline PL run.
    let run = dir.path().join("big");
    let o = bin()
        .args(["run", "--kind", "pl", "--seed", "5", "--per-category", "50"])
        .args([
            "--batches",
            "50",
            "--model",
            "perturb",
            "--concurrency",
            "64",
        ])
        .args(["--quiet", "--out"])
        .arg(&run)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut lines = score_lines(&std::fs::read_to_string(run.join("samples.jsonl")).unwrap());
    let base = lines.len();
    // Topped up to exactly 100,000 by repeating from the start.
    let mut k = 0;
    while lines.len() < 100_000 {
        lines.push(lines[k].clone());
        k += 1;
    }
    lines.truncate(100_000);
    let f = dir.path().join("pl.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&f).unwrap());
    for l in &lines {
        writeln!(w, "{l}").unwrap();
    }
    w.flush().unwrap();
    drop(w);
    time_score(
        &f,
        lines.len(),
        &format!("stored PL samples ({base} distinct)"),
    );

    // The real replies shipped in sample-runs/ (PL, FOL, regex), repeated to 100,000.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let mut real = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let d = entry.unwrap().path();
        let is_real = std::fs::read_to_string(d.join("run.json"))
            .is_ok_and(|m| !m.contains("\"perturb\"") && !m.contains("\"synthetic\":true"));
        if is_real {
            real.extend(score_lines(
                &std::fs::read_to_string(d.join("samples.jsonl")).unwrap_or_default(),
            ));
        }
    }
    let distinct = real.len();
    let mut k = 0;
    while real.len() < 100_000 && distinct > 0 {
        real.push(real[k].clone());
        k += 1;
    }
    let f = dir.path().join("real.jsonl");
    std::fs::write(&f, real.join("\n") + "\n").unwrap();
    time_score(
        &f,
        real.len(),
        &format!("real model replies ({distinct} distinct, PL/FOL/regex)"),
    );
}
