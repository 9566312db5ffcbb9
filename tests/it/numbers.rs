//! Honest numbers: one A2/A3 definition everywhere, rescoring stored replies,
//! batch verification from the CLI, import that keeps ψ and counts disagreements.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::record::SampleRecord;
use autoeval::report::{By, Counts, load_run, report_run};
use autoeval::tui::build_app;
use common::cli::bin;
use std::path::{Path, PathBuf};

fn perturb_run(dir: &Path, kind: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(format!("{kind}-run"));
    let rate = if extra.contains(&"--perturb-rate") {
        &[][..]
    } else {
        &["--perturb-rate", "0.5"][..]
    };
    let o = bin()
        .args(["run", "--kind", kind, "--seed", "3", "--per-category", "2"])
        .args(["--model", "perturb", "--quiet"])
        .args(rate)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    common::cli::ok(&o);
    out
}

fn records(dir: &Path) -> Vec<SampleRecord> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_records(dir: &Path, recs: &[SampleRecord]) {
    let mut text = String::new();
    for r in recs {
        text.push_str(&serde_json::to_string(r).unwrap());
        text.push('\n');
    }
    std::fs::write(dir.join("samples.jsonl"), text).unwrap();
}

#[test]
fn a2_and_a3_agree_between_report_chart_and_csv_on_a_multi_round_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = perturb_run(dir.path(), "pl", &["--rounds", "2"]);
    // A sample whose round 1 passed and whose round 2 reply did not parse: round 1 alone
    // says "compliant", the final verdict says not. One definition must decide.
    let mut recs = records(&run);
    let i = recs
        .iter()
        .position(|r| r.rounds.len() == 2 && r.verdict.is_equivalent())
        .expect("a sample that passed both rounds");
    let v = autoeval::verify::Verdict::Unparseable {
        pos: 0,
        reason: "unexpected character '['".into(),
    };
    recs[i].rounds[1].phi1 = None;
    recs[i].rounds[1].verdict = v.clone();
    recs[i].verdict = v;
    recs[i].rounds_passed = 1;
    write_records(&run, &recs);

    let report = report_run(&load_run(&run).unwrap(), By::Operators);
    let mut want = Counts::default();
    for r in &recs {
        want.add_kind(r.verdict.kind());
    }
    assert_eq!(report.total, want);
    assert!(report.total.compliant < report.total.answered);

    let (app, _) = build_app(&screens::options(vec![run.clone()]));
    let chart = app.model.derived.chart.clone();
    assert_eq!(chart.len(), 1);
    let mut from_chart = Counts::default();
    for (bucket, c) in &chart[0].1 {
        assert_eq!(Some(c), report.by_category.get(bucket), "bucket {bucket}");
        from_chart.merge(c);
    }
    assert_eq!(from_chart, report.total);

    let o = bin()
        .args(["report", "--format", "csv"])
        .arg(&run)
        .output()
        .unwrap();
    let mut rd = csv::Reader::from_reader(o.stdout.as_slice());
    let head = rd.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let all = rd
        .records()
        .map(|r| r.unwrap())
        .find(|r| &r[col("category")] == "all")
        .expect("total row");
    let got: Vec<&str> = ["n", "answered", "compliant", "accurate"]
        .iter()
        .map(|c| &all[col(c)])
        .collect();
    assert_eq!(
        got,
        [
            want.n.to_string(),
            want.answered.to_string(),
            want.compliant.to_string(),
            want.accurate.to_string()
        ]
    );
}

