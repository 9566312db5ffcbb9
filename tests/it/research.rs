//! The research workflow through the CLI: failure kinds, folders of runs, CSV, figures,
//! the pass/fail comparison.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use common::cli::{bin, ok};
use std::path::Path;

/// An offline run of `kind` with the synthetic model.
fn offline(out: &Path, kind: &str, extra: &[&str]) {
    let o = bin()
        .args(["run", "--kind", kind, "--per-category", "2"])
        .args(["--model", "perturb", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    ok(&o);
}

#[test]
fn report_takes_a_folder_skips_non_runs_and_groups_regex_by_depth() {
    let dir = tempfile::tempdir().unwrap();
    offline(&dir.path().join("pl"), "pl", &[]);
    offline(&dir.path().join("regex"), "regex", &[]);
    std::fs::write(dir.path().join("notes.txt"), "not a run").unwrap();
    let o = bin()
        .args(["report", "--format", "json"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("1 entry is not a run directory, skipped (notes.txt)"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let by: Vec<&str> = runs.iter().map(|r| r["by"].as_str().unwrap()).collect();
    assert_eq!(by, ["operators", "depth"]);
    // Failure kinds are counted per category for failing samples only.
    let pl = &runs[0];
    let failing = pl["total"]["n"].as_u64().unwrap() - pl["total"]["accurate"].as_u64().unwrap();
    let kinds: u64 = pl["failure_kinds"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|m| m.as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(
        failing > 0 && kinds >= failing,
        "{failing} failing, {kinds} kinds"
    );
    // --by still overrides the default.
    let o = bin()
        .args(["report", "--by", "operators", "--format", "csv"])
        .arg(dir.path().join("regex"))
        .output()
        .unwrap();
    assert!(ok(&o).lines().nth(1).unwrap().contains(",operators,"));
    // A path that holds no run is an error that says what a run is.
    let empty = tempfile::tempdir().unwrap();
    let o = bin().arg("report").arg(empty.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("run.json"));
}

#[test]
fn report_csv_quotes_names_with_commas_and_quotes() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("r");
    offline(&run, "pl", &["--limit", "5"]);
    let path = run.join("run.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    m["id"] = serde_json::json!("a,\"b\"");
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
    let o = bin()
        .args(["report", "--format", "csv"])
        .arg(&run)
        .output()
        .unwrap();
    let text = ok(&o);
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let head = rd.headers().unwrap().clone();
    assert_eq!(&head[0], "run");
    for rec in rd.records() {
        let rec = rec.unwrap();
        assert_eq!(rec.len(), head.len());
        assert_eq!(&rec[0], "a,\"b\"");
    }
}

#[test]
fn report_text_names_failure_kinds_by_category() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("pl");
    offline(&run, "pl", &[]);
    let text = ok(&bin().arg("report").arg(&run).output().unwrap());
    assert!(text.contains("Failure kinds (automatic"), "{text}");
    assert!(text.contains("Failure kinds of "), "{text}");
    assert!(text.contains("negation misplaced"), "{text}");
}

#[test]
fn plot_writes_svg_and_png_and_refuses_other_names() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    offline(&a, "pl", &["--batches", "2"]);
    offline(&b, "pl", &["--batches", "2", "--seed", "9"]);
    let svg = dir.path().join("fig.svg");
    let o = bin()
        .arg("report")
        .arg(&a)
        .arg(&b)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    ok(&o);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg"), "{}", &s[..80.min(s.len())]);
    assert!(s.contains("A3 accuracy"));
    assert!(s.contains("A2 syntactic compliance"));
    assert!(s.contains("failure kinds: "));
    // Interval bars, never filled bands (several runs' bands piled up into a block).
    assert_eq!(s.matches("<polygon").count(), 0, "a filled band");
    assert!(s.contains("bars: Wilson 95% CI"));
    let png = dir.path().join("fig.png");
    let o = bin()
        .arg("report")
        .arg(&a)
        .arg("--plot")
        .arg(&png)
        .output()
        .unwrap();
    ok(&o);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // A named font that is not one is refused with the variable's name.
    let o = bin()
        .arg("report")
        .arg(&a)
        .arg("--plot")
        .arg(&png)
        .env("AUTOEVAL_FONT", dir.path().join("fig.svg"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("AUTOEVAL_FONT"));
    let o = bin()
        .arg("report")
        .arg(&a)
        .arg("--plot")
        .arg(dir.path().join("fig.pdf"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains(".svg or .png"));
}

#[test]
fn compare_counts_patterns_and_tests_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    offline(&a, "pl", &[]);
    offline(&b, "pl", &["--perturb-rate", "0.8"]);
    let rows = dir.path().join("matrix.csv");
    let o = bin()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--json")
        .arg("--rows")
        .arg(&rows)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    // Same dataset and seed: every φ₀ is in both runs.
    let n = v["samples"].as_u64().unwrap();
    assert_eq!(v["in_every_run"].as_u64(), Some(n));
    let c = &v["pairs"][0]["counts"];
    let total: u64 = ["both", "a_only", "b_only", "neither"]
        .iter()
        .map(|k| c[k].as_u64().unwrap())
        .sum();
    assert_eq!(total, n);
    // Counted independently from the two runs' samples.
    let pass = |d: &Path| -> std::collections::BTreeMap<String, bool> {
        std::fs::read_to_string(d.join("samples.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let s: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    s["phi0"].as_str().unwrap().to_string(),
                    s["verdict"]["verdict"] == "equivalent",
                )
            })
            .collect()
    };
    let (pa, pb) = (pass(&a), pass(&b));
    let a_only = pa.iter().filter(|(k, x)| **x && !pb[*k]).count() as u64;
    assert_eq!(c["a_only"].as_u64(), Some(a_only));
    // A rate of 0.3 against 0.8 over this many samples is a real difference.
    assert!(v["pairs"][0]["mcnemar_p"].as_f64().unwrap() < 0.001, "{v}");
    let csv = std::fs::read_to_string(&rows).unwrap();
    assert_eq!(csv.lines().count() as u64, n + 1);
    // The table names the test; one run alone is refused.
    let text = ok(&bin().arg("compare").arg(&a).arg(&b).output().unwrap());
    assert!(text.contains("McNemar p"), "{text}");
    let o = bin().arg("compare").arg(&a).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least two runs"));
}

#[test]
fn compare_pairs_only_runs_of_the_same_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    offline(&d.join("a"), "pl", &[]);
    offline(&d.join("b"), "pl", &["--perturb-rate", "0.8"]);
    // Another seed is another dataset, even with φ₀ that happen to match.
    offline(&d.join("c"), "pl", &["--seed", "99"]);
    offline(
        &d.join("d"),
        "pl",
        &["--seed", "99", "--perturb-rate", "0.8"],
    );
    offline(&d.join("e"), "ksat", &[]);
    let o = bin().arg("compare").arg(d).arg("--json").output().unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    let sets = v["datasets"]
        .as_array()
        .expect("one comparison per dataset");
    assert_eq!(sets.len(), 2, "{v}");
    for s in sets {
        assert_eq!(s["runs"].as_array().unwrap().len(), 2, "{s}");
        assert_eq!(s["pairs"].as_array().unwrap().len(), 1, "{s}");
        assert_eq!(s["in_every_run"], s["samples"], "{s}");
    }
    assert_eq!(v["left_out"].as_array().unwrap().len(), 1, "{v}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("left out, no other run answered the same dataset"),
        "{err}"
    );
    // Runs that share no dataset are refused, saying why.
    let o = bin()
        .arg("compare")
        .arg(d.join("a"))
        .arg(d.join("e"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("of the same dataset"));
}

/// The viewer over `dir` (no user config).
fn viewer(dir: &Path) -> autoeval::tui::app::App {
    let (app, _) = autoeval::tui::build_app(&screens::options(vec![dir.to_path_buf()]));
    app
}

/// Opens the filter editor, moves to `field` (from wherever the cursor is) and presses `k` n times.
fn set_field(app: &mut autoeval::tui::app::App, field: usize, key: &str, n: usize) {
    keys(app, &["f"]);
    while app.filter_editor().field.index() != field {
        keys(app, &["j"]);
    }
    for _ in 0..n {
        keys(app, &[key]);
    }
    keys(app, &["esc"]);
}

#[test]
fn viewer_filters_by_failure_kind_judge_cross_run_and_typed_range() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    offline(&a, "pl", &[]);
    offline(&b, "pl", &["--perturb-rate", "0.8"]);
    let o = bin()
        .args(["judge"])
        .arg(&a)
        .args(["--model", "perturb", "--perturb-rate", "0.4"])
        .output()
        .unwrap();
    ok(&o);
    let report: serde_json::Value = serde_json::from_str(&ok(&bin()
        .args(["report", "--format", "json"])
        .arg(dir.path())
        .output()
        .unwrap()))
    .unwrap();
    let kind_total = |kind: &str| -> u64 {
        report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["failure_kinds"][kind].as_object())
            .flat_map(|m| m.values())
            .map(|n| n.as_u64().unwrap())
            .sum()
    };
    let mut app = viewer(dir.path());
    assert_eq!(app.model.runs.len(), 2);
    // Failure kind: negation misplaced is the seventh choice after "any".
    set_field(&mut app, 10, "right", 7);
    assert_eq!(
        app.model.listing.filter.failure,
        Some(autoeval::analysis::kinds::FailureKind::NegationMisplaced)
    );
    assert_eq!(
        app.model.listing.visible.len() as u64,
        kind_total("negation-misplaced")
    );
    assert!(!app.model.listing.visible.is_empty());
    // The editor remembers its cursor; x clears.
    keys(&mut app, &["f"]);
    assert_eq!(
        app.filter_editor().field,
        autoeval::tui::components::filter_edit::Field::Failure
    );
    keys(&mut app, &["x", "esc"]);
    // Judge ≠ verifier: the report's FP + FN.
    set_field(&mut app, 13, "right", 4);
    let j = &report["runs"][0]["judges"][0];
    let disagree = j["fp"].as_u64().unwrap() + j["fn_"].as_u64().unwrap();
    assert!(disagree > 0, "{j}");
    assert_eq!(app.model.listing.visible.len() as u64, disagree);
    keys(&mut app, &["f", "x", "esc"]);
    // Passes in run a, fails here (b): compare's "A only".
    set_field(&mut app, 14, "right", 1);
    let cmp: serde_json::Value = serde_json::from_str(&ok(&bin()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--json")
        .output()
        .unwrap()))
    .unwrap();
    let a_only = cmp["pairs"][0]["counts"]["a_only"].as_u64().unwrap();
    assert!(a_only > 0);
    assert_eq!(app.model.listing.visible.len() as u64, a_only);
    assert!(app.model.listing.visible.iter().all(|(r, _)| *r == 1));
    keys(&mut app, &["f", "x", "esc"]);
    // Closeness: bleu from 0.90 (typed `90` in "from"; rows keep four decimals).
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::CloseFrom {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["9", "0", "esc"]);
    assert_eq!(app.filter_summary().matches("bleu 0.90–1.00").count(), 1);
    let near: usize = [&a, &b]
        .iter()
        .map(|d| {
            std::fs::read_to_string(d.join("samples.jsonl"))
                .unwrap()
                .lines()
                .filter(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["closeness"]["bleu"]
                        .as_f64()
                        .is_some_and(|x| (x * 10_000.0).round() >= 9_000.0)
                })
                .count()
        })
        .sum();
    assert!(near > 0);
    assert_eq!(app.model.listing.visible.len(), near);
    keys(&mut app, &["f", "x", "esc"]);
    // Typed numbers: "1", "2" in "from" make the range start at 12.
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::From {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["1", "2", "esc"]);
    assert_eq!(app.model.listing.filter.range.map(|r| r.0), Some(12));
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|&(r, i)| app.model.category(r, i).unwrap() >= 12)
    );
}

