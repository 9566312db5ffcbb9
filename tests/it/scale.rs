//! The response cache, the budget and the dry run, through the binary against a local server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{fake_server, run_cmd, samples};
use std::path::Path;
use std::sync::atomic::Ordering;

/// Prices for the fake model: a cheap prompt, a dear answer (the test server reports
/// 100 prompt and 20 answer tokens a call: $0.2001 a call).
fn prices(dir: &Path) -> std::path::PathBuf {
    common::write_prices(
        dir,
        r#"{"fake": {"input": 1.0, "output": 10000.0, "batch": 0.5}}"#,
    )
}

fn with_cache(mut c: std::process::Command, cache: &Path) -> std::process::Command {
    c.env("AUTOEVAL_CACHE_DIR", cache);
    c
}

fn calls(rec: &serde_json::Value) -> Vec<serde_json::Value> {
    rec["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            std::iter::once(r["informalize"].clone())
                .chain(r.get("autoformalize").cloned().filter(|a| !a.is_null()))
        })
        .collect()
}

#[test]
fn second_run_of_the_same_dataset_is_answered_from_the_cache() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let price = prices(tmp.path());
    let p = price.to_str().unwrap();
    // --temperature 0: the cache is on by default.
    let args = ["--temperature", "0", "--prices", p];
    let first = with_cache(run_cmd(&server.base, &tmp.path().join("a"), &args), &cache)
        .output()
        .unwrap();
    common::cli::ok(&first);
    let hits_first = server.hits.load(Ordering::SeqCst);
    assert!(hits_first > 0);
    let a = samples(&tmp.path().join("a"));
    assert!(a.iter().all(|r| r["cost_usd"].as_f64().unwrap() > 0.0));
    let second = with_cache(run_cmd(&server.base, &tmp.path().join("b"), &args), &cache)
        .output()
        .unwrap();
    let err = common::cli::ok_stderr(&second);
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        hits_first,
        "the second run made requests"
    );
    assert!(err.contains("response cache: "), "{err}");
    let b = samples(&tmp.path().join("b"));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["verdict"], y["verdict"]);
        assert_eq!(
            y["cost_usd"].as_f64(),
            Some(0.0),
            "cached calls cost nothing"
        );
        for c in calls(y) {
            assert_eq!(c["cached"], true, "{c}");
            assert_eq!(c["attempts"], 0);
        }
    }
    // --no-cache goes to the server again; cache stats see the answers.
    let mut none = run_cmd(&server.base, &tmp.path().join("c"), &args);
    none.arg("--no-cache");
    assert!(with_cache(none, &cache).status().unwrap().success());
    assert!(server.hits.load(Ordering::SeqCst) > hits_first);
    let mut stats = common::cli::bin();
    stats
        .args(["cache", "stats"])
        .env("AUTOEVAL_CACHE_DIR", &cache);
    let out = stats.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("answers: {hits_first}")), "{text}");
    assert!(text.contains("openai:fake"), "{text}");
    let mut prune = common::cli::bin();
    prune
        .args(["cache", "prune", "--max-entries", "0"])
        .env("AUTOEVAL_CACHE_DIR", &cache);
    let out = prune.output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("removed {hits_first} answers; 0 left")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn default_temperature_leaves_the_cache_off() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = with_cache(run_cmd(&server.base, &tmp.path().join("a"), &[]), &cache)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!cache.join("responses.sqlite3").exists());
}

