//! A 1,000-sample reference-task run (`run --task folio-r-nl` on a 1,000-record FOLIO
//! file) against an in-process server answering each request after 100 ms, at
//! concurrency 32 (issue 34: ≤ 5 % of wall time in autoeval). Reports the binary's
//! wall time against the server-bound ideal (1,000 / 32 × 100 ms), and its CPU time
//! (user + system, from the children's times in /proc/self/stat) as a share of wall.
//!
//! `cargo bench --bench task_run`
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use common::{Reply, Server, openai_body};
use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

const SAMPLES: usize = 1_000;
const CONCURRENCY: usize = 32;
const DELAY_MS: u64 = 100;

/// CPU seconds of the waited-for children (cutime + cstime, clock ticks of 1/100 s).
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(13) + t(14)) / 100.0
}

/// A FOLIO file of `n` records (five premises, a conclusion, a label).
fn folio(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let label = ["True", "False", "Uncertain"][i % 3];
        writeln!(
            s,
            r#"{{"story_id": {i}, "example_id": {i}, "premises": ["All cats number {i} are animals.", "Some animals sleep.", "Tom is a cat number {i}.", "Cats that sleep dream.", "Nothing dreams unless it sleeps."], "premises-FOL": ["∀x (Cat(x) → Animal(x))", "∃x (Animal(x) ∧ Sleep(x))", "Cat(tom)", "∀x (Cat(x) ∧ Sleep(x) → Dream(x))", "∀x (Dream(x) → Sleep(x))"], "conclusion": "Tom dreams {i}.", "conclusion-FOL": "Dream(tom)", "label": "{label}"}}"#
        )
        .unwrap();
    }
    s
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let server = Server::start(|_, _| Reply {
        delay: Duration::from_millis(DELAY_MS),
        ..Reply::json(
            200,
            openai_body(
                "Reasoning Steps:\n1. Tom is a cat.\n2. Cats that sleep dream.\n\nAnswer: Uncertain",
            ),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("folio.jsonl");
    std::fs::write(&data, folio(SAMPLES)).unwrap();
    let ideal = Duration::from_millis(DELAY_MS) * (SAMPLES.div_ceil(CONCURRENCY) as u32);
    for round in 0..3 {
        let out = dir.path().join(format!("run{round}"));
        let cpu0 = children_cpu();
        let t0 = Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_autoeval"))
            .args([
                "run",
                "--task",
                "folio-r-nl",
                "--model",
                "openai:bench",
                "--quiet",
                "--no-cache",
            ])
            .args(["--concurrency", &CONCURRENCY.to_string(), "--task-data"])
            .arg(&data)
            .arg("--base-url")
            .arg(format!("{}/v1", server.base))
            .arg("--out")
            .arg(&out)
            .env("OPENAI_API_KEY", "sk-bench")
            .env("HOME", dir.path())
            .env("AUTOEVAL_CACHE_DIR", dir.path().join("cache"))
            .output()
            .unwrap();
        let wall = t0.elapsed();
        let cpu = children_cpu() - cpu0;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let lines = std::fs::read_to_string(out.join("samples.jsonl"))
            .unwrap()
            .lines()
            .count();
        assert_eq!(lines, SAMPLES);
        println!(
            "task run, {SAMPLES} samples, {DELAY_MS} ms per answer, concurrency {CONCURRENCY}: wall {:.2} s \
             (server-bound ideal {:.2} s, {:+.1} %), autoeval CPU {:.2} s = {:.1} % of wall",
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            100.0 * (wall.as_secs_f64() / ideal.as_secs_f64() - 1.0),
            cpu,
            100.0 * cpu / wall.as_secs_f64()
        );
    }
}
