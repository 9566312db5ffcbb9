//! The run record: the run-directory format `autoeval-run/1` (manifest, sample, judge
//! and label records). It sits below `analysis` and `run`, which both read it.

use crate::dataset::task_kind::TaskKind;
use crate::llm::{ModelInfo, judge::JudgeAnswer};
use crate::syntax::SyntaxKind;
use crate::verify::Verdict;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Format tag written in every manifest.
pub const FORMAT: &str = "autoeval-run/1";

/// `run.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Run id (directory name by default).
    pub id: String,
    /// Creation time (UTC, RFC 3339).
    pub created: String,
    /// `autoeval <version>`.
    pub tool_version: String,
    /// The command line that produced the run.
    pub command: Vec<String>,
    /// Dataset description.
    pub dataset: DatasetInfo,
    /// Model (never a key).
    pub model: ModelInfo,
    /// Sampling temperature as sent (exactly as typed); `None` when the model's profile
    /// omits it (the `request` entry says why).
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Output token limit (reasoning counts against it).
    pub max_tokens: u32,
    /// Prompt set.
    pub prompts: PromptInfo,
    /// Rounds n of (A∘I)ⁿ.
    pub rounds: usize,
    /// Verifier timeout per pair.
    pub verifier_timeout_ms: u64,
    /// Concurrency.
    pub concurrency: usize,
    /// `running`, `paused`, `finished`, `cancelled` or `failed` (as the strings in run.json).
    pub status: RunStatus,
    /// When the status last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// The reference task of a task run (`run --task`), None for a ∀uto∃∨∧L run. Read
    /// once here: a name this version does not know refuses the file, naming the tasks
    /// it knows (its scores would be read by the wrong rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskKind>,
    /// Fields from newer versions or imports, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A run's status. In `run.json` it is one of the strings `running`, `paused`,
/// `finished`, `cancelled`, `failed`; readers show a `running` or `paused` run whose
/// process is gone as `interrupted` (never written). Any other string (a newer
/// version's, an import's) is kept as written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunStatus {
    /// A process is writing it (or was, until it died: see `interrupted`).
    Running,
    /// A process holds it, paused (by the user, or by the run when the server is gone):
    /// nothing new starts until it resumes.
    Paused,
    /// Every sample done.
    Finished,
    /// Stopped early (a user's cancel, refused requests, a spend limit); resumable.
    Cancelled,
    /// Stopped by an error.
    Failed,
    /// Said `running`, but no process holds its lock (shown, never written).
    Interrupted,
    /// A status this version does not know, as written.
    Other(String),
}

impl RunStatus {
    /// The status as run.json writes it.
    pub fn as_str(&self) -> &str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Paused => "paused",
            RunStatus::Finished => "finished",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Other(s) => s,
        }
    }

    /// Whether a process holds the run (it says `running` or `paused`).
    pub fn is_live(&self) -> bool {
        matches!(self, RunStatus::Running | RunStatus::Paused)
    }

    /// The status a run.json string names.
    pub fn parse(s: &str) -> RunStatus {
        match s {
            "running" => RunStatus::Running,
            "paused" => RunStatus::Paused,
            "finished" => RunStatus::Finished,
            "cancelled" => RunStatus::Cancelled,
            "failed" => RunStatus::Failed,
            "interrupted" => RunStatus::Interrupted,
            other => RunStatus::Other(other.to_string()),
        }
    }
}

impl From<&str> for RunStatus {
    fn from(s: &str) -> Self {
        RunStatus::parse(s)
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RunStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RunStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(RunStatus::parse(&String::deserialize(d)?))
    }
}

/// `run.json`'s key for the reading convention the run's replies were read under.
pub(crate) const READING_KEY: &str = "reading";

/// `run.json`'s key for an adaptive run's design (`run --adaptive`: budget, level, …).
pub(crate) const ADAPTIVE_KEY: &str = "adaptive";

/// An adaptive run's design as its manifest records it (None: a uniform run).
pub(crate) fn adaptive(m: &Manifest) -> Option<&Value> {
    m.extra.get(ADAPTIVE_KEY).filter(|v| v.is_object())
}

