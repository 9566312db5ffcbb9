//! Scale figures (issue 14), measured end to end on run directories made by
//! `benches/million.sh`:
//! - `autoeval report DIR`: wall time and peak RSS, cold (no row index yet) and warm;
//! - `autoeval view DIR` in a pseudo-terminal: process start to the first frame, and the
//!   viewer's peak RSS;
//! - keystroke written to the terminal → the redrawn frame read back, for search and
//!   filter keys (median, p99, max);
//! - in process: jump to a sample by id (`:` RUN/ID Enter), also when a filter hides it
//!   (`AUTOEVAL_SCALE=jump` measures only that);
//! - `AUTOEVAL_SCALE=fresh`: runs nobody has opened (row index and kinds cache removed):
//!   process start to the first frame and to every row listed, and keystrokes while
//!   the kinds are still being proved in the background.
//!
//! `cargo bench --bench scale -- DIR` (default `target/bench-data/million/runs`). Needs
//! `script` (util-linux) and GNU `time` at /usr/bin/time.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A bench's `main` is its list of figures, in the order they print.
#![allow(clippy::too_many_lines)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_autoeval")
}

fn remove_indexes(dir: &Path) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            let _ = std::fs::remove_file(p.join(".autoeval-index"));
        }
    }
    let _ = std::fs::remove_file(dir.join(".autoeval-index"));
}

/// Wall seconds and peak RSS (MB) of `autoeval ARGS`.
fn timed(args: &[&str]) -> (f64, f64) {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "TIME %e %M"])
        .arg(exe())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("GNU time at /usr/bin/time");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().rfind(|l| l.starts_with("TIME ")).unwrap_or("");
    let mut it = line.split_whitespace().skip(1);
    let secs = it.next().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN);
    let kb: f64 = it.next().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN);
    (secs, kb / 1024.0)
}

struct Pty {
    child: std::process::Child,
    rx: mpsc::Receiver<(Instant, Vec<u8>)>,
    seen: Vec<u8>,
}

impl Pty {
    fn spawn(dir: &Path) -> (Pty, Instant) {
        let cmd = format!(
            "stty cols 160 rows 48; exec {} view {}",
            exe(),
            dir.display()
        );
        let start = Instant::now();
        let mut child = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the `script` command (util-linux)");
        let mut out = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 || tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                    break;
                }
            }
        });
        (
            Pty {
                child,
                rx,
                seen: Vec::new(),
            },
            start,
        )
    }

    /// Waits until the output contains `needle`; returns when the chunk holding it came.
    fn wait_for(&mut self, needle: &str, limit: Duration) -> Option<Instant> {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            if let Ok((t, chunk)) = self.rx.recv_timeout(Duration::from_millis(50)) {
                self.seen.extend_from_slice(&chunk);
                if String::from_utf8_lossy(&self.seen).contains(needle) {
                    return Some(t);
                }
            }
        }
        None
    }

    fn drain(&mut self) {
        while self.rx.recv_timeout(Duration::from_millis(30)).is_ok() {}
        self.seen.clear();
    }

    /// Writes `key`; returns the time until the frame it caused was written (the end of
    /// the first burst of output after it).
    fn key(&mut self, key: &[u8]) -> Option<Duration> {
        self.drain();
        let stdin = self.child.stdin.as_mut()?;
        let t0 = Instant::now();
        stdin.write_all(key).ok()?;
        stdin.flush().ok()?;
        let (mut last, _) = self.rx.recv_timeout(Duration::from_secs(10)).ok()?;
        while let Ok((t, _)) = self.rx.recv_timeout(Duration::from_millis(5)) {
            last = t;
        }
        Some(last - t0)
    }

    /// The viewer's peak RSS in MB (the `autoeval view` process under `script`).
    fn peak_rss_mb(&self) -> Option<f64> {
        let me = self.child.id();
        for e in std::fs::read_dir("/proc").ok()?.flatten() {
            let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
            let ppid = status
                .lines()
                .find(|l| l.starts_with("PPid:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u32>().ok());
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            // `script` runs the shell, which execs the viewer: its child.
            if ppid == Some(me) && cmd.starts_with(exe().as_bytes()) {
                let kb: f64 = status
                    .lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())?;
                return Some(kb / 1024.0);
            }
        }
        None
    }

    fn quit(mut self) {
        if let Some(s) = self.child.stdin.as_mut() {
            let _ = s.write_all(b"q");
        }
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
    }
}

fn stats(name: &str, mut xs: Vec<Duration>) {
    if xs.is_empty() {
        println!("{name}: no frames seen");
        return;
    }
    xs.sort();
    let q = |p: f64| xs[((xs.len() - 1) as f64 * p).round() as usize];
    println!(
        "{name}: median {:.1?}, p99 {:.1?}, max {:.1?} ({} keystrokes)",
        q(0.5),
        q(0.99),
        xs[xs.len() - 1],
        xs.len()
    );
}

