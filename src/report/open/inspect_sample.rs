//! One autoeval sample as Inspect's `EvalSample` and `EvalSampleSummary`: every model
//! call its own model event holding the prompt the model was sent (re-rendered from the
//! run's prompt set, checked against the recorded template id and hash) and its answer,
//! the verifier's check of each round as an info event, the score as a score event,
//! and a model error as the sample's error (never a score).

mod events;

use super::inspect_shape::{
    Assistant, Choice, Content, Empty, ErrorEvent, Event, Events, Label, Messages, ModelUsage,
    Output, ReasoningPart, Sample, SampleError, SampleId, SampleMeta, Score, ScoreEvent, ScoreMeta,
    Scores, Summary, SummaryMeta, TextPart, Usage,
};
use super::verdict_detail;
use crate::prompt::PromptSet;
use crate::record::{CallRecord, LabelRecord, Manifest, SampleRecord};
use crate::verify::{Verdict, VerdictKind};
use serde_json::Value;

/// What every sample of a run shares: the model name and the run's prompt set.
pub(crate) struct Ctx<'a> {
    /// The run.
    pub m: &'a Manifest,
    /// `provider/name`.
    pub model: String,
    /// The prompt set the run used, when it can be had again.
    pub prompts: Option<PromptSet>,
    /// Hash of the run id, the prefix of every sample uuid.
    pub run_hash: u64,
}

impl<'a> Ctx<'a> {
    /// The context of run `m`.
    pub fn new(m: &'a Manifest) -> Ctx<'a> {
        Ctx {
            m,
            model: format!("{}/{}", m.model.provider, m.model.name),
            prompts: prompts_of(m),
            run_hash: hash(&m.id),
        }
    }
}

/// The prompt set a run used: built-in, or its directory (`None` for imported runs and
/// directories that are gone).
fn prompts_of(m: &Manifest) -> Option<PromptSet> {
    match m.prompts.source.as_str() {
        "built-in" => PromptSet::builtin(m.prompts.shots).ok(),
        "original" => None,
        dir => PromptSet::load(std::path::Path::new(dir), m.prompts.shots).ok(),
    }
}

/// A sample id as Inspect sorts it: a number when it is one (so 2 sorts before 10).
pub(crate) fn sample_id(id: &str) -> SampleId<'_> {
    match id.parse::<u64>() {
        Ok(n) if n.to_string() == id => SampleId::Num(n),
        _ => SampleId::Text(id),
    }
}

pub(crate) use crate::base::clock::{iso_ms, unix_ms};

fn stop_reason(finish: Option<&str>) -> &'static str {
    match finish {
        Some("stop" | "end_turn" | "stop_sequence") => "stop",
        Some("length" | "max_tokens") => "max_tokens",
        Some("content_filter" | "refusal") => "content_filter",
        _ => "unknown",
    }
}

/// The call's answer as Inspect's `ModelOutput` (`id`: the answer message's id).
pub(super) fn output<'a>(model: &'a str, call: &'a CallRecord, id: String) -> Output<'a> {
    let text = call.output.as_deref().unwrap_or_default();
    // Reasoning goes in as Inspect's reasoning content, before the answer's text.
    let content = if let (Some(r), true) = (call.reasoning.as_deref(), call.reasoning_redacted) {
        Content::Mixed((
            ReasoningPart {
                reasoning: r,
                redacted: false,
                kind: "reasoning",
            },
            ReasoningPart {
                reasoning: "",
                redacted: true,
                kind: "reasoning",
            },
            TextPart { text, kind: "text" },
        ))
    } else if call.reasoning.is_some() || call.reasoning_redacted {
        Content::Parts((
            ReasoningPart {
                reasoning: call.reasoning.as_deref().unwrap_or_default(),
                redacted: call.reasoning_redacted,
                kind: "reasoning",
            },
            TextPart { text, kind: "text" },
        ))
    } else {
        Content::Text(text)
    };
    Output {
        choices: call.output.is_some().then_some(Choice {
            message: Assistant {
                content,
                id,
                model,
                role: "assistant",
                source: "generate",
            },
            stop_reason: stop_reason(call.finish_reason.as_deref()),
        }),
        completion: text,
        error: call.error.as_deref(),
        model,
        time: Some(call.latency_ms as f64 / 1000.0),
        usage: Some(Usage {
            input_tokens: call.input_tokens,
            output_tokens: call.output_tokens,
            reasoning_tokens: call.reasoning_tokens,
            total_cost: call.cost_usd,
            total_tokens: call.input_tokens + call.output_tokens,
        }),
    }
}

/// The countermodel of a not-equivalent verdict as JSON.
fn countermodel(v: &Verdict) -> Value {
    match v {
        Verdict::NotEquivalent { countermodel, .. } => {
            serde_json::to_value(countermodel).unwrap_or(Value::Null)
        }
        _ => Value::Null,
    }
}