#[test]
fn viewer_run_summary_shows_judge_matrix_kinds_and_pass_fail_against_the_other_run() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    offline(&a, "pl", &[]);
    offline(&b, "pl", &["--perturb-rate", "0.8"]);
    ok(&bin()
        .args(["judge"])
        .arg(&a)
        .args(["--model", "perturb"])
        .output()
        .unwrap());
    let mut app = viewer(dir.path());
    // Select a sample of run a, then `i`.
    while app.model.selected().map(|(r, _)| r) != Some(0) {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["i"]);
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::RunSummary);
    let s = app.summary().cloned().unwrap();
    let j = s.judge.unwrap();
    assert_eq!(j.tp + j.fp + j.tn + j.fn_ + j.unparseable, s.counts.n);
    assert!(!s.kinds.is_empty());
    assert_eq!(s.versus.len(), 1);
    assert_eq!(
        s.versus[0].1.n(),
        s.counts.n,
        "same dataset: every φ₀ shared"
    );
    let screen = {
        let (t, _) = autoeval::tui::theme::Theme::load("default");
        let backend = ratatui::backend::TestBackend::new(110, 40);
        let mut term = ratatui::Terminal::new(backend).unwrap();
        term.draw(|f| {
            autoeval::tui::ui::view(f, &app, &t);
        })
        .unwrap();
        format!("{}", term.backend())
    };
    assert!(
        screen.contains("judge (A4) against the verifier"),
        "{screen}"
    );
    assert!(screen.contains("McNemar p"), "{screen}");
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::Normal);
}

