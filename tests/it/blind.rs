//! Blind labelling reveals no outcome through any path: every screen, title and status
//! line of a blind session, the first sample it opens on, the keys that would show or
//! write verdicts (`c`, `E`, `S`, the filter's outcome fields, outcome sorts), the rank
//! view after submitting, and the files the session leaves behind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::layer::Mode;
use autoeval::tui::{ViewOptions, build_app_blind};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What must never show while blind: folder names, run ids and model names.
const SECRETS: [&str; 6] = [
    "folder-alpha",
    "folder-beta",
    "alpha-run",
    "beta-run",
    "secret-model-a",
    "secret-model-b",
];

/// Two runs of the same dataset by two "models" (copies of `pl-small`), another
/// annotator's labels on every sample of the first.
fn two_runs(tmp: &Path) -> Vec<PathBuf> {
    let src = common::fixtures::run("pl-small");
    let mut out = vec![];
    for (folder, id, model) in [
        ("folder-alpha", "alpha-run", "secret-model-a"),
        ("folder-beta", "beta-run", "secret-model-b"),
    ] {
        let d = tmp.join(folder);
        std::fs::create_dir_all(&d).unwrap();
        let mut m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(src.join("run.json")).unwrap()).unwrap();
        m["id"] = id.into();
        m["model"]["name"] = model.into();
        m["model"]["synthetic"] = false.into();
        std::fs::write(d.join("run.json"), m.to_string()).unwrap();
        std::fs::copy(src.join("samples.jsonl"), d.join("samples.jsonl")).unwrap();
        out.push(d);
    }
    let ids: Vec<String> = std::fs::read_to_string(out[0].join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for id in &ids {
        autoeval::labels::append(&out[0], id, &["term-omitted".into()], "zed's note", "zed")
            .unwrap();
    }
    out
}

