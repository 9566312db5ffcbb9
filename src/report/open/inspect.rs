//! Inspect eval logs (`inspect_ai`'s log format, version 2): the header every log
//! carries (task, task arguments, plan, results, stats) and the JSON form
//! (`--format inspect-json`), one object with the samples streamed after the header.
//! The `.eval` form (a zip) is in `inspect_eval`; both build samples in `inspect_sample`.

use super::inspect_sample::{Ctx, build, hash, iso_ms, sample_ms, unix_ms};
use super::{for_each_sample, for_each_sample_kinds, labels_by_sample};
use crate::analysis::counts::Counts;
use crate::record::{Manifest, SampleRecord};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::Path;

/// The log file name Inspect's viewer lists: `<created>_<task>_<id>.<ext>`.
pub fn file_name(m: &Manifest, ext: &str) -> String {
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
    format!("{created}_autoeval-{safe}_{:016x}.{ext}", hash(&m.id))
}

/// Inspect's timestamp form of a manifest time (an offset, not `Z`).
fn ts(rfc3339: &str) -> String {
    unix_ms(rfc3339).map_or_else(|| rfc3339.to_string(), iso_ms)
}

/// What the header needs from every sample, gathered while they are written.
#[derive(Default)]
pub(crate) struct Totals {
    /// A2/A3 counts, the definitions `report` uses.
    pub counts: Counts,
    /// Samples whose model call failed for good (Inspect's sample errors).
    pub errors: usize,
    /// The first such error's message.
    pub first_error: Option<String>,
    /// Prompt and answer tokens.
    pub tokens: (u64, u64),
    /// Earliest sample start and latest sample end, ms since 1970.
    pub span_ms: Option<(i64, i64)>,
}