/// `run.json`'s key for the request settings as sent.
pub(crate) const REQUEST_KEY: &str = "request";

impl Manifest {
    /// The reading convention of the run's replies (`standard` for runs that predate it).
    pub fn reading(&self) -> crate::syntax::Reading {
        self.extra
            .get(READING_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    /// The request settings the run sent (profile, token field, omitted parameters,
    /// effort, thinking, extra body), for runs that record them.
    pub fn request(&self) -> Option<crate::llm::request::RequestParams> {
        self.extra
            .get(REQUEST_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The reference task of a task run (`run --task`), None for a ∀uto∃∨∧L run.
    pub fn task(&self) -> Option<TaskKind> {
        self.task
    }

    /// Records the reading convention (`"reading": "nltk"`).
    pub(crate) fn set_reading(&mut self, r: crate::syntax::Reading) {
        self.extra
            .insert(READING_KEY.into(), Value::String(r.name().into()));
    }
}

/// Where φ₀ came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DatasetInfo {
    /// Dataset kind name (`pl`, `fol`, …, or the file's `type`).
    pub kind: String,
    /// Syntax.
    pub syntax: SyntaxKind,
    /// Source file, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// SHA-256 of the source file's bytes: what `--resume` compares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Generation seed, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The dataset's `info` block (parameters).
    #[serde(default)]
    pub params: Map<String, Value>,
    /// Items in the dataset.
    pub items: usize,
    /// Category field (`num_operators` or `depth`).
    pub filter_field: String,
}

impl DatasetInfo {
    /// What identifies the dataset a run answered (kind, syntax, seed, parameters,
    /// items): runs pair up sample by sample only when it is the same.
    pub fn key(&self) -> String {
        format!(
            "{}|{:?}|{:?}|{}|{}",
            self.kind,
            self.syntax,
            self.seed,
            Value::Object(self.params.clone()),
            self.items
        )
    }
}

/// Which prompts were used.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PromptInfo {
    /// `built-in` or a directory.
    pub source: String,
    /// 0 or 2.
    pub shots: usize,
    /// SHA-256 of the set.
    pub hash: String,
}

/// One model call as recorded.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CallRecord {
    /// Template id with hash.
    pub prompt_id: String,
    /// Raw answer text (absent on error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Latency of the successful attempt.
    pub latency_ms: u64,
    /// Cost (None: unpriced model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Attempts made.
    pub attempts: u32,
    /// Finish reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Error after all retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The HTTP status of the error, if the server answered one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The error was a transport failure (no HTTP answer: refused, reset, timed out).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transport_error: bool,
    /// The server reported token usage that cannot be real; the counts were capped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub implausible_usage: bool,
    /// Answered from the response cache (no request, no cost; tokens are the original call's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// The provider batch that answered it (latency is then unknown and recorded as 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_id: Option<String>,
    /// The model's reasoning, kept apart from `output` (never scored or passed on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Reasoning tokens, when the provider reports them (part of `output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// The provider returned the reasoning redacted or encrypted (not stored as text).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasoning_redacted: bool,
    /// The call stopped at the token limit (with no answer, or one cut short).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The server answered, but no answer could be read (empty choices, an unreadable
    /// body, a refusal): counts toward stopping the run like a refused request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
    /// Reply parts of types not read, as the server sent them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<serde_json::Value>,
    /// `reasoning` is the start of a longer text, cut so the sample's line stays readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_cut: Option<Cut>,
    /// `output` is the start of a longer answer, cut so the sample's line stays readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_cut: Option<Cut>,
}

/// What a text cut short for storage was: its whole length and SHA-256 (hex).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cut {
    /// Bytes (UTF-8) of the whole text.
    pub bytes: u64,
    /// SHA-256 of the whole text, lower-case hex.
    pub sha256: String,
}

impl CallRecord {
    /// Reasoning tokens as a number (0 when not reported).
    pub fn reasoning_token_count(&self) -> u64 {
        self.reasoning_tokens.unwrap_or(0)
    }
}

impl SampleRecord {
    /// Whether a call of the sample stopped at the token limit without an answer.
    pub fn truncated(&self) -> bool {
        self.calls().any(|c| c.truncated)
    }

