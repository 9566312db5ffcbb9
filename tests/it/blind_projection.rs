//! Blind sessions by construction: a blind session's screens, search, filters, sorts,
//! copies and status line depend only on what an annotator may see. Each leak found
//! one path at a time (ψ struck through on a copied sample, search over others' notes,
//! the filter's label fields and "annotators disagree", the Overview's underlined
//! difference) is driven through keys; then a property drives random keys over two
//! sets of runs that differ only in what must stay hidden (verdicts, copy spans,
//! failure kinds, scores, other annotators' labels and notes, model names, all planted
//! with canaries) and asserts every frame, status line and clipboard is the same.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::app::App;
use autoeval::tui::theme::Theme;
use autoeval::tui::{ViewOptions, build_app_blind};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Planted in every hidden field of the "secret" world.
const CANARY: &str = "QXQX";

/// What the secret world does to a sample's outcome.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// As in the fixture.
    Kept,
    /// The copy check struck: a span of ψ.
    Copied,
    /// φ₁ did not parse.
    Unparseable,
    /// The call failed.
    ModelError,
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        Just(Outcome::Kept),
        Just(Outcome::Copied),
        Just(Outcome::Unparseable),
        Just(Outcome::ModelError)
    ]
}

/// Sets a sample's verdict (top level and round 1) and drops φ₁ where it did not parse.
fn set_outcome(v: &mut serde_json::Value, o: Outcome) {
    let verdict = match o {
        Outcome::Kept => return,
        Outcome::Copied => serde_json::json!({"verdict": "copied", "span": [0, 4],
            "detail": format!("{CANARY}-copied")}),
        Outcome::Unparseable => serde_json::json!({"verdict": "unparseable", "pos": 1,
            "reason": format!("{CANARY}-reason")}),
        Outcome::ModelError => {
            serde_json::json!({"verdict": "model-error", "message": format!("{CANARY}-error")})
        }
    };
    v["verdict"] = verdict.clone();
    v["rounds_passed"] = 0.into();
    v["rounds"][0]["verdict"] = verdict;
    v["rounds"][0]["phi1"] = serde_json::Value::Null;
    v["rounds"][0]["phi1_span"] = serde_json::Value::Null;
}

/// Two runs copied from `pl-small` under `tmp`. `secret`: per sample, its outcome and
/// whether two other annotators (disagreeing, with canary notes) labelled it; model
/// names carry the canary. Without it every sample is equivalent, nobody else labelled
/// anything, and the models are plain: the same φ₀, ψ, replies, ids and sizes.
fn world(tmp: &Path, secret: Option<&[(Outcome, bool)]>) -> Vec<PathBuf> {
    let src = common::fixtures::run("pl-small");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(src.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut dirs = vec![];
    for (k, (folder, id)) in [("folder-one", "run-one"), ("folder-two", "run-two")]
        .into_iter()
        .enumerate()
    {
        let d = tmp.join(folder);
        std::fs::create_dir_all(&d).unwrap();
        let mut m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(src.join("run.json")).unwrap()).unwrap();
        m["id"] = id.into();
        m["model"]["name"] = if secret.is_some() {
            format!("{CANARY}-model-{k}").into()
        } else {
            "plain-model".into()
        };
        m["model"]["synthetic"] = false.into();
        std::fs::write(d.join("run.json"), m.to_string()).unwrap();
        let mut out = String::new();
        for (j, line) in lines.iter().enumerate() {
            let mut v = line.clone();
            if let Some(s) = secret {
                set_outcome(&mut v, s[(j + k) % s.len()].0);
            } else {
                let eq = serde_json::json!({"verdict": "equivalent"});
                v["verdict"] = eq.clone();
                v["rounds_passed"] = 1.into();
                v["rounds"][0]["verdict"] = eq;
                v["rounds"][0]["phi1"] = v["phi0"].clone();
                v.as_object_mut().unwrap().remove("closeness");
            }
            out.push_str(&v.to_string());
            out.push('\n');
        }
        std::fs::write(d.join("samples.jsonl"), out).unwrap();
        if let Some(s) = secret {
            for (j, line) in lines.iter().enumerate() {
                if !s[(j + k) % s.len()].1 {
                    continue;
                }
                let sid = line["id"].as_str().unwrap();
                let note = format!("{CANARY} note luckypass");
                for (who, cat) in
                    [("term-omitted", "QXQXann"), ("lucky-pass", "QXQXbob")].map(|(c, w)| (w, c))
                {
                    autoeval::labels::append(&d, sid, &[cat.to_string()], &note, who).unwrap();
                }
            }
        }
        dirs.push(d);
    }
    dirs
}

