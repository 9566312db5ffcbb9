//! Inspect eval logs (the JSON log format of `inspect_ai`, version 2): one sample per
//! autoeval sample with input φ₀, target φ₀, output φ₁, score C/I with the
//! countermodel as explanation, metadata (ψ, operators, verdict, kinds, labels) and
//! both model conversations as model events. Samples are written as they are read,
//! and the results (which need every sample) come after them in the same object.

use super::{for_each_sample, kind_ids, labels_by_sample, verdict_detail};
use crate::record::{CallRecord, Manifest, SampleRecord};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The log file name Inspect's viewer lists: `<created>_<task>_<id>.json`.
pub fn file_name(m: &Manifest) -> String {
    let created: String = m
        .created
        .chars()
        .map(|c| if c == ':' { '-' } else { c })
        .collect();
    let safe: String =
        m.id.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
    format!("{created}_autoeval-{safe}_{:016x}.json", hash(&m.id))
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn model_of(m: &Manifest) -> String {
    format!("{}/{}", m.model.provider, m.model.name)
}

fn stop_reason(finish: Option<&str>) -> &'static str {
    match finish {
        Some("stop" | "end_turn" | "stop_sequence") => "stop",
        Some("length" | "max_tokens") => "max_tokens",
        Some("content_filter" | "refusal") => "content_filter",
        _ => "unknown",
    }
}

fn user(content: &str, prompt_id: &str) -> Value {
    json!({"role": "user", "content": content, "source": "input",
           "metadata": {"prompt_id": prompt_id}})
}

fn output(model: &str, call: &CallRecord) -> Value {
    let text = call.output.clone().unwrap_or_default();
    let mut o = json!({
        "model": model,
        "choices": [{
            "message": {"role": "assistant", "content": text, "source": "generate", "model": model},
            "stop_reason": stop_reason(call.finish_reason.as_deref()),
        }],
        "completion": text,
        "usage": {
            "input_tokens": call.input_tokens,
            "output_tokens": call.output_tokens,
            "total_tokens": call.input_tokens + call.output_tokens,
        },
        "time": call.latency_ms as f64 / 1000.0,
    });
    if let Some(e) = &call.error {
        o["error"] = json!(e);
    }
    if let Some(c) = call.cost_usd {
        o["usage"]["total_cost"] = json!(c);
    }
    o
}

/// A model event: the prompt's input (the formula or ψ; the template text is not
/// stored in a run, its id is in the message metadata) and the model's answer.
fn event(model: &str, input: &str, call: &CallRecord, when: &str) -> Value {
    let mut e = json!({
        "event": "model",
        "timestamp": when,
        "working_start": 0.0,
        "model": model,
        "input": [user(input, &call.prompt_id)],
        "tools": [],
        "tool_choice": "none",
        "config": {},
        "output": output(model, call),
        "working_time": call.latency_ms as f64 / 1000.0,
    });
    if let Some(err) = &call.error {
        e["error"] = json!(err);
    }
    e
}

/// Inspect's timestamp form (an offset, not `Z`).
fn ts(rfc3339: &str) -> String {
    rfc3339
        .strip_suffix('Z')
        .map_or_else(|| rfc3339.to_string(), |s| format!("{s}+00:00"))
}

/// One sample.
pub fn sample(
    m: &Manifest,
    s: &SampleRecord,
    labels: Option<&Vec<crate::record::LabelRecord>>,
) -> Value {
    let model = model_of(m);
    let when = ts(&s.finished);
    let mut messages = Vec::new();
    let mut events = Vec::new();
    for r in &s.rounds {
        messages.push(user(&r.input, &r.informalize.prompt_id));
        messages.push(
            json!({"role": "assistant", "content": r.informalize.output.clone().unwrap_or_default(),
                             "source": "generate", "model": model}),
        );
        events.push(event(&model, &r.input, &r.informalize, &when));
        if let Some(a) = &r.autoformalize {
            let psi = r.psi.clone().unwrap_or_default();
            messages.push(user(&psi, &a.prompt_id));
            messages.push(
                json!({"role": "assistant", "content": a.output.clone().unwrap_or_default(),
                                 "source": "generate", "model": model}),
            );
            events.push(event(&model, &psi, a, &when));
        }
    }
    let deciding = s.rounds.iter().rev().find(|r| r.phi1.is_some());
    let phi1 = deciding.and_then(|r| r.phi1.clone()).unwrap_or_default();
    let last_call = s
        .rounds
        .last()
        .map(|r| r.autoformalize.as_ref().unwrap_or(&r.informalize));
    let out = last_call.map_or_else(
        || json!({"model": model, "choices": [], "completion": phi1}),
        |c| {
            let mut o = output(&model, c);
            // The completion is the extracted φ₁ the verifier judged.
            o["completion"] = json!(phi1);
            o
        },
    );
    let verdict = &s.verdict;
    let countermodel = match verdict {
        crate::verify::Verdict::NotEquivalent { countermodel, .. } => {
            serde_json::to_value(countermodel).unwrap_or(Value::Null)
        }
        _ => Value::Null,
    };
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
    json!({
        "id": s.id,
        "epoch": 1,
        "input": s.phi0,
        "target": s.phi0,
        "messages": messages,
        "output": out,
        "scores": {
            "equivalence": {
                "value": if verdict.is_equivalent() { "C" } else { "I" },
                "answer": phi1,
                "explanation": verdict_detail(verdict),
                "metadata": {"verdict": verdict.name(), "countermodel": countermodel},
            }
        },
        "metadata": {
            "psi": s.rounds.first().and_then(|r| r.psi.clone()),
            "operators": s.num_operators,
            "depth": s.depth,
            "syntax": s.syntax,
            "batch": s.batch,
            "verdict": verdict.name(),
            "kinds": kind_ids(s),
            "labels": label_list,
            "rounds_passed": s.rounds_passed,
            "closeness": s.closeness,
        },
        "events": events,
        "model_usage": {
            model.clone(): {
                "input_tokens": s.input_tokens,
                "output_tokens": s.output_tokens,
                "total_tokens": s.input_tokens + s.output_tokens,
            }
        },
        "completed_at": when,
        "uuid": format!("{:016x}-{}", hash(&m.id), s.id),
    })
}

