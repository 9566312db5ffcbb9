//! Runs through provider batch jobs or batch files, stage by stage: every unfinished
//! sample is replayed against the answers in hand; the calls still missing (round r's
//! informalizations, then its autoformalizations) go out as one batch, split by the
//! provider's limits; when it ends, its answers are stored and the replay goes on.

mod adaptive;
mod collect;
mod exec;
mod replay;
pub mod state;

use super::driver::{Event, RunError, RunSpec};
use super::store;
use crate::llm::LlmError;
use crate::llm::batch_api::{self, BatchApi, BatchInfo, Provider};
use crate::llm::client::MAX_PLAUSIBLE_TOKENS;
use crate::record::now_rfc3339;
use collect::sanitize_id;
pub(crate) use exec::execute_on;
use replay::Replay;
use state::{BatchEvent, Open, State, StoredResult};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// Warnings that start with this are batch status lines, not problems.
pub(crate) const STATUS_PREFIX: &str = "batch status: ";

/// How a batch run talks to the model.
pub enum Mode {
    /// Submit to the provider's batch API and wait.
    Api(BatchApi),
    /// Exchange files: ingest `input` (a result file) if given, write the next
    /// requests to `out_dir` if given, and stop.
    Files {
        /// A result file (`vllm run-batch` output or any OpenAI batch output).
        input: Option<PathBuf>,
        /// Where request files go.
        out_dir: Option<PathBuf>,
    },
}

/// Batch settings.
pub struct BatchSpec {
    /// API or files.
    pub mode: Mode,
    /// Most requests per batch (or file).
    pub max_requests: usize,
    /// Most bytes per batch (or file).
    pub max_bytes: usize,
    /// Time between status polls.
    pub poll: Duration,
}

impl BatchSpec {
    /// Settings with the provider's limits where none are given; `poll_secs` must be a
    /// positive number of seconds.
    pub fn new(
        mode: Mode,
        max_requests: Option<usize>,
        max_bytes: Option<usize>,
        poll_secs: f64,
    ) -> Result<BatchSpec, String> {
        // A poll too long for a Duration is refused too (it would panic).
        let poll = Duration::try_from_secs_f64(poll_secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or("--batch-poll must be a positive number of seconds")?;
        let provider = match &mode {
            Mode::Api(api) => api.provider,
            Mode::Files { .. } => Provider::Openai,
        };
        Ok(BatchSpec {
            mode,
            max_requests: max_requests.unwrap_or(provider.max_requests()).max(1),
            max_bytes: max_bytes.unwrap_or(provider.max_bytes()).max(1),
            poll,
        })
    }
}

/// How a batch run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchOutcome {
    /// Every sample is written.
    Finished,
    /// Stopped (user, budget); resumable.
    Cancelled,
    /// Stopped because the provider could not be reached or refused a submission
    /// (exit 75, as a live run whose server is gone); resumable.
    Unreachable,
    /// Request files were written (or answers are missing): run again with `--batch-file-in`.
    Waiting {
        /// Requests still to be answered.
        pending: usize,
        /// Files written.
        files: Vec<PathBuf>,
    },
}

fn event(kind: &str, id: &str, provider: Option<Provider>, info: Option<BatchInfo>) -> BatchEvent {
    BatchEvent {
        event: kind.into(),
        batch_id: id.into(),
        provider,
        info,
        custom_ids: Vec::new(),
        reserved_usd: None,
        time: now_rfc3339(),
    }
}

fn status_line(info: &BatchInfo) -> String {
    format!(
        "{STATUS_PREFIX}{} {}: {} of {} answered, {} failed",
        info.id, info.status, info.succeeded, info.total, info.failed
    )
}

