//! Provider batch jobs: OpenAI-compatible files + batches, and Anthropic Message
//! Batches. Request lines, result lines (also vLLM `run-batch` output), and the HTTP.

use super::batch_download::{SaveError, ScrubbedLines};
use super::endpoint::Endpoint;
use super::{ChatRequest, Completion, LlmError, post_json, scrub, scrub_json, transport_error};
use serde_json::{Value, json};
use std::path::Path;

/// Which batch API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// `POST /files` + `POST /batches` (OpenAI, and vLLM's file format).
    Openai,
    /// `POST /v1/messages/batches`.
    Anthropic,
}

impl Provider {
    /// Most requests one batch may hold.
    pub(crate) fn max_requests(self) -> usize {
        match self {
            Provider::Openai => 50_000,
            Provider::Anthropic => 100_000,
        }
    }

    /// Most bytes of one batch's requests.
    pub(crate) fn max_bytes(self) -> usize {
        match self {
            Provider::Openai => 200 << 20,
            Provider::Anthropic => 256 << 20,
        }
    }
}

/// One request line (JSON, no newline) in the provider's batch format; the body is the
/// one a live call sends, from the same request profile.
pub(crate) fn request_line(
    provider: Provider,
    model: &str,
    custom_id: &str,
    req: &ChatRequest,
) -> String {
    match provider {
        Provider::Openai => json!({
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": super::openai::body(model, req),
        }),
        Provider::Anthropic => json!({
            "custom_id": custom_id,
            "params": super::anthropic::body(model, req),
        }),
    }
    .to_string()
}

/// A request's outcome in a result file: the answer, or why there is none.
pub(crate) type LineResult = Result<Completion, String>;

fn openai_completion(body: &Value, tags: &[&str]) -> LineResult {
    super::openai::parse_with(body, tags).map_err(|e| e.message)
}

fn anthropic_completion(msg: &Value, tags: &[&str]) -> LineResult {
    super::anthropic::parse_with(msg, tags).map_err(|e| e.message)
}

fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    s.chars().take(300).collect()
}

/// Parses one line of a result file: OpenAI batch output or error files (also vLLM
/// `run-batch` output), or Anthropic Message Batch results. Strings are scrubbed of
/// `key`; inline reasoning blocks under `tags` are read apart, as in live calls. `Err`
/// when the line is not a result line at all.
pub(crate) fn parse_result_line(
    line: &str,
    key: Option<&str>,
    tags: &[&str],
) -> Result<(String, LineResult), String> {
    let mut v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    scrub_json(&mut v, key);
    let id = v["custom_id"].as_str().ok_or("no custom_id")?.to_string();
    if let Some(result) = v.get("result") {
        let r = match result["type"].as_str() {
            Some("succeeded") => anthropic_completion(&result["message"], tags),
            Some("errored") => {
                let e = &result["error"];
                let m = if e["error"]["message"].is_null() {
                    &e["message"]
                } else {
                    &e["error"]["message"]
                };
                Err(format!("batch request errored: {}", short(m)))
            }
            Some("canceled") => Err("batch request canceled".into()),
            Some("expired") => Err("batch request expired before it ran".into()),
            other => Err(format!("unknown batch result type {other:?}")),
        };
        return Ok((id, r));
    }
    if let Some(resp) = v.get("response").filter(|r| !r.is_null()) {
        let status = resp["status_code"].as_u64().unwrap_or(0);
        if (200..300).contains(&status) {
            return Ok((id, openai_completion(&resp["body"], tags)));
        }
        let msg = short(&resp["body"]["error"]["message"]);
        return Ok((
            id,
            Err(format!("batch request failed: HTTP {status}: {msg}")),
        ));
    }
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        let code = short(&err["code"]);
        let msg = short(&err["message"]);
        let what = if code.contains("expired") {
            "batch request expired before it ran"
        } else {
            "batch request failed"
        };
        return Ok((id, Err(format!("{what}: {code} {msg}").trim().to_string())));
    }
    Err("neither a response, an error nor a result".into())
}

