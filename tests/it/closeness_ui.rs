//! Every stored closeness metric where a user meets it: `report` (JSON and text),
//! `export --format jsonl-flat`, the row index, and the viewer's sort (`m`, a header
//! click), closeness filter (any metric, from–to), Overview and `E` export.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::record::Metric;
use autoeval::tui::components::sort::SortKey;
use common::cli::{bin, ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The small FOL fixture rescored (so every sample carries the metrics a run stores
/// today), with `le` taken out of the first scored record, as when LE refuses a
/// formula with too many atoms.
fn scored_run(dir: &Path) -> PathBuf {
    let copy = dir.join("fixture");
    common::fixtures::copy_to("fol-small", &copy);
    let run = dir.join("run");
    ok(&bin()
        .arg("rescore")
        .arg(&copy)
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap());
    let path = run.join("samples.jsonl");
    let mut taken = false;
    let lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if !taken && let Some(c) = v["closeness"].as_object_mut() {
                assert!(c.remove("le").is_some(), "a FOL record without le: {l}");
                taken = true;
            }
            v.to_string()
        })
        .collect();
    assert!(taken);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    run
}

/// The latest record per id, in file order of first appearance.
fn records(run: &Path) -> Vec<Value> {
    let mut by_id: Vec<(String, Value)> = Vec::new();
    for l in std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(l).unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        match by_id.iter_mut().find(|(i, _)| *i == id) {
            Some(slot) => slot.1 = v,
            None => by_id.push((id, v)),
        }
    }
    by_id.into_iter().map(|(_, v)| v).collect()
}

/// Mean and count of `metric` over the records holding it.
fn mean_of(recs: &[Value], metric: &str) -> Option<(f64, usize)> {
    let xs: Vec<f64> = recs
        .iter()
        .filter_map(|r| r["closeness"][metric].as_f64())
        .collect();
    (!xs.is_empty()).then(|| (xs.iter().sum::<f64>() / xs.len() as f64, xs.len()))
}

#[test]
fn report_gives_each_stored_metric_its_mean_and_n_from_the_index_and_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let recs = records(&run);
    let report = |run: &Path| -> Value {
        serde_json::from_str(&ok(&bin()
            .args(["report", "--format", "json"])
            .arg(run)
            .output()
            .unwrap()))
        .unwrap()
    };
    // First report builds the row index; the second reads it.
    let built = report(&run);
    let cached = report(&run);
    assert_eq!(built, cached);
    let got = &cached["runs"][0]["closeness_metrics"];
    let mut seen = 0;
    for m in Metric::ALL {
        match mean_of(&recs, m.name()) {
            Some((mean, n)) => {
                seen += 1;
                let g = &got[m.name()];
                assert_eq!(g["n"].as_u64(), Some(n as u64), "{}: {got}", m.name());
                let gm = g["mean"].as_f64().unwrap();
                assert!((gm - mean).abs() < 1e-12, "{}: {gm} vs {mean}", m.name());
            }
            None => assert!(got.get(m.name()).is_none(), "{}: {got}", m.name()),
        }
    }
    assert!(seen >= 8, "the rescored run lacks metrics: {got}");
    assert!(got["meteor"]["n"].as_u64() > Some(0), "{got}");
    let le = mean_of(&recs, "le").unwrap().1;
    let bleu = mean_of(&recs, "bleu").unwrap().1;
    // The record whose le was taken out, and those whose φ₀ the paper's grammar cannot
    // read, are not counted for le.
    let without_le = recs
        .iter()
        .filter(|r| r["closeness"].is_object() && r["closeness"]["le"].is_null())
        .count();
    assert!(without_le >= 1);
    assert_eq!(
        le + without_le,
        bleu,
        "records without le are not counted for le"
    );
    // The old three-number summary stays as it was.
    let old = cached["runs"][0]["closeness"].as_array().unwrap();
    assert!((old[0].as_f64().unwrap() - mean_of(&recs, "bleu").unwrap().0).abs() < 1e-12);
    // The text report has a closeness section naming each metric with its n.
    let text = ok(&bin().arg("report").arg(&run).output().unwrap());
    let head = text
        .lines()
        .skip_while(|l| !l.starts_with("Closeness metrics"))
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    for m in ["bleu", "rouge_l", "tree", "bleu_fol", "le", "smatch"] {
        assert!(head.contains(m), "{head}");
    }
    assert!(text.contains(&format!("({le})")), "{text}");
}

