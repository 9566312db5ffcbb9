//! Team labelling in the viewer: the "annotators disagree" filter, blind mode,
//! the adjudication layer and the run summary's intervals and leaderboard.

use super::{build_app, fixtures, keys, opts};
use autoeval::tui::layer::Mode;
use std::path::Path;

/// A copy of `pl-small` in `dir/pl`, and the ids of its first samples.
fn run_copy(dir: &Path) -> (std::path::PathBuf, Vec<String>) {
    let d = dir.join("pl");
    std::fs::create_dir_all(&d).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(fixtures().join("pl-small").join(f), d.join(f)).unwrap();
    }
    let ids = std::fs::read_to_string(d.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    (d, ids)
}

/// Appends label lines: (sample id, annotator, categories).
fn label(dir: &Path, rows: &[(&str, &str, &[&str])]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("labels.jsonl"))
        .unwrap();
    for (id, who, cats) in rows {
        let mut v = serde_json::json!({"id": id, "categories": cats, "note": format!("{who} on {id}"),
            "annotator": who, "time": "2026-11-24T12:00:00Z"});
        if *who == "adjudicated" {
            v["adjudicator"] = "carol".into();
        }
        writeln!(f, "{v}").unwrap();
    }
}

/// The ids the list shows.
fn shown(app: &autoeval::tui::app::App) -> Vec<String> {
    let mut v: Vec<String> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&p| app.model.id_of(p).to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn annotators_disagree_filter_through_the_editor() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, ids) = run_copy(tmp.path());
    let (a, b, c, e) = (&ids[0], &ids[1], &ids[2], &ids[3]);
    label(
        &d,
        &[
            (a, "alice", &["incomplete"]),
            (a, "bob", &["term-omitted"]),
            (b, "alice", &["incomplete"]),
            (b, "bob", &["incomplete"]),
            (c, "alice", &["incomplete"]),
            (c, "bob", &[]),
            (c, "adjudicated", &["incomplete"]),
            (e, "alice", &["term-omitted"]),
        ],
    );
    let (mut app, _) = build_app(&opts(vec![d.clone()]));
    let all = app.model.listing.visible.len();
    keys(&mut app, &["f"]);
    while app.filter_editor().field != 16 {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["right"]);
    assert_eq!(shown(&app), vec![a.clone()], "unsettled disagreements only");
    assert!(
        app.filter_summary()
            .contains("annotators disagree, unsettled"),
        "{}",
        app.filter_summary()
    );
    keys(&mut app, &["right"]);
    let mut both = vec![a.clone(), c.clone()];
    both.sort();
    assert_eq!(shown(&app), both, "settled ones too");
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.filter_summary().starts_with("2/"));
    // A later label that agrees ends the disagreement.
    label(&d, &[(a, "bob", &["incomplete"])]);
    app.model.follow(&|_| false);
    assert_eq!(shown(&app), vec![c.clone()]);
    keys(&mut app, &["x"]);
    assert_eq!(app.model.listing.visible.len(), all);
}
