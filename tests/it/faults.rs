//! Faults and hostile input: signals, the run lock, resume mismatches, retries of
//! failed samples, a server that is gone, hostile token counts, output hygiene.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Tests send signals to child processes and set environment variables before
// threads start: the only unsafe calls, each with its SAFETY note.
#![allow(unsafe_code)]

use crate::common;
use crate::screens;

use common::cli::{bin, offline_run};
use common::{
    FakeModel, Reply, Server, fake_server, manifest, openai_body, prompt_of, run_cmd, samples,
};
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

unsafe extern "C" {
    #[link_name = "kill"]
    fn c_kill(pid: i32, sig: i32) -> i32;
}

fn signal(child: &std::process::Child, sig: i32) {
    unsafe { c_kill(child.id() as i32, sig) };
}

fn wait_for_samples(out: &std::path::Path, n: usize) {
    let start = Instant::now();
    while samples(out).len() < n && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_and_sighup_stop_like_ctrl_c() {
    for (sig, code) in [(15, 143), (1, 129)] {
        let server = fake_server(60);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let mut child = run_cmd(&server.base, &out, &["--concurrency", "2"])
            .spawn()
            .unwrap();
        wait_for_samples(&out, 3);
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "signal {sig}");
        assert_eq!(manifest(&out)["status"], "cancelled", "signal {sig}");
        let text = std::fs::read_to_string(out.join("samples.jsonl")).unwrap();
        assert!(text.ends_with('\n'));
        for l in text.lines() {
            serde_json::from_str::<serde_json::Value>(l).expect("whole lines");
        }
        let o = run_cmd(&server.base, &out, &["--resume"]).output().unwrap();
        common::cli::ok(&o);
        assert_eq!(manifest(&out)["status"], "finished");
    }
}

#[test]
fn a_cancel_with_nothing_in_flight_is_cancelled_not_finished() {
    // The driver sees the cancel before it starts any sample.
    use autoeval::run::driver::{Outcome, RunSpec, dataset_info, execute};
    let dir = tempfile::tempdir().unwrap();
    let ds_path = dir.path().join("pl.json");
    common::cli::generate("pl", "1", &ds_path);
    let ds = autoeval::dataset::Dataset::open(&ds_path).unwrap();
    let client = autoeval::llm::spec::build("perturb", &Default::default()).unwrap();
    let pipeline = Arc::new(autoeval::run::pipeline::Pipeline {
        client: Arc::new(client),
        prompts: Arc::new(autoeval::prompt::PromptSet::builtin(0).unwrap()),
        syntax: ds.syntax,
        rounds: 1,
        verify: Default::default(),
        reading: Default::default(),
        bertscore: None,
        task: None,
    });
    let out = dir.path().join("run");
    let spec = RunSpec {
        out: out.clone(),
        dataset_info: dataset_info(&ds, "pl", Some(&ds_path)),
        dataset: ds,
        pipeline,
        concurrency: 2,
        resume: false,
        command: vec![],
        limit: None,
        limit_note: None,
        pause: None,
        pause_switch: None,
        force: false,
        force_experiment: false,
        retry_errors: false,
        retry_truncated: false,
        max_consecutive_failures: 5,
        extra: Default::default(),
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let (_cancel_tx, cancel_rx) = tokio::sync::watch::channel(true);
    let outcome = rt.block_on(execute(spec, tx, cancel_rx)).unwrap();
    assert_eq!(outcome, Outcome::Cancelled);
    assert_eq!(manifest(&out)["status"], "cancelled");
}

#[test]
fn a_second_writer_is_refused_with_the_holders_pid_and_a_dead_holder_never_blocks() {
    let server = fake_server(80);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut first = run_cmd(&server.base, &out, &["--concurrency", "1"])
        .spawn()
        .unwrap();
    wait_for_samples(&out, 1);
    let t = Instant::now();
    let o = run_cmd(&server.base, &out, &["--resume"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("PID {}", first.id())), "{err}");
    assert!(t.elapsed() < Duration::from_secs(5), "refused at once");
    // kill -9: the OS drops the lock with the process.
    signal(&first, 9);
    let _ = first.wait();
    let o = run_cmd(&server.base, &out, &["--resume"]).output().unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    let mut ids: Vec<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "every sample once");
}