#[test]
fn an_index_of_the_previous_format_is_rebuilt_and_rows_carry_every_metric() {
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let index = run.join(".autoeval-index");
    let json = |run: &Path| {
        ok(&bin()
            .args(["report", "--format", "json"])
            .arg(run)
            .output()
            .unwrap())
    };
    let fresh = json(&run);
    let mut bytes = std::fs::read(&index).unwrap();
    assert_eq!(&bytes[..8], b"AEIDX\x00\x00\x0d");
    // The same file labelled as version 12 (texts after the rows): never read as is.
    bytes[7] = 12;
    std::fs::write(&index, &bytes).unwrap();
    assert_eq!(json(&run), fresh);
    assert_eq!(&std::fs::read(&index).unwrap()[..8], b"AEIDX\x00\x00\x0d");
    // The rows the viewer holds carry every stored metric (to 1/10,000).
    let (app, _) = viewer(&run);
    let recs = records(&run);
    let rows = &app.model.runs[0].rows;
    assert_eq!(rows.len(), recs.len());
    for row in rows {
        let rec = recs.iter().find(|r| r["id"] == *row.id).unwrap();
        for m in Metric::ALL {
            let want = rec["closeness"][m.name()].as_f64();
            let got = row.scores.value(m);
            assert_eq!(got.is_some(), want.is_some(), "{} {}", row.id, m.name());
            if let (Some(g), Some(w)) = (got, want) {
                assert!(
                    (g - w).abs() <= 0.5e-4,
                    "{} {}: {g} vs {w}",
                    row.id,
                    m.name()
                );
            }
        }
    }
    // A row stays small: the viewer holds a million of them (88 bytes since issue 45:
    // 8 for the key that finds its proved kinds in the kinds cache).
    assert_eq!(std::mem::size_of::<autoeval::run::rows::Row>(), 88);
}

#[test]
fn flat_export_has_a_column_per_metric_on_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let out = dir.path().join("out");
    ok(&bin()
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&out)
        .arg(&run)
        .output()
        .unwrap());
    // The Hub layout: data files under data/, the dataset card at the root.
    let file = std::fs::read_dir(out.join("data"))
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .unwrap()
        .path();
    let recs = records(&run);
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), recs.len());
    for line in &lines {
        let rec = recs.iter().find(|r| r["id"] == line["id"]).unwrap();
        for m in Metric::ALL {
            let v = line.get(m.name()).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(v, &rec["closeness"][m.name()], "{}", m.name());
        }
    }
    assert!(
        lines
            .iter()
            .any(|l| l["le"].is_null() && l["bleu"].is_number())
    );
}

