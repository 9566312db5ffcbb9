//! Hand labelling: state transitions, persistence, concurrent writers, exports, statistics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::{keys, pick};
use autoeval::run::store::read_labels;
use autoeval::tui::build_app;
use autoeval::tui::layer::Mode;
use common::cli::bin;
use std::path::Path;

fn app(d: &Path) -> autoeval::tui::app::App {
    let (mut app, _) = build_app(&screens::options(vec![d.to_path_buf()]));
    app.model.annotator = "ann".into();
    app
}

#[test]
fn label_keys_toggle_note_undo_and_next_unlabelled() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let mut app = app(&d);
    let first = app.model.selected().unwrap();
    keys(&mut app, &["a"]);
    assert_eq!(app.mode(), Mode::Label);
    keys(&mut app, &["b", "c"]);
    assert_eq!(
        app.model.my_labels().0,
        ["negation-misplaced", "and-or-swap"]
    );
    keys(&mut app, &["c"]);
    assert_eq!(
        app.model.my_labels().0,
        ["negation-misplaced"],
        "a second press removes it"
    );
    keys(&mut app, &["m", "s", "e", "e", "space", "ψ", "enter"]);
    assert_eq!(app.mode(), Mode::Label);
    assert_eq!(app.model.my_labels().1, "see ψ");
    keys(&mut app, &["u"]);
    assert_eq!(
        app.model.my_labels(),
        (vec!["negation-misplaced".to_string()], String::new()),
        "undo restores the previous state"
    );
    // Every change was appended at once.
    let recs = read_labels(&d).unwrap().records;
    assert_eq!(recs.len(), 5);
    assert!(
        recs.iter()
            .all(|r| r.annotator == "ann" && r.id == recs[0].id)
    );
    keys(&mut app, &["n"]);
    assert_ne!(
        app.model.selected(),
        Some(first),
        "n leaves the labelled sample"
    );
    // `0`: reviewed and fine; an empty label that still counts as labelled.
    let before = read_labels(&d).unwrap().records.len();
    keys(&mut app, &["0"]);
    assert_eq!(app.model.my_labels().0, Vec::<String>::new());
    assert_eq!(read_labels(&d).unwrap().records.len(), before + 1);
    keys(&mut app, &["n"]);
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    // The diff's suggestion is one key away.
    app.pump();
    if let Some(s) = app
        .panes
        .detail
        .as_ref()
        .and_then(autoeval::tui::model::Detail::suggestion)
    {
        let taken = s.accepted().unwrap();
        keys(&mut app, &["a", "y", "esc"]);
        assert!(app.model.my_labels().0.iter().any(|c| c == taken));
    }
    // Counts by category × operator count.
    let counts = &app.model.derived.label_counts;
    assert!(counts["negation-misplaced"].values().sum::<usize>() >= 1);
    keys(&mut app, &["L"]);
    assert_eq!(app.mode(), Mode::LabelCounts);
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    // Labels survive a restart and show in filters.
    let mut again = self::app(&d);
    let labelled = again.model.runs[0].labels.len();
    assert!(labelled >= 1);
    keys(&mut again, &["f"]);
    for _ in 0..8 {
        keys(&mut again, &["j"]);
    }
    keys(&mut again, &["right", "esc"]);
    assert_eq!(
        again.model.listing.visible.len(),
        labelled,
        "label-state filter: labelled only"
    );
}

#[test]
fn two_processes_appending_at_once_do_not_corrupt_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let spawn = |who: &'static str| {
        let d = d.clone();
        std::thread::spawn(move || {
            for i in 0..60 {
                let st = bin()
                    .args(["labels", "add"])
                    .arg(&d)
                    .arg((i % 14).to_string())
                    .args(["incomplete", "--annotator", who, "--note"])
                    .arg(format!("{who} {i} {}", "x".repeat(300)))
                    .status()
                    .unwrap();
                assert!(st.success());
            }
        })
    };
    let (a, b) = (spawn("alice"), spawn("bob"));
    a.join().unwrap();
    b.join().unwrap();
    let loaded = read_labels(&d).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.records.len(), 120);
    // A viewer reading the run sees both annotators' newest labels.
    let app = app(&d);
    let per = &app.model.runs[0].labels["0"];
    assert_eq!(per.len(), 2);
}