/// Writes one run as an Inspect eval log; returns the samples written and warnings.
pub fn write(dir: &Path, out: &mut impl Write) -> anyhow::Result<(usize, Vec<String>)> {
    let m = crate::run::store::read_manifest(dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let labels = labels_by_sample(dir);
    let model = model_of(&m);
    let status = match m.status.as_str() {
        "finished" => "success",
        "cancelled" => "cancelled",
        "failed" => "error",
        _ => "started",
    };
    let dataset = super::dataset_name(&m);
    let head = json!({
        "version": 2,
        "status": status,
        "eval": {
            "eval_id": format!("{:016x}", hash(&format!("eval/{}", m.id))),
            "run_id": m.id,
            "created": ts(&m.created),
            "task": format!("autoeval/{}", m.dataset.kind),
            "task_id": format!("{:016x}", hash(&m.id)),
            "task_version": 0,
            "task_display_name": format!("autoeval {} ({})", m.dataset.kind, m.id),
            "dataset": {"name": dataset, "location": m.dataset.path},
            "model": model,
            "model_generate_config": {"temperature": m.temperature, "max_tokens": m.max_tokens},
            "config": {},
            "packages": {"autoeval": m.tool_version.trim_start_matches("autoeval ")},
            "metadata": {
                "autoeval_command": m.command,
                "rounds": m.rounds,
                "prompts": m.prompts,
                "syntax": m.dataset.syntax,
            },
        },
        "plan": {
            "name": "plan",
            "steps": [
                {"solver": "informalize", "params": {}},
                {"solver": "autoformalize", "params": {}},
                {"solver": "verify-equivalence", "params": {}},
            ],
            "config": {"temperature": m.temperature, "max_tokens": m.max_tokens},
        },
    });
    // Inspect's viewer reads a log's header by streaming its keys up to `samples`, so
    // the results must come first: they are counted from the run's row index, with the
    // one definition of A2/A3 `report` uses, and the samples streamed after them.
    let (rep, _) = crate::report::report_dir(dir, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let counts = &rep.total;
    let n_total = counts.n;
    let a3 = counts.accuracy().unwrap_or(0.0);
    let stderr = if n_total > 1 {
        (a3 * (1.0 - a3) / (n_total as f64 - 1.0)).sqrt()
    } else {
        0.0
    };
    let mut metrics = serde_json::Map::new();
    metrics.insert("accuracy".into(), json!({"name": "accuracy", "value": a3}));
    metrics.insert("stderr".into(), json!({"name": "stderr", "value": stderr}));
    if let Some(a2) = counts.compliance() {
        metrics.insert(
            "compliance".into(),
            json!({"name": "compliance", "value": a2}),
        );
    }
    let (tin, tout) = rep.tokens;
    let mut head = head;
    head["results"] = json!({
        "total_samples": n_total,
        "completed_samples": n_total,
        "scores": [{
            "name": "equivalence",
            "scorer": "equivalence",
            "scored_samples": n_total,
            "unscored_samples": 0,
            "params": {},
            "metrics": metrics,
        }],
    });
    head["stats"] = json!({
        "started_at": ts(&m.created),
        "completed_at": ts(m.updated.as_deref().unwrap_or(&m.created)),
        "model_usage": {
            model: {"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout}
        },
    });
    // The head without its closing brace, then the samples.
    let head_text = serde_json::to_string(&head)?;
    out.write_all(&head_text.as_bytes()[..head_text.len() - 1])?;
    out.write_all(b",\"samples\":[")?;
    let mut n = 0usize;
    let warnings = for_each_sample(dir, |s| {
        if n > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &sample(&m, &s, labels.get(&s.id)))?;
        n += 1;
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    out.write_all(b"]}")?;
    out.flush()?;
    Ok((n, warnings))
}
