//! `report --by FIELD` through the binary: connective counts read from φ₀ and a regex's
//! minimal-DFA states as `generate` stored them, and an unknown field refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok, stderr};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn by(dir: &Path, field: &str) -> Value {
    let out = ok(&bin()
        .args(["report", "--format", "json", "--by", field])
        .arg(dir)
        .output()
        .unwrap());
    let v: Value = serde_json::from_str(&out).unwrap();
    v["runs"][0].clone()
}

fn counts(r: &Value) -> BTreeMap<usize, u64> {
    r["by_category"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, c)| (k.parse().unwrap(), c["n"].as_u64().unwrap()))
        .collect()
}

#[test]
fn connective_counts_and_dfa_states_make_the_categories() {
    let tmp = tempfile::tempdir().unwrap();
    let pl = tmp.path().join("pl");
    common::cli::perturb_run(&pl, "2", &[]);
    let recs = common::samples(&pl);
    for (field, sym) in [("and", '∧'), ("or", '∨'), ("not", '¬')] {
        let r = by(&pl, field);
        assert_eq!(r["by"], field);
        let mut want: BTreeMap<usize, u64> = BTreeMap::new();
        for s in &recs {
            let k = s["phi0"]
                .as_str()
                .unwrap()
                .chars()
                .filter(|&c| c == sym)
                .count();
            *want.entry(k).or_default() += 1;
        }
        assert_eq!(counts(&r), want, "{field}");
    }
    let re = tmp.path().join("re");
    ok(&bin()
        .args([
            "run",
            "--kind",
            "regex",
            "--per-category",
            "2",
            "--model",
            "perturb",
            "--quiet",
            "--out",
        ])
        .arg(&re)
        .output()
        .unwrap());
    // What generate stored per item, against what report computes from φ₀.
    let ds: Value =
        serde_json::from_str(&std::fs::read_to_string(re.join("dataset.json")).unwrap()).unwrap();
    let states: BTreeMap<u64, u64> = ds["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["idx"].as_u64().unwrap(), i["num_nodes"].as_u64().unwrap()))
        .collect();
    let mut want: BTreeMap<usize, u64> = BTreeMap::new();
    for s in common::samples(&re) {
        *want
            .entry(states[&s["idx"].as_u64().unwrap()] as usize)
            .or_default() += 1;
    }
    assert_eq!(counts(&by(&re, "dfa_states")), want);
    assert!(!counts(&by(&re, "dfa_edges")).is_empty());
    // A field only the dataset stores: read from the run's dataset.json.
    let ds: Value =
        serde_json::from_str(&std::fs::read_to_string(pl.join("dataset.json")).unwrap()).unwrap();
    let mut want: BTreeMap<usize, u64> = BTreeMap::new();
    let props: BTreeMap<u64, u64> = ds["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["idx"].as_u64().unwrap(),
                i["num_propositions"].as_u64().unwrap(),
            )
        })
        .collect();
    for s in &recs {
        *want
            .entry(props[&s["idx"].as_u64().unwrap()] as usize)
            .or_default() += 1;
    }
    assert_eq!(counts(&by(&pl, "num_propositions")), want);
    let o = bin()
        .args(["report", "--by", "colour"])
        .arg(&re)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("stores no `colour`"), "{}", stderr(&o));
}
