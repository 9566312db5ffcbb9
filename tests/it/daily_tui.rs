//! Issue 35, the viewer side of the everyday journeys, driven by keys into a test
//! terminal: dead runs, the `i` leaderboard against `autoeval leaderboard`, run names
//! told apart, the adjudication layer, the pause reason, copying.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::build_app;
use common::cli::{bin, ok};
use screens::screen;
use std::path::{Path, PathBuf};

fn sample_runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs")
}

/// Copies a fixture run into `to` under `name`, its manifest's id set to `name`.
fn copy_run(from: &Path, to: &Path, name: &str) -> PathBuf {
    let dir = to.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(from.join(f), dir.join(f)).unwrap();
    }
    let p = dir.join("run.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["id"] = name.into();
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    dir
}

fn set_status(dir: &Path, status: &str) {
    let p = dir.join("run.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["status"] = status.into();
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

#[test]
fn a_dead_running_run_reads_interrupted_in_the_run_list_and_turns_so_when_its_process_dies() {
    let d = tempfile::tempdir().unwrap();
    let dead = copy_run(&common::fixtures::run("pl-small"), d.path(), "dead-run");
    set_status(&dead, "running");
    std::fs::write(dead.join("run.lock"), "999999\n").unwrap();
    let live = copy_run(&common::fixtures::run("fol-small"), d.path(), "live-run");
    set_status(&live, "running");
    let lock = autoeval::run::store::RunLock::acquire(&live).unwrap();
    let (mut app, t) = build_app(&screens::options(vec![d.path().to_path_buf()]));
    let s = screen(&mut app, &t, 120, 40);
    assert!(s.contains("[interrupted] dead-run"), "{s}");
    assert!(!s.contains("[running] dead-run"), "{s}");
    assert!(s.contains("live-run"), "{s}");
    assert!(!s.contains("[interrupted] live-run"), "{s}");
    // The process of the live run dies: the next look says so, run.json unchanged.
    drop(lock);
    app.settle();
    assert!(app.follow());
    let s = screen(&mut app, &t, 120, 40);
    assert!(s.contains("[interrupted] live-run"), "{s}");
}

#[test]
fn the_i_leaderboard_is_autoeval_leaderboard() {
    let root = sample_runs();
    let o = bin()
        .arg("leaderboard")
        .arg(&root)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let cli: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    let (mut app, t) = build_app(&screens::options(vec![root.clone()]));
    app.press("i").unwrap();
    // Through the same JSON text, so floats parse back the same way on both sides.
    let tui: serde_json::Value = serde_json::from_str(
        &serde_json::to_string_pretty(app.summary().unwrap().leaderboard.as_ref().unwrap())
            .unwrap(),
    )
    .unwrap();
    // Cells compare with their run lists' order as the CLI has it (one dir per run).
    assert_eq!(tui["row_keys"], cli["row_keys"]);
    assert_eq!(tui["column_keys"], cli["column_keys"]);
    assert_eq!(tui["cells"], cli["cells"]);
    // The judge of pl-perturb (perturb-0.3) sits on its model's row, not a row of its own.
    let judged: Vec<&serde_json::Value> = cli["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["judge"].is_null())
        .collect();
    assert!(!judged.is_empty());
    assert!(
        judged.iter().all(|c| c["counts"]["n"].as_u64() > Some(0)),
        "{judged:?}"
    );
    // And the screen shows the rows under those names.
    let s = screen(&mut app, &t, 160, 48);
    assert!(s.contains("perturb:perturb-0.3"), "{s}");
    assert!(!s.contains("(synthetic)"), "{s}");
}

#[test]
fn runs_sharing_a_long_start_are_told_apart_in_the_sample_list_and_the_chart() {
    let d = tempfile::tempdir().unwrap();
    for m in ["gpt-4o", "qwen-7b", "llama-3"] {
        copy_run(
            &common::fixtures::run("pl-small"),
            d.path(),
            &format!("fol-english-long-study-{m}"),
        );
    }
    let (mut app, t) = build_app(&screens::options(vec![d.path().to_path_buf()]));
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut app, &t, w, h);
        // Each run's differing part is on screen (run list, chart), and the sample
        // list's run column shows it too.
        for m in ["gpt-4o", "qwen-7b", "llama-3"] {
            let lines = s.matches(m).count();
            assert!(lines >= 2, "{w}x{h}: {m}\n{s}");
        }
        let list: Vec<&str> = s.lines().filter(|l| l.contains("  0  equiv")).collect();
        assert!(list.iter().any(|l| l.contains("gpt-4o")), "{w}x{h}\n{s}");
        insta::assert_snapshot!(format!("distinct_runs_{w}x{h}"), s);
    }
}

/// The README's `--explain` example, the first screen of the shipped runs.
const PHI0: &str = "fade(quentin) ∨ ¬warn(amos,nadia) ∨ dream(pearl)";
const PHI1: &str = "¬(warn(amos,nadia) ∨ dream(pearl))";

#[test]
fn the_diff_tab_names_changes_as_verify_explain_and_the_readme_do() {
    let o = bin()
        .args(["verify", "--explain", PHI0, PHI1])
        .output()
        .unwrap();
    let explain = String::from_utf8_lossy(&o.stdout).into_owned();
    // `changes …:` up to `kinds:` inclusive.
    let from = explain.find("changes").unwrap();
    let to = explain.find("kinds:").unwrap();
    let end = to + explain[to..].find('\n').unwrap();
    let block: Vec<&str> = explain[from..end].lines().collect();
    assert_eq!(
        block,
        [
            "changes (proved by the verifier):",
            "  operand dropped: fade(quentin) from fade(quentin) ∨ ¬warn(amos,nadia)",
            "  negation widened: ¬warn(amos,nadia) ∨ dream(pearl) → ¬(warn(amos,nadia) ∨ dream(pearl))",
            "kinds: operand-dropped, negation-misplaced",
        ]
    );
    // The book (Verifying a pair) shows the same lines for the same pair.
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/guide/verifying.md"),
    )
    .unwrap();
    for l in &block {
        assert!(readme.contains(&format!("# {l}")), "README lacks {l:?}");
    }
    // The viewer opens the shipped runs on this pair; its Diff tab says the same.
    let (mut app, t) = build_app(&screens::options(vec![sample_runs()]));
    let (r, i) = app.model.selected().unwrap();
    let run = &app.model.runs[r as usize];
    let rec = run.record(&run.rows[i as usize]).unwrap();
    assert_eq!(rec.phi0, PHI0);
    app.press("]").unwrap();
    let s = screen(&mut app, &t, 200, 40);
    assert!(s.contains("[Diff]"), "{s}");
    for l in &block {
        assert!(s.contains(&format!("│{l} ")), "Diff tab lacks {l:?}\n{s}");
    }
    insta::assert_snapshot!("diff_tab_120x40", screen(&mut app, &t, 120, 40));
    assert!(s.contains("◀ negation widened"), "{s}");
    assert!(!s.contains("◀ negation added"), "{s}");
    assert!(!s.contains("◀ negation removed"), "{s}");
}

