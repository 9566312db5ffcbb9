//! Issue 48, item 6: the viewer wraps and draws only the visible rows of a long text,
//! and every row of it can be reached (the end of a long reasoning too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::app::App;
use std::path::{Path, PathBuf};

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    screens::screen(app, &t, w, h)
}

/// A one-sample run whose informalization carries `reasoning`.
fn run_with_reasoning(home: &Path, reasoning: &str) -> PathBuf {
    let src = common::fixtures::run("pl-small");
    let run = home.join("long");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::copy(src.join("run.json"), run.join("run.json")).unwrap();
    let first = std::fs::read_to_string(src.join("samples.jsonl")).unwrap();
    let mut rec: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    rec["rounds"][0]["informalize"]["reasoning"] = reasoning.into();
    std::fs::write(run.join("samples.jsonl"), format!("{rec}\n")).unwrap();
    run
}

#[test]
fn the_end_of_a_long_reasoning_is_reached_and_drawn_safe() {
    let tmp = tempfile::tempdir().unwrap();
    // 150,000 lines: more rows than a 16-bit scroll offset reaches.
    let mut text: String = (0..150_000)
        .map(|k| format!("step {k} of the proof\n"))
        .collect();
    text.push_str("THE END \u{1b}[2J");
    let run = run_with_reasoning(tmp.path(), &text);
    let mut app = screens::view(vec![run]);
    for k in ["tab", "]", "]", "]", "z", "G"] {
        app.press(k).unwrap();
    }
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("│ step 149999 of the proof"), "{s}");
    assert!(s.contains("│ THE END \\u{001B}[2J"), "{s}");
    // Back to the top: the fold line and the first steps.
    app.press("g").unwrap();
    let top = screen(&mut app, 120, 40);
    assert!(top.contains("▾ reasoning · "), "{top}");
    app.press("z").unwrap();
    assert!(!screen(&mut app, 120, 40).contains("│ step 0 of the proof"));
}
