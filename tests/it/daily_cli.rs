//! Issue 35, the CLI side of the everyday journeys: a dead run reads `interrupted`,
//! `--limit` spreads over buckets, `run --dry-run` needs nothing and writes nothing,
//! and a path without a subcommand opens the viewer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok, stderr};
use std::path::Path;

/// Sets `run.json`'s status as a killed process would have left it.
fn set_status(dir: &Path, status: &str) {
    let p = dir.join("run.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["status"] = status.into();
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

fn report_status(dir: &Path) -> String {
    let o = bin()
        .arg("report")
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    v["runs"][0]["status"].as_str().unwrap().to_string()
}

#[test]
fn report_shows_a_dead_running_run_as_interrupted_and_a_live_one_as_running() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    common::cli::offline_run(&out, "3");
    // Killed: the manifest still says running, the lock file stays, nobody holds it.
    set_status(&out, "running");
    assert!(out.join("run.lock").exists());
    assert_eq!(report_status(&out), "interrupted");
    let table = ok(&bin().arg("report").arg(&out).output().unwrap());
    assert!(table.contains("interrupted"), "{table}");
    assert!(!table.contains("running"), "{table}");
    // The manifest is left as the run wrote it (resume reads it).
    assert!(
        std::fs::read_to_string(out.join("run.json"))
            .unwrap()
            .contains("\"running\"")
    );
    // A process holding the lock (this test) makes it a live run again.
    let lock = autoeval::run::store::RunLock::acquire(&out).unwrap();
    assert_eq!(report_status(&out), "running");
    drop(lock);
    assert_eq!(report_status(&out), "interrupted");
    // No lock file at all (a run copied without it) is not live either.
    std::fs::remove_file(out.join("run.lock")).unwrap();
    assert_eq!(report_status(&out), "interrupted");
}

/// The ids and operator counts of a run's samples, in id order.
fn ids_and_ops(dir: &Path) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = common::samples(dir)
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().parse().unwrap(),
                s["num_operators"].as_u64().unwrap(),
            )
        })
        .collect();
    v.sort_unstable();
    v
}

fn limited_run(out: &Path, limit: &str) -> String {
    let o = bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "3",
            "--limit",
            limit,
            "--model",
            "perturb",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .output()
        .unwrap();
    ok(&o);
    stderr(&o)
}

#[test]
fn limit_spreads_over_every_bucket_seeded_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let err = limited_run(&a, "8");
    let got = ids_and_ops(&a);
    assert_eq!(got.len(), 8, "{got:?}");
    // The dataset has 3 items per operator count: the first 8 would cover 3 buckets.
    let buckets: std::collections::BTreeSet<u64> = got.iter().map(|x| x.1).collect();
    assert!(buckets.len() >= 6, "{got:?}");
    assert!(
        err.contains("--limit 8: 8 of ") && err.contains("spread evenly over"),
        "{err}"
    );
    // Seeded: the same command picks the same samples.
    limited_run(&b, "8");
    assert_eq!(ids_and_ops(&b), got);
    // A dry run says the same and picks the same.
    let o = bin()
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "3",
            "--limit",
            "8",
            "--model",
            "perturb",
            "--dry-run",
            "--out",
        ])
        .arg(d.path().join("c"))
        .output()
        .unwrap();
    let text = ok(&o);
    assert!(text.contains("--limit 8: 8 of "), "{text}");
}

/// `autoeval ARGS` in a pseudo-terminal (util-linux `script`), cwd `dir`, keys `q`:
/// (exit code, everything it drew).
fn bare_in_pty(dir: &Path, args: &str) -> (Option<i32>, String) {
    in_pty_keys(dir, args, b"q")
}

