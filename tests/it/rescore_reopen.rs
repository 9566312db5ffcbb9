//! After a rescore (`S`), the run is read again on a background thread: the message
//! that the rescore ended changes nothing on the UI thread but the status, and the new
//! rows arrive later through the inbox.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::app::Msg;
use autoeval::tui::build_app;
use std::time::Duration;

#[test]
fn a_rescored_run_is_read_again_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("pl-run");
    common::fixtures::copy_to("pl-small", &run);
    let (mut app, _t) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let before = app.model.runs[0].base_generation;
    app.update(Msg::Rescored(run.clone(), Ok("0 changed of 14".into())));
    assert!(app.status.contains("reading it again"), "{}", app.status);
    assert_eq!(
        app.model.runs[0].base_generation, before,
        "the UI thread did not read the run"
    );
    assert!(app.jobs.reopening.is_some());
    assert!(
        app.pump_until(Duration::from_secs(30), |a| a.status.contains("in place")),
        "{}",
        app.status
    );
    assert_eq!(app.status, "rescored pl-run in place: 0 changed of 14");
    assert_ne!(
        app.model.runs[0].base_generation, before,
        "the new rows are in"
    );
    assert_eq!(app.model.runs.len(), 1, "replaced, not added");
    assert!(app.jobs.reopening.is_none());
}
