//! A reference-task run in the viewer, through its keys: the overview shows the
//! premises, the conclusion or question, the gold label against the answer and the
//! reply; the list shows the question; the search finds gold labels, answers and
//! right/wrong, and the verdict filter keeps the right (equivalent) or wrong ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::tui::app::App;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    screens::screen(app, &t, w, h)
}

fn task_run(dir: &Path, task: &str) -> PathBuf {
    let out = dir.join(task);
    common::cli::ok(
        &common::cli::bin()
            .args([
                "run", "--task", task, "--model", "perturb", "--limit", "8", "--quiet", "--out",
            ])
            .arg(&out)
            .output()
            .unwrap(),
    );
    out
}

fn search(app: &mut App, q: &str) -> usize {
    keys(app, &["/"]);
    for c in q.chars() {
        app.press(&c.to_string()).unwrap();
    }
    app.pump_until(Duration::from_secs(5), |a| {
        a.model.listing.search.pending.is_none()
    });
    keys(app, &["enter"]);
    app.model.listing.visible.len()
}

#[test]
fn a_folio_sample_shows_its_premises_conclusion_gold_and_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let run = task_run(tmp.path(), "folio-r-nl");
    let recs = common::samples(&run);
    let mut app = screens::view(vec![run]);
    let s = screen(&mut app, 120, 40);
    for want in [
        "task folio-r-nl",
        "premises",
        "conclusion",
        "gold",
        "answer",
        "reply",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
    // The reply's reasoning, below long premises on a taller screen.
    let tall = screen(&mut app, 120, 60);
    assert!(tall.contains("Reasoning Steps"), "{tall}");
    insta::assert_snapshot!("task_folio_overview_120x40", s);
    // The search reads the row's `gold: … · answer: … · right|wrong|no answer`.
    let wrong = recs
        .iter()
        .filter(|r| r["task"]["correct"] == false && !r["task"]["answer"].is_null())
        .count();
    assert!(wrong > 0);
    assert_eq!(search(&mut app, "wrong"), wrong);
}

#[test]
fn multi_logieval_rows_search_by_gold_label_and_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let run = task_run(tmp.path(), "multi-logieval-fol");
    let recs = common::samples(&run);
    let mut app = screens::view(vec![run]);
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("context") && s.contains("question"), "{s}");
    let gold_yes = recs.iter().filter(|r| r["task"]["gold"] == "yes").count();
    assert_eq!(search(&mut app, "gold:yes"), gold_yes);
    let mut app = screens::view(vec![tmp.path().join("multi-logieval-fol")]);
    let answer_no = recs.iter().filter(|r| r["task"]["answer"] == "no").count();
    assert_eq!(search(&mut app, "answer:no"), answer_no);
    assert!(answer_no > 0 && answer_no < recs.len());
    let mut app = screens::view(vec![tmp.path().join("multi-logieval-fol")]);
    let no_answer = recs
        .iter()
        .filter(|r| r["task"]["answer"].is_null())
        .count();
    assert_eq!(search(&mut app, "no answer"), no_answer);
}

/// The filter editor's fields from the last one back: `k` wraps from the first field.
fn to_field(app: &mut App, back: usize) {
    keys(app, &["f"]);
    for _ in 0..back {
        keys(app, &["k"]);
    }
}