/// The sample's `Score` (none for a model error: that is the sample's error).
fn score<'a>(s: &SampleRecord, phi1: &'a str, kinds: &[&'static str]) -> Option<Score<'a>> {
    (s.verdict.kind() != VerdictKind::ModelError).then(|| Score {
        answer: phi1,
        explanation: verdict_detail(&s.verdict),
        metadata: ScoreMeta {
            countermodel: countermodel(&s.verdict),
            kinds: kinds.to_vec(),
            verdict: s.verdict.name(),
        },
        value: if s.verdict.is_equivalent() { "C" } else { "I" },
    })
}

/// The sample's error when a model call failed for good.
fn error(s: &SampleRecord) -> Option<SampleError<'_>> {
    match &s.verdict {
        Verdict::ModelError { message } => Some(SampleError {
            message,
            traceback: format!("model error: {message}"),
            traceback_ansi: format!("model error: {message}"),
        }),
        _ => None,
    }
}

/// A sample built once, written as Inspect's `EvalSample` ([`Built::sample`]) and its
/// `EvalSampleSummary` ([`Built::summary`]), which share its parts so they agree.
pub(crate) struct Built<'a> {
    s: &'a SampleRecord,
    model: &'a str,
    /// `sample_init`, the calls and the checks; the score or error event follows.
    events: Vec<Event<'a>>,
    score: Option<Score<'a>>,
    error: Option<SampleError<'a>>,
    kinds: Vec<&'static str>,
    output: Output<'a>,
    labels: Vec<Label<'a>>,
    usage: Usage,
    closeness: Value,
    started: String,
    completed: String,
    /// Seconds the calls and checks took.
    total: f64,
    /// The index of the last event before the score or error event.
    end_k: usize,
    uuid: String,
    /// When the sample began and ended (ms since 1970), when its time is known.
    pub span_ms: Option<(i64, i64)>,
}

/// Builds one sample (`kinds`: its failure kinds' ids, from the run's index). Its calls are laid end to end ending at the recorded finish time
/// (the run records each call's latency and each check's time, not when they began).
pub(crate) fn build<'a>(
    ctx: &'a Ctx,
    s: &'a SampleRecord,
    kinds: Vec<&'static str>,
    labels: Option<&'a Vec<LabelRecord>>,
) -> Built<'a> {
    let calls_ms = sample_ms(s).max(0) as u64;
    let finished = unix_ms(&s.finished);
    let end_ms = finished.unwrap_or(0);
    let start_ms = end_ms - calls_ms as i64;
    let uuid = format!("{:016x}-{}", ctx.run_hash, s.id);
    let (events, end_k) = events::transcript(ctx, s, &uuid, start_ms);
    let phi1 = s
        .rounds
        .iter()
        .rev()
        .find_map(|r| r.phi1.as_deref())
        .unwrap_or_default();
    let output = final_output(ctx, s, phi1, &uuid);
    let labels = labels
        .map(|ls| {
            ls.iter()
                .map(|l| Label {
                    adjudicator: l.adjudicator.as_deref(),
                    annotator: &l.annotator,
                    blind: l.blind,
                    categories: &l.categories,
                    note: &l.note,
                })
                .collect()
        })
        .unwrap_or_default();
    Built {
        s,
        model: &ctx.model,
        events,
        score: score(s, phi1, &kinds),
        error: error(s),
        kinds,
        output,
        labels,
        usage: Usage {
            input_tokens: s.input_tokens,
            output_tokens: s.output_tokens,
            reasoning_tokens: reasoning_tokens(s),
            total_cost: s.cost_usd,
            total_tokens: s.input_tokens + s.output_tokens,
        },
        closeness: serde_json::to_value(s.closeness).unwrap_or(Value::Null),
        started: iso_ms(start_ms),
        completed: iso_ms(end_ms),
        total: calls_ms as f64 / 1000.0,
        end_k,
        uuid,
        span_ms: finished.map(|_| (start_ms, end_ms)),
    }
}

/// The sample's output: the last call's answer with the extracted φ₁ the verifier
/// judged as its completion.
fn final_output<'a>(ctx: &'a Ctx, s: &'a SampleRecord, phi1: &'a str, uuid: &str) -> Output<'a> {
    let last_call = s
        .rounds
        .last()
        .map(|r| r.autoformalize.as_ref().unwrap_or(&r.informalize));
    last_call.map_or_else(
        || Output {
            choices: None,
            completion: phi1,
            error: None,
            model: &ctx.model,
            time: None,
            usage: None,
        },
        |c| Output {
            // The completion is the extracted φ₁ the verifier judged.
            completion: phi1,
            ..output(&ctx.model, c, format!("{uuid}-output"))
        },
    )
}

/// The reasoning tokens of a sample's calls, when any call recorded them (Inspect's
/// usage totals count them apart from the output tokens).
pub(crate) fn reasoning_tokens(s: &SampleRecord) -> Option<u64> {
    s.calls()
        .any(|c| c.reasoning_tokens.is_some())
        .then(|| s.reasoning_tokens())
}

