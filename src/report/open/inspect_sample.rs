//! One autoeval sample as Inspect's `EvalSample` and `EvalSampleSummary`: every model
//! call its own model event holding the prompt the model was sent (re-rendered from the
//! run's prompt set, checked against the recorded template id and hash) and its answer,
//! the verifier's check of each round as an info event, the score as a score event,
//! and a model error as the sample's error (never a score).

use super::{kind_ids, verdict_detail};
use crate::prompt::{PromptSet, Rendered};
use crate::record::{CallRecord, LabelRecord, Manifest, RoundRecord, SampleRecord};
use crate::verify::{Verdict, VerdictKind};
use serde_json::{Value, json};

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
pub(crate) fn sample_id(id: &str) -> Value {
    match id.parse::<u64>() {
        Ok(n) if n.to_string() == id => json!(n),
        _ => json!(id),
    }
}

/// Milliseconds since 1970 of an RFC 3339 UTC time (`…Z` or `…+00:00`, optional
/// fraction); `None` for anything else.
pub(crate) fn unix_ms(t: &str) -> Option<i64> {
    let t = t.trim();
    let body = t.strip_suffix('Z').or_else(|| t.strip_suffix("+00:00"))?;
    let (date, time) = body.split_once('T')?;
    let mut d = date.splitn(3, '-').map(str::parse::<i64>);
    let (y, mo, da) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut c = hms.splitn(3, ':').map(str::parse::<i64>);
    let (h, mi, s) = (c.next()?.ok()?, c.next()?.ok()?, c.next()?.ok()?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&da) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let ms = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(3).collect();
        if !frac.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        format!("{digits:0<3}").parse::<i64>().ok()?
    };
    // Howard Hinnant's days-from-civil.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + da - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + mi * 60 + s) * 1000) + ms)
}

/// Inspect's timestamp form: `2026-11-26T14:39:20.245+00:00`.
pub(crate) fn iso_ms(ms: i64) -> String {
    let ms = ms.max(0);
    let secs = crate::record::rfc3339((ms / 1000) as u64);
    format!("{}.{:03}+00:00", secs.trim_end_matches('Z'), ms % 1000)
}

fn stop_reason(finish: Option<&str>) -> &'static str {
    match finish {
        Some("stop" | "end_turn" | "stop_sequence") => "stop",
        Some("length" | "max_tokens") => "max_tokens",
        Some("content_filter" | "refusal") => "content_filter",
        _ => "unknown",
    }
}

/// The call's answer as Inspect's `ModelOutput`.
fn output(model: &str, call: &CallRecord) -> Value {
    let text = call.output.clone().unwrap_or_default();
    // Reasoning goes in as Inspect's reasoning content, before the answer's text.
    let content = if call.reasoning.is_some() || call.reasoning_redacted {
        json!([
            {"type": "reasoning", "reasoning": call.reasoning.clone().unwrap_or_default(), "redacted": call.reasoning_redacted},
            {"type": "text", "text": text},
        ])
    } else {
        json!(text)
    };
    let choices = if call.output.is_some() {
        json!([{
            "message": {"role": "assistant", "content": content, "source": "generate", "model": model},
            "stop_reason": stop_reason(call.finish_reason.as_deref()),
        }])
    } else {
        json!([])
    };
    let mut o = json!({
        "model": model,
        "choices": choices,
        "completion": text,
        "usage": {
            "input_tokens": call.input_tokens,
            "output_tokens": call.output_tokens,
            "total_tokens": call.input_tokens + call.output_tokens,
        },
        "time": call.latency_ms as f64 / 1000.0,
    });
    if let Some(r) = call.reasoning_tokens {
        o["usage"]["reasoning_tokens"] = json!(r);
    }
    if let Some(e) = &call.error {
        o["error"] = json!(e);
    }
    if let Some(c) = call.cost_usd {
        o["usage"]["total_cost"] = json!(c);
    }
    o
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

/// Where a call sits on the sample's timeline (ms since 1970, and since the sample began).
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    /// Start, ms since 1970.
    pub start_ms: i64,
    /// Start, seconds since the sample began.
    pub offset_s: f64,
}

