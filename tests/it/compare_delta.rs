//! `autoeval compare --delta A B` through the binary: per-category A − B of A3 with the
//! shares read back from the runs' samples, intervals around the difference, the figure,
//! and the refusals (not two runs, different datasets). The samples are paired by id
//! (the runs share φ₀) and the interval is Tango's score interval for paired shares,
//! itself checked against a numeric reference (scipy) in `report::delta`'s unit tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok, stderr};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn offline(home: &Path, out: &Path, kind: &str, rate: &str, seed: &str) {
    common::cli::perturbed_run(home, out, kind, ("3", "40"), rate, seed);
}

/// Operator count → (samples, equivalent) from samples.jsonl.
fn a3(dir: &Path) -> BTreeMap<u64, (u64, u64)> {
    let mut m = BTreeMap::new();
    for line in std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        let e = m
            .entry(v["num_operators"].as_u64().unwrap())
            .or_insert((0, 0));
        e.0 += 1;
        e.1 += u64::from(v["verdict"]["verdict"] == "equivalent");
    }
    m
}

/// Sample id → (operator count, equivalent) from samples.jsonl.
fn passes(dir: &Path) -> BTreeMap<String, (u64, bool)> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                (
                    v["num_operators"].as_u64().unwrap(),
                    v["verdict"]["verdict"] == "equivalent",
                ),
            )
        })
        .collect()
}

#[test]
fn delta_gives_a_minus_b_per_category_with_intervals_and_a_figure() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = (home.path().join("a"), home.path().join("b"));
    offline(home.path(), &a, "pl", "0.1", "5");
    offline(home.path(), &b, "pl", "0.7", "5");
    let out = ok(&bin(home.path())
        .args(["compare", "--delta", "--json"])
        .args([&a, &b])
        .output()
        .unwrap());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["by"], "operators");
    let (ca, cb) = (a3(&a), a3(&b));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), ca.len() + 1);
    let mut moved = false;
    for r in rows {
        let d = &r["a3"];
        let (sa, sb) = if let Some(k) = r["category"].as_u64() {
            let (x, y) = (ca[&k], cb[&k]);
            assert_eq!(r["n"], serde_json::json!([x.0, y.0]));
            (x.1 as f64 / x.0 as f64, y.1 as f64 / y.0 as f64)
        } else {
            let sum = |c: &BTreeMap<u64, (u64, u64)>| {
                let (n, k) = c.values().fold((0, 0), |s, v| (s.0 + v.0, s.1 + v.1));
                k as f64 / n as f64
            };
            (sum(&ca), sum(&cb))
        };
        let (da, db, dd) = (
            d["a"].as_f64().unwrap(),
            d["b"].as_f64().unwrap(),
            d["delta"].as_f64().unwrap(),
        );
        assert!((da - sa).abs() < 1e-12 && (db - sb).abs() < 1e-12, "{r}");
        assert!((dd - (sa - sb)).abs() < 1e-12);
        let (lo, hi) = (d["ci"][0].as_f64().unwrap(), d["ci"][1].as_f64().unwrap());
        assert!(lo <= dd && dd <= hi && lo >= -1.0 && hi <= 1.0, "{r}");
        moved |= dd > 0.0;
    }
    // A perturbs less than B: somewhere A is ahead.
    assert!(moved);
    // Paired: the discordant pairs are counted sample by sample, by id.
    assert_eq!(v["interval"], "tango-paired-score");
    assert_eq!(v["unpaired"], serde_json::json!([0, 0]));
    let (pa, pb) = (passes(&a), passes(&b));
    let (mut a_only, mut b_only) = (BTreeMap::<u64, u64>::new(), BTreeMap::<u64, u64>::new());
    for (id, (ops, x)) in &pa {
        let y = pb[id].1;
        *a_only.entry(*ops).or_default() += u64::from(*x && !y);
        *b_only.entry(*ops).or_default() += u64::from(!*x && y);
    }
    for r in rows {
        let d = &r["a3"];
        if let Some(k) = r["category"].as_u64() {
            assert_eq!(d["a_only"].as_u64(), Some(a_only[&k]), "{r}");
            assert_eq!(d["b_only"].as_u64(), Some(b_only[&k]), "{r}");
            assert_eq!(d["pairs"], r["n"][0], "{r}");
        } else {
            assert_eq!(d["a_only"].as_u64(), Some(a_only.values().sum()), "{r}");
            assert_eq!(d["pairs"].as_u64(), Some(pa.len() as u64));
        }
    }
    let text = ok(&bin(home.path())
        .args(["compare", "--delta", "--plot"])
        .arg(home.path().join("d.svg"))
        .args([&a, &b])
        .output()
        .unwrap());
    assert!(
        text.contains("A − B per operators") && text.contains("A3 A−B"),
        "{text}"
    );
    assert!(
        text.contains("95% Tango score interval for paired shares"),
        "{text}"
    );
    let svg = std::fs::read_to_string(home.path().join("d.svg")).unwrap();
    assert!(svg.contains("A3 accuracy A − B"));
}

#[test]
fn delta_refuses_other_than_two_runs_of_one_dataset() {
    let home = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        home.path().join("a"),
        home.path().join("b"),
        home.path().join("c"),
    );
    offline(home.path(), &a, "pl", "0.1", "5");
    offline(home.path(), &b, "pl", "0.5", "6");
    offline(home.path(), &c, "pl", "0.5", "5");
    let o = bin(home.path())
        .args(["compare", "--delta"])
        .args([&a, &b])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("answered different ones"),
        "{}",
        stderr(&o)
    );
    let o = bin(home.path())
        .args(["compare", "--delta"])
        .args([&a, &b, &c])
        .output()
        .unwrap();
    assert!(stderr(&o).contains("exactly two runs"), "{}", stderr(&o));
    let o = bin(home.path())
        .args(["compare", "--plot", "x.svg"])
        .args([&a, &c])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "--plot without --delta is refused by clap"
    );
}