/// A batch as the provider reports it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BatchInfo {
    /// Provider's batch id.
    pub id: String,
    /// Provider's status word (`in_progress`, `completed`, `expired`, `ended`, …).
    pub status: String,
    /// No more change will come: results can be read.
    pub terminal: bool,
    /// Requests in the batch.
    pub total: u64,
    /// Requests answered.
    pub succeeded: u64,
    /// Requests failed, expired or canceled.
    pub failed: u64,
    /// OpenAI: output file id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_file: Option<String>,
    /// OpenAI: error file id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_file: Option<String>,
    /// Anthropic: where the results are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_url: Option<String>,
}

fn openai_info(v: &Value) -> BatchInfo {
    let status = v["status"].as_str().unwrap_or("unknown").to_string();
    let c = &v["request_counts"];
    BatchInfo {
        id: v["id"].as_str().unwrap_or_default().to_string(),
        terminal: matches!(
            status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        ),
        status,
        total: c["total"].as_u64().unwrap_or(0),
        succeeded: c["completed"].as_u64().unwrap_or(0),
        failed: c["failed"].as_u64().unwrap_or(0),
        output_file: v["output_file_id"].as_str().map(str::to_string),
        error_file: v["error_file_id"].as_str().map(str::to_string),
        results_url: None,
    }
}

fn anthropic_info(v: &Value) -> BatchInfo {
    let status = v["processing_status"]
        .as_str()
        .unwrap_or("unknown")
        .to_string();
    let c = &v["request_counts"];
    let n = |k: &str| c[k].as_u64().unwrap_or(0);
    BatchInfo {
        id: v["id"].as_str().unwrap_or_default().to_string(),
        terminal: status == "ended",
        status,
        total: n("processing") + n("succeeded") + n("errored") + n("canceled") + n("expired"),
        succeeded: n("succeeded"),
        failed: n("errored") + n("canceled") + n("expired"),
        output_file: None,
        error_file: None,
        results_url: v["results_url"].as_str().map(str::to_string),
    }
}

/// A batch API endpoint (base URL, model, key).
#[derive(Debug)]
pub struct BatchApi {
    /// Which API.
    pub provider: Provider,
    /// Where and as whom.
    pub ep: Endpoint,
}

impl BatchApi {
    fn auth(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match (self.provider, &self.ep.key) {
            (Provider::Openai, Some(k)) => rb.bearer_auth(k),
            (Provider::Anthropic, Some(k)) => rb
                .header("x-api-key", k)
                .header("anthropic-version", "2023-06-01"),
            (Provider::Anthropic, None) => rb.header("anthropic-version", "2023-06-01"),
            (Provider::Openai, None) => rb,
        }
    }

    fn url(&self, path: &str) -> String {
        match self.provider {
            // OpenAI-compatible bases end in /v1 already.
            Provider::Openai => self.ep.url(path),
            Provider::Anthropic => self.ep.url(&format!("/v1{path}")),
        }
    }

    /// Submits one batch of request lines; returns the provider's batch.
    pub(crate) async fn submit(&self, lines: &[String]) -> Result<BatchInfo, LlmError> {
        match self.provider {
            Provider::Openai => {
                // multipart/form-data: purpose=batch and the JSONL file.
                let mut body = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
                for l in lines {
                    body.extend_from_slice(l.as_bytes());
                    body.push(b'\n');
                }
                let file = reqwest::multipart::Part::bytes(body)
                    .file_name("autoeval-batch.jsonl")
                    .mime_str("application/jsonl")
                    .map_err(|e| LlmError::fatal(format!("the batch file part: {e}")))?;
                let form = reqwest::multipart::Form::new()
                    .text("purpose", "batch")
                    .part("file", file);
                let rb = self.ep.http.post(self.url("/files")).multipart(form);
                let file = post_json(self.auth(rb), &self.ep).await?;
                let file_id = file["id"]
                    .as_str()
                    .ok_or_else(|| LlmError::fatal("the file upload answered no id"))?;
                let rb = self.ep.http.post(self.url("/batches")).json(&json!({
                    "input_file_id": file_id,
                    "endpoint": "/v1/chat/completions",
                    "completion_window": "24h",
                }));
                let v = post_json(self.auth(rb), &self.ep).await?;
                Ok(openai_info(&v)).and_then(need_id)
            }
            Provider::Anthropic => {
                let mut body = String::from("{\"requests\":[");
                for (i, l) in lines.iter().enumerate() {
                    if i > 0 {
                        body.push(',');
                    }
                    body.push_str(l);
                }
                body.push_str("]}");
                let rb = self
                    .ep
                    .http
                    .post(self.url("/messages/batches"))
                    .header("content-type", "application/json")
                    .body(body);
                let v = post_json(self.auth(rb), &self.ep).await?;
                Ok(anthropic_info(&v)).and_then(need_id)
            }
        }
    }

