//! The viewer: state transitions without a terminal, snapshots, robustness, and a real pty.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use autoeval::tui::app::{Pane, Tab};
use autoeval::tui::layer::Mode;
use autoeval::tui::{ViewOptions, build_app, ui};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};

fn app() -> (autoeval::tui::app::App, autoeval::tui::theme::Theme) {
    build_app(&screens::options(vec![common::fixtures::runs()]))
}

use crate::screens;
mod team;
use crate::screens::keys;
use screens::{isolate, screen, styled};

#[test]
fn opens_on_a_failing_sample_with_counts() {
    let (app, _) = app();
    assert_eq!(app.model.runs.len(), 3);
    assert_eq!(app.model.listing.visible.len(), 42);
    let (r, i) = app.model.selected().unwrap();
    assert_eq!(
        app.model.runs[r as usize].rows[i as usize].verdict_name(),
        "not-equivalent"
    );
    assert!(app.model.warnings.is_empty(), "{:?}", app.model.warnings);
    assert_eq!(app.filter_summary(), "42/42");
}

#[test]
fn filters_combine_and_clear() {
    let (mut app, _) = app();
    // Filter editor: field 3 is the not-equivalent checkbox.
    keys(&mut app, &["f", "j", "j", "j", "space", "esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.model.listing.visible.iter().all(|(r, i)| {
        app.model.runs[*r as usize].rows[*i as usize].verdict
            == autoeval::verify::VerdictKind::NotEquivalent
    }));
    let failing = app.model.listing.visible.len();
    assert_eq!(failing, 13);
    // Operator range: the editor reopens on the checkbox it was left at; up to the
    // lower bound, then raise it twice.
    keys(&mut app, &["f"]);
    assert_eq!(
        app.filter_editor().field,
        autoeval::tui::components::filter_edit::Field::Verdict(
            autoeval::verify::VerdictKind::NotEquivalent
        ),
        "the editor remembers its cursor"
    );
    keys(&mut app, &["k", "k", "k", "right", "right", "esc"]);
    assert_eq!(app.model.listing.filter.range.map(|r| r.0), Some(2));
    assert!(app.model.listing.visible.len() < failing);
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|(r, i)| app.model.category(*r, *i).unwrap_or(0) >= 2)
    );
    assert!(
        app.filter_summary().contains("ops 2–"),
        "{}",
        app.filter_summary()
    );
    // Hide a run from the run list.
    keys(&mut app, &["x", "shift-tab", "space"]);
    assert_eq!(app.panes.focus, Pane::Runs);
    assert_eq!(app.model.listing.visible.len(), 28);
    keys(&mut app, &["space"]);
    assert_eq!(app.model.listing.visible.len(), 42);
    // Enter on a run shows only that run.
    keys(&mut app, &["j", "enter"]);
    assert_eq!(app.model.listing.visible.len(), 14);
    assert_eq!(app.panes.focus, Pane::Samples);
    keys(&mut app, &["x"]);
    assert_eq!(app.model.listing.visible.len(), 42);
    // Dataset kind: field 9 of the editor cycles through the loaded kinds.
    keys(&mut app, &["f"]);
    while app.filter_editor().field != autoeval::tui::components::filter_edit::Field::Kind {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["right", "esc"]);
    assert_eq!(app.model.listing.filter.kinds.len(), 1);
    assert_eq!(app.model.listing.visible.len(), 14);
    assert!(
        app.filter_summary().contains(
            app.model
                .listing
                .filter
                .kinds
                .iter()
                .next()
                .unwrap()
                .as_str()
        )
    );
    keys(&mut app, &["x"]);
}

#[test]
fn fuzzy_search_narrows_and_esc_clears() {
    let (mut app, _) = app();
    keys(&mut app, &["/", "p", "1", "2"]);
    assert_eq!(app.mode(), Mode::Search);
    let n = app.model.listing.visible.len();
    assert!(n > 0 && n < 42, "{n}");
    for (r, i) in &app.model.listing.visible {
        let run = &app.model.runs[*r as usize];
        let text = run.text(&run.rows[*i as usize]);
        assert!(
            text.contains('p') && text.contains('1') && text.contains('2'),
            "{text}"
        );
    }
    keys(&mut app, &["backspace"]);
    assert!(app.model.listing.visible.len() >= n, "deleting widens");
    keys(&mut app, &["enter"]);
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(app.model.listing.search.field.text, "p1");
    keys(&mut app, &["esc"]);
    assert_eq!(app.model.listing.visible.len(), 42);
}

#[test]
fn chart_bucket_filters_the_list_and_by_toggles() {
    let (mut app, _) = app();
    keys(&mut app, &["v", "right", "right", "enter"]);
    let (lo, hi) = app.model.listing.filter.range.unwrap();
    assert_eq!(lo, hi);
    assert!(!app.model.listing.visible.is_empty());
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|(r, i)| app.model.category(*r, *i) == Some(lo))
    );
    keys(&mut app, &["b"]);
    assert_eq!(
        app.model.listing.filter.range, None,
        "switching the metric resets the range"
    );
    assert_eq!(app.model.by, autoeval::report::By::Depth);
}

/// The Diff tab's proof search runs off the UI thread (a FOL search confirms with Z3):
/// the first frame says "proving…", and the tick after the search ends draws the
/// proved changes.
#[test]
fn diff_tab_proof_search_runs_in_the_background() {
    let (mut app, t) = build_app(&screens::options(vec![
        common::fixtures::runs().join("pl-small"),
    ]));
    app.pump();
    keys(&mut app, &["]"]);
    assert_eq!(app.panes.detail_view.tab, Tab::Diff);
    let first = screens::screen_once(&mut app, &t, 120, 40);
    assert!(first.contains("changes: proving…"), "{first}");
    let d = app.panes.detail.as_ref().unwrap();
    assert!(d.wait_explained(std::time::Duration::from_secs(60)));
    assert!(
        app.update(autoeval::tui::app::Msg::Tick),
        "the tick after the search ends draws again"
    );
    let s = screens::screen_once(&mut app, &t, 120, 40);
    assert!(!s.contains("proving…"), "{s}");
    assert!(
        s.contains("changes (proved by the verifier):") || s.contains("changes (unproved"),
        "{s}"
    );
    assert!(s.contains("kinds: "), "{s}");
}

#[test]
fn tabs_tree_detail_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["pl-a", "pl-b"] {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["run.json", "samples.jsonl"] {
            std::fs::copy(common::fixtures::runs().join("pl-small").join(f), d.join(f)).unwrap();
        }
    }
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    app.pump();
    let d = app.panes.detail.as_ref().unwrap();
    assert!(d.record.is_ok());
    assert!(!d.changes.is_empty(), "a failing sample has a diff");
    assert!(d.explain.iter().any(|l| l.split), "the split is marked");
    keys(&mut app, &["]"]);
    assert_eq!(app.panes.detail_view.tab, Tab::Diff);
    keys(&mut app, &["[", "[", "t"]);
    assert_eq!(app.panes.detail_view.tab, Tab::Raw);
    assert!(app.panes.detail_view.tree);
    keys(&mut app, &["c"]);
    assert_eq!(app.mode(), Mode::Compare);
    assert_eq!(
        app.model.compare_rows().len(),
        2,
        "the same φ₀ in the other run"
    );
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
    keys(&mut app, &["tab"]);
    assert_eq!(app.panes.focus, Pane::Detail);
    keys(&mut app, &["q"]);
    assert!(app.quit);
}

