//! Issue 37, item 0: an output named as a device, FIFO or symlink to one is written
//! in place or refused, never replaced by a regular file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, bin_in, mkfifo, ok, stderr};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// Reads the FIFO `p` to its end on a thread; the bytes arrive on the channel.
fn drain(p: &Path) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    let p = p.to_path_buf();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Ok(mut f) = std::fs::File::open(&p) {
            let _ = std::io::Read::read_to_end(&mut f, &mut buf);
        }
        let _ = tx.send(buf);
    });
    rx
}

fn is_fifo(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

/// The files in `d` other than `keep`: no temporary file may be left behind.
fn leftovers(d: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn generate_into_a_symlink_to_dev_null_writes_through_it() {
    let d = tempfile::tempdir().unwrap();
    let link = d.path().join("null.json");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    ok(&bin()
        .args(["generate", "--kind", "pl", "--per-category", "2", "--out"])
        .arg(&link)
        .output()
        .unwrap());
    let m = std::fs::symlink_metadata(&link).unwrap();
    assert!(m.file_type().is_symlink(), "the link was replaced: {m:?}");
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert_eq!(leftovers(d.path(), &["null.json"]), Vec::<String>::new());
}

#[test]
fn generate_into_a_fifo_streams_the_dataset_to_its_reader() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("out.json");
    mkfifo(&fifo);
    let rx = drain(&fifo);
    let o = bin()
        .args(["generate", "--kind", "pl", "--per-category", "2", "--out"])
        .arg(&fifo)
        .output()
        .unwrap();
    assert!(is_fifo(&fifo), "the FIFO was replaced by a regular file");
    ok(&o);
    let got = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&got).unwrap();
    assert!(v["data"].as_array().is_some_and(|a| !a.is_empty()));
    assert_eq!(leftovers(d.path(), &["out.json"]), Vec::<String>::new());
}

#[test]
fn a_fifo_nobody_reads_is_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("out.json");
    mkfifo(&fifo);
    let o = bin()
        .args(["generate", "--kind", "pl", "--per-category", "2", "--out"])
        .arg(&fifo)
        .output()
        .unwrap();
    assert!(is_fifo(&fifo), "the FIFO was replaced by a regular file");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a FIFO that nothing reads"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn export_and_the_heat_map_write_into_fifos_in_place() {
    let home = tempfile::tempdir().unwrap();
    let run = common::fixtures::copy(home.path(), "pl-small");
    let out = home.path().join("flat");
    // The Hub layout: the data file under data/, the dataset card at the root.
    std::fs::create_dir_all(out.join("data")).unwrap();
    let fifo = out.join("data/pl-small.jsonl");
    mkfifo(&fifo);
    let rx = drain(&fifo);
    let o = bin_in(home.path())
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&out)
        .arg(&run)
        .output()
        .unwrap();
    assert!(is_fifo(&fifo), "export replaced the FIFO");
    ok(&o);
    let got = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(String::from_utf8_lossy(&got).lines().count(), 14);
    // The dataset card beside the flat files is a regular file of its own.
    assert_eq!(
        leftovers(&out.join("data"), &["pl-small.jsonl"]),
        Vec::<String>::new()
    );
    assert_eq!(
        leftovers(&out, &["data", "README.md"]),
        Vec::<String>::new()
    );

    let svg = home.path().join("plot.svg");
    mkfifo(&svg);
    let rx = drain(&svg);
    let o = bin_in(home.path())
        .args(["metrics", "perturb", "--json", "--plot"])
        .arg(&svg)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/folio/folio-v0.0-train.jsonl"))
        .output()
        .unwrap();
    assert!(is_fifo(&svg), "the heat map replaced the FIFO");
    ok(&o);
    let got = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(String::from_utf8_lossy(&got).contains("</svg>"));
}

#[test]
fn export_keeps_two_runs_that_share_an_id_apart() {
    let home = tempfile::tempdir().unwrap();
    let a = common::fixtures::copy(&home.path().join("a"), "pl-small");
    let b = common::fixtures::copy(&home.path().join("b"), "pl-small");
    for format in ["jsonl-flat", "inspect"] {
        let out = home.path().join(format!("out-{format}"));
        let err = common::cli::ok_stderr(
            &bin_in(home.path())
                .args(["export", "--format", format, "--out"])
                .arg(&out)
                .arg(&a)
                .arg(&b)
                .output()
                .unwrap(),
        );
        // The flat export's data files are under data/ (its dataset card is not a
        // run); the Inspect logs sit beside their eval set's listing.
        let dir = if format == "jsonl-flat" {
            out.join("data")
        } else {
            out.clone()
        };
        let names = leftovers(&dir, &["eval-set.json"]);
        assert_eq!(names.len(), 2, "{format}: {names:?}\n{err}");
        if format == "jsonl-flat" {
            let lines: usize = names
                .iter()
                .map(|n| {
                    std::fs::read_to_string(dir.join(n))
                        .unwrap()
                        .lines()
                        .count()
                })
                .sum();
            assert_eq!(lines, 28, "{names:?}");
        }
    }
}
