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
    adaptive_batch_with(base, out, budget, &[])
}

fn adaptive_batch_with(
    base: &str,
    out: &Path,
    budget: &str,
    extra: &[&str],
) -> std::process::Output {
    bin()
        .args(["run", "--kind", "pl", "--per-category", "3", "--seed", "3"])
        .args(extra)
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
    let m: Value = common::manifest(&out);
    assert_eq!(m["adaptive"]["budget"], 100);
    assert_eq!(m["batch"], "api");
    assert_eq!(m["status"], "finished");
}

/// Custom ids of a world's batches in submission order, and the sample ids they ask.
fn submitted(world: &std::sync::Mutex<common::hostile_batch::World>) -> Vec<Vec<String>> {
    let w = world.lock().unwrap();
    let mut by_n: Vec<(usize, Vec<String>)> = w
        .batches
        .iter()
        .map(|(id, reqs)| {
            (
                id.trim_start_matches("batch_").parse().unwrap(),
                reqs.iter().map(|(c, _)| c.clone()).collect(),
            )
        })
        .collect();
    by_n.sort_by_key(|(n, _)| *n);
    by_n.into_iter().map(|(_, c)| c).collect()
}

/// The sample id a custom id (`<id>_r1_i`) belongs to.
fn sample_of(cid: &str) -> String {
    cid.rsplitn(3, '_').nth(2).unwrap().to_string()
}

#[test]
fn a_resumed_adaptive_batch_run_finishes_its_open_round_before_planning() {
    let (server, world) = start(Hostile::default());
    // The provider stops answering status checks once the second round's first batch
    // exists: the run stops (75) with that round open.
    world.lock().unwrap().status_fails_from = Some(3);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let fail = ["--max-consecutive-failures", "3"];
    let o = adaptive_batch_with(&server.base, &out, "100", &fail);
    assert_eq!(o.status.code(), Some(75), "{}", stderr(&o));
    let design = lines(&out.join("design.jsonl"));
    assert_eq!(design.len(), 2, "{design:?}");
    let open_round = &design[1];
    let first = lines(&out.join("samples.jsonl"));
    let spread: u64 = design[0]["chosen"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(first.len() as u64, spread);
    let before = submitted(&world);
    assert_eq!(before.len(), 3);
    let open: HashSet<String> = before[2].iter().map(|c| sample_of(c)).collect();

    // The provider is back: the open round is finished first, from its batch (not
    // submitted again), and only then is the next round planned.
    world.lock().unwrap().status_fails_from = None;
    let o = adaptive_batch_with(&server.base, &out, "100", &["--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = submitted(&world);
    assert_eq!(&after[..3], &before[..]);
    // The next batch is the open round's autoformalizations, for the same samples.
    let next: HashSet<String> = after[3].iter().map(|c| sample_of(c)).collect();
    assert_eq!(next, open);
    assert!(after[3].iter().all(|c| c.ends_with("_r1_a")));
    let mut asked = HashSet::new();
    for c in after.iter().flatten() {
        assert!(asked.insert(c.clone()), "{c} submitted twice");
    }
    // Its samples are the next ones written, and the design.jsonl line that chose them
    // is still the only one for that round.
    let samples = lines(&out.join("samples.jsonl"));
    let written: HashSet<String> = samples[first.len()..first.len() + open.len()]
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(written, open);
    let design = lines(&out.join("design.jsonl"));
    assert_eq!(design[1]["chosen"], open_round["chosen"]);
    assert_eq!(design[1]["samples_before"], open_round["samples_before"]);
    assert!(design[2]["samples_before"].as_u64().unwrap() >= (first.len() + open.len()) as u64);
    assert_eq!(samples.len(), 100);
    let unique: HashSet<&str> = samples.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(unique.len(), 100);
    let m: Value = common::manifest(&out);
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