#[test]
fn two_processes_share_the_cache_at_once() {
    let server = fake_server(5);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let args = ["--temperature", "0", "--batches", "3"];
    let mut kids: Vec<_> = ["a", "b"]
        .iter()
        .map(|d| {
            with_cache(run_cmd(&server.base, &tmp.path().join(d), &args), &cache)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for k in kids.drain(..) {
        let out = k.wait_with_output().unwrap();
        let err = common::cli::ok_stderr(&out);
        assert!(!err.contains("warning"), "{err}");
    }
    let before = server.hits.load(Ordering::SeqCst);
    let third = with_cache(run_cmd(&server.base, &tmp.path().join("c"), &args), &cache)
        .output()
        .unwrap();
    assert!(third.status.success());
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        before,
        "both writers' answers were stored"
    );
    assert_eq!(
        samples(&tmp.path().join("c")).len(),
        samples(&tmp.path().join("a")).len()
    );
}

#[test]
fn a_truncated_cache_database_degrades_to_no_cache_with_a_warning() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let args = ["--temperature", "0"];
    assert!(
        with_cache(run_cmd(&server.base, &tmp.path().join("a"), &args), &cache)
            .status()
            .unwrap()
            .success()
    );
    let db = cache.join("responses.sqlite3");
    let len = std::fs::metadata(&db).unwrap().len();
    assert!(len > 4096, "{len}");
    let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    f.set_len(1000).unwrap();
    drop(f);
    let before = server.hits.load(Ordering::SeqCst);
    let out = with_cache(run_cmd(&server.base, &tmp.path().join("b"), &args), &cache)
        .output()
        .unwrap();
    let err = common::cli::ok_stderr(&out);
    assert!(err.contains("running without the response cache"), "{err}");
    assert_eq!(
        server.hits.load(Ordering::SeqCst) - before,
        before,
        "every call was sent"
    );
    let b = samples(&tmp.path().join("b"));
    assert!(
        b.iter()
            .all(|r| calls(r).iter().all(|c| c.get("cached").is_none()))
    );
    // `cache prune --all` clears even a corrupt database.
    let mut prune = common::cli::bin();
    prune
        .args(["cache", "prune", "--all"])
        .env("AUTOEVAL_CACHE_DIR", &cache);
    assert!(prune.status().unwrap().success());
    assert!(!db.exists());
}

#[test]
fn max_cost_stops_before_the_limit_and_resumes() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let price = prices(tmp.path());
    let out_dir = tmp.path().join("run");
    let p = price.to_str().unwrap();
    let out = run_cmd(
        &server.base,
        &out_dir,
        &[
            "--prices",
            p,
            "--max-tokens",
            "20",
            "--concurrency",
            "4",
            "--max-cost",
            "1.0",
        ],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("--max-cost $1.0000"), "{err}");
    let hits = server.hits.load(Ordering::SeqCst);
    // What the server billed never passes the limit.
    assert!(hits as f64 * 0.2001 <= 1.0, "{hits} calls");
    assert!(hits >= 2, "{hits}");
    let first = samples(&out_dir);
    assert!(!first.is_empty());
    assert!(
        first
            .iter()
            .all(|r| r["verdict"]["verdict"] != "model-error"),
        "refused samples are not written"
    );
    let spent: f64 = first.iter().map(|r| r["cost_usd"].as_f64().unwrap()).sum();
    assert!(spent <= 1.0);
    let m: serde_json::Value = common::manifest(&out_dir);
    assert_eq!(m["status"], "cancelled");
    // The limit counts the run's earlier spend: resuming with the same one stops at once.
    let again = run_cmd(
        &server.base,
        &out_dir,
        &[
            "--prices",
            p,
            "--max-tokens",
            "20",
            "--max-cost",
            "1.0",
            "--resume",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(again.status.code(), Some(130));
    assert!(server.hits.load(Ordering::SeqCst) as f64 * 0.2001 <= 1.0);
    let done = run_cmd(
        &server.base,
        &out_dir,
        &[
            "--prices",
            p,
            "--max-tokens",
            "20",
            "--max-cost",
            "100",
            "--resume",
        ],
    )
    .output()
    .unwrap();
    common::cli::ok(&done);
    let all = samples(&out_dir);
    let ids: std::collections::HashSet<_> = all.iter().map(|r| r["id"].to_string()).collect();
    assert_eq!(ids.len(), all.len(), "no sample twice");
    // Unpriced models cannot be budgeted.
    let unpriced = run_cmd(&server.base, &tmp.path().join("u"), &["--max-cost", "1"])
        .output()
        .unwrap();
    assert_eq!(unpriced.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unpriced.stderr).contains("--prices FILE"));
}

fn money(line: &str) -> Vec<f64> {
    line.split('$')
        .skip(1)
        .filter_map(|s| {
            s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .next()
                .and_then(|x| x.parse().ok())
        })
        .collect()
}

