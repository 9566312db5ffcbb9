//! Report arithmetic against hand-worked numbers; judge and import end to end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use autoeval::llm::ModelInfo;
use autoeval::llm::judge::JudgeAnswer;
use autoeval::record::*;
use autoeval::report::{By, load_run, report_run};
use autoeval::run::store::{Appender, write_manifest};
use autoeval::syntax::SyntaxKind;
use autoeval::verify::{Countermodel, Verdict};
use common::cli::bin;
use std::path::Path;

fn model() -> ModelInfo {
    ModelInfo {
        provider: "openai".into(),
        name: "m".into(),
        base_url: None,
        api_key_env: None,
        synthetic: false,
    }
}

fn manifest(id: &str) -> Manifest {
    Manifest {
        format: FORMAT.into(),
        id: id.into(),
        created: now_rfc3339(),
        tool_version: "t".into(),
        command: vec![],
        dataset: DatasetInfo {
            sha256: None,
            kind: "pl".into(),
            syntax: SyntaxKind::Pl,
            path: None,
            seed: None,
            params: Default::default(),
            items: 0,
            filter_field: "num_operators".into(),
        },
        model: model(),
        temperature: Some(0.1),
        max_tokens: 10,
        prompts: PromptInfo {
            source: "built-in".into(),
            shots: 0,
            hash: "h".into(),
        },
        rounds: 1,
        verifier_timeout_ms: 5000,
        concurrency: 1,
        status: "finished".into(),
        updated: None,
        task: None,
        extra: Default::default(),
    }
}

/// A sample whose round 1 answered (`phi1` parsed or not) with `verdict`.
fn sample(
    id: &str,
    ops: usize,
    batch: usize,
    answered: bool,
    parsed: bool,
    verdict: Verdict,
) -> SampleRecord {
    let call = CallRecord {
        prompt_id: "p".into(),
        output: Some("x".into()),
        ..Default::default()
    };
    SampleRecord {
        id: id.into(),
        idx: 0,
        batch: Some(batch),
        syntax: SyntaxKind::Pl,
        phi0: "p1".into(),
        phi0_original: "p1".into(),
        num_operators: Some(ops),
        depth: None,
        rounds: vec![RoundRecord {
            round: 1,
            input: "p1".into(),
            informalize: call.clone(),
            psi: Some("x".into()),
            autoformalize: answered.then_some(call),
            phi1: parsed.then(|| "p1".to_string()),
            phi1_span: None,
            verdict: verdict.clone(),
            verify_ms: 0.0,
        }],
        verdict,
        rounds_passed: 0,
        closeness: None,
        input_tokens: 10,
        output_tokens: 5,
        cost_usd: Some(0.001),
        finished: now_rfc3339(),
        task: None,
    }
}

fn eq() -> Verdict {
    Verdict::Equivalent { notes: vec![] }
}
fn neq() -> Verdict {
    Verdict::NotEquivalent {
        countermodel: Countermodel::NoSmallModel { searched_up_to: 1 },
        notes: vec![],
    }
}

fn write_run(dir: &Path, samples: &[SampleRecord], judge: &[(&str, JudgeAnswer)]) {
    std::fs::create_dir_all(dir).unwrap();
    write_manifest(dir, &manifest("r")).unwrap();
    let mut a = Appender::open(&dir.join("samples.jsonl")).unwrap();
    for s in samples {
        a.append(s).unwrap();
    }
    let mut j = Appender::open(&dir.join("judge.jsonl")).unwrap();
    for (id, ans) in judge {
        j.append(&JudgeRecord {
            id: id.to_string(),
            model: ModelInfo {
                name: "judge".into(),
                ..model()
            },
            answer: *ans,
            call: CallRecord::default(),
            verifier: String::new(),
            time: now_rfc3339(),
        })
        .unwrap();
    }
}

