//! `autoeval metrics align RUN…` through the binary: crafted runs where every number is
//! known by hand, and the shipped sample runs checked against a brute-force AUC.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common;
use crate::common::cli;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A real sample record of the pl-small fixture, used as the template.
fn template() -> Value {
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/runs/pl-small/samples.jsonl")).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// One sample: `verdict` in round 1 and on the sample, `closeness` as given.
fn sample(id: &str, verdict: &str, ops: usize, closeness: Option<Value>) -> Value {
    let mut s = template();
    s["id"] = json!(id);
    s["num_operators"] = json!(ops);
    let v = match verdict {
        "not-equivalent" => {
            json!({"verdict": "not-equivalent", "countermodel": {"type": "imported", "note": "crafted"}})
        }
        "unknown" => json!({"verdict": "unknown", "reason": "crafted"}),
        "copied" => json!({"verdict": "copied", "span": [0, 1], "detail": "crafted"}),
        _ => json!({"verdict": verdict}),
    };
    s["rounds"][0]["verdict"] = v.clone();
    s["verdict"] = v;
    match closeness {
        Some(c) => s["closeness"] = c,
        None => {
            s.as_object_mut().unwrap().remove("closeness");
        }
    }
    s
}

fn write_run(dir: &Path, samples: &[Value]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/runs/pl-small/run.json"),
        dir.join("run.json"),
    )
    .unwrap();
    let lines: String = samples.iter().map(|s| s.to_string() + "\n").collect();
    std::fs::write(dir.join("samples.jsonl"), lines).unwrap();
    dir.to_path_buf()
}

fn align(home: &Path, runs: &[&Path], extra: &[&str]) -> Output {
    cli::bin_in(home)
        .args(["metrics", "align"])
        .args(runs)
        .args(extra)
        .output()
        .unwrap()
}

/// Two runs, pooled: bleu separates perfectly (AUC 1), rouge_l is one constant (all
/// ties, AUC 0.5), tree is reversed (AUC 0); bleu+tree averages to a constant.
fn crafted(home: &Path) -> (PathBuf, PathBuf) {
    let eq = [(0.9, 0.1), (0.8, 0.2), (0.7, 0.3), (0.6, 0.4)];
    let neq = [(0.1, 0.9), (0.2, 0.8), (0.3, 0.7), (0.4, 0.6)];
    let c = |(b, t): (f64, f64)| Some(json!({"bleu": b, "rouge_l": 0.5, "tree": t}));
    let mut a = Vec::new();
    let mut b = Vec::new();
    for (i, (&e, &n)) in eq.iter().zip(&neq).enumerate() {
        // Two of each class per band: 0-4 and 5-9.
        let ops = if i < 2 { 1 } else { 7 };
        let side = if i % 2 == 0 { &mut a } else { &mut b };
        // e{i} and n{i} answer one formula (two models on one φ₀): one cluster.
        for mut s in [
            sample(&format!("e{i}"), "equivalent", ops, c(e)),
            sample(&format!("n{i}"), "not-equivalent", ops, c(n)),
        ] {
            s["phi0"] = json!(format!("p{i} ∧ p{i}"));
            side.push(s);
        }
    }
    a.push(sample("x1", "copied", 3, None));
    a.push(sample("x2", "unknown", 3, None));
    b.push(sample("x3", "equivalent", 3, None));
    (
        write_run(&home.join("run-a"), &a),
        write_run(&home.join("run-b"), &b),
    )
}

fn row<'a>(rows: &'a Value, metric: &str) -> &'a Value {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {metric}: {rows}"))
}

