//! `--format json` (and `--json`) on the commands that print a result summary: each
//! summary is one JSON object on stdout, and its fields agree with what was written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in, ok};
use serde_json::Value;
use std::path::Path;

/// The JSON object a command printed on stdout (nothing else may be there).
fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The lines of a run's samples.jsonl, parsed.
fn samples(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run_args(limit: &str, out: &Path) -> Vec<String> {
    let mut a: Vec<String> = [
        "run",
        "--kind",
        "pl",
        "--per-category",
        "1",
        "--limit",
        limit,
        "--model",
        "perturb",
        "--out",
    ]
    .map(String::from)
    .to_vec();
    a.push(out.display().to_string());
    a
}

#[test]
fn run_prints_its_summary_as_json_and_counts_only_this_time() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("r");
    let first = json(&ok(&bin_in(home.path())
        .args(run_args("3", &out))
        .args(["--format", "json"])
        .output()
        .unwrap()));
    let written = samples(&out);
    assert_eq!(first["samples"], written.len());
    assert_eq!(first["status"], "finished");
    assert_eq!(first["out"], out.display().to_string());
    let tokens: u64 = written
        .iter()
        .map(|s| s["input_tokens"].as_u64().unwrap() + s["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(first["tokens"], tokens);
    let mut by_verdict = serde_json::Map::new();
    for s in &written {
        let v = s["verdict"]["verdict"].as_str().unwrap().to_string();
        let n = by_verdict.get(&v).and_then(Value::as_u64).unwrap_or(0);
        by_verdict.insert(v, (n + 1).into());
    }
    assert_eq!(first["verdicts"], Value::Object(by_verdict));
    assert!(first["elapsed_s"].as_f64().unwrap() >= 0.0);
    assert!(first["cost_usd"].is_number() && first["unpriced"] == false);

    // Resumed with the older spelling: only the samples added this time are counted.
    let second = json(&ok(&bin_in(home.path())
        .args(run_args("5", &out))
        .args(["--resume", "--json"])
        .output()
        .unwrap()));
    assert_eq!(samples(&out).len(), 5);
    assert_eq!(second["samples"], 2);
    let sum: u64 = second["verdicts"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(sum, 2);

    // A dry run's estimate is text: asking it for JSON is refused, not ignored.
    let o = bin_in(home.path())
        .args(run_args("5", &out))
        .args(["--dry-run", "--json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::cli::stderr(&o));
}

/// A small offline run in `home`/`name` (`--limit` samples).
fn small_run(home: &Path, name: &str, limit: &str) -> std::path::PathBuf {
    let out = home.join(name);
    ok(&bin_in(home)
        .args(run_args(limit, &out))
        .arg("--quiet")
        .output()
        .unwrap());
    out
}

#[test]
fn export_says_what_it_wrote_as_json() {
    let home = tempfile::tempdir().unwrap();
    let a = small_run(home.path(), "a", "3");
    let b = small_run(home.path(), "b", "4");
    let dest = home.path().join("exp");
    let v = json(&ok(&bin_in(home.path())
        .args(["export", "--format", "jsonl-flat", "--json", "--out"])
        .arg(&dest)
        .args([&a, &b])
        .output()
        .unwrap()));
    assert_eq!(v["format"], "jsonl-flat");
    assert_eq!(v["samples"], 7);
    assert_eq!(v["card"], dest.join("README.md").display().to_string());
    assert!(dest.join("README.md").is_file());
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for (r, want) in runs.iter().zip([3, 4]) {
        assert_eq!(r["samples"], want);
        let files = r["files"].as_array().unwrap();
        assert_eq!(files.len(), 1);
        let path = files[0]["path"].as_str().unwrap();
        let lines = std::fs::read_to_string(path).unwrap().lines().count();
        assert_eq!(files[0]["samples"], lines);
        assert_eq!(lines, want);
    }
    assert_eq!(v["empty"], serde_json::json!([]));

    // Inspect logs: one file per log, and the eval set beside them.
    let dest = home.path().join("logs");
    let v = json(&ok(&bin_in(home.path())
        .args([
            "export",
            "--format",
            "inspect",
            "--samples-per-log",
            "2",
            "--json",
            "--out",
        ])
        .arg(&dest)
        .arg(&b)
        .output()
        .unwrap()));
    let files = v["runs"][0]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    for f in files {
        assert!(Path::new(f["path"].as_str().unwrap()).is_file());
        assert_eq!(f["samples"], 2);
    }
    assert_eq!(
        v["eval_set"],
        dest.join("eval-set.json").display().to_string()
    );
    assert!(dest.join("eval-set.json").is_file());
    assert!(v["card"].is_null());
}

#[test]
fn cache_prune_says_what_it_removed_as_json() {
    let server = common::fake_server(0);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("a");
    let cache = tmp.path().join("a.cache");
    let run = json(&ok(&common::run_cmd(
        &server.base,
        &out,
        &["--temperature", "0", "--limit", "3", "--json"],
    )
    .output()
    .unwrap()));
    let stored = run["cache"]["stored"].as_u64().unwrap();
    assert!(stored > 1, "{run}");
    assert_eq!(run["calls"].as_u64().unwrap(), stored);
    let cache_cmd = |args: &[&str]| {
        let mut c = common::cli::bin();
        c.arg("cache").args(args).env("AUTOEVAL_CACHE_DIR", &cache);
        json(&ok(&c.output().unwrap()))
    };
    let v = cache_cmd(&["prune", "--max-entries", "1", "--format", "json"]);
    assert_eq!(v["all"], false);
    assert_eq!(v["removed"], stored - 1);
    assert_eq!(v["left"], 1);
    assert_eq!(cache_cmd(&["stats", "--json"])["answers"], 1);
    let v = cache_cmd(&["prune", "--all", "--json"]);
    assert_eq!(
        (v["all"].clone(), v["removed"].clone()),
        (true.into(), 1.into())
    );
    assert!(v["freed_bytes"].is_u64());
    assert_eq!(cache_cmd(&["stats", "--json"])["answers"], 0);
}

/// The last line of a run's labels.jsonl.
fn last_label(run: &Path) -> Value {
    let text = std::fs::read_to_string(run.join("labels.jsonl")).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn labels_add_retract_and_adjudicate_print_the_line_they_recorded() {
    let home = tempfile::tempdir().unwrap();
    let run = small_run(home.path(), "r", "2");
    let id = samples(&run)[0]["id"].as_str().unwrap().to_string();
    let labels = |args: &[&str]| {
        json(&ok(&bin_in(home.path())
            .arg("labels")
            .arg(args[0])
            .arg(&run)
            .arg(&id)
            .args(&args[1..])
            .output()
            .unwrap()))
    };
    let v = labels(&[
        "add",
        "incomplete",
        "--annotator",
        "ann",
        "--note",
        "why",
        "--json",
    ]);
    let line = last_label(&run);
    for k in ["id", "annotator", "categories", "note", "time"] {
        assert_eq!(v[k], line[k], "{k}");
    }
    assert_eq!(v["annotator"], "ann");
    assert_eq!(v["categories"], serde_json::json!(["incomplete"]));
    assert_eq!(
        (v["retract"].clone(), v["blind"].clone()),
        (false.into(), false.into())
    );
    assert_eq!(v["run"], run.display().to_string());

    let v = labels(&["adjudicate", "--by", "judge", "--format", "json"]);
    let line = last_label(&run);
    assert_eq!(v["annotator"], "adjudicated");
    assert_eq!(v["adjudicator"], "judge");
    assert_eq!(
        (v["time"].clone(), v["categories"].clone()),
        (line["time"].clone(), line["categories"].clone())
    );
    assert_eq!(v["categories"], serde_json::json!([]));

    let v = labels(&["retract", "--annotator", "ann", "--json"]);
    let line = last_label(&run);
    assert_eq!(line["retract"], true);
    assert_eq!(v["retract"], true);
    assert_eq!(
        (v["annotator"].clone(), v["time"].clone()),
        ("ann".into(), line["time"].clone())
    );
}

#[test]
fn generate_prints_its_summary_as_json() {
    let home = tempfile::tempdir().unwrap();
    let generate = |out: &Path, extra: &[&str]| {
        let v = json(&ok(&bin_in(home.path())
            .args(["generate", "--kind", "pl", "--seed", "1", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()));
        let file: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        (v, file)
    };
    let out = home.path().join("d.json");
    let (v, file) = generate(
        &out,
        &[
            "--depth",
            "8",
            "--branching",
            "20",
            "--per-category",
            "2",
            "--json",
        ],
    );
    assert_eq!(v["samples"], file["data"].as_array().unwrap().len());
    assert_eq!(v["batches"], file["info"]["batches"]);
    assert_eq!(v["out"], out.display().to_string());
    assert_eq!(
        (v["name"].clone(), v["batches"].clone()),
        ("pl".into(), 1.into())
    );
    assert!(v["buckets"].as_u64().unwrap() > 0);

    // A grammar too small for the buckets asked for: the unfilled ones are listed.
    let out = home.path().join("small.json");
    let (v, file) = generate(
        &out,
        &[
            "--depth",
            "3",
            "--branching",
            "3",
            "--per-category",
            "40",
            "--format",
            "json",
        ],
    );
    let unfilled = v["unfilled"].as_array().unwrap();
    assert!(!unfilled.is_empty(), "{v}");
    assert_eq!(
        unfilled.len(),
        file["info"]["unfilled_buckets"].as_array().unwrap().len()
    );
    assert_eq!(v["samples"], file["data"].as_array().unwrap().len());
}

#[test]
fn prompts_export_says_what_it_wrote_as_json() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("p");
    let v = json(&ok(&bin_in(home.path())
        .args(["prompts", "--json", "--export"])
        .arg(&dir)
        .output()
        .unwrap()));
    assert_eq!(v["dir"], dir.display().to_string());
    let files = v["files"].as_array().unwrap();
    assert!(!files.is_empty());
    for f in files {
        assert!(Path::new(f.as_str().unwrap()).is_file(), "{f}");
    }
    assert_eq!(v["overwritten"], serde_json::json!([]));
    // The hash is the one a run using the exported set records.
    let out = home.path().join("r");
    let mut args = run_args("1", &out);
    args.extend([
        "--quiet".into(),
        "--prompts".into(),
        dir.display().to_string(),
    ]);
    ok(&bin_in(home.path()).args(args).output().unwrap());
    let manifest: Value = common::manifest(&out);
    assert_eq!(v["hash"], manifest["prompts"]["hash"]);
}