    /// The batch's current state.
    pub async fn status(&self, id: &str) -> Result<BatchInfo, LlmError> {
        let path = match self.provider {
            Provider::Openai => format!("/batches/{id}"),
            Provider::Anthropic => format!("/messages/batches/{id}"),
        };
        let rb = self.ep.http.get(self.url(&path));
        let v = post_json(self.auth(rb), &self.ep).await?;
        let info = match self.provider {
            Provider::Openai => openai_info(&v),
            Provider::Anthropic => anthropic_info(&v),
        };
        if info.id != id {
            return Err(LlmError::fatal(format!(
                "asked for batch {id}, the provider answered about another one"
            )));
        }
        need_id(info)
    }

    /// Asks the provider to cancel the batch.
    pub async fn cancel(&self, id: &str) -> Result<(), LlmError> {
        let path = match self.provider {
            Provider::Openai => format!("/batches/{id}/cancel"),
            Provider::Anthropic => format!("/messages/batches/{id}/cancel"),
        };
        let rb = self.ep.http.post(self.url(&path)).json(&json!({}));
        post_json(self.auth(rb), &self.ep).await.map(|_| ())
    }

    /// Downloads a finished batch's result lines (output and error files) into `dest`.
    /// Downloads the results of a finished batch into `dest`, every line scrubbed of
    /// the key, at most `cap` bytes in all and `line_cap` a line (see
    /// [`super::batch_download`]). `Ok(Err(_))`: the file passed its cap and is not to
    /// be fetched again; `Err(_)`: a failure worth another try at the next poll.
    pub(crate) async fn download(
        &self,
        info: &BatchInfo,
        dest: &Path,
        cap: u64,
        line_cap: u64,
    ) -> Result<Result<u64, String>, LlmError> {
        let file = crate::base::fswrite::room::create(dest)
            .map_err(|e| LlmError::fatal(format!("{}: {e}", dest.display())))?;
        let urls: Vec<String> = match self.provider {
            Provider::Openai => [&info.output_file, &info.error_file]
                .into_iter()
                .flatten()
                .map(|f| self.url(&format!("/files/{f}/content")))
                .collect(),
            // The key goes with the request: follow results_url only to our own origin.
            Provider::Anthropic => info
                .results_url
                .clone()
                .filter(|u| same_origin(u, &self.ep.base))
                .or_else(|| Some(self.url(&format!("/messages/batches/{}/results", info.id))))
                .into_iter()
                .collect(),
        };
        let mut w = ScrubbedLines::new(
            std::io::BufWriter::new(file),
            self.ep.key.as_deref(),
            cap,
            usize::try_from(line_cap).unwrap_or(usize::MAX),
        );
        let mut bytes = 0u64;
        for url in urls {
            match self.stream_to(&url, &mut w).await? {
                Ok(n) => bytes += n,
                Err(SaveError::OverCap(c)) => {
                    drop(w);
                    // Nothing of a file over its cap is kept.
                    let _ = std::fs::remove_file(dest);
                    return Ok(Err(SaveError::OverCap(c).to_string()));
                }
                Err(e @ SaveError::Io(_)) => return Err(LlmError::fatal(e.to_string())),
            }
        }
        let file = w
            .into_inner()
            .map_err(|e| LlmError::fatal(e.to_string()))?
            .into_inner()
            .map_err(|e| LlmError::fatal(format!("{}: {e}", dest.display())))?;
        file.sync_all()
            .map_err(|e| LlmError::fatal(format!("{}: {e}", dest.display())))?;
        Ok(Ok(bytes))
    }

