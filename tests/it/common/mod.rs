//! Shared test helpers: the isolated binary ([`cli`]), and a real HTTP/1.1 server on
//! 127.0.0.1 with scripted replies, keep-alive and injected faults that speaks enough
//! of OpenAI's and Anthropic's wire formats.
#![allow(dead_code)]

pub mod cli;
pub mod fixtures;
pub mod hostile_batch;
pub mod providers;
#[cfg(feature = "bertscore")]
pub mod tiny_bert;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A received request.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: String,
}

/// A reply to send.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
    /// Send only this many bytes of the body (the full length is declared), then
    /// close the connection: a reset mid-body.
    pub cut_after: Option<usize>,
}

impl Reply {
    pub fn json(status: u16, body: String) -> Reply {
        Reply {
            status,
            headers: vec![],
            body,
            delay: Duration::ZERO,
            cut_after: None,
        }
    }
}

type Handler = dyn Fn(usize, &Request) -> Reply + Send + Sync;

/// A running server; its thread ends with the process.
pub struct Server {
    pub base: String,
    pub hits: Arc<AtomicUsize>,
    pub requests: Arc<Mutex<Vec<Request>>>,
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

impl Server {
    pub fn start(handler: impl Fn(usize, &Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let hits = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (h2, r2) = (hits.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (handler, hits, requests) = (handler.clone(), h2.clone(), r2.clone());
                std::thread::spawn(move || {
                    // Without this, head and body in separate segments stall 40 ms on delayed ACKs.
                    let _ = stream.set_nodelay(true);
                    let Ok(mut writer) = stream.try_clone() else {
                        return;
                    };
                    let mut reader = BufReader::new(stream);
                    while let Some(req) = read_request(&mut reader) {
                        let n = hits.fetch_add(1, Ordering::SeqCst);
                        requests.lock().unwrap().push(req.clone());
                        let reply = handler(n, &req);
                        std::thread::sleep(reply.delay);
                        let mut head = format!(
                            "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                            reply.status,
                            reason(reply.status),
                            reply.body.len()
                        );
                        for (k, v) in &reply.headers {
                            head.push_str(&format!("{k}: {v}\r\n"));
                        }
                        head.push_str("\r\n");
                        if let Some(n) = reply.cut_after {
                            let _ = writer.write_all(head.as_bytes());
                            let _ =
                                writer.write_all(&reply.body.as_bytes()[..n.min(reply.body.len())]);
                            let _ = writer.shutdown(std::net::Shutdown::Both);
                            return;
                        }
                        if writer.write_all(head.as_bytes()).is_err()
                            || writer.write_all(reply.body.as_bytes()).is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        Server {
            base,
            hits,
            requests,
        }
    }
}

/// OpenAI chat-completions reply body.
pub fn openai_body(content: &str) -> String {
    serde_json::json!({
        "id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
    .to_string()
}

/// Anthropic messages reply body.
pub fn anthropic_body(content: &str) -> String {
    serde_json::json!({
        "id": "m", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": content}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 90, "output_tokens": 10}
    })
    .to_string()
}

/// The prompt text of a request in either wire format.
pub fn prompt_of(req: &Request) -> String {
    let v: serde_json::Value = serde_json::from_str(&req.body).unwrap_or_default();
    v["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A deterministic fake model: informalization answers "Statement number N." and
/// remembers the formula; autoformalization of that text answers the formula in a
/// code fence (so extraction is exercised).
pub struct FakeModel {
    memory: Mutex<Vec<String>>,
}

impl FakeModel {
    pub fn new() -> Arc<FakeModel> {
        Arc::new(FakeModel {
            memory: Mutex::new(Vec::new()),
        })
    }

    /// The text of a prompt's `[NAME]` block.
    pub fn block_pub<'a>(prompt: &'a str, name: &str) -> Option<&'a str> {
        Self::block(prompt, name)
    }

    fn block<'a>(prompt: &'a str, name: &str) -> Option<&'a str> {
        let i = prompt.rfind(name)?;
        let rest = &prompt[i + name.len()..];
        Some(rest[..rest.find("\n[").unwrap_or(rest.len())].trim())
    }

    pub fn answer(&self, prompt: &str) -> String {
        if let Some(d) = Self::block(prompt, "[NL DESCRIPTION]") {
            let n: usize = d
                .trim_start_matches("Statement number ")
                .trim_end_matches('.')
                .parse()
                .unwrap_or(usize::MAX);
            let mem = self.memory.lock().unwrap();
            return match mem.get(n) {
                Some(f) => format!("Here it is:\n```\n{f}\n```"),
                None => "no idea".into(),
            };
        }
        if let Some(f) = Self::block(prompt, "[FORMULA]") {
            let mut mem = self.memory.lock().unwrap();
            mem.push(f.to_string());
            return format!("Statement number {}.", mem.len() - 1);
        }
        "[Answer] yes".into()
    }
}

/// A server that answers like a model after `delay_ms`.
pub fn fake_server(delay_ms: u64) -> Server {
    let model = FakeModel::new();
    Server::start(move |_, r| Reply {
        delay: Duration::from_millis(delay_ms),
        ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    })
}

/// The parsed lines of a run's samples.jsonl.
pub fn samples(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `autoeval run` of a small PL dataset (seed 3) with `model` at `base_url` into `out`,
/// the provider's key (`key`: variable, placeholder value) set.
pub fn pl_run(
    base_url: &str,
    out: &Path,
    model: &str,
    key: (&str, &str),
    extra: &[&str],
) -> std::process::Command {
    let mut c = cli::bin();
    c.args(["run", "--kind", "pl", "--per-category", "1", "--seed", "3"])
        .args(["--model", model, "--quiet", "--base-url", base_url])
        .arg("--out")
        .arg(out)
        .args(extra)
        .env(key.0, key.1)
        // Each run's own response cache: tests never share answers or touch the user's cache.
        .env("AUTOEVAL_CACHE_DIR", format!("{}.cache", out.display()));
    c
}

/// `autoeval run` on a small PL dataset against `base`.
pub fn run_cmd(base: &str, out: &Path, extra: &[&str]) -> std::process::Command {
    model_run(base, out, "openai:fake", extra)
}

/// A run's `run.json`, parsed.
pub fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

/// Writes a dataset file at `path` with `data` as its items (filtered by operator
/// count, as generated PL and FOL files are).
pub fn write_dataset(path: &Path, data: serde_json::Value) {
    let file = serde_json::json!({
        "info": {"type": "dataset", "filter_field": "num_operators"},
        "data": data,
    });
    std::fs::write(path, file.to_string()).unwrap();
}

/// `autoeval run` of a small PL dataset (seed 3) with `model` against `base` (its API
/// at `/v1`) into `out`; the provider's key is a placeholder.
pub fn model_run(base: &str, out: &Path, model: &str, extra: &[&str]) -> std::process::Command {
    let key = if model.starts_with("anthropic:") {
        ("ANTHROPIC_API_KEY", "sk-ant-never-written")
    } else {
        ("OPENAI_API_KEY", "sk-never-written-4")
    };
    pl_run(&format!("{base}/v1"), out, model, key, extra)
}

/// [`model_run`], which must succeed: its standard error.
pub fn model_run_ok(base: &str, out: &Path, model: &str, extra: &[&str]) -> String {
    cli::ok_stderr(&model_run(base, out, model, extra).output().unwrap())
}

/// Writes `prices` (a prices file's JSON) to `dir/prices.json`; its path.
pub fn write_prices(dir: &Path, prices: &str) -> PathBuf {
    let p = dir.join("prices.json");
    std::fs::write(&p, prices).unwrap();
    p
}

/// Prices of model `fake` with batches at half price, as the batch tests bill them.
pub const BATCH_PRICES: &str = r#"{"fake": {"input": 1.0, "output": 10.0, "batch": 0.5}}"#;

/// A fresh folder with [`BATCH_PRICES`] in it (the file's path as a flag value), and
/// where a run goes there.
pub fn batch_scratch() -> (tempfile::TempDir, String, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let price = write_prices(tmp.path(), BATCH_PRICES).display().to_string();
    let out = tmp.path().join("run");
    (tmp, price, out)
}
