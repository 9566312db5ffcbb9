//! What a batch run keeps in its directory: the batches it submitted and their states
//! (`batches.jsonl`), and every answer they brought back (`batch-results.jsonl`).

use super::super::store::{self, Appender, StoreError};
use crate::llm::batch_api::{BatchInfo, LineResult, Provider};
use crate::run::fit;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Batch log file name.
pub(crate) const BATCHES: &str = "batches.jsonl";
/// Normalised results file name.
pub(crate) const RESULTS: &str = "batch-results.jsonl";
/// Folder of downloaded result files, kept as the provider sent them.
pub(crate) const DOWNLOADS: &str = "batches";

/// One line of `batches.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BatchEvent {
    /// `submitted`, `state`, `ingested`, `cancel-requested` or `written` (a request file).
    pub event: String,
    /// Provider's batch id (or `file:<path>` for request files).
    pub batch_id: String,
    /// Which API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The provider's state, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<BatchInfo>,
    /// With `submitted` and `written`: the custom ids it holds (`sample_rROUND_i|a`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custom_ids: Vec<String>,
    /// With `submitted`: its worst-case cost reserved against `--max-cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_usd: Option<f64>,
    /// When.
    pub time: String,
}

/// One line of `batch-results.jsonl`: the outcome of one request.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct StoredResult {
    /// `sample_rROUND_i|a`.
    pub custom_id: String,
    /// Where it came from: a batch id, `file:<name>`, or `cache`.
    pub batch_id: String,
    /// The answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Prompt tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Answer tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Finish reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Why there is no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Answered from the response cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// The reasoning returned with the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Reasoning tokens, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Reasoning came back redacted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasoning_redacted: bool,
    /// Stopped at the token limit before an answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl StoredResult {
    /// From a parsed result line.
    pub(crate) fn from_line(custom_id: String, batch_id: &str, r: LineResult) -> StoredResult {
        let mut s = StoredResult {
            custom_id,
            batch_id: batch_id.to_string(),
            output: None,
            input_tokens: 0,
            output_tokens: 0,
            finish_reason: None,
            error: None,
            cached: false,
            reasoning: None,
            reasoning_tokens: None,
            reasoning_redacted: false,
            truncated: false,
        };
        match r {
            Ok(c) => {
                s.output = Some(c.text);
                s.input_tokens = c.input_tokens;
                s.output_tokens = c.output_tokens;
                s.finish_reason = c.finish_reason;
                s.reasoning = c.reasoning;
                s.reasoning_tokens = c.reasoning_tokens;
                s.reasoning_redacted = c.reasoning_redacted;
                s.truncated = c.truncated;
            }
            Err(e) => s.error = Some(e),
        }
        s
    }
}

/// A batch that was submitted and whose results are not in yet.
#[derive(Clone, Debug)]
pub struct Open {
    /// Which API.
    pub provider: Option<Provider>,
    /// Latest known state.
    pub info: BatchInfo,
    /// Its requests.
    pub custom_ids: Vec<String>,
    /// Reserved against the budget.
    pub reserved_usd: f64,
}

/// A batch run's state as read back from its directory.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Results by custom id (the latest line wins).
    pub results: HashMap<String, StoredResult>,
    /// Batches still open at the provider, in submission order.
    pub open: Vec<(String, Open)>,
    /// Warnings (torn lines skipped).
    pub warnings: Vec<String>,
    /// Custom ids of every request written to a request file (`--batch-file-out`).
    pub written: HashSet<String>,
}

