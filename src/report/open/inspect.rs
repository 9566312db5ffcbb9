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

/// Which part of a run one log holds: runs over `--samples-per-log` samples, or with
/// dataset batches, are written as several logs of one eval set.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Part {
    /// 0-based index among the run's logs.
    pub index: usize,
    /// How many logs the run has (0 or 1: one, named and identified as before).
    pub count: usize,
    /// The dataset batch the log holds, when the dataset has several.
    pub batch: Option<u16>,
    /// The eval set the log belongs to (every log of one export); 0: the run's own.
    pub set: u64,
}

impl Part {
    /// The run's task id for this part (the run's own when it is the only part).
    fn task_id(&self, m: &Manifest) -> String {
        if self.count <= 1 {
            format!("{:016x}", hash(&m.id))
        } else {
            format!("{:016x}", hash(&format!("{}/{}", m.id, self.index)))
        }
    }
}

/// The eval set id of a log: the export's, else one of the run's own.
fn eval_set_id(m: &Manifest, part: Part) -> String {
    let set = if part.set == 0 {
        hash(&format!("set/{}", m.id))
    } else {
        part.set
    };
    format!("{set:016x}")
}

/// One task of the export's `eval-set.json` (Inspect's `EvalSetTask`): the log's task,
/// id, arguments and model, in export order.
pub(crate) fn eval_set_task(m: &Manifest, part: Part, sequence: usize) -> Value {
    let head = header(m, &Totals::default(), part);
    json!({
        "name": task_name(m),
        "task_id": part.task_id(m),
        "task_file": null,
        "task_args": head["eval"]["task_args"],
        "model": head["eval"]["model"],
        "model_args": head["eval"]["model_args"],
        "sequence": sequence,
    })
}

/// Inspect's `eval-set.json`: the set's id and its tasks.
pub(crate) fn eval_set(set: u64, tasks: Vec<Value>) -> Value {
    json!({"eval_set_id": format!("{set:016x}"), "tasks": tasks})
}

/// The task name, the same in the header and the file name: Inspect's file names put
/// the task between the first two `_`, so neither `_` nor `/` may appear in it.
pub(crate) fn task_name(m: &Manifest) -> String {
    let kind: String = m
        .dataset
        .kind
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("autoeval-{kind}")
}

/// The log file name Inspect's viewer lists: `<created>_<task>_<task id>.<ext>`, as
/// Inspect names its own (`inspect log list` reads the task from it).
pub fn file_name(m: &Manifest, ext: &str) -> String {
    part_file_name(m, Part::default(), ext)
}