fn samples(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(f) = std::fs::File::open(e.path().join("samples.jsonl")) {
            let mut r = std::io::BufReader::with_capacity(1 << 20, f);
            let mut buf = vec![0u8; 1 << 20];
            while let Ok(k) = r.read(&mut buf) {
                if k == 0 {
                    break;
                }
                n += buf[..k].split(|&b| b == b'\n').count() - 1;
            }
        }
    }
    n
}

/// A run directory beside the big ones that a thread grows by `rate` samples a second
/// (lines of an existing run, ids renumbered), until `stop` is set.
fn grow(
    template: &Path,
    live: &Path,
    rate: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    let _ = std::fs::remove_dir_all(live);
    std::fs::create_dir_all(live).expect("live dir");
    // The run list shows the manifest's id: name the copy after its folder.
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(template.join("run.json")).expect("manifest"))
            .expect("manifest json");
    m["id"] = serde_json::json!(live.file_name().map(|n| n.to_string_lossy().to_string()));
    std::fs::write(live.join("run.json"), m.to_string()).expect("manifest");
    std::fs::write(live.join("samples.jsonl"), "").expect("samples");
    let text = std::fs::read_to_string(template.join("samples.jsonl")).expect("template");
    let lines: Vec<String> = text.lines().take(20_000).map(str::to_string).collect();
    let live = live.to_path_buf();
    std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(live.join("samples.jsonl"))
            .expect("append");
        let mut n = 0usize;
        let tick = Duration::from_millis(100);
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let t = Instant::now();
            let mut chunk = String::new();
            for _ in 0..rate / 10 {
                let l = &lines[n % lines.len()];
                // A fresh id per line: `"id":"…"` is the record's first field.
                let rest = l.split_once("\",\"idx\"").map_or(l.as_str(), |x| x.1);
                chunk.push_str(&format!("{{\"id\":\"g{n}\",\"idx\"{rest}\n"));
                n += 1;
            }
            let _ = f.write_all(chunk.as_bytes());
            std::thread::sleep(tick.saturating_sub(t.elapsed()));
        }
        n
    })
}

