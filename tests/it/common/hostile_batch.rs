//! An OpenAI-style batch server that attacks: it echoes the key and serves endless
//! result files (issue 37). Shared by `tests/it/batch_hostile.rs` and the download bench.

use super::{FakeModel, Reply, Request, Server, openai_body};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const KEY: &str = "sk-never-written-4";

#[derive(Clone, Copy, Default)]
pub struct Hostile {
    /// Every result line and the error file carry the request's Authorization header.
    pub echo_key: bool,
    /// The output file goes on with this many bytes of junk lines after the answers.
    pub junk: usize,
    /// Each output file is served only after this long (a download that hangs).
    pub stall: std::time::Duration,
    /// Every request is answered twice in the output file, the second time otherwise.
    pub twice: bool,
}

#[derive(Default)]
pub struct World {
    pub files: HashMap<String, String>,
    pub batches: HashMap<String, Vec<(String, String)>>,
    /// Downloads served, by file id.
    pub downloads: HashMap<String, usize>,
    /// While set, every status check of a batch gets this HTTP status (404: deleted).
    pub status_fails: Option<u16>,
    /// While set, status checks fail with 500 once this many batches were created (a
    /// provider that goes away in the middle of a run).
    pub status_fails_from: Option<usize>,
    pub n: usize,
}

fn file_of_multipart(body: &str) -> String {
    let after = &body[body.find("filename=").unwrap()..];
    let content = &after[after.find("\r\n\r\n").unwrap() + 4..];
    content[..content.rfind("\r\n--").unwrap()].to_string()
}

pub fn start(how: Hostile) -> (Server, Arc<Mutex<World>>) {
    let world = Arc::new(Mutex::new(World::default()));
    let model = FakeModel::new();
    let w = world.clone();
    let server = Server::start(move |_, r: &Request| {
        let mut w = w.lock().unwrap();
        let path = r.path.trim_start_matches("/v1");
        let auth = r.headers.get("authorization").cloned().unwrap_or_default();
        let ok = |v: Value| Reply::json(200, v.to_string());
        let done = |id: &str| {
            json!({"id": id, "object": "batch", "status": "completed",
                   "request_counts": {"total": 1, "completed": 1, "failed": 0},
                   "output_file_id": format!("{id}-out"), "error_file_id": format!("{id}-err")})
        };
        match (r.method.as_str(), path) {
            ("POST", "/files") => {
                w.n += 1;
                let id = format!("file-{}", w.n);
                w.files.insert(id.clone(), file_of_multipart(&r.body));
                ok(json!({"id": id, "object": "file"}))
            }
            ("POST", "/batches") => {
                let v: Value = serde_json::from_str(&r.body).unwrap();
                let reqs = w.files[v["input_file_id"].as_str().unwrap()]
                    .lines()
                    .map(|l| {
                        let q: Value = serde_json::from_str(l).unwrap();
                        let p = q["body"]["messages"][0]["content"].as_str().unwrap();
                        (q["custom_id"].as_str().unwrap().to_string(), p.to_string())
                    })
                    .collect();
                w.n += 1;
                let id = format!("batch_{}", w.n);
                w.batches.insert(id.clone(), reqs);
                ok(done(&id))
            }
            ("GET", p) if p.starts_with("/files/") => {
                let id = p.trim_start_matches("/files/").trim_end_matches("/content");
                *w.downloads.entry(id.to_string()).or_default() += 1;
                let (bid, which) = id.rsplit_once('-').unwrap();
                if which == "err" {
                    let body = if how.echo_key {
                        json!({"custom_id": "x_r1_i", "error": {"message": format!("bad key {auth}")}})
                            .to_string()
                    } else {
                        String::new()
                    };
                    return Reply::json(200, body);
                }
                let mut out = String::new();
                for (cid, prompt) in &w.batches[bid] {
                    let body: Value =
                        serde_json::from_str(&openai_body(&model.answer(prompt))).unwrap();
                    let mut line = json!({"id": "r", "custom_id": cid, "response": {"status_code": 200, "body": body}, "error": null});
                    if how.echo_key {
                        line["echo"] = json!(auth);
                        line["response"]["body"]["system_fingerprint"] = json!(auth);
                    }
                    out.push_str(&line.to_string());
                    out.push('\n');
                    if how.twice {
                        let body: Value =
                            serde_json::from_str(&openai_body("Statement number 999.")).unwrap();
                        line["response"]["body"] = body;
                        out.push_str(&line.to_string());
                        out.push('\n');
                    }
                }
                let junk = format!("{{\"junk\": \"{}\"}}\n", "z".repeat(1000));
                while out.len() < how.junk {
                    out.push_str(&junk);
                }
                let mut reply = Reply::json(200, out);
                reply.delay = how.stall;
                reply
            }
            ("GET", _)
                if w.status_fails.is_some()
                    || w.status_fails_from.is_some_and(|n| w.batches.len() >= n) =>
            {
                Reply::json(
                    w.status_fails.unwrap_or(500),
                    "{\"error\": {\"message\": \"No batch found\"}}".into(),
                )
            }
            ("GET", p) => ok(done(p.trim_start_matches("/batches/"))),
            ("POST", _) => ok(json!({})),
            _ => Reply::json(404, "{}".into()),
        }
    });
    (server, world)
}