#[test]
fn hand_known_aucs_on_crafted_runs_in_json() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = crafted(home.path());
    let out = align(home.path(), &[&a, &b], &["--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["samples"], 11);
    assert_eq!(v["counted"], 8);
    assert_eq!(
        v["excluded"],
        json!({"verdict copied": 1, "verdict unknown": 1, "no closeness record": 1})
    );
    assert_eq!(v["runs"][0]["counted"], 4);
    assert_eq!(v["runs"][1]["samples"], 5);
    let all = &v["all"];
    let bleu = row(all, "bleu");
    assert_eq!(bleu["auc"], 1.0);
    assert_eq!(
        (
            bleu["n_equivalent"].clone(),
            bleu["n_not_equivalent"].clone()
        ),
        (json!(4), json!(4))
    );
    assert_eq!(bleu["accuracy"], 1.0);
    assert_eq!(bleu["threshold"], 0.6);
    assert_eq!(bleu["not_equivalent_above_equivalent_median"], 0.0);
    let rouge = row(all, "rouge_l");
    assert_eq!(rouge["auc"], 0.5);
    // Every threshold ties the "none" baseline at 4/8, so none is kept.
    assert_eq!(
        (rouge["accuracy"].clone(), rouge["threshold"].clone()),
        (json!(0.5), Value::Null)
    );
    let tree = row(all, "tree");
    assert_eq!(tree["auc"], 0.0);
    assert_eq!(tree["not_equivalent_above_equivalent_median"], 1.0);
    assert_eq!(row(all, "bleu+rouge_l")["auc"], 1.0);
    assert_eq!(row(all, "bleu+tree")["auc"], 0.5);
    assert_eq!(row(all, "bleu+tree")["mean_of"], json!(["bleu", "tree"]));
    assert_eq!(all.as_array().unwrap().len(), 6, "3 metrics + 3 pairs");
    // bleu separates the classes perfectly: DeLong's variance is 0 there, so the row is
    // flagged and the interval is the binormal bound for 4 against 4, not [1, 1].
    assert_eq!(bleu["perfect_separation"], true);
    assert_eq!(bleu["auc_high"], 1.0);
    let low = bleu["auc_low"].as_f64().unwrap();
    assert!(low > 0.5 && low < 0.7, "{low}");
    assert_eq!(tree["perfect_separation"], true);
    assert!((tree["auc_high"].as_f64().unwrap() - (1.0 - low)).abs() < 1e-12);
    assert_eq!(rouge["perfect_separation"], false);
    // Eight samples, four formulas: the interval counts four clusters.
    assert_eq!(bleu["clusters"], 4);
    // DeLong's paired test needs a variance: here every metric separates perfectly or
    // ties throughout (variance 0), so no pair is testable and none is listed.
    assert_eq!(v["paired"], json!([]));
    // Bands: 0-4 and 5-9 hold two of each class; AUCs hold within each band.
    let bands = v["by_band"].as_array().unwrap();
    assert_eq!(bands.len(), 2, "empty bands are left out: {bands:?}");
    assert_eq!(bands[0]["band"], "0-4");
    assert_eq!(bands[1]["band"], "5-9");
    for b in bands {
        assert_eq!(b["n"], 4);
        assert_eq!(row(&b["rows"], "bleu")["auc"], 1.0);
        assert_eq!(row(&b["rows"], "tree")["auc"], 0.0);
    }
    assert!(v["auc_interval"].as_str().unwrap().contains("DeLong"));
}

#[test]
fn table_csv_and_custom_bands() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = crafted(home.path());
    let out = align(home.path(), &[&a, &b], &[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("11 samples; 8 counted"), "{text}");
    assert!(
        text.contains("verdict copied 1, verdict unknown 1")
            || text.contains("no closeness record 1, verdict copied 1, verdict unknown 1"),
        "{text}"
    );
    let bleu = text
        .lines()
        .find(|l| l.trim_start().starts_with("bleu "))
        .unwrap();
    assert!(bleu.contains("1.000  [0.557, 1.000]*"), "{bleu}");
    assert!(text.contains("*: perfect separation"), "{text}");
    assert!(text.contains("Operators 0-4: 4 samples"), "{text}");
    let out = align(home.path(), &[&a, &b], &["--csv", "--bands", "2"]);
    assert!(out.status.success());
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(&header[..3], ["band", "metric", "n"]);
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    // all + 0-1 + 2+ sections, 6 rows each.
    assert_eq!(rows.len(), 18);
    let bands: Vec<&str> = rows.iter().map(|r| &r[0]).collect();
    assert_eq!(bands[0], "all");
    assert!(bands.contains(&"0-1") && bands.contains(&"2+"));
    let tree_all = rows
        .iter()
        .find(|r| &r[0] == "all" && &r[1] == "tree")
        .unwrap();
    assert_eq!(&tree_all[5], "0");
    let rouge_all = rows
        .iter()
        .find(|r| &r[0] == "all" && &r[1] == "rouge_l")
        .unwrap();
    assert_eq!(
        &rouge_all[9], "",
        "no threshold beats calling all not-equivalent"
    );
    // Bad bands are a clear error.
    let out = align(home.path(), &[&a], &["--bands", "10,5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bands must be increasing"));
}

#[test]
fn missing_runs_and_runs_without_definite_verdicts() {
    let home = tempfile::tempdir().unwrap();
    let out = align(home.path(), &[&home.path().join("nope")], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read run"));
    let d = write_run(
        &home.path().join("none"),
        &[
            sample("a", "copied", 1, None),
            sample(
                "b",
                "unknown",
                1,
                Some(json!({"bleu": 1.0, "rouge_l": 1.0, "tree": 1.0})),
            ),
        ],
    );
    let out = align(home.path(), &[&d], &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing to align") && err.contains("verdict unknown 1"),
        "{err}"
    );
}

/// Brute-force AUC (all pairs, ties ½) of `metric` over round-1-definite samples.
fn brute_auc(runs: &[PathBuf], metric: &str) -> (f64, usize) {
    let (mut pos, mut neg) = (Vec::new(), Vec::new());
    for r in runs {
        let mut last: std::collections::HashMap<String, Value> = Default::default();
        for line in std::fs::read_to_string(r.join("samples.jsonl"))
            .unwrap()
            .lines()
        {
            let s: Value = serde_json::from_str(line).unwrap();
            last.insert(s["id"].as_str().unwrap().to_string(), s);
        }
        for s in last.values() {
            let Some(x) = s["closeness"][metric].as_f64() else {
                continue;
            };
            match s["rounds"][0]["verdict"]["verdict"].as_str() {
                Some("equivalent") => pos.push(x),
                Some("not-equivalent") => neg.push(x),
                _ => {}
            }
        }
    }
    let mut wins = 0.0;
    for p in &pos {
        for n in &neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    (wins / (pos.len() * neg.len()) as f64, pos.len() + neg.len())
}

#[test]
fn sample_runs_agree_with_a_brute_force_auc() {
    let home = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = [
        "fol-qwen-1.5b",
        "fol5-qwen-1.5b",
        "pl-qwen-0.5b",
        "pl-2shot-qwen-0.5b",
        "regex5-qwen-1.5b",
    ]
    .iter()
    .map(|r| root().join("sample-runs").join(r))
    .collect();
    let refs: Vec<&Path> = runs.iter().map(PathBuf::as_path).collect();
    let out = align(home.path(), &refs, &["--json"]);
    common::cli::ok(&out);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let excluded: u64 = v["excluded"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(
        v["counted"].as_u64().unwrap() + excluded,
        v["samples"].as_u64().unwrap()
    );
    for metric in ["bleu", "rouge_l", "tree"] {
        let (want, n) = brute_auc(&runs, metric);
        let r = row(&v["all"], metric);
        assert_eq!(r["n"].as_u64().unwrap() as usize, n);
        let have = r["auc"].as_f64().unwrap();
        assert!(
            (have - want).abs() < 1e-9,
            "{metric}: {have} vs brute force {want}"
        );
        let (lo, hi) = (
            r["auc_low"].as_f64().unwrap(),
            r["auc_high"].as_f64().unwrap(),
        );
        assert!(lo <= have && have <= hi && (0.0..=1.0).contains(&lo) && hi <= 1.0);
        assert!(r["accuracy"].as_f64().unwrap() >= r["majority"].as_f64().unwrap());
    }
    // Samples of one formula in several runs are one cluster.
    let bleu = row(&v["all"], "bleu");
    let clusters = bleu["clusters"].as_u64().unwrap();
    assert!(clusters > 1 && clusters <= bleu["n"].as_u64().unwrap());
    // DeLong's paired test of every two metrics on the samples carrying both.
    let paired = v["paired"].as_array().unwrap();
    let bt = paired
        .iter()
        .find(|p| p["a"] == "bleu" && p["b"] == "tree")
        .unwrap();
    assert_eq!(bt["auc_a"], bleu["auc"]);
    assert_eq!(bt["auc_b"], row(&v["all"], "tree")["auc"]);
    for p in paired {
        let (z, pv) = (p["z"].as_f64().unwrap(), p["p"].as_f64().unwrap());
        assert!(z.is_finite() && (0.0..=1.0).contains(&pv), "{p}");
        // The sign of z is the sign of the AUC difference.
        let d = p["auc_a"].as_f64().unwrap() - p["auc_b"].as_f64().unwrap();
        assert!(z * d >= 0.0, "{p}");
    }
    // Every counted sample is in exactly one band.
    let banded: u64 = v["by_band"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["n"].as_u64().unwrap())
        .sum();
    assert_eq!(banded, v["counted"].as_u64().unwrap());
}
