//! Opening a run is two passes (issue 45): the rows first, then the failure kinds of
//! not-equivalent samples proved into their own cache (`.autoeval-kinds`), apart from
//! the row index. Through the binary (`report`, `export`, `--no-kinds`) and the viewer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use common::cli::{bin_in, ok, ok_stderr};
use std::path::{Path, PathBuf};

/// A copy of a shipped run in a fresh folder.
fn copy_run(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-runs")
        .join(name);
    let dst = tmp.path().join(name);
    std::fs::create_dir(&dst).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
    (tmp, dst)
}

/// A report cut after its verdicts table: (rows, verdicts and counts; the failure kinds
/// tables that follow).
fn split(report: &str) -> (String, String) {
    let at = report.find("\nVerdicts\n").expect("a verdicts table");
    let end = report[at + 1..]
        .find("\n\n")
        .map_or(report.len(), |e| at + 1 + e);
    (report[..end].to_string(), report[end..].to_string())
}

fn kinds_table(report: &str) -> String {
    split(report).1
}

fn without_kinds(report: &str) -> String {
    split(report).0
}

#[test]
fn report_proves_missing_kinds_once_apart_from_the_rows_and_no_kinds_skips_them() {
    let home = tempfile::tempdir().unwrap();
    let (_a, run) = copy_run("fol-perturb");
    let report = |run: &Path, extra: &[&str]| {
        ok(&bin_in(home.path())
            .arg("report")
            .args(extra)
            .arg(run)
            .output()
            .unwrap())
    };
    // --no-kinds: rows and verdicts, no kind proved and no kinds cache written.
    let quick = report(&run, &["--no-kinds"]);
    assert!(run.join(".autoeval-index").exists());
    assert!(!run.join(".autoeval-kinds").exists());
    let full = report(&run, &[]);
    assert!(run.join(".autoeval-kinds").exists());
    assert_eq!(without_kinds(&quick), without_kinds(&full));
    let table = kinds_table(&full);
    assert!(
        table.contains("quantifier") && table.lines().count() > 3,
        "{table}"
    );
    assert_ne!(kinds_table(&quick), table, "--no-kinds proved kinds");
    // The row index rebuilt: the kinds cache is kept as it is, and the report too.
    let kinds = std::fs::read(run.join(".autoeval-kinds")).unwrap();
    std::fs::remove_file(run.join(".autoeval-index")).unwrap();
    assert_eq!(report(&run, &[]), full);
    assert_eq!(std::fs::read(run.join(".autoeval-kinds")).unwrap(), kinds);
    // With --no-kinds, kinds proved before are still shown.
    assert_eq!(kinds_table(&report(&run, &["--no-kinds"])), table);
    // The kinds cache gone: proved again, the same.
    std::fs::remove_file(run.join(".autoeval-kinds")).unwrap();
    assert_eq!(report(&run, &[]), full);
    assert_eq!(std::fs::read(run.join(".autoeval-kinds")).unwrap(), kinds);
}

#[test]
fn export_says_when_it_builds_an_index_and_where() {
    let home = tempfile::tempdir().unwrap();
    let (_a, run) = copy_run("pl-2shot-qwen-0.5b");
    let out = tempfile::tempdir().unwrap();
    let export = || {
        ok_stderr(
            &bin_in(home.path())
                .args(["export", "--format", "jsonl-flat", "--out"])
                .arg(out.path())
                .arg(&run)
                .output()
                .unwrap(),
        )
    };
    let first = export();
    assert!(first.contains("indexing"), "{first}");
    assert!(
        first.contains(&format!(
            "row index written to {}",
            run.join(".autoeval-index").display()
        )),
        "{first}"
    );
    let again = export();
    assert!(!again.contains("indexing"), "{again}");
    // Every not-equivalent sample's kinds were proved for the export.
    // The Hub layout: data files under data/.
    let flat = std::fs::read_dir(out.path().join("data"))
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .unwrap()
        .path();
    let text = std::fs::read_to_string(flat).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ne = lines
        .iter()
        .filter(|l| l.to_string().contains("\"not-equivalent\""))
        .count();
    assert!(ne > 10);
    assert!(!text.contains("\"kinds\":[]") || ne < lines.len());
}