#[test]
fn a_stored_meteor_equals_metrics_pairs_on_the_folio_printings() {
    use autoeval::analysis::paper_notation::paper_notation;
    use autoeval::syntax::{Expr, SyntaxKind, parse};
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let recs = records(&run);
    let folio = |s: &str| match parse(s, SyntaxKind::Fol).unwrap() {
        Expr::Logic(f) => paper_notation(&f).unwrap(),
        Expr::Regex(_) => unreachable!(),
    };
    let mut tsv = String::new();
    let mut want = Vec::new();
    for r in &recs {
        let Some(m) = r["closeness"]["meteor"].as_f64() else {
            continue;
        };
        // The closeness record compares the first round's φ₁ with φ₀.
        let phi1 = r["rounds"][0]["phi1"].as_str().unwrap();
        tsv += &format!("{}\t{}\n", folio(r["phi0"].as_str().unwrap()), folio(phi1));
        want.push(m);
    }
    assert!(want.len() >= 3, "too few scored samples");
    let file = dir.path().join("pairs.tsv");
    std::fs::write(&file, tsv).unwrap();
    let out = ok(&bin()
        .args(["metrics", "pairs"])
        .arg(&file)
        .output()
        .unwrap());
    let got: Vec<f64> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["meteor"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(got, want);
}

fn viewer(dir: &Path) -> (autoeval::tui::app::App, autoeval::tui::theme::Theme) {
    autoeval::tui::build_app(&screens::options(vec![dir.to_path_buf()]))
}

/// The metric of each listed row, in list order.
fn listed(app: &autoeval::tui::app::App, m: Metric) -> Vec<Option<u16>> {
    app.model
        .listing
        .visible
        .iter()
        .map(|&(r, i)| app.model.runs[r as usize].rows[i as usize].scores.get(m))
        .collect()
}

#[test]
fn m_sorts_by_each_metric_with_missing_last_and_the_header_and_title_show_it() {
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let (mut app, t) = viewer(&run);
    for (k, m) in Metric::ALL.into_iter().enumerate() {
        keys(&mut app, &["m"]);
        assert_eq!(
            app.model.listing.sort.key,
            Some(SortKey::Metric(m)),
            "press {k}"
        );
        let v = listed(&app, m);
        let known: Vec<u16> = v.iter().flatten().copied().collect();
        assert!(known.is_sorted(), "{}: {v:?}", m.name());
        assert!(
            v[known.len()..].iter().all(Option::is_none),
            "{}: {v:?}",
            m.name()
        );
        let s = screens::screen(&mut app, &t, 120, 40);
        assert!(s.contains(&format!("sorted by {} ↑", m.label())), "{s}");
        if m == Metric::Le {
            // The sample without le is listed last, with a dash in the metric column.
            assert_eq!(v.last(), Some(&None));
        }
    }
    keys(&mut app, &["m"]);
    assert_eq!(app.model.listing.sort.key, None);
    // Back to le, then a click on its column header reverses it.
    while app.model.listing.sort.key != Some(SortKey::Metric(Metric::Le)) {
        keys(&mut app, &["m"]);
    }
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("le↑"), "{s}");
    let a = app.panes.areas;
    let click = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        // The metric column starts after the hand-label mark (column 29, no judge).
        column: a.samples.x + 1 + 31,
        row: a.samples.y + 1,
        modifiers: KeyModifiers::NONE,
    };
    app.update(autoeval::tui::app::Msg::Mouse(click));
    assert_eq!(
        (app.model.listing.sort.key, app.model.listing.sort.desc),
        (Some(SortKey::Metric(Metric::Le)), true)
    );
    let v = listed(&app, Metric::Le);
    let mut known: Vec<u16> = v.iter().flatten().copied().collect();
    known.reverse();
    assert!(known.is_sorted(), "descending: {v:?}");
    assert_eq!(v.last(), Some(&None), "missing stays last reversed");
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("sorted by le ↓") && s.contains("le↓"), "{s}");
    // `s` from a metric goes on to the judge column, as from bleu.
    keys(&mut app, &["s"]);
    assert_eq!(app.model.listing.sort.key, Some(SortKey::Judge));
}

