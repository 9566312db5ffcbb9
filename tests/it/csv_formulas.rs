//! Issue 37, item 14: a CSV cell a spreadsheet would run as a formula (`=`, `+`, `-`,
//! `@` first) is written with a leading `'`, unless `--raw`; numbers stay numbers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::bin_in;
use std::path::{Path, PathBuf};
use std::process::Stdio;

const EVIL: &str = "=HYPERLINK(\"http://x\",\"y\")";

/// The pl-small fixture with a hostile run id.
fn hostile_run(home: &Path) -> PathBuf {
    let d = home.join("pl-small");
    std::fs::create_dir_all(&d).unwrap();
    let src = common::fixtures::run("pl-small");
    std::fs::copy(src.join("samples.jsonl"), d.join("samples.jsonl")).unwrap();
    let mut m: serde_json::Value = common::manifest(&src);
    m["id"] = serde_json::json!(EVIL);
    std::fs::write(d.join("run.json"), m.to_string()).unwrap();
    d
}

/// Runs the binary with standard output into a file (where CSV is otherwise exact).
fn csv_of(home: &Path, args: &[&str], run: &Path) -> String {
    let out = home.join("out.csv");
    let o = bin_in(home)
        .args(args)
        .arg(run)
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .output()
        .unwrap();
    common::cli::ok(&o);
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn report_and_leaderboard_csv_defuse_formulas_unless_raw() {
    let home = tempfile::tempdir().unwrap();
    let run = hostile_run(home.path());
    for args in [
        &["report", "--format", "csv"][..],
        &["leaderboard", "--format", "csv"][..],
    ] {
        let text = csv_of(home.path(), args, &run);
        let mut rows = csv::Reader::from_reader(text.as_bytes());
        let cells: Vec<String> = rows
            .records()
            .flat_map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>())
            .collect();
        assert!(
            cells.iter().all(|c| !c.starts_with('=')),
            "{args:?}: a formula cell\n{text}"
        );
        assert!(
            cells.iter().any(|c| c == &format!("'{EVIL}")),
            "{args:?}\n{text}"
        );
        // Numbers, negative ones too, are left alone.
        assert!(cells.iter().any(|c| c.parse::<f64>().is_ok()), "{text}");
    }
    let raw = csv_of(home.path(), &["report", "--format", "csv", "--raw"], &run);
    assert!(raw.contains("\"=HYPERLINK("), "{raw}");
}