impl Totals {
    /// Counts one sample (its time span as built).
    pub fn add(&mut self, s: &SampleRecord, span: Option<(i64, i64)>) {
        self.counts.add(s);
        if let crate::verify::Verdict::ModelError { message } = &s.verdict {
            self.errors += 1;
            self.first_error.get_or_insert_with(|| message.clone());
        }
        self.tokens.0 += s.input_tokens;
        self.tokens.1 += s.output_tokens;
        if let Some((a, b)) = span {
            self.span_ms = Some(self.span_ms.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
        }
    }
}

/// The task's arguments: what tells two runs of one dataset apart (shots, prompt hash,
/// reading, sampling, model flags), and every scalar field newer manifests carry.
fn task_args(m: &Manifest) -> Value {
    let mut a = Map::new();
    for (k, v) in &m.extra {
        if !v.is_object() && !v.is_array() {
            a.insert(k.clone(), v.clone());
        }
    }
    let fixed = json!({
        "dataset": super::dataset_name(m),
        "dataset_kind": m.dataset.kind,
        "dataset_path": m.dataset.path,
        "dataset_seed": m.dataset.seed,
        "syntax": m.dataset.syntax,
        "shots": m.prompts.shots,
        "prompt_hash": m.prompts.hash,
        "prompt_source": m.prompts.source,
        "reading": m.reading().name(),
        "temperature": super::temperature(m),
        "max_tokens": m.max_tokens,
        "rounds": m.rounds,
        "verifier_timeout_ms": m.verifier_timeout_ms,
        "provider": m.model.provider,
        "base_url": m.model.base_url,
        "synthetic": m.model.synthetic,
    });
    if let Value::Object(o) = fixed {
        a.extend(o);
    }
    Value::Object(a)
}

/// The log's header (everything but the samples), from the run and its totals.
pub(crate) fn header(m: &Manifest, t: &Totals) -> Value {
    let model = format!("{}/{}", m.model.provider, m.model.name);
    let n = t.counts.n;
    // A run whose every sample failed at the model failed; one with some failures ran
    // (those samples carry their errors).
    let all_failed = n > 0 && t.errors == n;
    let status = match m.status {
        _ if all_failed => "error",
        crate::record::RunStatus::Finished => "success",
        crate::record::RunStatus::Cancelled => "cancelled",
        crate::record::RunStatus::Failed => "error",
        crate::record::RunStatus::Running
        | crate::record::RunStatus::Interrupted
        | crate::record::RunStatus::Other(_) => "started",
    };
    let args = task_args(m);
    let created = ts(&m.created);
    let mut head = json!({
        "version": 2,
        "status": status,
        "eval": {
            "eval_id": format!("{:016x}", hash(&format!("eval/{}", m.id))),
            "run_id": m.id,
            "created": created,
            "task": format!("autoeval/{}", m.dataset.kind),
            "task_id": format!("{:016x}", hash(&m.id)),
            "task_version": 0,
            "task_display_name": format!("autoeval {} ({})", m.dataset.kind, m.id),
            "task_args": args,
            "task_args_passed": args,
            "dataset": {"name": super::dataset_name(m), "location": m.dataset.path, "samples": n},
            "model": model,
            "model_generate_config": {"temperature": super::temperature(m), "max_tokens": m.max_tokens},
            "model_args": {"synthetic": m.model.synthetic, "base_url": m.model.base_url},
            "config": {"epochs": 1, "fail_on_error": false},
            "packages": {"autoeval": m.tool_version.trim_start_matches("autoeval ")},
            "metadata": {
                "autoeval_command": m.command,
                "rounds": m.rounds,
                "prompts": m.prompts,
                "syntax": m.dataset.syntax,
                "synthetic": m.model.synthetic,
            },
            "scorers": [{
                "name": "equivalence",
                "options": {},
                "metrics": [{"name": "accuracy", "options": {}}, {"name": "stderr", "options": {}}],
                "metadata": {},
            }],
        },
        "plan": {
            "name": "plan",
            "steps": [
                {"solver": "informalize", "params": {}},
                {"solver": "autoformalize", "params": {}},
                {"solver": "verify-equivalence", "params": {}},
            ],
            "config": {"temperature": super::temperature(m), "max_tokens": m.max_tokens},
        },
    });
    let c = &t.counts;
    let a3 = c.accuracy().unwrap_or(0.0);
    let stderr = if n > 1 {
        (a3 * (1.0 - a3) / (n as f64 - 1.0)).sqrt()
    } else {
        0.0
    };
    let mut metrics = Map::new();
    metrics.insert("accuracy".into(), json!({"name": "accuracy", "value": a3}));
    metrics.insert("stderr".into(), json!({"name": "stderr", "value": stderr}));
    if let Some(a2) = c.compliance() {
        metrics.insert(
            "compliance".into(),
            json!({"name": "compliance", "value": a2}),
        );
    }
    head["results"] = json!({
        "total_samples": n,
        "completed_samples": n - t.errors,
        "scores": [{
            "name": "equivalence",
            "scorer": "equivalence",
            "scored_samples": n - t.errors,
            "unscored_samples": t.errors,
            "params": {},
            "metrics": metrics,
        }],
    });
    let (tin, tout) = t.tokens;
    // The samples' own times, not the manifest's `updated` (a rescore moves that).
    let (started, completed) = t.span_ms.map_or_else(
        || (created.clone(), created.clone()),
        |(a, b)| (iso_ms(a), iso_ms(b)),
    );
    head["stats"] = json!({
        "started_at": started,
        "completed_at": completed,
        "model_usage": {
            model: {"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout}
        },
    });
    if all_failed {
        let msg = format!(
            "all {n} samples failed at the model: {}",
            t.first_error.as_deref().unwrap_or("")
        );
        head["error"] = json!({"message": msg, "traceback": msg, "traceback_ansi": msg});
    }
    head
}

/// Writes one run as a JSON eval log (`--format inspect-json`); returns the samples
/// written and warnings. The header comes first (Inspect's viewer streams a JSON log's
/// keys up to `samples`), so the samples are read twice: once for the totals.
pub fn write_json(dir: &Path, out: &mut impl Write) -> anyhow::Result<(usize, Vec<String>)> {
    let m = crate::run::store::read_manifest(dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let labels = labels_by_sample(dir);
    let ctx = Ctx::new(&m);
    let mut totals = Totals::default();
    for_each_sample(dir, |s| {
        let span = unix_ms(&s.finished).map(|end| (end - sample_ms(&s), end));
        totals.add(&s, span);
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let head = header(&m, &totals);
    let head_text = serde_json::to_string(&head)?;
    out.write_all(&head_text.as_bytes()[..head_text.len() - 1])?;
    out.write_all(b",\"samples\":[")?;
    let mut n = 0usize;
    let warnings = for_each_sample_kinds(dir, |s, kinds| {
        if n > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(
            &mut *out,
            &build(&ctx, &s, kinds, labels.get(&s.id)).sample(),
        )?;
        n += 1;
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    out.write_all(b"]}")?;
    out.flush()?;
    Ok((n, warnings))
}