#[test]
fn broken_inputs_become_warnings_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let bad = dir.path().join("bad");
    for d in [&good, &bad] {
        std::fs::create_dir_all(d).unwrap();
        for f in ["run.json", "samples.jsonl"] {
            std::fs::copy(
                common::fixtures::runs().join("fol-small").join(f),
                d.join(f),
            )
            .unwrap();
        }
    }
    // Corrupt manifest, a garbage line in the middle, a torn last line, unknown fields.
    std::fs::write(bad.join("run.json"), "{ not json").unwrap();
    let text = std::fs::read_to_string(bad.join("samples.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[0] = lines[0].replacen('{', "{\"a_future_field\": [1, 2],", 1);
    lines.insert(3, "garbage".into());
    let torn = lines.pop().unwrap();
    let mut out = lines.join("\n");
    out.push('\n');
    out.push_str(&torn[..torn.len() / 2]);
    std::fs::write(bad.join("samples.jsonl"), out).unwrap();
    let missing = dir.path().join("missing");
    let (mut app, t) = build_app(&screens::options(vec![dir.path().to_path_buf(), missing]));
    assert_eq!(app.model.runs.len(), 2);
    assert_eq!(
        app.model.runs.iter().map(|r| r.rows.len()).sum::<usize>(),
        14 + 13
    );
    let w = app.model.warnings.join("\n");
    assert!(w.contains("missing: no such file"), "{w}");
    assert!(w.contains("run.json"), "{w}");
    assert!(w.contains(":4: skipped"), "{w}");
    // Still draws at 80×24 with the warning count in the footer.
    let s = screen(&mut app, &t, 80, 24);
    assert!(s.contains("warning(s): w"), "{s}");
    keys(&mut app, &["w"]);
    assert!(screen(&mut app, &t, 80, 24).contains("Warnings"));
    // Opened again, the rows come from the row index cache: the same rows, the same
    // skipped-line warnings, the same first screen.
    assert!(bad.join(autoeval::run::index::INDEX).exists());
    let (mut again, _) = build_app(&screens::options(vec![
        dir.path().to_path_buf(),
        dir.path().join("missing"),
    ]));
    let rows = |a: &autoeval::tui::app::App| {
        a.model
            .runs
            .iter()
            .flat_map(|r| r.rows.iter().map(|x| format!("{x:?}")))
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&again), rows(&app));
    assert!(again.model.warnings.join("\n").contains(":4: skipped"));
    keys(&mut app, &["esc"]);
    assert_eq!(screen(&mut again, &t, 80, 24), screen(&mut app, &t, 80, 24));
}

/// A run directory `live` under `root` with pl-small's manifest and no samples yet;
/// returns it and pl-small's samples, to be written in steps as a live run would.
fn live_copy(root: &Path) -> (PathBuf, String) {
    let d = root.join("live");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        common::fixtures::runs().join("pl-small/run.json"),
        d.join("run.json"),
    )
    .unwrap();
    let text =
        std::fs::read_to_string(common::fixtures::runs().join("pl-small/samples.jsonl")).unwrap();
    (d, text)
}

#[test]
fn following_a_growing_run_adds_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (d, text) = live_copy(dir.path());
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(
        d.join("samples.jsonl"),
        format!("{}\n{}", lines[0], &lines[1][..20]),
    )
    .unwrap();
    let (mut app, _) = build_app(&screens::options(vec![d.clone()]));
    assert_eq!(app.model.listing.visible.len(), 1, "the torn line waits");
    std::fs::write(
        d.join("samples.jsonl"),
        format!("{}\n{}\n{}\n", lines[0], lines[1], lines[2]),
    )
    .unwrap();
    assert!(app.follow());
    assert_eq!(app.model.listing.visible.len(), 3);
    assert!(!app.follow(), "nothing new");
}

