//! Issue 37, item 12: credentials in `--base-url` are refused and never stored; a
//! query (`?api-version=…`) keeps working and is not recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{fake_server, samples};
use std::path::Path;

fn everything_under(dir: &Path) -> String {
    let mut all = String::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                all.push_str(&everything_under(&p));
            } else {
                all.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    all
}

#[test]
fn a_user_and_password_in_the_base_url_are_refused_unechoed() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let with_creds = server
        .base
        .replace("http://", "http://alice:hunter2-secret@");
    let mut c = common::cli::bin();
    c.args(["run", "--kind", "pl", "--per-category", "1", "--limit", "2"])
        .args(["--model", "openai:fake", "--quiet", "--base-url"])
        .arg(format!("{with_creds}/v1"))
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "sk-x-123456789");
    let o = c.output().unwrap();
    let err = common::cli::refused(&o, "user name or password");
    assert!(!err.contains("hunter2"), "{err}");
    assert!(!everything_under(&out).contains("hunter2"));
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn a_query_in_the_base_url_goes_after_the_path_and_is_not_recorded() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut c = common::cli::bin();
    c.args(["run", "--kind", "pl", "--per-category", "1", "--limit", "3"])
        .args(["--model", "openai:fake", "--quiet", "--base-url"])
        .arg(format!("{}/v1?api-version=7&sig=tok3n", server.base))
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "sk-x-123456789")
        .env("AUTOEVAL_CACHE_DIR", tmp.path().join("cache"));
    let o = c.output().unwrap();
    common::cli::ok(&o);
    let paths: Vec<String> = server
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert!(!paths.is_empty());
    for p in &paths {
        assert_eq!(p, "/v1/chat/completions?api-version=7&sig=tok3n");
    }
    assert!(
        samples(&out)
            .iter()
            .all(|r| r["verdict"]["verdict"] == "equivalent")
    );
    let stored = everything_under(&out);
    assert!(!stored.contains("tok3n"), "the query was stored");
}
