//! What the new-run form takes from `last-run.toml`: everything but retry errors and
//! the batch API, which would otherwise come back on unseen in the next form.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::screens;

use autoeval::tui::build_app;

#[test]
fn retry_errors_and_the_batch_api_are_not_brought_back_by_the_last_run() {
    let tmp = tempfile::tempdir().unwrap();
    // The options give this test's thread a config directory of its own: fill it.
    let opts = screens::options(vec![tmp.path().to_path_buf()]);
    let dir = autoeval::tui::theme::config_dir().unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("last-run.toml"),
        "retry_errors = \"y\"\nbatch_api = \"y\"\nmodel = \"openai:gpt-5.1\"\nreasoning_effort = \"low\"\n",
    )
    .unwrap();
    let (mut app, _) = build_app(&opts);
    app.press("R").unwrap();
    let form = app.form().unwrap();
    assert_eq!(form.get("retry_errors"), "n");
    assert_eq!(form.get("batch_api"), "n");
    assert_eq!(
        form.get("model"),
        "openai:gpt-5.1",
        "the rest is remembered"
    );
    assert_eq!(form.get("reasoning_effort"), "low");
    assert!(!form.command.contains("--batch-api") && !form.command.contains("--retry-errors"));
    // Moving about the form's 27 fields: End, PgUp, PgDn, Home.
    let last = autoeval::tui::live::FIELDS.len() - 1;
    app.press("end").unwrap();
    assert_eq!(app.form().unwrap().sel, last, "End: the output directory");
    app.press("pageup").unwrap();
    assert_eq!(app.form().unwrap().sel, last - 6);
    app.press("pagedown").unwrap();
    app.press("pagedown").unwrap();
    assert_eq!(
        app.form().unwrap().sel,
        last,
        "PgDn stops at the last field"
    );
    app.press("home").unwrap();
    assert_eq!(app.form().unwrap().sel, 0);
}