/// Appended rows are filtered, searched and charted on their own (a million loaded rows
/// are not filtered again every half second); the result is what a fresh open shows.
#[test]
fn following_appends_matches_a_fresh_open_with_filters_search_and_chart() {
    let dir = tempfile::tempdir().unwrap();
    let (d, text) = live_copy(dir.path());
    let lines: Vec<&str> = text.lines().collect();
    let half = lines.len() / 2;
    std::fs::write(d.join("samples.jsonl"), lines[..half].join("\n") + "\n").unwrap();
    let other = common::fixtures::runs().join("fol-small");
    let paths = vec![d.clone(), other];
    let setup = |app: &mut autoeval::tui::app::App| {
        app.model.listing.filter.verdicts = [
            autoeval::verify::VerdictKind::NotEquivalent,
            autoeval::verify::VerdictKind::Equivalent,
        ]
        .into_iter()
        .collect();
        app.refilter();
        keys(app, &["/", "p", "1", "enter"]);
    };
    let (mut app, t) = build_app(&screens::options(paths.clone()));
    setup(&mut app);
    let _ = screen(&mut app, &t, 120, 40);
    keys(&mut app, &["j"]);
    let selected = app.model.selected();
    std::fs::write(d.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    assert!(app.follow());
    let (mut fresh, _) = build_app(&screens::options(paths));
    setup(&mut fresh);
    let total: usize = fresh.model.runs.iter().map(|r| r.rows.len()).sum();
    assert!(!fresh.model.listing.visible.is_empty() && fresh.model.listing.visible.len() < total);
    assert_eq!(app.model.listing.visible, fresh.model.listing.visible);
    assert_eq!(app.model.derived.chart, fresh.model.derived.chart);
    assert_eq!(
        app.model.selected(),
        selected,
        "the selection stays on its sample"
    );
}

fn snap(name: &str, app: &mut autoeval::tui::app::App, t: &autoeval::tui::theme::Theme) {
    snap_mode!(name, app, t);
}

#[test]
fn snapshots_of_each_screen() {
    let (mut app, t) = app();
    snap("main", &mut app, &t);
    keys(&mut app, &["]"]);
    snap("diff", &mut app, &t);
    keys(&mut app, &["]"]);
    snap("countermodel", &mut app, &t);
    keys(&mut app, &["]"]);
    snap("raw", &mut app, &t);
    keys(&mut app, &["]", "t"]);
    snap("tree", &mut app, &t);
    keys(&mut app, &["t", "?"]);
    snap("help", &mut app, &t);
    keys(&mut app, &["esc", "f", "j", "j", "j", "space"]);
    snap("filter", &mut app, &t);
    keys(&mut app, &["esc", "/", "p", "3"]);
    snap("search", &mut app, &t);
    keys(&mut app, &["esc", "x", "c"]);
    snap("compare", &mut app, &t);
    keys(&mut app, &["esc", "v", "right"]);
    snap("chart", &mut app, &t);
    keys(&mut app, &["esc", "w"]);
    snap("warnings", &mut app, &t);
    keys(&mut app, &["esc", "L"]);
    snap("label_counts", &mut app, &t);
    keys(&mut app, &["esc", "i"]);
    snap("run_summary", &mut app, &t);
    // Label mode and its note editor (nothing is saved: the note is cancelled).
    keys(&mut app, &["esc", "a"]);
    assert_eq!(app.mode(), Mode::Label);
    snap("label", &mut app, &t);
    // Labelling is never blind: φ₀, ψ and φ₁ stay on screen at every size.
    for (w, h) in screens::SIZES {
        let s = screen(&mut app, &t, w, h);
        for part in ["φ₀", "ψ ", "φ₁", "Labels"] {
            assert!(s.contains(part), "{part} hidden at {w}×{h}:\n{s}");
        }
    }
    keys(&mut app, &["m", "s", "c", "o", "p", "e"]);
    assert_eq!(app.mode(), Mode::Note);
    snap("note", &mut app, &t);
    keys(&mut app, &["esc", "esc"]);
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn every_bundled_theme_renders() {
    for name in ["default", "light", "high-contrast", "colorblind"] {
        let (mut app, _) = app();
        let (t, w) = autoeval::tui::theme::Theme::load(name);
        assert!(w.is_empty(), "{name}: {w:?}");
        assert!(screen(&mut app, &t, 80, 24).contains("Samples"));
    }
}

#[test]
fn starts_in_a_real_pty_draws_and_quits_with_q() {
    let (code, text) = in_pty(b"q", &[]);
    assert_eq!(code, Some(0), "exit {code:?}");
    assert!(
        text.contains("Samples") && text.contains("Runs"),
        "drew nothing: {text:.500}"
    );
    assert!(
        text.contains("\u{1b}[?1049l"),
        "the terminal was restored (left the alternate screen)"
    );
}

/// Runs the viewer in a real pseudo-terminal, sends `input`, and returns (exit code, output).
fn in_pty(input: &[u8], env: &[(&str, &str)]) -> (Option<i32>, String) {
    in_pty_with(input, env, None)
}

/// [`in_pty`] with an isolated HOME whose config file holds `config`.
fn in_pty_with(input: &[u8], env: &[(&str, &str)], config: Option<&str>) -> (Option<i32>, String) {
    use std::io::Read;
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join(".config");
    std::fs::create_dir_all(cfg.join("autoeval")).unwrap();
    if let Some(text) = config {
        std::fs::write(cfg.join("autoeval/config.toml"), text).unwrap();
    }
    let exe = env!("CARGO_BIN_EXE_autoeval");
    let cmd = format!(
        "stty cols 100 rows 30; {exe} view {}",
        common::fixtures::runs().display()
    );
    // util-linux `script` gives the binary a pseudo-terminal; `input` arrives on its stdin.
    let mut child = screens::script(&cmd, home.path(), &cfg, env);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    {
        use std::io::Write;
        let stdin = child.0.stdin.as_mut().unwrap();
        stdin.write_all(input).unwrap();
        stdin.flush().unwrap();
    }
    let start = std::time::Instant::now();
    while child.0.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "did not exit on {input:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let code = child.0.try_wait().unwrap().and_then(|s| s.code());
    let mut out = Vec::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    (code, String::from_utf8_lossy(&out).into_owned())
}

/// A pty test that fails mid-way drops its child: the viewer under `script` must go
/// too, not only `script` (the viewer is `script`'s child, a grandchild of the test).
#[test]
fn a_dropped_pty_child_takes_its_grandchildren_with_it() {
    use std::io::BufRead;
    let mut child = screens::spawn_group(
        std::process::Command::new("sh")
            .args(["-c", "sleep 300 & echo $!; wait"])
            .stdout(std::process::Stdio::piped()),
    )
    .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let grandchild: u32 = line.trim().parse().unwrap();
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
    };
    assert!(alive(grandchild));
    drop(child);
    let start = std::time::Instant::now();
    while alive(grandchild) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "the grandchild {grandchild} outlived the test's child"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn ctrl_c_quits_even_when_the_users_config_rebinds_quit() {
    let (code, text) = in_pty_with(b"\x03", &[], Some("[keys]\nquit = [\"q\", \"ctrl-q\"]\n"));
    assert_eq!(code, Some(0), "ctrl-c did not quit: {code:?}");
    assert!(text.contains("Samples"), "drew nothing");
}

#[test]
fn ctrl_c_quits_in_every_mode() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[keys]\nquit = [\"q\", \"ctrl-q\"]\n[keys.note]\ncancel = \"ctrl-c\"\n",
    )
    .unwrap();
    let ways: &[&[&str]] = &[
        &[],
        &["/"],
        &["f"],
        &["v"],
        &["?"],
        &["w"],
        &["c"],
        &["i"],
        &["L"],
        &["a"],
        &["a", "m"],
        &["R"],
    ];
    for way in ways {
        let (mut app, _) = build_app(&ViewOptions {
            config: Some(config.clone()),
            ..screens::options(vec![common::fixtures::runs()])
        });
        keys(&mut app, way);
        assert!(!app.quit, "{way:?} quit early");
        keys(&mut app, &["ctrl-c"]);
        assert!(
            app.quit,
            "ctrl-c after {way:?} ({:?}) did not quit",
            app.mode()
        );
    }
}

#[test]
fn ctrl_c_q_and_a_panic_all_restore_the_terminal_and_mouse() {
    for (input, env, ok) in [
        (&b"q"[..], vec![], true),
        (&b"\x03"[..], vec![], true),
        (&b"Z"[..], vec![("AUTOEVAL_TEST_PANIC_KEY", "Z")], false),
    ] {
        let (code, text) = in_pty(input, &env);
        assert_eq!(code == Some(0), ok, "{input:?}: exit {code:?}");
        assert!(text.contains("Samples"), "{input:?}: drew nothing");
        assert!(
            text.contains("\u{1b}[?1000h"),
            "{input:?}: mouse capture was on"
        );
        let on = text.rfind("\u{1b}[?1000h").unwrap();
        let off = text.rfind("\u{1b}[?1000l");
        assert!(
            off.is_some_and(|off| off > on),
            "{input:?}: mouse capture left on"
        );
        assert!(
            text.contains("\u{1b}[?1049l"),
            "{input:?}: the alternate screen was left"
        );
    }
}

#[test]
fn detail_scroll_stops_at_the_last_screenful_and_resets_per_sample() {
    let (mut app, t) = app();
    keys(&mut app, &["enter"]);
    assert_eq!(app.panes.focus, Pane::Detail);
    let _ = screen(&mut app, &t, 80, 24);
    for _ in 0..50 {
        keys(&mut app, &["pagedown"]);
    }
    keys(&mut app, &["G"]);
    let s = screen(&mut app, &t, 80, 24);
    let max = app.panes.detail_view.max_scroll.get();
    assert!(app.panes.detail_view.scroll <= max);
    assert!(max < 200, "{max}");
    // The last screenful still shows text.
    let detail_text: String = s
        .lines()
        .skip(12)
        .map(|l| l.chars().skip(40).collect::<String>())
        .collect();
    assert!(
        detail_text.chars().any(char::is_alphanumeric),
        "blank detail after scrolling:\n{s}"
    );
    // Another sample starts at the top.
    keys(&mut app, &["shift-tab", "j"]);
    let _ = screen(&mut app, &t, 80, 24);
    assert_eq!(app.panes.detail_view.scroll, 0);
}

#[test]
fn regex_runs_have_a_category_without_switching_to_depth() {
    let (app, _) = app();
    assert_eq!(app.model.by, autoeval::report::By::Operators);
    let regex = app
        .model
        .runs
        .iter()
        .position(|r| r.kind() == "regex")
        .unwrap() as u32;
    for i in 0..app.model.runs[regex as usize].rows.len() as u32 {
        assert!(app.model.category(regex, i).is_some(), "row {i}");
    }
    assert!(
        app.model
            .derived
            .chart
            .iter()
            .any(|(n, _)| n.contains("regex"))
    );
}

#[test]
fn typing_a_query_finds_what_pasting_it_finds() {
    // ψ = "p" + 10 bytes + "12": the 1 is just inside its deadline.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("run");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        common::fixtures::runs().join("pl-small/run.json"),
        d.join("run.json"),
    )
    .unwrap();
    let text =
        std::fs::read_to_string(common::fixtures::runs().join("pl-small/samples.jsonl")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["id"] = serde_json::json!("99");
    v["idx"] = serde_json::json!(99);
    v["rounds"][0]["psi"] = serde_json::json!("pxxxxxxxxxx12 tail");
    std::fs::write(d.join("samples.jsonl"), format!("{text}{v}\n")).unwrap();
    for q in ["p12", "p1", "not", "p10", "and p", "¬p1", "xx12"] {
        let (mut typed, _) = build_app(&screens::options(vec![d.clone()]));
        keys(&mut typed, &["/"]);
        for c in q.chars() {
            typed
                .press(&if c == ' ' {
                    "space".to_string()
                } else {
                    c.to_string()
                })
                .unwrap();
        }
        keys(&mut typed, &["enter"]);
        let (mut pasted, _) = build_app(&screens::options(vec![d.clone()]));
        pasted.model.listing.search.field.text = q.into();
        pasted.model.research();
        assert_eq!(
            typed.model.listing.visible, pasted.model.listing.visible,
            "query {q:?}"
        );
    }
    let (mut app, _) = build_app(&screens::options(vec![d]));
    app.model.listing.search.field.text = "p12".into();
    app.model.research();
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .any(|&(r, i)| &*app.model.runs[r as usize].rows[i as usize].id == "99")
    );
}