    async fn stream_to<W: std::io::Write>(
        &self,
        url: &str,
        w: &mut ScrubbedLines<'_, W>,
    ) -> Result<Result<u64, SaveError>, LlmError> {
        let key = self.ep.key.as_deref();
        let rb = self.auth(self.ep.http.get(url));
        let mut resp = rb.send().await.map_err(|e| transport_error(&e))?;
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            let text = resp.text().await.unwrap_or_default();
            return Err(super::status_error(
                status,
                &scrub(&text, key),
                None,
                Some(&self.ep.key_env),
            ));
        }
        let mut n = 0u64;
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    if let Err(e) = w.push(&c) {
                        return Ok(Err(e));
                    }
                    n += c.len() as u64;
                }
                Ok(None) => break,
                Err(e) => {
                    let mut err = transport_error(&e);
                    err.retryable = true;
                    return Err(err);
                }
            }
        }
        // The output and error files are concatenated: keep lines apart.
        Ok(w.end_file().map(|()| n))
    }
}

/// Whether `url` has the scheme, host and port of `base`.
fn same_origin(url: &str, base: &str) -> bool {
    match (reqwest::Url::parse(url), reqwest::Url::parse(base)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin(),
        _ => false,
    }
}

/// Ids go into URL paths: only letters, digits, `-`, `_` and `.` (no `..`).
fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && !id.contains("..")
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn need_id(info: BatchInfo) -> Result<BatchInfo, LlmError> {
    let files = [&info.output_file, &info.error_file];
    if !safe_id(&info.id)
        || files
            .iter()
            .any(|f| f.as_deref().is_some_and(|f| !safe_id(f)))
    {
        Err(LlmError::fatal(format!(
            "the provider answered a batch id that is not usable: {:?}",
            info.id.chars().take(80).collect::<String>()
        )))
    } else {
        Ok(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::reasoning::DEFAULT_TAGS as TAGS;

    #[test]
    fn result_lines_of_both_providers_and_vllm() {
        let ok = r#"{"id":"r1","custom_id":"7_r1_i","response":{"status_code":200,"body":{"choices":[{"message":{"content":"psi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}},"error":null}"#;
        let (id, r) = parse_result_line(ok, None, &TAGS).unwrap();
        assert_eq!(id, "7_r1_i");
        assert_eq!(r.unwrap().output_tokens, 2);
        let expired = r#"{"id":"r2","custom_id":"8_r1_i","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#;
        assert!(
            parse_result_line(expired, None, &TAGS)
                .unwrap()
                .1
                .unwrap_err()
                .contains("expired")
        );
        let http = r#"{"custom_id":"9_r1_a","response":{"status_code":400,"body":{"error":{"message":"bad sk-secret-key-1234"}}}}"#;
        let e = parse_result_line(http, Some("sk-secret-key-1234"), &TAGS)
            .unwrap()
            .1
            .unwrap_err();
        assert!(e.contains("HTTP 400") && !e.contains("sk-secret"), "{e}");
        let anth = r#"{"custom_id":"1_r2_a","result":{"type":"succeeded","message":{"content":[{"type":"text","text":"p1"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}}}"#;
        assert_eq!(
            parse_result_line(anth, None, &TAGS)
                .unwrap()
                .1
                .unwrap()
                .text,
            "p1"
        );
        let err = r#"{"custom_id":"2_r1_i","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"too long"}}}}"#;
        assert!(
            parse_result_line(err, None, &TAGS)
                .unwrap()
                .1
                .unwrap_err()
                .contains("too long")
        );
        assert!(parse_result_line("{}", None, &TAGS).is_err());
        assert!(parse_result_line("nope", None, &TAGS).is_err());
    }

    #[test]
    fn results_urls_elsewhere_are_not_followed_with_the_key() {
        assert!(same_origin("https://api.x.com/v1/r", "https://api.x.com"));
        assert!(!same_origin("https://evil.example/r", "https://api.x.com"));
        assert!(!same_origin("http://api.x.com/r", "https://api.x.com"));
    }

    #[test]
    fn request_lines_carry_the_sampling_parameters() {
        let r = ChatRequest::plain("hi", 0.0, 9);
        let o: Value =
            serde_json::from_str(&request_line(Provider::Openai, "m", "1_r1_i", &r)).unwrap();
        assert_eq!(o["url"], "/v1/chat/completions");
        assert_eq!(o["body"]["max_tokens"], 9);
        let a: Value =
            serde_json::from_str(&request_line(Provider::Anthropic, "m", "1_r1_i", &r)).unwrap();
        assert_eq!(a["params"]["messages"][0]["content"], "hi");
    }
}
