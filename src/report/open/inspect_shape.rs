//! The shapes of Inspect's `EvalSample` and `EvalSampleSummary` as borrowed structs,
//! written by `serde_json::to_writer` without building a `serde_json::Value` tree per
//! sample (that tree was a quarter of a million-sample export's CPU). Every struct lists
//! its fields in key order, so the output is byte for byte what the tree (whose maps
//! sort their keys) wrote; a test checks that each sample re-sorts to itself.

use crate::syntax::SyntaxKind;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A sample id: a number when it is one (so Inspect sorts 2 before 10), else the text.
#[derive(Serialize, Clone, Copy)]
#[serde(untagged)]
pub(crate) enum SampleId<'a> {
    /// A canonical decimal id.
    Num(u64),
    /// Any other id.
    Text(&'a str),
}

/// `{}`.
#[derive(Serialize)]
pub(crate) struct Empty {}

/// Token counts (and cost) of a call or a sample.
#[derive(Serialize)]
pub(crate) struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<f64>,
    pub total_tokens: u64,
}

/// A reasoning part of an answer's content.
#[derive(Serialize)]
pub(crate) struct ReasoningPart<'a> {
    pub reasoning: &'a str,
    pub redacted: bool,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// A text part of an answer's content.
#[derive(Serialize)]
pub(crate) struct TextPart<'a> {
    pub text: &'a str,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// An answer's content: its text, or reasoning then text.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Content<'a> {
    /// The answer alone.
    Text(&'a str),
    /// Reasoning content before the answer's text.
    Parts((ReasoningPart<'a>, TextPart<'a>)),
    /// Readable reasoning, then a redacted part, then the answer's text (a thinking and
    /// a redacted block came together: the readable one is not redacted).
    Mixed((ReasoningPart<'a>, ReasoningPart<'a>, TextPart<'a>)),
}

/// The assistant's message.
#[derive(Serialize)]
pub(crate) struct Assistant<'a> {
    pub content: Content<'a>,
    pub id: String,
    pub model: &'a str,
    pub role: &'static str,
    pub source: &'static str,
}

/// One of a `ModelOutput`'s choices.
#[derive(Serialize)]
pub(crate) struct Choice<'a> {
    pub message: Assistant<'a>,
    pub stop_reason: &'static str,
}

/// Inspect's `ModelOutput`.
#[derive(Serialize)]
pub(crate) struct Output<'a> {
    #[serde(serialize_with = "as_list")]
    pub choices: Option<Choice<'a>>,
    pub completion: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    pub model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// An option as a list of none or one.
#[allow(clippy::ref_option)] // serde's `serialize_with` passes `&Option<T>`
fn as_list<S: Serializer, T: Serialize>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(usize::from(v.is_some())))?;
    if let Some(x) = v {
        seq.serialize_element(x)?;
    }
    seq.end()
}

/// Where a user message came from.
#[derive(Serialize)]
pub(crate) struct MessageMeta<'a> {
    pub prompt_id: &'a str,
    pub round: usize,
    pub stage: &'static str,
}

/// The user message a call sent: the rendered prompt.
#[derive(Serialize)]
pub(crate) struct User<'a> {
    pub content: String,
    pub id: String,
    pub metadata: MessageMeta<'a>,
    pub role: &'static str,
    pub source: &'static str,
}

/// The generation settings of a call.
#[derive(Serialize)]
pub(crate) struct GenConfig {
    pub max_tokens: u32,
    pub temperature: Option<f64>,
}

/// A model event's autoeval fields.
#[derive(Serialize)]
pub(crate) struct ModelMeta<'a> {
    pub attempts: u32,
    pub batch_id: Option<&'a str>,
    pub round: usize,
    pub stage: &'static str,
    pub transport_error: bool,
}