#[test]
fn run_status_and_new_run_directories_are_picked_up_while_open() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::create_dir_all(&a).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::fixtures::runs().join("pl-small/run.json")).unwrap(),
    )
    .unwrap();
    m["status"] = serde_json::json!("running");
    std::fs::write(a.join("run.json"), m.to_string()).unwrap();
    std::fs::copy(
        common::fixtures::runs().join("pl-small/samples.jsonl"),
        a.join("samples.jsonl"),
    )
    .unwrap();
    // "Another process" is writing it: the run's lock is held (without it the run
    // reads `interrupted`).
    let lock = autoeval::run::store::RunLock::acquire(&a).unwrap();
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    assert_eq!(app.model.runs.len(), 1);
    assert_eq!(app.model.runs[0].status().as_str(), "running");
    drop(lock);
    // Another process finishes it: the run list follows the manifest.
    std::thread::sleep(std::time::Duration::from_millis(20));
    m["status"] = serde_json::json!("finished");
    m["id"] = serde_json::json!("a-done");
    std::fs::write(a.join("run.json"), m.to_string()).unwrap();
    // Make sure the modification time moves even on coarse clocks.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    std::fs::File::options()
        .write(true)
        .open(a.join("run.json"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert!(app.follow());
    assert_eq!(app.model.runs[0].status().as_str(), "finished");
    // A run directory made after start joins the list.
    let b = dir.path().join("b");
    common::fixtures::copy_to("fol-small", &b);
    assert!(app.follow());
    assert_eq!(app.model.runs.len(), 2);
    assert!(app.model.listing.visible.iter().any(|(r, _)| *r == 1));
}

#[test]
fn an_empty_folder_warns_until_a_run_appears() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    assert!(
        app.model
            .warnings
            .iter()
            .any(|w| w.contains("no run directories here"))
    );
    let b = dir.path().join("b");
    common::fixtures::copy_to("fol-small", &b);
    assert!(app.follow());
    assert_eq!(app.model.runs.len(), 1);
    assert!(
        !app.model
            .warnings
            .iter()
            .any(|w| w.contains("no run directories here"))
    );
}

#[test]
fn wide_characters_keep_the_run_list_columns_aligned() {
    let dir = tempfile::tempdir().unwrap();
    for (name, id) in [("a", "評価テスト評価テスト-run"), ("b", "plain-run")] {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        let mut m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(common::fixtures::runs().join("pl-small/run.json")).unwrap(),
        )
        .unwrap();
        m["id"] = serde_json::json!(id);
        std::fs::write(d.join("run.json"), m.to_string()).unwrap();
        std::fs::copy(
            common::fixtures::runs().join("pl-small/samples.jsonl"),
            d.join("samples.jsonl"),
        )
        .unwrap();
    }
    let (app, t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
    term.draw(|f| {
        ui::view(f, &app, &t);
    })
    .unwrap();
    let buf = term.backend().buffer().clone();
    // The x of the accuracy's "%" on the two run rows (rows 1 and 2 of the run list).
    let pct_x: Vec<u16> = (1..3u16)
        .map(|y| {
            (0..50u16)
                .find(|&x| buf[(x, y)].symbol() == "%")
                .unwrap_or_else(|| panic!("no % on row {y}"))
        })
        .collect();
    assert_eq!(pct_x[0], pct_x[1], "columns drift with wide characters");
}

