//! Runs, `rescore` and `import` store every paper metric in each sample's `closeness`
//! record (issue 23), driven through the binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common;
use crate::common::cli;

use serde_json::Value;
use std::path::Path;

fn samples(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn rescore_stores_the_paper_metrics_per_sample() {
    let home = tempfile::tempdir().unwrap();
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs/fol-qwen-0.5b");
    let out = home.path().join("rescored");
    let o = cli::bin_in(home.path())
        .arg("rescore")
        .arg(&run)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    let scored: Vec<&Value> = recs.iter().filter(|r| r["closeness"].is_object()).collect();
    // Samples with a φ₁ (the others have no closeness record).
    assert_eq!(scored.len(), 13, "samples with closeness");
    let mut le_refused = 0;
    let mut paper_unread = 0;
    for r in &scored {
        let c = &r["closeness"];
        // `le` refuses above 14 atoms (one pair here has 16): absent, not invented.
        if c["le"].is_null() {
            le_refused += 1;
        }
        // Where the paper's grammar cannot read φ₀ (19 or more symbols) its LE and
        // graph are undefined: both absent, never a 0 that reads as a score.
        if c["smatch_paper"].is_null() {
            paper_unread += 1;
            assert!(c["le"].is_null(), "le without the paper's parse: {c}");
        }
        for k in ["bleu_fol", "rouge_l_fol", "meteor", "smatch"] {
            // Every generated FOL formula has a FOLIO printing and is small enough here.
            let v = c[k]
                .as_f64()
                .unwrap_or_else(|| panic!("{k} missing in {c} of sample {}", r["id"]));
            assert!((0.0..=1.0).contains(&v), "{k} = {v}");
        }
    }
    assert!(le_refused <= 4, "{le_refused} without le");
    assert!(paper_unread <= 2, "{paper_unread} without smatch_paper");
    // Identical φ₁ scores 1 everywhere; a different one scores below 1 somewhere.
    let same = scored.iter().filter(|r| {
        let c = &r["closeness"];
        c["bleu"].as_f64() == Some(1.0) && c["tree"].as_f64() == Some(1.0)
    });
    for r in same {
        let c = &r["closeness"];
        for k in ["bleu_fol", "rouge_l_fol", "smatch"] {
            assert_eq!(c[k].as_f64(), Some(1.0), "{k} of identical: {c}");
        }
        // The paper's two are 1 where defined (its grammar reads φ₀).
        for k in ["le", "smatch_paper"] {
            assert!(
                c[k].is_null() || c[k].as_f64() == Some(1.0),
                "{k} of identical: {c}"
            );
        }
    }
    assert!(
        scored
            .iter()
            .any(|r| r["closeness"]["smatch"].as_f64().unwrap() < 1.0)
    );
}
