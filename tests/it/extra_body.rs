//! `--extra-body` may add fields to a request, never replace what the run sets, and a
//! credential in it is never written to `run.json` (red team round 5, items 1 and 2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::providers::bodies;
use common::{fake_server, run_cmd, samples};
use std::sync::atomic::Ordering;

#[test]
fn keys_the_run_sets_are_refused_before_any_request() {
    let server = fake_server(0);
    let dir = tempfile::tempdir().unwrap();
    // Priced, so --max-cost alone would let the run start.
    let prices = dir.path().join("prices.json");
    std::fs::write(&prices, r#"{"fake": {"input": 100.0, "output": 400.0}}"#).unwrap();
    for (i, (body, flag)) in [
        (r#"{"max_tokens": 2000000}"#, "--max-tokens"),
        (r#"{"max_completion_tokens": 2000000}"#, "--max-tokens"),
        (r#"{"model": "other"}"#, "--model"),
        (
            r#"{"messages": [{"role": "user", "content": "hi"}]}"#,
            "--prompts",
        ),
        (r#"{"n": 50}"#, "one answer"),
        (r#"{"stream": true}"#, "read whole"),
        (r#"{"tools": [{"type": "function"}]}"#, "no tools"),
        (r#"{"reasoning_effort": "high"}"#, "--reasoning-effort"),
        (
            r#"{"thinking": {"type": "enabled", "budget_tokens": 90000}}"#,
            "--thinking",
        ),
        (r#"{"reasoning": {"max_tokens": 90000}}"#, "--max-tokens"),
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.path().join(format!("r{i}"));
        let o = run_cmd(
            &server.base,
            &out,
            &["--limit", "2", "--max-cost", "1", "--max-tokens", "10"],
        )
        .arg("--prices")
        .arg(&prices)
        .args(["--extra-body", body])
        .output()
        .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{body}: {err}");
        assert!(
            err.contains("--extra-body may add fields") && err.contains(flag),
            "{body}: {err}"
        );
        assert!(!out.join("run.json").exists(), "{body}");
    }
    assert_eq!(server.hits.load(Ordering::SeqCst), 0, "nothing was sent");
    // The same refusal for a batch request file: nothing is written.
    let file = dir.path().join("batch.jsonl");
    let o = run_cmd(&server.base, &dir.path().join("b"), &["--limit", "2"])
        .args(["--extra-body", r#"{"max_tokens": 2000000}"#])
        .arg("--batch-file-out")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::cli::stderr(&o));
    assert!(!file.exists());
}

#[test]
fn added_fields_are_sent_and_credentials_stored_redacted() {
    let server = fake_server(0);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let extra = r#"{"top_k": 20, "api_key": "sk-extra-secret-1234",
        "metadata": {"authorization": "Bearer tok-secret-5678", "user": "me",
                     "list": [{"password": "pw-secret-9012"}]}}"#;
    let o = run_cmd(&server.base, &out, &["--limit", "2"])
        .args(["--extra-body", extra])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::cli::stderr(&o));
    assert_eq!(samples(&out).len(), 2);
    // Sent as given: the provider needs them.
    for b in bodies(&server) {
        assert_eq!(b["top_k"], 20);
        assert_eq!(b["api_key"], "sk-extra-secret-1234");
        assert_eq!(b["model"], "fake");
    }
    // Never stored: not in run.json (request or command line), samples or the index.
    for entry in std::fs::read_dir(&out).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            for secret in ["sk-extra-secret", "tok-secret", "pw-secret"] {
                assert!(!text.contains(secret), "{} holds {secret}", p.display());
            }
        }
    }
    let m: serde_json::Value = common::manifest(&out);
    let e = &m["request"]["extra_body"];
    assert_eq!(e["api_key"], "[redacted]");
    assert_eq!(e["metadata"]["authorization"], "[redacted]");
    assert_eq!(e["metadata"]["user"], "me");
    assert_eq!(e["top_k"], 20);
    // Resuming with the same extra body is the same request.
    let o = run_cmd(&server.base, &out, &["--limit", "3", "--resume"])
        .args(["--extra-body", extra])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::cli::stderr(&o));
    assert_eq!(samples(&out).len(), 3);
}