#[test]
fn help_lists_every_mode_scrolls_and_the_footer_names_help_once() {
    let (mut app, t) = app();
    let s = screen(&mut app, &t, 160, 48);
    let footer = s.lines().last().unwrap();
    assert_eq!(footer.matches('?').count(), 1, "{footer}");
    keys(&mut app, &["?"]);
    // Scrolling through help shows every binding of every mode, from the keymap.
    let mut seen = String::new();
    for _ in 0..15 {
        seen.push_str(&screen(&mut app, &t, 160, 48));
        keys(&mut app, &["pagedown"]);
    }
    for ctx in autoeval::tui::keymap::Context::ALL {
        assert!(seen.contains(ctx.title()), "{}", ctx.title());
        for b in app.keymap.of(ctx) {
            assert!(seen.contains(b.desc), "{}: {}", ctx.name(), b.desc);
        }
    }
    // Long descriptions are not cut at 20 characters.
    assert!(seen.contains("rescore the selected run in place (no model calls; old samples kept)"));
    // At 80×24 it scrolls to the end.
    keys(&mut app, &["g"]);
    let top = screen(&mut app, &t, 80, 24);
    for _ in 0..20 {
        keys(&mut app, &["pagedown"]);
    }
    let bottom = screen(&mut app, &t, 80, 24);
    assert_ne!(top, bottom);
    assert!(bottom.contains("config.toml"), "{bottom}");
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn labelling_at_80x24_keeps_the_formulas_in_view() {
    let (mut app, t) = app();
    keys(&mut app, &["a"]);
    assert_eq!(app.mode(), Mode::Label);
    let s = screen(&mut app, &t, 80, 24);
    assert!(s.contains("Labels"), "{s}");
    for what in ["φ₀ ", "ψ  ", "φ₁ "] {
        assert!(s.contains(what), "{what} hidden while labelling:\n{s}");
    }
    // The categories that do not fit are a page key away (see the test below).
    assert!(s.contains("Labels 1–"), "{s}");
}

/// Large searches run on a worker: keys are taken at once, the list shows the last
/// results with "searching…" until the new ones come, and results overtaken by newer
/// typing are dropped — the end state equals the search done on the UI thread.
#[test]
fn background_search_never_blocks_and_keeps_only_the_newest_result() {
    let (mut sync_app, _) = app();
    keys(&mut sync_app, &["/", "p", "1", "2", "∧"]);
    let want = sync_app.model.listing.visible.clone();
    assert!(!want.is_empty());
    let (mut app, t) = app();
    app.model.listing.search.sync_limit = 0;
    keys(&mut app, &["/", "p", "1", "2", "∧"]);
    assert!(app.search_pending(), "the search went to the worker");
    assert!(screen(&mut app, &t, 120, 30).contains("searching…"));
    let start = std::time::Instant::now();
    while app.search_pending() {
        app.pump();
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(
        app.model.listing.visible, want,
        "only the newest query's result is shown"
    );
    assert!(!screen(&mut app, &t, 120, 30).contains("searching…"));
    // Deleting back to nothing shows everything again without a worker round trip.
    keys(
        &mut app,
        &["backspace", "backspace", "backspace", "backspace"],
    );
    assert!(!app.search_pending());
    assert_eq!(
        app.model.listing.visible.len(),
        app.model.runs.iter().map(|r| r.rows.len()).sum::<usize>()
    );
}

/// The viewer draws before its runs are read: they join as the loader opens them, in
/// the order named, and the end state is the one a blocking open gives.
#[test]
fn runs_load_in_the_background_and_join_in_order() {
    let paths = vec![common::fixtures::runs()];
    let (mut app, t) = autoeval::tui::build_app_loading(&screens::options(paths.clone()));
    assert!(app.loading().is_some());
    let first = screen(&mut app, &t, 120, 30);
    assert!(first.contains("Samples"), "{first}");
    let start = std::time::Instant::now();
    while app.loading().is_some() {
        app.pump();
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let (mut blocking, _) = build_app(&screens::options(paths));
    let names = |a: &autoeval::tui::app::App| {
        a.model
            .runs
            .iter()
            .map(autoeval::tui::data::RunIndex::name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&app), names(&blocking));
    assert_eq!(app.model.listing.visible, blocking.model.listing.visible);
    assert_eq!(app.model.selected(), blocking.model.selected());
    assert!(!screen(&mut app, &t, 120, 30).contains("loading runs"));
    assert_eq!(
        screen(&mut app, &t, 120, 30),
        screen(&mut blocking, &t, 120, 30)
    );
}

#[test]
fn styled_snapshots_of_the_main_screen_in_each_built_in_theme() {
    for theme in ["default", "light", "high-contrast", "colorblind"] {
        let (mut app, _) = app();
        let (t, warnings) = autoeval::tui::theme::Theme::load(theme);
        assert!(warnings.is_empty(), "{theme}: {warnings:?}");
        insta::assert_snapshot!(
            format!("styled_main_{theme}_100x30"),
            styled(&mut app, &t, 100, 30)
        );
    }
}

/// Search results come best match first (skim's score over the fields the window
/// admits); ctrl-o in the search, or `o` while browsing, gives dataset order back.
#[test]
fn search_ranks_best_match_first_and_the_order_toggles_back() {
    let (mut app, t) = app();
    keys(&mut app, &["/", "p", "1", "0"]);
    assert!(app.model.listing.search.ranked);
    let ranked = app.model.listing.visible.clone();
    let q = autoeval::tui::search::Query::new("p10");
    let score = |(r, i): (u32, u32)| {
        let run = &app.model.runs[r as usize];
        q.score(&run.text(&run.rows[i as usize])).unwrap()
    };
    let scores: Vec<i64> = ranked.iter().map(|x| score(*x)).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(
        scores.first() > scores.last(),
        "the fixture has better and worse matches"
    );
    keys(&mut app, &["ctrl-o"]);
    assert!(!app.model.listing.search.ranked);
    assert!(screen(&mut app, &t, 120, 30).contains("dataset order"));
    let plain = app.model.listing.visible.clone();
    assert!(plain.windows(2).all(|w| w[0] < w[1]), "dataset order");
    let mut sorted = ranked.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, plain, "the same rows either way");
    assert_ne!(ranked, plain);
    // Typing on narrows in the chosen order; `o` while browsing toggles back.
    keys(&mut app, &["∨", "enter", "o"]);
    assert!(app.model.listing.search.ranked);
    let narrowed: Vec<i64> = {
        let q = autoeval::tui::search::Query::new("p10∨");
        app.model
            .listing
            .visible
            .iter()
            .map(|&(r, i)| {
                let run = &app.model.runs[r as usize];
                q.score(&run.text(&run.rows[i as usize])).unwrap()
            })
            .collect()
    };
    assert!(narrowed.windows(2).all(|w| w[0] >= w[1]), "{narrowed:?}");
}

/// The README's list of configurable actions per mode is the keymap's.
#[test]
fn readme_lists_every_configurable_action_of_every_mode() {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/guide/viewer.md"),
    )
    .unwrap();
    let start = readme.find("Actions per table:").unwrap();
    // The list ends at a blank line or with the chapter.
    let end = readme[start..].find("\n\n").unwrap_or(readme.len() - start);
    let section = &readme[start..start + end];
    let keymap = autoeval::tui::keymap::Keymap::default();
    for ctx in autoeval::tui::keymap::Context::ALL {
        let head = if ctx == autoeval::tui::keymap::Context::Normal {
            "- `[keys]`".to_string()
        } else {
            format!("- `[keys.{}]`", ctx.name())
        };
        let from = section.find(&head).unwrap_or_else(|| panic!("{head}"));
        let item = &section[from + 2..];
        let item = &item[..item.find("\n- ").unwrap_or(item.len())];
        let listed: std::collections::BTreeSet<&str> = item
            .split(':')
            .nth(1)
            .unwrap()
            .split(|c: char| c.is_whitespace() || c == '`')
            .filter(|w| !w.is_empty())
            .collect();
        let names: std::collections::BTreeSet<&str> = keymap.of(ctx).map(|b| b.name).collect();
        assert_eq!(listed, names, "{}", ctx.name());
    }
}

/// A click selects the row drawn under the pointer, also after the lists scrolled: the
/// offsets drawing used are the ones the hit-test reads (the run list once missed this).
#[test]
fn clicks_select_the_row_drawn_under_the_pointer_after_scrolling() {
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let dir = tempfile::tempdir().unwrap();
    for k in 0..9 {
        let d = dir.path().join(format!("run-{k}"));
        std::fs::create_dir_all(&d).unwrap();
        for f in ["run.json", "samples.jsonl"] {
            std::fs::copy(common::fixtures::runs().join("pl-small").join(f), d.join(f)).unwrap();
        }
    }
    let (mut app, t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut frame = |app: &mut autoeval::tui::app::App| {
        let mut areas = None;
        term.draw(|f| areas = Some(ui::view(f, app, &t))).unwrap();
        (areas.unwrap(), term.backend().buffer().clone())
    };
    let click = |x: u16, y: u16| MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    };
    let row_text = |buf: &ratatui::buffer::Buffer, r: ratatui::layout::Rect, y: u16| {
        (r.x + 1..r.x + r.width - 1)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect::<String>()
    };
    // Samples: down a long way, then up a little (the list keeps its offset).
    for _ in 0..60 {
        keys(&mut app, &["j"]);
        let _ = frame(&mut app);
    }
    keys(&mut app, &["k", "k", "k"]);
    let (a, buf) = frame(&mut app);
    assert!(
        app.model.listing.sample_list.offset.get() > 0,
        "the list scrolled"
    );
    let y = a.samples.y + 3;
    let shown_id = row_text(&buf, a.samples, y)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    {
        app.panes.areas = a;
        app.update(autoeval::tui::app::Msg::Mouse(click(a.samples.x + 2, y)));
    }
    let (r, i) = app.model.selected().unwrap();
    assert_eq!(*app.model.runs[r as usize].rows[i as usize].id, *shown_id);
    // The wheel over the sample list moves the selection three rows.
    let before = app.model.listing.sample_list.sel;
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollDown,
        ..click(a.samples.x + 2, y)
    };
    {
        app.panes.areas = a;
        app.update(autoeval::tui::app::Msg::Mouse(wheel));
    }
    assert_eq!(app.model.listing.sample_list.sel, before + 3);
    // Runs: more runs than rows, scrolled to the last.
    keys(&mut app, &["shift-tab"]);
    assert_eq!(app.panes.focus, Pane::Runs);
    for _ in 0..8 {
        keys(&mut app, &["j"]);
        let _ = frame(&mut app);
    }
    let (a, buf) = frame(&mut app);
    assert!(app.panes.run_list.offset.get() > 0, "the run list scrolled");
    // The focused run list is the catalogue: its first line is the column header.
    let y = a.runs.y + 2;
    let shown = row_text(&buf, a.runs, y);
    {
        app.panes.areas = a;
        app.update(autoeval::tui::app::Msg::Mouse(click(a.runs.x + 2, y)));
    }
    let name = app.model.runs[app.panes.run_list.sel].name();
    assert!(shown.contains(&name), "clicked {shown:?}, selected {name}");
}

/// `cargo run --release` opens the shipped runs: they load without warnings and the
/// first screen is a real model's failure with its countermodel.
#[test]
fn the_shipped_sample_runs_load_cleanly_and_open_on_a_real_failure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let (mut app, t) = build_app(&screens::options(vec![root]));
    assert!(app.model.warnings.is_empty(), "{:?}", app.model.warnings);
    assert!(app.model.runs.len() >= 25, "{} runs", app.model.runs.len());
    assert!(app.model.runs.iter().all(|r| !r.rows.is_empty()));
    let (r, i) = app.model.selected().unwrap();
    let run = &app.model.runs[r as usize];
    assert!(!run.model().contains("perturb"), "{}", run.model());
    assert_eq!(
        run.rows[i as usize].verdict,
        autoeval::verify::VerdictKind::NotEquivalent
    );
    let s = screen(&mut app, &t, 112, 40);
    assert!(
        s.contains("φ₀ is true, φ₁ is false") || s.contains("φ₀ is false, φ₁ is true"),
        "{s}"
    );
}

