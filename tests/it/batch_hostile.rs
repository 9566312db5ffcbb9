//! Issue 37, items 1, 2, 3 and 14: batch APIs and batch files under attack. A hostile
//! OpenAI-style batch server echoes the key and serves endless result files; hostile
//! result files answer requests the run never made, twice.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{FakeModel, openai_body, run_cmd, samples};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

use common::hostile_batch::{Hostile, KEY, start};

/// Every file under `dir`, recursively, as (path, bytes).
fn all_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(all_files(&p));
        } else {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

#[test]
fn a_server_that_echoes_the_key_leaves_no_trace_of_it_in_the_run() {
    let (server, _) = start(Hostile {
        echo_key: true,
        ..Hostile::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = run_cmd(
        &server.base,
        &out,
        &["--batch-api", "--batch-poll", "0.02", "--prices", &price],
    )
    .output()
    .unwrap();
    common::cli::ok(&o);
    assert!(!samples(&out).is_empty());
    let files = all_files(&out);
    assert!(
        files.iter().any(|(p, _)| p.contains("/batches/")),
        "raw files kept"
    );
    for (p, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        // Any 8-character piece of the key is a leak.
        for w in KEY.as_bytes().windows(8) {
            let piece = std::str::from_utf8(w).unwrap();
            assert!(!text.contains(piece), "{p} holds {piece:?} of the key");
        }
    }
}

#[test]
fn an_endless_result_file_stops_at_its_cap_and_is_not_downloaded_again() {
    let (server, world) = start(Hostile {
        junk: 40 << 20,
        ..Hostile::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = run_cmd(
        &server.base,
        &out,
        &[
            "--batch-api",
            "--batch-poll",
            "0.02",
            "--prices",
            &price,
            "--max-reply-bytes",
            "1000",
        ],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // No file is downloaded twice; every batch's output file once.
    let w = world.lock().unwrap();
    assert!(
        w.downloads.values().all(|&n| n == 1),
        "{:?}\n{err}",
        w.downloads
    );
    assert_eq!(w.downloads.len(), w.batches.len(), "{err}");
    assert!(err.contains("over its cap of"), "{err}");
    // Nothing on disk near the file's 40 MiB.
    let kept: usize = all_files(&out).iter().map(|(_, b)| b.len()).sum();
    assert!(kept < 4 << 20, "{kept} bytes kept\n{err}");
    // The batch's requests became errors, kept for --retry-errors.
    let results = std::fs::read_to_string(out.join("batch-results.jsonl")).unwrap();
    assert!(results.contains("over its cap of"), "{results}");
}

#[test]
fn ctrl_c_interrupts_a_download_at_once() {
    let (server, world) = start(Hostile {
        stall: std::time::Duration::from_secs(60),
        ..Hostile::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let child = run_cmd(
        &server.base,
        &out,
        &["--batch-api", "--batch-poll", "0.02", "--prices", &price],
    )
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let t0 = std::time::Instant::now();
    while world.lock().unwrap().downloads.is_empty() {
        assert!(t0.elapsed().as_secs() < 30, "no download started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let asked = std::time::Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let waited = asked.elapsed();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    // The file is served after 60 s: an exit well before it was not waiting for it.
    assert!(waited.as_secs() < 20, "took {waited:?}\n{err}");
    let m: Value = common::manifest(&out);
    assert_eq!(m["status"], "cancelled");
}

/// The first run of a batch-file loop: writes the informalization requests; returns
/// the request lines.
fn first_files_run(tmp: &Path, out: &Path, files: &Path) -> Vec<Value> {
    let o = files_run(
        tmp,
        out,
        &["--batch-file-out", &files.display().to_string()],
    );
    common::cli::ok(&o);
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn files_run(tmp: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    common::cli::bin()
        .args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
        .args(["--model", "openai:fake", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .env_remove("OPENAI_API_KEY")
        .env("AUTOEVAL_CACHE_DIR", tmp.join("cache"))
        .output()
        .unwrap()
}

fn result_line(cid: &str, text: &str) -> String {
    let body: Value = serde_json::from_str(&openai_body(text)).unwrap();
    json!({"id": "v", "custom_id": cid, "response": {"status_code": 200, "body": body}, "error": null})
        .to_string()
}

#[test]
fn a_result_file_cannot_answer_requests_the_run_never_made() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let files = tmp.path().join("requests");
    let model = FakeModel::new();
    let reqs = first_files_run(tmp.path(), &out, &files);
    assert!(!reqs.is_empty());
    let mut lines = Vec::new();
    for q in &reqs {
        let cid = q["custom_id"].as_str().unwrap();
        let prompt = q["body"]["messages"][0]["content"].as_str().unwrap();
        lines.push(result_line(cid, &model.answer(prompt)));
        // Injected: the autoformalization nobody asked for yet, with a wrong formula,
        // and a second, different answer to the request that was made.
        let sample = cid.trim_end_matches("_r1_i");
        lines.push(result_line(&format!("{sample}_r1_a"), "```\np9 ∧ ¬p9\n```"));
        lines.push(result_line(cid, "Statement number 999."));
    }
    let res = tmp.path().join("results.jsonl");
    std::fs::write(&res, lines.join("\n") + "\n").unwrap();
    let o = files_run(
        tmp.path(),
        &out,
        &[
            "--resume",
            "--batch-file-in",
            &res.display().to_string(),
            "--batch-file-out",
            &files.display().to_string(),
        ],
    );
    let err = common::cli::ok_stderr(&o);
    let n = reqs.len();
    assert!(
        samples(&out).is_empty(),
        "injected answers were used: {err}"
    );
    assert!(
        err.contains(&format!(
            "{n} results are for requests this run did not make"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{n} results answer a request already answered in this file"
        )),
        "{err}"
    );
    // The next files ask for the autoformalizations of the first answers (not 999).
    let next: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert!(!next.is_empty());
    assert!(next.iter().all(|t| !t.contains("Statement number 999")));
    assert_eq!(next.iter().map(|t| t.lines().count()).sum::<usize>(), n);
}

#[test]
fn a_hostile_run_id_cannot_move_request_files_out_of_their_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let files = tmp.path().join("deep").join("requests");
    first_files_run(tmp.path(), &out, &tmp.path().join("first"));
    let mpath = out.join("run.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&mpath).unwrap()).unwrap();
    m["id"] = json!("../../escaped");
    std::fs::write(&mpath, m.to_string()).unwrap();
    let o = files_run(
        tmp.path(),
        &out,
        &["--resume", "--batch-file-out", &files.display().to_string()],
    );
    common::cli::ok(&o);
    let written: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(!written.is_empty());
    for f in &written {
        let p = std::fs::canonicalize(f).unwrap();
        assert!(
            p.starts_with(std::fs::canonicalize(&files).unwrap()),
            "{f} is outside {}",
            files.display()
        );
    }
}

fn batch_run(base: &str, out: &Path, price: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--batch-api", "--batch-poll", "0.02", "--prices", price];
    args.extend_from_slice(extra);
    run_cmd(base, out, &args).output().unwrap()
}

#[test]
fn a_batch_the_provider_deleted_becomes_errors_that_retry_errors_resubmits() {
    let (server, world) = start(Hostile::default());
    world.lock().unwrap().status_fails = Some(404);
    let (_tmp, price, out) = common::batch_scratch();
    let o = batch_run(&server.base, &out, &price, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("no longer exists at the provider"), "{err}");
    let recs = samples(&out);
    assert!(!recs.is_empty());
    assert!(
        recs.iter()
            .all(|r| r["verdict"]["verdict"] == "model-error")
    );
    let first = world.lock().unwrap().batches.len();
    world.lock().unwrap().status_fails = None;
    let o = batch_run(&server.base, &out, &price, &["--resume", "--retry-errors"]);
    common::cli::ok(&o);
    assert!(
        world.lock().unwrap().batches.len() > first,
        "nothing resubmitted"
    );
    let recs = samples(&out);
    let latest: HashMap<String, &Value> = recs.iter().map(|r| (r["id"].to_string(), r)).collect();
    assert!(
        latest
            .values()
            .all(|r| r["verdict"]["verdict"] == "equivalent")
    );
}

#[test]
fn a_provider_that_stops_answering_status_checks_exits_75() {
    let (server, world) = start(Hostile::default());
    world.lock().unwrap().status_fails = Some(500);
    let (_tmp, price, out) = common::batch_scratch();
    let o = batch_run(
        &server.base,
        &out,
        &price,
        &["--max-consecutive-failures", "3"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
}

#[test]
fn a_provider_batch_answering_a_request_twice_is_a_named_error_for_that_sample() {
    let (server, world) = start(Hostile {
        twice: true,
        ..Hostile::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = batch_run(&server.base, &out, &price, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let recs = samples(&out);
    assert!(!recs.is_empty(), "{err}");
    // Neither answer is used: the first informalization would pass, the second (999)
    // would not; both are refused and the sample names the duplicate.
    for r in &recs {
        assert_eq!(r["verdict"]["verdict"], "model-error", "{r}");
        assert!(
            r.to_string().contains("more than once"),
            "the error does not name the duplicate: {r}"
        );
    }
    // One batch (the informalizations): nothing went on to autoformalize a duplicate.
    assert_eq!(world.lock().unwrap().batches.len(), 1);
    let written = std::fs::read_to_string(out.join("samples.jsonl")).unwrap();
    assert!(
        !written.contains("Statement number 999"),
        "the second answer was stored"
    );
}