impl<'a> Built<'a> {
    /// Inspect's `EvalSample`.
    pub fn sample(&self) -> Sample<'_, 'a> {
        let s = self.s;
        Sample {
            completed_at: &self.completed,
            epoch: 1,
            error: self.error.as_ref(),
            events: Events {
                before: &self.events,
                score: self.score.as_ref().map(|score| ScoreEvent {
                    event: "score",
                    intermediate: false,
                    score,
                    target: &s.phi0,
                    timestamp: &self.completed,
                    uuid: format!("{}-e{}", self.uuid, self.end_k + 1),
                    working_start: self.total,
                }),
                error: self.error.as_ref().map(|error| ErrorEvent {
                    error,
                    event: "error",
                    timestamp: &self.completed,
                    uuid: format!("{}-e{}", self.uuid, self.end_k + 1),
                    working_start: self.total,
                }),
            },
            id: sample_id(&s.id),
            input: &s.phi0,
            messages: self.messages(),
            metadata: SampleMeta {
                batch: s.batch,
                closeness: &self.closeness,
                depth: s.depth,
                kinds: &self.kinds,
                labels: &self.labels,
                operators: s.num_operators,
                psi: s.rounds.first().and_then(|r| r.psi.as_deref()),
                rounds_passed: s.rounds_passed,
                syntax: s.syntax,
                verdict: s.verdict.name(),
            },
            model_usage: self.model_usage(),
            output: &self.output,
            scores: Scores {
                equivalence: self.score.as_ref(),
            },
            started_at: &self.started,
            store: Empty {},
            target: &s.phi0,
            total_time: self.total,
            uuid: &self.uuid,
            working_time: self.total,
        }
    }

    /// Inspect's `EvalSampleSummary`.
    pub fn summary(&self) -> Summary<'_, 'a> {
        let s = self.s;
        Summary {
            completed: true,
            completed_at: &self.completed,
            epoch: 1,
            error: self.error.as_ref().map(|e| e.message),
            id: sample_id(&s.id),
            input: &s.phi0,
            message_count: self.messages().len(),
            metadata: SummaryMeta {
                depth: s.depth,
                kinds: &self.kinds,
                operators: s.num_operators,
                verdict: s.verdict.name(),
            },
            model_usage: self.model_usage(),
            retries: 0,
            scores: Scores {
                equivalence: self.score.as_ref(),
            },
            started_at: &self.started,
            target: &s.phi0,
            total_time: self.total,
            uuid: &self.uuid,
            working_time: self.total,
        }
    }

    /// The final conversation: the last call's.
    fn messages(&self) -> Messages<'_, 'a> {
        Messages {
            last: self.events.iter().rev().find_map(|e| match e {
                Event::Model(m) => Some(&**m),
                _ => None,
            }),
        }
    }

    fn model_usage(&self) -> ModelUsage<'_> {
        ModelUsage {
            model: self.model,
            usage: &self.usage,
        }
    }
}

/// FNV-1a: stable ids from run ids.
pub(crate) fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The time a sample's calls and checks took (ms), as its transcript lays them out.
pub(crate) fn sample_ms(s: &SampleRecord) -> i64 {
    s.rounds
        .iter()
        .map(|r| {
            r.informalize.latency_ms
                + r.autoformalize.as_ref().map_or(0, |c| c.latency_ms)
                + r.verify_ms.max(0.0).round() as u64
        })
        .sum::<u64>() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_and_bad_ones_are_refused() {
        let t = unix_ms("2026-11-18T11:06:40Z").unwrap();
        assert_eq!(t, 1_795_000_000_000);
        assert_eq!(iso_ms(t + 245), "2026-11-18T11:06:40.245+00:00");
        assert_eq!(unix_ms("2026-11-18T11:06:40.245+00:00"), Some(t + 245));
        assert_eq!(unix_ms("2000-02-29T00:00:00Z"), Some(951_782_400_000));
        for bad in [
            "",
            "2026-13-01T00:00:00Z",
            "2026-11-18 11:06:40",
            "x-y-zT1:2:3Z",
        ] {
            assert_eq!(unix_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn numeric_ids_are_numbers() {
        let id = |s| serde_json::to_string(&sample_id(s)).unwrap();
        assert_eq!(id("10"), "10");
        assert_eq!(id("010"), "\"010\"");
        assert_eq!(id("a-1"), "\"a-1\"");
    }

    #[test]
    fn readable_thinking_beside_a_redacted_block_is_not_marked_redacted() {
        let call = CallRecord {
            output: Some("p ∨ q".into()),
            reasoning: Some("draft".into()),
            reasoning_redacted: true,
            ..CallRecord::default()
        };
        let v = serde_json::to_value(output("m", &call, "msg-1".into())).unwrap();
        let parts = &v["choices"][0]["message"]["content"];
        assert_eq!(parts[0]["reasoning"], "draft");
        assert_eq!(parts[0]["redacted"], false);
        assert_eq!(parts[1]["redacted"], true);
        assert_eq!(parts[1]["reasoning"], "");
        assert_eq!(parts[2]["text"], "p ∨ q");
        let only = CallRecord {
            reasoning: None,
            ..call
        };
        let v = serde_json::to_value(output("m", &only, "msg-2".into())).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"][0]["redacted"], true);
    }
}
