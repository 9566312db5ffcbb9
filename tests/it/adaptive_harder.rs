//! Adaptive runs on a generator kind that has not broken inside the dataset's range:
//! harder items are generated (seeded, bounded, recorded in design.jsonl), a resumed run
//! regenerates the same items, and a run on a dataset file never generates any.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// An adaptive run of the offline model at R = 0.025: after a few rounds its fit no longer
/// crosses ½ inside the generator's 39 operators (seed 1, 10 items per category).
fn run(dir: &Path, source: &[&str], budget: &str, extra: &[&str]) -> std::process::Output {
    bin()
        .arg("run")
        .args(source)
        .args([
            "--seed",
            "1",
            "--per-category",
            "10",
            "--model",
            "perturb",
            "--perturb-per-op",
            "0.025",
            "--model-seed",
            "1",
            "--adaptive",
            "--budget",
            budget,
            "--quiet",
        ])
        .args(extra)
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Generated categories recorded in design.jsonl, in order.
fn generated(dir: &Path) -> Vec<[u64; 2]> {
    lines(&dir.join("design.jsonl"))
        .iter()
        .filter_map(|r| {
            let c = r.get("generated")?.get("categories")?;
            Some([c[0].as_u64().unwrap(), c[1].as_u64().unwrap()])
        })
        .collect()
}

fn operators(samples: &[Value]) -> Vec<u64> {
    samples
        .iter()
        .map(|s| s["num_operators"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_generator_kind_generates_harder_items_when_the_model_has_not_broken() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("gen");
    ok(&run(&dir, &["--kind", "pl"], "200", &[]));
    let m: Value = common::manifest(&dir);
    let g = &m["adaptive"]["generator"];
    assert_eq!(g["kind"], "pl", "{m}");
    assert_eq!(g["max_category"], 100);
    assert_eq!(g["per_category"], 10);
    // The first generation adds 20 categories above the dataset's 39 operators, and says why.
    let gens = generated(&dir);
    assert_eq!(gens.first(), Some(&[40, 59]), "{gens:?}");
    let design = lines(&dir.join("design.jsonl"));
    let r = design
        .iter()
        .find(|r| r.get("generated").is_some())
        .unwrap();
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.contains("has not broken") && reason.contains("harder items"),
        "{reason}"
    );
    assert!(reason.contains("at most 100"), "{reason}");
    assert_eq!(r["generated"]["seed"], 1);
    // Generations never overlap and never pass the bound.
    for w in gens.windows(2) {
        assert!(w[1][0] == w[0][1] + 1, "{gens:?}");
    }
    assert!(gens.iter().all(|[lo, hi]| lo <= hi && *hi <= 100));
    // Samples were taken above the dataset's range, and the break found there.
    let samples = lines(&dir.join("samples.jsonl"));
    let ops = operators(&samples);
    assert!(ops.iter().any(|o| *o > 39), "{ops:?}");
    assert!(ops.iter().all(|o| *o <= 100));
    let rep: Value = serde_json::from_str(&ok(&bin()
        .args(["report", "--format", "json"])
        .arg(&dir)
        .output()
        .unwrap()))
    .unwrap();
    let bp = &rep["runs"][0]["breaking_point"];
    assert_eq!(bp["reached"], true, "{bp}");
    assert!(bp["value"].as_f64().unwrap() > 39.0, "{bp}");

    // Resuming regenerates the same harder items under the same ids: no item is asked
    // twice, and no category range is generated again.
    ok(&run(&dir, &["--kind", "pl"], "260", &["--resume"]));
    let after = lines(&dir.join("samples.jsonl"));
    assert_eq!(after.len(), 260);
    let ids: HashSet<&str> = after.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 260);
    let formulas: HashSet<&str> = after.iter().map(|s| s["phi0"].as_str().unwrap()).collect();
    assert_eq!(formulas.len(), 260, "an item was asked twice");
    for (s, a) in samples.iter().zip(&after) {
        assert_eq!(s["id"], a["id"]);
        assert_eq!(s["phi0"], a["phi0"]);
    }
    let again = generated(&dir);
    assert_eq!(&again[..gens.len()], &gens[..]);
    let distinct: HashSet<[u64; 2]> = again.iter().copied().collect();
    assert_eq!(distinct.len(), again.len(), "{again:?}");

    // The same model on the dataset file: nothing is generated, whatever the fit says.
    let file = t.path().join("file");
    let dataset = dir.join("dataset.json");
    ok(&run(
        &file,
        &["--dataset", dataset.to_str().unwrap()],
        "120",
        &[],
    ));
    let m: Value = common::manifest(&file);
    assert!(m["adaptive"].get("generator").is_none(), "{m}");
    assert!(generated(&file).is_empty());
    assert!(
        operators(&lines(&file.join("samples.jsonl")))
            .iter()
            .all(|o| *o <= 39)
    );
}