impl State {
    /// Reads `batches.jsonl` and `batch-results.jsonl`. With `drop_errors` (a
    /// `--retry-errors` resume), failed results are forgotten so they are asked again.
    pub fn load(dir: &Path, drop_errors: bool) -> Result<State, StoreError> {
        let mut st = State::default();
        let results = store::read_jsonl::<StoredResult>(&dir.join(RESULTS))?;
        st.warnings.extend(results.warnings);
        for r in results.records {
            if drop_errors && r.error.is_some() {
                st.results.remove(&r.custom_id);
                continue;
            }
            st.results.insert(r.custom_id.clone(), r);
        }
        let events = store::read_jsonl::<BatchEvent>(&dir.join(BATCHES))?;
        st.warnings.extend(events.warnings);
        let mut closed: HashSet<String> = HashSet::new();
        let mut open: Vec<(String, Open)> = Vec::new();
        for e in events.records {
            match e.event.as_str() {
                "submitted" => open.push((
                    e.batch_id.clone(),
                    Open {
                        provider: e.provider,
                        info: e.info.unwrap_or_default(),
                        custom_ids: e.custom_ids,
                        reserved_usd: e.reserved_usd.unwrap_or(0.0),
                    },
                )),
                "state" | "cancel-requested" => {
                    if let (Some(o), Some(info)) =
                        (open.iter_mut().find(|(id, _)| *id == e.batch_id), e.info)
                    {
                        o.1.info = info;
                    }
                }
                "ingested" => {
                    closed.insert(e.batch_id);
                }
                "written" => st.written.extend(e.custom_ids),
                _ => {}
            }
        }
        open.retain(|(id, _)| !closed.contains(id));
        st.open = open;
        Ok(st)
    }

    /// Custom ids of the open batches (asked already: never asked again).
    pub(crate) fn in_flight(&self) -> HashSet<&str> {
        self.open
            .iter()
            .flat_map(|(_, o)| o.custom_ids.iter().map(String::as_str))
            .collect()
    }
}

/// Appends to the batch log, synced: a batch id is on disk before the run goes on.
pub fn log(dir: &Path, e: &BatchEvent) -> Result<(), StoreError> {
    let mut a = Appender::open(&dir.join(BATCHES))?;
    a.append(e)?;
    a.sync()
}

/// Appends results, synced.
pub(crate) fn save_results(dir: &Path, rs: &[StoredResult]) -> Result<(), StoreError> {
    if rs.is_empty() {
        return Ok(());
    }
    let mut a = Appender::open(&dir.join(RESULTS))?;
    for r in rs {
        match result_reasoning(r) {
            Some(cut) => a.append(&cut)?,
            None => a.append(r)?,
        }
    }
    a.sync()
}

/// A batch result whose line would pass [`fit::MAX_LINE`](crate::run::fit::MAX_LINE) with its reasoning cut to fit,
/// the cut said at the end of the text (the answer is kept whole); None if it fits.
fn result_reasoning(r: &StoredResult) -> Option<StoredResult> {
    let len = serde_json::to_vec(r).ok()?.len();
    if len <= fit::MAX_LINE {
        return None;
    }
    let mut r = r.clone();
    let text = r.reasoning.as_mut()?;
    let room = fit::json_size(text).saturating_sub(len - fit::MAX_LINE + fit::SLACK / 2);
    let whole = fit::cut(text, room);
    text.push_str(&format!(
        "\n[reasoning cut for storage: {} bytes in all, SHA-256 {}]",
        whole.bytes, whole.sha256
    ));
    Some(r)
}

pub use crate::run::job::custom_id;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_batches_are_those_not_ingested_and_errors_can_be_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let ev = |event: &str, id: &str, ids: &[&str]| BatchEvent {
            event: event.into(),
            batch_id: id.into(),
            provider: Some(Provider::Openai),
            info: None,
            custom_ids: ids.iter().map(ToString::to_string).collect(),
            reserved_usd: None,
            time: "t".into(),
        };
        log(dir.path(), &ev("submitted", "b1", &["1_r1_i"])).unwrap();
        log(dir.path(), &ev("submitted", "b2", &["2_r1_i"])).unwrap();
        log(dir.path(), &ev("ingested", "b1", &[])).unwrap();
        let ok = StoredResult::from_line("1_r1_i".into(), "b1", Err("expired".into()));
        save_results(dir.path(), &[ok]).unwrap();
        let st = State::load(dir.path(), false).unwrap();
        assert_eq!(st.open.len(), 1);
        assert!(st.in_flight().contains("2_r1_i"));
        assert!(st.results.contains_key("1_r1_i"));
        assert!(State::load(dir.path(), true).unwrap().results.is_empty());
    }
}
