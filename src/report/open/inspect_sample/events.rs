//! A sample's transcript as Inspect events: `sample_init`, then per round a span holding
//! its model calls and the verifier's check, laid end to end on the sample's timeline.

use super::{Ctx, iso_ms, output, sample_id};
use crate::prompt::Rendered;
use crate::record::{CallRecord, RoundRecord, SampleRecord};
use crate::report::open::inspect_shape::{
    Empty, Event, GenConfig, InfoData, InfoEvent, InitEvent, InitSample, MessageMeta, ModelEvent,
    ModelMeta, SpanBegin, SpanEnd, User,
};
use crate::report::open::verdict_detail;
use crate::syntax::SyntaxKind;
use crate::verify::VerdictKind;

/// The events of sample `s` (uuid `uuid`, begun at `start_ms`) before its score or
/// error event, and the index of the last one.
pub(super) fn transcript<'a>(
    ctx: &'a Ctx,
    s: &'a SampleRecord,
    uuid: &str,
    start_ms: i64,
) -> (Vec<Event<'a>>, usize) {
    let mut line = Timeline {
        start_ms,
        sample: uuid,
        k: 0,
    };
    let mut events = Vec::with_capacity(1 + 5 * s.rounds.len());
    let init = line.slot(start_ms);
    events.push(Event::Init(InitEvent {
        event: "sample_init",
        sample: InitSample {
            id: sample_id(&s.id),
            input: &s.phi0,
            target: &s.phi0,
        },
        state: Empty {},
        timestamp: iso_ms(start_ms),
        uuid: init.id("e"),
        working_start: 0.0,
    }));
    let mut t = start_ms;
    for r in &s.rounds {
        t = round_events(ctx, r, s.syntax, &mut line, t, &mut events);
    }
    (events, line.k)
}

/// The events of one round, begun at `t` (ms since 1970), as a span, as Inspect's
/// solvers make one; returns when the round ended.
fn round_events<'a>(
    ctx: &'a Ctx,
    r: &'a RoundRecord,
    syntax: SyntaxKind,
    line: &mut Timeline,
    mut t: i64,
    events: &mut Vec<Event<'a>>,
) -> i64 {
    let at = line.slot(t);
    events.push(Event::SpanBegin(SpanBegin {
        event: "span_begin",
        id: span_id(line.sample, r.round),
        name: format!("round {}", r.round),
        timestamp: iso_ms(t),
        kind: "round",
        uuid: at.id("e"),
        working_start: at.offset_s,
    }));
    let input = crate::syntax::parse(&r.input, syntax).ok();
    let inf = ctx
        .prompts
        .as_ref()
        .zip(input.as_ref())
        .map(|(p, phi)| p.informalize(phi, syntax));
    events.push(model_event(
        ctx,
        "informalize",
        r.round,
        &r.informalize,
        inf,
        line.slot(t),
    ));
    t += r.informalize.latency_ms as i64;
    if let Some(c) = &r.autoformalize {
        let auto = ctx
            .prompts
            .as_ref()
            .zip(input.as_ref())
            .zip(r.psi.as_deref())
            .map(|((p, phi), psi)| p.autoformalize(psi, phi, syntax));
        events.push(model_event(
            ctx,
            "autoformalize",
            r.round,
            c,
            auto,
            line.slot(t),
        ));
        t += c.latency_ms as i64;
    }
    if r.verdict.kind() != VerdictKind::ModelError {
        events.push(info_event(r, line.slot(t)));
    }
    t += r.verify_ms.max(0.0).round() as i64;
    let at = line.slot(t);
    events.push(Event::SpanEnd(SpanEnd {
        event: "span_end",
        id: span_id(line.sample, r.round),
        timestamp: iso_ms(t),
        uuid: at.id("e"),
        working_start: at.offset_s,
    }));
    t
}

/// A sample's timeline: when it began, its uuid, and how many events it has so far.
struct Timeline<'u> {
    /// When the sample began, ms since 1970.
    start_ms: i64,
    /// The sample's uuid.
    sample: &'u str,
    /// Events placed so far.
    k: usize,
}