/// One call.
#[derive(Serialize)]
pub(crate) struct ModelEvent<'a> {
    pub cache: Option<&'static str>,
    pub completed: String,
    pub config: GenConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    pub event: &'static str,
    pub input: [User<'a>; 1],
    pub metadata: ModelMeta<'a>,
    pub model: &'a str,
    pub output: Output<'a>,
    pub retries: u32,
    pub span_id: String,
    pub timestamp: String,
    pub tool_choice: &'static str,
    pub tools: [(); 0],
    pub uuid: String,
    pub working_start: f64,
    pub working_time: f64,
}

/// The sample as `sample_init` records it.
#[derive(Serialize)]
pub(crate) struct InitSample<'a> {
    pub id: SampleId<'a>,
    pub input: &'a str,
    pub target: &'a str,
}

/// The first event.
#[derive(Serialize)]
pub(crate) struct InitEvent<'a> {
    pub event: &'static str,
    pub sample: InitSample<'a>,
    pub state: Empty,
    pub timestamp: String,
    pub uuid: String,
    pub working_start: f64,
}

/// The verifier's check of one round.
#[derive(Serialize)]
pub(crate) struct InfoData<'a> {
    pub detail: String,
    pub phi1: Option<&'a str>,
    pub round: usize,
    pub verdict: &'static str,
    pub verify_ms: f64,
}

/// A round's check as an info event.
#[derive(Serialize)]
pub(crate) struct InfoEvent<'a> {
    pub data: InfoData<'a>,
    pub event: &'static str,
    pub source: &'static str,
    pub span_id: String,
    pub timestamp: String,
    pub uuid: String,
    pub working_start: f64,
}

/// The start of a span (one per round: its calls and check).
#[derive(Serialize)]
pub(crate) struct SpanBegin {
    pub event: &'static str,
    pub id: String,
    pub name: String,
    pub timestamp: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub uuid: String,
    pub working_start: f64,
}

/// The end of a span.
#[derive(Serialize)]
pub(crate) struct SpanEnd {
    pub event: &'static str,
    pub id: String,
    pub timestamp: String,
    pub uuid: String,
    pub working_start: f64,
}

/// A transcript event before the score.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Event<'a> {
    /// `sample_init`.
    Init(InitEvent<'a>),
    /// A round's span begins.
    SpanBegin(SpanBegin),
    /// A call.
    Model(Box<ModelEvent<'a>>),
    /// A check.
    Info(InfoEvent<'a>),
    /// A round's span ends.
    SpanEnd(SpanEnd),
}

/// The score's autoeval fields.
#[derive(Serialize)]
pub(crate) struct ScoreMeta {
    /// The countermodel as the verifier serialises it (keys sorted, as before).
    pub countermodel: Value,
    pub kinds: Vec<&'static str>,
    pub verdict: &'static str,
}

/// Inspect's `Score`.
#[derive(Serialize)]
pub(crate) struct Score<'a> {
    pub answer: &'a str,
    pub explanation: String,
    pub metadata: ScoreMeta,
    pub value: &'static str,
}

/// A sample's error (a model call that failed for good).
#[derive(Serialize)]
pub(crate) struct SampleError<'a> {
    pub message: &'a str,
    pub traceback: String,
    pub traceback_ansi: String,
}

/// The score event.
#[derive(Serialize)]
pub(crate) struct ScoreEvent<'b, 'a> {
    pub event: &'static str,
    pub intermediate: bool,
    pub score: &'b Score<'a>,
    pub target: &'a str,
    pub timestamp: &'b str,
    pub uuid: String,
    pub working_start: f64,
}

/// The error event.
#[derive(Serialize)]
pub(crate) struct ErrorEvent<'b, 'a> {
    pub error: &'b SampleError<'a>,
    pub event: &'static str,
    pub timestamp: &'b str,
    pub uuid: String,
    pub working_start: f64,
}

/// A label as the sample's metadata lists it.
#[derive(Serialize)]
pub(crate) struct Label<'a> {
    pub adjudicator: Option<&'a str>,
    pub annotator: &'a str,
    pub blind: bool,
    pub categories: &'a [String],
    pub note: &'a str,
}