/// Splits request lines into parts within the limits; a line over the byte limit alone
/// becomes an error result instead.
fn split(
    lines: Vec<(String, String)>,
    max_requests: usize,
    max_bytes: usize,
) -> (Vec<Vec<(String, String)>>, Vec<StoredResult>) {
    let (mut parts, mut too_big) = (Vec::new(), Vec::new());
    let (mut cur, mut bytes) = (Vec::new(), 0usize);
    for (cid, line) in lines {
        let n = line.len() + 1;
        if n > max_bytes {
            too_big.push(StoredResult::from_line(
                cid,
                "none",
                Err(format!(
                    "request of {n} bytes is larger than --batch-max-bytes {max_bytes}"
                )),
            ));
            continue;
        }
        if !cur.is_empty() && (cur.len() >= max_requests.max(1) || bytes + n > max_bytes) {
            parts.push(std::mem::take(&mut cur));
            bytes = 0;
        }
        bytes += n;
        cur.push((cid, line));
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    (parts, too_big)
}

/// What a result file held: its results (the first answer per request), warnings, and
/// the requests it answered more than once.
pub(crate) type Ingested = (Vec<StoredResult>, Vec<String>, HashSet<String>);

/// Reads a result file into stored results; unknown custom ids and bad lines are
/// counted and warned about, never fatal.
pub(crate) fn ingest_file(
    path: &Path,
    batch_id: &str,
    key: Option<&str>,
    expected: Option<&HashSet<String>>,
    tags: &[&str],
) -> Result<Ingested, std::io::Error> {
    use std::io::{BufRead, Read};
    // Regular files only: a FIFO would block and /dev/zero never end.
    let file = crate::base::fsread::open(path, crate::base::fsread::STREAM)?;
    let mut reader = std::io::BufReader::new(file);
    let mut out = Vec::new();
    let (mut bad, mut unknown, mut first_bad) = (0usize, 0usize, None);
    // A second answer to the same request is not used: the first one is kept.
    let (mut seen, mut repeated, mut twice) = (HashSet::new(), 0usize, HashSet::new());
    let mut buf = Vec::new();
    for n in 0.. {
        buf.clear();
        // Bounded like every run file: a hostile file cannot make one line eat memory.
        let got = (&mut reader)
            .take(store::MAX_RECORD + 1)
            .read_until(b'\n', &mut buf)?;
        if got == 0 {
            break;
        }
        if got as u64 > store::MAX_RECORD {
            bad += 1;
            first_bad.get_or_insert(format!(
                "line {}: longer than {} bytes",
                n + 1,
                store::MAX_RECORD
            ));
            // Read through the rest of the line without keeping it.
            if buf.last() != Some(&b'\n') {
                crate::base::fsread::skip_line(&mut reader)?;
            }
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        if line.trim().is_empty() {
            continue;
        }
        match batch_api::parse_result_line(&line, key, tags) {
            Ok((cid, r)) => {
                if expected.is_some_and(|e| !e.contains(&cid)) || !valid_custom_id(&cid) {
                    unknown += 1;
                    continue;
                }
                if !seen.insert(cid.clone()) {
                    repeated += 1;
                    twice.insert(cid);
                    continue;
                }
                out.push(StoredResult::from_line(cid, batch_id, r));
            }
            Err(e) => {
                bad += 1;
                first_bad.get_or_insert(format!("line {}: {e}", n + 1));
            }
        }
    }
    let mut warnings = Vec::new();
    if bad > 0 {
        warnings.push(format!(
            "{}: {bad} lines are not batch results and were skipped (first: {})",
            path.display(),
            first_bad.unwrap_or_default()
        ));
    }
    if unknown > 0 {
        warnings.push(format!(
            "{}: {unknown} results are for requests this run did not make; skipped",
            path.display()
        ));
    }
    if repeated > 0 {
        warnings.push(format!(
            "{}: {repeated} results answer a request already answered in this file; the first answer is kept",
            path.display()
        ));
    }
    Ok((out, warnings, twice))
}

fn valid_custom_id(cid: &str) -> bool {
    let mut parts = cid.rsplitn(3, '_');
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some("i" | "a"), Some(r), Some(s)) if r.starts_with('r') && r[1..].parse::<usize>().is_ok() && !s.is_empty()
    )
}

/// Writes request files for vLLM `run-batch` (OpenAI batch format); returns their paths.
fn write_request_files(
    dir: &Path,
    run_id: &str,
    parts: &[Vec<(String, String)>],
) -> Result<Vec<PathBuf>, RunError> {
    crate::base::fswrite::room::dir(dir)
        .map_err(|e| store::StoreError::Io(dir.display().to_string(), e))?;
    let stamp = now_rfc3339().replace([':', '-'], "");
    let mut paths = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        // Built from the sanitised id only: an id from run.json names no other folder.
        let path = dir.join(format!("{}-{stamp}-{}.jsonl", sanitize_id(run_id), i + 1));
        let mut text = String::new();
        for (_, l) in part {
            text.push_str(l);
            text.push('\n');
        }
        crate::base::fswrite::room::write(&path, text.as_bytes())
            .map_err(|e| store::StoreError::Io(path.display().to_string(), e))?;
        paths.push(path);
    }
    Ok(paths)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |e| RunError::Store(store::StoreError::Io(path.display().to_string(), e))
}

/// Executes a run through batches or batch files; an adaptive run goes in rounds, each
/// round's calls in batches of their own (`adaptive::rounds`).
pub async fn execute(
    spec: RunSpec,
    batch: BatchSpec,
    events: mpsc::UnboundedSender<Event>,
    mut cancel: watch::Receiver<bool>,
) -> Result<BatchOutcome, RunError> {
    match super::adaptive::Design::of(&spec.extra) {
        Some(d) => adaptive::rounds(spec, &batch, &d, &events, &mut cancel).await,
        None => execute_on(&spec, &batch, &events, &mut cancel).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_respects_both_limits_and_refuses_oversized_lines() {
        let lines: Vec<(String, String)> = (0..10)
            .map(|i| (format!("{i}_r1_i"), "x".repeat(9)))
            .chain(std::iter::once(("big_r1_i".to_string(), "y".repeat(100))))
            .collect();
        let (parts, big) = split(lines.clone(), 4, 1000);
        assert_eq!(
            parts.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4, 3]
        );
        assert!(big.is_empty());
        let (parts, big) = split(lines, 100, 30);
        assert_eq!(
            parts.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![3, 3, 3, 1]
        );
        assert_eq!(big.len(), 1);
        assert!(
            big[0]
                .error
                .as_deref()
                .unwrap()
                .contains("--batch-max-bytes")
        );
        assert!(valid_custom_id("12_r3_a"));
        assert!(!valid_custom_id("12_x3_a"));
        assert!(!valid_custom_id("r3_a"));
    }
}