fn blind(tmp: &Path, dirs: Vec<PathBuf>) -> (App, Theme) {
    let cfg = tmp.join("config.toml");
    std::fs::write(&cfg, "annotator = \"dana\"\n").unwrap();
    let (mut app, theme) = build_app_blind(&ViewOptions {
        config: Some(cfg),
        ..screens::options(dirs)
    });
    app.export_dir = Some(tmp.join("exports"));
    app.pump();
    (app, theme)
}

fn keys(app: &mut App, ks: &[&str]) {
    for k in ks {
        app.press(k).unwrap();
        app.pump();
    }
}

/// Selects the first sample whose run-one record has verdict `name`.
fn select(app: &mut App, name: &str) {
    let m = &app.model;
    let k = m
        .listing
        .visible
        .iter()
        .position(|&(r, i)| r == 0 && m.runs[0].rows[i as usize].verdict.name() == name)
        .unwrap();
    app.model.listing.sample_list.sel = k;
    app.pump();
}

/// Every sample copied, others' labels on all of them.
fn all(o: Outcome) -> Vec<(Outcome, bool)> {
    vec![(o, true)]
}

#[test]
fn a_copied_psi_is_not_struck_through_while_blind() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = world(tmp.path(), Some(&all(Outcome::Copied)));
    let (mut app, theme) = blind(tmp.path(), dirs);
    select(&mut app, "copied");
    let buf = screens::render(&mut app, &theme, 120, 40);
    let struck = buf
        .content()
        .iter()
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::CROSSED_OUT))
        .count();
    assert_eq!(struck, 0, "ψ struck through while blind");
}

#[test]
fn search_reads_no_other_annotators_labels_or_notes() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = world(
        tmp.path(),
        Some(&[(Outcome::Kept, true), (Outcome::Kept, false)]),
    );
    let (mut app, _) = blind(tmp.path(), dirs);
    for q in ["luckypass", "qxqx"] {
        keys(&mut app, &["/"]);
        for c in q.chars() {
            keys(&mut app, &[&c.to_string()]);
        }
        assert!(
            app.model.listing.visible.is_empty(),
            "/{q} found {} samples through others' labels",
            app.model.listing.visible.len()
        );
        keys(&mut app, &["esc"]);
    }
}

#[test]
fn the_filters_label_fields_read_only_this_annotators_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = world(tmp.path(), Some(&all(Outcome::Kept)));
    let (mut app, _) = blind(tmp.path(), dirs);
    let total = app.model.listing.visible.len();
    use autoeval::tui::components::filter_edit::Field;
    let to = |app: &mut App, f: Field| {
        keys(app, &["f"]);
        for _ in 0..autoeval::tui::components::filter_edit::FIELDS {
            match app.layers.last() {
                Some(autoeval::tui::layer::Layer::Filter(ed)) if ed.field != f => {
                    keys(app, &["j"]);
                }
                _ => break,
            }
        }
    };
    // "labels: labelled": dana labelled nothing.
    to(&mut app, Field::Labels);
    keys(&mut app, &["right"]);
    assert_eq!(
        app.model.listing.filter.labels,
        autoeval::tui::model::LabelFilter::Labelled
    );
    assert_eq!(app.model.listing.visible.len(), 0, "labelled by others");
    keys(&mut app, &["left", "esc"]);
    // "label any of" term omitted (others gave it everywhere).
    to(&mut app, Field::LabelAny);
    keys(&mut app, &["space"]);
    assert!(!app.model.listing.filter.label_any.is_empty());
    assert_eq!(app.model.listing.visible.len(), 0, "others' categories");
    keys(&mut app, &["space", "esc"]);
    assert_eq!(app.model.listing.visible.len(), total);
    // "annotators: disagree" reads the others' labels: closed, and it says why.
    to(&mut app, Field::Disagree);
    keys(&mut app, &["right"]);
    assert_eq!(
        app.model.listing.filter.disagree,
        autoeval::tui::model::DisagreeFilter::Any
    );
    assert!(app.status.starts_with("blind:"), "{}", app.status);
    assert_eq!(app.model.listing.visible.len(), total);
}

