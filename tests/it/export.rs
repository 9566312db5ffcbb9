//! `autoeval export` through the binary: Inspect eval logs validated against the JSON
//! schema of inspect-ai's `EvalLog` (tests/data/inspect/, made by make.py there) and
//! checked field by field; flat JSONL and Parquet under the dataset card's fixed schema.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok_stderr as ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::inspect_schema as schema;

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
        .map(|r| common::fixtures::copy(home.path(), r))
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
        .args(["export", "--format", "inspect-json", "--out"])
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
        let samples_at = raw.rfind("\"samples\":[").unwrap();
        assert!(at("results") < samples_at && at("stats") < samples_at);
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
            let models: Vec<&Value> = events.iter().filter(|e| e["event"] == "model").collect();
            assert!(models.len() >= 2, "both conversations: {s}");
            // The rendered prompt (the built-in set renders the recorded template again).
            let p = models[0]["input"][0]["content"].as_str().unwrap();
            assert!(
                p.starts_with("[TASK]") && p.contains(s["input"].as_str().unwrap()),
                "{p}"
            );
            assert_eq!(
                events.iter().filter(|e| e["event"] == "score").count(),
                usize::from(s["metadata"]["verdict"] != "model-error")
            );
            let sc = &s["scores"]["equivalence"];
            if sc["value"] == "I" && s["metadata"]["verdict"] == "not-equivalent" {
                assert!(!sc["explanation"].as_str().unwrap().is_empty());
                assert!(sc["metadata"]["countermodel"].is_object());
            }
            assert!(s["metadata"]["psi"].is_string());
            assert!(s["metadata"]["operators"].is_number() || s["metadata"]["depth"].is_number());
        }
        if name.contains("pl-small") {
            let one = samples.iter().find(|s| s["id"] == 1).unwrap();
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

/// The columns and dtypes of the dataset card's `features` block.
fn card_features(card: &str) -> Vec<(String, String)> {
    let block = &card[card.find("  features:\n").unwrap()..card.find("\n---\n").unwrap()];
    let mut out = Vec::new();
    let mut name = None;
    for l in block.lines() {
        if let Some(n) = l.strip_prefix("  - name: ") {
            name = Some(n.to_string());
        } else if let Some(t) = l.strip_prefix("    dtype: ") {
            out.push((name.take().unwrap(), t.to_string()));
        } else if let Some(t) = l.strip_prefix("    sequence: ") {
            out.push((name.take().unwrap(), format!("list<{t}>")));
        }
    }
    out
}

#[test]
fn flat_jsonl_lines_follow_the_dataset_cards_fixed_schema() {
    let home = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = ["pl-small", "fol-small", "regex-small"]
        .iter()
        .map(|r| common::fixtures::copy(home.path(), r))
        .collect();
    let out = home.path().join("flat");
    ok(&bin(home.path())
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&out)
        .args(&runs)
        .output()
        .unwrap());
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("path: \"data/*.jsonl\""), "{card}");
    let features = card_features(&card);
    let names: Vec<&str> = features.iter().map(|(n, _)| n.as_str()).collect();
    for want in [
        "compliant",
        "shots",
        "prompt_hash",
        "judge_answer",
        "judge_agrees",
        "reasoning_tokens",
        "kinds",
        "labels",
        "meteor",
    ] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    let mut countermodels = 0;
    let mut non_null: std::collections::BTreeSet<String> = Default::default();
    for run in ["pl-small", "fol-small", "regex-small"] {
        let text = std::fs::read_to_string(out.join("data").join(format!("{run}.jsonl"))).unwrap();
        assert_eq!(text.lines().count(), 14);
        for l in text.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            let o = v.as_object().unwrap();
            let mut k: Vec<&str> = o.keys().map(String::as_str).collect();
            let mut want = names.clone();
            k.sort_unstable();
            want.sort_unstable();
            assert_eq!(k, want, "every line has the card's columns");
            let at: Vec<usize> = names
                .iter()
                .map(|n| l.find(&format!("\"{n}\":")).unwrap())
                .collect();
            assert!(
                at.windows(2).all(|w| w[0] < w[1]),
                "in the card's order: {l}"
            );
            for (name, dtype) in &features {
                let x = &o[name];
                let fits = match dtype.as_str() {
                    _ if x.is_null() => continue,
                    "string" => x.is_string(),
                    "int64" => x.is_i64(),
                    "float64" => x.is_number(),
                    "bool" => x.is_boolean(),
                    "list<string>" => x.as_array().unwrap().iter().all(Value::is_string),
                    t => panic!("dtype {t}"),
                };
                assert!(fits, "{name}: {x} is not {dtype}");
                non_null.insert(name.clone());
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
            assert_eq!(v["shots"], 0);
            // A2 only over answered samples.
            let answered = !["copied", "model-error"].contains(&v["verdict"].as_str().unwrap());
            assert_eq!(v["compliant"].is_boolean(), answered);
        }
    }
    assert!(countermodels >= 3, "PL, FOL and regex countermodels");
    // reasoning_tokens is null where no call reported any (these runs): not 0.
    for col in ["kinds", "passed", "prompt_hash", "bleu"] {
        assert!(non_null.contains(col), "{col} has values");
    }
    assert!(
        !non_null.contains("reasoning_tokens"),
        "unreported reasoning is null"
    );
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

