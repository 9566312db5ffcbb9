//! `autoeval labels stats` on human rankings (`ranks.jsonl`): Kendall's τ-b between
//! annotators, the pairwise-majority consensus, and each metric's (and pair's) RMSE
//! against it, ties given equal ranks, through the binary on crafted runs whose
//! expected values are worked out by hand below.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common;
use crate::common::cli;

use autoeval::labels::ranks::{Candidate, RankRecord};
use serde_json::{Value, json};
use std::path::Path;

/// Closeness (bleu, rouge_l, tree) and whether round 1 is equivalent, for samples 3 and
/// 7 of runs a, b, c. Dyadic values, so per-answer means tie exactly where meant to.
fn metrics(run: &str, id: &str) -> ([f64; 3], bool) {
    match (run, id) {
        ("a", "3") => ([0.75, 0.5, 0.25], true),
        ("b", "3") => ([0.25, 0.5, 0.375], false),
        ("c", "3") => ([0.5, 0.125, 0.5], false),
        ("a", "7") => ([0.125, 0.5, 0.875], false),
        ("b", "7") => ([0.625, 0.5, 0.125], true),
        ("c", "7") => ([0.375, 0.5, 0.5], true),
        _ => ([0.0, 0.0, 0.0], false),
    }
}

fn runs(dir: &Path) {
    let src = common::fixtures::run("pl-small");
    let text = std::fs::read_to_string(src.join("samples.jsonl")).unwrap();
    for k in ["a", "b", "c"] {
        let d = dir.join(format!("run-{k}"));
        std::fs::create_dir_all(&d).unwrap();
        let mut m: Value = common::manifest(&src);
        m["id"] = json!(format!("run-{k}"));
        std::fs::write(d.join("run.json"), m.to_string()).unwrap();
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                let id = v["id"].as_str().unwrap().to_string();
                let ([b, r, t], eq) = metrics(k, &id);
                v["closeness"] = json!({"bleu": b, "rouge_l": r, "tree": t});
                let verdict = if eq {
                    json!({"verdict": "equivalent"})
                } else {
                    json!({"verdict": "not-equivalent", "countermodel":
                {"type": "assignment", "values": {}, "left": true, "right": false}})
                };
                v["verdict"] = verdict.clone();
                v["rounds"][0]["verdict"] = verdict;
                v.to_string()
            })
            .collect();
        std::fs::write(d.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    }
}

fn ranking(phi0: &str, id: &str, who: &str, ranks: &[u32], time: &str) -> String {
    let cands = ["run-a", "run-b", "run-c"]
        .iter()
        .take(ranks.len())
        .map(|r| Candidate {
            run: (*r).into(),
            id: id.into(),
        })
        .collect();
    let mut r = RankRecord::new(phi0, cands, ranks.to_vec(), who);
    r.time = time.into();
    serde_json::to_string(&r).unwrap()
}

const T1: &str = "2026-01-01T00:00:00Z";
const T2: &str = "2026-01-02T00:00:00Z";

fn write_ranks(dir: &Path) {
    let mut lines = vec![
        // φ₀ P (sample 3): consensus A beats B (alice, bob) and C (all); B beats C
        // (alice, carol) → 1, 2, 3.
        ranking("P", "3", "alice", &[1, 2, 3], T1),
        ranking("P", "3", "bob", &[1, 3, 2], T1),
        ranking("P", "3", "carol", &[2, 1, 3], T1),
        // φ₀ Q (sample 7): alice's first ranking is replaced by her newer one.
        ranking("Q", "7", "alice", &[1, 2, 3], T1),
        ranking("Q", "7", "bob", &[3, 1, 2], T1),
        ranking("Q", "7", "alice", &[3, 1, 2], T2),
    ];
    // φ₀ R: one answer's run is nowhere to be found.
    let mut r = RankRecord::new(
        "R",
        vec![
            Candidate {
                run: "run-a".into(),
                id: "2".into(),
            },
            Candidate {
                run: "run-gone".into(),
                id: "2".into(),
            },
        ],
        vec![1, 2],
        "alice",
    );
    r.time = T1.into();
    lines.push(serde_json::to_string(&r).unwrap());
    lines.push("{\"phi0\": \"broken\"}".into());
    std::fs::write(dir.join("ranks.jsonl"), lines.join("\n") + "\n").unwrap();
}