/// `AUTOEVAL_SCALE=search`: only open the runs and time the ranked `p12` search (twice).
/// Opens `dir`'s runs as nobody has (no row index, no kinds cache), in process as the
/// viewer does (background loading, a 160×48 frame): the first frame, every row listed,
/// keystrokes while the kinds are proved (each timed from taking the worker's news to
/// the redrawn frame, as the event loop does), and the kinds complete.
fn fresh(dir: &Path, n: usize) {
    use autoeval::tui::{ViewOptions, build_app_loading, ui};
    use ratatui::{Terminal, backend::TestBackend};
    remove_indexes(dir);
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let _ = std::fs::remove_file(e.path().join(".autoeval-kinds"));
    }
    let _ = std::fs::remove_file(dir.join(".autoeval-kinds"));
    let t = Instant::now();
    let (mut app, theme) = build_app_loading(&ViewOptions {
        paths: vec![dir.to_path_buf()],
        theme: None,
        config: Some(PathBuf::from("/nonexistent")),
    });
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    term.draw(|f| {
        ui::view(f, &app, &theme);
    })
    .expect("draw");
    let first = t.elapsed();
    let rows = |app: &autoeval::tui::app::App| -> usize {
        app.model.runs.iter().map(|r| r.rows.len()).sum()
    };
    while (app.loading().is_some() || rows(&app) < n) && t.elapsed() < Duration::from_secs(900) {
        app.pump();
        std::thread::sleep(Duration::from_millis(1));
    }
    term.draw(|f| {
        ui::view(f, &app, &theme);
    })
    .expect("draw");
    let listed = t.elapsed();
    let pending = |app: &autoeval::tui::app::App| -> usize {
        app.model.runs.iter().map(|r| r.kinds_pending.1).sum()
    };
    println!(
        "fresh, in process: first frame {first:.2?}, {} of {n} rows listed {listed:.2?}, {} not-equivalent samples' kinds pending",
        rows(&app),
        pending(&app)
    );
    let mut keys = Vec::new();
    while pending(&app) > 0 && keys.len() < 500 {
        for k in ["j", "j", "k", "G", "g"] {
            let t = Instant::now();
            app.pump();
            app.press(k).expect("key");
            term.draw(|f| {
                ui::view(f, &app, &theme);
            })
            .expect("draw");
            keys.push(t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    stats("  keystroke → frame while the kinds are proved", keys);
    while pending(&app) > 0 && t.elapsed() < Duration::from_secs(3600) {
        app.pump();
        std::thread::sleep(Duration::from_millis(10));
    }
    println!(
        "  kinds all proved {:.1?} after opening ({} pending)",
        t.elapsed(),
        pending(&app)
    );
}

fn search_only() -> bool {
    std::env::var("AUTOEVAL_SCALE").is_ok_and(|v| v == "search")
}

/// Types `/p12` and waits for the worker's ranked results over every row.
fn search_p12(app: &mut autoeval::tui::app::App) {
    for q in ["/", "p", "1", "2"] {
        app.press(q).unwrap();
    }
    let t = Instant::now();
    while app.search_pending() {
        app.pump();
        std::thread::sleep(Duration::from_millis(1));
    }
    println!(
        "search results for \"p12\" over all rows (worker): {:.2?} after the last key, {} rows",
        t.elapsed(),
        app.model.listing.visible.len()
    );
}

/// Jump to a sample by id (`:`, the id, Enter) to the sample selected: the last run's
/// last sample as `RUN/ID`, then one a filter hides (the jump clears the filters).
fn jump_to_id(app: &mut autoeval::tui::app::App) {
    let last = app.model.runs.len() - 1;
    let run = &app.model.runs[last];
    let spec = format!("{}/{}", run.name(), run.rows[run.rows.len() - 1].id);
    let hidden = app.model.runs[0].rows[0].id.to_string();
    let mut plain = Vec::new();
    let mut cleared = Vec::new();
    for _ in 0..5 {
        for (spec, filtered) in [(spec.clone(), false), (format!("1/{hidden}"), true)] {
            if filtered {
                // Show only the last run: the first run's sample is hidden.
                app.model.listing.filter.runs = [last].into();
                app.refilter();
            }
            let t = Instant::now();
            app.press(":").unwrap();
            for c in spec.chars() {
                app.press(&c.to_string()).unwrap();
            }
            app.press("enter").unwrap();
            let d = t.elapsed();
            assert!(app.status.starts_with("sample "), "{}", app.status);
            if filtered {
                cleared.push(d);
            } else {
                plain.push(d);
            }
        }
    }
    plain.sort();
    cleared.sort();
    println!(
        "jump to id (: RUN/ID enter, typed key by key): {:.1?} median, {:.1?} max; when a filter hides it (filters cleared, list rebuilt): {:.1?} median, {:.1?} max",
        plain[plain.len() / 2],
        plain[plain.len() - 1],
        cleared[cleared.len() / 2],
        cleared[cleared.len() - 1]
    );
}

/// In-process figures on the same runs: search results from the worker, chart and
/// pass/fail matrix after a filter change, and how soon appended samples show.
fn in_process(dir: &Path) {
    use autoeval::tui::{ViewOptions, build_app};
    let t = Instant::now();
    let (mut app, _) = build_app(&ViewOptions {
        paths: vec![dir.to_path_buf()],
        theme: None,
        config: Some(PathBuf::from("/nonexistent")),
    });
    println!("in process: open (blocking) {:.2?}", t.elapsed());
    if std::env::var("AUTOEVAL_SCALE").is_ok_and(|v| v == "jump") {
        jump_to_id(&mut app);
        return;
    }
    if search_only() {
        search_p12(&mut app);
        // Once more on a warm page cache, then stop: the search is what was asked for.
        app.press("esc").unwrap();
        search_p12(&mut app);
        return;
    }
    // The viewer itself loads in the background: first run browsable, all loaded.
    let t = Instant::now();
    let (mut bg, _) = autoeval::tui::build_app_loading(&ViewOptions {
        paths: vec![dir.to_path_buf()],
        theme: None,
        config: Some(PathBuf::from("/nonexistent")),
    });
    let ready = t.elapsed();
    let mut first = None;
    while bg.loading().is_some() {
        bg.pump();
        if first.is_none() && !bg.model.runs.is_empty() {
            first = Some(t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    println!(
        "in process, loading in the background: app ready {ready:.1?}, first run browsable {:.2?}, all {} runs {:.2?}",
        first.unwrap_or_default(),
        bg.model.runs.len(),
        t.elapsed()
    );
    drop(bg);
    jump_to_id(&mut app);
    search_p12(&mut app);
    app.press("esc").unwrap();
    // A filter change that the chart depends on: show only the first run, then all.
    let mut chart = Vec::new();
    let mut matrix = Vec::new();
    for _ in 0..3 {
        for only in [Some(0usize), None] {
            app.model.listing.filter.runs = only.into_iter().collect();
            app.refilter();
            let t = Instant::now();
            let _ = app.model.derived.chart;
            chart.push(t.elapsed());
            let t = Instant::now();
            let _ = app.model.run_summary(0);
            matrix.push(t.elapsed());
        }
    }
    chart.sort();
    matrix.sort();
    println!(
        "after a filter change: chart {:.1?}, run summary with the pass/fail matrix against every other run {:.1?} (medians)",
        chart[chart.len() / 2],
        matrix[matrix.len() / 2]
    );
    // Following: a new run appears, then 300 samples are appended to it.
    let template = app.model.runs[0].dir.clone();
    let live = dir.join("zz-follow");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let g = grow(&template, &live, 3000, stop.clone());
    std::thread::sleep(Duration::from_millis(100));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let appended = g.join().unwrap_or(0);
    let before: usize = app.model.runs.iter().map(|r| r.rows.len()).sum();
    let t = Instant::now();
    app.follow();
    let after: usize = app.model.runs.iter().map(|r| r.rows.len()).sum();
    println!(
        "follow (every 500 ms in the viewer): {} new samples taken in {:.1?}",
        after - before,
        t.elapsed()
    );
    assert_eq!(after - before, appended);
    let _ = std::fs::remove_dir_all(&live);
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let dir = args.first().map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/million/runs"),
        PathBuf::from,
    );
    if !dir.is_dir() {
        println!(
            "no runs at {} (make them with `bash benches/million.sh`); skipped",
            dir.display()
        );
        return;
    }
    let d = dir.to_string_lossy().to_string();
    println!("{}: {} samples", d, samples(&dir));
    if std::env::var("AUTOEVAL_SCALE").is_ok_and(|v| v == "fresh") {
        fresh(&dir, samples(&dir));
        return;
    }
    if search_only() || std::env::var("AUTOEVAL_SCALE").is_ok_and(|v| v == "jump") {
        in_process(&dir);
        return;
    }
    remove_indexes(&dir);
    let (s, m) = timed(&["report", &d]);
    println!("report, cold (builds the row indexes): {s:.2} s, peak {m:.0} MB");
    for i in 0..3 {
        let (s, m) = timed(&["report", &d]);
        println!("report, warm #{}: {s:.2} s, peak {m:.0} MB", i + 1);
    }
    in_process(&dir);
    for round in 0..3 {
        let (mut pty, start) = Pty::spawn(&dir);
        let Some(first) = pty.wait_for("Samples", Duration::from_secs(120)) else {
            println!("view: no first frame within 120 s");
            pty.quit();
            return;
        };
        println!(
            "view, start to first frame (warm page cache, run {}): {:.2?}",
            round + 1,
            first - start
        );
        // Let loading finish before measuring keystrokes.
        std::thread::sleep(Duration::from_secs(2));
        // Round 3: a run in the same folder grows by 300 samples a second meanwhile.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let template = std::fs::read_dir(&dir).ok().and_then(|mut r| {
            r.find_map(|e| {
                e.ok()
                    .map(|e| e.path())
                    .filter(|p| p.join("run.json").exists())
            })
        });
        let live = dir.join("zz-growing");
        let grower = match (&template, round) {
            (Some(t), 2) => Some(grow(t, &live, 300, stop.clone())),
            _ => None,
        };
        if round >= 1 {
            let mut search = Vec::new();
            let mut filter = Vec::new();
            for _ in 0..10 {
                let _ = pty.key(b"/");
                for k in [&b"p"[..], b"1", b"2", b"\x7f", b"\x7f", b"\x7f"] {
                    search.extend(pty.key(k));
                }
                let _ = pty.key(b"\x1b");
                let _ = pty.key(b"f");
                for k in [
                    &b"j"[..],
                    b"j",
                    b"j",
                    b" ",
                    b"\x1b[C",
                    b"\x1b[C",
                    b"\x1b[D",
                    b" ",
                ] {
                    filter.extend(pty.key(k));
                }
                let _ = pty.key(b"\x1b");
                let _ = pty.key(b"x");
            }
            let tag = if round == 2 {
                " (while a run grows)"
            } else {
                ""
            };
            stats(&format!("search keystroke → frame{tag}"), search);
            stats(&format!("filter keystroke → frame{tag}"), filter);
            let nav: Vec<Duration> = (0..50).filter_map(|_| pty.key(b"j")).collect();
            stats(&format!("move keystroke → frame{tag}"), nav);
            // Every `s` sorts every row by the next column (operators, verdict, each
            // closeness metric, judge, label, run; then unsorted) and `d` reverses it.
            let mut sort = Vec::new();
            for _ in 0..2 {
                for _ in 0..24 {
                    sort.extend(pty.key(b"s"));
                    sort.extend(pty.key(b"d"));
                }
            }
            let _ = pty.key(b"x");
            stats(
                &format!("sort keystroke (s, d: every row) → frame{tag}"),
                sort,
            );
        }
        if let Some(mb) = pty.peak_rss_mb() {
            println!("view peak RSS: {mb:.0} MB");
        }
        pty.quit();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(g) = grower {
            let n = g.join().unwrap_or(0);
            println!("(the growing run got {n} samples meanwhile)");
            let _ = std::fs::remove_dir_all(&live);
        }
    }
}
