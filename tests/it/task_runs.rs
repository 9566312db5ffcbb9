//! `run --task` through the binary: every reference task with the offline model, a
//! server's replies read by the marked final answer, resume, the response cache, batch
//! files, `folio-a` verified against FOLIO's FOL, `folio-i` scored, and `report`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok, stderr};
use common::{Reply, Server, openai_body, prompt_of, samples};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::Ordering;

fn report_json(dir: &Path) -> Value {
    let out = ok(&bin()
        .args(["report", "--format", "json"])
        .arg(dir)
        .output()
        .unwrap());
    serde_json::from_str(&out).unwrap()
}

fn task_cmd(base: &str, out: &Path, task: &str, extra: &[&str]) -> std::process::Command {
    let mut c = bin();
    c.args(["run", "--task", task, "--model", "openai:fake", "--quiet"])
        .arg("--base-url")
        .arg(format!("{base}/v1"))
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("OPENAI_API_KEY", "sk-never-written-4")
        .env("AUTOEVAL_CACHE_DIR", format!("{}.cache", out.display()));
    c
}

#[test]
fn every_task_runs_with_the_offline_model_and_reports_its_scores() {
    let tmp = tempfile::tempdir().unwrap();
    for task in [
        "folio-r-nl",
        "folio-r-fol",
        "folio-a",
        "folio-i",
        "multi-logieval-pl",
        "multi-logieval-fol",
    ] {
        let out = tmp.path().join(task);
        ok(&bin()
            .args([
                "run", "--task", task, "--model", "perturb", "--limit", "10", "--quiet", "--out",
            ])
            .arg(&out)
            .output()
            .unwrap());
        let recs = samples(&out);
        assert_eq!(recs.len(), 10, "{task}");
        assert!(recs.iter().all(|r| r["task"]["name"] == task), "{task}");
        let m: Value = common::manifest(&out);
        assert_eq!(m["task"], task);
        assert_eq!(m["status"], "finished");
        let rep = report_json(&out);
        let r = &rep["runs"][0];
        assert_eq!(r["task"], task);
        assert_eq!(r["n"], 10);
        if task == "folio-i" {
            assert!(r["accuracy"].is_null());
            assert!(r["text_scores"]["meteor"].as_f64().unwrap() > 0.0);
            // No model: BERTScore-MiniLM is said to be absent, never a 0.
            let ts = &r["text_scores"];
            assert!(
                ts["bertscore_minilm"].is_null() && ts["bertscore_n"] == 0,
                "{ts}"
            );
            assert!(
                !std::fs::read_to_string(out.join("samples.jsonl"))
                    .unwrap()
                    .contains("bertscore")
            );
            let text = ok(&bin().arg("report").arg(&out).output().unwrap());
            assert!(text.contains("BERTScore-MiniLM not computed"), "{text}");
            let o = bin()
                .args([
                    "correlate",
                    "--x",
                    "folio-i",
                    "--folio-i-metric",
                    "bertscore-minilm",
                ])
                .arg(&out)
                .output()
                .unwrap();
            assert!(
                stderr(&o).contains("folio-i has no BERTScore-MiniLM F1"),
                "{}",
                stderr(&o)
            );
        } else {
            let correct = recs
                .iter()
                .filter(|x| x["verdict"]["verdict"] == "equivalent")
                .count();
            let a = r["accuracy"].as_f64().unwrap();
            assert!((a - correct as f64 / 10.0).abs() < 1e-12, "{task}: {a}");
        }
        if task.starts_with("multi") {
            assert_eq!(r["by"], "depth");
            // --limit spreads over the five depths.
            assert_eq!(r["by_category"].as_array().unwrap().len(), 5, "{r}");
        }
        if task.contains("-r-") || task.starts_with("multi") {
            assert!(r["balanced_accuracy"].as_f64().is_some());
            let conf = r["confusion"].as_object().unwrap();
            let total: u64 = conf
                .values()
                .flat_map(|row| row.as_object().unwrap().values())
                .map(|v| v.as_u64().unwrap())
                .sum();
            assert_eq!(total, 10);
            let unknown = recs
                .iter()
                .filter(|x| x["task"]["answer"].is_null())
                .count();
            assert_eq!(r["unknown"], unknown);
            assert_eq!(r["unknown_items"].as_array().unwrap().len(), unknown);
        }
    }
    // The text report names the scores.
    let text = ok(&bin()
        .arg("report")
        .arg(tmp.path().join("multi-logieval-pl"))
        .output()
        .unwrap());
    assert!(
        text.contains("balanced accuracy") && text.contains("gold \\ answer"),
        "{text}"
    );
}

