//! `autoeval labels stats|disagreements|adjudicate|add --blind|export` through the
//! binary: agreement values against the `krippendorff` and `statsmodels` packages
//! (tests/data/agreement/make.py wrote the expected values), reasons for undefined
//! values, adjudication before/after, blind records and the enriched export.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::bin_in as bin;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agreement")
        .join(name)
}

/// A copy of the pl-small fixture run with `labels` as its labels.jsonl.
fn run_with(dir: &Path, labels: Option<&str>) -> PathBuf {
    let d = dir.join("pl-small");
    common::fixtures::copy_to("pl-small", &d);
    if let Some(l) = labels {
        std::fs::copy(data(l), d.join("labels.jsonl")).unwrap();
    }
    d
}

fn stats(home: &Path, d: &Path, extra: &[&str]) -> Value {
    common::cli::ok_json(
        &bin(home)
            .args(["labels", "stats", "--json"])
            .arg(d)
            .args(extra)
            .output()
            .unwrap(),
    )
}

fn text(home: &Path, d: &Path, extra: &[&str]) -> String {
    let out = bin(home)
        .args(["labels", "stats"])
        .arg(d)
        .args(extra)
        .output()
        .unwrap();
    common::cli::ok(&out);
    String::from_utf8(out.stdout).unwrap()
}

/// Compares `got` (an Estimate) with an expected number or null.
fn same(got: &Value, want: &Value, what: &str) {
    if let Some(w) = want.as_f64() {
        let g = got["value"].as_f64().unwrap_or(f64::NAN);
        assert!((g - w).abs() < 1e-9, "{what}: got {got}, want {w}");
    } else {
        assert!(got["value"].is_null(), "{what}: got {got}, want undefined");
        assert!(
            got["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "{what}: an undefined value names its reason: {got}"
        );
    }
}

fn check_against_oracle(fixture: &str, pair: &str) {
    let home = tempfile::tempdir().unwrap();
    let d = run_with(home.path(), Some(&format!("{fixture}.labels.jsonl")));
    let want: Value =
        serde_json::from_slice(&std::fs::read(data(&format!("{fixture}.expected.json"))).unwrap())
            .unwrap();
    let v = stats(home.path(), &d, &["--pair", pair]);
    let ag = &v["agreement"];
    for (c, w) in want["alpha"].as_object().unwrap() {
        same(&ag["alpha"][c], w, &format!("{fixture} α {c}"));
    }
    same(&ag["alpha_overall"], &want["alpha_overall"], "α overall");
    if let Some(f) = want.get("fleiss") {
        for (c, w) in f.as_object().unwrap() {
            same(&ag["fleiss"][c], w, &format!("{fixture} Fleiss {c}"));
        }
        same(
            &ag["fleiss_overall"],
            &want["fleiss_overall"],
            "Fleiss overall",
        );
    }
    let c = &v["cohen"];
    assert_eq!(c["a"], want["cohen"]["a"]);
    assert_eq!(c["shared"], want["cohen"]["shared"]);
    for (cat, w) in want["cohen"]["kappa"].as_object().unwrap() {
        same(&c["kappa"][cat], w, &format!("{fixture} Cohen {cat}"));
    }
    same(&c["overall"], &want["cohen"]["overall"], "Cohen overall");
    // The bootstrap interval brackets the value.
    let o = &ag["alpha_overall"];
    let (lo, val, hi) = (
        o["low"].as_f64().unwrap(),
        o["value"].as_f64().unwrap(),
        o["high"].as_f64().unwrap(),
    );
    assert!(lo <= val && val <= hi && lo < hi, "{o}");
}

#[test]
fn agreement_of_three_annotators_matches_the_reference_packages() {
    check_against_oracle("constant", "alice,carol");
}

#[test]
fn agreement_with_missing_labels_matches_krippendorff() {
    check_against_oracle("varying", "bob,dave");
}

#[test]
fn every_dash_says_why_and_pair_is_checked() {
    let home = tempfile::tempdir().unwrap();
    let d = run_with(home.path(), Some("constant.labels.jsonl"));
    let t = text(home.path(), &d, &[]);
    assert!(
        t.contains("agreement among 3 annotators over 10 samples"),
        "{t}"
    );
    assert!(t.contains("Krippendorff's α"), "{t}");
    // "arity" is alice's alone, on a sample nobody else labelled.
    let arity = t
        .lines()
        .find(|l| l.trim_start().starts_with("arity") && l.contains('–'))
        .unwrap();
    assert!(arity.contains("– (no variance: nobody named it"), "{arity}");
    // The automatic-kinds table explains its dashes in one footnote.
    let (head, auto) = t.split_once("automatic failure kinds").unwrap();
    assert!(
        auto.contains(
            "(– precision: the diff never named the category; – recall: no annotator did)"
        )
    );
    for l in head.lines().filter(|l| l.contains(" –")) {
        assert!(
            l.contains("– (") || l.contains("(– precision"),
            "a dash without its reason: {l}"
        );
    }
    // Two annotators who share nothing: the reason, not a table of dashes.
    let d2 = run_with(&home.path().join("b"), None);
    for (id, who) in [("1", "alice"), ("4", "bob")] {
        assert!(
            bin(home.path())
                .args(["labels", "add"])
                .arg(&d2)
                .args([id, "negation-misplaced", "--annotator", who])
                .status()
                .unwrap()
                .success()
        );
    }
    let t = text(home.path(), &d2, &[]);
    assert!(
        t.contains("– (no shared samples: alice and bob labelled no sample in common)"),
        "{t}"
    );
    assert!(
        t.contains("no shared samples: no sample has labels from two"),
        "{t}"
    );
    // --pair: names checked, a clear error otherwise.
    let bad = bin(home.path())
        .args(["labels", "stats", "--pair", "alice,zed"])
        .arg(&d)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("'zed' has no labels here; annotators: alice, bob, carol"),
        "{err}"
    );
    let bad = bin(home.path())
        .args(["labels", "stats", "--pair", "alice"])
        .arg(&d)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--pair alice,bob"));
    let t = text(home.path(), &d, &["--pair", "bob,carol"]);
    assert!(
        t.contains("Cohen's κ between bob and carol over 10 samples"),
        "{t}"
    );
}