#[test]
fn viewer_search_finds_label_notes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    offline(&a, "pl", &["--limit", "20"]);
    ok(&bin()
        .args(["labels", "add"])
        .arg(&a)
        .args([
            "7",
            "parentheses-scope",
            "--note",
            "grouping lost in zanzibar",
            "--annotator",
            "t",
        ])
        .output()
        .unwrap());
    let mut app = viewer(dir.path());
    keys(&mut app, &["/"]);
    for c in "zanzibar".chars() {
        app.press(&c.to_string()).unwrap();
    }
    keys(&mut app, &["enter"]);
    assert_eq!(app.model.listing.visible.len(), 1);
    let (r, i) = app.model.listing.visible[0];
    assert_eq!(&*app.model.runs[r as usize].rows[i as usize].id, "7");
}

#[test]
fn overview_highlights_the_changed_subformula_and_lists_true_atoms() {
    let fixtures = common::fixtures::runs();
    let mut app = viewer(&fixtures);
    // Find a not-equivalent FOL sample (the fixture's pred7 slip).
    let k = app
        .model
        .listing
        .visible
        .iter()
        .position(|&(r, i)| {
            let run = &app.model.runs[r as usize];
            run.kind() == "fol"
                && run.rows[i as usize].verdict == autoeval::verify::VerdictKind::NotEquivalent
        })
        .unwrap();
    app.model.listing.sample_list.sel = k;
    app.panes.detail = None;
    app.pump();
    let d = app.panes.detail.as_ref().unwrap();
    let [(t0, s0), (t1, s1)] = d.highlight.clone().unwrap();
    let (a, b) = s0.unwrap();
    let (c, e) = s1.unwrap();
    assert_ne!(&t0[a..b], &t1[c..e], "the highlighted parts differ");
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| {
        autoeval::tui::ui::view(f, &app, &t);
    })
    .unwrap();
    let buf = term.backend().buffer().clone();
    let underlined: String = buf
        .content()
        .iter()
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::UNDERLINED))
        .map(ratatui::buffer::Cell::symbol)
        .collect();
    let want: String = format!("{}{}", &t0[a..b], &t1[c..e])
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let got: String = underlined.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(got.contains(&want), "underlined {got:?}, want {want:?}");
    let screen = format!("{}", term.backend());
    assert!(screen.contains("true atoms"), "{screen}");
}