/// A model that reasons past other labels and marks its final answer `No`.
fn answers_no() -> Server {
    Server::start(|_, r| {
        let p = prompt_of(r);
        assert!(p.contains("Question:"), "{p}");
        Reply::json(
            200,
            openai_body(
                "Reasoning steps: at first the answer seemed to be yes, but the second rule \
                 blocks it.\n\n**Answer:** No",
            ),
        )
    })
}

#[test]
fn a_server_task_run_reads_the_marked_answer_resumes_and_reuses_the_cache() {
    let s = answers_no();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ml");
    let first = task_cmd(
        &s.base,
        &out,
        "multi-logieval-pl",
        &["--limit", "4", "--cache"],
    )
    .output()
    .unwrap();
    ok(&first);
    assert_eq!(s.hits.load(Ordering::SeqCst), 4);
    // The summary speaks of answers, not of equivalent formulas: the server always says
    // "no", so every answer is right or wrong, none equivalent.
    let err = stderr(&first);
    let summary = err
        .lines()
        .find(|l| l.contains("samples this time"))
        .unwrap_or("");
    let told: usize = ["right", "wrong"]
        .iter()
        .filter_map(|w| {
            let at = summary.find(&format!(" {w}"))?;
            summary[..at]
                .rsplit(['(', ' '])
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert_eq!(told, 4, "{err}");
    assert!(!summary.contains("equivalent"), "{err}");
    ok(&task_cmd(
        &s.base,
        &out,
        "multi-logieval-pl",
        &["--limit", "10", "--resume", "--cache"],
    )
    .output()
    .unwrap());
    // Resume asks only the six new samples.
    assert_eq!(s.hits.load(Ordering::SeqCst), 10);
    let recs = samples(&out);
    assert_eq!(recs.len(), 10);
    assert!(recs.iter().all(|r| r["task"]["answer"] == "no"));
    let no = recs.iter().filter(|r| r["task"]["gold"] == "no").count();
    let rep = report_json(&out);
    let a = rep["runs"][0]["accuracy"].as_f64().unwrap();
    assert!((a - no as f64 / 10.0).abs() < 1e-12);
    assert_eq!(rep["runs"][0]["confusion"]["yes"]["no"], 10 - no);
    // A second run at temperature 0 with the same cache asks nothing.
    let again = tmp.path().join("again");
    ok(&task_cmd(
        &s.base,
        &again,
        "multi-logieval-pl",
        &["--limit", "10", "--cache"],
    )
    .env("AUTOEVAL_CACHE_DIR", format!("{}.cache", out.display()))
    .output()
    .unwrap());
    assert_eq!(s.hits.load(Ordering::SeqCst), 10);
    assert!(
        samples(&again)
            .iter()
            .all(|r| r["rounds"][0]["informalize"]["cached"] == true)
    );
    // A resumed run must keep its task.
    let o = task_cmd(
        &s.base,
        &out,
        "multi-logieval-fol",
        &["--resume", "--cache"],
    )
    .output()
    .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("dataset kind"), "{}", stderr(&o));
}

/// FOLIO's English premise → its premise-FOL, from the shipped validation file.
fn folio_premises() -> std::collections::HashMap<String, String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/folio/folio-v0.0-validation.jsonl"),
    )
    .unwrap();
    let mut m = std::collections::HashMap::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let (Some(p), Some(f)) = (v["premises"].as_array(), v["premises-FOL"].as_array()) else {
            continue;
        };
        for (a, b) in p.iter().zip(f) {
            m.insert(
                a.as_str()
                    .unwrap()
                    .trim()
                    .trim_start_matches("[BG]")
                    .trim()
                    .to_string(),
                b.as_str().unwrap().trim().to_string(),
            );
        }
    }
    m
}

