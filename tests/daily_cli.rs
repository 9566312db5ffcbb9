//! Issue 35, the CLI side of the everyday journeys: a dead run reads `interrupted`,
//! `--limit` spreads over buckets, `run --dry-run` needs nothing and writes nothing,
//! and a path without a subcommand opens the viewer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::cli::{bin, ok, stderr};
use std::path::Path;

/// Sets `run.json`'s status as a killed process would have left it.
fn set_status(dir: &Path, status: &str) {
    let p = dir.join("run.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["status"] = status.into();
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

fn report_status(dir: &Path) -> String {
    let o = bin()
        .arg("report")
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    v["runs"][0]["status"].as_str().unwrap().to_string()
}

#[test]
fn report_shows_a_dead_running_run_as_interrupted_and_a_live_one_as_running() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    common::cli::offline_run(&out, "3");
    // Killed: the manifest still says running, the lock file stays, nobody holds it.
    set_status(&out, "running");
    assert!(out.join("run.lock").exists());
    assert_eq!(report_status(&out), "interrupted");
    let table = ok(&bin().arg("report").arg(&out).output().unwrap());
    assert!(table.contains("interrupted"), "{table}");
    assert!(!table.contains("running"), "{table}");
    // The manifest is left as the run wrote it (resume reads it).
    assert!(
        std::fs::read_to_string(out.join("run.json"))
            .unwrap()
            .contains("\"running\"")
    );
    // A process holding the lock (this test) makes it a live run again.
    let lock = autoeval::run::store::RunLock::acquire(&out).unwrap();
    assert_eq!(report_status(&out), "running");
    drop(lock);
    assert_eq!(report_status(&out), "interrupted");
    // No lock file at all (a run copied without it) is not live either.
    std::fs::remove_file(out.join("run.lock")).unwrap();
    assert_eq!(report_status(&out), "interrupted");
    let _ = stderr;
}

/// The ids and operator counts of a run's samples, in id order.
fn ids_and_ops(dir: &Path) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = common::samples(dir)
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().parse().unwrap(),
                s["num_operators"].as_u64().unwrap(),
            )
        })
        .collect();
    v.sort_unstable();
    v
}

fn limited_run(out: &Path, limit: &str) -> String {
    let o = bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "3",
            "--limit",
            limit,
            "--model",
            "perturb",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .output()
        .unwrap();
    ok(&o);
    stderr(&o)
}

#[test]
fn limit_spreads_over_every_bucket_seeded_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let err = limited_run(&a, "8");
    let got = ids_and_ops(&a);
    assert_eq!(got.len(), 8, "{got:?}");
    // The dataset has 3 items per operator count: the first 8 would cover 3 buckets.
    let buckets: std::collections::BTreeSet<u64> = got.iter().map(|x| x.1).collect();
    assert!(buckets.len() >= 6, "{got:?}");
    assert!(
        err.contains("--limit 8: 8 of ") && err.contains("spread evenly over"),
        "{err}"
    );
    // Seeded: the same command picks the same samples.
    limited_run(&b, "8");
    assert_eq!(ids_and_ops(&b), got);
    // A dry run says the same and picks the same.
    let o = bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "3",
            "--limit",
            "8",
            "--model",
            "perturb",
            "--dry-run",
            "--out",
        ])
        .arg(d.path().join("c"))
        .output()
        .unwrap();
    let text = ok(&o);
    assert!(text.contains("--limit 8: 8 of "), "{text}");
}
