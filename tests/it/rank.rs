//! The rank view (`r`): the answers to one φ₀ across runs and repeated samples, ranked
//! blind with digit keys, appended to `ranks.jsonl`, verdicts and metrics shown only
//! after submitting. Driven through keys, drawn into a test terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use autoeval::tui::app::App;
use autoeval::tui::build_app;
use autoeval::tui::layer::Mode;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use crate::screens;
use crate::screens::keys;
use screens::screen;

fn fixture(name: &str) -> PathBuf {
    common::fixtures::run("pl-small").join(name)
}

/// Two runs of the shipped PL fixture: sample 7 answered differently by each, plus a
/// repeat of it in run-a; sample `solo` (run-a only) has a φ₀ nobody else answers.
fn runs(dir: &Path) {
    let text = std::fs::read_to_string(fixture("samples.jsonl")).unwrap();
    for k in ["a", "b"] {
        let d = dir.join(format!("run-{k}"));
        std::fs::create_dir_all(&d).unwrap();
        let mut m: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture("run.json")).unwrap()).unwrap();
        m["id"] = json!(format!("run-{k}"));
        std::fs::write(d.join("run.json"), m.to_string()).unwrap();
        let mut lines = Vec::new();
        for l in text.lines() {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["id"] == "7" && k == "b" {
                v["rounds"][0]["psi"] = json!("Bee reading: p5 holds.");
                v["rounds"][0]["phi1"] = json!("p5 ∧ (p7 ∨ ¬p10 ∨ p9)");
                v["verdict"] = json!({"verdict": "equivalent"});
                v["rounds"][0]["verdict"] = json!({"verdict": "equivalent"});
                v["closeness"] = json!({"bleu": 0.111, "rouge_l": 0.222, "tree": 0.333});
            }
            if v["id"] == "7" && k == "a" {
                let mut rep = v.clone();
                rep["id"] = json!("7-rep");
                rep["rounds"][0]["psi"] = json!("Repeat reading, said again.");
                rep["rounds"][0]["phi1"] = json!("p5");
                rep["closeness"] = json!({"bleu": 0.05, "rouge_l": 0.06, "tree": 0.07});
                lines.push(rep.to_string());
                let mut solo = v.clone();
                solo["id"] = json!("solo");
                solo["phi0"] = json!("p1 ∧ p2 ∧ p3");
                lines.push(solo.to_string());
            }
            lines.push(v.to_string());
        }
        std::fs::write(d.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    }
}

fn viewer(dir: &Path) -> (App, autoeval::tui::theme::Theme) {
    let (mut app, t) = build_app(&screens::options(vec![dir.to_path_buf()]));
    // The shuffle is per annotator: a fixed name keeps the order (and snapshots) fixed.
    app.model.annotator = "tester".into();
    (app, t)
}

fn select(app: &mut App, run: &str, id: &str) {
    let m = &app.model;
    app.model.listing.sample_list.sel = m
        .listing
        .visible
        .iter()
        .position(|&(r, i)| {
            m.runs[r as usize].name() == run && &*m.runs[r as usize].rows[i as usize].id == id
        })
        .unwrap();
    app.settle();
}