/// `{model: usage}`.
pub(crate) struct ModelUsage<'b> {
    pub model: &'b str,
    pub usage: &'b Usage,
}

impl Serialize for ModelUsage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.model, self.usage)?;
        m.end()
    }
}

/// `{}` or `{"equivalence": score}`.
#[derive(Serialize)]
pub(crate) struct Scores<'b, 'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalence: Option<&'b Score<'a>>,
}

/// The transcript: the events, then the score or error event.
pub(crate) struct Events<'b, 'a> {
    pub before: &'b [Event<'a>],
    pub score: Option<ScoreEvent<'b, 'a>>,
    pub error: Option<ErrorEvent<'b, 'a>>,
}

impl Serialize for Events<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.before.len()
            + usize::from(self.score.is_some())
            + usize::from(self.error.is_some());
        let mut seq = s.serialize_seq(Some(n))?;
        for e in self.before {
            seq.serialize_element(e)?;
        }
        if let Some(e) = &self.score {
            seq.serialize_element(e)?;
        }
        if let Some(e) = &self.error {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

/// The final conversation: the last call's user message and, when it answered, the
/// answer (each call of a round trip was a fresh conversation).
pub(crate) struct Messages<'b, 'a> {
    pub last: Option<&'b ModelEvent<'a>>,
}

impl Messages<'_, '_> {
    /// How many messages.
    pub fn len(&self) -> usize {
        self.last
            .map_or(0, |e| 1 + usize::from(e.output.choices.is_some()))
    }
}

impl Serialize for Messages<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        if let Some(e) = self.last {
            seq.serialize_element(&e.input[0])?;
            if let Some(c) = &e.output.choices {
                seq.serialize_element(&c.message)?;
            }
        }
        seq.end()
    }
}

/// The sample's autoeval fields.
#[derive(Serialize)]
pub(crate) struct SampleMeta<'b, 'a> {
    pub batch: Option<usize>,
    /// The closeness scores as the record serialises them (keys sorted, as before).
    pub closeness: &'b Value,
    pub depth: Option<usize>,
    pub kinds: &'b [&'static str],
    pub labels: &'b [Label<'a>],
    pub operators: Option<usize>,
    pub psi: Option<&'a str>,
    pub rounds_passed: usize,
    pub syntax: SyntaxKind,
    pub verdict: &'static str,
}

/// Inspect's `EvalSample`.
#[derive(Serialize)]
pub(crate) struct Sample<'b, 'a> {
    pub completed_at: &'b str,
    pub epoch: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'b SampleError<'a>>,
    pub events: Events<'b, 'a>,
    pub id: SampleId<'a>,
    pub input: &'a str,
    pub messages: Messages<'b, 'a>,
    pub metadata: SampleMeta<'b, 'a>,
    pub model_usage: ModelUsage<'b>,
    pub output: &'b Output<'a>,
    pub scores: Scores<'b, 'a>,
    pub started_at: &'b str,
    pub store: Empty,
    pub target: &'a str,
    pub total_time: f64,
    pub uuid: &'b str,
    pub working_time: f64,
}

/// The summary's autoeval fields.
#[derive(Serialize)]
pub(crate) struct SummaryMeta<'b> {
    pub depth: Option<usize>,
    pub kinds: &'b [&'static str],
    pub operators: Option<usize>,
    pub verdict: &'static str,
}

/// Inspect's `EvalSampleSummary` (what the viewer's sample list reads).
#[derive(Serialize)]
pub(crate) struct Summary<'b, 'a> {
    pub completed: bool,
    pub completed_at: &'b str,
    pub epoch: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    pub id: SampleId<'a>,
    pub input: &'a str,
    pub message_count: usize,
    pub metadata: SummaryMeta<'b>,
    pub model_usage: ModelUsage<'b>,
    pub retries: u32,
    pub scores: Scores<'b, 'a>,
    pub started_at: &'b str,
    pub target: &'a str,
    pub total_time: f64,
    pub uuid: &'b str,
    pub working_time: f64,
}