/// Statuses and warnings quote paths, errors and file contents: whatever they hold, the
/// terminal gets no escape sequence or bidi control from them, and the user sees that
/// they were there (as `\u{…}`), as everywhere else in the viewer.
#[test]
fn statuses_and_warnings_are_drawn_safe_and_visible() {
    let (mut app, t) = app();
    app.model
        .warnings
        .push("bad \u{1b}[31mred\u{202e} warning\nsecond line".into());
    app.status = "export failed: /tmp/\u{1b}]0;title\u{7}x\u{202e}y".into();
    let s = screen(&mut app, &t, 120, 30);
    assert!(
        s.contains(r"/tmp/\u{001B}]0;title\u{0007}x\u{202E}y"),
        "{s}"
    );
    keys(&mut app, &["w"]);
    let s = screen(&mut app, &t, 120, 30);
    assert!(
        s.contains(r"bad \u{001B}[31mred\u{202E} warning\nsecond line"),
        "{s}"
    );
    for c in ['\u{1b}', '\u{202e}', '\u{7}'] {
        assert!(!s.contains(c), "{s:?}");
    }
}

/// A binding rebound in a mode's own config table works through the keys a user types.
#[test]
fn a_key_rebound_in_a_mode_table_is_what_the_mode_obeys() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        "[keys.search]\ntoggle_order = \"ctrl-r\"\n[keys.filter]\nnext_field = \"n\"\n",
    )
    .unwrap();
    let (mut app, t) = build_app(&ViewOptions {
        config: Some(cfg),
        ..screens::options(vec![common::fixtures::runs()])
    });
    assert!(app.model.warnings.is_empty(), "{:?}", app.model.warnings);
    keys(&mut app, &["/", "p", "1", "ctrl-o"]);
    assert!(app.model.listing.search.ranked, "ctrl-o no longer toggles");
    keys(&mut app, &["ctrl-r"]);
    assert!(!app.model.listing.search.ranked);
    assert!(
        screen(&mut app, &t, 120, 30).contains("ctrl-r order"),
        "the footer follows"
    );
    keys(&mut app, &["esc", "f"]);
    let field = app.filter_editor().field.index();
    keys(&mut app, &["n"]);
    assert_eq!(app.filter_editor().field.index(), field + 1);
    keys(&mut app, &["j"]);
    assert_eq!(
        app.filter_editor().field.index(),
        field + 1,
        "an override replaces the action's keys: j no longer moves the field"
    );
}

#[test]
fn typing_a_range_bound_never_changes_the_other() {
    let (mut app, t) = app();
    // On "from" type 5, move to "to", type 1 and 0: the range is 5–10.
    keys(&mut app, &["f", "5", "j", "1"]);
    assert_eq!(
        app.model.listing.filter.range,
        Some((5, 1)),
        "the 1 leaves 'from' alone"
    );
    assert!(
        app.model.listing.visible.is_empty(),
        "an inverted range matches nothing"
    );
    assert!(app.filter_summary().contains("invalid"));
    assert!(screen(&mut app, &t, 100, 30).contains("invalid: from > to"));
    keys(&mut app, &["0"]);
    assert_eq!(app.model.listing.filter.range, Some((5, 10)));
    assert!(!screen(&mut app, &t, 100, 30).contains("invalid"));
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|(r, i)| (5..=10).contains(&app.model.category(*r, *i).unwrap_or(0)))
    );
}

#[test]
fn every_character_drawn_on_a_highlight_is_readable_in_every_theme() {
    use autoeval::tui::theme::{Theme, contrast, rgb};
    use ratatui::style::Color;
    for name in ["default", "light", "high-contrast", "colorblind"] {
        let (t, _) = Theme::load(name);
        let light = name == "light";
        // "reset" is the terminal's own colour: a typical one for the theme's kind.
        let resolve = |c: Color, fallback: Color, typical| {
            rgb(if c == Color::Reset { fallback } else { c }).unwrap_or(typical)
        };
        let (mut app, _) = app();
        // The main screen opens on a failing sample whose φ₀/φ₁ diff is highlighted;
        // the chart marks its chosen bucket; the runs pane takes focus (the sample
        // row stays selected without focus).
        let mut checked = 0;
        for way in [&[][..], &["v", "right"], &["esc", "shift-tab"]] {
            keys(&mut app, way);
            let buf = screens::render(&mut app, &t, 120, 40);
            for c in buf.content() {
                if c.bg == Color::Reset || c.symbol().trim().is_empty() {
                    continue;
                }
                let bg = resolve(
                    c.bg,
                    t.bg,
                    if light { (255, 255, 255) } else { (30, 30, 30) },
                );
                let fg = resolve(c.fg, t.fg, if light { (0, 0, 0) } else { (208, 208, 208) });
                let r = contrast(fg, bg);
                assert!(
                    r >= 4.5,
                    "{name} after {way:?}: {:?} drawn {:?} on {:?}: contrast {r:.2}",
                    c.symbol(),
                    c.fg,
                    c.bg
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "{name}: only {checked} highlighted cells");
    }
}

#[test]
fn a_retried_sample_counts_once_and_its_latest_line_wins() {
    let dir = tempfile::tempdir().unwrap();
    let (d, text) = live_copy(dir.path());
    std::fs::write(d.join("samples.jsonl"), &text).unwrap();
    let (mut app, _) = build_app(&screens::options(vec![d.clone()]));
    // Only the not-equivalent samples: 7, 1, 4 and 11.
    keys(&mut app, &["f", "j", "j", "j", "space", "esc"]);
    assert_eq!(app.filter_summary(), "4/14 · not-equivalent");
    // A retry appends sample 7's new line: it now passes.
    let passing = text.lines().next().unwrap();
    let retried = passing
        .replacen("\"id\":\"3\"", "\"id\":\"7\"", 1)
        .replacen("\"idx\":3", "\"idx\":7", 1);
    std::fs::write(d.join("samples.jsonl"), format!("{text}{retried}\n")).unwrap();
    assert!(app.follow());
    let run = &app.model.runs[0];
    assert_eq!(run.rows.len(), 14, "sample 7 counts once");
    let seven: Vec<_> = run.rows.iter().filter(|r| &*r.id == "7").collect();
    assert_eq!(seven.len(), 1);
    assert!(seven[0].verdict.is_pass(), "the latest line wins");
    assert_eq!(app.filter_summary(), "3/14 · not-equivalent");
    assert!(
        app.model
            .listing
            .visible
            .iter()
            .all(|(r, i)| &*app.model.runs[*r as usize].rows[*i as usize].id != "7"),
        "the filter drops the old row without reopening"
    );
}

/// The chart's "runs a–b of n" window from the screen.
fn chart_window_shown(s: &str) -> Option<(usize, usize, usize)> {
    let at = s.find("runs ")? + "runs ".len();
    let rest = &s[at..];
    let (a, rest) = rest.split_once('–')?;
    let (b, rest) = rest.split_once(" of ")?;
    let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((a.parse().ok()?, b.parse().ok()?, n.parse().ok()?))
}

#[test]
fn the_chart_scrolls_and_follows_the_run_selection() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let (mut app, t) = build_app(&screens::options(vec![root]));
    let n = app.model.derived.chart_runs.len();
    assert!(n >= 25, "{n} runs on the chart");
    let s = screen(&mut app, &t, 80, 24);
    let (a, b, total) = chart_window_shown(&s).expect("a scrolled chart says which runs");
    assert_eq!(total, n);
    assert!(b < n, "not every run fits at 80×24: {a}–{b}");
    // Selecting the last run in the run list brings its chart row into view.
    keys(&mut app, &["shift-tab", "G"]);
    let last = app.panes.run_list.sel;
    let row = app
        .model
        .derived
        .chart_runs
        .iter()
        .position(|ri| *ri == last)
        .unwrap();
    let s = screen(&mut app, &t, 80, 24);
    let (a, b, _) = chart_window_shown(&s).unwrap();
    assert!(
        (a..=b).contains(&(row + 1)),
        "run row {} not in {a}–{b}",
        row + 1
    );
    assert_eq!(b, n, "the last run is in view");
    // Picking starts on that run and moving up scrolls the chart back to the first.
    keys(&mut app, &["v"]);
    assert_eq!(app.chart_layer().unwrap().pick.run, row);
    for _ in 0..n {
        keys(&mut app, &["up"]);
        let s = screen(&mut app, &t, 80, 24);
        let (a, b, _) = chart_window_shown(&s).unwrap();
        let picked = app.chart_layer().unwrap().pick.run + 1;
        assert!(
            (a..=b).contains(&picked),
            "picked row {picked} not in {a}–{b}"
        );
    }
    assert_eq!(app.chart_layer().unwrap().pick.run, 0);
    assert_eq!(
        chart_window_shown(&screen(&mut app, &t, 80, 24)).unwrap().0,
        1
    );
}

#[test]
fn at_80x24_the_detail_names_its_run_and_labels_show_full_category_names() {
    let (mut app, t) = app();
    let (r, _) = app.model.selected().unwrap();
    let run = app.model.runs[r as usize].name();
    let s = screen(&mut app, &t, 80, 24);
    let title = s.lines().find(|l| l.contains("Sample ")).unwrap();
    assert!(
        title.contains(&run),
        "the detail title names the run: {title}"
    );
    // The 23 built-in categories do not fit at 80×24: the panel scrolls by pages, every
    // name in full, the formulas in view throughout.
    assert_eq!(app.model.taxonomy.categories.len(), 23);
    keys(&mut app, &["a"]);
    let mut seen = std::collections::BTreeSet::new();
    let mut titles = Vec::new();
    for page in 0..4 {
        let s = screen(&mut app, &t, 80, 24);
        // A name too long for the panel goes on under its key, never cut short.
        let panel: Vec<String> = s.lines().map(|l| l.chars().take(36).collect()).collect();
        assert!(
            panel.iter().all(|l| !l.contains('…')),
            "a name is cut:\n{s}"
        );
        for c in &app.model.taxonomy.categories {
            let one_line = s.contains(&format!("{} [ ] {}", c.key, c.name));
            let wrapped = panel.iter().any(|l| l.contains(&format!("{} [ ]", c.key)))
                && c.name.split(' ').all(|w| s.contains(w));
            if one_line || wrapped {
                seen.insert(c.id.clone());
            }
        }
        for what in ["φ₀ ", "ψ  ", "φ₁ "] {
            assert!(s.contains(what), "{what} hidden while labelling:\n{s}");
        }
        assert!(s.contains("note: "), "the note line stays:\n{s}");
        titles.push(
            s.lines()
                .find(|l| l.contains("Labels "))
                .unwrap_or("")
                .to_string(),
        );
        if page == 0 {
            assert!(titles[0].contains("Labels 1–"), "{}\n{s}", titles[0]);
        }
        keys(&mut app, &["pagedown"]);
    }
    assert_eq!(
        seen.len(),
        23,
        "every category reachable: {seen:?} {titles:?}"
    );
    // Page keys scroll the panel, not the sample list; back up to the first rows.
    let sel = app.model.listing.sample_list.sel;
    keys(&mut app, &["pageup", "pageup", "pageup", "pageup"]);
    assert_eq!(app.model.listing.sample_list.sel, sel);
    let s = screen(&mut app, &t, 80, 24);
    assert!(s.contains("Labels 1–"), "{s}");
}

#[test]
fn the_run_form_writes_into_the_viewed_folder_and_shows_its_whole_command() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    keys(&mut app, &["R"]);
    let form = app.form_mut().unwrap();
    let argv = form.argv().unwrap();
    let at = argv.iter().position(|a| a == "--out").unwrap();
    assert_eq!(
        PathBuf::from(&argv[at + 1]),
        dir.path().join("live"),
        "a new run goes into the folder being viewed, not the working directory"
    );
    assert!(form.estimate.starts_with("up to "), "{}", form.estimate);
    // A long command wraps inside the popup instead of being cut at its edge.
    form.set("prompts", &format!("/{}", "p".repeat(150)));
    form.refresh();
    let command = form.command.clone();
    let s = screen(&mut app, &t, 80, 40);
    let joined: String = s
        .lines()
        .map(|l| l.trim_matches(|c: char| "│┃━┗┛┏┓ ".contains(c)))
        .collect();
    // Spaces aside: a wrapped line that starts with one loses it to the trim.
    assert!(
        joined.replace(' ', "").contains(&command.replace(' ', "")),
        "{command}\n{s}"
    );
}

