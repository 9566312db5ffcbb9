//! The run catalogue: the run list with focus shows status, created, samples, pass rate,
//! cost, prompt set and shots, and `s` / `d` sort it. Driven through keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::tui::app::{App, Pane};
use autoeval::tui::build_app;
use std::path::Path;

/// Three runs of pl-small differing in everything the catalogue shows.
fn runs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixtures::run("pl-small");
    let manifest: serde_json::Value = common::manifest(&src);
    let samples = std::fs::read_to_string(src.join("samples.jsonl")).unwrap();
    // name, created, status, shots, prompts, samples kept, USD per sample
    let specs = [
        (
            "beta",
            "2026-11-20T10:00:00Z",
            "finished",
            0,
            "built-in",
            14,
            0.0,
        ),
        (
            "alpha",
            "2026-11-24T09:30:00Z",
            "cancelled",
            2,
            "/prompts/terse-v2",
            6,
            0.25,
        ),
        (
            "gamma",
            "2026-11-22T18:15:00Z",
            "finished",
            2,
            "built-in",
            10,
            0.01,
        ),
    ];
    for (name, created, status, shots, prompts, keep, usd) in specs {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        let mut m = manifest.clone();
        m["id"] = name.into();
        m["created"] = created.into();
        m["status"] = status.into();
        m["prompts"]["shots"] = shots.into();
        m["prompts"]["source"] = prompts.into();
        std::fs::write(
            d.join("run.json"),
            serde_json::to_string_pretty(&m).unwrap(),
        )
        .unwrap();
        let lines: Vec<String> = samples
            .lines()
            .take(keep)
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["cost_usd"] = usd.into();
                v.to_string()
            })
            .collect();
        std::fs::write(d.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    }
    dir
}

fn open(dir: &Path) -> (App, autoeval::tui::theme::Theme) {
    build_app(&screens::options(vec![dir.to_path_buf()]))
}

/// The run names in the order the catalogue draws them.
fn drawn(app: &App) -> Vec<String> {
    app.model
        .run_order(app.panes.run_sort)
        .iter()
        .map(|&i| app.model.runs[i].name())
        .collect()
}

#[test]
fn the_catalogue_shows_what_tells_runs_apart() {
    let dir = runs();
    let (mut app, t) = open(dir.path());
    keys(&mut app, &["shift-tab"]);
    assert_eq!(app.panes.focus, Pane::Runs);
    let s = screens::screen(&mut app, &t, 120, 40);
    for want in [
        "catalogue",
        "status",
        "created",
        "samples",
        "cost",
        "shots",
        "prompts",
        "cancelled",
        "2026-11-24 09:30",
        "$1.5000",
        "terse-v2",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(
            format!("catalogue_{w}x{h}"),
            screens::screen(&mut app, &t, w, h)
        );
    }
    // Tab away: the run list and the chart share the top row again.
    keys(&mut app, &["tab"]);
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(!s.contains("catalogue"), "{s}");
}

#[test]
fn s_and_d_sort_the_catalogue_and_the_cursor_keeps_its_run() {
    let dir = runs();
    let (mut app, t) = open(dir.path());
    keys(&mut app, &["shift-tab"]);
    let found = drawn(&app);
    // The cursor on gamma, wherever it is drawn.
    let g = found.iter().position(|n| n == "gamma").unwrap();
    app.panes.run_list.sel = g;
    keys(&mut app, &["s"]);
    assert_eq!(drawn(&app), ["alpha", "beta", "gamma"], "by name");
    assert_eq!(
        app.cursor_run().map(|r| app.model.runs[r].name()),
        Some("gamma".into())
    );
    keys(&mut app, &["s"]);
    assert_eq!(drawn(&app), ["beta", "gamma", "alpha"], "by created");
    keys(&mut app, &["d"]);
    assert_eq!(drawn(&app), ["alpha", "gamma", "beta"], "latest first");
    assert!(app.status.contains("sorted by created ▼"), "{}", app.status);
    keys(&mut app, &["s"]);
    assert_eq!(
        drawn(&app),
        ["alpha", "gamma", "beta"],
        "by samples: 6, 10, 14"
    );
    keys(&mut app, &["s", "s"]);
    assert_eq!(
        drawn(&app),
        ["beta", "gamma", "alpha"],
        "by cost: 0, 0.1, 1.5"
    );
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("cost▲"), "{s}");
    keys(&mut app, &["s"]);
    assert_eq!(drawn(&app)[0], "alpha", "by status: cancelled first");
    keys(&mut app, &["s"]);
    assert_eq!(app.panes.run_sort.key, None);
    // Enter on a sorted catalogue shows the run under the cursor, not the one at its index.
    keys(&mut app, &["s"]);
    app.panes.run_list.sel = 0;
    keys(&mut app, &["enter"]);
    let alpha = app
        .model
        .runs
        .iter()
        .position(|r| r.name() == "alpha")
        .unwrap();
    assert_eq!(app.model.listing.filter.runs, [alpha].into());
    // While the sample list has focus, s sorts the samples as before.
    assert_eq!(app.panes.focus, Pane::Samples);
    keys(&mut app, &["s"]);
    assert!(app.model.listing.sort.key.is_some());
}

/// L12: Enter on a run shows only it; Enter on that run again shows every run (before,
/// nothing in the run list undid it).
#[test]
fn enter_on_the_run_shown_alone_shows_every_run_again() {
    let dir = runs();
    let (mut app, _t) = open(dir.path());
    let all = app.model.listing.visible.len();
    keys(&mut app, &["shift-tab", "enter"]);
    assert!(app.model.listing.visible.len() < all);
    assert!(
        app.status.contains("again in the run list: every run"),
        "{}",
        app.status
    );
    keys(&mut app, &["shift-tab", "enter"]);
    assert_eq!(app.model.listing.visible.len(), all, "{}", app.status);
    assert!(app.model.listing.filter.runs.is_empty());
    assert!(
        app.status.contains("every run shown again"),
        "{}",
        app.status
    );
}
