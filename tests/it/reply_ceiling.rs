//! Issue 48, item 5: a reply the run accepts is a sample it reads back: a sample whose
//! reasoning would pass the readers' 64 MiB line limit is stored cut (with its length
//! and digest), `report` counts it and `--resume` does not ask again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::stderr;
use common::{FakeModel, Reply, Server, openai_body, prompt_of, run_cmd, samples};
use std::sync::Arc;
use std::sync::atomic::Ordering;

#[test]
fn a_sample_with_reasoning_past_the_line_limit_is_stored_cut_and_never_paid_again() {
    // Six million control characters: 36 MB a reply on the wire, 72 MB for the two
    // calls of a sample once written, past the 64 MiB a line may hold.
    let reasoning: Arc<str> = "\u{1}".repeat(6_000_000).into();
    let model = FakeModel::new();
    let r = reasoning.clone();
    let server = Server::start(move |_, req| {
        let mut body: serde_json::Value =
            serde_json::from_str(&openai_body(&model.answer(&prompt_of(req)))).unwrap();
        body["choices"][0]["message"]["reasoning"] = serde_json::Value::from(&*r);
        Reply::json(200, body.to_string())
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let args = ["--limit", "1", "--max-reply-bytes", "67108864"];
    let o = run_cmd(&server.base, &out, &args).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let line_len = std::fs::read_to_string(out.join("samples.jsonl"))
        .unwrap()
        .len();
    assert!(line_len < 64 << 20, "{line_len}");
    let got = samples(&out);
    assert_eq!(got.len(), 1, "the sample was not read back");
    let call = &got[0]["rounds"][0]["informalize"];
    assert_eq!(call["reasoning_cut"]["bytes"], 6_000_000);
    let hits = server.hits.load(Ordering::SeqCst);
    let again = run_cmd(&server.base, &out, &[&args[..], &["--resume"]].concat())
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        hits,
        "--resume asked again"
    );
    let report = common::cli::bin().arg("report").arg(&out).output().unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(!stderr(&report).contains("skipped"), "{}", stderr(&report));
}

#[test]
fn max_reply_bytes_says_its_ceiling() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run_cmd(
        "http://127.0.0.1:9",
        &out,
        &["--max-reply-bytes", "104857600"],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("67108864"), "{}", stderr(&o));
    assert!(!out.exists());
}
