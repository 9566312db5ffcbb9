//! Issue 43: nothing writes to the terminal while the viewer owns it. The viewer runs
//! in a pseudo-terminal (util-linux `script`) with its stderr sent to a file; a
//! Multi-LogiEval run started from the `R` form (whose loader warns that a shipped file
//! is not valid UTF-8) and a damaged run opened beside a good one leave the file empty,
//! and the loader's warning is in the warnings pane (`w`) with its source instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs `autoeval view ARGS 2>ERR` in a 120×40 pseudo-terminal in `dir`, typing each
/// `(keys, then wait)`; returns everything drawn.
fn view_in_pty(dir: &Path, args: &str, err: &Path, keys: &[(&[u8], u64)]) -> String {
    let home = dir.join("home");
    let cmd = format!(
        "stty cols 120 rows 40; {} view {args} 2>{}",
        common::cli::EXE,
        err.display()
    );
    let mut c = std::process::Command::new("script");
    c.args(["-qfec", &cmd, "/dev/null"]).current_dir(dir);
    common::cli::isolate(&mut c, &home);
    let mut child = c
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the `script` command (util-linux) is needed for this test");
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    std::thread::sleep(Duration::from_secs(2));
    let stdin = child.stdin.as_mut().unwrap();
    for (k, wait) in keys {
        // The other end may be gone after the last key (the viewer quit).
        let _ = stdin.write_all(k).and_then(|()| stdin.flush());
        std::thread::sleep(Duration::from_millis(*wait));
    }
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("the viewer did not quit");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    String::from_utf8_lossy(&reader.join().unwrap()).into_owned()
}

#[test]
fn a_task_run_from_the_form_and_a_damaged_run_leave_stderr_untouched() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("pl-small");
    std::fs::create_dir(&good).unwrap();
    let fixture = common::fixtures::run("pl-small");
    for f in std::fs::read_dir(&fixture).unwrap() {
        let f = f.unwrap();
        if f.file_type().unwrap().is_file() {
            std::fs::copy(f.path(), good.join(f.file_name())).unwrap();
        }
    }
    // A damaged run: a cut-off manifest and a half-written sample line.
    let bad = d.path().join("damaged");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("run.json"), "{\"status\": \"runn").unwrap();
    std::fs::write(
        bad.join("samples.jsonl"),
        "{\"id\": \"1\", \"phi0\n\u{0}\u{7}garbage\n",
    )
    .unwrap();
    let err = d.path().join("stderr.txt");
    let drawn = view_in_pty(
        d.path(),
        &format!("{} {}", good.display(), bad.display()),
        &err,
        &[
            (b"R", 1500),
            // The dataset field emptied, the task typed into the next one, started.
            (b"\x1b[H", 300),
            (b"\x7f\x7f", 300),
            (b"\t", 300),
            (b"multi-logieval-pl", 1500),
            (b"\r", 5000),
            // The warnings pane, then quit (cancelling the run if it still goes).
            (b"w", 1500),
            (b"q", 500),
            (b"q", 500),
            (b"y", 3000),
        ],
    );
    let written = std::fs::read_to_string(&err).unwrap();
    assert!(written.is_empty(), "stderr was written:\n{written}");
    // The run really started (beside the runs viewed) and its loader really warned: the line is in the pane.
    assert!(d.path().join("live/run.json").exists(), "{drawn:.3000}");
    assert!(
        drawn.contains("stderr: warning:") && drawn.contains("not valid UTF-8"),
        "{drawn:.6000}"
    );
}

#[test]
fn ctrl_l_repaints_in_any_mode_and_a_captured_line_is_listed_with_its_source() {
    let fixture = common::fixtures::run("pl-small");
    let mut app = screens::view(vec![fixture]);
    app.press("R").unwrap();
    let before = app.form().unwrap().values.clone();
    app.press("ctrl-l").unwrap();
    // Asked of the draw loop (which clears the terminal), not typed into the form.
    assert!(app.repaint && app.form().is_some());
    assert_eq!(app.form().unwrap().values, before);
    app.update(autoeval::tui::app::Msg::Stderr("loader: odd byte".into()));
    assert!(
        app.model
            .warnings
            .iter()
            .any(|w| w == "stderr: loader: odd byte"),
        "{:?}",
        app.model.warnings
    );
}