#[test]
fn rescore_reproduces_a_run_and_reports_an_extractor_fix() {
    let dir = tempfile::tempdir().unwrap();
    let run = perturb_run(dir.path(), "pl", &[]);
    let o = bin().arg("rescore").arg(&run).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(text.contains(": 0 changed"), "{text}");
    let before = records(&run);
    let after = records(&dir.path().join("pl-run-rescored"));
    assert_eq!(before.len(), after.len());
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(a.verdict.kind(), b.verdict.kind(), "{}", a.id);
    }

    // What the old extractor did with a model that echoes the prompt: `[VOCABULARY]`
    // read as a proposition, counted as a compliant, wrong answer.
    let mut recs = before.clone();
    let i = recs
        .iter()
        .position(|r| r.rounds[0].autoformalize.is_some())
        .unwrap();
    let r = &mut recs[i];
    r.rounds[0].autoformalize.as_mut().unwrap().output =
        Some("[VOCABULARY]\nPropositions: p1, p2".into());
    r.rounds[0].phi1 = Some("VOCABULARY".into());
    r.verdict = autoeval::verify::Verdict::NotEquivalent {
        countermodel: autoeval::verify::Countermodel::NoSmallModel { searched_up_to: 0 },
        notes: vec!["introduces VOCABULARY".into()],
    };
    r.rounds[0].verdict = r.verdict.clone();
    let id = r.id.clone();
    write_records(&run, &recs);
    let o = bin()
        .args(["rescore", "--in-place"])
        .arg(&run)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(text.contains(": 1 changed"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("not-equivalent")
            && l.contains("unparseable")
            && l.contains("changed")),
        "{text}"
    );
    assert!(text.contains("before") && text.contains("after"), "{text}");
    // The rewritten run is indexed again: the cache describes the new file.
    let index = autoeval::run::index::load(&run, false).expect("a fresh row index");
    assert_eq!(
        index.rows.len(),
        records(&run).len(),
        "the index covers the rescored samples"
    );
    let now = records(&run);
    let s = now.iter().find(|s| s.id == id).unwrap();
    match &s.verdict {
        autoeval::verify::Verdict::Unparseable { reason, .. } => {
            assert!(reason.starts_with("off-format"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let backups: Vec<_> = std::fs::read_dir(&run)
        .unwrap()
        .filter_map(std::result::Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("samples.jsonl.bak-")
        })
        .collect();
    assert_eq!(backups.len(), 1, "the old file is kept");
}

#[test]
fn verify_pairs_reads_tsv_and_jsonl_and_keeps_input_order() {
    let input = "p1 ∧ p2\tp2 ∧ p1\n\
                 p1 → p2\t¬p1 ∨ p2\n\
                 {\"a\": \"(01)*\", \"b\": \"(01)*0\", \"syntax\": \"regex\"}\n\
                 p1\tp1 ∧ (p2\n\
                 no tab here\n\
                 ∀x.P(x)\tP(x)\n";
    let o = common::cli::fed(bin().args(["verify", "--pairs", "-"]), input);
    assert_eq!(o.status.code(), Some(2), "one bad line → exit 2");
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    let verdicts: Vec<&str> = lines
        .iter()
        .map(|l| l["verdict"].as_str().unwrap_or("error"))
        .collect();
    assert_eq!(
        verdicts,
        [
            "equivalent",
            "equivalent",
            "not-equivalent",
            "unparseable",
            "error",
            "not-equivalent"
        ]
    );
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["line"], i + 1);
    }
    assert_eq!(lines[2]["syntax"], "regex");
    assert_eq!(lines[0]["a"], "p1 ∧ p2");
    assert_eq!(lines[0]["b"], "p2 ∧ p1");
    assert_eq!(lines[3]["pos_chars"], 5);
    assert!(String::from_utf8_lossy(&o.stderr).contains("-:5: no tab"));

    // From a file, with many pairs: still one line per pair, in order.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("pairs.tsv");
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!("p{i} ∨ p{}\tp{} ∨ p{i}\n", i + 1, i + 1));
    }
    std::fs::write(&f, text).unwrap();
    let o = bin().args(["verify", "--pairs"]).arg(&f).output().unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.lines().count(), 3000);
    for (i, l) in out.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["line"], i + 1);
        assert_eq!(v["verdict"], "equivalent");
    }
}

