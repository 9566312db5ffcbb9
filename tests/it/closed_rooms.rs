//! Issue 48, items 3, 4, 8: a run folder's files are never written through a link or
//! into a special file; every output path takes the check `generate` uses (a FIFO
//! nobody reads is refused at once, a link is never written through); an empty
//! annotator name is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, mkfifo, offline_args, offline_run, stderr, within};
use std::path::Path;
use std::process::Output;

/// A file outside the run that a link in the run points to; it must stay as it is.
fn outside(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("outside.txt");
    std::fs::write(&p, "precious\n").unwrap();
    p
}

fn refused(o: &Output, what: &str, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(err.contains(needle), "{what}: {err}");
}

fn relink(link: &Path, target: &Path) {
    let _ = std::fs::remove_file(link);
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn a_linked_lock_samples_or_labels_file_is_refused_and_its_target_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    offline_run(&run, "2");
    let target = outside(tmp.path());

    // run.lock: `run --resume` would truncate the target and write its PID into it.
    relink(&run.join("run.lock"), &target);
    let o = within(
        bin().args(offline_args("4")).arg(&run).arg("--resume"),
        30,
        "resume",
    );
    refused(&o, "resume with a linked lock", "run.lock");
    assert!(stderr(&o).contains("a symbolic link"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    std::fs::remove_file(run.join("run.lock")).unwrap();

    // samples.jsonl: samples would be appended to the target.
    let samples = run.join("samples.jsonl");
    let kept = tmp.path().join("samples.kept");
    std::fs::rename(&samples, &kept).unwrap();
    relink(&samples, &target);
    let o = within(
        bin().args(offline_args("4")).arg(&run).arg("--resume"),
        30,
        "resume",
    );
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("samples.jsonl") && stderr(&o).contains("a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    std::fs::remove_file(&samples).unwrap();
    std::fs::rename(&kept, &samples).unwrap();

    // labels.jsonl: the label would be appended to the target.
    relink(&run.join("labels.jsonl"), &target);
    let o = within(
        bin()
            .args(["labels", "add"])
            .arg(&run)
            .args(["0", "lucky-pass", "--annotator", "alice"]),
        30,
        "labels add",
    );
    refused(&o, "labels add", "labels.jsonl");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");

    // A FIFO in the lock's place is refused at once, not waited on.
    std::fs::remove_file(run.join("labels.jsonl")).unwrap();
    let _ = std::fs::remove_file(run.join("run.lock"));
    mkfifo(&run.join("run.lock"));
    let o = within(
        bin().args(offline_args("4")).arg(&run).arg("--resume"),
        30,
        "resume",
    );
    refused(&o, "resume with a FIFO lock", "a FIFO");
}

#[test]
fn outputs_refuse_a_fifo_nobody_reads_and_never_write_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    offline_run(&run, "2");
    let add = bin()
        .args(["labels", "add"])
        .arg(&run)
        .args(["0", "lucky-pass", "--annotator", "alice"])
        .output()
        .unwrap();
    assert!(add.status.success(), "{}", stderr(&add));

    let fifo = tmp.path().join("out.csv");
    mkfifo(&fifo);
    let o = within(
        bin()
            .args(["labels", "export"])
            .arg(&run)
            .arg("--out")
            .arg(&fifo),
        30,
        "labels export --out FIFO",
    );
    refused(&o, "labels export", "a FIFO that nothing reads");
    let svg = tmp.path().join("plot.svg");
    mkfifo(&svg);
    let o = within(
        bin().arg("report").arg(&run).arg("--plot").arg(&svg),
        30,
        "report --plot FIFO",
    );
    refused(&o, "report --plot", "a FIFO that nothing reads");

    // A link at the output is replaced by the file; what it pointed to stays.
    let target = outside(tmp.path());
    let link = tmp.path().join("labels.csv");
    relink(&link, &target);
    let o = within(
        bin()
            .args(["labels", "export"])
            .arg(&run)
            .arg("--out")
            .arg(&link),
        30,
        "labels export --out link",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    assert!(std::fs::read_to_string(&link).unwrap().contains("alice"));
    let plot = tmp.path().join("p.svg");
    relink(&plot, &target);
    let o = within(
        bin().arg("report").arg(&run).arg("--plot").arg(&plot),
        30,
        "report --plot link",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    assert!(std::fs::read_to_string(&plot).unwrap().contains("</svg>"));
}

#[test]
fn an_empty_annotator_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    offline_run(&run, "1");
    // `--limit 1` keeps one sample somewhere in the range: label that one.
    let samples = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(samples.lines().next().unwrap()).unwrap();
    let id = first["id"].as_str().unwrap().to_string();
    for flag in [["--annotator", ""], ["--annotator", "  "]] {
        let o = bin()
            .args(["labels", "add"])
            .arg(&run)
            .args([id.as_str(), "lucky-pass"])
            .args(flag)
            .output()
            .unwrap();
        refused(
            &o,
            "labels add",
            "give a name of 1 to 100 printable characters",
        );
    }
    let o = bin()
        .args(["labels", "adjudicate"])
        .arg(&run)
        .args([id.as_str(), "lucky-pass", "--by", ""])
        .output()
        .unwrap();
    refused(&o, "labels adjudicate", "--by");
    assert!(!run.join("labels.jsonl").exists());
}

/// A folder outside the run that a link in the run points to; it must stay empty.
fn outside_dir(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("outside");
    std::fs::create_dir(&p).unwrap();
    p
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_linked_batches_folder_is_refused_and_nothing_lands_outside() {
    let (server, _) = common::hostile_batch::start(common::hostile_batch::Hostile::default());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    std::fs::create_dir(&out).unwrap();
    let elsewhere = outside_dir(tmp.path());
    std::os::unix::fs::symlink(&elsewhere, out.join("batches")).unwrap();
    let o = within(
        &mut common::run_cmd(&server.base, &out, &["--batch-api", "--batch-poll", "0.02"]),
        30,
        "run --batch-api",
    );
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("batches") && err.contains("a symbolic link"),
        "{err}"
    );
    assert!(
        entries(&elsewhere).is_empty(),
        "written through the link: {:?}",
        entries(&elsewhere)
    );
}

#[test]
fn a_linked_spend_ledger_is_refused_and_its_target_untouched() {
    let model = common::FakeModel::new();
    let server = common::Server::start(move |_, req| {
        common::Reply::json(
            200,
            common::openai_body(&model.answer(&common::prompt_of(req))),
        )
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    std::fs::create_dir(&out).unwrap();
    let target = outside(tmp.path());
    std::os::unix::fs::symlink(&target, out.join("spend.jsonl")).unwrap();
    let prices = tmp.path().join("prices.json");
    std::fs::write(&prices, r#"{"fake": {"input": 1.0, "output": 10.0}}"#).unwrap();
    let prices = prices.display().to_string();
    let o = within(
        &mut common::run_cmd(
            &server.base,
            &out,
            &["--limit", "4", "--prices", &prices, "--max-cost", "100"],
        ),
        30,
        "run with a linked ledger",
    );
    let err = stderr(&o);
    assert!(
        err.contains("spend.jsonl") && err.contains("a symbolic link"),
        "{err}"
    );
    // --max-cost can no longer count what is spent: the run stops.
    assert!(err.contains("stopping"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
}

#[test]
fn a_linked_row_index_is_never_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    offline_run(&run, "3");
    let target = outside(tmp.path());
    let index = run.join(".autoeval-index");
    assert!(index.is_file(), "the run made no index");
    relink(&index, &target);
    // `report` reads the run (the link is no index) and builds a new one; `run
    // --resume` builds one at its end. Neither writes through the link.
    let o = within(bin().arg("report").arg(&run), 30, "report");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    let o = within(
        bin().args(offline_args("4")).arg(&run).arg("--resume"),
        30,
        "resume",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    assert!(
        std::fs::symlink_metadata(&index)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
}
