//! Issue 37, item 6: a FIFO or a device as an input is refused at once, never read
//! for ever.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, mkfifo, within};
use std::process::Output;

fn refused(o: &Output, what: &str, kind: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{what}: {err}");
    assert!(err.contains(kind), "{what}: {err}");
}

#[test]
fn batch_file_in_refuses_a_fifo_and_a_device() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let files = tmp.path().join("req");
    let run = |extra: &[&str]| {
        let mut c = bin();
        c.args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
            .args(["--model", "openai:fake", "--quiet", "--out"])
            .arg(&out)
            .args(extra)
            .env_remove("OPENAI_API_KEY")
            .env("AUTOEVAL_CACHE_DIR", tmp.path().join("cache"));
        c
    };
    let o = within(
        &mut run(&["--batch-file-out", &files.display().to_string()]),
        30,
        "first run",
    );
    common::cli::ok(&o);
    let fifo = tmp.path().join("results.jsonl");
    mkfifo(&fifo);
    for (input, kind) in [
        (fifo.display().to_string(), "a FIFO"),
        ("/dev/zero".to_string(), "a device"),
    ] {
        let o = within(
            &mut run(&["--resume", "--batch-file-in", &input]),
            30,
            &format!("--batch-file-in {input}"),
        );
        refused(&o, &input, kind);
    }
}

#[test]
fn metrics_pairs_and_perturb_refuse_a_fifo_and_a_device() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pairs.tsv");
    mkfifo(&fifo);
    for (input, kind) in [
        (fifo.display().to_string(), "a FIFO"),
        ("/dev/zero".to_string(), "a device"),
    ] {
        let mut c = bin();
        c.args(["metrics", "pairs", &input]);
        refused(&within(&mut c, 30, "metrics pairs"), &input, kind);
        let mut c = bin();
        c.args(["metrics", "perturb", &input]);
        refused(&within(&mut c, 30, "metrics perturb"), &input, kind);
    }
}

#[test]
fn grammar_and_template_errors_show_no_raw_escapes() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("bad.cfg");
    std::fs::write(&g, "S -> ( S \u{1b}]0;owned\u{7} S ) | $prop\n").unwrap();
    let mut c = bin();
    c.args(["generate", "--grammar"])
        .arg(&g)
        .arg("--out")
        .arg(tmp.path().join("x.json"));
    let o = within(&mut c, 30, "generate");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("\\u{001B}"), "{err:?}");

    let prompts = tmp.path().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("informalize-logic.txt"),
        "Describe {formula} {\u{1b}[2J\u{1b}[31mred}\n",
    )
    .unwrap();
    let mut c = bin();
    c.args(["run", "--kind", "pl", "--per-category", "1", "--limit", "1"])
        .args(["--model", "perturb", "--quiet", "--prompts"])
        .arg(&prompts)
        .arg("--out")
        .arg(tmp.path().join("run"));
    let o = within(&mut c, 30, "run --prompts");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("unknown placeholder"), "{err:?}");
}