/// [`bare_in_pty`] with these keys.
fn in_pty_keys(dir: &Path, args: &str, keys: &[u8]) -> (Option<i32>, String) {
    use std::io::{Read, Write};
    let home = tempfile::tempdir().unwrap();
    let cmd = format!("stty cols 120 rows 40; {} {args}", common::cli::EXE);
    let mut c = std::process::Command::new("script");
    c.args(["-qfec", &cmd, "/dev/null"]).current_dir(dir);
    common::cli::isolate(&mut c, home.path());
    let mut child = c
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the `script` command (util-linux) is needed for this test");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let stdin = child.stdin.as_mut().unwrap();
    stdin.write_all(keys).unwrap();
    stdin.flush().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(15) {
            let _ = child.kill();
            panic!("autoeval {args} did not exit on q");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    let code = child.try_wait().unwrap().and_then(|s| s.code());
    (code, String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn a_path_without_a_subcommand_opens_the_viewer_and_so_does_a_theme() {
    let d = tempfile::tempdir().unwrap();
    let run = common::fixtures::runs().join("pl-small");
    let (code, out) = bare_in_pty(d.path(), &run.display().to_string());
    assert_eq!(code, Some(0), "{out:.2000}");
    assert!(
        out.contains("Samples") && out.contains("pl-small"),
        "{out:.2000}"
    );
    let (code, out) = bare_in_pty(d.path(), &format!("--theme light {}", run.display()));
    assert_eq!(code, Some(0), "{out:.2000}");
    assert!(out.contains("Samples"), "{out:.2000}");
}

#[test]
fn outside_the_source_tree_autoeval_alone_says_what_to_open_and_opens_nothing() {
    let d = tempfile::tempdir().unwrap();
    let o = bin().current_dir(d.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("no runs to open"), "{err}");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    assert!(err.contains(&shipped.display().to_string()), "{err}");
    // A ./sample-runs there is what it opens (in a terminal): no error.
    std::fs::create_dir(d.path().join("sample-runs")).unwrap();
    let (code, out) = bare_in_pty(d.path(), "");
    assert_eq!(code, Some(0), "{out:.2000}");
    // A word that is neither a path nor a subcommand says both readings.
    let o = bin().current_dir(d.path()).arg("rnu").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("rnu: no such file or directory, and not a subcommand"),
        "{err}"
    );
}

#[test]
fn a_dry_run_needs_neither_out_nor_a_key_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let home = d.path().join("home");
    let cwd = d.path().join("cwd");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    for model in ["openai:gpt-4o", "anthropic:claude-3-5-haiku-20241022"] {
        let o = common::cli::bin_in(&home)
            .current_dir(&cwd)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .args([
                "run",
                "--dry-run",
                "--kind",
                "pl",
                "--limit",
                "20",
                "--model",
                model,
            ])
            .output()
            .unwrap();
        let text = ok(&o);
        assert!(text.contains("dry run: 20 samples to do"), "{text}");
        assert!(text.contains("estimated cost"), "{text}");
    }
    // Nothing written: not in the working directory, not in HOME (no cache created).
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(&home).unwrap().count(), 0);
    // A real run still needs --out (and a key).
    let o = bin()
        .current_dir(&cwd)
        .args(["run", "--kind", "pl", "--model", "perturb"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
}

#[test]
fn the_by_operators_table_goes_long_when_it_does_not_fit() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    common::cli::offline_run(&a, "12");
    common::cli::offline_run(&b, "12");
    let table = |cols: &str| {
        let o = bin()
            .env("COLUMNS", cols)
            .arg("report")
            .arg(&a)
            .arg(&b)
            .output()
            .unwrap();
        let text = ok(&o);
        // The table runs from its heading to the first blank line after it.
        let from = text.find("By operators").unwrap();
        let to = text[from..].find("\n\n").map_or(text.len(), |k| from + k);
        text[from..to].to_string()
    };
    let long = table("100");
    let lines: Vec<&str> = long.lines().skip(1).collect();
    assert!(
        lines[0].starts_with("run ") && lines[0].contains("operators"),
        "{long}"
    );
    // One row per run and bucket, and every line fits.
    assert_eq!(lines.len(), 1 + 12 + 12, "{long}");
    assert!(lines.iter().all(|l| l.chars().count() <= 100), "{long}");
    let wide = table("1000");
    let lines: Vec<&str> = wide.lines().skip(1).collect();
    assert!(lines[0].starts_with("operators"), "{wide}");
    assert_eq!(lines.len(), 1 + 12, "{wide}");
}

#[test]
fn y_then_a_digit_sends_osc_52_to_the_terminal() {
    let d = tempfile::tempdir().unwrap();
    let run = common::fixtures::runs().join("pl-small");
    let (code, out) = in_pty_keys(d.path(), &format!("view {}", run.display()), b"y1q");
    assert_eq!(code, Some(0), "{out:.2000}");
    assert!(out.contains("\x1b]52;c;"), "no OSC 52 in the output");
}

#[test]
fn low_items_one_skip_warning_and_a_guessed_syntax_unnamed() {
    // L6: a folder's other entries make one warning, not one each.
    let d = tempfile::tempdir().unwrap();
    common::cli::offline_run(&d.path().join("r"), "3");
    for f in [
        "README.md",
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "e.txt",
        "f.txt",
    ] {
        std::fs::write(d.path().join(f), "x").unwrap();
    }
    std::fs::create_dir(d.path().join("figures")).unwrap();
    let o = bin().arg("report").arg(d.path()).output().unwrap();
    ok(&o);
    let err = stderr(&o);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(
        err.contains("8 entries are not run directories, skipped (") && err.contains(", …)"),
        "{err}"
    );
    // L7: an unparseable φ without --syntax does not blame one syntax.
    let o = bin().args(["verify", "p ∧", "q"]).output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("as fol"), "{err}");
    assert!(
        err.contains("does not parse as logic (pl/fol) or as a regex"),
        "{err}"
    );
    let o = bin()
        .args(["verify", "--syntax", "pl", "p ∧", "q"])
        .output()
        .unwrap();
    assert!(
        stderr(&o).contains("does not parse as pl"),
        "{}",
        stderr(&o)
    );
}