#[test]
fn compliance_accuracy_and_judge_metrics_match_hand_counts() {
    let dir = tempfile::tempdir().unwrap();
    // Operators 1: a pass, a fail, an unparseable answer. Operators 2: a pass, a copy (never
    // autoformalized), a model error (no answer). Batches 0 and 1.
    let s = vec![
        sample("a", 1, 0, true, true, eq()),
        sample("b", 1, 0, true, true, neq()),
        sample(
            "c",
            1,
            0,
            true,
            false,
            Verdict::Unparseable {
                pos: 0,
                reason: "x".into(),
            },
        ),
        sample("d", 2, 1, true, true, eq()),
        sample(
            "e",
            2,
            1,
            false,
            false,
            Verdict::Copied {
                span: (0, 1),
                detail: "x".into(),
            },
        ),
        sample(
            "f",
            2,
            1,
            false,
            false,
            Verdict::ModelError {
                message: "x".into(),
            },
        ),
    ];
    use JudgeAnswer::*;
    // a: eq/yes TP · b: neq/yes FP · d: eq/no FN · c: unparseable; a judged twice, newest (Yes) counts.
    let judge = [
        ("a", No),
        ("a", Yes),
        ("b", Yes),
        ("d", No),
        ("c", Unparseable),
    ];
    write_run(dir.path(), &s, &judge);
    let r = report_run(&load_run(dir.path()).unwrap(), By::Operators);
    assert_eq!(
        (
            r.total.n,
            r.total.answered,
            r.total.compliant,
            r.total.accurate
        ),
        (6, 4, 3, 2)
    );
    assert_eq!(r.total.compliance(), Some(0.75));
    assert!((r.total.accuracy().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    let c1 = &r.by_category[&1];
    assert_eq!((c1.n, c1.answered, c1.compliant, c1.accurate), (3, 3, 2, 1));
    let c2 = &r.by_category[&2];
    assert_eq!((c2.n, c2.answered, c2.compliant, c2.accurate), (3, 1, 1, 1));
    assert_eq!(r.batch_accuracy, vec![1.0 / 3.0, 1.0 / 3.0]);
    assert_eq!(r.verdicts["copied"], 1);
    let j = &r.judges[0];
    assert_eq!((j.tp, j.fp, j.tn, j.fn_, j.unparseable), (1, 1, 0, 1, 1));
    assert_eq!(j.precision(), Some(0.5));
    assert_eq!(j.recall(), Some(0.5));
    assert_eq!(j.specificity(), Some(0.0));
    assert_eq!(j.f1(), Some(0.5));
    assert_eq!(r.tokens, (60, 30));
    assert!((r.cost_usd.unwrap() - 0.006).abs() < 1e-12);
    for fmt in ["table", "markdown", "json", "csv"] {
        let o = bin()
            .arg("report")
            .arg(dir.path())
            .args(["--format", fmt])
            .output()
            .unwrap();
        assert!(o.status.success(), "{fmt}");
        assert!(!o.stdout.is_empty());
    }
    let o = bin()
        .arg("report")
        .arg(dir.path())
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][0]["total"]["accurate"], 2);
}

#[test]
fn mean_and_std_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    write_run(
        &a,
        &[
            sample("1", 1, 0, true, true, eq()),
            sample("2", 1, 0, true, true, eq()),
        ],
        &[],
    );
    write_run(
        &b,
        &[
            sample("1", 1, 0, true, true, eq()),
            sample("2", 1, 0, true, true, neq()),
        ],
        &[],
    );
    let reps: Vec<_> = [&a, &b]
        .iter()
        .map(|d| report_run(&load_run(d).unwrap(), By::Operators))
        .collect();
    let across = autoeval::report::across_runs(&reps);
    let (n, m, s) = across.values().next().copied().unwrap();
    assert_eq!(n, 2);
    assert!((m - 0.75).abs() < 1e-12);
    // Sample std of {1.0, 0.5} is √0.125.
    assert!((s - 0.125f64.sqrt()).abs() < 1e-12);
}

#[test]
fn judge_cli_appends_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    common::cli::offline_run(&out, "12");
    for _ in 0..2 {
        let o = bin()
            .arg("judge")
            .arg(&out)
            .args(["--model", "perturb"])
            .output()
            .unwrap();
        common::cli::ok(&o);
    }
    let judged = autoeval::run::store::read_jsonl::<JudgeRecord>(&out.join("judge.jsonl")).unwrap();
    assert_eq!(
        judged.records.len(),
        12,
        "the second pass skips judged samples"
    );
    let r = report_run(&load_run(&out).unwrap(), By::Operators);
    let j = &r.judges[0];
    assert_eq!(j.tp + j.fp + j.tn + j.fn_ + j.unparseable, 12);
    assert_eq!(
        j.fp, 0,
        "the synthetic judge says yes only for identical formulas"
    );
}

#[test]
fn import_keeps_stored_verdicts_and_reverify_lists_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dataset_nlfs_gpt-4o_verified.json");
    std::fs::write(
        &file,
        r#"{"info": {"type": "dataset", "filter_field": "num_operators", "seed": 3}, "verified": true,
           "data": [
             {"idx": 0, "fs": "(p1 ∧ p2)", "num_operators": 1, "depth": 2, "llm_fs": "p2 ∧ p1", "cost": 0.01, "error": null,
              "conversations": [{"role": "user", "content": "describe"}, {"role": "assistant", "content": "p1 and p2 both hold"}, "RESET",
                                {"role": "user", "content": "formalize"}, {"role": "assistant", "content": "p2 ∧ p1"}],
              "verification": {"is_equivalent": true, "has_error": null, "time": "0:00:00"},
              "llm_verification": {"gpt-4o": {"is_equivalent": true, "has_error": null, "time": "0:00:01"}}},
             {"idx": 1, "fs": "(p1 v p2)", "num_operators": 1, "depth": 2, "llm_fs": "p1 ∧ p2", "cost": 0.01, "error": null,
              "verification": {"is_equivalent": true, "has_error": null, "time": "0:00:00"}},
             {"idx": 2, "fs": "¬p3", "num_operators": 0, "depth": 1, "llm_fs": null, "cost": 0, "error": "rate limited"}
           ]}"#,
    )
    .unwrap();
    let out = dir.path().join("imported");
    let o = bin()
        .arg("import")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    common::cli::ok(&o);
    let run = load_run(&out).unwrap();
    assert_eq!(run.manifest.model.name, "gpt-4o");
    let v: Vec<&str> = run.samples.iter().map(|s| s.verdict.name()).collect();
    assert_eq!(
        v,
        ["equivalent", "equivalent", "model-error"],
        "stored verdicts kept"
    );
    assert_eq!(
        run.samples[0].rounds[0].psi.as_deref(),
        Some("p1 and p2 both hold")
    );
    assert_eq!(run.judge.len(), 1);

    let out2 = dir.path().join("reverified");
    let o = bin()
        .arg("import")
        .arg(&file)
        .arg("--out")
        .arg(&out2)
        .arg("--reverify")
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1 disagreement"), "{text}");
    assert!(
        text.contains("sample 1: stored equivalent, ours not-equivalent"),
        "{text}"
    );
    let run = load_run(&out2).unwrap();
    assert_eq!(run.samples[1].verdict.name(), "not-equivalent");
    assert!(matches!(
        &run.samples[1].verdict,
        Verdict::NotEquivalent {
            countermodel: Countermodel::Assignment { .. },
            ..
        }
    ));
}

