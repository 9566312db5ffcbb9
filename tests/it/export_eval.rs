//! `autoeval export --format inspect`: Inspect `.eval` logs (zips) of live runs against a
//! local fake model, every member validated against inspect-ai's own schemas
//! (tests/data/inspect/, made by make.py there), with transcripts checked against what
//! the server was actually sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use crate::inspect_schema as schema;

use common::cli::bin;
use common::{FakeModel, Reply, Server, openai_body, prompt_of, run_cmd, samples};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn load_schema(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/inspect")
        .join(name);
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Every member of a zip, parsed as JSON (each checked to be written in key order).
fn members(path: &Path) -> BTreeMap<String, Value> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..z.len() {
        let mut f = z.by_index(i).unwrap();
        assert_eq!(
            f.compression(),
            zip::CompressionMethod::Deflated,
            "{}",
            f.name()
        );
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        let v: Value = serde_json::from_str(&s).unwrap();
        // The samples are written from structs, not a `Value` tree: their fields must
        // come in key order, as the tree wrote them (byte-identical to earlier logs).
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            s,
            "{}: keys not in order",
            f.name()
        );
        out.insert(f.name().to_string(), v);
    }
    out
}

fn check(root: &Value, def: Option<&str>, v: &Value, at: &str) {
    let s = def.map_or(root, |d| &root["$defs"][d]);
    let mut errs = Vec::new();
    schema::validate(root, s, v, at, &mut errs);
    assert!(errs.is_empty(), "{at}: {errs:#?}");
}

fn export(runs: &[&Path], out: &Path) -> Vec<PathBuf> {
    let o = bin()
        .args(["export", "--format", "inspect", "--out"])
        .arg(out)
        .args(runs)
        .output()
        .unwrap();
    common::cli::ok(&o);
    // The logs; `eval-set.json` beside them lists them as one eval set.
    assert!(out.join("eval-set.json").is_file());
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eval"))
        .collect();
    files.sort();
    files
}

fn ms(t: &Value) -> f64 {
    // `…T07:56:03.961+00:00`: seconds of the day are enough within one test.
    let s = t.as_str().unwrap();
    let time = &s[s.find('T').unwrap() + 1..s.find('+').unwrap()];
    let mut p = time.split(':').map(|x| x.parse::<f64>().unwrap());
    // Rounded: the seconds' decimals in binary made 25 ms come out as 24.99999….
    ((p.next().unwrap() * 3600.0 + p.next().unwrap() * 60.0 + p.next().unwrap()) * 1000.0).round()
}