#[test]
fn the_closeness_filter_takes_any_metric_and_a_typed_range_and_flags_an_inverted_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let (mut app, t) = viewer(&run);
    let total = app.model.listing.visible.len();
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Metric {
        keys(&mut app, &["j"]);
    }
    // bleu → rouge_l → tree → bleu_fol → rouge_l_fol → le → smatch.
    for _ in 0..6 {
        keys(&mut app, &["right"]);
    }
    assert_eq!(app.model.listing.filter.closeness.metric, Metric::Smatch);
    keys(&mut app, &["j", "5", "0", "j", "9", "0"]);
    let smatch = listed(&app, Metric::Smatch);
    assert!(!smatch.is_empty() && smatch.len() < total, "{smatch:?}");
    assert!(
        smatch
            .iter()
            .all(|v| v.is_some_and(|v| (5000..=9000).contains(&v))),
        "{smatch:?}"
    );
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("closeness ◂ smatch ▸"), "{s}");
    assert!(s.contains("smatch 0.50–0.90"), "{s}");
    // "to" below "from": invalid, matches nothing, and says so.
    keys(&mut app, &["backspace", "backspace", "2"]);
    assert!(app.model.listing.filter.closeness.invalid());
    assert!(app.model.listing.visible.is_empty());
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("invalid: from > to"), "{s}");
    assert!(
        app.filter_summary().contains("smatch 0.50–0.02 invalid"),
        "{}",
        app.filter_summary()
    );
    // Space on the metric: only the samples without it (the one whose le was taken out).
    keys(&mut app, &["k", "k", "left"]);
    assert_eq!(app.model.listing.filter.closeness.metric, Metric::Le);
    keys(&mut app, &["space"]);
    // The one whose le was taken out and the two whose φ₀ the paper's grammar cannot read.
    assert_eq!(app.filter_summary(), "3/14 · no le");
    keys(&mut app, &["x"]);
    assert_eq!(app.model.listing.visible.len(), total);
    // The metrics after smatch_paper (a fresh viewer): meteor takes a range;
    // bertscore-minilm is named as on every screen.
    let (mut app, t) = viewer(&run);
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Metric {
        keys(&mut app, &["j"]);
    }
    for _ in 0..8 {
        keys(&mut app, &["right"]);
    }
    assert_eq!(app.model.listing.filter.closeness.metric, Metric::Meteor);
    keys(&mut app, &["j", "0", "j", "9", "9"]);
    let meteor = listed(&app, Metric::Meteor);
    assert!(!meteor.is_empty() && meteor.len() < total, "{meteor:?}");
    assert!(
        meteor.iter().all(|v| v.is_some_and(|v| v <= 9900)),
        "{meteor:?}"
    );
    keys(&mut app, &["k", "k", "right"]);
    assert_eq!(
        app.model.listing.filter.closeness.metric,
        Metric::BertscoreMinilm
    );
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("closeness ◂ bertscore-minilm ▸"), "{s}");
}

#[test]
fn overview_names_every_metric_with_a_dash_for_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = scored_run(dir.path());
    let (mut app, t) = viewer(&run);
    // The sample whose le was taken out: filter to it.
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Metric {
        keys(&mut app, &["j"]);
    }
    for _ in 0..5 {
        keys(&mut app, &["right"]);
    }
    keys(&mut app, &["space", "esc"]);
    // First in file order: the one whose le was taken out (the other two lack the
    // paper's metrics altogether).
    assert_eq!(app.model.listing.visible.len(), 3);
    keys(&mut app, &["g"]);
    let s = screens::screen(&mut app, &t, 160, 48);
    let lines: Vec<&str> = s
        .lines()
        .filter(|l| l.contains("closeness ") || l.contains("paper's "))
        .map(|l| l.rsplit('│').nth(1).unwrap_or(l).trim())
        .collect();
    insta::assert_snapshot!("overview_metrics", lines.join("\n"));
    let all = lines.join(" ");
    // bertscore-minilm shows only where a model scored the run (not here).
    for m in Metric::ALL
        .into_iter()
        .filter(|&m| m != Metric::BertscoreMinilm)
    {
        assert!(
            all.contains(&format!("{} ", m.name())),
            "{}: {all}",
            m.name()
        );
    }
    assert!(all.contains("le –"), "{all}");
    assert!(!all.contains("BLEU") && !all.contains("BERTScore"), "{all}");
    assert!(!all.contains("bertscore"), "{all}");
    // E writes the listed sample with a column per metric, le empty.
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
    let mut rd = csv::Reader::from_path(folder.join("samples.csv")).unwrap();
    let head: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    for m in Metric::ALL {
        assert!(head.iter().any(|h| h == m.name()), "{head:?}");
    }
    let row = rd.records().next().unwrap().unwrap();
    let col = |name: &str| {
        row.get(head.iter().position(|h| h == name).unwrap())
            .unwrap()
            .to_string()
    };
    assert_eq!(col("le"), "");
    let rec = records(&run)
        .into_iter()
        .find(|r| r["closeness"].is_object() && r["closeness"].get("le").is_none())
        .unwrap();
    assert_eq!(
        col("smatch").parse::<f64>().unwrap(),
        rec["closeness"]["smatch"].as_f64().unwrap()
    );
}

#[cfg(not(feature = "bertscore"))]
#[test]
fn rescore_refuses_a_bertscore_model_in_a_build_without_the_feature() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixtures::run("fol-small");
    let out = dir.path().join("run");
    let o = bin()
        .arg("rescore")
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .arg("--bertscore-model")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cargo feature `bertscore`") && err.contains("--features bertscore"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}