/// The report read from the row index matches the one computed from full records,
/// builds its cache on the first call, reads it on the second, and notices appends
/// and rewrites.
#[test]
fn report_through_the_row_index_matches_full_records_cold_warm_and_after_changes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    common::cli::perturb_run(&out, "3", &[]);
    let o = bin()
        .args(["judge", "--model", "perturb"])
        .arg(&out)
        .output()
        .unwrap();
    common::cli::ok(&o);
    let json = |dir: &Path| {
        let o = bin()
            .args(["report", "--format", "json"])
            .arg(dir)
            .output()
            .unwrap();
        common::cli::ok(&o);
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let index = out.join(autoeval::run::index::INDEX);
    assert!(index.exists(), "a run leaves its row index");
    // Without it (a run copied without the cache, or an older version's run).
    std::fs::remove_file(&index).unwrap();
    let cold = json(&out);
    assert!(
        index.exists(),
        "the first report leaves the row index beside the run"
    );
    let stamp = std::fs::metadata(&index).unwrap().modified().unwrap();
    let warm = json(&out);
    assert_eq!(cold, warm);
    assert_eq!(
        std::fs::metadata(&index).unwrap().modified().unwrap(),
        stamp,
        "a warm report reads the index, it does not rewrite it"
    );
    // The same numbers as the report built from full records (closeness sums may
    // differ in the last bits: they are added in another order).
    let full = report_run(&load_run(&out).unwrap(), By::Operators);
    let mut full = serde_json::to_value(vec![full]).unwrap();
    let strip = |v: &mut serde_json::Value| {
        for r in v.as_array_mut().unwrap() {
            let c = r["closeness"].take();
            let c: Vec<f64> = serde_json::from_value(c).unwrap();
            r["closeness"] =
                serde_json::json!(c.iter().map(|x| (x * 1e9).round()).collect::<Vec<_>>());
            // Interval bounds pass through text: compare them to 1e-9 as well.
            round_floats(&mut r["intervals"]);
            // So do the per-metric means (sums in another order).
            round_floats(&mut r["closeness_metrics"]);
        }
    };
    let mut warm_runs = warm["runs"].clone();
    strip(&mut warm_runs);
    strip(&mut full);
    assert_eq!(warm_runs, full);
    assert!(full[0]["judges"].as_array().is_some_and(|j| !j.is_empty()));
    // A retried sample appended later: its latest line counts.
    let text = std::fs::read_to_string(out.join("samples.jsonl")).unwrap();
    let first = text.lines().next().unwrap();
    let rec: SampleRecord = serde_json::from_str(first).unwrap();
    let mut retried = rec.clone();
    retried.verdict = Verdict::ModelError {
        message: "retried".into(),
    };
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join("samples.jsonl"))
        .unwrap();
    use std::io::Write;
    writeln!(f, "{}", serde_json::to_string(&retried).unwrap()).unwrap();
    drop(f);
    let after = json(&out);
    let n = |v: &serde_json::Value| v["runs"][0]["total"]["n"].as_u64().unwrap();
    assert_eq!(n(&after), n(&warm), "a retried sample is still one sample");
    assert_eq!(
        after["runs"][0]["verdicts"]["model-error"].as_u64(),
        Some(1)
    );
    // Rewritten in place of the original (as rescore --in-place does): indexed again.
    let tmp = out.join("samples.new");
    std::fs::write(&tmp, &text).unwrap();
    std::fs::rename(&tmp, out.join("samples.jsonl")).unwrap();
    assert_eq!(json(&out), warm);
}

/// Rounds every float in a JSON value to 1e-9 (JSON text need not round-trip the last bit).
fn round_floats(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Number(n) if n.is_f64() => {
            *v = serde_json::json!((n.as_f64().unwrap_or(0.0) * 1e9).round());
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(round_floats),
        serde_json::Value::Object(o) => o.values_mut().for_each(round_floats),
        _ => {}
    }
}