#[test]
fn the_overview_marks_no_difference_and_shows_the_reply_while_blind() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = world(tmp.path(), Some(&all(Outcome::Kept)));
    let (mut app, theme) = blind(tmp.path(), dirs);
    select(&mut app, "not-equivalent");
    // The Overview's φ₀ row: no cell of it set apart (the smallest subformula holding
    // every difference was underlined on the selection colour).
    let buf = screens::render(&mut app, &theme, 120, 40);
    let area = buf.area;
    let (x0, y) = (0..area.height)
        .flat_map(|y| (0..area.width - 1).map(move |x| (x, y)))
        .find(|&(x, y)| buf[(x, y)].symbol() == "φ" && buf[(x + 1, y)].symbol() == "₀")
        .unwrap();
    let marked = (x0..area.width)
        .filter(|&x| {
            let c = &buf[(x, y)];
            c.modifier.contains(ratatui::style::Modifier::UNDERLINED) || c.bg == theme.selection_bg
        })
        .count();
    assert_eq!(
        marked, 0,
        "φ₀ drawn with its differing part marked while blind"
    );
    let text = screens::screen(&mut app, &theme, 120, 40);
    assert!(text.contains("reply"), "{text}");
    assert!(
        !text.contains("φ₁"),
        "φ₁'s parse shown while blind:\n{text}"
    );
}

/// Keys a blind annotator may press (labelling aside: a labelled sample shows its
/// outcome by design).
const KEYS: &[&str] = &[
    "j",
    "k",
    "/",
    "q",
    "x",
    "o",
    "e",
    "t",
    "enter",
    "esc",
    "f",
    "right",
    "left",
    "space",
    "tab",
    "shift-tab",
    "y",
    "1",
    "2",
    "3",
    "4",
    "5",
    "s",
    "S",
    "E",
    "c",
    "v",
    "i",
    "L",
    "A",
    "r",
    "w",
    "g",
    "n",
    "?",
    "pagedown",
    "ctrl-r",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_blind_session_is_the_same_whatever_the_hidden_fields_hold(
        secret in prop::collection::vec((outcome(), any::<bool>()), 1..6),
        ks in prop::collection::vec(prop::sample::select(KEYS), 1..30),
    ) {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let (mut open, theme) = blind(a.path(), world(a.path(), None));
        let (mut hid, _) = blind(b.path(), world(b.path(), Some(&secret)));
        for (n, k) in ks.iter().enumerate() {
            // `q` would quit: typed only into the search box here.
            if *k == "q" && !open.is(autoeval::tui::layer::Mode::Search) {
                continue;
            }
            keys(&mut open, &[k]);
            keys(&mut hid, &[k]);
            let at = format!("after {:?}", &ks[..=n]);
            for (w, h) in [(80, 24), (120, 40)] {
                let x = screens::styled(&mut open, &theme, w, h);
                let y = screens::styled(&mut hid, &theme, w, h);
                prop_assert!(!y.contains(CANARY), "canary on screen {at}:\n{y}");
                prop_assert_eq!(&x, &y, "frames differ {}", at);
            }
            prop_assert_eq!(&open.status, &hid.status, "status {}", at);
            prop_assert_eq!(&open.clipboard, &hid.clipboard, "clipboard {}", at);
            prop_assert!(!hid.status.contains(CANARY));
            prop_assert!(!b.path().join("exports").exists(), "an export was written");
        }
    }
}
