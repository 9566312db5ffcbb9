//! The row index and its scratch files: a stale index never read after an edit, and
//! no scratch file left by a viewer quit mid-load or a killed report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, offline_run, stderr};
use std::path::Path;
use std::time::{Duration, Instant};

/// `report --format json` of `run`, with the row index as it is, and after removing it.
fn report_with_and_without_index(run: &Path) -> (String, String) {
    let o = bin()
        .args(["report", "--format", "json"])
        .arg(run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let cached = String::from_utf8_lossy(&o.stdout).into_owned();
    std::fs::remove_file(run.join(".autoeval-index")).unwrap();
    let o = bin()
        .args(["report", "--format", "json"])
        .arg(run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    (cached, String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn a_same_length_edit_of_an_early_line_then_an_append_is_never_read_from_a_stale_index() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    offline_run(&run, "6");
    let samples = run.join("samples.jsonl");
    // The first report builds the index.
    let o = bin().arg("report").arg(&run).output().unwrap();
    assert!(o.status.success());
    assert!(run.join(".autoeval-index").is_file());
    let text = std::fs::read_to_string(&samples).unwrap();
    let first = text.lines().next().unwrap();
    let ops = first
        .find("\"num_operators\":")
        .map(|i| i + "\"num_operators\":".len())
        .unwrap();
    let digit = first.as_bytes()[ops];
    assert!(digit.is_ascii_digit());
    // Same length, another category; then any append.
    let mut edited = text.clone().into_bytes();
    edited[ops] = if digit == b'9' { b'8' } else { b'9' };
    let last = text.lines().last().unwrap().to_string();
    edited.extend_from_slice(last.as_bytes());
    edited.push(b'\n');
    // In place, as an editor that keeps the inode would: write over, then append.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&samples)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &edited))
        .unwrap();
    let (cached, fresh) = report_with_and_without_index(&run);
    assert_eq!(cached, fresh, "the index hid an edit of line 1");
}

/// A run of `n` samples made by copying a small offline run's lines under new ids.
fn big_run(run: &Path, n: usize) {
    offline_run(run, "6");
    let samples = run.join("samples.jsonl");
    let text = std::fs::read_to_string(&samples).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len() / lines.len() * n + n * 8);
    for i in 0..n {
        let l = lines[i % lines.len()];
        // Each line starts {"id":"…": keep everything after the id.
        let rest = &l[l[7..].find('"').unwrap() + 8..];
        out.push_str(&format!("{{\"id\":\"{i}\"{rest}\n"));
    }
    std::fs::write(&samples, out).unwrap();
    let _ = std::fs::remove_file(run.join(".autoeval-index"));
}

fn scratch_files(run: &Path) -> Vec<String> {
    std::fs::read_dir(run)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(".autoeval-index.") && n.ends_with(".tmp"))
        .collect()
}

#[test]
fn scratch_files_are_removed_on_quit_and_swept_after_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    big_run(&run, 60_000);

    // A report killed while it builds the index leaves its scratch file…
    let mut child = bin()
        .arg("report")
        .arg(&run)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while scratch_files(&run).is_empty() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !run.join(".autoeval-index").exists(),
        "the report finished first"
    );
    assert!(!scratch_files(&run).is_empty(), "no scratch file to sweep");
    // …and the next reader sweeps it (its process is gone).
    let o = bin().arg("report").arg(&run).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(scratch_files(&run), Vec::<String>::new());

    // The viewer quit with `q` while the run is still loading leaves nothing behind.
    std::fs::remove_file(run.join(".autoeval-index")).unwrap();
    let exe = common::cli::EXE;
    let cmd = format!("stty cols 100 rows 30; {exe} view {}", run.display());
    let mut child = common::cli::isolated("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the `script` command (util-linux) is needed for this test");
    let t = Instant::now();
    while scratch_files(&run).is_empty() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"q").unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(t.elapsed() < Duration::from_secs(20), "did not quit on q");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !run.join(".autoeval-index").exists(),
        "loading finished before q"
    );
    assert_eq!(scratch_files(&run), Vec::<String>::new());
}