#[test]
fn dry_run_prints_calls_and_cost_and_writes_nothing() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let price = prices(tmp.path());
    let out_dir = tmp.path().join("run");
    let out = run_cmd(
        &server.base,
        &out_dir,
        &[
            "--prices",
            price.to_str().unwrap(),
            "--dry-run",
            "--rounds",
            "2",
        ],
    )
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
    assert!(!out_dir.exists(), "a dry run creates nothing");
    let first = text.lines().next().unwrap();
    let n: u64 = first
        .trim_start_matches("dry run: ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(n > 0);
    assert!(
        text.contains(&format!("calls: {} in round 1", 2 * n)),
        "{text}"
    );
    assert!(
        text.contains(&format!("at most {} over 2 rounds", 4 * n)),
        "{text}"
    );
    let cost_line = text
        .lines()
        .find(|l| l.starts_with("estimated cost, round 1"))
        .unwrap();
    let c = money(cost_line);
    assert!((c[1] - c[0] * 0.5).abs() < 1e-3, "{cost_line}");
    let worst = money(text.lines().find(|l| l.starts_with("worst case")).unwrap());
    // At least every call's full 1024 answer tokens at $0.01 each.
    assert!(worst[0] >= (4 * n) as f64 * 1024.0 * 0.01, "{worst:?}");
    assert!(worst[0] > c[0]);
}

/// A server answering like the shared fake model, counting requests in flight at once.
fn counting_server(
    model: std::sync::Arc<common::FakeModel>,
    peak: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> common::Server {
    let now = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    common::Server::start(move |_, r| {
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(n, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(15));
        now.fetch_sub(1, Ordering::SeqCst);
        common::Reply::json(
            200,
            common::openai_body(&model.answer(&common::prompt_of(r))),
        )
    })
}

#[test]
fn repeated_base_urls_share_the_work_within_per_endpoint_limits() {
    let model = common::FakeModel::new();
    let (pa, pb) = (
        std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0)),
    );
    let a = counting_server(model.clone(), pa.clone());
    let b = counting_server(model, pb.clone());
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let second = format!("{}/v1", b.base);
    let out = run_cmd(
        &a.base,
        &out_dir,
        &[
            "--base-url",
            &second,
            "--concurrency",
            "8",
            "--endpoint-concurrency",
            "2",
        ],
    )
    .output()
    .unwrap();
    common::cli::ok(&out);
    let (ha, hb) = (a.hits.load(Ordering::SeqCst), b.hits.load(Ordering::SeqCst));
    let recs = samples(&out_dir);
    assert_eq!(ha + hb, 2 * recs.len());
    assert!(ha.abs_diff(hb) <= 2, "round-robin: {ha} and {hb}");
    assert!(pa.load(Ordering::SeqCst) <= 2 && pb.load(Ordering::SeqCst) <= 2);
    assert!(
        pa.load(Ordering::SeqCst) == 2,
        "the bound was reached, so it was tested"
    );
    assert!(recs.iter().all(|r| r["verdict"]["verdict"] == "equivalent"));
    let m: serde_json::Value = common::manifest(&out_dir);
    assert!(m["model"]["base_url"].as_str().unwrap().contains(','));
}

#[test]
fn a_dead_endpoint_is_rested_and_the_run_goes_on() {
    let server = fake_server(0);
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let out = run_cmd(
        &server.base,
        &out_dir,
        &[
            "--base-url",
            &dead,
            "--rest-after",
            "2",
            "--concurrency",
            "1",
        ],
    )
    .output()
    .unwrap();
    common::cli::ok(&out);
    let recs = samples(&out_dir);
    assert!(recs.len() > 4);
    assert!(
        recs.iter().all(|r| r["verdict"]["verdict"] == "equivalent"),
        "no sample failed"
    );
    // The calls that met the dead endpoint went on at once to the live one (no retry
    // with backoff); two refusals rested it.
    let retried: u64 = recs
        .iter()
        .flat_map(calls)
        .map(|c| c["attempts"].as_u64().unwrap() - 1)
        .sum();
    assert_eq!(retried, 0, "a failed endpoint's calls fail over, not retry");
}
