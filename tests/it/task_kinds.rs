//! Reference tasks and providers as closed kinds (issue 50): a task name is read once,
//! where a run file enters, and a name this version does not know is refused there,
//! naming the file and the tasks it knows; run files written before read as they did.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok};
use serde_json::Value;
use std::path::Path;

/// A finished `folio-r-nl` run of the offline model in `out`, with `extra` flags.
fn task_run(out: &Path, extra: &[&str]) {
    ok(&bin()
        .args(["run", "--task", "folio-r-nl", "--model", "perturb"])
        .args(["--limit", "3", "--quiet"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap());
}

const TASKS: [&str; 6] = [
    "folio-r-nl",
    "folio-r-fol",
    "folio-a",
    "folio-i",
    "multi-logieval-pl",
    "multi-logieval-fol",
];

#[test]
fn an_unknown_task_in_run_json_is_refused_naming_the_file_and_the_known_tasks() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    task_run(&out, &[]);
    let path = out.join("run.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut m: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(m["task"], "folio-r-nl");
    m["task"] = Value::from("folio-z");
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    for cmd in [vec!["report"], vec!["report", "--format", "json"]] {
        let o = bin().args(&cmd).arg(&out).output().unwrap();
        assert!(!o.status.success(), "{cmd:?} read a task it does not know");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("run.json"), "{err}");
        assert!(err.contains("folio-z"), "{err}");
        for t in TASKS {
            assert!(err.contains(t), "{t} not listed: {err}");
        }
    }
}

#[test]
fn task_run_files_read_and_write_the_task_as_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    task_run(&out, &[]);
    let before = std::fs::read_to_string(out.join("run.json")).unwrap();
    // Resumed (nothing left to do), the manifest is read and written back.
    task_run(&out, &["--resume"]);
    let after: Value = common::manifest(&out);
    let before: Value = serde_json::from_str(&before).unwrap();
    assert_eq!(after["task"], before["task"]);
    assert_eq!(after["task"], "folio-r-nl");
    for line in std::fs::read_to_string(out.join("samples.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["task"]["name"], "folio-r-nl");
    }
    let rep = ok(&bin()
        .args(["report", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap());
    let rep: Value = serde_json::from_str(&rep).unwrap();
    assert_eq!(rep["runs"][0]["task"], "folio-r-nl");
}
