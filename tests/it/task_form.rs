//! The viewer's new-run form starts a reference-task run, through its keys: the
//! `reference task` field typed in, a dataset and a task together (or neither) refused
//! with a clear message before any request, an unknown task named, the cost estimate
//! counted from the task's real prompts exactly as `run --dry-run --task` counts them,
//! and the run against an in-process server, recorded as a task run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::tui::app::App;
use common::cli::{bin, ok};
use common::{Reply, Server, openai_body, prompt_of, samples};
use std::sync::atomic::Ordering;

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.press(&c.to_string()).unwrap();
    }
}

/// The field under the cursor emptied with backspace.
fn clear_field(app: &mut App) {
    let form = app.form().unwrap();
    let n = form.values[form.sel].chars().count();
    for _ in 0..n {
        app.press("backspace").unwrap();
    }
}

/// A server answering every FOLIO question "Uncertain" after some reasoning, refusing
/// what OpenAI's chat completions endpoint refuses.
fn answers_uncertain() -> Server {
    Server::start(|_, r| {
        if let Some(refused) = common::providers::openai_chat_rules(r) {
            return refused;
        }
        let p = prompt_of(r);
        assert!(
            p.contains("[PREMISES]") && p.contains("[CONCLUSION]"),
            "{p}"
        );
        Reply::json(
            200,
            openai_body("The premises say nothing of it; True is tempting.\nAnswer: Uncertain"),
        )
    })
}

#[test]
fn the_form_starts_a_task_run_and_refuses_a_dataset_and_a_task_together() {
    let server = answers_uncertain();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("folio-form");
    let mut app = screens::view(vec![tmp.path().to_path_buf()]);
    app.press("R").unwrap();
    screens::set_form(
        &mut app,
        &[
            ("seed", "3"),
            ("model", "openai:fake"),
            ("base_url", &format!("{}/v1", server.base)),
            ("api_key_env", ""),
            ("prompts", ""),
            ("shots", "0"),
            ("rounds", "1"),
            ("limit", "6"),
            ("retry_errors", "n"),
            ("endpoint_concurrency", ""),
            ("batch_api", "n"),
            ("cache", "n"),
            ("max_cost", ""),
            ("out", &out.display().to_string()),
        ],
    );
    // The dataset is the first field, the task the next: typed with keys.
    keys(&mut app, &["home", "tab"]);
    clear_field(&mut app);
    type_text(&mut app, "folio-r-nl");
    assert_eq!(app.form().unwrap().get("task"), "folio-r-nl");
    keys(&mut app, &["home"]);
    clear_field(&mut app);
    type_text(&mut app, "pl");
    // A dataset and a task: refused on start, saying so, nothing asked.
    keys(&mut app, &["enter"]);
    let err = app.form().map(|f| f.error.clone()).unwrap_or_default();
    assert!(
        app.jobs.live.is_none()
            && err.contains("dataset and reference task")
            && err.contains("empty one of them"),
        "{err}"
    );
    // Neither: refused, naming both choices.
    clear_field(&mut app);
    keys(&mut app, &["tab"]);
    clear_field(&mut app);
    keys(&mut app, &["enter"]);
    let err = app.form().map(|f| f.error.clone()).unwrap_or_default();
    assert!(
        app.jobs.live.is_none() && err.contains("or a file, or a reference task"),
        "{err}"
    );
    // An unknown task is named with the six there are.
    type_text(&mut app, "folio-x");
    keys(&mut app, &["enter"]);
    let err = app.form().map(|f| f.error.clone()).unwrap_or_default();
    assert!(
        err.contains("reference task: 'folio-x' is not one of")
            && err.contains("multi-logieval-fol"),
        "{err}"
    );
    // Rounds are for datasets.
    for _ in 0.."-x".len() {
        keys(&mut app, &["backspace"]);
    }
    type_text(&mut app, "-r-nl");
    app.form_mut().unwrap().set("rounds", "2");
    keys(&mut app, &["enter"]);
    let err = app.form().map(|f| f.error.clone()).unwrap_or_default();
    assert!(
        err.contains("rounds: a reference task's sample is one call"),
        "{err}"
    );
    app.form_mut().unwrap().set("rounds", "1");
    app.form_mut().unwrap().refresh();
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);

    // The estimate: one call per sample, tokens as the dry run counts them.
    let form = app.form().unwrap();
    let cmd = form.command.clone();
    assert!(
        cmd.contains("--task folio-r-nl --seed 3")
            && !cmd.contains("--kind")
            && !cmd.contains("--rounds"),
        "{cmd}"
    );
    let dry = ok(&bin()
        .args([
            "run",
            "--dry-run",
            "--task",
            "folio-r-nl",
            "--seed",
            "3",
            "--limit",
            "6",
            "--no-cache",
            "--model",
            "openai:fake",
        ])
        .arg("--base-url")
        .arg(format!("{}/v1", server.base))
        .output()
        .unwrap());
    let tokens = dry
        .lines()
        .find_map(|l| l.strip_prefix("estimated tokens, round 1: "))
        .unwrap_or_else(|| panic!("{dry}"));
    let (tin, tout) = tokens.split_once(" in, ").unwrap();
    let tout = tout.trim_end_matches(" out");
    assert!(
        form.estimate.starts_with(&format!(
            "folio-r-nl: up to 6 samples × 1 call = 6 calls · ≈ {tin} tokens in, {tout} out (its prompts)"
        )),
        "form: {}\ndry run: {dry}",
        form.estimate
    );
    assert!(tin.parse::<u64>().unwrap() > 6 * 50, "{dry}");
    let s = {
        let (t, _) = autoeval::tui::theme::Theme::load("default");
        screens::screen(&mut app, &t, 120, 40)
    };
    assert!(
        s.contains("reference task") && s.contains("folio-r-nl: up to 6 samples"),
        "{s}"
    );

    // Started with its key: a task run like `run --task`'s.
    screens::run_form_to_end(&mut app);
    assert_eq!(server.hits.load(Ordering::SeqCst), 6);
    let m: serde_json::Value = common::manifest(&out);
    assert_eq!(m["task"], "folio-r-nl");
    assert_eq!(m["status"], "finished");
    let recs = samples(&out);
    assert_eq!(recs.len(), 6);
    assert!(
        recs.iter()
            .all(|r| r["task"]["name"] == "folio-r-nl" && r["task"]["answer"] == "Uncertain"),
        "{recs:?}"
    );
}
