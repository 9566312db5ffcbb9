//! Memory of a batch run while it downloads large provider result files (issue 37,
//! item 3), end to end through the binary against the hostile in-process batch server:
//! - a 1 GiB result file within its cap (saved to disk streaming, processed streaming);
//! - an endless result file, stopped at its cap.
//!
//! The server runs in this process and holds each file in memory, so the figure is the
//! autoeval child's own peak RSS (`VmHWM` in `/proc/PID/status`, read until it exits).
//! `cargo bench --bench batch_download` (release; Linux). Scratch: `target/bench-data/download`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use common::hostile_batch::{Hostile, start};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const GIB: usize = 1 << 30;

fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/download")
}

/// Peak resident set of a running process in KiB, if it can still be read.
fn peak_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.filter_map(Result::ok)
            .map(|e| {
                let p = e.path();
                if p.is_dir() {
                    dir_bytes(&p)
                } else {
                    e.metadata().map_or(0, |m| m.len())
                }
            })
            .sum()
    })
}

/// One batch run against a server whose output files carry `junk` extra bytes; prints
/// wall time, bytes served, bytes kept and the child's peak RSS.
fn case(name: &str, junk: usize, max_reply_bytes: &str) {
    let (server, world) = start(Hostile {
        junk,
        ..Hostile::default()
    });
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let prices = dir.join("prices.json");
    std::fs::write(
        &prices,
        r#"{"fake": {"input": 1.0, "output": 10.0, "batch": 0.5}}"#,
    )
    .unwrap();
    let out = dir.join("run");
    let log = std::fs::File::create(dir.join("stderr.log")).unwrap();
    let t = Instant::now();
    let mut child = common::run_cmd(
        &server.base,
        &out,
        &[
            "--batch-api",
            "--batch-poll",
            "0.05",
            "--prices",
            &prices.display().to_string(),
            "--max-reply-bytes",
            max_reply_bytes,
        ],
    )
    .stdout(Stdio::null())
    .stderr(log)
    .spawn()
    .unwrap();
    let mut peak = 0;
    loop {
        if let Some(k) = peak_kib(child.id()) {
            peak = peak.max(k);
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let secs = t.elapsed().as_secs_f64();
    let downloads: usize = world.lock().unwrap().downloads.values().sum();
    let batches = world.lock().unwrap().batches.len();
    println!(
        "{name}: {:.1} s, {batches} batches, {downloads} downloads of output+error files \
         ({:.2} GiB of junk each output file), {:.1} MiB kept in the run, peak RSS {:.1} MiB",
        secs,
        junk as f64 / GIB as f64,
        dir_bytes(&out) as f64 / f64::from(1 << 20),
        peak as f64 / 1024.0,
    );
}

fn main() {
    // Within its cap: 50 MB replies allowed make a cap of ~300 MB a request.
    case("within-cap", GIB, "50000000");
    // Endless: the default reply cap; the file passes its cap within a few MB.
    case("over-cap", GIB, "1000");
}