#[test]
fn export_and_stats_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let add = |id: &str, cats: &[&str], who: &str| common::cli::label_add(&d, id, cats, who);
    // Two annotators on four samples; one passing sample is a lucky pass.
    add("1", &["negation-misplaced"], "alice");
    add("1", &["negation-misplaced"], "bob");
    add("4", &["and-or-swap"], "alice");
    add("4", &["negation-misplaced"], "bob");
    add("0", &[], "alice");
    add("0", &["lucky-pass"], "bob");
    add("2", &[], "alice");
    add("2", &[], "bob");
    let bad = bin()
        .args(["labels", "add"])
        .arg(&d)
        .args(["3", "no-such-category"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown category"));
    let csv = bin().args(["labels", "export"]).arg(&d).output().unwrap();
    let text = String::from_utf8_lossy(&csv.stdout);
    assert_eq!(text.lines().count(), 1 + 8);
    assert!(
        text.lines()
            .any(|l| l.starts_with("4,bob,") && l.contains("negation-misplaced"))
    );
    let js = bin()
        .args(["labels", "stats"])
        .arg(&d)
        .arg("--json")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&js.stdout).unwrap();
    assert_eq!(v["labelled"], 4);
    assert_eq!(v["overlap"], 4);
    // negation-misplaced: alice [1,0,0,0] vs bob [1,1,0,0] over ids 0,1,2,4 sorted as strings.
    // po = 3/4, pa = 1/4, pb = 2/4, pe = 1/8 + 3/8 = 1/2, κ = (0.75 − 0.5)/0.5 = 0.5.
    assert!(
        (v["kappa"]["negation-misplaced"].as_f64().unwrap() - 0.5).abs() < 1e-9,
        "{v}"
    );
    // The diff finds the negation slips of 1 and 4; the ∧/∨ swap is bob's alone.
    let auto = &v["automatic"];
    assert_eq!(
        (
            auto["negation-misplaced"]["tp"].as_u64(),
            auto["negation-misplaced"]["fp"].as_u64()
        ),
        (Some(2), Some(0)),
        "{v}"
    );
    assert_eq!(auto["and-or-swap"]["fn_"].as_u64(), Some(1), "{v}");
    let lucky = v["lucky"].as_array().unwrap();
    assert_eq!(
        (lucky[0].as_u64(), lucky[1].as_u64()),
        (Some(1), Some(2)),
        "{v}"
    );
    let text = String::from_utf8_lossy(
        &bin()
            .args(["labels", "stats"])
            .arg(&d)
            .output()
            .unwrap()
            .stdout,
    )
    .to_string();
    assert!(text.contains("Cohen's κ between alice and bob"), "{text}");
    assert!(text.contains("lucky passes: 1 of 2"), "{text}");
    // Two runs (the same labels in a copy) pool: twice the samples, ids kept apart.
    let copy = dir.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["run.json", "samples.jsonl", "labels.jsonl"] {
        std::fs::copy(d.join(f), copy.join(f)).unwrap();
    }
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(copy.join("run.json")).unwrap()).unwrap();
    m["id"] = serde_json::json!("the-copy");
    std::fs::write(copy.join("run.json"), m.to_string()).unwrap();
    let pooled = bin()
        .args(["labels", "stats", "--json"])
        .arg(&d)
        .arg(&copy)
        .output()
        .unwrap();
    common::cli::ok(&pooled);
    let p: serde_json::Value = serde_json::from_slice(&pooled.stdout).unwrap();
    assert_eq!(p["labelled"], 8);
    assert_eq!(p["overlap"], 8);
    assert!((p["kappa"]["negation-misplaced"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    // A third annotator on one sample does not take κ from the pair that shares most.
    add("2", &["and-or-swap"], "aaron");
    let v: serde_json::Value = serde_json::from_slice(
        &bin()
            .args(["labels", "stats", "--json"])
            .arg(&d)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["pair"], serde_json::json!(["alice", "bob"]), "{v}");
    assert_eq!(v["overlap"], 4);
    assert!(
        text.contains("automatic failure kinds (from the diff) against the hand labels"),
        "{text}"
    );
}

#[test]
fn suggestion_key_says_when_there_is_nothing_to_suggest() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let mut app = app(&d);
    // Sample 0 passed: φ₁ = φ₀, the diff has nothing to map to a category.
    pick(&mut app, "0");
    keys(&mut app, &["a", "y"]);
    assert!(app.status.contains("no suggestion"), "{}", app.status);
    assert!(app.model.my_labels().0.is_empty());
    keys(&mut app, &["esc"]);
    // Sample 1 lost a negation: `y` adds the category the classifier maps it to.
    pick(&mut app, "1");
    keys(&mut app, &["a", "y"]);
    assert_eq!(app.model.my_labels().0, ["negation-misplaced"]);
    keys(&mut app, &["y"]);
    assert!(app.status.contains("already labelled"), "{}", app.status);
}
