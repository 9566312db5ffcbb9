//! Labels that can be taken back: the viewer's undo and unticking retract instead of
//! writing "nothing wrong", `labels retract`, the history in the label panel, and
//! statistics that ignore retracted labels.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::{keys, pick};
use autoeval::run::store::read_labels;
use autoeval::tui::build_app;
use common::cli::{bin, labels_stats};
use std::path::Path;

fn app(d: &Path) -> (autoeval::tui::app::App, autoeval::tui::theme::Theme) {
    let (mut app, t) = build_app(&screens::options(vec![d.to_path_buf()]));
    app.model.annotator = "ann".into();
    (app, t)
}

#[test]
fn undo_after_reviewed_on_an_unlabelled_passing_sample_retracts() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, _) = app(&d);
    // Sample 0 passed: `0` marks it reviewed, nothing wrong; `u` takes that back.
    pick(&mut app, "0");
    keys(&mut app, &["a", "0"]);
    assert_eq!(labels_stats(&d)["labelled"], 1);
    keys(&mut app, &["u"]);
    let recs = read_labels(&d).unwrap().records;
    let last = recs.last().unwrap();
    assert!(
        last.retract,
        "undo to no label appends a retraction: {last:?}"
    );
    assert!(!app.model.runs[0].labels.contains_key("0"), "no ✎ left");
    let v = labels_stats(&d);
    assert_eq!(v["labelled"], 0, "{v}");
    assert!(v["lucky"].is_null(), "no lucky-pass denominator: {v}");
    // A viewer opened afterwards sees the sample unlabelled too.
    let (again, _) = self::app(&d);
    assert!(!again.model.runs[0].labels.contains_key("0"));
}

#[test]
fn ticking_then_unticking_a_category_leaves_no_label() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, t) = app(&d);
    // Sample 1 failed; `b` ticks and unticks negation-misplaced.
    pick(&mut app, "1");
    keys(&mut app, &["a", "b", "b"]);
    assert!(app.status.contains("label removed"), "{}", app.status);
    assert!(!app.model.runs[0].labels.contains_key("1"));
    let v = labels_stats(&d);
    assert_eq!(v["labelled"], 0, "{v}");
    assert!(
        v["automatic"]
            .as_object()
            .is_none_or(|m| m.values().all(|e| e["fp"] == 0)),
        "no false positives from a label that is not there: {v}"
    );
    // The panel lists the sample's history, the retraction last.
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("history:"), "{s}");
    let hist: Vec<&str> = s.lines().filter(|l| l.contains(" ann: ")).collect();
    assert_eq!(hist.len(), 2, "{s}");
    assert!(hist[0].contains("negation"), "{s}");
    assert!(hist[1].contains("retracted"), "{s}");
    // `u` restores the ticked label.
    keys(&mut app, &["u"]);
    assert_eq!(app.model.my_labels().0, ["negation-misplaced"]);
}

#[test]
fn next_unlabelled_lands_on_a_retracted_sample() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    // Every sample but 1 already reviewed by ann.
    let (probe, _) = app(&d);
    let ids: Vec<String> = probe.model.runs[0]
        .rows
        .iter()
        .map(|r| r.id.to_string())
        .collect();
    drop(probe);
    for id in ids.iter().filter(|i| *i != "1") {
        autoeval::labels::append(&d, id, &[], "", "ann").unwrap();
    }
    let (mut app, _) = app(&d);
    pick(&mut app, "1");
    keys(&mut app, &["a", "b", "b"]);
    pick(&mut app, "0");
    keys(&mut app, &["n"]);
    let (r, i) = app.model.selected().unwrap();
    assert_eq!(&*app.model.runs[r as usize].rows[i as usize].id, "1");
}

#[test]
fn labels_retract_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let add = |id: &str, cats: &[&str], who: &str| common::cli::label_add(&d, id, cats, who);
    let retract = |id: &str, who: &str| {
        bin()
            .args(["labels", "retract"])
            .arg(&d)
            .arg(id)
            .args(["--annotator", who])
            .output()
            .unwrap()
    };
    add("1", &["negation-misplaced"], "alice");
    add("1", &["negation-misplaced"], "bob");
    add("0", &[], "alice");
    let out = retract("1", "alice");
    common::cli::ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("retracted"));
    let v = labels_stats(&d);
    assert_eq!(v["labelled"], 2, "{v}");
    assert_eq!(v["annotators"], serde_json::json!(["alice", "bob"]), "{v}");
    // Sample 1 is bob's alone now: no overlap left between the two.
    assert_eq!(v["overlap"], 0, "{v}");
    let csv = bin().args(["labels", "export"]).arg(&d).output().unwrap();
    let text = String::from_utf8_lossy(&csv.stdout);
    assert_eq!(text.lines().count(), 1 + 2, "{text}");
    assert!(!text.lines().any(|l| l.starts_with("1,alice,")), "{text}");
    // Nothing in force to take back: a clear error, nothing written.
    let lines = read_labels(&d).unwrap().records.len();
    let again = retract("1", "alice");
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("no label by 'alice'"), "{err}");
    assert!(err.contains("bob"), "names who has one: {err}");
    assert_eq!(read_labels(&d).unwrap().records.len(), lines);
    // A new label after the retraction counts again.
    add("1", &["and-or-swap"], "alice");
    assert_eq!(labels_stats(&d)["overlap"], 1);
    // The file stays append-only: the retraction is a line of its own.
    let raw = std::fs::read_to_string(d.join("labels.jsonl")).unwrap();
    assert_eq!(
        raw.lines()
            .filter(|l| l.contains("\"retract\":true"))
            .count(),
        1
    );
}

#[test]
fn history_panel_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, t) = app(&d);
    pick(&mut app, "1");
    keys(&mut app, &["a", "b", "c", "c", "b"]);
    let s = screens::screen(&mut app, &t, 80, 24);
    assert!(s.contains("history (1 earlier):"), "{s}");
    assert!(s.contains("retracted"), "{s}");
}
