//! Issue 37, items 11 and 14: the response cache checks each entry, caps what it
//! serves, refuses a database that is a link or special file, survives `cache prune
//! --all` under a run; `--dry-run` writes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{fake_server, run_cmd, samples};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;

fn with_cache(mut c: Command, cache: &Path) -> Command {
    c.env("AUTOEVAL_CACHE_DIR", cache);
    c
}

fn ok(c: &mut Command) -> String {
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

const T0: [&str; 2] = ["--temperature", "0"];

#[test]
fn a_changed_byte_in_an_entry_is_a_miss_with_a_warning() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    ok(&mut with_cache(
        run_cmd(&server.base, &tmp.path().join("a"), &T0),
        &cache,
    ));
    let first = server.hits.load(Ordering::SeqCst);
    let a = samples(&tmp.path().join("a"));
    // One byte of every stored formula changes, as a bit flip on disk would: `p`
    // becomes `q`. SQLite's own checks see nothing wrong.
    let db = rusqlite::Connection::open(cache.join("responses.sqlite3")).unwrap();
    let changed = db
        .execute(
            "UPDATE responses SET text = replace(text, 'p', 'q') WHERE text LIKE '%```%'",
            [],
        )
        .unwrap();
    assert!(changed > 0);
    drop(db);
    let err = ok(&mut with_cache(
        run_cmd(&server.base, &tmp.path().join("b"), &T0),
        &cache,
    ));
    assert!(err.contains("failed its checksum"), "{err}");
    // The changed entries were asked again, and nothing flipped.
    assert!(server.hits.load(Ordering::SeqCst) >= first + changed);
    let b = samples(&tmp.path().join("b"));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["verdict"], y["verdict"], "{err}");
    }
}

#[test]
fn a_cached_answer_longer_than_max_reply_bytes_is_not_served() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    ok(&mut with_cache(
        run_cmd(&server.base, &tmp.path().join("a"), &T0),
        &cache,
    ));
    let first = server.hits.load(Ordering::SeqCst);
    let mut c = with_cache(run_cmd(&server.base, &tmp.path().join("b"), &T0), &cache);
    c.args(["--max-reply-bytes", "12"]);
    let _ = c.output().unwrap();
    assert!(
        server.hits.load(Ordering::SeqCst) > first,
        "answers over the cap were served from the cache"
    );
    assert!(!samples(&tmp.path().join("b")).is_empty());
}

#[test]
fn a_cache_file_that_is_a_symlink_is_refused() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let other = tmp.path().join("other.sqlite3");
    std::os::unix::fs::symlink(&other, cache.join("responses.sqlite3")).unwrap();
    let err = ok(&mut with_cache(
        run_cmd(&server.base, &tmp.path().join("a"), &T0),
        &cache,
    ));
    assert!(err.contains("a symbolic link"), "{err}");
    assert!(err.contains("running without the response cache"), "{err}");
    assert!(!other.exists(), "the link's target was written");
}

#[test]
fn prune_all_during_a_run_keeps_what_the_run_stores_after_it() {
    // 150 ms a call, one at a time: the run takes a few seconds.
    let server = fake_server(150);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let mut run = with_cache(
        run_cmd(
            &server.base,
            &tmp.path().join("a"),
            &["--temperature", "0", "--concurrency", "1"],
        ),
        &cache,
    );
    let mut child = run.spawn().unwrap();
    // Prune once a few answers are stored.
    while server.hits.load(Ordering::SeqCst) < 4 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let mut prune = common::cli::bin();
    prune
        .args(["cache", "prune", "--all"])
        .env("AUTOEVAL_CACHE_DIR", &cache);
    ok(&mut prune);
    let at_prune = server.hits.load(Ordering::SeqCst);
    assert!(child.wait().unwrap().success());
    let total = server.hits.load(Ordering::SeqCst);
    assert!(total > at_prune + 2, "the run ended too soon to test");
    let mut stats = common::cli::bin();
    stats
        .args(["cache", "stats"])
        .env("AUTOEVAL_CACHE_DIR", &cache);
    let text = String::from_utf8_lossy(&stats.output().unwrap().stdout).into_owned();
    let n: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("answers: "))
        .unwrap()
        .parse()
        .unwrap();
    // Stored after the prune: at least every call made after it (one may straddle).
    assert!(
        n + 1 >= total - at_prune,
        "{n} kept of {total} - {at_prune}: {text}"
    );
}

#[test]
fn a_dry_run_writes_nothing() {
    let server = fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("run");
    let mut c = with_cache(run_cmd(&server.base, &out, &T0), &cache);
    c.arg("--dry-run");
    ok(&mut c);
    assert!(!cache.exists(), "the dry run created the cache");
    assert!(!out.exists(), "the dry run created the run directory");
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
}
