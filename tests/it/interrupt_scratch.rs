//! Issue 48, item 8: a command interrupted with Ctrl-C (SIGINT) or SIGTERM leaves no
//! scratch file behind (`.NAME.partial`, `.autoeval-index.PID.*tmp`), instead of
//! leaving them for the next reader to sweep; the output it was writing is not there.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::bin;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A run of `n` samples made of the small PL fixture's lines under new ids.
fn big_run(dir: &Path, n: usize) -> PathBuf {
    let src = common::fixtures::run("pl-small");
    let run = dir.join("big");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::copy(src.join("run.json"), run.join("run.json")).unwrap();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(src.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = String::new();
    for i in 0..n {
        let mut rec = lines[i % lines.len()].clone();
        rec["id"] = i.to_string().into();
        rec["idx"] = i.into();
        out.push_str(&rec.to_string());
        out.push('\n');
    }
    std::fs::write(run.join("samples.jsonl"), out).unwrap();
    run
}

/// Scratch files (hidden names ending in .partial or tmp) under `dir`, recursively.
fn scratch(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            out.extend(scratch(&p));
        } else if name.starts_with('.')
            && (name.ends_with(".partial") || name.ends_with("tmp") || name.contains(".tmp."))
        {
            out.push(p);
        }
    }
    out
}

/// Starts `export` of `run` into `out`, waits for a scratch file whose name holds `want`
/// to appear, then sends `signal`; returns the scratch files seen and the exit status.
fn interrupt(
    run: &Path,
    out: &Path,
    signal: &str,
    want: &str,
) -> (Vec<PathBuf>, std::process::ExitStatus) {
    let mut child = bin()
        .args([
            "export",
            "--format",
            "jsonl-flat",
            "--quiet",
            "--no-kinds",
            "--out",
        ])
        .arg(out)
        .arg(run)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let mut seen = Vec::new();
    let wanted = |seen: &[PathBuf]| seen.iter().any(|p| p.to_string_lossy().contains(want));
    while !wanted(&seen) && t.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        seen = [scratch(run), scratch(out)].concat();
        std::thread::sleep(Duration::from_millis(2));
    }
    let sent = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    (seen, child.wait().unwrap())
}

#[test]
fn an_interrupted_export_leaves_no_scratch_file() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let run = big_run(tmp.path(), 60_000);
    // Ctrl-C while the row index is built; SIGTERM while the output is written.
    for (signal, number, want) in [("-INT", 2, ".autoeval-index."), ("-TERM", 15, ".partial")] {
        let out = tmp.path().join(format!("out{number}"));
        let (seen, status) = interrupt(&run, &out, signal, want);
        assert!(
            seen.iter().any(|p| p.to_string_lossy().contains(want)),
            "export finished before a {want} file was seen ({seen:?}); make the run larger"
        );
        // Killed by the signal, as before (the handler only cleans up).
        assert_eq!(status.signal(), Some(number), "{status:?}");
        let left = [scratch(&run), scratch(&out)].concat();
        assert!(
            left.is_empty(),
            "{signal}: scratch files left: {left:?} (seen {seen:?})"
        );
        assert!(
            !out.join("data").join("big.jsonl").exists(),
            "a half output in place"
        );
    }
}
