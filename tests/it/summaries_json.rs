//! Issue 46's leftover: `rescore`, `import --reverify` and `judge` speak JSON
//! (`--format json`, or `--json` as other commands take it): each summary parses as one
//! JSON document on stdout with the documented fields, and agrees with what was written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, offline_run, ok};
use serde_json::Value;

fn json(o: &std::process::Output) -> Value {
    let text = ok(o);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn rescore_summary_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    offline_run(&run, "12");
    for flag in [&["--format", "json"][..], &["--json"][..]] {
        let out = dir.path().join(format!("out{}", flag.len()));
        let v = json(
            &bin()
                .arg("rescore")
                .arg(&run)
                .arg("--out")
                .arg(&out)
                .args(flag)
                .output()
                .unwrap(),
        );
        assert_eq!(v["samples"], 12, "{v}");
        assert_eq!(v["changed"], 0, "{v}");
        assert_eq!(v["out"], out.display().to_string());
        assert_eq!(v["before"]["n"], 12);
        assert_eq!(v["after"], v["before"]);
        let changes = v["changes"].as_array().unwrap();
        let total: u64 = changes.iter().map(|c| c["samples"].as_u64().unwrap()).sum();
        assert_eq!(total, 12);
        assert!(changes.iter().all(|c| c["old"] == c["new"]), "{v}");
        assert!(v["backup"].is_null() && v["needs_calls"].as_array().unwrap().is_empty());
    }
}

#[test]
fn import_reverify_summary_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dataset_nlfs_gpt-4o_verified.json");
    std::fs::write(
        &file,
        r#"{"info": {"type": "dataset", "filter_field": "num_operators", "seed": 3}, "verified": true,
           "data": [
             {"idx": 0, "fs": "(p1 ∧ p2)", "num_operators": 1, "depth": 2, "llm_fs": "p2 ∧ p1", "cost": 0.01, "error": null,
              "verification": {"is_equivalent": true, "has_error": null, "time": "0:00:00"}},
             {"idx": 1, "fs": "(p1 v p2)", "num_operators": 1, "depth": 2, "llm_fs": "p1 ∧ p2", "cost": 0.01, "error": null,
              "verification": {"is_equivalent": true, "has_error": null, "time": "0:00:00"}}
           ]}"#,
    )
    .unwrap();
    let out = dir.path().join("imported");
    let v = json(
        &bin()
            .arg("import")
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .args(["--reverify", "--format", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["samples"], 2, "{v}");
    assert_eq!(v["judged"], 0);
    assert_eq!(v["skipped"], serde_json::json!([]));
    let d = v["disagreements"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{v}");
    assert_eq!(d[0]["id"], "1");
    assert_eq!(d[0]["stored"], "equivalent");
    assert_eq!(d[0]["ours"], "not-equivalent");
    assert_eq!(d[0]["phi1"], "p1 ∧ p2");
    let table = v["table"].as_array().unwrap();
    assert!(
        table
            .iter()
            .any(|t| t["stored"] == "equivalent" && t["ours"] == "equivalent" && t["samples"] == 1),
        "{v}"
    );
    // Without --reverify: no table, no disagreements.
    let v = json(
        &bin()
            .arg("import")
            .arg(&file)
            .arg("--out")
            .arg(dir.path().join("plain"))
            .arg("--json")
            .output()
            .unwrap(),
    );
    assert_eq!(v["samples"], 2);
    assert!(
        v.get("disagreements").is_none() && v.get("table").is_none(),
        "{v}"
    );
}

#[test]
fn judge_summary_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    offline_run(&run, "10");
    let v = json(
        &bin()
            .arg("judge")
            .arg(&run)
            .args(["--model", "perturb", "--format", "json"])
            .output()
            .unwrap(),
    );
    let n = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(n("yes") + n("no") + n("unparseable"), n("judged"), "{v}");
    assert!(n("judged") > 0, "{v}");
    assert_eq!(n("already_judged"), 0);
    assert_eq!(v["judge"], "perturb");
    let lines = std::fs::read_to_string(run.join("judge.jsonl")).unwrap();
    assert_eq!(lines.lines().count() as u64, n("judged"));
    assert_eq!(v["file"], run.join("judge.jsonl").display().to_string());
    // Again: every sample already judged by this model.
    let again = json(
        &bin()
            .arg("judge")
            .arg(&run)
            .args(["--model", "perturb", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(again["judged"], 0);
    assert_eq!(again["already_judged"], v["judged"]);
}