#[test]
fn chart_pick_shows_numbers_filters_one_run_or_all_and_export_writes_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    offline(&a, "pl", &["--batches", "2"]);
    offline(&b, "pl", &["--perturb-rate", "0.8"]);
    let mut app = viewer(dir.path());
    // Run a has two batches: the chart has a spread row for it (and none for b).
    let spreads = app.model.derived.spreads.clone();
    assert!(!spreads[0].is_empty() && spreads[1].is_empty());
    assert!(spreads[0].values().all(|(lo, hi)| lo <= hi));
    let s = screen(&mut app, 160, 48);
    assert!(
        s.lines().any(|l| l.contains('a') && l.contains(" ±  ")),
        "{s}"
    );
    keys(&mut app, &["v"]);
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::Chart);
    // Bucket 3 of run b (↓ moves to the second run).
    while app.model.derived.buckets[app.chart_layer().unwrap().pick.bucket] != 3 {
        let k = if app.model.derived.buckets[app.chart_layer().unwrap().pick.bucket] < 3 {
            "]"
        } else {
            "["
        };
        keys(&mut app, &[k]);
    }
    keys(&mut app, &["down"]);
    let (name, counts, _) = app.chart_layer().unwrap().picked.clone().unwrap();
    assert_eq!(name, "b");
    assert!(counts.n > 0);
    // Run a has two batches: its pick carries the spread.
    keys(&mut app, &["up"]);
    let (name_a, _, spread) = app.chart_layer().unwrap().picked.clone().unwrap();
    assert_eq!(name_a, "a");
    let (lo, hi) = spread.expect("two batches give a spread");
    assert!(lo <= hi);
    keys(&mut app, &["down", "enter"]);
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|&(r, i)| r == 1 && app.model.category(r, i) == Some(3))
    );
    assert_eq!(app.model.listing.visible.len(), counts.n);
    // A: the bucket across every run.
    keys(&mut app, &["v", "A"]);
    assert!(app.model.listing.visible.iter().any(|&(r, _)| r == 0));
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|&(r, i)| app.model.category(r, i) == Some(3))
    );
    // K switches the chart to failure kinds × buckets of the highlighted run.
    keys(&mut app, &["v", "K"]);
    assert!(app.chart_layer().unwrap().pick.kinds);
    let (_, kinds) = app.chart_layer().unwrap().kinds.clone();
    assert!(!kinds.is_empty());
    keys(&mut app, &["K", "esc"]);
    // E exports what is listed.
    let out = tempfile::tempdir().unwrap();
    app.export_dir = Some(out.path().to_path_buf());
    keys(&mut app, &["E"]);
    assert!(app.status.starts_with("exported"), "{}", app.status);
    let folder = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let jsonl = std::fs::read_to_string(folder.join("samples.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), app.model.listing.visible.len());
    for l in jsonl.lines() {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
    let mut rd = csv::Reader::from_path(folder.join("samples.csv")).unwrap();
    assert_eq!(rd.records().count(), app.model.listing.visible.len());
    let chart = std::fs::read_to_string(folder.join("chart.csv")).unwrap();
    assert!(chart.starts_with("run,operators,n,"), "{chart}");
}

#[test]
fn compare_shows_runs_side_by_side_with_a_phi1_diff() {
    let dir = tempfile::tempdir().unwrap();
    offline(&dir.path().join("a"), "pl", &[]);
    offline(&dir.path().join("b"), "pl", &["--perturb-rate", "0.9"]);
    let mut app = viewer(dir.path());
    // A sample of a whose φ₀ got a different φ₁ in b.
    let k = (0..app.model.listing.visible.len())
        .find(|&k| {
            app.model.listing.sample_list.sel = k;
            let (r, _) = app.model.listing.visible[k];
            r == 0 && {
                let v = app.model.compare_view();
                v.columns.len() == 2
                    && v.columns[0].phi1 != v.columns[1].phi1
                    && !v.columns[0].phi1.is_empty()
                    && !v.columns[1].phi1.is_empty()
            }
        })
        .unwrap();
    app.model.listing.sample_list.sel = k;
    keys(&mut app, &["c"]);
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::Compare);
    let v = app.compare().cloned().unwrap();
    assert!(v.phi1_diff.iter().any(|l| l.change.is_change()));
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(140, 40)).unwrap();
    term.draw(|f| {
        autoeval::tui::ui::view(f, &app, &t);
    })
    .unwrap();
    let screen = format!("{}", term.backend());
    assert!(
        screen
            .lines()
            .any(|l| l.contains("a · perturb") && l.contains("b · perturb")),
        "side by side:\n{screen}"
    );
    assert!(screen.contains("φ₁ of a vs φ₁ of b"), "{screen}");
}

