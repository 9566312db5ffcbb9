//! Research-workflow figures (failure types, comparison, figures issue): on 100,000
//! samples across 5 runs, a failure-kind and a label filter keystroke (to the redrawn
//! frame); the pass/fail matrix of two 100,000-sample runs (in the viewer's data and
//! `autoeval compare` end to end); `autoeval report --plot` end to end.
//! Run with `cargo bench --bench research`; data is cached in target/bench-data.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A bench's `main` is its list of figures, in the order they print.
#![allow(clippy::too_many_lines)]

use autoeval::tui::{ViewOptions, build_app, ui};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_autoeval")
}

fn finished(run: &Path) -> bool {
    std::fs::read_to_string(run.join("run.json"))
        .unwrap_or_default()
        .contains("\"finished\"")
}

fn generate(ds: &Path, batches: &str) {
    if ds.exists() {
        return;
    }
    let ok = Command::new(exe())
        .args([
            "generate",
            "--kind",
            "pl",
            "--batches",
            batches,
            "--quiet",
            "--out",
        ])
        .arg(ds)
        .status()
        .expect("generate");
    assert!(ok.success());
}

fn offline_run(ds: &Path, run: &Path, rate: &str) {
    if finished(run) {
        return;
    }
    let _ = std::fs::remove_dir_all(run);
    let ok = Command::new(exe())
        .args(["run", "--model", "perturb", "--perturb-rate", rate])
        .args(["--concurrency", "64", "--quiet", "--dataset"])
        .arg(ds)
        .arg("--out")
        .arg(run)
        .status()
        .expect("run");
    assert!(ok.success());
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/research");
    std::fs::create_dir_all(&data).expect("bench dir");
    // Five runs of ~20,000 samples each (10 PL batches), different perturbation rates.
    let five = data.join("five");
    std::fs::create_dir_all(&five).expect("dir");
    let ds20 = data.join("pl-20k.json");
    generate(&ds20, "10");
    for (k, rate) in ["0.1", "0.3", "0.5", "0.7", "0.9"].iter().enumerate() {
        offline_run(&ds20, &five.join(format!("run{k}")), rate);
    }
    // Labels on a few hundred samples, so the label filter has work to do.
    let labels = five.join("run1/labels.jsonl");
    if !labels.exists() {
        let mut text = String::new();
        for id in (0..20_000).step_by(50) {
            text.push_str(&format!(
                "{{\"id\":\"{id}\",\"categories\":[\"negation-misplaced\"],\"note\":\"\",\"annotator\":\"bench\",\"time\":\"2026-01-01T00:00:00Z\"}}\n"
            ));
        }
        std::fs::write(&labels, text).expect("labels");
    }

    let (mut app, _) = build_app(&ViewOptions {
        paths: vec![five.clone()],
        theme: None,
        config: Some(PathBuf::from("/nonexistent/autoeval-config.toml")),
    });
    let theme = autoeval::tui::theme::Theme::load("default").0;
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let rows: usize = app.model.runs.iter().map(|r| r.rows.len()).sum();
    let mut time_key = |app: &mut autoeval::tui::app::App, k: &str| {
        let t = Instant::now();
        app.press(k).unwrap();
        term.draw(|f| {
            ui::view(f, app, &theme);
        })
        .expect("draw");
        t.elapsed()
    };
    let mut kind_times = Vec::new();
    let mut label_times = Vec::new();
    for _ in 0..5 {
        app.press("f").unwrap();
        while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Failure {
            app.press("j").unwrap();
        }
        for _ in 0..6 {
            kind_times.push(time_key(&mut app, "right"));
        }
        app.press("x").unwrap();
        app.press("j").unwrap();
        for _ in 0..2 {
            label_times.push(time_key(&mut app, "right"));
        }
        app.press("x").unwrap();
        app.press("esc").unwrap();
    }
    println!(
        "{rows} samples in 5 runs: failure-kind filter keystroke → frame median {:.1?}, max {:.1?}; label filter median {:.1?}, max {:.1?}",
        median(kind_times.clone()),
        kind_times.iter().max().copied().unwrap_or_default(),
        median(label_times.clone()),
        label_times.iter().max().copied().unwrap_or_default(),
    );

    // Two ~100,000-sample runs of the same dataset.
    let ds100 = data.join("pl-100k.json");
    generate(&ds100, "51");
    let (a, b) = (data.join("a100k"), data.join("b100k"));
    offline_run(&ds100, &a, "0.3");
    offline_run(&ds100, &b, "0.6");
    let pair = data.join("pair");
    std::fs::create_dir_all(&pair).expect("dir");
    for (src, name) in [(&a, "a100k"), (&b, "b100k")] {
        let link = pair.join(name);
        if !link.exists() {
            std::os::unix::fs::symlink(src, &link).expect("symlink");
        }
    }
    let (app2, _) = build_app(&ViewOptions {
        paths: vec![pair.clone()],
        theme: None,
        config: Some(PathBuf::from("/nonexistent/autoeval-config.toml")),
    });
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let outcomes = autoeval::tui::model::outcomes;
        let m = autoeval::report::compare::build([
            (app2.model.runs[0].name(), outcomes(&app2.model.runs[0])),
            (app2.model.runs[1].name(), outcomes(&app2.model.runs[1])),
        ]);
        let p = m.pair(0, 1);
        let _ = p.mcnemar_p();
        times.push(t.elapsed());
        n = p.n();
    }
    println!(
        "pass/fail matrix of two runs ({n} shared φ₀) from the viewer's rows: median {:.1?}",
        median(times)
    );
    let mut times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let o = Command::new(exe())
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .output()
            .expect("compare");
        assert!(o.status.success());
        times.push(t.elapsed());
    }
    println!(
        "autoeval compare on the two runs, end to end (load both, match, test): median {:.2?}",
        median(times)
    );
    let plot = data.join("fig.svg");
    let mut times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let o = Command::new(exe())
            .arg("report")
            .arg(&five)
            .arg("--plot")
            .arg(&plot)
            .output()
            .expect("report");
        assert!(o.status.success());
        times.push(t.elapsed());
    }
    println!(
        "autoeval report --plot on the 5 runs ({rows} samples), end to end: median {:.2?}",
        median(times)
    );
}