/// Appends label lines: (sample id, annotator, categories).
fn label(dir: &Path, rows: &[(&str, &str, &[&str])]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("labels.jsonl"))
        .unwrap();
    for (id, who, cats) in rows {
        let v = serde_json::json!({"id": id, "categories": cats, "note": "",
            "annotator": who, "time": "2026-11-24T12:00:00Z"});
        writeln!(f, "{v}").unwrap();
    }
}

#[test]
fn the_adjudication_layer_shows_the_pair_even_at_80x24() {
    let d = tempfile::tempdir().unwrap();
    let run = copy_run(&common::fixtures::run("pl-small"), d.path(), "pl");
    let (mut app, t) = build_app(&screens::options(vec![run.clone()]));
    let (r, i) = app.model.selected().unwrap();
    let id = app.model.id_of((r, i)).to_string();
    let rec = app.model.runs[r as usize]
        .record(&app.model.runs[r as usize].rows[i as usize])
        .unwrap();
    label(
        &run,
        &[
            (&id, "alice", &["incomplete"]),
            (&id, "bob", &["term-omitted"]),
        ],
    );
    app.follow();
    app.press("A").unwrap();
    assert_eq!(
        app.mode(),
        autoeval::tui::layer::Mode::Adjudicate,
        "{}",
        app.status
    );
    let psi = rec.rounds[0].psi.clone().unwrap();
    let phi1 = rec.rounds[0].phi1.clone().unwrap();
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut app, &t, w, h);
        let inside: Vec<&str> = s
            .lines()
            .skip_while(|l| !l.contains("Adjudicate sample"))
            .collect();
        let body = inside.join("\n");
        assert!(body.contains(&format!("φ₀ {}", rec.phi0)), "{w}x{h}\n{s}");
        assert!(body.contains(&format!("φ₁ {phi1}")), "{w}x{h}\n{s}");
        let psi_start: String = psi.chars().take(20).collect();
        assert!(body.contains(&format!("ψ  {psi_start}")), "{w}x{h}\n{s}");
        // The choices and keys are still there below.
        assert!(
            body.contains("settle as:") && body.contains("cancels"),
            "{w}x{h}\n{s}"
        );
        insta::assert_snapshot!(format!("adjudicate_{w}x{h}"), s);
    }
}