#[test]
fn resume_with_other_settings_is_refused_and_lists_the_differences() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let base = common::cli::perturb_args("1");
    common::cli::perturb_run(&out, "1", &["--limit", "5"]);
    let before = std::fs::read_to_string(out.join("run.json")).unwrap();
    let o = bin()
        .args(base)
        .arg(&out)
        .args(["--resume", "--rounds", "2", "--shots", "2"])
        .output()
        .unwrap();
    let err = common::cli::refused(&o, "rounds: was 1, now 2");
    assert!(err.contains("shots: was 0, now 2"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("run.json")).unwrap(),
        before,
        "the manifest is untouched"
    );
    common::cli::perturb_run(
        &out,
        "1",
        &[
            "--resume",
            "--rounds",
            "2",
            "--force-experiment",
            "--limit",
            "6",
        ],
    );
}

#[test]
fn orphan_samples_and_duplicate_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("samples.jsonl"), "{\"id\":\"0\"}\n").unwrap();
    let o = bin()
        .args(common::cli::perturb_args("1"))
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("samples.jsonl but no run.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("samples.jsonl")).unwrap(),
        "{\"id\":\"0\"}\n",
        "nothing appended"
    );
    let ds = dir.path().join("dup.json");
    std::fs::write(
        &ds,
        r#"{"info": {"type": "dataset", "filter_field": "num_operators"}, "data": [
            {"idx": 0, "fs": "p1 ∧ p2", "num_operators": 1},
            {"idx": 0, "fs": "p1 ∨ p2", "num_operators": 1}]}"#,
    )
    .unwrap();
    let o = common::cli::perturb_dataset(&ds, &dir.path().join("dup-run"), &[])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("two items with idx 0"), "{err}");
}

