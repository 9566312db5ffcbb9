//! Viewer figures (issue 5) on a ~100,000-sample run made with the offline model:
//! open to first frame, keystroke to redrawn frame (filters and search), peak memory.
//! Run with `cargo bench --bench tui`. The run is cached in target/bench-data.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use autoeval::tui::{ViewOptions, build_app, ui};
use common::{FakeModel, Reply, Server, openai_body, prompt_of};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn hwm_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0)
        / 1024
}

fn ensure_run() -> PathBuf {
    let exe = env!("CARGO_BIN_EXE_autoeval");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let run = dir.join("pl-100k-run");
    if run.join("run.json").exists()
        && std::fs::read_to_string(run.join("run.json"))
            .unwrap_or_default()
            .contains("\"finished\"")
    {
        return run;
    }
    let _ = std::fs::remove_dir_all(&run);
    std::fs::create_dir_all(&dir).expect("bench dir");
    let ds = dir.join("pl-100k.json");
    let ok = std::process::Command::new(exe)
        .args([
            "generate",
            "--kind",
            "pl",
            "--batches",
            "51",
            "--quiet",
            "--out",
        ])
        .arg(&ds)
        .status()
        .expect("generate");
    assert!(ok.success());
    let ok = std::process::Command::new(exe)
        .args([
            "run",
            "--model",
            "perturb",
            "--concurrency",
            "32",
            "--quiet",
            "--dataset",
        ])
        .arg(&ds)
        .arg("--out")
        .arg(&run)
        .status()
        .expect("run");
    assert!(ok.success());
    run
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    // Never the developer's config, themes or remembered form.
    let cfg = std::env::temp_dir().join(format!("autoeval-bench-cfg-{}", std::process::id()));
    autoeval::tui::theme::use_config_dir(cfg.clone());
    long_reasoning();
    // `cargo bench --bench tui -- reasoning`: the long-text figures alone.
    if std::env::args().any(|a| a == "reasoning") {
        return;
    }
    let run = ensure_run();
    let before = hwm_mb();
    let t = Instant::now();
    let (mut app, theme) = build_app(&ViewOptions {
        paths: vec![run],
        theme: None,
        config: Some(PathBuf::from("/nonexistent")),
    });
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    term.draw(|f| {
        ui::view(f, &app, &theme);
    })
    .expect("draw");
    let open = t.elapsed();
    let rows: usize = app.model.runs.iter().map(|r| r.rows.len()).sum();
    println!("open {rows} samples to first frame (160×48): {open:.2?}");
    let mut times = Vec::new();
    let key = |app: &mut autoeval::tui::app::App, k: &str, term: &mut Terminal<TestBackend>| {
        let t = Instant::now();
        app.press(k).unwrap();
        term.draw(|f| {
            ui::view(f, app, &theme);
        })
        .expect("draw");
        t.elapsed()
    };
    // Search keystrokes: type, delete, retype; then filter-editor keystrokes.
    for _ in 0..5 {
        for k in [
            "/",
            "p",
            "1",
            "2",
            "∧",
            "backspace",
            "backspace",
            "backspace",
            "backspace",
            "esc",
        ] {
            let d = key(&mut app, k, &mut term);
            if k != "/" {
                times.push(("search", d));
            }
        }
        for k in [
            "f", "j", "j", "j", "space", "right", "right", "left", "space", "esc", "x",
        ] {
            let d = key(&mut app, k, &mut term);
            if !matches!(k, "f" | "j" | "esc") {
                times.push(("filter", d));
            }
        }
    }
    for kind in ["search", "filter"] {
        let xs: Vec<Duration> = times
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, d)| *d)
            .collect();
        let max = xs.iter().max().copied().unwrap_or_default();
        println!(
            "{kind} keystroke to redrawn frame: median {:.2?}, max {max:.2?} ({} keystrokes)",
            median(xs.clone()),
            xs.len()
        );
    }
    let nav: Vec<Duration> = (0..200).map(|_| key(&mut app, "j", &mut term)).collect();
    println!("move keystroke to frame: median {:.2?}", median(nav));
    println!(
        "peak memory: {} MB (process high-water mark; {before} MB before opening)",
        hwm_mb()
    );
    live_responsiveness();
}