#[test]
fn a_view_mixing_logic_and_regex_runs_names_each_runs_measure() {
    let (mut app, t) = app();
    assert_eq!(
        app.model.derived.measures.len(),
        2,
        "{:?}",
        app.model.derived.measures
    );
    let s = screen(&mut app, &t, 160, 48);
    assert!(s.contains("by ops/depth"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("regex-small") && l.contains("A3d"))
            && s.lines()
                .any(|l| l.contains("pl-small") && l.contains("A3o")),
        "each chart row names its measure:\n{s}"
    );
    assert!(
        s.contains(" o/d "),
        "the column says it mixes measures:\n{s}"
    );
    // Each row says which measure its number is.
    let regex = app
        .model
        .runs
        .iter()
        .position(|r| r.name() == "regex-small")
        .unwrap();
    let k = app
        .model
        .listing
        .visible
        .iter()
        .position(|(r, _)| *r as usize == regex)
        .unwrap();
    let (r, i) = app.model.listing.visible[k];
    assert_eq!(app.model.measure_of(r, i), "depth");
    app.model.listing.sample_list.sel = k;
    let d = format!("{}d", app.model.category(r, i).unwrap());
    let s = screen(&mut app, &t, 160, 48);
    let row = s
        .lines()
        .find(|l| l.contains(&format!(" {d} ")) && l.contains("regex"))
        .unwrap_or_else(|| panic!("no row with {d}:\n{s}"));
    assert!(row.contains("regex"), "{row}");
    // Only logic runs: one measure, the plain header.
    keys(&mut app, &["shift-tab"]);
    while app.model.runs[app.panes.run_list.sel].name() != "regex-small" {
        keys(&mut app, &["j"]);
    }
    keys(&mut app, &["space"]);
    let s = screen(&mut app, &t, 160, 48);
    assert!(
        s.contains("by ops ") && !s.contains("ops/depth") && !s.contains("A3o"),
        "{s}"
    );
}