#[test]
fn the_filter_editor_keeps_samples_by_gold_label_answer_and_correctness() {
    let tmp = tempfile::tempdir().unwrap();
    let run = task_run(tmp.path(), "multi-logieval-fol");
    let recs = common::samples(&run);
    let count =
        |f: &dyn Fn(&serde_json::Value) -> bool| recs.iter().filter(|r| f(&r["task"])).count();
    let mut app = screens::view(vec![run.clone()]);
    // Gold: any → yes (Multi-LogiEval's labels only).
    to_field(&mut app, 3);
    keys(&mut app, &["right"]);
    let gold_yes = count(&|t| t["gold"] == "yes");
    assert!(gold_yes > 0 && gold_yes < recs.len());
    assert_eq!(app.model.listing.visible.len(), gold_yes);
    let small = screen(&mut app, 80, 24);
    assert!(small.contains("gold     ◂ yes ▸"), "{small}");
    assert!(small.contains("gold yes"), "the summary names it: {small}");
    insta::assert_snapshot!("task_filter_gold_80x24", small);
    // Answer: ← from any is `unknown` (no answer read), beside gold yes.
    keys(&mut app, &["j", "left"]);
    let want = count(&|t| t["gold"] == "yes" && t["answer"].is_null());
    assert_eq!(app.model.listing.visible.len(), want);
    keys(&mut app, &["left"]);
    let want = count(&|t| t["gold"] == "yes" && t["answer"] == "no");
    assert_eq!(app.model.listing.visible.len(), want);
    // Correct: wrong, on its own (x clears the rest).
    keys(&mut app, &["x", "j", "left"]);
    let wrong = count(&|t| t["correct"] == false);
    assert!(wrong > 0 && wrong < recs.len());
    assert_eq!(app.model.listing.visible.len(), wrong);
    let big = screen(&mut app, 120, 40);
    assert!(big.contains("correct  ◂ wrong ▸"), "{big}");
    insta::assert_snapshot!("task_filter_wrong_120x40", big);
    keys(&mut app, &["left"]);
    assert_eq!(
        app.model.listing.visible.len(),
        count(&|t| t["correct"] == true)
    );
    // Every listed sample is one of them.
    keys(&mut app, &["esc"]);
    for &(r, i) in &app.model.listing.visible {
        let id = &app.model.runs[r as usize].rows[i as usize].id;
        let rec = recs.iter().find(|x| x["id"] == **id).unwrap();
        assert_eq!(rec["task"]["correct"], true, "{id}");
    }
    // Opened again, the rows come from the row index and carry the same marks.
    assert!(run.join(".autoeval-index").exists());
    let app = screens::view(vec![run]);
    for row in &app.model.runs[0].rows {
        let rec = recs.iter().find(|x| x["id"] == *row.id).unwrap();
        let gold = row.task.gold().map(|m| format!("{m:?}"));
        let want = rec["task"]["gold"].as_str().map(|g| {
            let l = autoeval::analysis::task_answer::Label::from_name(g).unwrap();
            format!("{:?}", autoeval::run::task_mark::Mark::Label(l))
        });
        assert_eq!(gold, want, "{}", row.id);
        assert_eq!(row.task.correct(), rec["task"]["correct"].as_bool());
    }
}

#[test]
fn folio_answers_cycle_through_its_labels_and_dataset_samples_drop_out() {
    let tmp = tempfile::tempdir().unwrap();
    let run = task_run(tmp.path(), "folio-r-fol");
    let recs = common::samples(&run);
    let data = tmp.path().join("pl");
    common::cli::offline_run(&data, "6");
    let mut app = screens::view(vec![run, data]);
    let all = app.model.listing.visible.len();
    assert!(all > recs.len(), "both runs listed");
    // Answer: True, False, Uncertain, unknown, then any again.
    to_field(&mut app, 2);
    for want in ["True", "False", "Uncertain"] {
        keys(&mut app, &["right"]);
        let n = recs.iter().filter(|r| r["task"]["answer"] == want).count();
        assert_eq!(app.model.listing.visible.len(), n, "answer {want}");
    }
    keys(&mut app, &["right"]);
    assert!(
        app.filter_summary().contains("answer unknown"),
        "{}",
        app.filter_summary()
    );
    keys(&mut app, &["right"]);
    assert_eq!(app.model.listing.visible.len(), all);
    // Right or wrong keeps task samples only: a dataset sample is neither.
    keys(&mut app, &["j", "right"]);
    let right = recs.iter().filter(|r| r["task"]["correct"] == true).count();
    assert_eq!(app.model.listing.visible.len(), right);
}
