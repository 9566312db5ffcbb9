//! `bertscore_minilm` throughput (issue 23 target: ≥ 100 pairs/s on 2 cores) with the
//! real all-MiniLM-L6-v2 weights: FOLIO's distinct FOL premises taken two at a time
//! (no text in two pairs, so nothing is served from the per-batch dedup: every pair
//! costs two encodings), scored in batches of 4,096 pairs as `metrics pairs` does;
//! model load timed apart. `BERTSCORE_CHAIN=1` pairs each premise with the next one
//! instead (each text in two pairs, as when many φ₁ repeat their φ₀).
//!
//! `AUTOEVAL_TEST_MINILM_DIR=DIR cargo bench --features bertscore --bench bertscore`
//! (`BERTSCORE_PAIRS=N` changes the 2,000 pairs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::analysis::bertscore_minilm::BertScoreMiniLm;
use std::time::Instant;

fn main() {
    let Some(dir) = std::env::var_os("AUTOEVAL_TEST_MINILM_DIR") else {
        eprintln!(
            "SKIPPED: set AUTOEVAL_TEST_MINILM_DIR to the unpacked all-MiniLM-L6-v2 directory"
        );
        return;
    };
    let want: usize = std::env::var("BERTSCORE_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let folio = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/folio/folio-v0.0-train.jsonl"),
    )
    .unwrap();
    let mut texts: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for line in folio.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for s in v["premises-FOL"].as_array().into_iter().flatten() {
            if let Some(s) = s.as_str()
                && seen.insert(s.to_string())
            {
                texts.push(s.to_string());
            }
        }
    }
    let chain = std::env::var_os("BERTSCORE_CHAIN").is_some();
    let (n, step) = if chain {
        (want.min(texts.len() - 1), 1)
    } else {
        (want.min(texts.len() / 2), 2)
    };
    let pairs: Vec<(&str, &str)> = (0..n)
        .map(|i| (texts[step * i].as_str(), texts[step * i + 1].as_str()))
        .collect();
    let used = if chain { n + 1 } else { 2 * n };
    let t = Instant::now();
    let model = BertScoreMiniLm::load(std::path::Path::new(&dir)).unwrap();
    let load = t.elapsed();
    let tokens: usize = texts[..used].iter().map(|s| model.token_ids(s).len()).sum();
    let t = Instant::now();
    let mut sum = 0.0;
    for chunk in pairs.chunks(4096) {
        sum += model.f1(chunk).unwrap().iter().sum::<f64>();
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "bertscore_minilm: {n} pairs ({} distinct texts, {:.1} tokens each) in {secs:.2} s = {:.0} pairs/s on {} threads; model load {:.2} s; mean F1 {:.4}",
        used,
        tokens as f64 / used as f64,
        n as f64 / secs,
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        load.as_secs_f64(),
        sum / n as f64
    );
}