/// Keystroke to frame while a live run keeps 32 requests in flight (100 ms each) and
/// verifies as answers arrive.
fn live_responsiveness() {
    let model = FakeModel::new();
    let server = Server::start(move |_, r| Reply {
        delay: Duration::from_millis(100),
        ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    });
    let dir = std::env::temp_dir().join(format!("autoeval-live-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let (mut app, theme) = build_app(&ViewOptions {
        paths: vec![dir.clone()],
        theme: None,
        config: Some(PathBuf::from("/nonexistent")),
    });
    app.press("R").unwrap();
    let base = format!("{}/v1", server.base);
    let out = dir.join("run").display().to_string();
    let form = app.form_mut().expect("form");
    for (k, v) in [
        ("dataset", "fol"),
        ("seed", "1"),
        ("per_category", "50"),
        ("model", "openai:fake"),
        ("base_url", base.as_str()),
        ("api_key_env", "AE_BENCH_NO_KEY"),
        ("shots", "0"),
        ("prompts", ""),
        ("rounds", "1"),
        ("concurrency", "32"),
        ("limit", "1500"),
        ("out", out.as_str()),
    ] {
        form.set(k, v);
    }
    app.press("enter").unwrap();
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let start = Instant::now();
    while app.jobs.live.as_ref().is_some_and(|l| l.done < 50)
        && start.elapsed() < Duration::from_secs(60)
    {
        app.pump();
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut times = Vec::new();
    for (i, k) in [
        "j",
        "k",
        "/",
        "p",
        "1",
        "backspace",
        "backspace",
        "enter",
        "j",
        "]",
        "[",
    ]
    .iter()
    .cycle()
    .take(220)
    .enumerate()
    {
        app.pump();
        let t = Instant::now();
        app.press(k).unwrap();
        term.draw(|f| {
            ui::view(f, &app, &theme);
        })
        .expect("draw");
        times.push(t.elapsed());
        if i % 11 == 10 {
            std::thread::sleep(Duration::from_millis(30));
        }
    }
    let done = app.jobs.live.as_ref().map_or(0, |l| l.done);
    let max = times.iter().max().copied().unwrap_or_default();
    println!(
        "keystroke to frame during a live FOL run (32 in flight, 100 ms answers, {done} samples done): median {:.2?}, max {max:.2?}",
        median(times)
    );
    if let Some(l) = app.jobs.live.as_mut() {
        l.cancel();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 48: keystroke to frame on a sample with 18 MB, then just under 64 MiB (what a
/// run file's line holds), of reasoning in the Raw tab: unfolding it (`z`), scrolling
/// (`j`), jumping to its end (`G`) and up from there (`k`), back to the top (`g`),
/// and folding it again.
fn long_reasoning() {
    for (name, size) in [("18 MB", 18_000_000), ("63.9 MiB", (64 << 20) - (96 << 10))] {
        long_reasoning_of(name, size);
    }
}

fn long_reasoning_of(name: &str, size: usize) {
    let dir = std::env::temp_dir().join(format!("autoeval-long-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = dir.join("long");
    std::fs::create_dir_all(&run).expect("dir");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/pl-small");
    std::fs::copy(src.join("run.json"), run.join("run.json")).expect("run.json");
    let first = std::fs::read_to_string(src.join("samples.jsonl")).expect("samples");
    let mut rec: serde_json::Value =
        serde_json::from_str(first.lines().next().expect("line")).expect("json");
    // Paragraphs of prose, as a model writes them.
    let para = "Consider the formula again: if p3 holds then the conjunction needs p8, and the \
                negation of p5 follows from the second premise, so the disjunction is true. ";
    let mut text = String::with_capacity(size);
    while text.len() + 6 * para.len() < size {
        text.push_str(&para.repeat(6));
        text.push('\n');
    }
    rec["rounds"][0]["informalize"]["reasoning"] = text.into();
    std::fs::write(run.join("samples.jsonl"), format!("{rec}\n")).expect("write");
    let (mut app, theme) = build_app(&ViewOptions {
        paths: vec![run],
        theme: None,
        config: Some(PathBuf::from("/nonexistent")),
    });
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut key = |app: &mut autoeval::tui::app::App, k: &str| {
        let t = Instant::now();
        app.press(k).unwrap();
        term.draw(|f| {
            ui::view(f, app, &theme);
        })
        .expect("draw");
        t.elapsed()
    };
    for k in ["tab", "]", "]", "]"] {
        key(&mut app, k);
    }
    let unfold = key(&mut app, "z");
    let mut moves = Vec::new();
    for _ in 0..50 {
        moves.push(key(&mut app, "j"));
    }
    let end = key(&mut app, "G");
    let mut ups = Vec::new();
    for _ in 0..50 {
        ups.push(key(&mut app, "k"));
    }
    let top = key(&mut app, "g");
    let fold = key(&mut app, "z");
    let again = key(&mut app, "z");
    let max = moves.iter().max().copied().unwrap_or_default();
    let up_max = ups.iter().max().copied().unwrap_or_default();
    println!(
        "{name} reasoning (160×48): z unfolds {unfold:.2?} (first), again {again:.2?}; \
         j median {:.2?} max {max:.2?}; G {end:.2?}; k after G median {:.2?} max {up_max:.2?}; \
         g {top:.2?}; z folds {fold:.2?}",
        median(moves.clone()),
        median(ups.clone())
    );
    let _ = std::fs::remove_dir_all(&dir);
}
