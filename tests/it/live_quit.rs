//! Quitting the viewer while a run started from its form is going: `q` asks as `C`
//! does, and a confirmed quit (or Ctrl-C) stops the run so `run.json` says `cancelled`,
//! never `running` for a dead run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::build_app;
use autoeval::tui::layer::Mode;
use common::{FakeModel, Reply, Server, openai_body, prompt_of};
use std::path::Path;
use std::time::Duration;

fn start(server: &Server, out: &Path, dir: &Path) -> autoeval::tui::app::App {
    screens::isolate();
    // SAFETY: set before the run's threads read it; every test sets the same value.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("AE_QUIT_NO_KEY", "local-unused");
    }
    let (mut app, _) = build_app(&screens::options(vec![dir.to_path_buf()]));
    app.press("R").unwrap();
    screens::set_form(
        &mut app,
        &[
            ("dataset", "pl"),
            ("seed", "3"),
            ("per_category", "2"),
            ("batches", "1"),
            ("model", "openai:fake"),
            ("base_url", &format!("{}/v1", server.base)),
            ("api_key_env", "AE_QUIT_NO_KEY"),
            ("shots", "0"),
            ("prompts", ""),
            ("rounds", "1"),
            ("concurrency", "1"),
            ("limit", "40"),
            ("retry_errors", "n"),
            ("out", &out.display().to_string()),
        ],
    );
    app.press("enter").unwrap();
    assert!(
        app.jobs.live.is_some(),
        "{:?}",
        app.form().map(|f| f.error.clone())
    );
    assert!(app.pump_until(Duration::from_secs(30), |a| {
        a.jobs.live.as_ref().is_some_and(|l| l.done >= 1)
    }));
    app
}

fn slow_server() -> Server {
    let model = FakeModel::new();
    Server::start(move |_, r| Reply {
        delay: Duration::from_millis(150),
        ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    })
}

fn status_of(out: &Path) -> String {
    let m: serde_json::Value = common::manifest(out);
    m["status"].as_str().unwrap().to_string()
}

#[test]
fn q_during_a_live_run_asks_and_a_confirmed_quit_cancels_it_first() {
    let server = slow_server();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quit-run");
    let mut app = start(&server, &out, dir.path());
    // q asks; any other key keeps the run and the viewer.
    app.press("q").unwrap();
    assert!(!app.quit, "q quit with a run going");
    assert_eq!(app.mode(), Mode::ConfirmCancel);
    assert!(app.status.contains("a run is going"), "{}", app.status);
    app.press("n").unwrap();
    assert!(!app.quit);
    assert!(app.jobs.live.as_ref().is_some_and(|l| l.ended.is_none()));
    // q, y: cancelled, then the viewer quits once the run has stopped.
    app.press("q").unwrap();
    app.press("y").unwrap();
    assert!(app.pump_until(Duration::from_secs(30), |a| a.quit));
    assert!(app.jobs.live.as_ref().is_none_or(|l| l.ended.is_some()));
    assert_eq!(status_of(&out), "cancelled");
}

#[test]
fn ctrl_c_during_a_live_run_stops_it_before_exit() {
    let server = slow_server();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ctrl-c-run");
    let mut app = start(&server, &out, dir.path());
    app.press("ctrl-c").unwrap();
    assert!(app.quit, "Ctrl-C always quits");
    assert_eq!(status_of(&out), "running");
    // What the viewer does on its way out.
    assert!(app.shutdown(Duration::from_secs(30)));
    assert_eq!(status_of(&out), "cancelled");
}
