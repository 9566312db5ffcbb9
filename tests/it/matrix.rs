//! The matrix view (`M`): φ₀ × runs of one dataset, each cell a verdict; Enter opens the
//! cell's sample; the list's filter and sort reshape it. Driven through keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::tui::app::App;
use autoeval::tui::build_app;
use autoeval::tui::layer::Mode;
use std::path::{Path, PathBuf};

fn pl_small() -> PathBuf {
    common::fixtures::run("pl-small")
}

/// Three runs of pl-small's dataset: `a` as recorded, `b` failing every even sample,
/// `c` without samples 0–4; and fol-small, another dataset.
fn runs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifest = std::fs::read_to_string(pl_small().join("run.json")).unwrap();
    let samples = std::fs::read_to_string(pl_small().join("samples.jsonl")).unwrap();
    for name in ["a", "b", "c"] {
        let d = dir.path().join(format!("pl-{name}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("run.json"),
            manifest.replace("\"pl-small\"", &format!("\"pl-{name}\"")),
        )
        .unwrap();
        let lines: Vec<String> = samples
            .lines()
            .filter_map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let idx = v["idx"].as_u64().unwrap();
                match name {
                    "b" if idx.is_multiple_of(2) => Some(l.replace(
                        "\"verdict\":{\"verdict\":\"equivalent\"",
                        "\"verdict\":{\"verdict\":\"not-equivalent\"",
                    )),
                    "c" if idx < 5 => None,
                    _ => Some(l.to_string()),
                }
            })
            .collect();
        std::fs::write(d.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    }
    let fol = dir.path().join("fol-small");
    common::fixtures::copy_to("fol-small", &fol);
    dir
}

fn open(dir: &Path) -> (App, autoeval::tui::theme::Theme) {
    build_app(&screens::options(vec![dir.to_path_buf()]))
}

/// Selects the first sample of run `name` through the jump prompt.
fn jump(app: &mut App, spec: &str) {
    keys(app, &[":"]);
    for c in spec.chars() {
        app.press(&c.to_string()).unwrap();
    }
    keys(app, &["enter"]);
}

fn matrix(app: &App) -> &autoeval::tui::model::matrix::MatrixView {
    app.layers
        .iter()
        .find_map(|l| match l {
            autoeval::tui::layer::Layer::Matrix(m) => Some(&**m),
            _ => None,
        })
        .expect("the matrix is open")
}

#[test]
fn the_matrix_pairs_runs_of_one_dataset_and_shows_each_verdict() {
    let dir = runs();
    let (mut app, t) = open(dir.path());
    jump(&mut app, "pl-a/3");
    keys(&mut app, &["M"]);
    assert_eq!(app.mode(), Mode::Matrix);
    let m = matrix(&app);
    let names: Vec<String> = m
        .columns
        .iter()
        .map(|&r| app.model.runs[r].name())
        .collect();
    assert_eq!(
        names,
        ["pl-a", "pl-b", "pl-c"],
        "fol-small is another dataset"
    );
    // Every φ₀ of pl-small once, the cursor on the selected sample's.
    let distinct: std::collections::HashSet<u64> = app.model.runs[m.columns[0]]
        .rows
        .iter()
        .map(|r| r.phi0_hash)
        .collect();
    assert_eq!(m.rows.len(), distinct.len());
    assert_eq!(
        m.selected().map(|at| app.model.id_of(at).to_string()),
        Some("3".into())
    );
    // Each cell is its run's verdict; run c has no samples 0–4.
    for row in &m.rows {
        let a = app.model.cell_verdict(m.columns[0], row.cells[0]).unwrap();
        let b_row = row.cells[1].unwrap();
        let b = &app.model.runs[m.columns[1]].rows[b_row as usize];
        let idx: u64 = b.id.parse().unwrap();
        if idx.is_multiple_of(2) {
            assert_ne!(b.verdict, autoeval::verify::VerdictKind::Equivalent);
        } else {
            assert_eq!(b.verdict, a);
        }
        assert_eq!(row.cells[2].is_none(), idx < 5, "sample {idx}");
    }
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(
            format!("matrix_{w}x{h}"),
            screens::screen(&mut app, &t, w, h)
        );
    }
    let styled = screens::styled(&mut app, &t, 120, 40);
    assert!(styled.contains('✗') && styled.contains('✓'), "{styled}");
}

