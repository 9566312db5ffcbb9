//! Jumping to a sample: `:` then an id (`RUN/ID` when several runs hold it), and the
//! deep link `autoeval view DIR --sample ID`, in a real pty.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::{keys, type_text};
use autoeval::tui::layer::Mode;
use autoeval::tui::{ViewOptions, build_app, build_app_blind};

fn opts() -> ViewOptions {
    screens::options(vec![common::fixtures::runs()])
}

fn selected(app: &autoeval::tui::app::App) -> (String, String) {
    let (r, i) = app.model.selected().unwrap();
    let run = &app.model.runs[r as usize];
    (run.name(), run.rows[i as usize].id.to_string())
}

#[test]
fn colon_jumps_to_an_id_and_run_slash_id() {
    let (mut app, t) = build_app(&opts());
    keys(&mut app, &[":"]);
    assert_eq!(app.mode(), Mode::Jump);
    type_text(&mut app, "pl-small/0");
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(
            format!("jump_prompt_{w}x{h}"),
            screens::screen(&mut app, &t, w, h)
        );
    }
    keys(&mut app, &["enter"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(
        selected(&app),
        ("pl-small".into(), "0".into()),
        "{}",
        app.status
    );
    // The detail follows the jump.
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(s.contains("Sample 0 · pl-small"), "{s}");
    // An id alone prefers the selected sample's run and names the others.
    keys(&mut app, &[":"]);
    type_text(&mut app, "3");
    keys(&mut app, &["enter"]);
    assert_eq!(selected(&app), ("pl-small".into(), "3".into()));
    assert!(app.status.contains("also in"), "{}", app.status);
    // The place in the run list names a run too.
    keys(&mut app, &[":"]);
    type_text(&mut app, "1/2");
    keys(&mut app, &["enter"]);
    let first = app.model.runs[0].name();
    assert_eq!(selected(&app), (first, "2".into()), "{}", app.status);
    // Unknown ids and runs say so and leave the selection alone.
    let before = app.model.selected();
    for (spec, want) in [
        ("no-such-id", "no sample with id 'no-such-id'"),
        ("nope/1", "no run named 'nope'"),
    ] {
        keys(&mut app, &[":"]);
        type_text(&mut app, spec);
        keys(&mut app, &["enter"]);
        assert!(app.status.contains(want), "{spec}: {}", app.status);
        assert_eq!(app.model.selected(), before);
    }
    // Esc leaves without moving.
    keys(&mut app, &[":", "9", "esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(app.model.selected(), before);
}

#[test]
fn a_jump_to_a_filtered_out_sample_clears_the_filter() {
    let (mut app, _) = build_app(&opts());
    // Only failing samples: search text that matches nothing hides everything.
    keys(&mut app, &["/"]);
    type_text(&mut app, "zzzz-nothing-matches");
    keys(&mut app, &["enter"]);
    app.pump_until(std::time::Duration::from_secs(10), |a| !a.search_pending());
    assert!(app.model.listing.visible.is_empty());
    keys(&mut app, &[":"]);
    type_text(&mut app, "pl-small/1");
    keys(&mut app, &["enter"]);
    assert_eq!(selected(&app), ("pl-small".into(), "1".into()));
    assert!(app.status.contains("cleared"), "{}", app.status);
}

#[test]
fn blind_jumps_name_runs_by_place_only() {
    let (mut app, _) = build_app_blind(&opts());
    keys(&mut app, &[":"]);
    type_text(&mut app, "pl-small/0");
    keys(&mut app, &["enter"]);
    assert!(app.status.contains("no run named"), "{}", app.status);
    let k = app
        .model
        .runs
        .iter()
        .position(|r| r.name() == "pl-small")
        .unwrap();
    keys(&mut app, &[":"]);
    type_text(&mut app, &format!("run {}/0", k + 1));
    keys(&mut app, &["enter"]);
    assert_eq!(selected(&app), ("pl-small".into(), "0".into()));
    keys(&mut app, &[":"]);
    type_text(&mut app, "0");
    keys(&mut app, &["enter"]);
    assert!(!app.status.contains("-small"), "{}", app.status);
}

#[test]
fn view_sample_opens_on_it_in_a_real_pty() {
    use std::io::Read;
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join(".config");
    std::fs::create_dir_all(cfg.join("autoeval")).unwrap();
    let exe = env!("CARGO_BIN_EXE_autoeval");
    let cmd = format!(
        "stty cols 120 rows 40; {exe} view {} --sample pl-small/0",
        // One run: with three, another run's sample 0 may be drawn first while
        // pl-small loads, and the terminal then rewrites only the cells that differ,
        // so "Sample 0 · pl-small" never appears whole in the output stream.
        common::fixtures::runs().join("pl-small").display()
    );
    let mut child = screens::script(&cmd, home.path(), &cfg, &[]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    {
        use std::io::Write;
        let stdin = child.0.stdin.as_mut().unwrap();
        stdin.write_all(b"q").unwrap();
        stdin.flush().unwrap();
    }
    let start = std::time::Instant::now();
    while child.0.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "did not exit"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut out = Vec::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    let text = strip_escapes(&String::from_utf8_lossy(&out));
    assert!(text.contains("Sample 0 · pl-small"), "{text}");
}

/// The terminal output without its escape sequences (each becomes a space).
fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// A cancelled run says so in a run list too narrow for the status column (the run
/// pane is 60 columns at 120×40 and 40 at 80×24).
#[test]
fn a_cancelled_run_shows_its_status_in_a_narrow_run_list() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("pl-cut");
    std::fs::create_dir_all(&d).unwrap();
    let src = common::fixtures::runs().join("pl-small");
    let manifest = std::fs::read_to_string(src.join("run.json"))
        .unwrap()
        .replace("\"status\": \"finished\"", "\"status\": \"cancelled\"");
    assert!(manifest.contains("cancelled"));
    std::fs::write(d.join("run.json"), manifest).unwrap();
    std::fs::copy(src.join("samples.jsonl"), d.join("samples.jsonl")).unwrap();
    let mut o = opts();
    o.paths = vec![d];
    let (mut app, t) = build_app(&o);
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screens::screen(&mut app, &t, w, h);
        let top = s.lines().take(4).collect::<Vec<_>>().join("\n");
        assert!(top.contains("[cancel"), "{w}x{h}:\n{s}");
    }
}

/// Low item L11: `view --annotator NAME` labels as NAME, over the config and the
/// environment, in a real terminal; a name with control characters is refused.
#[test]
fn view_annotator_labels_as_that_name_in_a_real_pty() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join(".config");
    std::fs::create_dir_all(cfg.join("autoeval")).unwrap();
    let run = home.path().join("pl-small");
    std::fs::create_dir_all(&run).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(
            common::fixtures::runs().join("pl-small").join(f),
            run.join(f),
        )
        .unwrap();
    }
    let exe = env!("CARGO_BIN_EXE_autoeval");
    let cmd = format!(
        "stty cols 120 rows 40; {exe} view {} --sample 0 --annotator alice",
        run.display()
    );
    let mut child = screens::script(
        &cmd,
        home.path(),
        &cfg,
        &[("AUTOEVAL_ANNOTATOR", "from-env")],
    );
    std::thread::sleep(std::time::Duration::from_secs(3));
    let labels = run.join("labels.jsonl");
    {
        use std::io::Write;
        let stdin = child.0.stdin.as_mut().unwrap();
        stdin.write_all(b"a9").unwrap();
        stdin.flush().unwrap();
    }
    let start = std::time::Instant::now();
    while !labels.exists() {
        assert!(start.elapsed().as_secs() < 10, "no label written");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    {
        use std::io::Write;
        let stdin = child.0.stdin.as_mut().unwrap();
        stdin.write_all(b"\x1b").unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        stdin.write_all(b"q").unwrap();
        stdin.flush().unwrap();
    }
    let start = std::time::Instant::now();
    while child.0.try_wait().unwrap().is_none() {
        assert!(start.elapsed().as_secs() < 10, "did not exit");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&labels).unwrap();
    let rec: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(rec["annotator"], "alice", "{text}");
    assert_eq!(rec["id"], "0", "{text}");
    // A name that would put a control character into labels.jsonl is refused.
    let o = std::process::Command::new(exe)
        .args([
            "view",
            &run.display().to_string(),
            "--annotator",
            "a\u{1b}[2Jb",
        ])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("1 to 100 printable characters"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
