//! The copy corpus: every real informalization ψ shipped in `sample-runs/` with its φ₀,
//! and whether the copy rule calls it a copy (the span and detail) or a description.
//!
//! `tests/data/build_copy_corpus.py` collects them; an entry without an expectation is
//! filled in by `AUTOEVAL_BLESS=1 cargo test --test it copy_corpus::` for review. Without that
//! variable a missing expectation fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::prompt::copy_check;
use autoeval::syntax::{SyntaxKind, parse};
use serde_json::{Value, json};
use std::path::Path;

fn corpus_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/copy-corpus.jsonl")
}

fn check(e: &Value) -> Value {
    let syntax: SyntaxKind = serde_json::from_value(e["syntax"].clone()).unwrap();
    let phi0 = parse(e["phi0"].as_str().unwrap(), syntax).unwrap();
    let psi = e["psi"].as_str().unwrap();
    match copy_check(psi, &phi0) {
        Some((s, end, detail)) => json!({"copied": [s, end, detail]}),
        None => json!({"copied": null}),
    }
}

#[test]
fn every_real_psi_is_judged_as_reviewed() {
    let text = std::fs::read_to_string(corpus_path()).unwrap();
    let bless = std::env::var_os("AUTOEVAL_BLESS").is_some();
    let mut entries: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut failures = Vec::new();
    let mut blessed = 0;
    for e in &mut entries {
        let got = check(e);
        match e.get("expect") {
            Some(want) if !want.is_null() => {
                if *want != got {
                    failures.push(format!("{}: want {want}\n  got  {got}", e["source"]));
                }
            }
            _ if bless => {
                e["expect"] = got;
                blessed += 1;
            }
            _ => failures.push(format!("{}: no reviewed expectation", e["source"])),
        }
    }
    if bless && blessed > 0 {
        let out: String = entries
            .iter()
            .map(|e| serde_json::to_string(e).unwrap() + "\n")
            .collect();
        std::fs::write(corpus_path(), out).unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} of {} entries differ:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
    assert!(entries.len() >= 1000, "only {} entries", entries.len());
    let copies = entries
        .iter()
        .filter(|e| !e["expect"]["copied"].is_null())
        .count();
    // Both outcomes are exercised by real replies.
    assert!(
        copies >= 100 && entries.len() - copies >= 100,
        "{copies} copies"
    );
}
