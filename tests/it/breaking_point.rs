//! Breaking points through the binary: `report` against an independent fit of the
//! shipped sample runs, `--level`, CSV; the offline model's `--perturb-per-op`; an
//! adaptive run end to end (design.jsonl, budget, resume); compare, leaderboard and
//! correlate showing breaking points.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok, stderr};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn report_json(dirs: &[&Path], extra: &[&str]) -> Value {
    let out = ok(&bin()
        .args(["report", "--format", "json"])
        .args(extra)
        .args(dirs)
        .output()
        .unwrap());
    serde_json::from_str(&out).unwrap()
}

#[test]
fn report_matches_an_independent_maximum_likelihood_fit_of_the_sample_runs() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/data/breaking/expected.json")).unwrap(),
    )
    .unwrap();
    for name in [
        "sample-runs/pl-per-op-full",
        "sample-runs/pl-per-op-adaptive",
    ] {
        let v = report_json(&[&root().join(name)], &[]);
        let run = &v["runs"][0];
        let bp = &run["breaking_point"];
        // Exactly these fields.
        let mut keys: Vec<&str> = bp.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["ci", "level", "n", "reached", "value"]);
        let e = &expected[name];
        let close = |a: &Value, b: &Value| (a.as_f64().unwrap() - b.as_f64().unwrap()).abs();
        // The target is 0.1 operators; the fits agree far closer.
        assert!(
            close(&bp["value"], &e["value"]) < 1e-3,
            "{name}: {bp} vs {e}"
        );
        assert!(
            close(&bp["ci"][0], &e["ci"][0]) < 1e-3,
            "{name}: {bp} vs {e}"
        );
        assert!(
            close(&bp["ci"][1], &e["ci"][1]) < 1e-3,
            "{name}: {bp} vs {e}"
        );
        assert_eq!(bp["n"], e["n"]);
        assert_eq!(bp["level"], 0.5);
        assert_eq!(bp["reached"], true);
        assert_eq!(run["adaptive"], name.ends_with("adaptive"));
    }
}

#[test]
fn level_moves_the_point_and_is_checked() {
    let dir = root().join("sample-runs/pl-per-op-full");
    let at = |l: &str| report_json(&[&dir], &["--level", l])["runs"][0]["breaking_point"].clone();
    let (hi, mid, lo) = (at("0.7"), at("0.5"), at("0.3"));
    assert_eq!(hi["level"], 0.7);
    assert!(hi["value"].as_f64() < mid["value"].as_f64());
    assert!(mid["value"].as_f64() < lo["value"].as_f64());
    // Accuracy never falls to 2 % inside the data: not reached, no value.
    let never = at("0.02");
    assert_eq!(never["reached"], false);
    assert_eq!(never["value"], Value::Null);
    let o = bin()
        .args(["report", "--level", "1.5"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--level"), "{}", stderr(&o));
}

#[test]
fn text_and_csv_carry_the_breaking_point() {
    let dirs = [
        root().join("sample-runs/pl-per-op-full"),
        root().join("sample-runs/pl-per-op-adaptive"),
    ];
    let text = ok(&bin().arg("report").args(&dirs).output().unwrap());
    assert!(text.contains("Breaking point (A3 by operators)"), "{text}");
    assert!(text.contains("profile likelihood"), "{text}");
    assert!(text.contains("8.59"), "{text}");
    assert!(text.contains("[7.59, 9.57]"), "{text}");
    assert!(
        text.contains("adaptive run") && text.contains("not a uniform estimate"),
        "{text}"
    );
    let csv = ok(&bin()
        .args(["report", "--format", "csv"])
        .args(&dirs)
        .output()
        .unwrap());
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let head = r.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let rec = r.records().next().unwrap().unwrap();
    let v: f64 = rec[col("breaking_point")].parse().unwrap();
    assert!((v - 8.5905).abs() < 1e-3);
    assert_eq!(&rec[col("breaking_point_reached")], "true");
    assert_eq!(&rec[col("adaptive")], "false");
}

fn per_op_run(dir: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--seed",
            "2",
            "--per-category",
            "6",
            "--model",
            "perturb",
            "--perturb-per-op",
            "0.15",
            "--quiet",
        ])
        .args(extra)
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap()
}