/// A run with more not-equivalent samples than are proved while it opens: the rows of
/// both copies of fol-perturb, ids of the second renamed.
fn doubled_run() -> (tempfile::TempDir, PathBuf) {
    let (tmp, run) = copy_run("fol-perturb");
    let text = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let mut more = String::new();
    for l in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        let id = format!("{}-b", v["id"].as_str().unwrap());
        v["id"] = serde_json::json!(id);
        more.push_str(&v.to_string());
        more.push('\n');
    }
    std::fs::write(run.join("samples.jsonl"), text + &more).unwrap();
    (tmp, run)
}

#[test]
fn the_viewer_lists_every_row_at_once_and_fills_kinds_in_the_background() {
    let (_t, run) = doubled_run();
    let mut app = screens::view(vec![run.clone()]);
    let (t, _) = autoeval::tui::theme::Theme::load("dark");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while app.model.runs.is_empty() && std::time::Instant::now() < deadline {
        app.pump();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let rows = app.model.runs[0].rows.len();
    assert_eq!(rows, 1140);
    let pending = |app: &autoeval::tui::app::App| {
        app.model.runs[0]
            .rows
            .iter()
            .filter(|r| autoeval::run::row_kinds::is_pending(r.fails))
            .count()
    };
    assert!(
        pending(&app) > autoeval::tui::data::INLINE_KINDS,
        "{}",
        pending(&app)
    );
    let screen = screens::screen_once(&mut app, &t, 160, 40);
    assert!(screen.contains("kinds:"), "{screen}");
    assert!(
        app.filter_summary().contains("% proved"),
        "{}",
        app.filter_summary()
    );
    while pending(&app) > 0 && std::time::Instant::now() < deadline {
        app.pump();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(pending(&app), 0, "kinds still pending after two minutes");
    assert!(!app.filter_summary().contains("% proved"));
    // The kinds the worker proved are the ones the CLI proves (and were saved).
    let fails: Vec<(String, u32)> = app.model.runs[0]
        .rows
        .iter()
        .map(|r| (r.id.to_string(), r.fails))
        .collect();
    assert!(run.join(".autoeval-kinds").exists());
    let (_t2, fresh) = doubled_run();
    let mut rows = autoeval::tui::data::RunIndex::open(&fresh).rows;
    autoeval::run::kinds_cache::complete(&fresh, &mut rows, |_, _| {});
    let mut expected: Vec<(String, u32)> =
        rows.iter().map(|r| (r.id.to_string(), r.fails)).collect();
    let mut got = fails;
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
}

#[test]
fn score_no_kinds_gives_verdicts_without_the_proof_search() {
    let home = tempfile::tempdir().unwrap();
    let input = concat!(
        r#"{"syntax":"fol","phi0":"∀x1.(P(x1) → Q(x1, c1))","reply":"∃x1.(P(x1) → Q(x1, c1))"}"#,
        "\n",
        r#"{"syntax":"fol","phi0":"∀x1.P(x1)","reply":"∀x1.P(x1)"}"#,
        "\n",
    );
    let score = |extra: &[&str]| -> Vec<serde_json::Value> {
        let o = common::cli::fed(
            bin_in(home.path())
                .args(["score", "--samples", "-"])
                .args(extra),
            input,
        );
        String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let full = score(&[]);
    let quick = score(&["--no-kinds"]);
    assert_eq!(full.len(), 2);
    assert_eq!(quick.len(), 2);
    for (f, q) in full.iter().zip(&quick) {
        assert_eq!(f["verdict"], q["verdict"]);
    }
    assert_eq!(full[0]["verdict"], "not-equivalent");
    assert_eq!(full[0]["kinds"], serde_json::json!(["quantifier-changed"]));
    assert_eq!(full[0]["proved"], true);
    assert_eq!(quick[0]["kinds"], serde_json::json!([]));
    assert!(quick[0].get("proved").is_none(), "{}", quick[0]);
}
