//! A reference-task run in the viewer, through its keys: the overview shows the
//! premises, the conclusion or question, the gold label against the answer and the
//! reply; the list shows the question; the search finds gold labels, answers and
//! right/wrong, and the verdict filter keeps the right (equivalent) or wrong ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod screens;

use autoeval::tui::app::App;
use autoeval::tui::{ViewOptions, build_app};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn view(paths: Vec<PathBuf>) -> App {
    screens::isolate();
    build_app(&ViewOptions {
        paths,
        theme: None,
        config: Some(PathBuf::from("/nonexistent/autoeval-config.toml")),
    })
    .0
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    screens::screen(app, &t, w, h)
}

fn keys(app: &mut App, ks: &[&str]) {
    for k in ks {
        app.press(k).unwrap();
    }
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
    let mut app = view(vec![run]);
    let s = screen(&mut app, 120, 40);
    for want in [
        "task folio-r-nl",
        "premises",
        "conclusion",
        "gold",
        "answer",
        "reply",
        "Reasoning Steps",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
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
    let mut app = view(vec![run]);
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("context") && s.contains("question"), "{s}");
    let gold_yes = recs.iter().filter(|r| r["task"]["gold"] == "yes").count();
    assert_eq!(search(&mut app, "gold:yes"), gold_yes);
    let mut app = view(vec![tmp.path().join("multi-logieval-fol")]);
    let answer_no = recs.iter().filter(|r| r["task"]["answer"] == "no").count();
    assert_eq!(search(&mut app, "answer:no"), answer_no);
    assert!(answer_no > 0 && answer_no < recs.len());
    let mut app = view(vec![tmp.path().join("multi-logieval-fol")]);
    let no_answer = recs
        .iter()
        .filter(|r| r["task"]["answer"].is_null())
        .count();
    assert_eq!(search(&mut app, "no answer"), no_answer);
}