#[test]
fn eval_logs_hold_each_call_with_the_prompt_it_was_sent_and_real_times() {
    let model = FakeModel::new();
    let sent: Arc<Mutex<HashSet<String>>> = Arc::default();
    let seen = sent.clone();
    let server = Server::start(move |_, r| {
        let p = prompt_of(r);
        seen.lock().unwrap().insert(p.clone());
        Reply {
            delay: Duration::from_millis(25),
            ..Reply::json(200, openai_body(&model.answer(&p)))
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let (zero, two) = (dir.path().join("zero"), dir.path().join("two"));
    for (out, shots) in [(&zero, "0"), (&two, "2")] {
        let o = run_cmd(
            &server.base,
            out,
            &["--limit", "6", "--shots", shots, "--temperature", "0.1"],
        )
        .output()
        .unwrap();
        common::cli::ok(&o);
    }
    let files = export(&[&zero, &two], &dir.path().join("logs"));
    assert_eq!(files.len(), 2, "{files:?}");
    let log_schema = load_schema("eval-log.schema.json");
    let summary_schema = load_schema("sample-summary.schema.json");
    let sent = sent.lock().unwrap().clone();
    let mut shots_seen = Vec::new();
    for f in &files {
        assert!(f.extension().unwrap() == "eval", "{f:?}");
        let m = members(f);
        let header = &m["header.json"];
        check(&log_schema, None, header, "header.json");
        assert_eq!(header["status"], "success");
        let args = &header["eval"]["task_args"];
        shots_seen.push(args["shots"].as_u64().unwrap());
        assert_eq!(args["prompt_hash"].as_str().unwrap().len(), 64);
        assert_eq!(args["synthetic"], false);
        assert_eq!(args["reading"], "standard");
        assert_eq!(m["_journal/start.json"]["eval"]["task_args"], *args);
        let run_dir = if args["shots"] == 0 { &zero } else { &two };
        let manifest: Value = common::manifest(run_dir);
        // The temperature as the run wrote it (not its f32 widened: 0.1, not 0.10000000149…).
        assert_eq!(args["temperature"], manifest["temperature"]);
        let records = samples(run_dir);
        let summaries = m["summaries.json"].as_array().unwrap();
        assert_eq!(summaries.len(), records.len());
        let sample_names: Vec<&String> = m.keys().filter(|k| k.starts_with("samples/")).collect();
        assert_eq!(sample_names.len(), records.len());
        for (i, s) in summaries.iter().enumerate() {
            check(&summary_schema, None, s, &format!("summaries[{i}]"));
            assert!(s["id"].is_u64(), "numeric ids sort as numbers: {}", s["id"]);
        }
        let (mut first, mut last) = (f64::MAX, 0.0f64);
        for rec in &records {
            let id = rec["id"].as_str().unwrap();
            let s = &m[&format!("samples/{id}_epoch_1.json")];
            check(&log_schema, Some("EvalSample"), s, &format!("sample {id}"));
            assert_eq!(s["input"], rec["phi0"]);
            let calls: usize = rec["rounds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| 1 + usize::from(r["autoformalize"].is_object()))
                .sum();
            let models: Vec<&Value> = s["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["event"] == "model")
                .collect();
            assert_eq!(models.len(), calls, "one model event per call");
            let mut prev = 0.0;
            for e in &models {
                let input = e["input"].as_array().unwrap();
                assert_eq!(input.len(), 1, "each call is a fresh conversation");
                let prompt = input[0]["content"].as_str().unwrap();
                assert!(sent.contains(prompt), "the prompt the server got: {prompt}");
                assert!(e["working_time"].as_f64().unwrap() >= 0.025);
                let t = ms(&e["timestamp"]);
                assert!(t > prev, "calls in order, each at its own time");
                prev = t;
                assert!(ms(&e["completed"]) - t >= 25.0);
            }
            // The first call's prompt holds the example block only in the 2-shot run.
            let p0 = models[0]["input"][0]["content"].as_str().unwrap();
            assert_eq!(p0.contains("[EXAMPLE 1]"), args["shots"] == 2, "{p0}");
            assert!(s["total_time"].as_f64().unwrap() >= 0.025 * calls as f64);
            let score = s["events"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["event"] == "score")
                .unwrap();
            let pass = rec["verdict"]["verdict"] == "equivalent";
            assert_eq!(score["score"]["value"], if pass { "C" } else { "I" });
            assert_eq!(
                score["score"]["metadata"]["verdict"],
                rec["verdict"]["verdict"]
            );
            assert!(score["score"]["metadata"]["kinds"].is_array());
            first = first.min(ms(&s["started_at"]));
            last = last.max(ms(&s["completed_at"]));
        }
        // The log's time is its samples' (the whole test takes seconds, not hours).
        let span = ms(&header["stats"]["completed_at"]) - ms(&header["stats"]["started_at"]);
        assert!(
            (span - (last - first)).abs() < 1.0,
            "{span} vs {}",
            last - first
        );
        assert!(span < 120_000.0);
    }
    shots_seen.sort_unstable();
    assert_eq!(shots_seen, [0, 2]);
}

#[test]
fn a_run_whose_calls_all_failed_is_an_error_log_of_sample_errors() {
    // A server error on every call (not a refused request, which would stop the run
    // before writing anything): every sample is written as a model error.
    let server = Server::start(|_, _| Reply::json(500, "{\"error\":\"internal\"}".into()));
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let o = run_cmd(&server.base, &run, &["--limit", "5", "--retries", "0"])
        .output()
        .unwrap();
    assert!(
        o.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let n = samples(&run).len();
    assert!(n > 0);
    let files = export(&[&run], &dir.path().join("logs"));
    let m = members(&files[0]);
    let header = &m["header.json"];
    check(
        &load_schema("eval-log.schema.json"),
        None,
        header,
        "header.json",
    );
    assert_eq!(header["status"], "error");
    assert!(
        header["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("all {n} samples failed at the model")),
        "{}",
        header["error"]
    );
    assert_eq!(header["results"]["scores"][0]["unscored_samples"], n);
    for s in m["summaries.json"].as_array().unwrap() {
        assert!(s["error"].as_str().unwrap().contains("500"), "{s}");
        assert_eq!(
            s["scores"],
            serde_json::json!({}),
            "no score for a model error"
        );
    }
    let sample = m
        .iter()
        .find(|(k, _)| k.starts_with("samples/"))
        .map(|(_, v)| v)
        .unwrap();
    assert!(sample["error"]["message"].as_str().unwrap().contains("500"));
    assert!(
        sample["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"] == "error")
    );
}