impl<'u> Timeline<'u> {
    /// The next event's slot, starting at `t`.
    fn slot(&mut self, t: i64) -> Slot<'u> {
        self.k += 1;
        Slot {
            start_ms: t,
            offset_s: (t - self.start_ms) as f64 / 1000.0,
            sample: self.sample,
            k: self.k,
        }
    }
}

/// The prompt text the call was sent, when the run's prompt set renders exactly the
/// template the call recorded; else a note saying why it is not there.
fn prompt_text(call: &CallRecord, rendered: Option<Rendered>) -> String {
    match rendered {
        Some(r) if r.id == call.prompt_id => r.text,
        Some(r) => format!(
            "(prompt not available: the run used template {}, the prompt set here renders {}; it changed since the run)",
            call.prompt_id, r.id
        ),
        None => format!(
            "(prompt not available: the run's prompt set cannot be loaded here; template {})",
            call.prompt_id
        ),
    }
}

/// Where an event sits on the sample's timeline (ms since 1970, and since the sample
/// began), and the ids it takes: the sample's uuid and the event's place make ids that
/// are unique in the log and the same on every export.
#[derive(Clone, Copy)]
struct Slot<'u> {
    /// Start, ms since 1970.
    start_ms: i64,
    /// Start, seconds since the sample began.
    offset_s: f64,
    /// The sample's uuid.
    sample: &'u str,
    /// The event's index in the transcript.
    k: usize,
}

impl Slot<'_> {
    /// The event's uuid (`<sample uuid>-e<k>`), or an id derived from it.
    fn id(&self, what: &str) -> String {
        format!("{}-{what}{}", self.sample, self.k)
    }
}

/// The span a round's events sit in.
fn span_id(sample: &str, round: usize) -> String {
    format!("{sample}-round{round}")
}

/// One call as a model event: the user message it was sent, its answer, usage, timing
/// and error. Everything a call shows goes through here (reasoning content joins the
/// output's message when recorded).
fn model_event<'a>(
    ctx: &'a Ctx,
    stage: &'static str,
    round: usize,
    call: &'a CallRecord,
    prompt: Option<Rendered>,
    at: Slot,
) -> Event<'a> {
    let span = span_id(at.sample, round);
    Event::Model(Box::new(ModelEvent {
        cache: call.cached.then_some("read"),
        completed: iso_ms(at.start_ms + call.latency_ms as i64),
        config: GenConfig {
            max_tokens: ctx.m.max_tokens,
            temperature: crate::report::open::temperature(ctx.m),
        },
        error: call.error.as_deref(),
        event: "model",
        input: [User {
            content: prompt_text(call, prompt),
            id: at.id("m"),
            metadata: MessageMeta {
                prompt_id: &call.prompt_id,
                round,
                stage,
            },
            role: "user",
            source: "input",
        }],
        metadata: ModelMeta {
            attempts: call.attempts,
            batch_id: call.batch_id.as_deref(),
            round,
            stage,
            transport_error: call.transport_error,
        },
        model: &ctx.model,
        output: output(&ctx.model, call, at.id("a")),
        retries: call.attempts.saturating_sub(1),
        span_id: span,
        timestamp: iso_ms(at.start_ms),
        tool_choice: "none",
        tools: [],
        uuid: at.id("e"),
        working_start: at.offset_s,
        working_time: call.latency_ms as f64 / 1000.0,
    }))
}

fn info_event<'a>(round: &'a RoundRecord, at: Slot) -> Event<'a> {
    Event::Info(InfoEvent {
        data: InfoData {
            detail: verdict_detail(&round.verdict),
            phi1: round.phi1.as_deref(),
            round: round.round,
            verdict: round.verdict.name(),
            verify_ms: round.verify_ms,
        },
        event: "info",
        source: "verifier",
        span_id: span_id(at.sample, round.round),
        timestamp: iso_ms(at.start_ms),
        uuid: at.id("e"),
        working_start: at.offset_s,
    })
}
