//! `autoeval export` through the binary: Inspect eval logs validated against the JSON
//! schema of inspect-ai's `EvalLog` (tests/data/inspect/, made by make.py there) and
//! checked field by field; flat JSONL whose every line has the same scalar keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::cli::{bin_in as bin, ok_stderr as ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(home: &Path, name: &str) -> PathBuf {
    let d = home.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/runs")
        .join(name);
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(src.join(f), d.join(f)).unwrap();
    }
    d
}

#[path = "inspect_schema/mod.rs"]
mod schema;

fn inspect_schema() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/inspect/eval-log.schema.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn errors(log: &Value) -> Vec<String> {
    let s = inspect_schema();
    let mut errs = Vec::new();
    schema::validate(&s, &s, log, "$", &mut errs);
    errs
}

#[test]
fn inspect_logs_follow_inspects_schema_and_carry_every_field() {
    let home = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = ["pl-small", "fol-small", "regex-small"]
        .iter()
        .map(|r| fixture(home.path(), r))
        .collect();
    // A label shows in the sample's metadata.
    ok(&bin(home.path())
        .args(["labels", "add"])
        .arg(&runs[0])
        .args(["1", "negation-misplaced", "--annotator", "ann"])
        .output()
        .unwrap());
    let out = home.path().join("logs");
    let msg = ok(&bin(home.path())
        .args(["export", "--format", "inspect", "--out"])
        .arg(&out)
        .args(&runs)
        .output()
        .unwrap());
    assert!(msg.contains("pl-small: 14 samples →"), "{msg}");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            name.contains("_autoeval-") && name.ends_with(".json"),
            "{name}"
        );
        let raw = std::fs::read_to_string(f).unwrap();
        // Inspect reads a header by streaming keys up to `samples`: it must come last.
        let at = |k: &str| raw.find(&format!("\"{k}\":")).unwrap();
        assert!(at("results") < at("samples") && at("stats") < at("samples"));
        assert!(raw.ends_with("]}"));
        let log: Value = serde_json::from_str(&raw).unwrap();
        let errs = errors(&log);
        assert!(errs.is_empty(), "{name}: {errs:#?}");
        assert_eq!(log["version"], 2);
        assert_eq!(log["status"], "success");
        let samples = log["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 14);
        let passed = samples
            .iter()
            .filter(|s| s["scores"]["equivalence"]["value"] == "C")
            .count();
        let acc = log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
            .as_f64()
            .unwrap();
        assert!((acc - passed as f64 / 14.0).abs() < 1e-12);
        for s in samples {
            assert_eq!(s["input"], s["target"], "input and target are φ₀");
            let events = s["events"].as_array().unwrap();
            assert!(events.len() >= 2, "both conversations: {s}");
            assert!(events.iter().all(|e| e["event"] == "model"));
            let sc = &s["scores"]["equivalence"];
            if sc["value"] == "I" && s["metadata"]["verdict"] == "not-equivalent" {
                assert!(!sc["explanation"].as_str().unwrap().is_empty());
                assert!(sc["metadata"]["countermodel"].is_object());
            }
            assert!(s["metadata"]["psi"].is_string());
            assert!(s["metadata"]["operators"].is_number() || s["metadata"]["depth"].is_number());
        }
        if name.contains("pl-small") {
            let one = samples.iter().find(|s| s["id"] == "1").unwrap();
            assert_eq!(
                one["metadata"]["labels"][0]["categories"][0],
                "negation-misplaced"
            );
            assert!(
                one["metadata"]["kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k == "negation-misplaced")
            );
            assert_eq!(one["output"]["completion"], "p10 ∧ p10");
        }
    }
    // The validator can fail: a log without a sample's input, or with a bad score, is refused.
    let mut log: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    log["samples"][0].as_object_mut().unwrap().remove("input");
    log["samples"][1]["epoch"] = Value::String("one".into());
    log["status"] = Value::String("done".into());
    let errs = errors(&log);
    assert!(
        errs.iter()
            .any(|e| e.contains("missing required \"input\"")),
        "{errs:?}"
    );
    assert!(
        errs.iter().any(|e| e.contains("samples[1].epoch")),
        "{errs:?}"
    );
    assert!(errs.iter().any(|e| e.starts_with("$.status")), "{errs:?}");
}

#[test]
fn flat_jsonl_has_the_same_scalar_keys_on_every_line() {
    let home = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = ["pl-small", "fol-small", "regex-small"]
        .iter()
        .map(|r| fixture(home.path(), r))
        .collect();
    let out = home.path().join("flat");
    ok(&bin(home.path())
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&out)
        .args(&runs)
        .output()
        .unwrap());
    let mut keys: Option<Vec<String>> = None;
    let mut countermodels = 0;
    let mut types: std::collections::BTreeMap<String, std::collections::BTreeSet<&str>> =
        std::collections::BTreeMap::new();
    for run in ["pl-small", "fol-small", "regex-small"] {
        let text = std::fs::read_to_string(out.join(format!("{run}.jsonl"))).unwrap();
        assert_eq!(text.lines().count(), 14);
        for l in text.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            let o = v.as_object().unwrap();
            let k: Vec<String> = o.keys().cloned().collect();
            assert_eq!(
                keys.get_or_insert_with(|| k.clone()),
                &k,
                "same keys on every line"
            );
            for (k, x) in o {
                assert!(!x.is_object() && !x.is_array(), "{k} is not a scalar: {x}");
                let t = match x {
                    Value::Null => continue,
                    Value::Bool(_) => "bool",
                    Value::Number(n) if n.is_f64() => "float",
                    Value::Number(_) => "int",
                    _ => "string",
                };
                types.entry(k.clone()).or_default().insert(t);
            }
            if let Some(c) = v["countermodel"].as_str() {
                let cm: Value = serde_json::from_str(c).unwrap();
                assert!(
                    cm["type"].is_string(),
                    "a JSON string of the tagged countermodel"
                );
                countermodels += 1;
            }
            assert_eq!(v["run"], run);
        }
    }
    assert!(countermodels >= 3, "PL, FOL and regex countermodels");
    // One type per column (ints may widen to floats, as Arrow does).
    for (k, t) in &types {
        let t: Vec<&&str> = t
            .iter()
            .filter(|t| **t != "int" || !types[k].contains("float"))
            .collect();
        assert_eq!(t.len(), 1, "{k}: {t:?}");
    }
    // The output directory is refused when it is a file.
    let f = home.path().join("file");
    std::fs::write(&f, "x").unwrap();
    let o = bin(home.path())
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&f)
        .arg(&runs[0])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot create"));
}
