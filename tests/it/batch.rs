//! `run --batch-api` against an in-process server that implements OpenAI's files and
//! batches endpoints and Anthropic's Message Batches; batch files for vLLM.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use common::{FakeModel, Reply, Request, Server, anthropic_body, openai_body, run_cmd, samples};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What the batch server does.
#[derive(Clone, Default)]
struct Behaviour {
    /// Status checks answered "in progress" before a batch ends.
    polls: usize,
    /// The first batch expires without running anything.
    expire_first: bool,
    /// Requests of samples whose id ends in this digit fail.
    error_digit: Option<char>,
    /// Results come back in reverse order.
    reverse: bool,
    /// Prompt tokens each OpenAI answer reports (default: the body's 100).
    prompt_tokens: Option<u64>,
}

struct Batch {
    anthropic: bool,
    requests: Vec<(String, String)>,
    polls: usize,
    expired: bool,
    cancelled: bool,
}

#[derive(Default)]
struct World {
    files: HashMap<String, String>,
    batches: HashMap<String, Batch>,
    /// Every custom id ever submitted, in order.
    submitted: Vec<String>,
    n: usize,
}

struct BatchServer {
    server: Server,
    world: Arc<Mutex<World>>,
    /// While set, batches never end.
    hold: Arc<AtomicBool>,
}

/// The JSONL file of an OpenAI upload, after checking the form is real multipart:
/// the declared boundary, a `purpose=batch` field and a named `.jsonl` file part.
fn file_of_multipart(content_type: &str, body: &str) -> String {
    let boundary = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .unwrap_or_else(|| panic!("not multipart: {content_type}"))
        .trim_matches('"');
    let parts: Vec<&str> = body
        .split(&format!("--{boundary}"))
        .filter(|p| !p.is_empty() && *p != "--\r\n")
        .collect();
    assert_eq!(parts.len(), 2, "purpose and file: {body}");
    let (purpose_head, purpose) = parts[0].split_once("\r\n\r\n").unwrap();
    assert!(purpose_head.contains("name=\"purpose\""), "{purpose_head}");
    assert_eq!(purpose, "batch\r\n");
    let (file_head, content) = parts[1].split_once("\r\n\r\n").unwrap();
    assert!(
        file_head.contains("name=\"file\"; filename=\"autoeval-batch.jsonl\"")
            && file_head.contains("application/jsonl"),
        "{file_head}"
    );
    content.strip_suffix("\r\n").unwrap().to_string()
}