    /// Every call of the sample, in order.
    pub fn calls(&self) -> impl Iterator<Item = &CallRecord> {
        self.rounds
            .iter()
            .flat_map(|r| std::iter::once(&r.informalize).chain(r.autoformalize.as_ref()))
    }

    /// Reasoning tokens over all calls (those the provider reported).
    pub fn reasoning_tokens(&self) -> u64 {
        self.calls()
            .map(CallRecord::reasoning_token_count)
            .fold(0, u64::saturating_add)
    }

    /// Whether the sample failed because the server could not be reached.
    pub fn transport_failure(&self) -> bool {
        self.verdict.kind() == crate::verify::VerdictKind::ModelError
            && self.rounds.last().is_some_and(|r| {
                r.informalize.transport_error
                    || r.autoformalize.as_ref().is_some_and(|c| c.transport_error)
            })
    }
}

/// One round of informalize → autoformalize → verify.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RoundRecord {
    /// 1-based round.
    pub round: usize,
    /// The formula this round started from (Unicode).
    pub input: String,
    /// The informalization call.
    pub informalize: CallRecord,
    /// ψ, if the call succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi: Option<String>,
    /// The autoformalization call, if reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoformalize: Option<CallRecord>,
    /// φ₁ parsed and printed in Unicode, if it parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi1: Option<String>,
    /// Byte span of φ₁ inside the raw answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi1_span: Option<(usize, usize)>,
    /// This round's verdict.
    pub verdict: Verdict,
    /// Verifier time.
    pub verify_ms: f64,
}

/// One line of `samples.jsonl`: a finished sample.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SampleRecord {
    /// Unique id within the run.
    pub id: String,
    /// Dataset index.
    pub idx: usize,
    /// Dataset batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
    /// Syntax.
    pub syntax: SyntaxKind,
    /// φ₀ in Unicode.
    pub phi0: String,
    /// φ₀ as in the dataset (original notation).
    pub phi0_original: String,
    /// Operator count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_operators: Option<usize>,
    /// Generation depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// Rounds, in order; stops at the first round that fails.
    pub rounds: Vec<RoundRecord>,
    /// Final verdict (first failing round's, else the last).
    pub verdict: Verdict,
    /// Rounds that stayed equivalent.
    pub rounds_passed: usize,
    /// Closeness of round 1's φ₁ to φ₀.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closeness: Option<Closeness>,
    /// Total prompt tokens.
    pub input_tokens: u64,
    /// Total answer tokens.
    pub output_tokens: u64,
    /// Total cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// When it finished.
    pub finished: String,
    /// A reference task's item, gold label and answer (`run --task`); None otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRecord>,
}

/// One line of `judge.jsonl`: an LLM-as-judge decision on a sample.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JudgeRecord {
    /// Sample id.
    pub id: String,
    /// Judge model.
    pub model: ModelInfo,
    /// Parsed answer.
    pub answer: JudgeAnswer,
    /// The call.
    pub call: CallRecord,
    /// The verifier's verdict name for comparison.
    pub verifier: String,
    /// When.
    pub time: String,
}

/// One line of `labels.jsonl`: a hand label (newest per sample and annotator wins), or
/// a retraction (`"retract": true`) that withdraws that annotator's label on the sample.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LabelRecord {
    /// Sample id.
    pub id: String,
    /// Category keys.
    pub categories: Vec<String>,
    /// Free-text note.
    #[serde(default)]
    pub note: String,
    /// Who.
    pub annotator: String,
    /// When.
    pub time: String,
    /// Labelled in blind mode (verdict, kinds, judge, model and other labels hidden).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blind: bool,
    /// Who settled a disagreement, on records whose annotator is `adjudicated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudicator: Option<String>,
    /// A retraction: the annotator's earlier labels on this sample no longer count (the
    /// file stays append-only, so the history is kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retract: bool,
}

mod metric;
pub use metric::{Closeness, Metric};

mod task_record;
pub use task_record::{TaskRecord, TextScores};

pub use crate::base::clock::now_rfc3339;
pub(crate) use crate::base::clock::rfc3339;

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