#[test]
fn folio_a_verifies_the_reply_against_the_premise_fol_and_folio_i_scores_its_text() {
    let premises = folio_premises();
    let s = Server::start(move |_, r| {
        let p = prompt_of(r);
        let nl = common::FakeModel::block_pub(&p, "[NL DESCRIPTION]").unwrap_or_default();
        // The FOL of the premise for most, a wrong formula for the rest.
        let reply = match premises.get(nl) {
            Some(f) if !nl.len().is_multiple_of(4) => f.clone(),
            Some(f) => format!("¬({f})"),
            None => "no idea".into(),
        };
        Reply::json(200, openai_body(&reply))
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("a");
    ok(&task_cmd(&s.base, &out, "folio-a", &["--limit", "12"])
        .output()
        .unwrap());
    let recs = samples(&out);
    assert_eq!(recs.len(), 12);
    let mut right = 0;
    for r in &recs {
        let nl = r["task"]["conclusion"].as_str().unwrap();
        // ψ is FOLIO's premise, and the reply was verified against premise-FOL.
        assert_eq!(r["rounds"][0]["psi"], nl);
        assert_eq!(r["rounds"][0]["informalize"]["attempts"], 0);
        let v = r["verdict"]["verdict"].as_str().unwrap();
        if nl.len().is_multiple_of(4) {
            assert_eq!(v, "not-equivalent", "{r}");
        } else {
            assert_eq!(v, "equivalent", "{r}");
            right += 1;
        }
    }
    let rep = report_json(&out);
    assert_eq!(rep["runs"][0]["correct"], right);

    let t = Server::start(|_, _| Reply::json(200, openai_body("All dogs bark loudly.")));
    let out = tmp.path().join("i");
    ok(&task_cmd(&t.base, &out, "folio-i", &["--limit", "5"])
        .output()
        .unwrap());
    for r in samples(&out) {
        let reference = r["task"]["reference"].as_str().unwrap();
        let m = autoeval::analysis::meteor::meteor(reference, "All dogs bark loudly.").unwrap();
        let stored = r["task"]["text_scores"]["meteor"].as_f64().unwrap();
        assert!((m - stored).abs() < 1e-12);
        assert!(p_contains_formula(&r));
    }
}

/// The informalization prompt showed FOLIO's formula (never its English premise).
fn p_contains_formula(r: &Value) -> bool {
    r["phi0"].as_str().is_some_and(|f| !f.is_empty())
}

#[test]
fn a_task_runs_through_batch_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let files = tmp.path().join("files");
    let base = |extra: &[String]| {
        let o = bin()
            .args(["run", "--task", "folio-r-fol", "--limit", "3"])
            .args(["--model", "openai:fake", "--quiet", "--out"])
            .arg(&out)
            .args(extra)
            .env_remove("OPENAI_API_KEY")
            .env("AUTOEVAL_CACHE_DIR", tmp.path().join("cache"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&ok(&o).into_bytes()).into_owned()
    };
    let written = base(&["--batch-file-out".into(), files.display().to_string()]);
    let files_out: Vec<&str> = written.lines().collect();
    assert_eq!(files_out.len(), 1, "{written}");
    let mut results = Vec::new();
    for line in std::fs::read_to_string(files_out[0]).unwrap().lines() {
        let q: Value = serde_json::from_str(line).unwrap();
        let prompt = q["body"]["messages"][0]["content"].as_str().unwrap();
        assert!(prompt.contains("True/False/Uncertain") && prompt.contains("[CONCLUSION]"));
        let body: Value =
            serde_json::from_str(&openai_body("Reasoning Steps: none.\nAnswer: Uncertain"))
                .unwrap();
        results.push(
            json!({"id": "v", "custom_id": q["custom_id"], "response": {"status_code": 200, "body": body}, "error": null})
                .to_string(),
        );
    }
    assert_eq!(results.len(), 3);
    let res = tmp.path().join("results.jsonl");
    std::fs::write(&res, results.join("\n") + "\n").unwrap();
    base(&[
        "--resume".into(),
        "--batch-file-in".into(),
        res.display().to_string(),
    ]);
    let recs = samples(&out);
    assert_eq!(recs.len(), 3);
    assert!(recs.iter().all(|r| r["task"]["answer"] == "Uncertain"));
}

#[test]
fn bad_task_settings_are_refused_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let o = bin()
        .args([
            "run", "--task", "folio-a", "--model", "perturb", "--rounds", "2", "--out",
        ])
        .arg(tmp.path().join("r"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--rounds"), "{}", stderr(&o));
    // A BERTScore model for a task scored by its answers: refused (it would score nothing).
    let o = bin()
        .args([
            "run",
            "--task",
            "folio-r-nl",
            "--model",
            "perturb",
            "--bertscore-model",
        ])
        .arg(tmp.path().join("no-model"))
        .arg("--out")
        .arg(tmp.path().join("b"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("folio-r-nl is scored by its answers, not by text metrics"),
        "{}",
        stderr(&o)
    );
    assert!(!tmp.path().join("b").join("samples.jsonl").exists());
    let o = bin()
        .args([
            "run",
            "--task",
            "folio-r-nl",
            "--model",
            "perturb",
            "--task-data",
        ])
        .arg(tmp.path().join("missing.jsonl"))
        .arg("--out")
        .arg(tmp.path().join("r2"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--task-data"), "{}", stderr(&o));
    // An edited task template that drops a placeholder the model must see.
    let dir = tmp.path().join("prompts");
    ok(&bin()
        .args(["prompts", "--export"])
        .arg(&dir)
        .output()
        .unwrap());
    std::fs::write(
        dir.join("task-multi-logieval.txt"),
        "Context: {premises}\nAnswer:\n",
    )
    .unwrap();
    let o = bin()
        .args([
            "run",
            "--task",
            "multi-logieval-pl",
            "--model",
            "perturb",
            "--prompts",
        ])
        .arg(&dir)
        .arg("--out")
        .arg(tmp.path().join("r3"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("task-multi-logieval.txt") && stderr(&o).contains("{conclusion}"),
        "{}",
        stderr(&o)
    );
    assert!(!tmp.path().join("r3").join("run.json").exists());
}

#[test]
fn correlate_reads_task_runs_and_pairs_by_operator_count() {
    let tmp = tempfile::tempdir().unwrap();
    // Three synthetic models: ∀uto∃∨∧L FOL runs and folio-r-fol and folio-i runs.
    for (rate, seed) in [("0.1", "1"), ("0.4", "2"), ("0.7", "3")] {
        let m = [
            "--model",
            "perturb",
            "--perturb-rate",
            rate,
            "--model-seed",
            seed,
        ];
        ok(&bin()
            .args(["run", "--kind", "fol", "--per-category", "2", "--quiet"])
            .args(m)
            .arg("--out")
            .arg(tmp.path().join(format!("fol-{rate}")))
            .output()
            .unwrap());
        for task in ["folio-r-fol", "folio-i"] {
            ok(&bin()
                .args(["run", "--task", task, "--limit", "24", "--quiet"])
                .args(m)
                .arg("--out")
                .arg(tmp.path().join(format!("{task}-{rate}")))
                .output()
                .unwrap());
        }
    }
    let json = |extra: &[&str]| -> Value {
        let out = ok(&bin()
            .args(["correlate", "--format", "json", "--bootstrap", "200"])
            .arg(tmp.path())
            .args(extra)
            .output()
            .unwrap());
        serde_json::from_str(&out).unwrap()
    };
    let v = json(&[]);
    let pairs = v.as_array().unwrap();
    let folio = pairs.iter().find(|p| p["y"] == "folio-r-fol").unwrap();
    assert_eq!(folio["x"], "autoeval-fol");
    assert_eq!(folio["n"], 3);
    // The task run contributes its accuracy, as `report` gives it.
    for m in folio["models"].as_array().unwrap() {
        let rate = m["model"]
            .as_str()
            .unwrap()
            .trim_start_matches("perturb:perturb-");
        let rep = report_json(&tmp.path().join(format!("folio-r-fol-{rate}")));
        assert_eq!(m["y"], rep["runs"][0]["accuracy"], "{m}");
    }
    let meteor = pairs.iter().find(|p| p["y"] == "folio-i").unwrap();
    for m in meteor["models"].as_array().unwrap() {
        let rate = m["model"]
            .as_str()
            .unwrap()
            .trim_start_matches("perturb:perturb-");
        let rep = report_json(&tmp.path().join(format!("folio-i-{rate}")));
        assert_eq!(m["y"], rep["runs"][0]["text_scores"]["meteor"], "{m}");
    }
    // Fig. 17: one point per model and operator count (0–6 by default), on both sides.
    let v = json(&["--by-category"]);
    let p = v
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["y"] == "folio-r-fol")
        .unwrap();
    let n = p["n"].as_u64().unwrap();
    assert!(n > 3, "{p}");
    for m in p["models"].as_array().unwrap() {
        let name = m["model"].as_str().unwrap();
        let ops: usize = name.rsplit(' ').next().unwrap().parse().unwrap();
        assert!(name.contains(" · operators ") && ops <= 6, "{name}");
    }
    let text = ok(&bin()
        .args(["correlate", "--by-category", "--bootstrap", "100"])
        .arg(tmp.path())
        .arg("--plot")
        .arg(tmp.path().join("fig17.svg"))
        .output()
        .unwrap());
    assert!(text.contains("folio-r-fol"), "{text}");
    assert!(
        std::fs::read_to_string(tmp.path().join("fig17.svg"))
            .unwrap()
            .contains("<svg")
    );
}

#[test]
fn a_task_dry_run_counts_one_call_per_sample_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dry");
    let text = ok(&bin()
        .args([
            "run",
            "--task",
            "multi-logieval-fol",
            "--limit",
            "12",
            "--dry-run",
        ])
        .args(["--model", "perturb", "--out"])
        .arg(&out)
        .output()
        .unwrap());
    assert!(text.contains("12 samples to do"), "{text}");
    assert!(text.contains("calls: 12 in round 1"), "{text}");
    assert!(!out.exists());
}
