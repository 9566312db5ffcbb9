//! The spend ledger through the binary: every billed call is recorded, those of
//! samples dropped by Ctrl-C or SIGTERM too, so `--max-cost` and `report` count all
//! the server billed; a call billing more than it reserved stops the run at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{FakeModel, Reply, Server, openai_body, prompt_of, run_cmd, samples};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Sends signal `sig` to `child` (through `kill`, no unsafe code).
fn signal(child: &std::process::Child, sig: i32) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(ok.success());
}

/// A cheap prompt, a dear answer: 100 prompt and 20 answer tokens bill $0.2001.
fn prices(dir: &Path) -> String {
    common::write_prices(dir, r#"{"fake": {"input": 1.0, "output": 10000.0}}"#)
        .display()
        .to_string()
}

/// A model server that bills each reply as it produces it (`delay` after the request,
/// whether or not the client still waits), reporting `prompt_tokens` and 20 answer tokens.
fn billing_server(delay: Duration, prompt_tokens: u64) -> (Server, Arc<AtomicUsize>) {
    let model = FakeModel::new();
    let billed = Arc::new(AtomicUsize::new(0));
    let b = billed.clone();
    let server = Server::start(move |_, r| {
        std::thread::sleep(delay);
        let mut v: serde_json::Value =
            serde_json::from_str(&openai_body(&model.answer(&prompt_of(r)))).unwrap();
        v["usage"]["prompt_tokens"] = prompt_tokens.into();
        b.fetch_add(1, Ordering::SeqCst);
        Reply::json(200, v.to_string())
    });
    (server, billed)
}

/// The ledger's lines.
fn ledger(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("spend.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn ledger_usd(dir: &Path) -> f64 {
    ledger(dir)
        .iter()
        .filter_map(|l| l["cost_usd"].as_f64())
        .sum()
}

fn report_cost(dir: &Path) -> f64 {
    let o = common::cli::bin()
        .args(["report", "--format", "json"])
        .arg(dir)
        .output()
        .unwrap();
    let text = common::cli::ok(&o);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let run = &v["runs"][0];
    run["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("no cost in {text}"))
}

#[test]
fn stops_and_resumes_never_lose_a_billed_call() {
    let (server, billed) = billing_server(Duration::from_millis(150), 100);
    let tmp = tempfile::tempdir().unwrap();
    let price = prices(tmp.path());
    let out = tmp.path().join("run");
    let limit = 3.0;
    let args = |resume: bool| {
        let mut a = vec![
            "--prices",
            price.as_str(),
            "--max-tokens",
            "20",
            "--concurrency",
            "3",
            "--max-cost",
            "3.0",
        ];
        if resume {
            a.push("--resume");
        }
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let argv = |resume| {
        let a = args(resume);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        run_cmd(&server.base, &out, &refs)
    };
    // Stops (Ctrl-C, SIGTERM) land while calls are in flight: their samples are
    // dropped unwritten, yet the server billed their first calls.
    for (i, sig) in [2, 15, 2, 15, 2, 15].into_iter().enumerate() {
        let before = billed.load(Ordering::SeqCst);
        let mut child = argv(i > 0).spawn().unwrap();
        // The stop must land while calls are in flight, so wait for this pass's first
        // billed call (its signal handlers are installed by then) rather than a fixed
        // time, which a loaded machine can spend before the handlers exist.
        let start = std::time::Instant::now();
        let mut exited = None;
        while billed.load(Ordering::SeqCst) == before && start.elapsed() < Duration::from_secs(60) {
            exited = child.try_wait().unwrap();
            if exited.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if exited.is_none() {
            std::thread::sleep(Duration::from_millis(70 * i as u64));
            signal(&child, sig);
        }
        // After `try_wait` reaped it, `wait` gives the same status again.
        let st = child.wait().unwrap();
        // 130 also when the budget ran out before the signal landed.
        assert!(
            matches!(st.code(), Some(130 | 143)),
            "cycle {i}: exit {:?}",
            st.code()
        );
    }
    // Resumes until the budget stops it (or the run is done).
    let o = argv(true).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 130)), "{err}");
    let billed_usd = billed.load(Ordering::SeqCst) as f64 * 0.2001;
    let ledgered = ledger_usd(&out);
    let recorded: f64 = samples(&out)
        .iter()
        .filter_map(|r| r["cost_usd"].as_f64())
        .sum();
    assert!(
        ledgered + 1e-9 >= billed_usd,
        "ledger ${ledgered} < billed ${billed_usd} (samples record ${recorded})"
    );
    assert!(
        billed_usd <= limit + 1e-9,
        "the server billed ${billed_usd} against --max-cost ${limit}"
    );
    assert!(ledgered <= limit + 1e-9, "ledger ${ledgered}");
    assert!(report_cost(&out) + 1e-9 >= billed_usd);
    for l in ledger(&out) {
        let kind = l["kind"].as_str().unwrap();
        assert!(matches!(kind, "live" | "interrupted"), "{l}");
        assert!(l["call"].as_str().unwrap().contains("_r1_"), "{l}");
    }
}

#[test]
fn a_call_billing_more_than_it_reserved_stops_the_run_at_once() {
    // 5 million prompt tokens for a prompt of a few hundred bytes: $5 a call.
    let (server, billed) = billing_server(Duration::ZERO, 5_000_000);
    let tmp = tempfile::tempdir().unwrap();
    let price = prices(tmp.path());
    let out = tmp.path().join("run");
    let o = run_cmd(
        &server.base,
        &out,
        &[
            "--prices",
            &price,
            "--max-tokens",
            "20",
            "--concurrency",
            "1",
            "--max-cost",
            "100",
        ],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("more than the $"), "{err}");
    assert!(err.contains("spend.jsonl"), "{err}");
    let n = billed.load(Ordering::SeqCst);
    assert_eq!(n, 1, "no request after the one that overran: {err}");
    let billed_usd = n as f64 * (5.0 + 0.2);
    let l = ledger(&out);
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0]["overrun"], true);
    assert_eq!(l[0]["input_tokens"], 5_000_000);
    assert!(l[0]["reserved_usd"].as_f64().unwrap() < 1.0);
    assert!(ledger_usd(&out) + 1e-9 >= billed_usd);
    // Its sample was never finished, yet the report counts the bill.
    assert!(samples(&out).is_empty());
    assert!(report_cost(&out) + 1e-9 >= billed_usd);
    // A resume counts it against the limit: $5.2 of $5 is gone, nothing is sent.
    let o = run_cmd(
        &server.base,
        &out,
        &[
            "--prices",
            &price,
            "--max-tokens",
            "20",
            "--max-cost",
            "5",
            "--resume",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", common::cli::stderr(&o));
    assert_eq!(billed.load(Ordering::SeqCst), 1);
}

#[test]
fn a_run_from_before_the_ledger_carries_its_recorded_spend() {
    let (server, _billed) = billing_server(Duration::ZERO, 100);
    let tmp = tempfile::tempdir().unwrap();
    let price = prices(tmp.path());
    let out = tmp.path().join("run");
    let base = ["--prices", price.as_str(), "--max-tokens", "20"];
    let mut first: Vec<&str> = base.to_vec();
    first.extend(["--limit", "2"]);
    common::cli::ok(&run_cmd(&server.base, &out, &first).output().unwrap());
    let recorded: f64 = samples(&out)
        .iter()
        .filter_map(|r| r["cost_usd"].as_f64())
        .sum();
    assert!(recorded > 0.7, "{recorded}");
    std::fs::remove_file(out.join("spend.jsonl")).unwrap();
    // $0.80 recorded: with --max-cost 1 not one more sample (two calls, $0.40) fits.
    let mut again: Vec<&str> = base.to_vec();
    again.extend(["--limit", "3", "--max-cost", "1", "--resume"]);
    let o = run_cmd(&server.base, &out, &again).output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", common::cli::stderr(&o));
    let l = ledger(&out);
    assert_eq!(l[0]["kind"], "carried", "{l:?}");
    assert!((l[0]["cost_usd"].as_f64().unwrap() - recorded).abs() < 1e-9);
}
