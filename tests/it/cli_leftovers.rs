//! Issue 43 item 6's small CLI and help leftovers, through the binary and the viewer's
//! keys: `labels retract` on an id the run does not have says "no such sample"; a label
//! recorded with nobody named goes in as `anonymous` with one warning saying how to name
//! oneself; the help's list of `[keys.<mode>]` tables names every mode, `matrix` too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::run::store::read_labels;
use autoeval::tui::build_app;
use common::cli::{bin, stderr};

#[test]
fn retracting_on_an_id_the_run_does_not_have_says_no_such_sample() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let o = bin()
        .args(["labels", "retract"])
        .arg(&d)
        .args(["999", "--annotator", "alice"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("no such sample '999'"), "{err}");
    assert!(!err.contains("no label by"), "{err}");
    // A sample that exists but has no label still says so.
    let o = bin()
        .args(["labels", "retract"])
        .arg(&d)
        .args(["1", "--annotator", "alice"])
        .output()
        .unwrap();
    assert!(stderr(&o).contains("no label by 'alice'"), "{}", stderr(&o));
    assert!(!d.join("labels.jsonl").exists(), "nothing written");
}

#[test]
fn a_label_with_nobody_named_goes_in_as_anonymous_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let o = bin()
        .env_remove("USER")
        .args(["labels", "add"])
        .arg(&d)
        .args(["1", "negation-misplaced"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(
        err.matches("no annotator configured").count(),
        1,
        "once: {err}"
    );
    assert!(
        err.contains("--annotator NAME") && err.contains("AUTOEVAL_ANNOTATOR"),
        "{err}"
    );
    let recs = read_labels(&d).unwrap().records;
    assert_eq!(recs.last().unwrap().annotator, "anonymous");
    // Named (flag, environment or $USER): no warning.
    for (k, v) in [("AUTOEVAL_ANNOTATOR", "carol"), ("USER", "dave")] {
        let o = bin()
            .env_remove("USER")
            .env(k, v)
            .args(["labels", "add"])
            .arg(&d)
            .args(["2", "negation-misplaced"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stderr(&o).contains("no annotator"), "{}", stderr(&o));
        assert_eq!(
            read_labels(&d).unwrap().records.last().unwrap().annotator,
            v
        );
    }
    let o = bin()
        .env_remove("USER")
        .args(["labels", "adjudicate"])
        .arg(&d)
        .args(["1", "negation-misplaced"])
        .output()
        .unwrap();
    assert!(
        stderr(&o).contains("no annotator configured"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_viewer_says_once_that_labels_go_in_as_anonymous() {
    let dir = tempfile::tempdir().unwrap();
    let d = common::fixtures::copy(dir.path(), "pl-small");
    let (mut app, _) = build_app(&screens::options(vec![d.clone()]));
    app.model.annotator = "anonymous".into();
    for k in ["a", "0", "j", "0", "j", "0"] {
        app.press(k).unwrap();
    }
    let warned = app
        .model
        .warnings
        .iter()
        .filter(|w| w.contains("no annotator configured"))
        .count();
    assert_eq!(warned, 1, "{:?}", app.model.warnings);
    assert!(
        read_labels(&d)
            .unwrap()
            .records
            .iter()
            .all(|r| r.annotator == "anonymous")
    );
    // A named annotator is never warned.
    let (mut named, _) = build_app(&screens::options(vec![d]));
    named.model.annotator = "erin".into();
    for k in ["a", "0"] {
        named.press(k).unwrap();
    }
    assert!(
        !named
            .model
            .warnings
            .iter()
            .any(|w| w.contains("no annotator configured"))
    );
}

#[test]
fn help_lists_every_modes_key_table_matrix_too() {
    let (mut app, t) = build_app(&screens::options(vec![common::fixtures::run("pl-small")]));
    app.press("?").unwrap();
    // Drawn once (the overlay learns its height), then scrolled to the end, where the
    // config line is.
    screens::screen(&mut app, &t, 160, 60);
    for _ in 0..500 {
        app.press("j").unwrap();
    }
    let s = screens::screen(&mut app, &t, 160, 60);
    // The overlay wraps the line: join its rows, inside its borders.
    let rows: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let top = rows
        .iter()
        .find(|r| r.iter().collect::<String>().contains("┏ Help"))
        .expect(&s);
    let left = top.iter().position(|c| *c == '┏').unwrap();
    let right = left + top[left..].iter().position(|c| *c == '┓').unwrap();
    let text: String = rows
        .iter()
        .filter(|r| r.len() > right)
        .map(|r| {
            r[left + 1..right]
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let at = text.find("[keys.<mode>] (").expect(&s);
    let list = &text[at..text[at..].find(')').map_or(text.len(), |e| at + e)];
    for mode in [
        "search",
        "note",
        "form",
        "label",
        "filter",
        "chart",
        "overlay",
        "rank",
        "adjudicate",
        "matrix",
    ] {
        assert!(list.contains(mode), "{mode} missing from: {list}");
    }
}
