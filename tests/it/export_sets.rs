//! `autoeval export` for the tools researchers already use: Inspect logs of at most
//! `--samples-per-log` samples written as one eval set (each opens in Inspect's viewer
//! whatever the run's size), Inspect's own `accuracy`, reasoning in the usage totals;
//! flat rows in the Hugging Face Hub layout with typed times and the run in Parquet
//! metadata; an export that keeps nothing fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok_stderr as ok};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Every member of a `.eval` zip, parsed.
fn members(path: &Path) -> BTreeMap<String, Value> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..z.len() {
        let mut f = z.by_index(i).unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        out.insert(f.name().to_string(), serde_json::from_str(&s).unwrap());
    }
    out
}

fn logs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eval"))
        .collect();
    v.sort();
    v
}

/// Appends a newer line for sample `id` whose model call failed for good.
fn fail_sample(run: &Path, id: &str) {
    let text = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let line = text
        .lines()
        .find(|l| serde_json::from_str::<Value>(l).unwrap()["id"] == id)
        .unwrap();
    let mut v: Value = serde_json::from_str(line).unwrap();
    v["verdict"] = serde_json::json!({"verdict": "model-error", "message": "server said 500"});
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(run.join("samples.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut f, format!("{v}\n").as_bytes()).unwrap();
}

#[test]
fn a_run_over_samples_per_log_becomes_an_eval_set_scored_as_inspect_scores() {
    let home = tempfile::tempdir().unwrap();
    let run = common::fixtures::copy(home.path(), "pl-small");
    fail_sample(&run, "1");
    fail_sample(&run, "2");
    let out = home.path().join("logs");
    let msg = ok(&bin(home.path())
        .args([
            "export",
            "--format",
            "inspect",
            "--samples-per-log",
            "5",
            "--out",
        ])
        .arg(&out)
        .arg(&run)
        .output()
        .unwrap());
    let files = logs(&out);
    assert_eq!(files.len(), 3, "14 samples, 5 a log: {msg}");
    let set: Value =
        serde_json::from_slice(&std::fs::read(out.join("eval-set.json")).unwrap()).unwrap();
    let set_tasks: HashSet<&str> = set["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(set_tasks.len(), 3);
    let (mut total, mut errors, mut pass) = (0, 0, 0);
    for f in &files {
        let m = members(f);
        let head = &m["header.json"];
        let eval = &head["eval"];
        // Inspect's file names are <created>_<task>_<task id>: the task is the header's.
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        let parts: Vec<&str> = name.split('_').collect();
        assert_eq!(parts.len(), 3, "{name}");
        assert_eq!(parts[1], eval["task"].as_str().unwrap());
        assert_eq!(parts[2], eval["task_id"].as_str().unwrap());
        assert!(set_tasks.contains(parts[2]), "listed in eval-set.json");
        assert_eq!(eval["eval_set_id"], set["eval_set_id"]);
        let tags: Vec<&str> = eval["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert!(tags.contains(&"pl") && tags.contains(&"0-shot"), "{tags:?}");
        let summaries = m["summaries.json"].as_array().unwrap();
        assert!(!summaries.is_empty() && summaries.len() <= 5);
        let n = summaries.len();
        let err = summaries.iter().filter(|s| s["error"].is_string()).count();
        let c = summaries
            .iter()
            .filter(|s| s["scores"]["equivalence"]["value"] == "C")
            .count();
        let metrics = &head["results"]["scores"][0]["metrics"];
        let close = |a: &Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-12;
        // Inspect's accuracy(): the mean over scored samples; A3 over all of them.
        assert!(
            close(&metrics["accuracy"]["value"], c as f64 / (n - err) as f64),
            "{metrics}"
        );
        assert!(
            close(&metrics["a3"]["value"], c as f64 / n as f64),
            "{metrics}"
        );
        assert_eq!(head["results"]["scores"][0]["scored_samples"], n - err);
        (total, errors, pass) = (total + n, errors + err, pass + c);
        // Spans and ids: every event has a uuid unique in the log; calls and checks sit
        // in their round's span.
        let mut uuids = HashSet::new();
        for (k, s) in m.iter().filter(|(k, _)| k.starts_with("samples/")) {
            let mut open: Option<String> = None;
            for e in s["events"].as_array().unwrap() {
                assert!(uuids.insert(e["uuid"].as_str().unwrap().to_string()), "{k}");
                match e["event"].as_str().unwrap() {
                    "span_begin" => open = Some(e["id"].as_str().unwrap().to_string()),
                    "span_end" => assert_eq!(open.take().as_deref(), e["id"].as_str()),
                    "model" | "info" => {
                        assert_eq!(open.as_deref(), e["span_id"].as_str(), "{k}: {e}");
                    }
                    _ => {}
                }
            }
            for msg in s["messages"].as_array().unwrap() {
                assert!(msg["id"].is_string(), "{k}: message ids");
            }
        }
    }
    // The fixture has 10 equivalent samples; one of ids 1 and 2 was among them.
    assert_eq!((total, errors, pass), (14, 2, 9));
}

#[test]
fn reasoning_tokens_reach_the_usage_totals_and_times_have_milliseconds() {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("r");
    ok(&bin(home.path())
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "1",
            "--limit",
            "12",
            "--model",
            "perturb:reasoning",
            "--quiet",
            "--out",
        ])
        .arg(&run)
        .output()
        .unwrap());
    let out = home.path().join("logs");
    ok(&bin(home.path())
        .args(["export", "--format", "inspect", "--quiet", "--out"])
        .arg(&out)
        .arg(&run)
        .output()
        .unwrap());
    let files = logs(&out);
    assert_eq!(files.len(), 1);
    let m = members(&files[0]);
    let mut sum = 0;
    let mut sub_second = 0;
    for (k, s) in m.iter().filter(|(k, _)| k.starts_with("samples/")) {
        let usage = s["model_usage"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap();
        let calls: u64 = s["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["event"] == "model")
            .map(|e| {
                e["output"]["usage"]["reasoning_tokens"]
                    .as_u64()
                    .unwrap_or(0)
            })
            .sum();
        assert_eq!(usage["reasoning_tokens"].as_u64(), Some(calls), "{k}");
        sum += calls;
        let done = s["completed_at"].as_str().unwrap();
        sub_second += usize::from(!done.contains(".000+"));
    }
    assert!(sum > 0, "the reasoning model reports reasoning tokens");
    let head = &m["header.json"];
    let usage = head["stats"]["model_usage"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(usage["reasoning_tokens"].as_u64(), Some(sum));
    assert!(
        sub_second > 0,
        "sample times are recorded to the millisecond"
    );
}

#[test]
fn flat_exports_follow_the_hub_layout_with_a_typed_time_and_the_run_in_metadata() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::TimestampMillisecondType;
    let home = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = ["pl-small", "fol-small"]
        .iter()
        .map(|r| common::fixtures::copy(home.path(), r))
        .collect();
    let out = home.path().join("flat");
    for format in ["parquet", "jsonl-flat"] {
        ok(&bin(home.path())
            .args(["export", "--format", format, "--out"])
            .arg(&out)
            .args(&runs)
            .output()
            .unwrap());
    }
    // The card at the root, only data files under data/ (pd.read_parquet(out/data)).
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("path: \"data/*.jsonl\""), "{card}");
    let mut data: Vec<String> = std::fs::read_dir(out.join("data"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    data.sort();
    assert_eq!(
        data,
        [
            "fol-small.jsonl",
            "fol-small.parquet",
            "pl-small.jsonl",
            "pl-small.parquet"
        ]
    );
    for run in ["pl-small", "fol-small"] {
        let file = std::fs::File::open(out.join(format!("data/{run}.parquet"))).unwrap();
        let b =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        let kv: BTreeMap<String, Option<String>> = b
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .unwrap()
            .iter()
            .map(|k| (k.key.clone(), k.value.clone()))
            .collect();
        assert_eq!(
            kv["autoeval.version"].as_deref(),
            Some(env!("CARGO_PKG_VERSION"))
        );
        let manifest: Value =
            serde_json::from_str(kv["autoeval.manifest"].as_deref().unwrap()).unwrap();
        assert_eq!(manifest["id"], run);
        let batches: Vec<_> = b.build().unwrap().map(Result::unwrap).collect();
        let schema = batches[0].schema();
        let i = schema.index_of("finished").unwrap();
        assert_eq!(
            schema.field(i).data_type(),
            &arrow_schema::DataType::Timestamp(
                arrow_schema::TimeUnit::Millisecond,
                Some("UTC".into())
            )
        );
        let lines: Vec<Value> = std::fs::read_to_string(out.join(format!("data/{run}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let times = batches[0]
            .column(i)
            .as_primitive::<TimestampMillisecondType>();
        for (k, l) in lines.iter().enumerate().take(batches[0].num_rows()) {
            let text = l["finished"].as_str().unwrap();
            let want = chrono::DateTime::parse_from_rfc3339(text)
                .unwrap()
                .timestamp_millis();
            assert_eq!(times.value(k), want, "{text}");
        }
    }
}

#[test]
fn an_export_that_keeps_nothing_exits_1_and_writes_no_file_for_that_run() {
    let home = tempfile::tempdir().unwrap();
    let good = common::fixtures::copy(home.path(), "pl-small");
    let bad = common::fixtures::copy(home.path(), "fol-small");
    std::fs::write(bad.join("samples.jsonl"), "not a sample\n{\"id\": 1}\n").unwrap();
    for format in ["inspect", "parquet", "jsonl-flat"] {
        let out = home.path().join(format);
        let o = bin(home.path())
            .args(["export", "--format", format, "--out"])
            .arg(&out)
            .args([&good, &bad])
            .output()
            .unwrap();
        let err = common::cli::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{format}: {err}");
        assert!(err.contains("fol-small: no sample kept"), "{err}");
        assert!(err.contains("pl-small: 14 samples"), "{err}");
        let dir = if format == "inspect" {
            out.clone()
        } else {
            out.join("data")
        };
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".json"))
            .collect();
        assert_eq!(names.len(), 1, "{format}: only the good run: {names:?}");
        assert!(!names[0].contains("fol"), "{names:?}");
    }
}
