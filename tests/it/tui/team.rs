//! Team labelling in the viewer: the "annotators disagree" filter, blind mode,
//! the adjudication layer and the run summary's intervals and leaderboard.

use super::screens;
use super::{build_app, keys};
use crate::common::fixtures;
use autoeval::tui::layer::Mode;
use std::path::Path;

/// A copy of `pl-small` in `dir/pl`, and the ids of its first samples.
fn run_copy(dir: &Path) -> (std::path::PathBuf, Vec<String>) {
    let d = dir.join("pl");
    fixtures::copy_to("pl-small", &d);
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

/// Selects sample `id` with the list keys (top, then down).
fn select(app: &mut autoeval::tui::app::App, id: &str) {
    keys(app, &["g"]);
    for _ in 0..app.model.listing.visible.len() {
        if app.model.id_of(app.model.selected().unwrap()) == id {
            return;
        }
        keys(app, &["j"]);
    }
    panic!("sample {id} not listed");
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
    let (mut app, _) = build_app(&screens::options(vec![d.clone()]));
    let all = app.model.listing.visible.len();
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Disagree {
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

/// A config file in `dir` with these lines.
fn config(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("config.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// Moves down until a not-equivalent sample is selected.
fn to_failure(app: &mut autoeval::tui::app::App) {
    for _ in 0..app.model.listing.visible.len() {
        let (r, i) = app.model.selected().unwrap();
        if app.model.runs[r as usize].rows[i as usize].verdict_name() == "not-equivalent" {
            return;
        }
        keys(app, &["j"]);
    }
    panic!("no failing sample");
}

#[test]
fn blind_mode_hides_the_outcome_until_labelled_and_orders_per_annotator() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, ids) = run_copy(tmp.path());
    label(&d, &[(&ids[0], "alice", &["incomplete"])]);
    let mut o = screens::options(vec![d.clone()]);
    o.config = Some(config(
        tmp.path(),
        "annotator = \"dana\"\nblind = true\nblind_seed = 5\n",
    ));
    let (mut app, t) = build_app(&o);
    assert!(app.model.warnings.is_empty(), "{:?}", app.model.warnings);
    assert_eq!(app.model.blind, Some(5));
    // The list is in dana's seeded order, as `labels::blind::order` gives it.
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let want: Vec<String> = autoeval::labels::blind::order(&refs, "dana", 5)
        .into_iter()
        .map(|k| ids[k].clone())
        .collect();
    let got: Vec<String> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&p| app.model.id_of(p).to_string())
        .collect();
    assert_eq!(got, want);
    assert_ne!(got, ids, "shuffled");
    to_failure(&mut app);
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(!s.contains("not-equivalent"), "{s}");
    assert!(!s.contains("alice"), "other annotators' labels hidden\n{s}");
    assert!(s.contains("blind: the chart"), "{s}");
    assert!(s.contains("blind: verdict"), "{s}");
    // Nor the run's name, its model or its pass rate: runs are numbered.
    for leak in ["pl-small", "perturb-0.5", "%"] {
        assert!(!s.contains(leak), "{leak}\n{s}");
    }
    assert!(s.contains("run 1"), "{s}");
    // alice labelled a sample; in dana's blind list no row carries the ✎ mark yet.
    assert!(!s.contains('✎'), "others' labels mark no row\n{s}");
    for tab in ["]", "]", "]"] {
        keys(&mut app, &[tab]);
        let s = screens::screen(&mut app, &t, 120, 40);
        assert!(!s.contains("not-equivalent"), "{s}");
    }
    keys(&mut app, &["]"]);
    // Nor the chart picker, comparison or others' label counts.
    for k in ["v", "c", "L", "i"] {
        keys(&mut app, &[k]);
        assert_eq!(app.mode(), Mode::Normal, "{k}");
        assert!(app.status.starts_with("blind"), "{k}: {}", app.status);
    }
    // Label mode shows no suggestion, `y` refuses; a category key labels it.
    keys(&mut app, &["a"]);
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(!s.contains("suggested by the diff"), "{s}");
    keys(&mut app, &["y"]);
    assert!(app.status.contains("blind"), "{}", app.status);
    keys(&mut app, &["3", "esc"]);
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("not-equivalent"), "labelled: shown\n{s}");
    let last = std::fs::read_to_string(d.join("labels.jsonl")).unwrap();
    let rec: serde_json::Value = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    assert_eq!(rec["annotator"], "dana");
    assert_eq!(rec["blind"], true);
    assert_eq!(rec["categories"], serde_json::json!(["incomplete"]));

    // Not blind: the same sample shows its verdict at once.
    let mut o = screens::options(vec![d.clone()]);
    o.config = Some(config(tmp.path(), "annotator = \"erin\"\n"));
    let (mut app, t) = build_app(&o);
    assert_eq!(app.model.blind, None);
    to_failure(&mut app);
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("not-equivalent"), "{s}");
    // `view --blind` is the same switch without the config.
    let (app, _) = autoeval::tui::build_app_blind(&o);
    assert_eq!(app.model.blind, Some(0));
}

