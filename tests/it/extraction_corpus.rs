//! The extraction corpus: real model replies (and hand-written hostile ones) with the
//! formula a reviewer expects extraction to take from each, or the off-format reason.
//!
//! `tests/data/build_corpus.py` collects replies; an entry without an expectation is
//! filled in by `AUTOEVAL_BLESS=1 cargo test --test it extraction_corpus::` for review.
//! Without that variable a missing expectation fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::prompt::PromptSet;
use autoeval::run::score::extract_phi1;
use autoeval::syntax::{SyntaxKind, parse};
use autoeval::verify::Verdict;
use serde_json::{Value, json};
use std::path::Path;

fn corpus_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/extraction-corpus.jsonl")
}

/// What extraction gives for one entry: `{"formula": …, "span": [s, e]}` or `{"off_format"|"unparseable": reason}`.
fn extract_entry(e: &Value) -> Value {
    let syntax: SyntaxKind =
        serde_json::from_value(e["syntax"].clone()).expect("syntax is pl, fol or regex");
    let phi0_text = e["phi0"].as_str().expect("phi0");
    let phi0 = parse(phi0_text, syntax).expect("φ₀ of a corpus entry parses");
    let reply = e["reply"].as_str().expect("reply");
    let psi = e["psi"].as_str().unwrap_or("");
    // The prompt the model saw: the built-in autoformalization prompt, when known.
    let prompt = match e["shots"].as_u64() {
        Some(shots) => {
            PromptSet::builtin(shots as usize)
                .expect("built-in prompts")
                .autoformalize(psi, &phi0, syntax)
                .text
        }
        None => String::new(),
    };
    // The scoring path's own extraction (equivalent candidates are one answer).
    match extract_phi1(
        reply,
        &phi0,
        &prompt,
        psi,
        syntax,
        autoeval::syntax::Reading::Standard,
    ) {
        Ok(x) => json!({"formula": x.value.expr.to_unicode(), "span": [x.start, x.end]}),
        Err(v) => match *v {
            Verdict::Unparseable { reason, .. } if reason.starts_with("off-format") => {
                json!({"off_format": reason})
            }
            Verdict::Unparseable { reason, .. } => json!({"unparseable": reason}),
            other => json!({"unparseable": other.name()}),
        },
    }
}

#[test]
fn every_reply_extracts_as_reviewed() {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus file");
    let bless = std::env::var_os("AUTOEVAL_BLESS").is_some();
    let mut entries: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("corpus line is JSON"))
        .collect();
    let mut failures = Vec::new();
    let mut blessed = 0;
    for e in &mut entries {
        let got = extract_entry(e);
        match e.get("expect") {
            Some(want) if !want.is_null() => {
                if *want != got {
                    failures.push(format!(
                        "{}: reply {:?}\n  want {want}\n  got  {got}",
                        e["source"],
                        e["reply"]
                            .as_str()
                            .unwrap_or("")
                            .chars()
                            .take(120)
                            .collect::<String>()
                    ));
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
        let mut out = String::new();
        for e in &entries {
            out.push_str(&serde_json::to_string(e).expect("serialises"));
            out.push('\n');
        }
        std::fs::write(corpus_path(), out).expect("corpus written");
        eprintln!("blessed {blessed} new entries: review them before committing");
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus entries differ:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
    assert!(
        entries.len() >= 400,
        "the corpus holds {} replies; it must hold at least 400",
        entries.len()
    );
    // The several-answers rule is exercised both ways: refused, and duplicates accepted.
    let several = entries
        .iter()
        .filter(|e| {
            e["expect"]["off_format"]
                .as_str()
                .is_some_and(|r| r.starts_with("off-format: several different answers"))
        })
        .count();
    assert!(several >= 4, "only {several} several-answers expectations");
    // The corpus must exercise both outcomes, from real replies, not only hand-written ones.
    let real = entries
        .iter()
        .filter(|e| e["source"] != "hand-written")
        .count();
    assert!(real >= 150, "only {real} real replies");
    let off = entries
        .iter()
        .filter(|e| e["expect"].get("off_format").is_some())
        .count();
    assert!(off >= 30, "only {off} off-format expectations");
}