#[test]
fn enter_opens_the_cells_sample_in_that_run() {
    let dir = runs();
    let (mut app, _t) = open(dir.path());
    jump(&mut app, "pl-a/3");
    keys(&mut app, &["M", "l", "j", "enter"]);
    assert_eq!(app.mode(), Mode::Normal);
    let (r, i) = app.model.selected().unwrap();
    let run = &app.model.runs[r as usize];
    assert_eq!(run.name(), "pl-b");
    // The row below 3's φ₀ in the list's (dataset) order.
    let id = run.rows[i as usize].id.to_string();
    assert_ne!(id, "3");
    assert!(
        app.status.contains(&format!("sample {id} of pl-b")),
        "{}",
        app.status
    );
    // A cell with no sample says so and stays.
    keys(&mut app, &[":"]);
    for c in "pl-a/0".chars() {
        app.press(&c.to_string()).unwrap();
    }
    keys(&mut app, &["enter", "M", "l", "l", "enter"]);
    assert_eq!(app.mode(), Mode::Matrix);
    assert!(
        app.status.contains("no sample with this φ₀"),
        "{}",
        app.status
    );
    keys(&mut app, &["M"]);
    assert_eq!(app.mode(), Mode::Normal, "M closes it again");
}

#[test]
fn the_lists_filter_and_sort_reshape_the_matrix() {
    let dir = runs();
    let (mut app, _t) = open(dir.path());
    jump(&mut app, "pl-a/3");
    keys(&mut app, &["M"]);
    let all = matrix(&app).rows.len();
    // Filter to not-equivalent through the filter editor opened from the matrix.
    keys(&mut app, &["f"]);
    assert_eq!(app.mode(), Mode::Filter);
    let failing: std::collections::HashSet<u64> = app
        .model
        .runs
        .iter()
        .filter(|r| r.name().starts_with("pl-"))
        .flat_map(|r| r.rows.iter())
        .filter(|r| r.verdict == autoeval::verify::VerdictKind::NotEquivalent)
        .map(|r| r.phi0_hash)
        .collect();
    app.model.listing.filter.verdicts = [autoeval::verify::VerdictKind::NotEquivalent].into();
    app.refilter();
    keys(&mut app, &["esc"]);
    assert_eq!(
        app.mode(),
        Mode::Matrix,
        "the filter closes back onto the matrix"
    );
    let m = matrix(&app);
    assert!(m.rows.len() < all);
    let shown: std::collections::HashSet<u64> = m.rows.iter().map(|r| r.phi0_hash).collect();
    assert_eq!(shown, failing, "a row per φ₀ some run failed");
    // Sorting by the measure (s) orders rows as the list does.
    keys(&mut app, &["x", "s"]);
    let m = matrix(&app);
    let ops: Vec<u16> = m
        .rows
        .iter()
        .map(|r| {
            app.model.runs[m.columns[0]].rows[r.cells[0].unwrap() as usize]
                .ops
                .unwrap()
        })
        .collect();
    assert!(ops.windows(2).all(|w| w[0] <= w[1]), "{ops:?}");
    keys(&mut app, &["d"]);
    let m = matrix(&app);
    let ops: Vec<u16> = m
        .rows
        .iter()
        .map(|r| {
            app.model.runs[m.columns[0]].rows[r.cells[0].unwrap() as usize]
                .ops
                .unwrap()
        })
        .collect();
    assert!(ops.windows(2).all(|w| w[0] >= w[1]), "{ops:?}");
}

#[test]
fn blind_mode_keeps_the_matrix_closed() {
    let dir = runs();
    let (mut app, _t) =
        autoeval::tui::build_app_blind(&screens::options(vec![dir.path().to_path_buf()]));
    keys(&mut app, &["M"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.status.contains("blind"), "{}", app.status);
}
