//! Several `--base-url`s, one of them bad (HTTP 400s, garbage bodies, a long
//! `Retry-After`): its requests go to the good one, it rests, and the run takes about
//! as long as against the good one alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Reply, Server, fake_server, run_cmd, samples};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A server that answers every request with `reply`.
fn bad_server(reply: Reply) -> Server {
    Server::start(move |_, _| reply.clone())
}

fn model_errors(dir: &std::path::Path) -> usize {
    samples(dir)
        .iter()
        .filter(|r| r["verdict"]["verdict"] == "model-error")
        .count()
}

/// One good endpoint: its samples and wall time.
fn good_only(tmp: &std::path::Path) -> (usize, Duration) {
    let good = fake_server(20);
    let out = tmp.join("good-only");
    let t = Instant::now();
    let o = run_cmd(&good.base, &out, &["--concurrency", "4"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::cli::stderr(&o));
    (samples(&out).len(), t.elapsed())
}

#[test]
fn a_bad_endpoint_is_rested_and_its_requests_go_to_the_good_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (n, alone) = good_only(tmp.path());
    assert!(n >= 10, "{n} samples");
    let mut retry_after = Reply::json(429, r#"{"error":{"message":"slow down"}}"#.into());
    retry_after
        .headers
        .push(("Retry-After".into(), "120".into()));
    let cases = [
        (
            "400",
            Reply::json(400, r#"{"error":{"message":"bad model name"}}"#.into()),
        ),
        ("garbage", Reply::json(200, "<html>not a reply".into())),
        ("retry-after", retry_after),
    ];
    for (name, reply) in cases {
        let good = fake_server(20);
        let bad = bad_server(reply);
        let out = tmp.path().join(name);
        let t = Instant::now();
        // The bad endpoint first: it gets the very first request.
        let o = run_cmd(
            &bad.base,
            &out,
            &["--concurrency", "4", "--rest-after", "2", "--base-url"],
        )
        .arg(format!("{}/v1", good.base))
        .output()
        .unwrap();
        let took = t.elapsed();
        eprintln!("{name}: {took:?} (good endpoint alone: {alone:?})");
        let err = common::cli::stderr(&o);
        assert!(o.status.success(), "{name}: {err}");
        assert_eq!(samples(&out).len(), n, "{name}: {err}");
        assert!(
            model_errors(&out) <= 2,
            "{name}: {} model errors",
            model_errors(&out)
        );
        let bad_hits = bad.hits.load(Ordering::SeqCst);
        assert!(
            bad_hits <= 4,
            "{name}: the bad endpoint got {bad_hits} requests"
        );
        assert!(
            took < alone * 2 + Duration::from_secs(3),
            "{name}: {took:?} against {alone:?} on the good endpoint alone"
        );
    }
}
