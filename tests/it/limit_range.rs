//! Issue 43: `run --limit N` covers the dataset's whole range of buckets, not its easy
//! half (one sample from each of the first N operator counts), says the range it kept,
//! and `--dry-run` keeps the same.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok, ok_stderr};
use std::path::Path;

/// `run --kind KIND --per-category 5 --seed 3 --limit N` with the perturbing model:
/// (its output, the bucket of every kept sample).
fn limited(out: &Path, kind: &str, limit: &str, field: &str) -> (String, Vec<u64>) {
    let o = bin()
        .args(["run", "--kind", kind, "--per-category", "5", "--seed", "3"])
        .args(["--limit", limit, "--model", "perturb", "--quiet", "--out"])
        .arg(out)
        .output()
        .unwrap();
    let err = ok_stderr(&o);
    let mut b: Vec<u64> = common::samples(out)
        .iter()
        .map(|s| s[field].as_u64().unwrap())
        .collect();
    b.sort_unstable();
    (err, b)
}

/// The dataset's range as the limit line states it: `… of LO–HI (`.
fn stated_range(line: &str) -> (u64, u64) {
    let at = line.find(" of ").unwrap();
    let rest = &line[at + 4..];
    // The second " of ": the dataset's range after the kept range.
    let at = rest.find(" of ").unwrap();
    let range = rest[at + 4..].split(" (").next().unwrap();
    let (lo, hi) = range.split_once('–').unwrap();
    (lo.parse().unwrap(), hi.parse().unwrap())
}

#[test]
fn a_pl_pilot_of_twenty_reaches_the_hardest_operators() {
    let d = tempfile::tempdir().unwrap();
    let (err, ops) = limited(&d.path().join("pl"), "pl", "20", "num_operators");
    assert_eq!(ops.len(), 20, "{ops:?}");
    let line = err.lines().find(|l| l.contains("--limit 20")).unwrap();
    let (lo, hi) = stated_range(line);
    assert_eq!((lo, hi), (0, 39), "{line}");
    // 40 buckets, 20 kept: one spacing is two buckets.
    assert!(
        ops[0] <= lo + 1 && *ops.last().unwrap() >= hi - 1,
        "{ops:?}\n{line}"
    );
    let kept = format!("operators {}–{} of 0–39", ops[0], ops.last().unwrap());
    assert!(line.contains(&kept), "{line}");
    // The dry run picks and says the same.
    let o = bin()
        .args(["run", "--kind", "pl", "--per-category", "5", "--seed", "3"])
        .args(["--limit", "20", "--model", "perturb", "--dry-run", "--out"])
        .arg(d.path().join("dry"))
        .output()
        .unwrap();
    let text = ok(&o);
    assert!(text.contains(&kept), "{text}");
}

#[test]
fn a_regex_pilot_below_the_number_of_depths_spans_them() {
    let d = tempfile::tempdir().unwrap();
    let (err, depths) = limited(&d.path().join("re"), "regex", "9", "depth");
    assert_eq!(depths.len(), 9, "{depths:?}");
    let line = err.lines().find(|l| l.contains("--limit 9")).unwrap();
    let (lo, hi) = stated_range(line);
    let spacing = (hi - lo + 1).div_ceil(9);
    assert!(
        depths[0] < lo + spacing && *depths.last().unwrap() + spacing > hi,
        "{depths:?}\n{line}"
    );
}