#[test]
fn a_pause_reason_is_not_lost_and_a_paused_run_shows_no_stale_rate() {
    // A port nobody listens on: every request is refused at once.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}/v1", dead.local_addr().unwrap());
    drop(dead);
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: set before the run's threads start; no other test reads it.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("AE_DAILY_NO_KEY", "local-unused");
    }
    let out = dir.path().join("gone");
    let (mut app, t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    app.press("R").unwrap();
    screens::set_form(
        &mut app,
        &[
            ("dataset", "pl"),
            ("seed", "5"),
            ("per_category", "1"),
            ("model", "openai:fake"),
            ("base_url", dead_url.as_str()),
            ("api_key_env", "AE_DAILY_NO_KEY"),
            ("concurrency", "1"),
            ("retries", "0"),
            ("limit", "12"),
            ("retry_errors", "n"),
            ("out", &out.display().to_string()),
        ],
    );
    app.press("enter").unwrap();
    let start = std::time::Instant::now();
    while !app.jobs.live.as_ref().is_some_and(|l| l.paused) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "no pause"
        );
        app.pump();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let reason = app
        .jobs
        .live
        .as_ref()
        .unwrap()
        .last_warning
        .clone()
        .unwrap();
    assert!(reason.starts_with("paused: 5 samples in a row"), "{reason}");
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut app, &t, w, h);
        let status = s.lines().nth(usize::from(h) - 2).unwrap();
        // Paused: no request rate or ETA measured over the paused time.
        assert!(status.starts_with("paused"), "{status}");
        assert!(
            !status.contains("req/s") && !status.contains("ETA"),
            "{status}"
        );
        // The reason, as much as fits, and where to read it whole.
        let want = if w >= 120 {
            "paused: 5 samples in a row"
        } else {
            "paused: 5"
        };
        assert!(status.contains(want), "{status}");
        assert!(status.contains("(w shows it whole)"), "{status}");
    }
    // `w` shows it whole.
    app.press("w").unwrap();
    let s = screen(&mut app, &t, 120, 40);
    let flat: String = s
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c == '┃' || c.is_whitespace()))
        .collect::<Vec<_>>()
        .join(" ");
    let tail = "resume once it answers (the failed samples can be redone with retry errors)";
    assert!(reason.ends_with(tail), "{reason}");
    assert!(
        flat.contains("(the failed samples can be redone with retry errors)"),
        "{s}"
    );
    app.press("esc").unwrap();
    app.press("C").unwrap();
    app.press("y").unwrap();
    let start = std::time::Instant::now();
    while app.jobs.live.as_ref().is_some_and(|l| l.ended.is_none()) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "no cancel"
        );
        app.pump();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Expected values computed outside the viewer (Python's base64 of these texts).
const PHI0_3: &str = "¬p9 ∨ (p8 ∧ (p3 ∧ ¬p5))";
const PHI0_3_B64: &str = "wqxwOSDiiKggKHA4IOKIpyAocDMg4oinIMKscDUpKQ==";
const CMD_3: &str =
    "autoeval verify --explain --syntax pl '¬p9 ∨ (p8 ∧ (p3 ∧ ¬p5))' '¬¬¬p9 ∨ (p8 ∧ (p3 ∧ ¬p5))'";
const CMD_3_B64: &str = "YXV0b2V2YWwgdmVyaWZ5IC0tZXhwbGFpbiAtLXN5bnRheCBwbCAnwqxwOSDiiKggKHA4IOKIpyAocDMg4oinIMKscDUpKScgJ8KswqzCrHA5IOKIqCAocDgg4oinIChwMyDiiKcgwqxwNSkpJw==";

fn jump_to(app: &mut autoeval::tui::app::App, id: &str) {
    app.press(":").unwrap();
    for c in id.chars() {
        app.press(&c.to_string()).unwrap();
    }
    app.press("enter").unwrap();
    let sel = app.model.selected().unwrap();
    assert_eq!(app.model.id_of(sel), id);
}

#[test]
fn y_copies_through_osc_52_and_shows_the_verify_command() {
    let d = tempfile::tempdir().unwrap();
    let run = copy_run(&common::fixtures::run("pl-small"), d.path(), "pl");
    let (mut app, t) = build_app(&screens::options(vec![run]));
    jump_to(&mut app, "3");
    app.press("y").unwrap();
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::Copy);
    // The menu shows each text and the command whole, at both sizes.
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut app, &t, w, h);
        assert!(s.contains(&format!("1  φ₀  {PHI0_3}")), "{s}");
        insta::assert_snapshot!(format!("copy_menu_{w}x{h}"), s);
    }
    let s = screen(&mut app, &t, 200, 40);
    assert!(s.contains(CMD_3), "{s}");
    app.press("1").unwrap();
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::Normal);
    assert_eq!(
        std::mem::take(&mut app.clipboard),
        format!("\x1b]52;c;{PHI0_3_B64}\x07").into_bytes()
    );
    assert!(app.status.starts_with("copied φ₀"), "{}", app.status);
    app.press("y").unwrap();
    app.press("5").unwrap();
    assert_eq!(
        std::mem::take(&mut app.clipboard),
        format!("\x1b]52;c;{CMD_3_B64}\x07").into_bytes()
    );
    // The JSON is the sample's record, whole.
    app.press("y").unwrap();
    app.press("4").unwrap();
    let seq = String::from_utf8(std::mem::take(&mut app.clipboard)).unwrap();
    let b64 = seq
        .strip_prefix("\x1b]52;c;")
        .and_then(|s| s.strip_suffix('\x07'))
        .unwrap();
    assert!(
        b64.len().is_multiple_of(4)
            && b64
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"+/=".contains(&c))
    );
    // The copied command runs as it stands and explains the pair.
    let cmd = CMD_3.replacen("autoeval", common::cli::EXE, 1);
    let o = std::process::Command::new("sh")
        .args(["-c", &cmd])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("changes:") && out.contains("kinds:"), "{out}");
    // Esc closes the menu without copying.
    app.press("y").unwrap();
    app.press("esc").unwrap();
    assert_eq!(app.mode(), autoeval::tui::layer::Mode::Normal);
    assert!(app.clipboard.is_empty());
}

