//! Runs started from the viewer, against a real local HTTP server with latency:
//! samples appear as they finish, pause holds, resume continues, cancel leaves a
//! resumable run, and model errors land on samples instead of crashing the view.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Tests send signals to child processes and set environment variables before
// threads start: the only unsafe calls, each with its SAFETY note.
#![allow(unsafe_code)]

use crate::common;
use crate::screens;

use autoeval::tui::build_app;
use autoeval::tui::layer::Mode;
use common::{FakeModel, Reply, Server, openai_body, prompt_of};
use std::time::{Duration, Instant};

fn screen_of(app: &mut autoeval::tui::app::App) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    redact(&screens::screen(app, &t, 100, 30))
        .trim_end()
        .to_string()
}

/// The last two rows (live status line, footer) with every number outside a style
/// marker masked as `#` and trailing blanks dropped.
fn status_rows(screen: &str) -> String {
    let rows: Vec<&str> = screen.trim_end_matches('\n').lines().collect();
    rows[rows.len().saturating_sub(2)..]
        .iter()
        .map(|row| {
            let (mut out, mut in_marker, mut in_number) = (String::new(), false, false);
            for c in row.chars() {
                match c {
                    '[' => in_marker = true,
                    ']' => in_marker = false,
                    _ => {}
                }
                if !in_marker && c.is_ascii_digit() {
                    if !in_number {
                        out.push('#');
                    }
                    in_number = true;
                    continue;
                }
                in_number = false;
                out.push(c);
            }
            out.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The server's port and the temp directory change from run to run.
fn redact(s: &str) -> String {
    blank_command(s)
        .replace(
            &std::env::var("AE_LIVE_BASE").unwrap_or_default(),
            "http://127.0.0.1:PORT",
        )
        .replace(&std::env::var("AE_LIVE_OUT").unwrap_or_default(), "OUT")
}

/// The form's command wraps over lines of its own and holds the server's port and
/// the temporary directory: those lines become `COMMAND` (tests check it in full).
fn blank_command(s: &str) -> String {
    let mut inside = false;
    let mut out = Vec::new();
    for line in s.lines() {
        // The popup's own bottom border (a pane's border may cross a command line).
        if inside && line.contains("┗━━━━━━━━━━") {
            inside = false;
        }
        out.push(if inside { "COMMAND" } else { line });
        if line.contains("command (as `autoeval run` takes it)") {
            inside = true;
        }
    }
    out.join("\n") + if s.ends_with('\n') { "\n" } else { "" }
}

fn wait_until(
    app: &mut autoeval::tui::app::App,
    what: &str,
    cond: impl Fn(&autoeval::tui::app::App) -> bool,
) {
    let start = Instant::now();
    while !cond(app) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        app.pump();
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn live_run_pause_resume_cancel_and_errors() {
    let model = FakeModel::new();
    // Every fifth request fails once with 500 (retried), and one in four prompts about
    // p12 is refused with 400 (not retried): those samples must end as model errors.
    // (Refusals are spread out: five in a row would stop the run as refused. They take
    // as long as answers, so they finish in the order they were asked: an instant refusal
    // would overtake the answers in flight, and under load five could land in a row.)
    let server = Server::start(move |n, r| {
        let p = prompt_of(r);
        if p.contains("p12") && p.bytes().map(usize::from).sum::<usize>() % 4 == 0 {
            return Reply {
                delay: Duration::from_millis(80),
                ..Reply::json(400, "{\"error\": \"refused\"}".into())
            };
        }
        if n % 5 == 4 {
            return Reply::json(500, "{\"error\": \"boom\"}".into());
        }
        Reply {
            delay: Duration::from_millis(80),
            ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
        }
    });
    unsafe { std::env::set_var("AE_LIVE_BASE", &server.base) };
    let dir = tempfile::tempdir().unwrap();
    // The form remembers its values in the config directory: never the developer's.
    screens::isolate();
    let out = dir.path().join("live-run");
    unsafe { std::env::set_var("AE_LIVE_OUT", out.display().to_string()) };
    // A variable named with --api-key-env must be set (the local server ignores it).
    unsafe { std::env::set_var("AE_LIVE_NO_KEY", "local-unused") };
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    app.press("R").unwrap();
    assert_eq!(app.mode(), Mode::NewRun);
    screens::set_form(
        &mut app,
        &[
            ("dataset", "pl"),
            ("seed", "3"),
            ("per_category", "2"),
            ("batches", "1"),
            ("model", "openai:fake"),
            ("base_url", &format!("{}/v1", server.base)),
            ("api_key_env", "AE_LIVE_NO_KEY"),
            ("shots", "0"),
            ("prompts", ""),
            ("rounds", "1"),
            ("temperature", "0.2"),
            ("max_tokens", "300"),
            ("concurrency", "2"),
            ("retries", "5"),
            ("request_timeout", "120"),
            ("limit", "60"),
            ("retry_errors", "n"),
            ("out", &out.display().to_string()),
        ],
    );
    let form = app.form_mut().unwrap();
    assert!(
        form.estimate
            .starts_with("up to 60 samples × 2 calls = 120 calls"),
        "{}",
        form.estimate
    );
    // A snapshot of the form as a user sees it.
    insta::assert_snapshot!("new_run_form", screen_of(&mut app));
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    for (w, h) in screens::SIZES {
        insta::assert_snapshot!(
            format!("form_{w}x{h}"),
            redact(&screens::screen(&mut app, &t, w, h))
        );
        insta::assert_snapshot!(
            format!("styled_form_{w}x{h}"),
            redact(&screens::styled(&mut app, &t, w, h))
        );
    }
    app.press("enter").unwrap();
    assert_eq!(
        app.mode(),
        Mode::Normal,
        "{:?}",
        app.form().map(|f| f.error.clone())
    );
    assert!(app.jobs.live.is_some());
    // The form's seed and per-category made the dataset (not the defaults: 0 and 50).
    let ds: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("dataset.json")).unwrap()).unwrap();
    let items = ds["data"].as_array().unwrap().len();
    assert!(items <= 2 * 60, "per category 2 gave {items} items");
    assert_eq!(ds["info"]["seed"], 3);
    wait_until(&mut app, "six samples", |a| {
        a.jobs.live.as_ref().unwrap().done >= 6
    });
    // The manifest records the exact `autoeval run …` the form stood for, and the form's
    // temperature and max tokens reached the model calls.
    let m: serde_json::Value = common::manifest(&out);
    let cmd: Vec<&str> = m["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(cmd[..4], ["autoeval", "run", "--kind", "pl"]);
    for pair in [
        ["--seed", "3"],
        ["--per-category", "2"],
        ["--limit", "60"],
        ["--max-tokens", "300"],
    ] {
        assert!(cmd.windows(2).any(|w| w == pair), "{pair:?} in {cmd:?}");
    }
    assert_eq!(m["max_tokens"], 300);
    assert!((m["temperature"].as_f64().unwrap() - 0.2).abs() < 1e-6);
    assert!(
        app.model.runs.iter().any(|r| r.dir == out),
        "the live run joined the run list"
    );
    assert!(
        app.model.listing.visible.len() >= 6,
        "its samples are listed as they finish"
    );
    // Keys still work while requests are in flight (latency is measured in benches/tui.rs).
    let before = app.model.listing.sample_list.sel;
    app.press("j").unwrap();
    assert_eq!(
        app.model.listing.sample_list.sel,
        (before + 1).min(app.model.listing.visible.len() - 1)
    );

    app.press("p").unwrap();
    assert!(app.jobs.live.as_ref().unwrap().paused);
    // In-flight samples (including retried ones) finish; then the count must hold still.
    let mut held = app.jobs.live.as_ref().unwrap().done;
    let mut stable = Instant::now();
    while stable.elapsed() < Duration::from_millis(2500) {
        app.pump();
        let now = app.jobs.live.as_ref().unwrap().done;
        if now != held {
            held = now;
            stable = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    app.pump();
    assert_eq!(
        app.jobs.live.as_ref().unwrap().done,
        held,
        "paused: nothing new starts"
    );
    assert!(
        app.jobs
            .live
            .as_ref()
            .unwrap()
            .header()
            .starts_with("paused")
    );
    // The full-width status line and the footer of a paused run, at every size, as text
    // and with styles; the counts and rates change from run to run and are masked.
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    for (w, h) in screens::SIZES {
        let plain = redact(&screens::screen(&mut app, &t, w, h));
        let styled = redact(&screens::styled(&mut app, &t, w, h));
        // At 80 columns the rate, tokens and cost give way; how many depends on the
        // numbers, so that size is checked for what must stay rather than snapshotted.
        if w < 100 {
            let rows = status_rows(&plain);
            for part in ["paused (p resumes) · #/# · pass #%", "# errors"] {
                assert!(rows.contains(part), "{part} missing at {w}×{h}:\n{rows}");
            }
            continue;
        }
        insta::assert_snapshot!(format!("status_line_{w}x{h}"), status_rows(&plain));
        insta::assert_snapshot!(format!("styled_status_line_{w}x{h}"), status_rows(&styled));
    }

    app.press("p").unwrap();
    wait_until(&mut app, "progress after resume", |a| {
        a.jobs.live.as_ref().unwrap().done > held
    });

    // C asks first: any other key keeps the run going.
    app.press("C").unwrap();
    assert!(
        app.status.starts_with("cancel the live run?"),
        "{}",
        app.status
    );
    app.press("n").unwrap();
    app.pump();
    assert!(app.jobs.live.as_ref().unwrap().ended.is_none());
    // The status line is full width and says what the run is doing.
    let screen = screen_of(&mut app);
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("live") && l.contains(" · pass ")),
        "{screen}"
    );
    app.press("C").unwrap();
    app.press("y").unwrap();
    wait_until(&mut app, "the run to end", |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    });
    let live = app.jobs.live.as_ref().unwrap();
    assert_eq!(
        live.ended,
        Some(autoeval::tui::live::LiveEnd::Cancelled),
        "{:?}",
        live.ended
    );
    assert!(live.done < 60, "cancelled before the end");
    assert!(live.errors > 0, "model errors were counted");
    let manifest = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(manifest.contains("\"status\": \"cancelled\""));
    let text = std::fs::read_to_string(out.join("samples.jsonl")).unwrap();
    assert!(
        text.lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
    assert!(
        text.contains("model-error"),
        "a failed call became a verdict"
    );
    // Starting again with the same directory resumes it.
    app.press("R").unwrap();
    assert_eq!(
        app.form().unwrap().values.last().cloned(),
        Some(out.display().to_string()),
        "values are remembered"
    );
    app.press("enter").unwrap();
    wait_until(&mut app, "the resumed run to finish", |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    });
    let n = std::fs::read_to_string(out.join("samples.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(n, 60, "every sample exactly once after resuming");
}

#[test]
fn follows_a_run_written_by_another_process() {
    let model = FakeModel::new();
    let server = Server::start(move |_, r| Reply {
        delay: Duration::from_millis(40),
        ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("other");
    let home = tempfile::tempdir().unwrap();
    let mut child = screens::Reaped(
        common::cli::bin_in(home.path())
            .args([
                "run",
                "--kind",
                "pl",
                "--per-category",
                "1",
                "--limit",
                "30",
                "--model",
                "openai:fake",
                "--concurrency",
                "2",
                "--quiet",
            ])
            .arg("--base-url")
            .arg(format!("{}/v1", server.base))
            .arg("--out")
            .arg(&out)
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while !out.join("run.json").exists() {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(20));
    }
    let (mut app, _) = build_app(&screens::options(vec![out.clone()]));
    let first = app.model.listing.visible.len();
    assert!(
        first < 30,
        "opened while the other process is still running"
    );
    assert_eq!(
        app.model.runs[0].total(),
        Some(30),
        "the item count, capped by --limit"
    );
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    let s = screens::screen(&mut app, &t, 120, 40);
    assert!(
        s.contains("running (another process)") && s.contains("/30"),
        "done/total of a run another process writes:\n{s}"
    );
    let start = Instant::now();
    let mut grew = false;
    while app.model.listing.visible.len() < 30 {
        // Once samples came in while watching (and some are left), there is an ETA.
        let n = app.model.runs[0].rows.len();
        if n > first && n < 30 && app.model.runs[0].status().as_str() == "running" {
            let p = app.followed_progress().unwrap_or_default();
            assert!(p.contains("ETA") && p.contains(&format!("{n}/30")), "{p}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "only {} rows followed",
            app.model.listing.visible.len()
        );
        grew |= app.follow();
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(grew);
    assert!(child.0.wait().unwrap().success());
    app.follow();
    assert_eq!(app.model.listing.visible.len(), 30, "no sample twice");
    assert_eq!(
        app.followed_progress(),
        None,
        "a finished run has no progress line"
    );
}

#[test]
fn a_server_that_is_gone_pauses_the_live_run_and_retry_errors_redoes_the_failures() {
    // A port nobody listens on: every request is refused at once.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}/v1", dead.local_addr().unwrap());
    drop(dead);
    let dir = tempfile::tempdir().unwrap();
    screens::isolate();
    unsafe { std::env::set_var("AE_GONE_NO_KEY", "local-unused") };
    let out = dir.path().join("gone");
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let fill = |app: &mut autoeval::tui::app::App, base: &str, retry: &str| {
        app.press("R").unwrap();
        screens::set_form(
            app,
            &[
                ("dataset", "pl"),
                ("seed", "5"),
                ("per_category", "1"),
                ("model", "openai:fake"),
                ("base_url", base),
                ("api_key_env", "AE_GONE_NO_KEY"),
                ("concurrency", "1"),
                ("retries", "0"),
                ("limit", "12"),
                ("retry_errors", retry),
                ("out", &out.display().to_string()),
            ],
        );
        let form = app.form_mut().unwrap();
        if retry == "y" {
            // Resuming says so, and how many remain: the 2 never tried and the 10 errors.
            assert!(
                form.estimate.starts_with(
                    "resumes the run: 10 of 12 done, 12 to do and 10 model errors again"
                ),
                "{}",
                form.estimate
            );
        }
        app.press("enter").unwrap();
        assert!(
            app.jobs.live.is_some() && app.form().is_none(),
            "{:?}",
            app.form().map(|f| f.error.clone())
        );
    };
    fill(&mut app, &dead_url, "n");
    wait_until(&mut app, "the run to pause itself", |a| {
        a.jobs.live.as_ref().unwrap().paused
    });
    let live = app.jobs.live.as_ref().unwrap();
    assert_eq!(live.ended, None, "paused, not cancelled");
    assert_eq!(live.done, 5, "no request burnt after the fifth failure");
    assert!(
        live.last_warning
            .as_deref()
            .is_some_and(|w| w.starts_with("paused: 5 samples in a row could not reach the server")),
        "{:?}",
        live.last_warning
    );
    assert!(live.header().starts_with("paused"));
    // Nothing starts while it waits.
    std::thread::sleep(Duration::from_millis(600));
    app.pump();
    assert_eq!(app.jobs.live.as_ref().unwrap().done, 5);
    // Resuming tries again; the server is still gone, so it pauses again after five more.
    app.press("p").unwrap();
    assert_eq!(
        app.jobs.live.as_ref().unwrap().last_warning,
        None,
        "the pause reason goes when the run resumes"
    );
    wait_until(&mut app, "the second pause", |a| {
        a.jobs.live.as_ref().unwrap().done == 10 && a.jobs.live.as_ref().unwrap().paused
    });
    app.press("C").unwrap();
    app.press("y").unwrap();
    wait_until(&mut app, "the cancel", |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    });
    // The server is back: the form's retry errors redoes exactly the ten failures.
    let model = FakeModel::new();
    let server =
        Server::start(move |_, r| Reply::json(200, openai_body(&model.answer(&prompt_of(r)))));
    fill(&mut app, &format!("{}/v1", server.base), "y");
    wait_until(&mut app, "the retry run to finish", |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    });
    assert_eq!(
        app.jobs.live.as_ref().unwrap().ended,
        Some(autoeval::tui::live::LiveEnd::Finished)
    );
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    let s = screens::screen(&mut app, &t, 160, 40);
    assert!(
        !s.contains("paused"),
        "a finished run shows no pause reason:\n{s}"
    );
    let latest: std::collections::BTreeMap<String, String> =
        std::fs::read_to_string(out.join("samples.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_str().unwrap().to_string(),
                    v["verdict"]["verdict"].as_str().unwrap().to_string(),
                )
            })
            .collect();
    assert_eq!(latest.len(), 12);
    assert!(latest.values().all(|v| v != "model-error"), "{latest:?}");
    let m: serde_json::Value = common::manifest(&out);
    let cmd: Vec<&str> = m["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(cmd.ends_with(&["--resume", "--retry-errors"]), "{cmd:?}");
}

/// `run.json`'s status as written.
fn status_on_disk(dir: &std::path::Path) -> String {
    let m: serde_json::Value = common::manifest(dir);
    m["status"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_paused_run_says_paused_on_disk_an_ended_one_has_no_eta_and_a_resumed_one_counts_the_whole_run()
{
    let model = FakeModel::new();
    let server = Server::start(move |_, r| Reply {
        delay: Duration::from_millis(60),
        ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    });
    let dir = tempfile::tempdir().unwrap();
    screens::isolate();
    unsafe { std::env::set_var("AE_STATE_NO_KEY", "local-unused") };
    let out = dir.path().join("state");
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let start = |app: &mut autoeval::tui::app::App| {
        app.press("R").unwrap();
        screens::set_form(
            app,
            &[
                ("dataset", "pl"),
                ("seed", "4"),
                ("per_category", "1"),
                ("model", "openai:fake"),
                ("base_url", &format!("{}/v1", server.base)),
                ("api_key_env", "AE_STATE_NO_KEY"),
                ("concurrency", "2"),
                ("limit", "30"),
                ("out", &out.display().to_string()),
            ],
        );
        app.press("enter").unwrap();
        assert!(app.jobs.live.is_some() && app.form().is_none());
    };
    start(&mut app);
    wait_until(&mut app, "four samples", |a| {
        a.jobs.live.as_ref().unwrap().done >= 4
    });
    assert_eq!(status_on_disk(&out), "running");
    // Paused: run.json says so at once (samples in flight finish meanwhile), and the
    // run list reads it back.
    app.press("p").unwrap();
    wait_until(&mut app, "run.json to say paused", |_| {
        status_on_disk(&out) == "paused"
    });
    wait_until(&mut app, "the run list to read paused", |a| {
        a.model
            .runs
            .iter()
            .any(|r| r.dir == out && r.status().as_str() == "paused")
    });
    app.press("p").unwrap();
    wait_until(&mut app, "run.json to say running again", |_| {
        status_on_disk(&out) == "running"
    });
    wait_until(&mut app, "progress after resume", |a| {
        a.jobs.live.as_ref().unwrap().done >= 8
    });
    // Cancelled: the status line keeps no estimate of time left nor a request rate.
    app.press("C").unwrap();
    app.press("y").unwrap();
    wait_until(&mut app, "the run to end", |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    });
    let header = app.jobs.live.as_ref().unwrap().header();
    assert!(header.starts_with("cancelled"), "{header}");
    assert!(
        !header.contains("ETA") && !header.contains("req/s"),
        "a stale estimate after the run ended: {header}"
    );
    assert_eq!(status_on_disk(&out), "cancelled");
    let before = std::fs::read_to_string(out.join("samples.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(before < 30, "cancelled before the end ({before})");
    // Resumed: the status line counts the whole run (done/total), as the run list does.
    start(&mut app);
    wait_until(&mut app, "a sample after resuming", |a| {
        a.jobs.live.as_ref().unwrap().done >= 1
    });
    app.press("p").unwrap();
    wait_until(&mut app, "the resumed run to hold still", |_| {
        status_on_disk(&out) == "paused"
    });
    std::thread::sleep(Duration::from_millis(600));
    app.pump();
    let live = app.jobs.live.as_ref().unwrap();
    let header = live.header();
    let whole = format!("{}/30", before + live.done);
    assert!(header.contains(&format!(" · {whole} · ")), "{header}");
    let run = app.model.runs.iter().find(|r| r.dir == out).unwrap();
    assert_eq!(
        format!("{}/{}", run.rows.len(), run.total().unwrap()),
        whole,
        "the run list and the status line agree"
    );
    app.press("C").unwrap();
    app.press("y").unwrap();
    wait_until(&mut app, "the resumed run to end", |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    });
}