/// [`file_name`] of one part of a run.
pub(crate) fn part_file_name(m: &Manifest, part: Part, ext: &str) -> String {
    let created: String = m
        .created
        .chars()
        .map(|c| if c == ':' { '-' } else { c })
        .collect();
    format!("{created}_{}_{}.{ext}", task_name(m), part.task_id(m))
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
    /// Reasoning tokens, when some call recorded them.
    pub reasoning: Option<u64>,
    /// Cost in US dollars, when some sample has one.
    pub cost: Option<f64>,
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
        if let Some(r) = super::inspect_sample::reasoning_tokens(s) {
            self.reasoning = Some(self.reasoning.unwrap_or(0) + r);
        }
        if let Some(c) = s.cost_usd {
            self.cost = Some(self.cost.unwrap_or(0.0) + c);
        }
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

/// The eval's tags: the dataset kind, the shots, the prompt set's hash and whether the
/// model was the offline one, so Inspect's log list can filter by them.
fn tags(m: &Manifest, part: Part) -> Vec<String> {
    let mut t = vec![
        m.dataset.kind.clone(),
        format!("{}-shot", m.prompts.shots),
        format!(
            "prompts-{}",
            m.prompts.hash.chars().take(8).collect::<String>()
        ),
    ];
    if m.model.synthetic {
        t.push("synthetic".into());
    }
    if let Some(b) = part.batch {
        t.push(format!("batch-{b}"));
    }
    t
}

/// The log's header (everything but the samples), from the run and its totals.
pub(crate) fn header(m: &Manifest, t: &Totals, part: Part) -> Value {
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
        | crate::record::RunStatus::Paused
        | crate::record::RunStatus::Interrupted
        | crate::record::RunStatus::Other(_) => "started",
    };
    let created = ts(&m.created);
    let mut head = json!({
        "version": 2,
        "status": status,
        "eval": eval_json(m, part, n, &model, &created),
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
    head["results"] = results_json(t);
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
            model: usage_json(tin, tout, t.reasoning, t.cost)
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

/// The header's `eval`: the task, its arguments, the dataset, the model and the scorer
/// (`n` samples, `created` the run's start).
fn eval_json(m: &Manifest, part: Part, n: usize, model: &str, created: &str) -> Value {
    let mut args = task_args(m);
    if part.count > 1 {
        args["part"] = json!(part.index + 1);
        args["parts"] = json!(part.count);
    }
    if let Some(b) = part.batch {
        args["batch"] = json!(b);
    }
    let task_id = part.task_id(m);
    let display = if part.count > 1 {
        format!(
            "autoeval {} ({}) {}/{}",
            m.dataset.kind,
            m.id,
            part.index + 1,
            part.count
        )
    } else {
        format!("autoeval {} ({})", m.dataset.kind, m.id)
    };
    json!({
        "eval_id": format!("{:016x}", hash(&format!("eval/{task_id}"))),
        "eval_set_id": eval_set_id(m, part),
        "run_id": m.id,
        "created": created,
        "task": task_name(m),
        "task_id": task_id,
        "task_version": 0,
        "task_display_name": display,
        "tags": tags(m, part),
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
            "metrics": [
                {"name": "accuracy", "options": {}},
                {"name": "stderr", "options": {}},
                {"name": "a3", "options": {}},
                {"name": "compliance", "options": {}},
            ],
            "metadata": {},
        }],
    })
}

/// The header's `results`: the equivalence scorer's metrics.
fn results_json(t: &Totals) -> Value {
    let n = t.counts.n;
    let c = &t.counts;
    // Inspect's `accuracy()` is the mean over the samples that have a score: a model
    // error is a sample error there, not a failure. A3 (the paper's) counts it as a
    // failure over all samples; it is its own metric.
    let scored = n - t.errors;
    let accuracy = if scored > 0 {
        c.accurate as f64 / scored as f64
    } else {
        0.0
    };
    let stderr = if scored > 1 {
        (accuracy * (1.0 - accuracy) / (scored as f64 - 1.0)).sqrt()
    } else {
        0.0
    };
    let mut metrics = Map::new();
    metrics.insert(
        "accuracy".into(),
        json!({"name": "accuracy", "value": accuracy}),
    );
    metrics.insert("stderr".into(), json!({"name": "stderr", "value": stderr}));
    metrics.insert(
        "a3".into(),
        json!({"name": "a3", "value": c.accuracy().unwrap_or(0.0)}),
    );
    if let Some(a2) = c.compliance() {
        metrics.insert(
            "compliance".into(),
            json!({"name": "compliance", "value": a2}),
        );
    }
    json!({
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
    })
}

/// A model's usage totals (reasoning tokens and cost only when recorded).
fn usage_json(tin: u64, tout: u64, reasoning: Option<u64>, cost: Option<f64>) -> Value {
    let mut u = json!({"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout});
    if let Some(r) = reasoning {
        u["reasoning_tokens"] = json!(r);
    }
    if let Some(c) = cost {
        u["total_cost"] = json!(c);
    }
    u
}

/// Writes one run as a JSON eval log (`--format inspect-json`); returns the samples
/// written and warnings. The header comes first (Inspect's viewer streams a JSON log's
/// keys up to `samples`), so the samples are read twice: once for the totals.
pub fn write_json(
    dir: &Path,
    out: &mut impl Write,
) -> Result<(usize, Vec<String>), super::ExportError> {
    let m = crate::run::store::read_manifest(dir).map_err(super::ExportError::failed)?;
    let labels = labels_by_sample(dir);
    let ctx = Ctx::new(&m);
    let mut totals = Totals::default();
    for_each_sample(dir, |s| {
        let span = unix_ms(&s.finished).map(|end| (end - sample_ms(&s), end));
        totals.add(&s, span);
        Ok(())
    })
    .map_err(super::ExportError::failed)?;
    let head = header(&m, &totals, Part::default());
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
    .map_err(super::ExportError::failed)?;
    out.write_all(b"]}")?;
    out.flush()?;
    Ok((n, warnings))
}