#[test]
fn perturb_per_op_is_exclusive_recorded_and_makes_accuracy_fall() {
    let t = tempfile::tempdir().unwrap();
    let o = per_op_run(&t.path().join("both"), &["--perturb-rate", "0.2"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--perturb-rate"), "{}", stderr(&o));
    let o = per_op_run(&t.path().join("bad"), &["--perturb-per-op", "1.5"]);
    assert!(!o.status.success());
    let dir = t.path().join("run");
    ok(&per_op_run(&dir, &[]));
    let m: Value = common::manifest(&dir);
    assert_eq!(m["model"]["name"], "perturb-per-op-0.15");
    assert!(
        m["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--perturb-per-op")
    );
    // Accuracy falls with operators: the first buckets beat the last ones.
    let v = report_json(&[&dir], &[]);
    let by = v["runs"][0]["by_category"].as_object().unwrap();
    let acc = |lo: usize, hi: usize| {
        let (a, n) = by
            .iter()
            .filter(|(k, _)| (lo..=hi).contains(&k.parse::<usize>().unwrap()))
            .fold((0, 0), |(a, n), (_, c)| {
                (
                    a + c["accurate"].as_u64().unwrap(),
                    n + c["n"].as_u64().unwrap(),
                )
            });
        a as f64 / n as f64
    };
    assert!(acc(0, 3) > 0.75, "{}", acc(0, 3));
    assert!(acc(20, 40) < 0.35, "{}", acc(20, 40));
    assert_eq!(v["runs"][0]["breaking_point"]["reached"], true);
}

fn adaptive(dir: &Path, budget: &str, extra: &[&str]) -> std::process::Output {
    per_op_run(dir, &[&["--adaptive", "--budget", budget], extra].concat())
}

fn design(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("design.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ids(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn an_adaptive_run_spends_its_budget_in_rounds_and_resumes() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("ad");
    ok(&adaptive(&dir, "90", &[]));
    let first = ids(&dir);
    assert_eq!(first.len(), 90);
    let rounds = design(&dir);
    assert!(rounds.len() >= 3, "{rounds:?}");
    assert_eq!(rounds[0]["criterion"], "spread");
    // Every category gets the coarse spread first.
    assert!(rounds[0]["chosen"].as_object().unwrap().len() >= 30);
    let last = rounds.last().unwrap();
    assert_eq!(last["criterion"], "stop");
    assert!(last["reason"].as_str().unwrap().contains("budget"));
    assert!(
        rounds
            .iter()
            .all(|r| r["reason"].as_str().is_some_and(|s| !s.is_empty()))
    );
    let m: Value = common::manifest(&dir);
    assert_eq!(m["adaptive"]["budget"], 90);
    assert_eq!(m["status"], "finished");
    assert_eq!(report_json(&[&dir], &[])["runs"][0]["adaptive"], true);
    // Resuming without --adaptive would ask every item: refused.
    let o = per_op_run(&dir, &["--resume"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("adaptive"), "{}", stderr(&o));
    // A larger budget continues where it stopped, never asking an item twice.
    ok(&adaptive(&dir, "130", &["--resume"]));
    let all = ids(&dir);
    assert_eq!(all.len(), 130);
    assert_eq!(&all[..90], &first[..]);
    let unique: std::collections::HashSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), 130);
    // The same seed draws the same items.
    let again = t.path().join("again");
    ok(&adaptive(&again, "90", &[]));
    let mut a = ids(&again);
    let mut b = first.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn an_adaptive_run_stops_at_the_target_width() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("ad");
    ok(&adaptive(&dir, "400", &["--target-width", "30"]));
    let last = design(&dir).pop().unwrap();
    assert_eq!(last["criterion"], "stop");
    assert!(
        last["reason"].as_str().unwrap().contains("target-width"),
        "{last}"
    );
    assert!(ids(&dir).len() < 400);
}

#[test]
fn compare_leaderboard_and_correlate_show_breaking_points() {
    let dirs = [
        root().join("sample-runs/pl-per-op-full"),
        root().join("sample-runs/pl-per-op-adaptive"),
    ];
    let out = ok(&bin().arg("compare").args(&dirs).output().unwrap());
    assert!(out.contains("breaking points"), "{out}");
    assert!(
        out.contains("8.6 [7.6, 9.6]") && out.contains("8.7 [7.1, 10.6]"),
        "{out}"
    );
    let v: Value = serde_json::from_str(&ok(&bin()
        .args(["compare", "--json"])
        .args(&dirs)
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(v["breaking_points"].as_array().unwrap().len(), 2);
    let lb = ok(&bin().arg("leaderboard").args(&dirs).output().unwrap());
    assert!(lb.contains("Breaking points"), "{lb}");
    let t = tempfile::tempdir().unwrap();
    let scores = t.path().join("s.csv");
    std::fs::write(
        &scores,
        "model,benchmark,score\nperturb:perturb-per-op-0.1,other,0.5\n",
    )
    .unwrap();
    let x = |score: &str| {
        let out = ok(&bin()
            .args(["correlate", "--x-score", score, "--format", "json"])
            .arg(&dirs[0])
            .arg("--scores")
            .arg(&scores)
            .output()
            .unwrap());
        let v: Value = serde_json::from_str(&out).unwrap();
        v[0]["models"][0]["x"].as_f64().unwrap()
    };
    assert!((x("breaking-point") - 8.5905).abs() < 1e-3);
    // The default stays A3 on the subset.
    assert!(x("a3") < 1.0);
}