/// One call as a model event: the user message it was sent, its answer, usage, timing
/// and error. Everything a call shows goes through here (reasoning content joins the
/// output's message when recorded).
pub(crate) fn model_event(
    ctx: &Ctx,
    stage: &str,
    round: usize,
    call: &CallRecord,
    prompt: Option<Rendered>,
    at: Slot,
) -> Value {
    let latency = call.latency_ms as f64 / 1000.0;
    let input = json!([{
        "role": "user",
        "content": prompt_text(call, prompt),
        "source": "input",
        "metadata": {"prompt_id": call.prompt_id, "stage": stage, "round": round},
    }]);
    let mut e = json!({
        "event": "model",
        "timestamp": iso_ms(at.start_ms),
        "completed": iso_ms(at.start_ms + call.latency_ms as i64),
        "working_start": at.offset_s,
        "working_time": latency,
        "model": ctx.model,
        "input": input,
        "tools": [],
        "tool_choice": "none",
        "config": {"temperature": super::temperature(ctx.m), "max_tokens": ctx.m.max_tokens},
        "output": output(&ctx.model, call),
        "retries": call.attempts.saturating_sub(1),
        "cache": if call.cached { json!("read") } else { Value::Null },
        "metadata": {
            "stage": stage,
            "round": round,
            "attempts": call.attempts,
            "batch_id": call.batch_id,
            "transport_error": call.transport_error,
        },
    });
    if let Some(err) = &call.error {
        e["error"] = json!(err);
    }
    e
}

