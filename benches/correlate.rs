//! `correlate` over 50 models × 12 benchmarks with 10,000 bootstrap resamples (target
//! ≤ 1 s): the statistics alone (median of 5), and the binary end to end (process start
//! and reading the score file included), for the default predictors (the 3 `autoeval-…`
//! benchmarks: 33 pairs) and for every benchmark as a predictor (132 pairs).
//!
//! `cargo bench --bench correlate`
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::base::rng::Rng;
use autoeval::report::correlate::{Scores, correlate, predictors};
use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

const MODELS: usize = 50;
const BENCHES: usize = 12;
const RESAMPLES: usize = 10_000;

/// Scores with some shared signal, rounded to 3 decimals (as accuracies are: ties happen).
fn score_file() -> String {
    let mut rng = Rng::new(50);
    let mut s = String::from("model,benchmark,score\n");
    for m in 0..MODELS {
        let skill = rng.below(1001) as f64 / 1000.0;
        for b in 0..BENCHES {
            let name = if b < 3 {
                format!("autoeval-b{b}")
            } else {
                format!("bench-{b}")
            };
            let v: f64 = (0.6 * skill + 0.4 * (rng.below(1001) as f64 / 1000.0)) * 1000.0;
            writeln!(s, "model-{m},{name},{}", v.round() / 1000.0).unwrap();
        }
    }
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let text = score_file();
    let mut scores = Scores::default();
    scores.add_csv("bench", &text).unwrap();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let all: Vec<String> = scores.benchmarks();
    for (label, xs) in [
        (
            "default X (3 autoeval-…, 33 pairs)",
            predictors(&scores, &[]).unwrap(),
        ),
        ("every benchmark as X (132 pairs)", all.clone()),
    ] {
        for t in [1, threads] {
            let times: Vec<Duration> = (0..5)
                .map(|_| {
                    let t0 = Instant::now();
                    let pairs = correlate(&scores, &xs, RESAMPLES, t);
                    assert_eq!(pairs.len(), xs.len() * (BENCHES - 1));
                    t0.elapsed()
                })
                .collect();
            println!(
                "statistics, {label}, {t} thread(s): median {:?}",
                median(times)
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scores.csv");
    std::fs::write(&file, &text).unwrap();
    for (label, every) in [("default X", false), ("every benchmark as X", true)] {
        let times: Vec<Duration> = (0..5)
            .map(|_| {
                let mut c = Command::new(env!("CARGO_BIN_EXE_autoeval"));
                c.args(["correlate", "--format", "json", "--scores"])
                    .arg(&file);
                if every {
                    for b in &all {
                        c.args(["--x", b]);
                    }
                }
                let t0 = Instant::now();
                let o = c.output().unwrap();
                let e = t0.elapsed();
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                e
            })
            .collect();
        println!("binary end to end, {label}: median {:?}", median(times));
    }
}
