//! The reference tasks' answer rule on its corpus (`tests/data/task-answer-corpus.jsonl`,
//! built by `tests/data/build_task_answer_corpus.py`): every reply reads as a person reads
//! it, the marked final answer, never the first label mentioned; no answer is unknown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::analysis::task_answer::{Label, LabelSet, read};
use serde_json::Value;

#[test]
fn every_reply_of_the_corpus_reads_as_expected() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/task-answer-corpus.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut wrong = Vec::new();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let c: Value = serde_json::from_str(line).unwrap();
        let set = match c["set"].as_str().unwrap() {
            "folio" => LabelSet::Folio,
            _ => LabelSet::YesNo,
        };
        let got = read(c["reply"].as_str().unwrap(), set)
            .label
            .map(Label::name);
        if got != c["expect"].as_str() {
            wrong.push(format!(
                "line {}: {} — expected {:?}, read {got:?}: {:?}",
                i + 1,
                c["note"],
                c["expect"],
                c["reply"]
            ));
        }
        n += 1;
    }
    assert!(n >= 150, "the corpus holds {n} replies");
    assert!(
        wrong.is_empty(),
        "{} of {n} misread:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