fn screen(app: &mut autoeval::tui::app::App, w: u16, h: u16) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        autoeval::tui::ui::view(f, app, &t);
    })
    .unwrap();
    let buf = term.backend().buffer().clone();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn snapshots_of_the_research_screens() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    offline(&a, "pl", &["--concurrency", "1"]);
    offline(&b, "pl", &["--perturb-rate", "0.8", "--concurrency", "1"]);
    ok(&bin()
        .args(["judge"])
        .arg(&a)
        .args(["--model", "perturb", "--concurrency", "1"])
        .output()
        .unwrap());
    let mut app = viewer(dir.path());
    keys(&mut app, &["g", "i"]);
    insta::assert_snapshot!("research_run_summary_120x40", screen(&mut app, 120, 40));
    keys(&mut app, &["esc", "v", "K"]);
    insta::assert_snapshot!("research_kinds_chart_120x40", screen(&mut app, 120, 40));
    keys(&mut app, &["K", "esc", "f"]);
    insta::assert_snapshot!("research_filters_80x24", screen(&mut app, 80, 24));
    keys(&mut app, &["esc", "c"]);
    insta::assert_snapshot!("research_compare_120x40", screen(&mut app, 120, 40));
}

#[test]
fn label_filters_take_any_of_and_none_of_several_categories() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    offline(&a, "pl", &["--limit", "20"]);
    // `--limit` picks samples across the buckets: label the first three it ran.
    let mut run_ids: Vec<u64> = common::samples(&a)
        .iter()
        .map(|s| s["id"].as_str().unwrap().parse().unwrap())
        .collect();
    run_ids.sort_unstable();
    let run_ids: Vec<String> = run_ids.iter().map(u64::to_string).collect();
    for (id, cat) in [
        (run_ids[0].as_str(), "negation-misplaced"),
        (run_ids[1].as_str(), "and-or-swap"),
        (run_ids[2].as_str(), "arity"),
    ] {
        ok(&bin()
            .args(["labels", "add"])
            .arg(&a)
            .args([id, cat, "--annotator", "t"])
            .output()
            .unwrap());
    }
    let mut app = viewer(dir.path());
    let total = app.model.listing.visible.len();
    let tick = |app: &mut autoeval::tui::app::App, field: usize, cat: &str| {
        keys(app, &["f"]);
        while app.filter_editor().field.index() != field {
            keys(app, &["j"]);
        }
        while app.model.taxonomy.categories[app.filter_editor().label_cursor].id != cat {
            keys(app, &["right"]);
        }
        keys(app, &["space", "esc"]);
    };
    tick(&mut app, 11, "negation-misplaced");
    tick(&mut app, 11, "and-or-swap");
    assert_eq!(app.model.listing.filter.label_any.len(), 2);
    let ids: Vec<String> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&(r, i)| app.model.runs[r as usize].rows[i as usize].id.to_string())
        .collect();
    assert_eq!(ids, run_ids[..2]);
    keys(&mut app, &["f", "x", "esc"]);
    tick(&mut app, 12, "arity");
    tick(&mut app, 12, "and-or-swap");
    assert_eq!(app.model.listing.visible.len(), total - 2);
    assert!(
        app.filter_summary().contains("no label"),
        "{}",
        app.filter_summary()
    );
}

#[test]
fn run_summary_scrolls_to_its_end_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    offline(&dir.path().join("a"), "pl", &[]);
    offline(&dir.path().join("b"), "pl", &["--perturb-rate", "0.8"]);
    let mut app = viewer(dir.path());
    keys(&mut app, &["i"]);
    let top = screen(&mut app, 80, 24);
    assert!(top.contains("failure kinds"), "{top}");
    keys(&mut app, &["pagedown", "pagedown", "pagedown"]);
    let end = screen(&mut app, 80, 24);
    assert!(end.contains("McNemar p"), "{end}");
}