#[test]
fn verify_json_names_the_syntax_and_echoes_both_inputs() {
    let o = bin()
        .args(["verify", "--json", "¬¬p ∧ q", "¬¬p ∧ )"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["syntax"], "pl", "a propositional pair");
    assert_eq!(v["a"], "¬¬p ∧ q");
    assert_eq!(v["b"], "¬¬p ∧ )");
    assert_eq!(v["pos_chars"], 6);
    assert_eq!(v["caret"], "¬¬p ∧ )\n      ^");
    let o = bin()
        .args(["verify", "--syntax", "regex", "--json", "001", "0(0)1"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["syntax"], "regex");
    assert_eq!(v["verdict"], "equivalent");
    // Text output shows the caret line too.
    let o = bin()
        .args(["verify", "p9", "[VOCABULARY]"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(
        t.contains("unparseable") && t.contains("[VOCABULARY]\n^"),
        "{t}"
    );
}

#[test]
fn import_keeps_psi_from_system_turns_and_counts_error_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dataset_nlfs_qwen_verified.json");
    std::fs::write(
        &file,
        r#"{"info": {"type": "dataset", "filter_field": "num_operators"}, "data": [
          {"idx": 0, "fs": "(p1 ∧ p2)", "num_operators": 1, "llm_fs": "[VOCABULARY]", "error": null,
           "conversations": [{"role": "user", "content": "[TASK] describe\n[FORMULA]\np1 ∧ p2"},
                             {"role": "system", "content": "Both p1 and p2 hold."}, "RESET",
                             {"role": "user", "content": "[TASK] formalize\n[VOCABULARY]\np1, p2\n[NL DESCRIPTION]\nBoth p1 and p2 hold."},
                             {"role": "system", "content": "[VOCABULARY]"}],
           "verification": {"is_equivalent": null, "has_error": "parse error"}},
          {"idx": 1, "fs": "(p1 ∨ p2)", "num_operators": 1, "llm_fs": "p2 ∨ p1", "error": null,
           "conversations": [{"role": "user", "content": "describe"},
                             {"role": "system", "content": "p1 or p2."}, "RESET",
                             {"role": "user", "content": "formalize"},
                             {"role": "system", "content": "p2 ∨ p1"}],
           "verification": {"is_equivalent": null, "has_error": "prover crashed"}},
          {"idx": 2, "fs": "¬p3", "num_operators": 1, "llm_fs": "¬p3", "error": null,
           "verification": {"is_equivalent": true, "has_error": null}}
        ]}"#,
    )
    .unwrap();
    let out = dir.path().join("re");
    let o = bin()
        .arg("import")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .arg("--reverify")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    let run = load_run(&out).unwrap();
    assert_eq!(
        run.samples[0].rounds[0].psi.as_deref(),
        Some("Both p1 and p2 hold.")
    );
    assert_eq!(run.samples[1].rounds[0].psi.as_deref(), Some("p1 or p2."));
    // The echoed header is off-format, not a formula: the stored error agrees (both
    // unparseable); the stored error on sample 1 against our `equivalent` is a
    // disagreement, and the table says which kind.
    assert_eq!(run.samples[0].verdict.name(), "unparseable");
    assert_eq!(run.samples[1].verdict.name(), "equivalent");
    assert!(text.contains("1 disagreement"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("unparseable")
            && l.contains("equivalent")
            && l.contains("disagree")),
        "{text}"
    );
    assert!(
        text.contains("sample 1: stored unparseable, ours equivalent"),
        "{text}"
    );
}

#[test]
fn the_offline_model_perturbs_regexes_only_as_regexes() {
    let dir = tempfile::tempdir().unwrap();
    let run = perturb_run(dir.path(), "regex", &["--perturb-rate", "1"]);
    let recs = records(&run);
    assert!(!recs.is_empty());
    for r in &recs {
        let Some(out) = r.rounds[0]
            .autoformalize
            .as_ref()
            .and_then(|c| c.output.clone())
        else {
            continue;
        };
        assert!(
            !out.contains('¬') && !out.contains("Not"),
            "logic perturbation on a regex: {out}"
        );
        assert!(
            autoeval::syntax::parse_regex(&out).is_ok(),
            "not a regex: {out}"
        );
    }
}

#[test]
fn rescoring_every_shipped_run_changes_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let needs = std::fs::read_to_string(root.join("needs-replies.tsv")).unwrap_or_default();
    let tmp = tempfile::tempdir().unwrap();
    let mut runs = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.join("run.json").exists() {
            continue;
        }
        runs += 1;
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let o = bin()
            .arg("rescore")
            .arg(&dir)
            .arg("--out")
            .arg(tmp.path().join(&name))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{name}: {text}");
        assert!(text.contains(": 0 changed"), "{name}: {text}");
        // Only the samples sample-runs/README.md lists as waiting for a model reply
        // (ψ is no longer a copy, and the run never asked for the autoformalization).
        let shown: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("autoformalization was never asked"))
            .filter_map(|l| l.trim().split(':').next())
            .collect();
        let count = text
            .lines()
            .find(|l| l.contains("need model replies"))
            .and_then(|l| l.split_whitespace().next())
            .map_or(0, |n| n.parse::<usize>().unwrap());
        let listed: Vec<&str> = needs
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter(|(run, _)| *run == name)
            .filter_map(|(_, rest)| rest.split('\t').next())
            .collect();
        assert_eq!(count, listed.len(), "{name}: {text}");
        assert!(shown.iter().all(|id| listed.contains(id)), "{name}: {text}");
    }
    assert!(runs >= 5, "only {runs} shipped runs");
}

#[test]
fn the_viewer_rescores_the_selected_run_with_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let run = perturb_run(dir.path(), "pl", &[]);
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    assert_eq!(app.model.runs.len(), 1);
    // A label on a sample: rescoring must not copy it into a second run.
    app.press("a").unwrap();
    app.press("0").unwrap();
    app.press("esc").unwrap();
    let labelled = |app: &autoeval::tui::app::App| -> usize {
        app.model.runs.iter().map(|r| r.labels.len()).sum()
    };
    assert_eq!(labelled(&app), 1);
    // S asks first: any key but y keeps the run as it is.
    app.press("S").unwrap();
    assert!(app.status.contains("y rescores"), "{}", app.status);
    app.press("n").unwrap();
    assert_eq!(app.status, "not rescored");
    assert!(app.jobs.rescore.is_none());
    for round in 0..2 {
        app.press("S").unwrap();
        app.press("y").unwrap();
        assert!(app.status.contains("rescoring"), "{}", app.status);
        assert!(
            app.pump_until(std::time::Duration::from_secs(60), |a| a
                .status
                .contains("in place")),
            "{}",
            app.status
        );
        assert!(
            app.status.contains("rescored pl-run in place: 0 changed")
                && app.status.contains("kept as samples.jsonl.bak-"),
            "round {round}: {}",
            app.status
        );
        // The same run, read again: no copy beside it, labels counted once.
        assert_eq!(app.model.runs.len(), 1);
        assert_eq!(labelled(&app), 1);
        assert!(app.model.listing.visible.len() > 1);
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["pl-run"], "no RUN-rescored copies: {names:?}");
    let backups = std::fs::read_dir(&run)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("samples.jsonl.bak-")
        })
        .count();
    assert!(backups >= 1, "the old samples are kept");
}