#[test]
fn labels_stats_reports_kendall_consensus_and_metric_rmse_against_hand_values() {
    let tmp = tempfile::tempdir().unwrap();
    runs(tmp.path());
    let a = tmp.path().join("run-a");
    write_ranks(&a);
    // Only run-a is named: run-b and run-c are found beside it.
    let out = cli::bin()
        .args(["labels", "stats", "--json", "--bootstrap", "0"])
        .arg(&a)
        .output()
        .unwrap();
    let stderr = common::cli::ok_stderr(&out);
    assert!(stderr.contains("ranks.jsonl:8"), "bad line named: {stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["ranking"];
    assert_eq!(r["rankings"], 6, "newest per (φ₀, annotator)");
    assert_eq!(r["phi0s"], 3);
    assert_eq!(r["annotators"], json!(["alice", "bob", "carol"]));
    // τ-b, answer pairs within each φ₀:
    // alice–bob: P has AB, AC concordant, BC discordant; Q identical (3 concordant):
    //   (5 − 1)/6. alice–carol: P only: AB discordant, AC, BC concordant: 1/3.
    //   bob–carol: P only: AB, BC discordant, AC concordant: −1/3.
    let tau = |k: usize| r["kendall"][k]["tau"].as_f64().unwrap();
    assert_eq!(r["kendall"][0]["a"], "alice");
    assert_eq!(r["kendall"][0]["b"], "bob");
    assert_eq!(r["kendall"][0]["shared"], 2);
    assert_eq!(r["kendall"][0]["pairs"], 6);
    assert!((tau(0) - 4.0 / 6.0).abs() < 1e-12);
    assert!((tau(1) - 1.0 / 3.0).abs() < 1e-12);
    assert!((tau(2) + 1.0 / 3.0).abs() < 1e-12);
    let mean = r["kendall_mean"].as_f64().unwrap();
    assert!((mean - (4.0 / 6.0) / 3.0).abs() < 1e-12);
    // Consensus: P → 1, 2, 3; Q: B beats A and C, C beats A → A 3, B 1, C 2.
    let cons = r["consensus"].as_array().unwrap();
    let by_phi0 = |p: &str| {
        cons.iter()
            .find(|c| c["phi0"] == p)
            .unwrap_or_else(|| panic!("{p}"))
    };
    assert_eq!(by_phi0("P")["ranks"], json!([1, 2, 3]));
    assert_eq!(by_phi0("Q")["ranks"], json!([3, 1, 2]));
    assert_eq!(by_phi0("R")["ranks"], json!([1, 2]));
    assert_eq!(r["unresolved"], json!(["run-gone/2"]));
    // Metric ranks (competition, ties equal) against consensus, squared differences:
    //   bleu    P [1,3,2] → 0,1,1; Q [3,1,2] → 0,0,0          → √(2/6)
    //   rouge_l P [1,1,3] → 0,1,0; Q [1,1,1] → 4,0,1          → √(6/6) = 1
    //   tree    P [3,2,1] → 4,0,4; Q [1,3,2] → 4,4,0          → √(16/6)
    //   verdict P [1,2,2] → 0,0,1; Q [3,1,1] → 0,0,1          → √(2/6)
    //   bleu+rouge_l P [1,2,3], Q [3,1,2]                     → 0
    //   bleu+tree    P (.5,.3125,.5) [1,3,1] → 0,1,4; Q (.5,.375,.4375) [1,3,2] → 4,4,0 → √(13/6)
    //   rouge_l+tree P [2,1,3] → 1,1,0; Q [1,3,2] → 4,4,0   → √(10/6)
    // R counts for no metric (run-gone is not found): 2 φ₀, 6 positions each.
    let rmse = |name: &str| {
        let m = r["rmse"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["metric"] == name)
            .unwrap_or_else(|| panic!("{name}"));
        assert_eq!(m["rankings"], 2, "{name}");
        assert_eq!(m["positions"], 6, "{name}");
        m["rmse"].as_f64().unwrap()
    };
    let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
    assert!(close(rmse("bleu"), (2.0f64 / 6.0).sqrt()));
    assert!(close(rmse("rouge_l"), 1.0));
    assert!(close(rmse("tree"), (16.0f64 / 6.0).sqrt()));
    assert!(close(rmse("verdict"), (2.0f64 / 6.0).sqrt()));
    assert!(close(rmse("bleu+rouge_l"), 0.0));
    assert!(close(rmse("bleu+tree"), (13.0f64 / 6.0).sqrt()));
    assert!(close(rmse("rouge_l+tree"), (10.0f64 / 6.0).sqrt()));
    let names: Vec<&str> = r["rmse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric"].as_str().unwrap())
        .collect();
    assert_eq!(
        names[..4],
        ["verdict", "bleu", "rouge_l", "tree"],
        "singles first"
    );
    assert_eq!(names.len(), 4 + 6, "four metrics and their six pairs");

    // The text report says the same.
    let out = cli::bin()
        .args(["labels", "stats", "--bootstrap", "0"])
        .arg(&a)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rankings (ranks.jsonl): 6 ranking(s) of 3 φ₀ by 3 annotator(s)"),
        "{text}"
    );
    assert!(
        text.contains("alice vs bob: 0.667 over 2 φ₀, 6 pairs"),
        "{text}"
    );
    assert!(text.contains("bob vs carol: -0.333"), "{text}");
    assert!(text.contains("mean over pairs: 0.222"), "{text}");
    assert!(
        text.contains("Q: run-a/7 3, run-b/7 1, run-c/7 2 (2 annotator(s))"),
        "{text}"
    );
    assert!(text.contains("not found"), "{text}");
    assert!(text.contains("run-gone/2"), "{text}");
    let row = |m: &str| {
        text.lines()
            .rfind(|l| l.split_whitespace().next() == Some(m))
            .unwrap_or_else(|| panic!("{m}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(row("bleu"), ["bleu", "0.577", "2", "6"]);
    assert_eq!(row("tree"), ["tree", "1.633", "2", "6"]);
    assert_eq!(row("bleu+tree"), ["bleu+tree", "1.472", "2", "6"]);
}

#[test]
fn labels_stats_without_ranks_has_no_ranking_section() {
    let tmp = tempfile::tempdir().unwrap();
    runs(tmp.path());
    let a = tmp.path().join("run-a");
    let out = cli::bin()
        .args(["labels", "stats", "--json", "--bootstrap", "0"])
        .arg(&a)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("ranking").is_none());
    let out = cli::bin()
        .args(["labels", "stats"])
        .arg(&a)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("rankings"));
}