fn info_event(round: &RoundRecord, start_ms: i64, offset_s: f64) -> Value {
    json!({
        "event": "info",
        "timestamp": iso_ms(start_ms),
        "working_start": offset_s,
        "source": "verifier",
        "data": {
            "round": round.round,
            "phi1": round.phi1,
            "verdict": round.verdict.name(),
            "detail": verdict_detail(&round.verdict),
            "verify_ms": round.verify_ms,
        },
    })
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
fn score(s: &SampleRecord, phi1: &str) -> Option<Value> {
    (s.verdict.kind() != VerdictKind::ModelError).then(|| {
        json!({
            "value": if s.verdict.is_equivalent() { "C" } else { "I" },
            "answer": phi1,
            "explanation": verdict_detail(&s.verdict),
            "metadata": {
                "verdict": s.verdict.name(),
                "countermodel": countermodel(&s.verdict),
                "kinds": kind_ids(s),
            },
        })
    })
}

/// The sample's error when a model call failed for good.
fn error(s: &SampleRecord) -> Option<Value> {
    match &s.verdict {
        Verdict::ModelError { message } => Some(json!({
            "message": message,
            "traceback": format!("model error: {message}"),
            "traceback_ansi": format!("model error: {message}"),
        })),
        _ => None,
    }
}

/// A sample and its summary, built together so they agree.
pub(crate) struct Built {
    /// `EvalSample`.
    pub sample: Value,
    /// `EvalSampleSummary`.
    pub summary: Value,
    /// When the sample began and ended (ms since 1970), when its time is known.
    pub span_ms: Option<(i64, i64)>,
}

/// Builds one sample. Its calls are laid end to end ending at the recorded finish time
/// (the run records each call's latency and each check's time, not when they began).
pub(crate) fn build(ctx: &Ctx, s: &SampleRecord, labels: Option<&Vec<LabelRecord>>) -> Built {
    let calls_ms = sample_ms(s).max(0) as u64;
    let finished = unix_ms(&s.finished);
    let end_ms = finished.unwrap_or(0);
    let start_ms = end_ms - calls_ms as i64;
    let mut t = start_ms;
    let slot = |t: i64| Slot {
        start_ms: t,
        offset_s: (t - start_ms) as f64 / 1000.0,
    };
    let mut events = vec![json!({
        "event": "sample_init",
        "timestamp": iso_ms(start_ms),
        "working_start": 0.0,
        "sample": {"id": sample_id(&s.id), "input": s.phi0, "target": s.phi0},
        "state": {},
    })];
    let syntax = s.syntax;
    for r in &s.rounds {
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
            slot(t),
        ));
        t += r.informalize.latency_ms as i64;
        if let Some(c) = &r.autoformalize {
            let auto = ctx
                .prompts
                .as_ref()
                .zip(input.as_ref())
                .zip(r.psi.as_deref())
                .map(|((p, phi), psi)| p.autoformalize(psi, phi, syntax));
            events.push(model_event(ctx, "autoformalize", r.round, c, auto, slot(t)));
            t += c.latency_ms as i64;
        }
        if r.verdict.kind() != VerdictKind::ModelError {
            events.push(info_event(r, t, slot(t).offset_s));
        }
        t += r.verify_ms.max(0.0).round() as i64;
    }
    let phi1 = s
        .rounds
        .iter()
        .rev()
        .find_map(|r| r.phi1.clone())
        .unwrap_or_default();
    let score = score(s, &phi1);
    let err = error(s);
    if let Some(sc) = &score {
        events.push(json!({
            "event": "score",
            "timestamp": iso_ms(end_ms),
            "working_start": calls_ms as f64 / 1000.0,
            "score": sc,
            "target": s.phi0,
            "intermediate": false,
        }));
    }
    if let Some(e) = &err {
        events.push(json!({
            "event": "error",
            "timestamp": iso_ms(end_ms),
            "working_start": calls_ms as f64 / 1000.0,
            "error": e,
        }));
    }
    let last_call = s
        .rounds
        .last()
        .map(|r| r.autoformalize.as_ref().unwrap_or(&r.informalize));
    let out = last_call.map_or_else(
        || json!({"model": ctx.model, "choices": [], "completion": phi1}),
        |c| {
            let mut o = output(&ctx.model, c);
            // The completion is the extracted φ₁ the verifier judged.
            o["completion"] = json!(phi1);
            o
        },
    );
    // The final conversation (the autoformalization, or the call that failed): Inspect's
    // messages are one thread, and each call of a round trip was a fresh one.
    let messages: Vec<Value> = events
        .iter()
        .rev()
        .find(|e| e["event"] == "model")
        .map(|e| {
            let mut m = e["input"].as_array().cloned().unwrap_or_default();
            if let Some(a) = e["output"]["choices"][0].get("message") {
                m.push(a.clone());
            }
            m
        })
        .unwrap_or_default();
    let label_list: Vec<Value> = labels
        .map(|ls| {
            ls.iter()
                .map(|l| {
                    json!({"annotator": l.annotator, "categories": l.categories, "note": l.note,
                           "blind": l.blind, "adjudicator": l.adjudicator})
                })
                .collect()
        })
        .unwrap_or_default();
    let usage = json!({
        ctx.model.clone(): {
            "input_tokens": s.input_tokens,
            "output_tokens": s.output_tokens,
            "total_tokens": s.input_tokens + s.output_tokens,
        }
    });
    let scores = score.map_or_else(|| json!({}), |sc| json!({"equivalence": sc}));
    let uuid = format!("{:016x}-{}", ctx.run_hash, s.id);
    let (started, completed) = (iso_ms(start_ms), iso_ms(end_ms));
    let total = calls_ms as f64 / 1000.0;
    let summary_meta = json!({
        "verdict": s.verdict.name(),
        "kinds": kind_ids(s),
        "operators": s.num_operators,
        "depth": s.depth,
    });
    let mut sample = json!({
        "id": sample_id(&s.id),
        "epoch": 1,
        "input": s.phi0,
        "target": s.phi0,
        "messages": messages,
        "output": out,
        "scores": scores,
        "metadata": {
            "psi": s.rounds.first().and_then(|r| r.psi.clone()),
            "operators": s.num_operators,
            "depth": s.depth,
            "syntax": s.syntax,
            "batch": s.batch,
            "verdict": s.verdict.name(),
            "kinds": kind_ids(s),
            "labels": label_list,
            "rounds_passed": s.rounds_passed,
            "closeness": s.closeness,
        },
        "store": {},
        "events": events,
        "model_usage": usage,
        "started_at": started,
        "completed_at": completed,
        "total_time": total,
        "working_time": total,
        "uuid": uuid,
    });
    let mut summary = json!({
        "id": sample_id(&s.id),
        "epoch": 1,
        "input": s.phi0,
        "target": s.phi0,
        "metadata": summary_meta,
        "scores": sample["scores"],
        "model_usage": sample["model_usage"],
        "started_at": started,
        "completed_at": completed,
        "total_time": total,
        "working_time": total,
        "uuid": sample["uuid"],
        "retries": 0,
        "completed": true,
        "message_count": sample["messages"].as_array().map_or(0, Vec::len),
    });
    if let Some(e) = err {
        summary["error"] = e["message"].clone();
        sample["error"] = e;
    }
    Built {
        sample,
        summary,
        span_ms: finished.map(|_| (start_ms, end_ms)),
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
        assert_eq!(sample_id("10"), json!(10));
        assert_eq!(sample_id("010"), json!("010"));
        assert_eq!(sample_id("a-1"), json!("a-1"));
    }
}