#[test]
fn parquet_holds_the_flat_rows_typed_with_judge_answers_and_lists() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type};
    use arrow_schema::DataType;
    let home = tempfile::tempdir().unwrap();
    let run = common::fixtures::copy(home.path(), "pl-small");
    // A judge decision on sample 1 (the run-file format `autoeval judge` writes).
    std::fs::write(
        run.join("judge.jsonl"),
        r#"{"id":"1","model":{"provider":"openai","name":"judge-m"},"answer":"yes","call":{"prompt_id":"judge@x","input_tokens":1,"output_tokens":1,"latency_ms":1,"attempts":1},"verifier":"not-equivalent","time":"2026-11-22T07:56:04Z"}
"#,
    )
    .unwrap();
    ok(&bin(home.path())
        .args(["labels", "add"])
        .arg(&run)
        .args(["1", "negation-misplaced", "--annotator", "ann"])
        .output()
        .unwrap());
    let (pq, fl) = (home.path().join("pq"), home.path().join("fl"));
    for (format, out) in [("parquet", &pq), ("jsonl-flat", &fl)] {
        ok(&bin(home.path())
            .args(["export", "--format", format, "--out"])
            .arg(out)
            .arg(&run)
            .output()
            .unwrap());
    }
    let features = card_features(&std::fs::read_to_string(pq.join("README.md")).unwrap());
    let file = std::fs::File::open(pq.join("data/pl-small.parquet")).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    let schema = batches[0].schema();
    assert_eq!(schema.fields().len(), features.len());
    for (f, (name, dtype)) in schema.fields().iter().zip(&features) {
        assert_eq!(f.name(), name);
        let want = match dtype.as_str() {
            "string" => DataType::Utf8,
            "int64" => DataType::Int64,
            "float64" => DataType::Float64,
            "bool" => DataType::Boolean,
            "timestamp[ms, tz=UTC]" => {
                DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, Some("UTC".into()))
            }
            _ => DataType::List(std::sync::Arc::new(arrow_schema::Field::new_list_field(
                DataType::Utf8,
                true,
            ))),
        };
        assert_eq!(f.data_type(), &want, "{name}");
    }
    let lines: Vec<Value> = std::fs::read_to_string(fl.join("data/pl-small.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let total: usize = batches.iter().map(arrow_array::RecordBatch::num_rows).sum();
    assert_eq!(total, lines.len());
    let b = &batches[0];
    let col = |n: &str| b.column(schema.index_of(n).unwrap()).clone();
    let (ids, kinds, labels) = (col("id"), col("kinds"), col("labels"));
    let (ids, kinds, labels) = (
        ids.as_string::<i32>(),
        kinds.as_list::<i32>(),
        labels.as_list::<i32>(),
    );
    let (tokens, bleu) = (col("input_tokens"), col("bleu"));
    let (judge, agrees) = (col("judge_answer"), col("judge_agrees"));
    for (i, l) in lines.iter().enumerate().take(b.num_rows()) {
        assert_eq!(ids.value(i), l["id"].as_str().unwrap());
        let k: Vec<String> = kinds
            .value(i)
            .as_string::<i32>()
            .iter()
            .map(|x| x.unwrap().to_string())
            .collect();
        let want: Vec<String> = serde_json::from_value(l["kinds"].clone()).unwrap();
        assert_eq!(k, want);
        assert_eq!(
            tokens.as_primitive::<Int64Type>().value(i),
            l["input_tokens"].as_i64().unwrap()
        );
        assert_eq!(bleu.is_null(i), l["bleu"].is_null());
        if let Some(x) = l["bleu"].as_f64() {
            assert_eq!(bleu.as_primitive::<Float64Type>().value(i), x);
        }
        if l["id"] == "1" {
            assert_eq!(judge.as_string::<i32>().value(i), "yes");
            assert_eq!(l["judge_answer"], "yes");
            let pass = l["verdict"] == "equivalent";
            assert_eq!(agrees.as_boolean().value(i), pass);
            assert_eq!(l["judge_agrees"], pass);
            assert_eq!(
                labels.value(i).as_string::<i32>().value(0),
                "negation-misplaced"
            );
        } else {
            assert!(judge.is_null(i) && agrees.is_null(i));
            assert_eq!(labels.value(i).len(), 0);
        }
    }
}

/// A `.eval` export whose output device fills fails with the device's error (raised on
/// the zip writer's thread), exit 2 and no panic, and leaves no scratch file.
#[test]
fn eval_export_to_a_full_device_fails_with_its_error() {
    let home = tempfile::tempdir().unwrap();
    let run = common::fixtures::copy(home.path(), "pl-small");
    let first = home.path().join("first");
    ok(&bin(home.path())
        .args(["export", "--format", "inspect", "--out"])
        .arg(&first)
        .arg(&run)
        .output()
        .unwrap());
    let name = std::fs::read_dir(&first)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .find(|n| n.to_string_lossy().ends_with(".eval"))
        .unwrap();
    // The same file name in another folder, as a link to /dev/full (written in place).
    let out = home.path().join("full");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink("/dev/full", out.join(&name)).unwrap();
    let o = bin(home.path())
        .args(["export", "--format", "inspect", "--out"])
        .arg(&out)
        .arg(&run)
        .output()
        .unwrap();
    let err = common::cli::refused(&o, "No space left on device");
    assert!(
        !err.contains("panicked") && !err.contains("writer stopped"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![name], "only the link is left");
}