#[test]
fn blind_copy_withholds_the_json_until_labelled() {
    let d = tempfile::tempdir().unwrap();
    let run = copy_run(&common::fixtures::run("pl-small"), d.path(), "pl");
    let (mut app, _) = autoeval::tui::build_app_blind(&screens::options(vec![run]));
    app.press("y").unwrap();
    app.press("4").unwrap();
    assert!(app.clipboard.is_empty());
    assert!(app.status.starts_with("blind:"), "{}", app.status);
    app.press("y").unwrap();
    app.press("1").unwrap();
    assert!(app.clipboard.starts_with(b"\x1b]52;c;"));
}

#[test]
fn the_foreign_syntax_kind_is_not_called_own_grammar() {
    let (mut app, t) = build_app(&screens::options(vec![sample_runs().join("pl-qwen-0.5b")]));
    app.press("i").unwrap();
    let mut all = String::new();
    for _ in 0..6 {
        all.push_str(&screen(&mut app, &t, 120, 40));
        app.press("pagedown").unwrap();
    }
    assert!(all.contains("foreign syntax"), "{all}");
    assert!(!all.contains("own grammar"), "{all}");
}

/// The text inside the overlay whose title starts with `title`, row by row.
fn overlay_rows(s: &str, title: &str) -> Vec<String> {
    let lines: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains(title))
        .unwrap();
    let left = lines[top].iter().position(|&c| c == '┏').unwrap();
    let right = lines[top].iter().rposition(|&c| c == '┓').unwrap();
    lines[top + 1..]
        .iter()
        .take_while(|l| l.get(left) != Some(&'┗'))
        .map(|l| {
            l[left + 1..right]
                .iter()
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

#[test]
fn help_pages_by_a_screenful_and_stops_at_its_end() {
    let (mut app, t) = build_app(&screens::options(vec![common::fixtures::run("pl-small")]));
    app.press("?").unwrap();
    let before = overlay_rows(&screen(&mut app, &t, 80, 24), "Help");
    app.press("pagedown").unwrap();
    let after = overlay_rows(&screen(&mut app, &t, 80, 24), "Help");
    assert!(before.len() > 15, "{before:#?}");
    // One line of overlap: the last line of a page is the first of the next.
    assert_eq!(after.first(), before.last(), "{before:#?}\n{after:#?}");
    // Paging past the end stops there: one page up from the end moves a page.
    for _ in 0..20 {
        app.press("pagedown").unwrap();
    }
    let end = overlay_rows(&screen(&mut app, &t, 80, 24), "Help");
    app.press("pageup").unwrap();
    let up = overlay_rows(&screen(&mut app, &t, 80, 24), "Help");
    assert_eq!(up.last(), end.first(), "{end:#?}\n{up:#?}");
}

/// Low item L4: a copied ψ shows the part the copy check found, struck through in place.
#[test]
fn the_copied_part_of_psi_is_marked_on_the_overview() {
    let d = tempfile::tempdir().unwrap();
    let src = sample_runs().join("fol-english-qwen-0.5b");
    let run = copy_run(&src, d.path(), "copy");
    let (mut app, t) = build_app(&screens::options(vec![run.clone()]));
    while app.jobs.loader.is_some() {
        app.pump();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    jump_to(&mut app, "0");
    let rec: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(run.join("samples.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(rec["verdict"]["verdict"], "copied");
    let (s, e) = (
        rec["verdict"]["span"][0].as_u64().unwrap() as usize,
        rec["verdict"]["span"][1].as_u64().unwrap() as usize,
    );
    let psi = rec["rounds"][0]["psi"].as_str().unwrap();
    let want: String = psi[s..e].chars().filter(|c| !c.is_whitespace()).collect();
    let buf = screens::render(&mut app, &t, 200, 60);
    let mut got = String::new();
    for y in 0..60 {
        for x in 0..200 {
            let c = &buf[(x, y)];
            if c.modifier.contains(ratatui::style::Modifier::CROSSED_OUT) {
                got.push_str(c.symbol());
            }
        }
    }
    let got: String = got.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(got, want);
}