fn files(dirs: &[PathBuf]) -> BTreeSet<String> {
    dirs.iter()
        .flat_map(|d| {
            std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

struct Session {
    app: autoeval::tui::app::App,
    theme: autoeval::tui::theme::Theme,
    seen: Vec<String>,
}

impl Session {
    fn keys(&mut self, ks: &[&str]) {
        for k in ks {
            self.app.press(k).unwrap();
            self.look();
        }
    }

    /// Draws at both sizes and checks the frame (titles and status line included).
    fn look(&mut self) {
        for (w, h) in [(80, 24), (120, 40)] {
            let s = screens::screen(&mut self.app, &self.theme, w, h);
            for secret in SECRETS {
                assert!(!s.contains(secret), "{secret} on screen:\n{s}");
            }
            if self
                .app
                .model
                .selected()
                .is_some_and(|at| self.app.model.hidden(at))
            {
                assert!(
                    !s.contains("zed"),
                    "another annotator's label on screen:\n{s}"
                );
            }
            self.seen.push(s);
        }
        for secret in SECRETS {
            assert!(!self.app.status.contains(secret), "{}", self.app.status);
        }
    }
}

#[test]
fn a_blind_session_reveals_no_outcome_anywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = two_runs(tmp.path());
    let before = files(&dirs);
    let cfg = tmp.path().join("config.toml");
    std::fs::write(&cfg, "annotator = \"dana\"\n").unwrap();
    let (mut app, theme) = build_app_blind(&ViewOptions {
        config: Some(cfg),
        ..screens::options(dirs.clone())
    });
    let export = tmp.path().join("exports");
    app.export_dir = Some(export.clone());
    // Opens on the first sample of the blind order, not on a failure.
    assert_eq!(app.model.listing.sample_list.sel, 0);
    let mut s = Session {
        app,
        theme,
        seen: vec![],
    };
    s.look();
    // Label the first sample: its outcome may show now, the others' may not.
    s.keys(&["a", "3", "esc"]);
    s.keys(&["n"]);
    let at = s.app.model.selected().unwrap();
    assert!(s.app.model.hidden(at), "n lands on an unlabelled sample");
    let detail = screens::screen(&mut s.app, &s.theme, 120, 40);
    let title = detail.lines().find(|l| l.contains("Sample ")).unwrap();
    assert!(
        title.contains("run "),
        "the title calls the run `run N`: {title}"
    );
    // Closed whatever was labelled: compare, chart, label counts, summary, export,
    // rescore, sort by metric.
    for k in ["c", "v", "L", "i", "E", "S", "m"] {
        s.keys(&[k]);
        assert_eq!(s.app.mode(), Mode::Normal, "{k}");
        assert!(s.app.status.starts_with("blind"), "{k}: {}", s.app.status);
    }
    assert!(!export.exists(), "E wrote an export");
    assert!(
        s.app.jobs.rescore.is_none(),
        "S started rescoring while blind"
    );
    // Sorting skips verdict, judge and metric columns.
    for _ in 0..8 {
        s.keys(&["s"]);
        assert!(
            !s.app.model.listing.sort.key.is_some_and(|k| matches!(
                k,
                autoeval::tui::components::sort::SortKey::Verdict
                    | autoeval::tui::components::sort::SortKey::Judge
                    | autoeval::tui::components::sort::SortKey::Metric(_)
            )),
            "{:?}",
            s.app.model.listing.sort
        );
    }
    // The filter's outcome fields stay closed: verdicts, failure kind, judge, passes in,
    // closeness, right/wrong.
    s.keys(&["f"]);
    assert_eq!(s.app.mode(), Mode::Filter);
    let n = autoeval::tui::components::filter_edit::FIELDS;
    for _ in 0..n {
        s.keys(&["right", "space", "enter"]);
        if s.app.mode() != Mode::Filter {
            s.keys(&["f"]);
        }
        s.keys(&["j"]);
    }
    s.keys(&["esc"]);
    let f = &s.app.model.listing.filter;
    assert_eq!(f.passes_in, None, "passes in changed while blind");
    assert!(f.verdicts.is_empty(), "{:?}", f.verdicts);
    assert_eq!(f.failure, None);
    assert_eq!(f.judge, autoeval::tui::model::JudgeFilter::default());
    assert_eq!(
        f.closeness,
        autoeval::tui::model::ClosenessFilter::default()
    );
    assert_eq!(
        f.correct,
        autoeval::tui::model::CorrectFilter::Any,
        "right/wrong"
    );
    // Ranking: submitting names no run, model or verdict.
    s.keys(&["x"]);
    s.keys(&["r"]);
    assert_eq!(s.app.mode(), Mode::Rank, "{}", s.app.status);
    s.keys(&["1", "2", "enter"]);
    assert!(s.app.status.contains("ranking saved"), "{}", s.app.status);
    let shot = s.seen.last().unwrap().clone();
    assert!(!shot.contains("equivalent"), "{shot}");
    s.keys(&["esc"]);
    // Files: only the label and the ranking were written.
    let after = files(&dirs);
    let new: BTreeSet<&str> = after.difference(&before).map(String::as_str).collect();
    assert!(new.contains("ranks.jsonl"), "{new:?}");
    assert!(
        // The row index and the kinds cache keep what was read and proved of the run's
        // own lines, as any viewer session does.
        new.iter().all(|f| {
            [
                "ranks.jsonl",
                "labels.jsonl",
                ".autoeval-index",
                ".autoeval-kinds",
            ]
            .contains(f)
        }),
        "{new:?}"
    );
    let labels = std::fs::read_to_string(dirs[0].join("labels.jsonl")).unwrap_or_default()
        + &std::fs::read_to_string(dirs[1].join("labels.jsonl")).unwrap_or_default();
    let dana: Vec<serde_json::Value> = labels
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["annotator"] == "dana")
        .collect();
    assert_eq!(dana.len(), 1);
    assert_eq!(dana[0]["blind"], true);
}