#[test]
fn adjudication_settles_disagreements_and_stats_show_before_and_after() {
    let home = tempfile::tempdir().unwrap();
    let d = run_with(home.path(), Some("constant.labels.jsonl"));
    let out = bin(home.path())
        .args(["labels", "disagreements", "--json"])
        .arg(&d)
        .output()
        .unwrap();
    let list: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&str> = list.iter().map(|v| v["id"].as_str().unwrap()).collect();
    // Samples where the three category sets differ.
    assert_eq!(ids, ["0", "11", "2", "3", "4", "6", "7"], "{list:?}");
    assert_eq!(list[0]["labels"].as_array().unwrap().len(), 3);
    assert!(list[0]["psi"].is_string());
    let t = String::from_utf8(
        bin(home.path())
            .args(["labels", "disagreements"])
            .arg(&d)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(t.contains("sample 4") && t.contains("carol"), "{t}");
    // "adjudicated" is not a name an annotator may take.
    let bad = bin(home.path())
        .args(["labels", "add"])
        .arg(&d)
        .args(["4", "and-or-swap", "--annotator", "adjudicated"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    for (id, cats) in [
        ("4", &["and-or-swap"][..]),
        ("6", &["negation-misplaced"][..]),
    ] {
        assert!(
            bin(home.path())
                .args(["labels", "adjudicate"])
                .arg(&d)
                .arg(id)
                .args(cats)
                .args(["--by", "dana", "--note", "read ψ"])
                .status()
                .unwrap()
                .success()
        );
    }
    let recs = std::fs::read_to_string(d.join("labels.jsonl")).unwrap();
    let last: Value = serde_json::from_str(recs.lines().last().unwrap()).unwrap();
    assert_eq!(last["annotator"], "adjudicated");
    assert_eq!(last["adjudicator"], "dana");
    let v = stats(home.path(), &d, &[]);
    let adj = &v["adjudication"];
    assert_eq!(adj["samples"], 2);
    assert_eq!(adj["adjudicators"]["dana"], 2);
    assert_eq!(adj["disagreements_before"], 7);
    assert_eq!(adj["disagreements_after"], 5);
    let before = v["agreement"]["alpha_overall"]["value"].as_f64().unwrap();
    let after = adj["after"]["alpha_overall"]["value"].as_f64().unwrap();
    assert!(after > before, "{before} → {after}");
    // The adjudicator is no annotator of the agreement.
    assert_eq!(
        v["annotators"],
        serde_json::json!(["alice", "bob", "carol"])
    );
    // Sample 6 counts once, as settled: negation-misplaced, not term-omitted.
    assert!(adj["annotator_vs_adjudicated"]["alice"]["value"].is_number());
    let t = text(home.path(), &d, &[]);
    assert!(
        t.contains(
            "adjudication: 2 sample(s) settled by dana (2); disagreements 7 before, 5 after"
        ),
        "{t}"
    );
    let open = String::from_utf8(
        bin(home.path())
            .args(["labels", "disagreements"])
            .arg(&d)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        !open.contains("sample 4\n"),
        "settled samples leave the list: {open}"
    );
}

#[test]
fn blind_labels_are_recorded_and_counted() {
    let home = tempfile::tempdir().unwrap();
    let d = run_with(home.path(), None);
    assert!(
        bin(home.path())
            .args(["labels", "add", "--blind"])
            .arg(&d)
            .args(["1", "negation-misdescribed", "--annotator", "eve"])
            .status()
            .unwrap()
            .success()
    );
    let line = std::fs::read_to_string(d.join("labels.jsonl")).unwrap();
    let v: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(v["blind"], true);
    assert!(text(home.path(), &d, &[]).contains("(1 label(s) made blind)"));
}

#[test]
fn export_has_psi_run_model_dataset_kinds_and_both_suggestions() {
    let home = tempfile::tempdir().unwrap();
    let d = run_with(home.path(), Some("constant.labels.jsonl"));
    let csv = bin(home.path())
        .args(["labels", "export"])
        .arg(&d)
        .output()
        .unwrap();
    let mut r = csv::Reader::from_reader(&csv.stdout[..]);
    let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "id",
        "annotator",
        "psi",
        "phi0",
        "phi1",
        "run",
        "model",
        "dataset",
        "verdict",
        "kinds",
        "suggested_informalization",
        "suggested_autoformalization",
    ] {
        assert!(h.iter().any(|x| x == col), "{col} in {h:?}");
    }
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 31);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    // Sample 1 fails with a negation slip: both sides' categories are offered.
    let one = rows.iter().find(|x| &x[0] == "1").unwrap();
    assert_eq!(&one[col("run")], "pl-small");
    assert_eq!(&one[col("model")], "perturb-0.5");
    assert_eq!(&one[col("dataset")], "dataset");
    assert_eq!(&one[col("verdict")], "not-equivalent");
    assert!(one[col("kinds")].contains("negation-misplaced"), "{one:?}");
    assert!(!one[col("psi")].is_empty());
    assert_eq!(
        &one[col("suggested_informalization")],
        "negation-misdescribed"
    );
    assert_eq!(
        &one[col("suggested_autoformalization")],
        "negation-misplaced"
    );
    let js = bin(home.path())
        .args(["labels", "export", "--format", "jsonl"])
        .arg(&d)
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&js.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 31);
    let one = lines.iter().find(|v| v["id"] == "1").unwrap();
    assert_eq!(one["run"], "pl-small");
    assert!(
        one["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "negation-misplaced")
    );
    assert!(one["psi"].is_string() && one["num_operators"].is_number());
}