#[test]
fn retry_errors_reruns_exactly_the_failed_samples_and_the_latest_line_wins() {
    let model = FakeModel::new();
    let failing = Arc::new(AtomicBool::new(true));
    let f = failing.clone();
    // While `failing`, every third request gets a 400 (not retried): those samples fail.
    let server = Server::start(move |n, r| {
        if f.load(Ordering::SeqCst) && n % 3 == 2 {
            Reply::json(400, "{\"error\":\"bad request\"}".into())
        } else {
            Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(&server.base, &out, &["--concurrency", "1", "--limit", "12"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let first = samples(&out);
    let failed: Vec<String> = first
        .iter()
        .filter(|r| r["verdict"]["verdict"] == "model-error")
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!failed.is_empty());
    failing.store(false, Ordering::SeqCst);
    // A plain resume treats them as done.
    let o = run_cmd(&server.base, &out, &["--resume", "--limit", "12"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(samples(&out).len(), first.len());
    let o = run_cmd(
        &server.base,
        &out,
        &["--resume", "--retry-errors", "--limit", "12"],
    )
    .output()
    .unwrap();
    common::cli::ok(&o);
    let all = samples(&out);
    assert_eq!(
        all.len(),
        first.len() + failed.len(),
        "one new line per failed sample"
    );
    let mut retried: Vec<String> = all[first.len()..]
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    retried.sort();
    let mut want = failed.clone();
    want.sort();
    assert_eq!(retried, want, "exactly the failed samples");
    for r in &all[first.len()..] {
        assert_ne!(r["verdict"]["verdict"], "model-error");
    }
    // Readers take the latest line per id.
    let report = autoeval::report::report_run(
        &autoeval::report::load_run(&out).unwrap(),
        autoeval::report::By::Operators,
    );
    assert_eq!(report.total.n, first.len());
    assert_eq!(report.verdicts.get("model-error"), None);
}

#[test]
fn a_server_that_is_gone_stops_the_run_after_k_failures() {
    // A port with nothing listening: every request is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(
        &base,
        &out,
        &[
            "--concurrency",
            "1",
            "--retries",
            "0",
            "--max-consecutive-failures",
            "3",
        ],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // Its own code (EX_TEMPFAIL), not Ctrl-C's 130.
    assert_eq!(o.status.code(), Some(75), "{err}");
    assert!(
        err.contains("3 samples in a row could not reach the server"),
        "{err}"
    );
    assert_eq!(
        samples(&out).len(),
        3,
        "no request burnt after the third failure"
    );
    assert_eq!(manifest(&out)["status"], "cancelled");
}

#[test]
fn hostile_token_counts_are_capped_flagged_and_charged() {
    let model = FakeModel::new();
    let server = Server::start(move |_, r| {
        let body = openai_body(&model.answer(&prompt_of(r)));
        let mut v: serde_json::Value = serde_json::from_str(&body).unwrap();
        v["usage"] = serde_json::json!({"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX});
        Reply::json(200, v.to_string())
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let prices = dir.path().join("prices.json");
    std::fs::write(&prices, r#"{"fake": {"input": 2.5, "output": 10.0}}"#).unwrap();
    let o = run_cmd(&server.base, &out, &["--limit", "4", "--prices"])
        .arg(&prices)
        .output()
        .unwrap();
    common::cli::ok(&o);
    for r in samples(&out) {
        let call = &r["rounds"][0]["informalize"];
        assert_eq!(call["implausible_usage"], true);
        assert!(call["input_tokens"].as_u64().unwrap() <= 10_000_000);
        // Flagged, and charged as reported: a provider bills what it reports.
        assert!(
            r["cost_usd"].as_f64().unwrap() > 1e13,
            "not charged: {}",
            r["cost_usd"]
        );
        assert!(r["input_tokens"].as_u64().unwrap() < u64::MAX);
    }
}

#[test]
fn absurd_concurrency_is_refused_not_a_panic() {
    let o = bin()
        .args(["run", "--kind", "pl", "--model", "perturb", "--quiet"])
        .args(["--concurrency", "2305843009213693952", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("r"))
        .output()
        .unwrap();
    common::cli::refused(&o, "--concurrency must be between 1 and");
}

#[test]
fn report_and_labels_sanitise_terminal_output_and_exit_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    common::cli::perturb_run(&out, "3", &[]);
    // A crafted run name: OSC 52 clipboard write, title change, bidi override.
    let mut m = manifest(&out);
    m["id"] = "evil\u{1b}]52;c;aGk=\u{7}\u{1b}]0;pwned\u{7}\u{202e}".into();
    std::fs::write(out.join("run.json"), serde_json::to_string(&m).unwrap()).unwrap();
    let o = bin().arg("report").arg(&out).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'));
    assert!(text.contains("\\u{001B}]52"), "shown visibly: {text}");
    // JSON into a pipe stays exact.
    let o = bin()
        .args(["report", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("\\u001b]52"));
    // `| head`: the reader goes away; the writer stops quietly.
    let mut child = bin()
        .args(["report", "--format", "csv"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    let mut child = bin()
        .args(["verify", "--pairs", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    drop(child.stdout.take());
    let _ = stdin.write_all("p\tq\n".repeat(50_000).as_bytes());
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_fifo_or_dev_zero_named_samples_jsonl_never_hangs_report_or_view() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    offline_run(&out, "3");
    let samples_path = out.join("samples.jsonl");
    for kind in ["fifo", "zero"] {
        std::fs::remove_file(&samples_path).unwrap();
        if kind == "fifo" {
            assert!(
                Command::new("mkfifo")
                    .arg(&samples_path)
                    .status()
                    .unwrap()
                    .success()
            );
        } else {
            std::os::unix::fs::symlink("/dev/zero", &samples_path).unwrap();
        }
        let t = Instant::now();
        let o = bin().arg("report").arg(&out).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{kind}: {err}");
        assert!(err.contains("not a regular file"), "{kind}: {err}");
        assert!(t.elapsed() < Duration::from_secs(10), "{kind}");
        let (app, _) = autoeval::tui::build_app(&screens::options(vec![out.clone()]));
        assert!(
            app.model
                .warnings
                .iter()
                .any(|w| w.contains("not a regular file")),
            "{kind}: {:?}",
            app.model.warnings
        );
    }
}

#[test]
fn an_overlong_reply_is_a_model_error_naming_the_cap() {
    let model = FakeModel::new();
    let server = Server::start(move |n, r| {
        let answer = model.answer(&prompt_of(r));
        if n == 0 {
            // A runaway reply: 2 MB of text.
            Reply::json(200, openai_body(&"p1 ∧ ".repeat(400_000)))
        } else {
            Reply::json(200, openai_body(&answer))
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(
        &server.base,
        &out,
        &[
            "--concurrency",
            "1",
            "--limit",
            "3",
            "--max-reply-bytes",
            "65536",
        ],
    )
    .output()
    .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    let first = &recs[0];
    assert_eq!(first["verdict"]["verdict"], "model-error");
    assert!(
        first["verdict"]["message"]
            .as_str()
            .unwrap()
            .contains("cap of 65536 bytes"),
        "{first}"
    );
    let line_len = std::fs::read_to_string(out.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(str::len)
        .max()
        .unwrap();
    assert!(
        line_len < 100_000,
        "no runaway line written ({line_len} bytes)"
    );
}

#[test]
fn a_reply_cut_off_mid_body_is_retried() {
    let model = FakeModel::new();
    let server = Server::start(move |n, r| {
        let body = openai_body(&model.answer(&prompt_of(r)));
        if n == 0 {
            Reply {
                cut_after: Some(body.len() / 2),
                ..Reply::json(200, body)
            }
        } else {
            Reply::json(200, body)
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(&server.base, &out, &["--concurrency", "1", "--limit", "2"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    assert_ne!(recs[0]["verdict"]["verdict"], "model-error", "{}", recs[0]);
    assert_eq!(
        recs[0]["rounds"][0]["informalize"]["attempts"], 2,
        "retried once"
    );
}

#[test]
fn a_key_echoed_escaped_encoded_or_in_part_is_never_stored() {
    let key = "sk-test-SECRETKEY-0123456789abcdef";
    let b64 = "c2stdGVzdC1TRUNSRVRLRVktMDEyMzQ1Njc4OWFiY2RlZg==";
    let escaped: String = key
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let server = Server::start(move |n, _| match n % 3 {
        // ψ that echoes the key \u-escaped, and a piece of it.
        0 => Reply::json(
            200,
            format!(
                "{{\"choices\":[{{\"message\":{{\"content\":\"key {escaped} and SECRETKEY-0123 here\"}},\"finish_reason\":\"stop\"}}],\"usage\":{{\"prompt_tokens\":1,\"completion_tokens\":1}}}}"
            ),
        ),
        // An error body with the key in base64.
        _ => Reply::json(400, format!("{{\"error\":\"bad key {b64}\"}}")),
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(&server.base, &out, &["--concurrency", "1", "--limit", "3"])
        .env("AE_FAULTS_KEY", key)
        .args(["--api-key-env", "AE_FAULTS_KEY"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let mut all = String::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        all.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
    }
    all.push_str(&stderr);
    for leak in [
        key,
        "SECRETKEY-0123",
        b64,
        "0123456789abcdef",
        "\\u0073\\u006b",
    ] {
        assert!(!all.contains(leak), "leaked {leak:?}");
    }
    assert!(all.contains("[redacted]"), "the echo is shown as redacted");
}

#[test]
fn a_20000_term_reply_is_unparseable_too_large_and_the_run_goes_on() {
    let model = FakeModel::new();
    let huge = (0..20_000)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join(" ∧ ");
    let server = Server::start(move |_, r| {
        let prompt = prompt_of(r);
        let answer = if prompt.contains("[NL DESCRIPTION]") {
            huge.clone()
        } else {
            model.answer(&prompt)
        };
        Reply::json(200, openai_body(&answer))
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run_cmd(
        &server.base,
        &out,
        &["--limit", "4", "--max-reply-bytes", "1000000"],
    )
    .output()
    .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        if r["verdict"]["verdict"] == "copied" {
            continue;
        }
        assert_eq!(r["verdict"]["verdict"], "unparseable", "{}", r["verdict"]);
        assert!(
            r["verdict"]["reason"]
                .as_str()
                .unwrap()
                .starts_with("too large")
        );
    }
    // The same formula in a dataset: skipped with a warning, never a crash.
    let ds = dir.path().join("deep.json");
    let long = (0..20_000)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join(" & ");
    common::write_dataset(
        &ds,
        serde_json::json!([{"idx": 0, "fs": long, "num_operators": 19999}, {"idx": 1, "fs": "p1 & p2", "num_operators": 1}]),
    );
    let err = common::cli::ok_stderr(
        &common::cli::perturb_dataset(&ds, &dir.path().join("deep-run"), &[])
            .output()
            .unwrap(),
    );
    assert!(err.contains("too large"), "{err}");
    assert_eq!(samples(&dir.path().join("deep-run")).len(), 1);
}

#[test]
fn prompt_templates_without_their_placeholders_are_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "informalize-logic.txt",
            "[TASK]\nDescribe it.\n",
            "never uses {formula}",
        ),
        (
            "autoformalize-logic.txt",
            "[TASK]\nWrite it.\n{description}\n{formla}\n",
            ":4: unknown placeholder {formla}",
        ),
        (
            "judge.txt",
            "{formula} {formula2}\nset {a, b\n",
            ":2: stray '{'",
        ),
        (
            "informalize-regex.txt",
            "{formula}\n} done\n",
            ":2: stray '}'",
        ),
    ];
    for (file, text, want) in cases {
        let prompts = dir.path().join(format!("p-{file}"));
        std::fs::create_dir_all(&prompts).unwrap();
        std::fs::write(prompts.join(file), text).unwrap();
        let o = bin()
            .args([
                "run",
                "--kind",
                "pl",
                "--per-category",
                "1",
                "--model",
                "perturb",
                "--quiet",
            ])
            .arg("--prompts")
            .arg(&prompts)
            .arg("--out")
            .arg(dir.path().join(format!("r-{file}")))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(file) && err.contains(want), "{file}: {err}");
        assert!(
            !dir.path()
                .join(format!("r-{file}"))
                .join("samples.jsonl")
                .exists()
        );
    }
}

#[test]
fn a_label_after_a_torn_line_is_kept_and_unknown_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    offline_run(&out, "3");
    let id = samples(&out)[0]["id"].as_str().unwrap().to_string();
    std::fs::write(out.join("labels.jsonl"), "{\"id\":\"0\",\"categ").unwrap();
    let o = bin()
        .args(["labels", "add"])
        .arg(&out)
        .args([id.as_str(), "negation-misplaced", "--annotator", "ann"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    let labels = autoeval::run::store::read_labels(&out).unwrap();
    assert_eq!(
        labels.records.len(),
        1,
        "the new label survives the torn line"
    );
    assert_eq!(labels.records[0].id, id);
    let o = bin()
        .args(["labels", "add"])
        .arg(&out)
        .args(["no-such-sample", "negation-misplaced"])
        .output()
        .unwrap();
    common::cli::refused(&o, "no sample with id 'no-such-sample'");
}

#[test]
fn bad_config_keys_are_warned_about_and_quit_stays_bound() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        "colour = \"red\"\nannotator = 3\ntheme = \"light\"\n[keys]\nhelp = [\"ctrl-qq\", \"f13\", \"q\"]\nwarnings = \"ctrl-c\"\n[keys.label]\nundo = \"U\"\nreviewed = \"a\"\n[keys.serach]\nconfirm = \"enter\"\n",
    )
    .unwrap();
    let (app, _) = autoeval::tui::build_app(&autoeval::tui::ViewOptions {
        config: Some(cfg),
        ..screens::options(vec![])
    });
    let w = app.model.warnings.join("\n");
    assert!(w.contains("unknown setting 'colour'"), "{w}");
    // A value of the wrong type is named; the other settings still apply.
    assert!(w.contains("setting 'annotator' ignored"), "{w}");
    assert!(w.contains("expected a string"), "{w}");
    assert!(w.contains("'ctrl-qq' is not a key name"), "{w}");
    assert!(w.contains("'f13' is not a key name"), "{w}");
    // Ctrl-C always quits: no other action may take it.
    assert!(
        w.contains("config [keys]: warnings: ctrl-c always quits; that key is ignored"),
        "{w}"
    );
    assert!(w.contains("[keys.serach]: unknown mode"), "{w}");
    assert!(
        w.contains(
            "key 'a' is both the category 'parentheses-scope' and reviewed; the category wins"
        ),
        "{w}"
    );
    use autoeval::tui::keymap::{Action, Context};
    let key = |n: &str| n.parse::<autoeval::tui::keys::Key>().unwrap();
    assert_eq!(
        app.keymap.action(Context::Normal, key("ctrl-c")),
        Some(Action::Quit)
    );
    assert_eq!(
        app.keymap.action(Context::Label, key("U")),
        Some(Action::Undo)
    );
    assert_eq!(app.keymap.action(Context::Label, key("u")), None);
}

#[test]
fn the_viewer_shows_bidi_and_zero_width_characters_instead_of_obeying_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    offline_run(&out, "2");
    let text = std::fs::read_to_string(out.join("samples.jsonl")).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for l in &mut lines {
        l["rounds"][0]["psi"] = "evil\u{202e}txt.exe\u{200b} and \u{1b}[2J".into();
    }
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(out.join("samples.jsonl"), body).unwrap();
    let (mut app, theme) = autoeval::tui::build_app(&screens::options(vec![out.clone()]));
    app.pump();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| {
        autoeval::tui::ui::view(f, &app, &theme);
    })
    .unwrap();
    let screen: String = term
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol().to_string())
        .collect();
    for bad in ['\u{202e}', '\u{200b}', '\u{1b}'] {
        assert!(!screen.contains(bad), "{bad:?} reached the screen");
    }
    assert!(screen.contains("\\u{202E}"), "shown visibly");
}

#[test]
fn ctrl_c_interrupts_a_long_z3_check_instead_of_waiting_for_it() {
    // φ₀ has only infinite models, φ₁ is ⊥: Z3 can settle neither way and would run
    // to the 60 s verifier timeout.
    let phi0 = "(∀x.∃y.R(x,y)) ∧ (∀x.¬R(x,x)) ∧ (∀x.∀y.∀z.((R(x,y) ∧ R(y,z)) → R(x,z)))";
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("hard.json");
    common::write_dataset(
        &ds,
        serde_json::json!([{"idx": 0, "fs": phi0, "num_operators": 12}]),
    );
    let server = Server::start(|_, r| {
        let answer = if prompt_of(r).contains("[NL DESCRIPTION]") {
            "R(c,c) ∧ ¬R(c,c)"
        } else {
            "R is a strict order in which everything has something above it."
        };
        Reply::json(200, openai_body(answer))
    });
    let out = dir.path().join("run");
    let mut child = bin()
        .args([
            "run",
            "--model",
            "openai:fake",
            "--quiet",
            "--verify-timeout",
            "60000",
        ])
        .arg("--dataset")
        .arg(&ds)
        .arg("--base-url")
        .arg(format!("{}/v1", server.base))
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "sk-unused")
        .spawn()
        .unwrap();
    let start = Instant::now();
    while server.hits.load(Ordering::SeqCst) < 2 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Give the verifier time to be deep inside Z3.
    std::thread::sleep(Duration::from_millis(1500));
    let t = Instant::now();
    signal(&child, 2);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "stopped in {:?}, not after the 60 s verifier timeout",
        t.elapsed()
    );
    assert_eq!(manifest(&out)["status"], "cancelled");
    assert!(
        samples(&out).is_empty(),
        "an interrupted check is never recorded"
    );
}

#[test]
fn run_warnings_quoting_a_dataset_never_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("evil.json");
    common::write_dataset(
        &ds,
        serde_json::json!([{"idx": 0, "fs": "p1 \u{1b}]0;pwned\u{7} ∧", "num_operators": 1},
                     {"idx": 1, "fs": "p1 ∧ p2", "num_operators": 1}]),
    );
    let err = common::cli::ok_stderr(
        &common::cli::perturb_dataset(&ds, &dir.path().join("r"), &[])
            .output()
            .unwrap(),
    );
    assert!(err.contains("does not parse"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

#[test]
fn rescore_in_place_takes_the_run_lock() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    offline_run(&out, "3");
    // Another writer holds the run (here this test process).
    let lock = autoeval::run::store::RunLock::acquire(&out).unwrap();
    let o = bin()
        .args(["rescore", "--in-place"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("PID {}", std::process::id())),
        "{err}"
    );
    drop(lock);
    let o = bin()
        .args(["rescore", "--in-place"])
        .arg(&out)
        .output()
        .unwrap();
    common::cli::ok(&o);
}
