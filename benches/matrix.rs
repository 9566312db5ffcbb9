//! Matrix view figures (issue 35): `M` to the drawn matrix on 20 runs × 2,000 samples of
//! one dataset (target ≤ 200 ms), and a key in the matrix to the redrawn frame (target
//! ≤ 16 ms), driving the App through keys into a 120×40 test terminal.
//! Run with `cargo bench --bench matrix`. The runs are cached in target/bench-data.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::tui::{ViewOptions, build_app, ui};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RUNS: usize = 20;
const SAMPLES: usize = 2000;

/// One run of 2,000 samples made with the offline `perturb` model, then 19 copies of it
/// with about one verdict in five flipped (a different pseudo-random fifth per copy), so
/// the columns differ as real models do.
fn ensure_runs() -> PathBuf {
    let exe = env!("CARGO_BIN_EXE_autoeval");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/matrix");
    let runs = dir.join("runs");
    if runs
        .join(format!("run-{:02}", RUNS - 1))
        .join("run.json")
        .exists()
    {
        return runs;
    }
    std::fs::create_dir_all(&runs).expect("bench dir");
    let ds = dir.join("pl-2k.json");
    let ok = std::process::Command::new(exe)
        .args([
            "generate",
            "--kind",
            "pl",
            "--batches",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(&ds)
        .status()
        .expect("generate");
    assert!(ok.success());
    let first = dir.join("first");
    let _ = std::fs::remove_dir_all(&first);
    let ok = std::process::Command::new(exe)
        .args([
            "run",
            "--model",
            "perturb",
            "--concurrency",
            "8",
            "--quiet",
            "--limit",
        ])
        .arg(SAMPLES.to_string())
        .arg("--dataset")
        .arg(&ds)
        .arg("--out")
        .arg(&first)
        .status()
        .expect("run");
    assert!(ok.success());
    let manifest = std::fs::read_to_string(first.join("run.json")).unwrap();
    let samples = std::fs::read_to_string(first.join("samples.jsonl")).unwrap();
    let id: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let id = id["id"].as_str().unwrap().to_string();
    for k in 0..RUNS {
        let d = runs.join(format!("run-{k:02}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("run.json"),
            manifest.replace(&format!("\"{id}\""), &format!("\"run-{k:02}\"")),
        )
        .unwrap();
        let mut out = String::with_capacity(samples.len());
        for (n, line) in samples.lines().enumerate() {
            let flip = k > 0 && (n * 2_654_435_761 + k * 40_503).is_multiple_of(5);
            if flip && line.contains("\"verdict\":{\"verdict\":\"equivalent\"") {
                out.push_str(&line.replace(
                    "\"verdict\":{\"verdict\":\"equivalent\"",
                    "\"verdict\":{\"verdict\":\"not-equivalent\"",
                ));
            } else if flip {
                out.push_str(&line.replace(
                    "\"verdict\":{\"verdict\":\"not-equivalent\"",
                    "\"verdict\":{\"verdict\":\"equivalent\"",
                ));
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        std::fs::write(d.join("samples.jsonl"), out).unwrap();
    }
    runs
}

fn stats(name: &str, mut xs: Vec<Duration>) {
    xs.sort();
    let p = |q: f64| xs[((xs.len() - 1) as f64 * q) as usize];
    println!(
        "{name}: median {:.2?}, p99 {:.2?}, max {:.2?} ({} keys)",
        p(0.5),
        p(0.99),
        xs[xs.len() - 1],
        xs.len()
    );
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    // Never the developer's config, themes or remembered form.
    let cfg = std::env::temp_dir().join(format!("autoeval-bench-cfg-{}", std::process::id()));
    autoeval::tui::theme::use_config_dir(cfg);
    let runs = ensure_runs();
    let (mut app, theme) = build_app(&ViewOptions {
        paths: vec![runs.clone()],
        theme: None,
        config: Some(Path::new("/nonexistent").to_path_buf()),
    });
    let rows: usize = app.model.runs.iter().map(|r| r.rows.len()).sum();
    println!(
        "{} runs, {rows} samples ({})",
        app.model.runs.len(),
        runs.display()
    );
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    let mut key = |app: &mut autoeval::tui::app::App, k: &str| {
        let t = Instant::now();
        app.press(k).unwrap();
        term.draw(|f| {
            ui::view(f, app, &theme);
        })
        .expect("draw");
        t.elapsed()
    };
    key(&mut app, "g");
    let mut open = Vec::new();
    for _ in 0..10 {
        open.push(key(&mut app, "M"));
        assert_eq!(app.mode(), autoeval::tui::layer::Mode::Matrix);
        let m = app
            .layers
            .iter()
            .find_map(|l| match l {
                autoeval::tui::layer::Layer::Matrix(m) => Some(&**m),
                _ => None,
            })
            .unwrap();
        assert_eq!(m.columns.len(), RUNS);
        key(&mut app, "esc");
    }
    stats("M to the drawn matrix (120×40)", open);
    key(&mut app, "M");
    let mut moves = Vec::new();
    for _ in 0..20 {
        for k in ["j", "j", "l", "pagedown", "l", "k", "h", "G", "g", "pageup"] {
            moves.push(key(&mut app, k));
        }
    }
    stats("a move in the matrix to the redrawn frame", moves);
    // A sort from inside the matrix re-sorts the list and rebuilds the matrix.
    let sorts: Vec<Duration> = (0..10).map(|_| key(&mut app, "s")).collect();
    stats("s (sort) in the matrix to the redrawn frame", sorts);
}
