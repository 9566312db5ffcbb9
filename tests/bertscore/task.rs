//! folio-i with BERTScore-MiniLM (cargo feature `bertscore`), through the binary: `run
//! --task folio-i --bertscore-model` stores each text's F1 beside BLEU, ROUGE-L and
//! METEOR, equal to `metrics pairs` on (FOLIO's premise, the reply) (the scorer the
//! bert-score oracle checks in tests/bertscore/minilm.rs); `report` (text, JSON, CSV) gives its
//! mean; `correlate --folio-i-metric bertscore-minilm` takes it as folio-i's score and
//! leaves out, saying so, a run made without a model. The model is the tiny one built
//! here: nothing is downloaded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::tiny_bert;

#[allow(dead_code)]
use crate::common::cli;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The isolated binary, without a MiniLM directory from the developer's shell.
fn bin(home: &Path) -> Command {
    let mut c = cli::bin_in(home);
    c.env_remove("AUTOEVAL_BERTSCORE_MODEL");
    c
}

fn folio_i(home: &Path, out: &Path, rate: &str, model: Option<&Path>) {
    let mut c = bin(home);
    c.args(["run", "--task", "folio-i", "--limit", "8", "--quiet"])
        .args(["--model", "perturb", "--perturb-rate", rate])
        .arg("--out")
        .arg(out);
    if let Some(m) = model {
        c.arg("--bertscore-model").arg(m);
    }
    cli::ok(&c.output().unwrap());
}

fn report(home: &Path, dir: &Path, format: &str) -> String {
    cli::ok(
        &bin(home)
            .args(["report", "--format", format])
            .arg(dir)
            .output()
            .unwrap(),
    )
}

/// `metrics pairs --bertscore-model` on (reference, text) pairs: one F1 each.
fn metrics_pairs(home: &Path, model: &Path, pairs: &[(String, String)]) -> Vec<f64> {
    let input: String = pairs
        .iter()
        .map(|(a, b)| serde_json::json!({"a": a, "b": b}).to_string() + "\n")
        .collect();
    let out = cli::fed(
        bin(home)
            .args(["metrics", "pairs", "-", "--bertscore-model"])
            .arg(model),
        &input,
    );
    cli::ok(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["bertscore_minilm"]
                .as_f64()
                .unwrap()
        })
        .collect()
}

#[test]
fn folio_i_stores_reports_and_correlates_bertscore_minilm() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let model = root.path().join("model");
    let runs = root.path().join("runs");
    for d in [&home, &model, &runs] {
        std::fs::create_dir_all(d).unwrap();
    }
    tiny_bert::tiny_model(&model);
    for rate in ["0.1", "0.5", "0.9"] {
        folio_i(&home, &runs.join(rate), rate, Some(&model));
    }

    // Every sample's F1 is the scorer's on (FOLIO's premise, the reply), beside the others.
    let run = runs.join("0.1");
    let recs: Vec<Value> = std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 8);
    let pairs: Vec<(String, String)> = recs
        .iter()
        .map(|r| {
            let t = &r["task"];
            assert!(t["text_scores"]["meteor"].is_f64(), "{t}");
            (
                t["reference"].as_str().unwrap().to_string(),
                r["rounds"][0]["psi"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = metrics_pairs(&home, &model, &pairs);
    let stored: Vec<f64> = recs
        .iter()
        .map(|r| {
            r["task"]["text_scores"]["bertscore_minilm"]
                .as_f64()
                .unwrap_or_else(|| panic!("no bertscore_minilm: {r}"))
        })
        .collect();
    for (s, w) in stored.iter().zip(&want) {
        assert!((s - w).abs() < 1e-6, "stored {s}, metrics pairs {w}");
    }
    assert!(
        stored.iter().any(|&s| (s - stored[0]).abs() > 1e-9),
        "{stored:?}"
    );

    // report: the mean in JSON and text, and a CSV column.
    let mean = stored.iter().sum::<f64>() / stored.len() as f64;
    let j: Value = serde_json::from_str(&report(&home, &run, "json")).unwrap();
    let ts = &j["runs"][0]["text_scores"];
    assert!(
        (ts["bertscore_minilm"].as_f64().unwrap() - mean).abs() < 1e-9,
        "{ts}"
    );
    assert_eq!(ts["bertscore_n"], 8);
    let text = report(&home, &run, "table");
    assert!(
        text.contains(&format!("BERTScore-MiniLM F1 {mean:.3}")),
        "{text}"
    );
    let csv = report(&home, &run, "csv");
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().ends_with(",bertscore_minilm,a2"),
        "{csv}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .ends_with(&format!(",{mean:.6},1.000000")),
        "{csv}"
    );

    // correlate: folio-i's score is its mean F1; a run without a model is left out, said.
    folio_i(&home, &runs.join("plain"), "0.3", None);
    let scores = root.path().join("other.csv");
    std::fs::write(
        &scores,
        "model,benchmark,score\nperturb:perturb-0.1,other,0.9\nperturb:perturb-0.5,other,0.6\n\
         perturb:perturb-0.9,other,0.2\nperturb:perturb-0.3,other,0.7\n",
    )
    .unwrap();
    let out = bin(&home)
        .args(["correlate", "--format", "json", "--bootstrap", "100"])
        .args(["--x", "other", "--folio-i-metric", "bertscore-minilm"])
        .arg("--scores")
        .arg(&scores)
        .arg(&runs)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.contains("has no BERTScore-MiniLM F1") && err.contains("plain"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&cli::ok(&out)).unwrap();
    let p = v
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["y"] == "folio-i")
        .unwrap();
    assert_eq!(p["n"], 3, "{p}");
    for m in p["models"].as_array().unwrap() {
        let rate = m["model"]
            .as_str()
            .unwrap()
            .trim_start_matches("perturb:perturb-");
        let j: Value = serde_json::from_str(&report(&home, &runs.join(rate), "json")).unwrap();
        assert_eq!(
            m["y"], j["runs"][0]["text_scores"]["bertscore_minilm"],
            "{m}"
        );
    }
}