#[test]
fn adjudication_layer_settles_a_disagreement_through_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, ids) = run_copy(tmp.path());
    let (a, e) = (&ids[0], &ids[3]);
    label(
        &d,
        &[
            (a, "alice", &["incomplete"]),
            (a, "bob", &["term-omitted"]),
            (e, "alice", &["incomplete"]),
        ],
    );
    let mut o = screens::options(vec![d.clone()]);
    o.config = Some(config(tmp.path(), "annotator = \"carol\"\n"));
    let (mut app, t) = build_app(&o);
    // A sample one annotator labelled has nothing to settle.
    select(&mut app, e);
    keys(&mut app, &["A"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.status.contains("nothing to settle"), "{}", app.status);
    // The disagreement, found with the filter.
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Disagree {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["right", "esc"]);
    assert_eq!(shown(&app), vec![a.clone()]);
    keys(&mut app, &["A"]);
    assert_eq!(app.mode(), Mode::Adjudicate);
    let s = screens::screen(&mut app, &t, 100, 30);
    for want in [
        "Adjudicate sample",
        "alice: ",
        "bob: ",
        "alice on",
        "← bob",
        "← alice",
    ] {
        assert!(s.contains(want), "{want}\n{s}");
    }
    // Nothing in common to start from; tick both by cursor, then untick one by its key.
    keys(&mut app, &["space", "j", "space", "3"]);
    keys(&mut app, &["enter"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.status.contains("settled by carol"), "{}", app.status);
    let text = std::fs::read_to_string(d.join("labels.jsonl")).unwrap();
    let rec: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(rec["id"], a.as_str());
    assert_eq!(rec["annotator"], "adjudicated");
    assert_eq!(rec["adjudicator"], "carol");
    assert_eq!(rec["categories"], serde_json::json!(["term-omitted"]));
    assert!(rec.get("blind").is_none());
    // Settled: the "unsettled" filter lets it go; esc in the layer records nothing.
    assert!(shown(&app).is_empty());
    keys(&mut app, &["x"]);
    select(&mut app, a);
    keys(&mut app, &["A"]);
    let s = screens::screen(&mut app, &t, 100, 30);
    assert!(s.contains("settled before by carol"), "{s}");
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(
        std::fs::read_to_string(d.join("labels.jsonl")).unwrap(),
        text
    );
}

#[test]
fn run_summary_has_wilson_intervals_and_a_leaderboard_across_models() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = run_copy(tmp.path());
    // One model: intervals, no leaderboard.
    let (mut app, t) = build_app(&screens::options(vec![d.clone()]));
    keys(&mut app, &["i"]);
    assert_eq!(app.mode(), Mode::RunSummary);
    let s = app.summary().unwrap();
    let c = &s.counts;
    assert_eq!(
        s.ci.a3,
        autoeval::report::intervals::wilson95(c.accurate, c.n)
    );
    assert_eq!(
        s.ci.a2,
        autoeval::report::intervals::wilson95(c.compliant, c.answered)
    );
    let [lo, hi] = s.ci.a3.unwrap();
    assert!(lo < c.accuracy().unwrap() && c.accuracy().unwrap() < hi);
    assert!(s.leaderboard.is_none());
    let want = format!("A3 [{:.1}%, {:.1}%] (n {})", 100.0 * lo, 100.0 * hi, c.n);
    let screen = screens::screen(&mut app, &t, 120, 40);
    assert!(screen.contains(&want), "{want}\n{screen}");
    assert!(!screen.contains("leaderboard"), "{screen}");
    // A second model's run of the same dataset: the leaderboard has a row for each.
    let other = tmp.path().join("pl-other");
    std::fs::create_dir_all(&other).unwrap();
    let manifest = std::fs::read_to_string(d.join("run.json"))
        .unwrap()
        .replace("\"perturb-0.5\"", "\"perturb-0.3\"");
    std::fs::write(other.join("run.json"), manifest).unwrap();
    let samples = std::fs::read_to_string(d.join("samples.jsonl")).unwrap();
    // The other model gets only the first half of the samples.
    let half: Vec<&str> = samples.lines().take(7).collect();
    std::fs::write(other.join("samples.jsonl"), half.join("\n") + "\n").unwrap();
    let (mut app, t) = build_app(&screens::options(vec![d.clone(), other.clone()]));
    keys(&mut app, &["i"]);
    let lb = app.summary().unwrap().leaderboard.clone().unwrap();
    assert_eq!(lb.row_keys.len(), 2, "{:?}", lb.row_keys);
    assert!(lb.row_keys.iter().any(|k| k.contains("perturb-0.3")));
    let ns: Vec<usize> = lb.cells.iter().map(|c| c.counts.n).collect();
    assert!(ns.contains(&14) && ns.contains(&7), "{ns:?}");
    let screen = screens::screen(&mut app, &t, 160, 48);
    assert!(
        screen.contains("leaderboard of the loaded runs"),
        "{screen}"
    );
    assert!(screen.contains("perturb-0.3"), "{screen}");
    // Three datasets: at 100 columns each dataset's figures stay on one line (n, A2 and
    // A3 with their intervals) under its model; the wide table wrapped there.
    let fixtures = fixtures::runs();
    let (mut app, t) = build_app(&screens::options(vec![
        d.clone(),
        other.clone(),
        fixtures.join("fol-small"),
        fixtures.join("regex-small"),
    ]));
    keys(&mut app, &["i"]);
    let screen = screens::screen(&mut app, &t, 100, 60);
    for dataset in ["fol", "pl", "regex"] {
        let row = screen
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(dataset) && l.matches('[').count() >= 2);
        assert!(row.is_some(), "no one-line row for {dataset}\n{screen}");
    }
}