#[test]
fn the_sample_list_sorts_by_a_key_or_a_header_click_and_says_so() {
    use autoeval::tui::components::sort::SortKey;
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let (mut app, t) = app();
    let cats = |app: &autoeval::tui::app::App| -> Vec<usize> {
        app.model
            .listing
            .visible
            .iter()
            .map(|&(r, i)| app.model.category(r, i).unwrap())
            .collect()
    };
    let selected = app.model.selected();
    keys(&mut app, &["s"]);
    assert_eq!(app.model.listing.sort.key, Some(SortKey::Measure));
    assert!(cats(&app).is_sorted(), "{:?}", cats(&app));
    assert_eq!(
        app.model.selected(),
        selected,
        "the selected sample stays selected"
    );
    assert!(screen(&mut app, &t, 120, 40).contains("Samples 42/42 · sorted by measure ↑"));
    keys(&mut app, &["d"]);
    let mut down = cats(&app);
    down.reverse();
    assert!(down.is_sorted(), "descending");
    assert!(screen(&mut app, &t, 120, 40).contains("sorted by measure ↓"));
    // Verdict, then BLEU (rows without one last), then the rest, then unsorted.
    keys(&mut app, &["s"]);
    assert_eq!(app.model.listing.sort.key, Some(SortKey::Verdict));
    keys(&mut app, &["s"]);
    let bleu: Vec<Option<u16>> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&(r, i)| {
            app.model.runs[r as usize].rows[i as usize]
                .scores
                .get(autoeval::record::Metric::Bleu)
        })
        .collect();
    let known: Vec<u16> = bleu.iter().flatten().copied().collect();
    assert!(known.is_sorted());
    assert!(
        bleu.iter().skip(known.len()).all(Option::is_none),
        "{bleu:?}"
    );
    for _ in 0..4 {
        keys(&mut app, &["s"]);
    }
    assert_eq!(app.model.listing.sort.key, None);
    assert!(!screen(&mut app, &t, 120, 40).contains("sorted by"));
    // A click on the verdict header sorts by verdict; a second click reverses.
    let mut term = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let mut areas = None;
    term.draw(|f| areas = Some(ui::view(f, &app, &t))).unwrap();
    let a = areas.unwrap();
    let click = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: a.samples.x + 1 + 16,
        row: a.samples.y + 1,
        modifiers: KeyModifiers::NONE,
    };
    {
        app.panes.areas = a;
        app.update(autoeval::tui::app::Msg::Mouse(click));
    }
    assert_eq!(
        (app.model.listing.sort.key, app.model.listing.sort.desc),
        (Some(SortKey::Verdict), false)
    );
    let verdicts: Vec<u8> = app
        .model
        .listing
        .visible
        .iter()
        .map(|&(r, i)| app.model.runs[r as usize].rows[i as usize].verdict as u8)
        .collect();
    assert!(verdicts.is_sorted());
    {
        app.panes.areas = a;
        app.update(autoeval::tui::app::Msg::Mouse(click));
    }
    assert!(app.model.listing.sort.desc);
    assert!(screen(&mut app, &t, 120, 40).contains("verdict↓"));
}

#[test]
fn the_raw_tab_shows_every_call_as_a_conversation() {
    let (mut app, t) = app();
    keys(&mut app, &["enter", "]", "]", "]"]);
    assert_eq!(app.panes.detail_view.tab, Tab::Raw);
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&screen(&mut app, &t, 160, 48));
        keys(&mut app, &["j"]);
    }
    assert!(
        seen.contains("user:") && seen.contains("assistant:"),
        "{seen}"
    );
    // The prompt as the model got it: the template filled with the sample's formula.
    assert!(seen.contains("[TASK]"), "{seen}");
    assert!(
        seen.contains("[FORMULA]") && seen.contains("[NL DESCRIPTION]"),
        "{seen}"
    );
    assert!(!seen.contains("prompt not shown"), "{seen}");
}

#[test]
fn overview_shows_hand_labels_and_the_judge_column_has_a_legend_and_marks_disagreement() {
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs/pl-qwen-1.5b");
    let (mut app, t) = build_app(&screens::options(vec![run]));
    let at = |app: &autoeval::tui::app::App, id: &str| {
        app.model
            .listing
            .visible
            .iter()
            .position(|&(r, i)| &*app.model.runs[r as usize].rows[i as usize].id == id)
            .unwrap()
    };
    app.model.listing.sample_list.sel = at(&app, "0");
    app.panes.detail = None;
    let s = screen(&mut app, &t, 160, 48);
    assert!(s.contains("labels dev-a: off-format answer"), "{s}");
    assert!(
        s.contains("J: ✓ judge yes · ✗ no · ? unreadable · ≠ verifier differs"),
        "{s}"
    );
    // Sample 35: the judge and the verifier disagree.
    app.model.listing.sample_list.sel = at(&app, "35");
    app.panes.detail = None;
    let s = screen(&mut app, &t, 160, 48);
    let row = s
        .lines()
        .find(|l| l.contains("┃35 "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(row.contains('≠'), "{row}");
}

#[test]
fn empty_lists_point_to_the_right_key_and_the_filter_panel_keeps_isolated_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (mut empty, t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let s = screen(&mut empty, &t, 120, 40);
    assert!(s.contains("no samples yet: R starts a run"), "{s}");
    assert!(!s.contains("clears the filters"), "{s}");
    let (mut app, t) = app();
    keys(&mut app, &["/", "z", "z", "z", "z", "enter"]);
    assert!(app.model.listing.visible.is_empty());
    assert!(screen(&mut app, &t, 120, 40).contains("no samples match: x clears the filters"));
    keys(&mut app, &["x", "shift-tab", "j", "enter"]);
    assert_eq!(app.model.listing.visible.len(), 14, "one run isolated");
    keys(&mut app, &["f", "x", "esc"]);
    assert_eq!(
        app.model.listing.visible.len(),
        14,
        "x in the filter panel keeps the isolated run"
    );
}

#[test]
fn titles_name_the_keys_the_user_bound() {
    isolate();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[keys]\nnew_run = \"N\"\ntoggle_run = \"T\"\n[keys.overlay]\nback = \"Q\"\n",
    )
    .unwrap();
    let (mut app, t) = build_app(&ViewOptions {
        config: Some(config),
        ..screens::options(vec![common::fixtures::runs()])
    });
    let s = screen(&mut app, &t, 160, 48);
    assert!(s.contains("Runs · T shows/hides · N starts a run"), "{s}");
    keys(&mut app, &["w"]);
    assert!(screen(&mut app, &t, 160, 48).contains("Warnings · Q closes"));
}

#[test]
fn the_run_summary_pairs_only_runs_of_the_same_dataset() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let (mut app, t) = build_app(&screens::options(vec![root]));
    let mut paired_any = false;
    for ri in 0..app.model.runs.len() {
        app.panes.focus = autoeval::tui::app::Pane::Runs;
        app.panes.run_list.sel = ri;
        app.model.listing.visible.clear();
        let s = app.model.run_summary(ri).unwrap();
        let key = app.model.runs[ri].dataset_key();
        for (name, _) in &s.versus {
            let other = app.model.runs.iter().find(|r| r.name() == *name).unwrap();
            assert_eq!(other.dataset_key(), key, "{} paired with {name}", s.name);
        }
        assert!(s.other_datasets > 0, "{}", s.name);
        paired_any |= !s.versus.is_empty();
    }
    assert!(paired_any, "some shipped runs share a dataset");
    app.refilter();
    keys(&mut app, &["i"]);
    // Tall enough for the leaderboard above it (a row per model and prompt condition).
    assert!(screen(&mut app, &t, 160, 60).contains("of other datasets not paired"));
}

#[test]
fn compare_diffs_a_passing_run_against_a_failing_one_and_the_pair_can_be_picked() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(common::fixtures::runs().join("pl-small/samples.jsonl")).unwrap();
    for (k, pass) in [("a", false), ("b", false), ("c", true)] {
        let d = dir.path().join(k);
        std::fs::create_dir_all(&d).unwrap();
        let mut m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(common::fixtures::runs().join("pl-small/run.json")).unwrap(),
        )
        .unwrap();
        m["id"] = serde_json::Value::String(format!("run-{k}"));
        std::fs::write(d.join("run.json"), m.to_string()).unwrap();
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                if pass && v["id"] == "7" {
                    v["verdict"] = serde_json::json!({"verdict": "equivalent"});
                }
                v.to_string()
            })
            .collect();
        std::fs::write(d.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    }
    let (mut app, t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    app.model.listing.sample_list.sel = app
        .model
        .listing
        .visible
        .iter()
        .position(|&(r, i)| r == 0 && &*app.model.runs[0].rows[i as usize].id == "7")
        .unwrap();
    keys(&mut app, &["c"]);
    assert_eq!(app.mode(), Mode::Compare);
    let view = app.compare().unwrap();
    assert_eq!(view.columns.len(), 3);
    assert_eq!(view.pair, (0, 2), "the failing run against the passing one");
    assert!(screen(&mut app, &t, 160, 48).contains("φ₁ of run-a vs φ₁ of run-c · [/] picks"));
    keys(&mut app, &["]"]);
    assert_eq!(app.compare().unwrap().pair, (0, 1));
    assert!(screen(&mut app, &t, 160, 48).contains("φ₁ of run-a vs φ₁ of run-b"));
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode(), Mode::Normal);
}