#[test]
fn r_ranks_blind_with_digits_saves_on_enter_and_then_reveals_verdicts_and_metrics() {
    let dir = tempfile::tempdir().unwrap();
    runs(dir.path());
    let (mut app, t) = viewer(dir.path());
    select(&mut app, "run-a", "7");
    keys(&mut app, &["r"]);
    assert_eq!(app.mode(), Mode::Rank);
    let v = app.rank().unwrap();
    let mut shown: Vec<String> = v
        .candidates
        .iter()
        .map(|c| format!("{}/{}", c.candidate.run, c.candidate.id))
        .collect();
    let order = shown.clone();
    shown.sort();
    assert_eq!(shown, ["run-a/7", "run-a/7-rep", "run-b/7"]);
    for (w, h) in [(120, 40), (80, 24), (160, 48)] {
        let s = screen(&mut app, &t, w, h);
        assert!(s.contains("Rank the answers"), "{s}");
        assert!(s.contains("Bee reading"), "ψ shows: {s}");
        assert!(s.contains("Repeat reading"), "{s}");
        for hidden in ["equivalent", "bleu", "0.111", "run-a", "run-b", "7-rep"] {
            assert!(
                !s.contains(hidden),
                "'{hidden}' shows before submitting:\n{s}"
            );
        }
    }
    let s = screen(&mut app, &t, 160, 48);
    assert!(
        s.contains("1-3 set the highlighted answer's rank (1 = best, equal ranks tie)"),
        "{s}"
    );
    assert!(
        s.contains("→ next answer · backspace clears · enter submits · esc cancels"),
        "{s}"
    );

    // Enter before every answer has a rank saves nothing.
    keys(&mut app, &["enter"]);
    assert_eq!(app.mode(), Mode::Rank);
    assert!(
        app.status.contains("0 of 3 answers ranked"),
        "{}",
        app.status
    );
    keys(&mut app, &["4"]);
    assert!(app.status.contains("from 1 (best) to 3"), "{}", app.status);
    // 2, 1, then a tie with the first; backspace and retype on the last.
    keys(&mut app, &["2", "1", "1", "left", "backspace", "2"]);
    assert_eq!(app.rank().unwrap().ranks, [Some(2), Some(1), Some(2)]);
    assert!(!dir.path().join("run-a/ranks.jsonl").exists());
    keys(&mut app, &["enter"]);
    assert_eq!(app.status, "ranking saved to run-a/ranks.jsonl");
    let text = std::fs::read_to_string(dir.path().join("run-a/ranks.jsonl")).unwrap();
    let rec: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(rec["ranks"], json!([2, 1, 2]));
    assert_eq!(rec["annotator"], "tester");
    assert_eq!(rec["phi0"], "(p7 ∨ ¬p10 ∨ p9) ∧ p5 ∧ ¬(¬p12 ∧ p6 ∧ p8)");
    let stored: Vec<String> = rec["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}/{}",
                c["run"].as_str().unwrap(),
                c["id"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(stored, order, "stored in the order shown");
    // Now verdicts and metrics show.
    let s = screen(&mut app, &t, 160, 48);
    assert!(s.contains("submitted"), "{s}");
    assert!(s.contains("not-equivalent"), "{s}");
    assert!(s.contains("run-b/7 · equivalent"), "{s}");
    assert!(s.contains("bleu 0.111"), "{s}");
    assert!(s.contains("tree 0.333"), "{s}");
    keys(&mut app, &["7"]);
    assert!(app.status.contains("already submitted"), "{}", app.status);
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    // The stored record reads back through the ranks reader.
    let loaded = autoeval::labels::ranks::read(&dir.path().join("run-a")).unwrap();
    assert_eq!(loaded.records.len(), 1);
    assert!(loaded.warnings.is_empty());
}

#[test]
fn esc_leaves_without_saving_and_a_lone_answer_cannot_be_ranked() {
    let dir = tempfile::tempdir().unwrap();
    runs(dir.path());
    let (mut app, _) = viewer(dir.path());
    select(&mut app, "run-a", "solo");
    keys(&mut app, &["r"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.status.contains("only one answer"), "{}", app.status);
    // Sample 3 is answered by both runs (no repeat): two answers.
    select(&mut app, "run-b", "3");
    keys(&mut app, &["r"]);
    assert_eq!(app.rank().unwrap().candidates.len(), 2);
    keys(&mut app, &["1", "2", "esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(!dir.path().join("run-b/ranks.jsonl").exists());
    // The sort's reverse moved to `d`; `r` is the rank view.
    keys(&mut app, &["s", "d"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.model.listing.sort.desc, "reversed");
}

#[test]
fn rank_view_snapshots_before_and_after_submitting() {
    let dir = tempfile::tempdir().unwrap();
    runs(dir.path());
    let (mut app, t) = viewer(dir.path());
    select(&mut app, "run-a", "7");
    keys(&mut app, &["r", "3", "1"]);
    for (w, h) in screens::SIZES {
        insta::assert_snapshot!(format!("rank_blind_{w}x{h}"), screen(&mut app, &t, w, h));
    }
    keys(&mut app, &["2", "enter"]);
    for (w, h) in screens::SIZES {
        insta::assert_snapshot!(
            format!("rank_submitted_{w}x{h}"),
            screen(&mut app, &t, w, h)
        );
    }
}