#[test]
fn the_label_panel_offers_both_readings_of_the_diff_and_y_takes_the_marked_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = run_copy(tmp.path());
    let (mut app, t) = build_app(&screens::options(vec![d.clone()]));
    // The first sample whose diff maps to a category on both sides.
    let mut found = None;
    for _ in 0..app.model.listing.visible.len() {
        app.pump();
        let s = app
            .panes
            .detail
            .as_ref()
            .and_then(autoeval::tui::model::Detail::suggestion);
        if let Some(s) = s.filter(|s| s.informalization.is_some() && s.autoformalization.is_some())
        {
            found = Some(s);
            break;
        }
        keys(&mut app, &["j"]);
    }
    let s = found.expect("a sample with a two-sided suggestion in pl-small");
    keys(&mut app, &["a"]);
    let screen = screens::screen(&mut app, &t, 140, 50);
    let tax = &app.model.taxonomy;
    for want in [
        "from the φ₀/φ₁ diff".to_string(),
        format!(
            "{} if ψ says it wrongly",
            tax.name(s.informalization.unwrap())
        ),
        format!(
            "{} if φ₁ misreads ψ (y takes it)",
            tax.name(s.autoformalization.unwrap())
        ),
    ] {
        assert!(screen.contains(&want), "{want}\n{screen}");
    }
    keys(&mut app, &["y"]);
    assert_eq!(
        app.model.my_labels().0,
        vec![s.accepted().unwrap().to_string()]
    );
}