fn result_lines(b: &Batch, model: &FakeModel, how: &Behaviour) -> (String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut reqs = b.requests.clone();
    if how.reverse {
        reqs.reverse();
    }
    for (cid, prompt) in &reqs {
        let sample = cid.split('_').next().unwrap();
        let fails = how.error_digit.is_some_and(|d| sample.ends_with(d));
        let line = if b.anthropic {
            let result = if b.expired {
                json!({"type": "expired"})
            } else if b.cancelled {
                json!({"type": "canceled"})
            } else if fails {
                json!({"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}})
            } else {
                let msg: Value =
                    serde_json::from_str(&anthropic_body(&model.answer(prompt))).unwrap();
                json!({"type": "succeeded", "message": msg})
            };
            out.push(json!({"custom_id": cid, "result": result}).to_string());
            continue;
        } else if b.expired || b.cancelled {
            err.push(
                json!({"id": "r", "custom_id": cid, "response": null,
                       "error": {"code": "batch_expired", "message": "not run before the window ended"}})
                .to_string(),
            );
            continue;
        } else if fails {
            json!({"id": "r", "custom_id": cid,
                   "response": {"status_code": 400, "body": {"error": {"message": "prompt is too long"}}}, "error": null})
        } else {
            let mut body: Value =
                serde_json::from_str(&openai_body(&model.answer(prompt))).unwrap();
            if let Some(n) = how.prompt_tokens {
                body["usage"]["prompt_tokens"] = n.into();
            }
            json!({"id": "r", "custom_id": cid, "response": {"status_code": 200, "body": body}, "error": null})
        };
        out.push(line.to_string());
    }
    (out.join("\n") + "\n", err.join("\n"))
}

fn batch_json(id: &str, b: &Batch, done: bool) -> Value {
    let total = b.requests.len();
    if b.anthropic {
        let status = if done { "ended" } else { "in_progress" };
        json!({"id": id, "type": "message_batch", "processing_status": status,
               "request_counts": {"processing": if done {0} else {total}, "succeeded": if done && !b.expired {total} else {0},
                                  "errored": 0, "canceled": 0, "expired": if done && b.expired {total} else {0}},
               "results_url": null})
    } else {
        let status = match (done, b.expired, b.cancelled) {
            (false, _, _) => "in_progress",
            (true, true, _) => "expired",
            (true, _, true) => "cancelled",
            _ => "completed",
        };
        json!({"id": id, "object": "batch", "status": status,
               "request_counts": {"total": total, "completed": if done && !b.expired {total} else {0}, "failed": 0},
               "output_file_id": if done { Some(format!("{id}-out")) } else { None },
               "error_file_id": if done { Some(format!("{id}-err")) } else { None }})
    }
}

impl BatchServer {
    fn start(how: Behaviour) -> BatchServer {
        let world = Arc::new(Mutex::new(World::default()));
        let hold = Arc::new(AtomicBool::new(false));
        let model = FakeModel::new();
        let (w, h) = (world.clone(), hold.clone());
        let server = Server::start(move |_, r: &Request| {
            let mut w = w.lock().unwrap();
            let path = r.path.trim_start_matches("/v1");
            let ok = |v: Value| Reply::json(200, v.to_string());
            let anthropic = path.starts_with("/messages/batches");
            let rest = path
                .trim_start_matches("/messages/batches")
                .trim_start_matches("/batches");
            match (r.method.as_str(), path) {
                ("POST", "/files") => {
                    w.n += 1;
                    let id = format!("file-{}", w.n);
                    let ct = r.headers.get("content-type").cloned().unwrap_or_default();
                    w.files.insert(id.clone(), file_of_multipart(&ct, &r.body));
                    ok(json!({"id": id, "object": "file", "purpose": "batch"}))
                }
                ("POST", "/batches" | "/messages/batches") => {
                    let requests: Vec<Value> = if anthropic {
                        let v: Value = serde_json::from_str(&r.body).unwrap();
                        v["requests"].as_array().unwrap().clone()
                    } else {
                        let v: Value = serde_json::from_str(&r.body).unwrap();
                        let f = &w.files[v["input_file_id"].as_str().unwrap()];
                        f.lines()
                            .map(|l| serde_json::from_str(l).unwrap())
                            .collect()
                    };
                    let requests: Vec<(String, String)> = requests
                        .iter()
                        .map(|q| {
                            let body = if anthropic { &q["params"] } else { &q["body"] };
                            (
                                q["custom_id"].as_str().unwrap().to_string(),
                                body["messages"][0]["content"].as_str().unwrap().to_string(),
                            )
                        })
                        .collect();
                    w.n += 1;
                    let id = format!("batch_{}", w.n);
                    let expired = how.expire_first && w.batches.is_empty();
                    w.submitted.extend(requests.iter().map(|(c, _)| c.clone()));
                    let b = Batch {
                        anthropic,
                        requests,
                        polls: 0,
                        expired,
                        cancelled: false,
                    };
                    let v = batch_json(&id, &b, false);
                    w.batches.insert(id, b);
                    ok(v)
                }
                ("GET", _) if path.starts_with("/files/") => {
                    let id = path
                        .trim_start_matches("/files/")
                        .trim_end_matches("/content");
                    let (bid, which) = id.rsplit_once('-').unwrap();
                    let b = &w.batches[bid];
                    let (out, err) = result_lines(b, &model, &how);
                    Reply::json(200, if which == "out" { out } else { err })
                }
                ("GET", _) if rest.ends_with("/results") => {
                    let bid = rest.trim_start_matches('/').trim_end_matches("/results");
                    Reply::json(200, result_lines(&w.batches[bid], &model, &how).0)
                }
                ("GET", _) => {
                    let bid = rest.trim_start_matches('/').to_string();
                    let held = h.load(Ordering::SeqCst);
                    let b = w.batches.get_mut(&bid).unwrap();
                    b.polls += 1;
                    let done = b.cancelled || (!held && b.polls > how.polls);
                    ok(batch_json(&bid, b, done))
                }
                ("POST", _) if rest.ends_with("/cancel") => {
                    let bid = rest
                        .trim_start_matches('/')
                        .trim_end_matches("/cancel")
                        .to_string();
                    let b = w.batches.get_mut(&bid).unwrap();
                    b.cancelled = true;
                    ok(batch_json(&bid, b, false))
                }
                _ => Reply::json(404, "{\"error\":\"no such endpoint\"}".into()),
            }
        });
        BatchServer {
            server,
            world,
            hold,
        }
    }

    fn submitted(&self) -> Vec<String> {
        self.world.lock().unwrap().submitted.clone()
    }

    /// Whether every batch at the provider was cancelled.
    fn all_cancelled(&self) -> bool {
        self.world
            .lock()
            .unwrap()
            .batches
            .values()
            .all(|b| b.cancelled)
    }

    /// `autoeval run --batch-api` (OpenAI) against this server into `out`, at `price`.
    fn run(&self, out: &Path, price: &str, extra: &[&str]) -> std::process::Command {
        run_cmd(&self.server.base, out, &batch_args(price, extra))
    }
}

/// Waits until the run in `out` has logged a submitted batch.
fn wait_submitted(out: &Path) {
    let log = out.join("batches.jsonl");
    let t0 = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("\"submitted\"")
    {
        assert!(t0.elapsed().as_secs() < 30, "no batch submitted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn batch_args<'a>(price: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["--batch-api", "--batch-poll", "0.02", "--prices", price];
    v.extend_from_slice(extra);
    v
}

fn anthropic_cmd(base: &str, out: &Path, extra: &[&str]) -> std::process::Command {
    let key = ("ANTHROPIC_API_KEY", "sk-ant-never-written-5");
    common::pl_run(base, out, "anthropic:fake", key, extra)
}

fn assert_each_submitted_once(ids: &[String]) {
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        assert!(seen.insert(id), "{id} was submitted twice");
    }
}

#[test]
fn openai_batches_run_stage_by_stage_at_batch_price() {
    let bs = BatchServer::start(Behaviour {
        polls: 2,
        reverse: true,
        ..Behaviour::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = bs
        .run(&out, &price, &["--batch-max-requests", "7"])
        .output()
        .unwrap();
    let err = common::cli::ok_stderr(&o);
    let recs = samples(&out);
    assert!(!recs.is_empty());
    assert!(
        recs.iter().all(|r| r["verdict"]["verdict"] == "equivalent"),
        "{err}"
    );
    let n = recs.len();
    let ids = bs.submitted();
    assert_eq!(
        ids.len(),
        2 * n,
        "one informalization and one autoformalization each"
    );
    assert_each_submitted_once(&ids);
    // Split by --batch-max-requests: ceil(n/7) batches per stage.
    let batches = bs.world.lock().unwrap().batches.len();
    assert_eq!(batches, 2 * n.div_ceil(7));
    let c = &recs[0]["rounds"][0]["informalize"];
    assert_eq!(c["latency_ms"], 0);
    assert!(c["batch_id"].as_str().unwrap().starts_with("batch_"));
    // 100 prompt and 20 answer tokens at $1/$10 per Mtok, half price: $0.00015 a call.
    let cost = recs[0]["cost_usd"].as_f64().unwrap();
    assert!((cost - 2.0 * 0.00015).abs() < 1e-9, "{cost}");
    let log = std::fs::read_to_string(out.join("batches.jsonl")).unwrap();
    assert!(log.contains("\"completed\""), "states are logged: {log}");
    assert!(log.contains("\"submitted\"") && log.contains("\"ingested\""));
    assert!(!log.contains("sk-never-written"));
    let m: Value = common::manifest(&out);
    assert_eq!(m["status"], "finished");
}

#[test]
fn anthropic_message_batches_with_errored_lines_then_retry_errors() {
    let bs = BatchServer::start(Behaviour {
        polls: 1,
        error_digit: Some('1'),
        reverse: true,
        ..Behaviour::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = anthropic_cmd(&bs.server.base, &out, &batch_args(&price, &[]))
        .output()
        .unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    let failed: Vec<&Value> = recs
        .iter()
        .filter(|r| r["verdict"]["verdict"] == "model-error")
        .collect();
    assert!(!failed.is_empty());
    for r in &recs {
        let id = r["id"].as_str().unwrap();
        assert_eq!(
            id.ends_with('1'),
            r["verdict"]["verdict"] == "model-error",
            "{r}"
        );
    }
    assert!(
        failed[0]["verdict"]["message"]
            .as_str()
            .unwrap()
            .contains("prompt is too long")
    );
    assert_each_submitted_once(&bs.submitted());
    // The errored ones again, in a new batch at a server that no longer fails them.
    let bs2 = BatchServer::start(Behaviour::default());
    let again = anthropic_cmd(
        &bs2.server.base,
        &out,
        &batch_args(&price, &["--resume", "--retry-errors"]),
    )
    .output()
    .unwrap();
    common::cli::ok(&again);
    assert_eq!(
        bs2.submitted().len(),
        2 * failed.len(),
        "only the failed samples are asked again"
    );
    let dir = autoeval::run::store::read_samples(&out).unwrap();
    let mut latest = HashMap::new();
    for r in dir.records {
        latest.insert(r.id.clone(), r.verdict.name().to_string());
    }
    assert!(latest.values().all(|v| v == "equivalent"), "{latest:?}");
}

#[test]
fn an_expired_batch_becomes_model_errors_redone_with_retry_errors() {
    let bs = BatchServer::start(Behaviour {
        expire_first: true,
        ..Behaviour::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = bs.run(&out, &price, &[]).output().unwrap();
    common::cli::ok(&o);
    let recs = samples(&out);
    assert!(
        recs.iter()
            .all(|r| r["verdict"]["verdict"] == "model-error")
    );
    assert!(
        recs[0]["verdict"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{}",
        recs[0]
    );
    let again = bs
        .run(&out, &price, &["--resume", "--retry-errors"])
        .output()
        .unwrap();
    common::cli::ok(&again);
    let after = samples(&out);
    assert_eq!(after.len(), 2 * recs.len());
    assert!(
        after[recs.len()..]
            .iter()
            .all(|r| r["verdict"]["verdict"] == "equivalent")
    );
}

#[test]
fn killed_after_submitting_resumes_and_never_submits_twice() {
    let bs = BatchServer::start(Behaviour::default());
    bs.hold.store(true, Ordering::SeqCst);
    let (_tmp, price, out) = common::batch_scratch();
    let mut child = bs.run(&out, &price, &[]).spawn().unwrap();
    wait_submitted(&out);
    child.kill().unwrap();
    child.wait().unwrap();
    let first = bs.submitted();
    assert!(!first.is_empty());
    // Hours later: the batch has finished at the provider.
    bs.hold.store(false, Ordering::SeqCst);
    let o = bs.run(&out, &price, &["--resume"]).output().unwrap();
    common::cli::ok(&o);
    let ids = bs.submitted();
    assert_each_submitted_once(&ids);
    let recs = samples(&out);
    assert_eq!(ids.len(), 2 * recs.len());
    assert!(recs.iter().all(|r| r["verdict"]["verdict"] == "equivalent"));
    let unique: std::collections::HashSet<_> = recs.iter().map(|r| r["id"].to_string()).collect();
    assert_eq!(unique.len(), recs.len());
}

#[test]
fn ctrl_c_cancels_the_batches_at_the_provider() {
    let bs = BatchServer::start(Behaviour::default());
    bs.hold.store(true, Ordering::SeqCst);
    let (_tmp, price, out) = common::batch_scratch();
    let child = bs
        .run(&out, &price, &[])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_submitted(&out);
    std::thread::sleep(std::time::Duration::from_millis(100));
    let pid = child.id() as i32;
    std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(bs.all_cancelled());
    let m: Value = common::manifest(&out);
    assert_eq!(m["status"], "cancelled");
}

#[test]
fn vllm_batch_files_loop_out_and_in() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let files = tmp.path().join("requests");
    let model = FakeModel::new();
    // No server and no key: batch files contact nothing.
    let mut round = 0;
    let mut extra: Vec<String> = vec!["--batch-file-out".into(), files.display().to_string()];
    loop {
        let args: Vec<&str> = extra.iter().map(String::as_str).collect();
        let o = common::cli::bin()
            .args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
            .args(["--model", "openai:fake", "--quiet", "--out"])
            .arg(&out)
            .args(&args)
            .env_remove("OPENAI_API_KEY")
            .env("AUTOEVAL_CACHE_DIR", tmp.path().join("cache"))
            .output()
            .unwrap();
        common::cli::ok(&o);
        let written: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if written.is_empty() {
            break;
        }
        round += 1;
        assert!(round <= 4, "the loop ends");
        // What `vllm run-batch` does: answer each request line, in its own order.
        let mut results = Vec::new();
        for f in &written {
            for line in std::fs::read_to_string(f).unwrap().lines().rev() {
                let q: Value = serde_json::from_str(line).unwrap();
                assert_eq!(q["url"], "/v1/chat/completions");
                let body: Value = serde_json::from_str(&openai_body(
                    &model.answer(q["body"]["messages"][0]["content"].as_str().unwrap()),
                ))
                .unwrap();
                results.push(json!({"id": "vllm-1", "custom_id": q["custom_id"], "response": {"status_code": 200, "body": body}, "error": null}).to_string());
            }
        }
        let res = tmp.path().join(format!("results-{round}.jsonl"));
        std::fs::write(&res, results.join("\n") + "\n").unwrap();
        extra = vec![
            "--resume".into(),
            "--batch-file-in".into(),
            res.display().to_string(),
            "--batch-file-out".into(),
            files.display().to_string(),
        ];
    }
    assert_eq!(round, 2, "informalizations, then autoformalizations");
    let m: Value = common::manifest(&out);
    assert_eq!(m["model"]["base_url"], "file://batch-files");
    assert_eq!(m["status"], "finished");
    let recs = samples(&out);
    assert!(!recs.is_empty());
    assert!(recs.iter().all(|r| r["verdict"]["verdict"] == "equivalent"));
}

#[test]
fn a_live_resume_warns_about_batches_still_open() {
    let bs = BatchServer::start(Behaviour::default());
    bs.hold.store(true, Ordering::SeqCst);
    let (_tmp, price, out) = common::batch_scratch();
    let mut child = bs.run(&out, &price, &["--limit", "2"]).spawn().unwrap();
    wait_submitted(&out);
    child.kill().unwrap();
    child.wait().unwrap();
    let o = run_cmd(
        &bs.server.base,
        &out,
        &["--limit", "2", "--resume", "--retries", "0"],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("1 provider batch(es) of this run are still open"),
        "{err}"
    );
}

#[test]
fn max_cost_keeps_a_batch_that_would_pass_it_from_being_submitted() {
    let bs = BatchServer::start(Behaviour::default());
    let (_tmp, price, out) = common::batch_scratch();
    // Worst case of one request at half of $10/Mtok × 1024 answer tokens ≈ $0.005:
    // a stage of many samples cannot fit in a cent.
    let o = bs
        .run(&out, &price, &["--max-cost", "0.01"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("would pass --max-cost"), "{err}");
    assert!(bs.submitted().is_empty());
    // Parts of one request fit: they go one by one, each settled at its real cost
    // ($0.00015), until the next one's worst case (≈ $0.0059) would pass the limit.
    let o = run_cmd(
        &bs.server.base,
        &out,
        &batch_args(
            &price,
            &[
                "--max-cost",
                "0.01",
                "--batch-max-requests",
                "1",
                "--resume",
            ],
        ),
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let n = bs.submitted().len() as f64;
    assert!(n >= 2.0, "{n}");
    assert!(n * 0.00015 <= 0.01, "spent within the limit");
    // A part that does not fit beside an open batch's reservation waits for it to
    // settle; the run stops once, when nothing is open and the next part cannot fit.
    assert_eq!(err.matches("would pass --max-cost").count(), 1, "{err}");
    let dollars = |after: &str| -> f64 {
        err.split(after)
            .nth(1)
            .and_then(|t| t.split([')', ' ']).next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no `{after}` in {err}"))
    };
    let (refused, spent) = (dollars("(worst case $"), dollars("(spent $"));
    assert!(
        (spent - n * 0.00015).abs() < 1e-4,
        "{spent} for {n} batches"
    );
    // Both figures are printed to 4 decimals.
    assert!(
        spent + refused > 0.01 - 1e-4,
        "stopped only when the next one could not fit: spent ${spent}, next ${refused}"
    );
}

/// The viewer on an empty folder with its new-run form filled in for a batch run of
/// six PL samples against `base` (OpenAI-compatible), then started with its key.
/// Fills the new-run form for a 6-sample batch run into `out`. The form opens with the
/// last values submitted in this process (another test's run, possibly still going), so
/// every field a test relies on is set.
fn fill_form(app: &mut autoeval::tui::app::App, base: &str, out: &Path) {
    screens::set_form(
        app,
        &[
            ("dataset", "pl"),
            ("seed", "3"),
            ("per_category", "1"),
            ("model", "openai:fake"),
            ("base_url", &format!("{base}/v1")),
            ("api_key_env", ""),
            ("limit", "6"),
            ("retry_errors", "n"),
            ("endpoint_concurrency", ""),
            ("batch_api", "y"),
            ("batch_poll", "0.05"),
            ("cache", "n"),
            ("max_cost", ""),
            ("out", &out.display().to_string()),
        ],
    );
}

fn viewer_batch_run(base: &str, folder: &Path, out: &Path) -> autoeval::tui::app::App {
    let (mut app, _) = autoeval::tui::build_app(&screens::options(vec![folder.to_path_buf()]));
    app.press("R").unwrap();
    fill_form(&mut app, base, out);
    let form = app.form_mut().unwrap();
    assert!(
        form.command
            .contains(" --batch-api --batch-poll 0.05 --no-cache"),
        "{}",
        form.command
    );
    // At 80×24 the form scrolls: the last field (a step back from the first) is in view.
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    app.press("shift-tab").unwrap();
    let screen = screens::screen(&mut app, &t, 80, 24);
    assert!(
        screen.contains("output directory") && screen.contains("max cost (USD)"),
        "{screen}"
    );
    assert!(!screen.contains("seed (kind)"), "scrolled down:\n{screen}");
    app.press("tab").unwrap();
    let screen = screens::screen(&mut app, &t, 80, 24);
    assert!(screen.contains("dataset (kind or file)"), "{screen}");
    app.press("enter").unwrap();
    assert!(
        app.jobs.live.is_some() && app.form().is_none(),
        "{:?}",
        app.form().map(|f| f.error.clone())
    );
    assert!(app.jobs.live.as_ref().unwrap().batch_run);
    app
}

/// The live status row as drawn at 160×40.
fn status_row(app: &mut autoeval::tui::app::App) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    let screen = screens::screen(app, &t, 160, 40);
    let rows: Vec<&str> = screen.trim_end_matches('\n').lines().collect();
    rows[rows.len() - 2].trim_end().to_string()
}

#[test]
fn a_viewer_form_run_with_the_batch_api_shows_the_batch_state_and_finishes() {
    let bs = BatchServer::start(Behaviour {
        polls: 4,
        ..Behaviour::default()
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("viewer-batch");
    let mut app = viewer_batch_run(&bs.server.base, tmp.path(), &out);
    let start = std::time::Instant::now();
    let mut shown = Vec::new();
    let mut paused_tried = false;
    while app.jobs.live.as_ref().unwrap().ended.is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the batch run did not end; seen {shown:?}"
        );
        app.pump_until(std::time::Duration::from_millis(30), |_| false);
        if app.jobs.live.as_ref().unwrap().batch.is_some() {
            let row = status_row(&mut app);
            // A batch run cannot pause, so its status line does not offer the key.
            assert!(!row.contains("p pause"), "{row}");
            if !paused_tried {
                // A batch run cannot pause; the key says why instead of pretending.
                app.press("p").unwrap();
                let live = app.jobs.live.as_ref().unwrap();
                assert!(!live.paused);
                assert!(
                    live.last_warning
                        .as_deref()
                        .is_some_and(|w| w.contains("a batch run does not pause")),
                    "{:?}",
                    live.last_warning
                );
                paused_tried = true;
            }
            shown.push(row);
        }
    }
    let live = app.jobs.live.as_ref().unwrap();
    assert_eq!(
        live.ended,
        Some(autoeval::tui::live::LiveEnd::Finished),
        "{shown:?}"
    );
    // The status line showed each stage's batch, in progress and then done, with its
    // counts, and never as a warning.
    let ids: std::collections::BTreeSet<&str> = shown
        .iter()
        .filter_map(|r| {
            let at = r.find(" · batch batch_")? + " · batch ".len();
            r[at..].split(' ').next()
        })
        .collect();
    assert_eq!(
        ids.len(),
        2,
        "the informalization and the autoformalization batch: {shown:?}"
    );
    for id in &ids {
        assert!(
            shown
                .iter()
                .any(|r| r.contains(&format!("batch {id} in_progress 0/6 · "))),
            "{shown:?}"
        );
    }
    assert!(
        shown.iter().all(|r| !r.contains("batch status:")),
        "{shown:?}"
    );
    // Once the run ends the batch state goes; the last line says finished.
    assert_eq!(live.batch, None);
    let row = status_row(&mut app);
    assert!(row.starts_with("finished · 6/6"), "{row}");
    assert!(!row.contains("batch_"), "{row}");
    let recs = samples(&out);
    assert_eq!(recs.len(), 6);
    assert!(recs.iter().all(|r| r["verdict"]["verdict"] == "equivalent"));
    let ids = bs.submitted();
    assert_eq!(
        ids.len(),
        12,
        "one informalization and one autoformalization each"
    );
    assert_each_submitted_once(&ids);
    let m: Value = common::manifest(&out);
    assert_eq!(m["status"], "finished");
    assert_eq!(m["batch"], "api");
    let cmd: Vec<&str> = m["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        cmd.windows(2).any(|w| w == ["--batch-poll", "0.05"]) && cmd.contains(&"--batch-api"),
        "{cmd:?}"
    );
}

#[test]
fn a_viewer_batch_run_cancels_its_batches_and_resumes_without_submitting_twice() {
    let bs = BatchServer::start(Behaviour::default());
    bs.hold.store(true, Ordering::SeqCst);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("viewer-cancel");
    let mut app = viewer_batch_run(&bs.server.base, tmp.path(), &out);
    assert!(
        app.pump_until(std::time::Duration::from_secs(30), |a| {
            a.jobs.live.as_ref().unwrap().batch.is_some()
        }),
        "no batch status"
    );
    app.press("C").unwrap();
    app.press("y").unwrap();
    assert!(app.pump_until(std::time::Duration::from_secs(30), |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    }));
    let live = app.jobs.live.as_ref().unwrap();
    assert_eq!(live.ended, Some(autoeval::tui::live::LiveEnd::Cancelled));
    assert_eq!(live.batch, None, "no batch state after the end");
    assert!(
        bs.all_cancelled(),
        "the open batch was cancelled at the provider"
    );
    let m: Value = common::manifest(&out);
    assert_eq!(m["status"], "cancelled");
    let before = bs.submitted();
    assert_eq!(before.len(), 6);
    // Starting the form again on the same folder resumes: it re-attaches to the
    // cancelled batch, collects its (cancelled) answers, and submits nothing twice.
    bs.hold.store(false, Ordering::SeqCst);
    app.press("R").unwrap();
    fill_form(&mut app, &bs.server.base, &out);
    assert!(
        app.form().unwrap().command.contains("--resume"),
        "{}",
        app.form().unwrap().command
    );
    app.press("enter").unwrap();
    assert!(app.pump_until(std::time::Duration::from_secs(30), |a| {
        a.jobs.live.as_ref().unwrap().ended.is_some()
    }));
    assert_eq!(
        app.jobs.live.as_ref().unwrap().ended,
        Some(autoeval::tui::live::LiveEnd::Finished)
    );
    assert_each_submitted_once(&bs.submitted());
    assert_eq!(bs.submitted()[..6], before[..]);
    let recs = samples(&out);
    assert_eq!(recs.len(), 6, "every sample written once");
}

#[test]
fn a_batch_billing_more_than_it_reserved_stops_the_run_and_is_recorded() {
    // 10 million prompt tokens a request at $1/Mtok, half price: $5 each, against a
    // worst case of well under a cent.
    let bs = BatchServer::start(Behaviour {
        prompt_tokens: Some(10_000_000),
        ..Behaviour::default()
    });
    let (_tmp, price, out) = common::batch_scratch();
    let o = bs
        .run(&out, &price, &["--max-cost", "1000"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("more than the $"), "{err}");
    let first_stage = bs.submitted();
    assert!(!first_stage.is_empty());
    assert!(
        first_stage.iter().all(|c| c.ends_with("_i")),
        "no stage after the overrun: {first_stage:?}"
    );
    let billed = first_stage.len() as f64 * (10_000_000.0 + 20.0 * 10.0) / 1e6 * 0.5;
    let lines: Vec<Value> = std::fs::read_to_string(out.join("spend.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), first_stage.len());
    assert!(
        lines
            .iter()
            .all(|l| l["kind"] == "batch" && l["overrun"] == true)
    );
    let ledgered: f64 = lines.iter().filter_map(|l| l["cost_usd"].as_f64()).sum();
    assert!(ledgered + 1e-9 >= billed, "{ledgered} < {billed}");
    let o = common::cli::bin()
        .args(["report", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&common::cli::ok(&o)).unwrap();
    assert!(v["runs"][0]["cost_usd"].as_f64().unwrap() + 1e-9 >= billed);
}
