//! Issue 49: `run --adaptive --batch-api`: each round's calls go to the provider as
//! batches of their own (informalizations, then autoformalizations), the next round
//! is planned once they are answered, and no request is submitted twice.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, stderr};
use common::hostile_batch::{Hostile, start};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

fn adaptive_batch(base: &str, out: &Path, budget: &str) -> std::process::Output {
    bin()
        .args(["run", "--kind", "pl", "--per-category", "3", "--seed", "3"])
        .args(["--model", "openai:fake", "--quiet", "--batch-api"])
        .args(["--batch-poll", "0.02", "--adaptive", "--budget", budget])
        .arg("--base-url")
        .arg(format!("{base}/v1"))
        .arg("--out")
        .arg(out)
        .env("OPENAI_API_KEY", common::hostile_batch::KEY)
        .env("AUTOEVAL_CACHE_DIR", format!("{}.cache", out.display()))
        .output()
        .unwrap()
}

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_adaptive_batch_run_sends_each_round_as_its_own_batches() {
    let (server, world) = start(Hostile::default());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = adaptive_batch(&server.base, &out, "100");
    assert!(o.status.success(), "{}", stderr(&o));
    let design = lines(&out.join("design.jsonl"));
    let rounds: Vec<&Value> = design.iter().filter(|r| r["criterion"] != "stop").collect();
    assert!(rounds.len() >= 3, "{design:?}");
    assert_eq!(rounds[0]["criterion"], "spread");
    assert!(
        design.last().unwrap()["reason"]
            .as_str()
            .unwrap()
            .contains("budget")
    );
    let samples = lines(&out.join("samples.jsonl"));
    assert_eq!(samples.len(), 100);
    // Two batches a round (one stage each), in order: round r's batches hold exactly
    // the items that round chose.
    let w = world.lock().unwrap();
    assert_eq!(w.batches.len(), 2 * rounds.len(), "{:?}", w.batches.keys());
    let mut by_n: Vec<(usize, &Vec<(String, String)>)> = w
        .batches
        .iter()
        .map(|(id, reqs)| (id.trim_start_matches("batch_").parse().unwrap(), reqs))
        .collect();
    by_n.sort_by_key(|(n, _)| *n);
    let mut asked = HashSet::new();
    for (r, pair) in rounds.iter().zip(by_n.chunks(2)) {
        let chosen: u64 = r["chosen"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        let (inf, auto) = (pair[0].1, pair[1].1);
        assert_eq!(inf.len() as u64, chosen, "{r}");
        assert!(inf.iter().all(|(c, _)| c.ends_with("_r1_i")));
        assert!(auto.iter().all(|(c, _)| c.ends_with("_r1_a")));
        for (c, _) in inf.iter().chain(auto) {
            assert!(asked.insert(c.clone()), "{c} submitted twice");
        }
    }
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(m["adaptive"]["budget"], 100);
    assert_eq!(m["batch"], "api");
    assert_eq!(m["status"], "finished");
}

#[test]
fn adaptive_runs_still_refuse_batch_files() {
    let tmp = tempfile::tempdir().unwrap();
    let o = bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--model",
            "openai:fake",
            "--adaptive",
        ])
        .args(["--budget", "10", "--batch-file-out"])
        .arg(tmp.path().join("req"))
        .arg("--out")
        .arg(tmp.path().join("run"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--batch-file-out"), "{}", stderr(&o));
}
