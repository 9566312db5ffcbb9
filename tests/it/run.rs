//! Model clients against a real local HTTP server, and runs end to end.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Tests send signals to child processes and set environment variables before
// threads start: the only unsafe calls, each with its SAFETY note.
#![allow(unsafe_code)]

use crate::common;

use autoeval::llm::ChatRequest;
use autoeval::llm::client::Limits;
use autoeval::llm::spec::{ModelOptions, build};
use common::cli::bin;
use common::{
    Reply, Server, anthropic_body, fake_server, openai_body, prompt_of, run_cmd, samples,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn set_key(name: &str, value: &str) {
    // Each test uses its own variable name, so parallel tests do not race.
    unsafe { std::env::set_var(name, value) };
}

fn opts(base: &str, key_env: &str) -> ModelOptions {
    ModelOptions {
        base_url: Some(base.to_string()),
        api_key_env: Some(key_env.to_string()),
        limits: Limits {
            backoff_base: Duration::from_millis(10),
            timeout: Duration::from_secs(5),
            ..Limits::default()
        },
        ..ModelOptions::default()
    }
}

fn req(prompt: &str) -> ChatRequest {
    ChatRequest::plain(prompt, 0.1, 64)
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_wire_format_retries_429_with_retry_after_and_500() {
    let server = Server::start(|n, _| match n {
        0 => Reply {
            headers: vec![("Retry-After".into(), "1".into())],
            ..Reply::json(429, "{\"error\":\"slow down\"}".into())
        },
        1 => Reply::json(500, "{\"error\":\"boom\"}".into()),
        _ => Reply::json(200, openai_body("p1 ∧ p2")),
    });
    set_key("AE_TEST_KEY_OPENAI", "sk-secret-openai-1");
    let client = build(
        "openai:test-model",
        &opts(&format!("{}/v1", server.base), "AE_TEST_KEY_OPENAI"),
    )
    .unwrap();
    let t = Instant::now();
    let r = client
        .complete(&req("hello"))
        .await
        .expect("succeeds after retries");
    assert_eq!(r.attempts, 3);
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "Retry-After: 1 must be honoured ({:?})",
        t.elapsed()
    );
    assert_eq!(r.completion.text, "p1 ∧ p2");
    assert_eq!(
        (r.completion.input_tokens, r.completion.output_tokens),
        (100, 20)
    );
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs[2].path, "/v1/chat/completions");
    assert_eq!(
        reqs[2].headers["authorization"],
        "Bearer sk-secret-openai-1"
    );
    let body: serde_json::Value = serde_json::from_str(&reqs[2].body).unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(body["stream"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_wire_format() {
    let server = Server::start(|_, _| Reply::json(200, anthropic_body("∀x.P(x)")));
    set_key("AE_TEST_KEY_ANTHROPIC", "sk-ant-secret-2");
    let client = build(
        "anthropic:claude-test",
        &opts(&server.base, "AE_TEST_KEY_ANTHROPIC"),
    )
    .unwrap();
    let r = client.complete(&req("hi")).await.unwrap();
    assert_eq!(r.completion.text, "∀x.P(x)");
    assert_eq!(
        (r.completion.input_tokens, r.completion.output_tokens),
        (90, 10)
    );
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(reqs[0].headers["x-api-key"], "sk-ant-secret-2");
    assert_eq!(reqs[0].headers["anthropic-version"], "2023-06-01");
    let body: serde_json::Value = serde_json::from_str(&reqs[0].body).unwrap();
    assert_eq!(body["max_tokens"], 64);
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_malformed_empty_and_unauthorized_answers_fail_cleanly() {
    let server = Server::start(|_, r| match prompt_of(r).as_str() {
        "slow" => Reply {
            delay: Duration::from_millis(800),
            ..Reply::json(200, openai_body("late"))
        },
        "malformed" => Reply::json(200, "{\"choices\": [".into()),
        "empty" => Reply::json(200, openai_body("")),
        _ => Reply::json(
            401,
            "{\"error\": \"Incorrect API key provided: sk-secret-scrub-3\"}".into(),
        ),
    });
    set_key("AE_TEST_KEY_FAULTS", "sk-secret-scrub-3");
    let mut o = opts(&format!("{}/v1", server.base), "AE_TEST_KEY_FAULTS");
    o.limits.timeout = Duration::from_millis(200);
    o.limits.max_retries = 1;
    let client = build("openai:m", &o).unwrap();
    let e = client.complete(&req("slow")).await.unwrap_err();
    assert_eq!(e.attempts, 2, "timeouts are retried");
    assert!(e.error.message.contains("timed out"), "{}", e.error.message);
    let e = client.complete(&req("malformed")).await.unwrap_err();
    assert_eq!(e.attempts, 1);
    assert!(
        e.error.message.contains("malformed JSON"),
        "{}",
        e.error.message
    );
    let e = client.complete(&req("empty")).await.unwrap_err();
    assert!(
        e.error.message.contains("empty answer"),
        "{}",
        e.error.message
    );
    let e = client.complete(&req("auth")).await.unwrap_err();
    assert_eq!(e.attempts, 1, "401 is not retried");
    assert!(
        !e.error.message.contains("sk-secret-scrub-3"),
        "key leaked: {}",
        e.error.message
    );
    assert!(
        e.error.message.contains("$AE_TEST_KEY_FAULTS"),
        "{}",
        e.error.message
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn in_flight_bound_and_rpm_pacing_hold() {
    let active = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (a, p) = (active.clone(), peak.clone());
    let server = Server::start(move |_, _| {
        let now = a.fetch_add(1, Ordering::SeqCst) + 1;
        p.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(60));
        a.fetch_sub(1, Ordering::SeqCst);
        Reply::json(200, openai_body("ok"))
    });
    let mut o = opts(&format!("{}/v1", server.base), "AE_TEST_KEY_UNSET_1");
    o.limits.max_in_flight = 3;
    let client = Arc::new(build("openai:m", &o).unwrap());
    let mut tasks = Vec::new();
    for _ in 0..12 {
        let c = client.clone();
        tasks.push(tokio::spawn(
            async move { c.complete(&req("x")).await.is_ok() },
        ));
    }
    for t in tasks {
        assert!(t.await.unwrap());
    }
    assert!(
        peak.load(Ordering::SeqCst) <= 3,
        "peak {}",
        peak.load(Ordering::SeqCst)
    );
    assert!(peak.load(Ordering::SeqCst) >= 2, "requests overlap");

    o.limits.max_in_flight = 10;
    o.limits.rpm = Some(600); // one start every 100 ms
    let client = Arc::new(build("openai:m", &o).unwrap());
    let t = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..5 {
        let c = client.clone();
        tasks.push(tokio::spawn(
            async move { c.complete(&req("x")).await.is_ok() },
        ));
    }
    for t in tasks {
        assert!(t.await.unwrap());
    }
    assert!(
        t.elapsed() >= Duration::from_millis(400),
        "paced: {:?}",
        t.elapsed()
    );
}

#[test]
fn run_end_to_end_against_a_local_server_never_writes_the_key() {
    let server = fake_server(0);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(&server.base, &out, &["--concurrency", "4"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    let ds: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("dataset.json")).unwrap()).unwrap();
    assert_eq!(recs.len(), ds["data"].as_array().unwrap().len());
    for r in &recs {
        assert_eq!(r["verdict"]["verdict"], "equivalent", "{r}");
        assert!(
            r["rounds"][0]["autoformalize"]["output"]
                .as_str()
                .unwrap()
                .contains("```")
        );
        assert!(r["rounds"][0]["phi1_span"].is_array());
    }
    let manifest = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(manifest.contains("\"status\": \"finished\""));
    assert!(
        manifest.contains("OPENAI_API_KEY"),
        "the variable name is recorded"
    );
    for f in ["run.json", "samples.jsonl", "dataset.json"] {
        let text = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(!text.contains("sk-never-written-4"), "key written to {f}");
    }
    let rep = bin()
        .arg("report")
        .arg(&out)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&rep.stdout);
    assert!(
        csv.lines()
            .any(|l| l.contains(",all,") && l.contains(",1.0000,0,")),
        "{csv}"
    );
    // A second run into the same directory is refused without --resume.
    let again = run_cmd(&server.base, &out, &[]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
}

#[test]
fn copies_model_errors_and_unparseable_answers_become_verdicts() {
    let server = Server::start(|n, r| {
        let p = prompt_of(r);
        if p.contains("[FORMULA]") {
            // Copy the formula for some, fail for others.
            let f = p
                .rsplit("[FORMULA]")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            return match n % 3 {
                0 => Reply::json(200, openai_body(&format!("It says {f}"))),
                1 => Reply::json(200, "not json".into()),
                _ => Reply::json(200, openai_body("Something in plain words.")),
            };
        }
        Reply::json(200, openai_body("I think it is ((p1 and"))
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(&server.base, &out, &["--concurrency", "1", "--limit", "9"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    assert_eq!(recs.len(), 9);
    let names: std::collections::BTreeSet<String> = recs
        .iter()
        .map(|r| r["verdict"]["verdict"].as_str().unwrap().to_string())
        .collect();
    for want in ["model-error", "unparseable"] {
        assert!(names.contains(want), "{names:?}");
    }
    // A copy is flagged unless the formula has no operator symbol to copy (p7 alone).
    let copied: Vec<_> = recs
        .iter()
        .filter(|r| r["verdict"]["verdict"] == "copied")
        .collect();
    assert!(!copied.is_empty(), "{names:?}");
    assert!(copied[0]["verdict"]["span"].is_array());
}

#[test]
fn killed_run_resumes_with_every_sample_exactly_once() {
    let server = fake_server(40);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut child = run_cmd(&server.base, &out, &["--concurrency", "4"])
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if samples(&out).len() >= 5 || start.elapsed() > Duration::from_secs(30) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc_kill(child.id() as i32) };
    let _ = child.wait();
    let before = samples(&out).len();
    assert!(before >= 5, "the run made progress before the kill");
    let total = serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(out.join("dataset.json")).unwrap(),
    )
    .unwrap()["data"]
        .as_array()
        .unwrap()
        .len();
    assert!(before < total, "killed mid-run ({before}/{total})");
    let o = run_cmd(&server.base, &out, &["--concurrency", "4", "--resume"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    let mut ids: Vec<String> = recs
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "no sample twice");
    assert_eq!(n, total, "every sample present");
}

unsafe extern "C" {
    #[link_name = "kill"]
    fn c_kill(pid: i32, sig: i32) -> i32;
}

unsafe fn libc_kill(pid: i32) {
    unsafe { c_kill(pid, 9) };
}

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let server = fake_server(60);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut child = run_cmd(&server.base, &out, &["--concurrency", "2"])
        .spawn()
        .unwrap();
    let start = Instant::now();
    while samples(&out).len() < 3 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { c_kill(child.id() as i32, 2) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "SIGINT exits 130");
    let manifest = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(manifest.contains("\"status\": \"cancelled\""), "{manifest}");
    let text = std::fs::read_to_string(out.join("samples.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "no torn line after a clean stop");
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every line is whole");
    }
    let o = run_cmd(&server.base, &out, &["--concurrency", "4", "--resume"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        std::fs::read_to_string(out.join("run.json"))
            .unwrap()
            .contains("\"status\": \"finished\"")
    );
}

#[test]
fn torn_last_line_is_skipped_with_a_warning_and_resume_completes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let base = common::cli::perturb_args("1");
    common::cli::perturb_run(&out, "1", &["--limit", "10"]);
    let full = samples(&out);
    assert_eq!(full.len(), 10);
    // Drop the last record and leave half of its bytes, as a crash mid-write
    // would: the cut may land inside a multi-byte character such as `¬`.
    let bytes = std::fs::read(out.join("samples.jsonl")).unwrap();
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut torn = body[..start].to_vec();
    torn.extend_from_slice(&body[start..start + (body.len() - start) / 2]);
    std::fs::write(out.join("samples.jsonl"), torn).unwrap();
    let o = bin()
        .args(base)
        .arg(&out)
        .args(["--limit", "10", "--resume"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("incomplete last line"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let loaded = autoeval::run::store::read_samples(&out).unwrap();
    assert_eq!(loaded.records.len(), 10, "the torn sample was redone");
    assert_eq!(
        loaded.warnings.len(),
        1,
        "the torn line stays skipped: {:?}",
        loaded.warnings
    );
}

#[test]
fn rounds_continue_while_equivalent() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = bin()
        .args([
            "run",
            "--kind",
            "fol",
            "--per-category",
            "1",
            "--model",
            "perturb",
            "--perturb-rate",
            "0",
            "--rounds",
            "3",
            "--quiet",
            "--limit",
            "5",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    common::cli::ok(&o);
    for r in samples(&out) {
        assert_eq!(r["rounds"].as_array().unwrap().len(), 3);
        assert_eq!(r["rounds_passed"], 3);
    }
}
