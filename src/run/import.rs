//! Importing the original AutoEval's run files (`dataset_nlfs_<model>[_verified].json`).

use super::rescore::{Prompts, Rescored, rescore_with};
use super::store::{self, Appender, JUDGE, SAMPLES};
use crate::analysis::closeness::closeness_within;
use crate::dataset::{Dataset, Item};
use crate::llm::ModelInfo;
use crate::llm::judge::JudgeAnswer;
use crate::record::{
    CallRecord, DatasetInfo, FORMAT, JudgeRecord, Manifest, PromptInfo, RoundRecord, SampleRecord,
    now_rfc3339,
};
use crate::syntax::{Expr, Reading, SyntaxKind};
use crate::verify::{self, Countermodel, Verdict, VerdictKind};
use serde_json::Value;
use std::path::Path;

pub use super::store::{ORIGINAL_PROMPTS, stored_prompts};

/// A stored verdict that our verifier contradicts.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Disagreement {
    /// Sample id.
    pub id: String,
    /// φ₀.
    pub phi0: String,
    /// φ₁ as the model wrote it.
    pub llm_fs: String,
    /// The original's verdict.
    pub stored: String,
    /// Ours.
    pub ours: String,
    /// Which kind of disagreement: `stored → ours` by verdict kind, e.g.
    /// `unparseable → not-equivalent` (the original errored, we decided).
    pub kind: String,
}

/// Result of an import.
#[derive(Debug, Default)]
pub struct ImportSummary {
    /// Samples written.
    pub samples: usize,
    /// Judge records written.
    pub judged: usize,
    /// Items skipped, with reasons.
    pub skipped: Vec<String>,
    /// Disagreements (with --reverify).
    pub disagreements: Vec<Disagreement>,
    /// With --reverify: (stored kind, our kind) → samples, agreements included.
    pub table: std::collections::BTreeMap<(VerdictKind, VerdictKind), usize>,
}

fn model_from_filename(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.strip_suffix("_verified").unwrap_or(&stem);
    match stem.split_once("_nlfs_") {
        Some((_, m)) if !m.is_empty() => m.to_string(),
        _ => "unknown".to_string(),
    }
}

fn stored_verdict(item: &serde_json::Map<String, Value>) -> Option<Verdict> {
    let v = item.get("verification")?;
    let err = v
        .get("has_error")
        .and_then(Value::as_str)
        .map(str::to_string);
    Some(match v.get("is_equivalent").and_then(Value::as_bool) {
        Some(true) => Verdict::Equivalent { notes: vec!["verdict imported from the original tool".into()] },
        Some(false) => Verdict::NotEquivalent {
            countermodel: Countermodel::Imported {
                note: "verdict imported from the original tool, which keeps no countermodel; import with --reverify to compute one".into(),
            },
            notes: vec![],
        },
        None => match err {
            Some(e) => Verdict::Unparseable { pos: 0, reason: format!("original tool: {e}") },
            None => Verdict::Unknown { reason: "the original tool recorded no verdict".into() },
        },
    })
}

/// The conversation's turns, split at the `"RESET"` marker.
fn turns(item: &serde_json::Map<String, Value>) -> Option<(&[Value], &[Value])> {
    let turns = item
        .get("conversations")
        .or_else(|| item.get("conversation"))
        .and_then(Value::as_array)?;
    let reset = turns
        .iter()
        .position(|t| t.as_str() == Some("RESET"))
        .unwrap_or(turns.len());
    Some((&turns[..reset], turns.get(reset + 1..).unwrap_or(&[])))
}

fn content(t: &Value) -> Option<&str> {
    t.get("content").and_then(Value::as_str)
}

fn is_user(t: &Value) -> bool {
    t.get("role").and_then(Value::as_str) == Some("user")
}

/// The model's turn of one conversation half: the last turn after the first user turn
/// that is not a user turn, whatever its role (the original stores the model's turns
/// as `assistant` or as `system`).
fn model_turn(half: &[Value]) -> Option<String> {
    let first_user = half.iter().position(is_user)?;
    half[first_user + 1..]
        .iter()
        .rev()
        .find(|t| !is_user(t) && t.is_object())
        .and_then(content)
        .map(str::to_string)
}

/// ψ: the model's answer before the conversation's `"RESET"` marker.
fn psi_of(item: &serde_json::Map<String, Value>) -> Option<String> {
    model_turn(turns(item)?.0)
}

/// The autoformalization prompt: the first user turn after `"RESET"`.
fn autoformalize_prompt(item: &serde_json::Map<String, Value>) -> Option<String> {
    turns(item)?
        .1
        .iter()
        .find(|t| is_user(t))
        .and_then(content)
        .map(str::to_string)
}

/// Why an import could not be done.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The output directory already holds a run.
    #[error("{0} already holds a run; choose another --out")]
    OutExists(String),
    /// The original file does not read as a dataset.
    #[error(transparent)]
    Dataset(#[from] crate::dataset::DatasetError),
    /// Writing the run directory.
    #[error(transparent)]
    Store(#[from] store::StoreError),
}

/// Converts an original run file into a run directory (replies read under the
/// standard convention; `import_as` takes another).
pub fn import(
    file: &Path,
    out: &Path,
    reverify: bool,
    opts: &verify::Options,
) -> Result<ImportSummary, ImportError> {
    import_as(
        file,
        out,
        reverify,
        opts,
        Reading::Standard,
        &indicatif::ProgressBar::hidden(),
    )
}

/// [`import`] with the replies read under `reading` (recorded in `run.json`), advancing
/// `bar` (its length set to the file's samples) once a sample.
pub(crate) fn import_as(
    file: &Path,
    out: &Path,
    reverify: bool,
    opts: &verify::Options,
    reading: Reading,
    bar: &indicatif::ProgressBar,
) -> Result<ImportSummary, ImportError> {
    if out.join(store::MANIFEST).exists() {
        return Err(ImportError::OutExists(out.display().to_string()));
    }
    let ds = Dataset::load(file)?;
    std::fs::create_dir_all(out)
        .map_err(|e| store::StoreError::Io(out.display().to_string(), e))?;
    let mut summary = ImportSummary {
        skipped: ds.skipped.clone(),
        ..Default::default()
    };
    let mut samples = Appender::open(&out.join(SAMPLES))?;
    let mut judge = Appender::open(&out.join(JUDGE))?;
    let mut prompts = Appender::open(&out.join(ORIGINAL_PROMPTS))?;
    let mut kept_prompts = std::collections::HashMap::new();
    bar.set_length(ds.exprs.len() as u64);
    for (item, phi0) in ds.file.data.iter().zip(&ds.exprs) {
        bar.inc(1);
        let (mut rec, prompt) = imported_sample(item, phi0, ds.syntax, reading);
        if !prompt.is_empty() {
            prompts.append(&serde_json::json!({"id": rec.id, "prompt": prompt}))?;
            kept_prompts.insert(rec.id.clone(), prompt);
        }
        if reverify {
            // The very path `rescore` takes, so a rescore of the import changes nothing.
            match rescore_with(&rec, &Prompts::Stored(&kept_prompts), 1, opts, reading) {
                Rescored::Scored(r) => rec = *r,
                Rescored::NeedsCalls(why) => {
                    rec.verdict = Verdict::Unknown { reason: why };
                }
            }
            compare_with_stored(item, phi0, &rec, &mut summary);
        }
        samples.append_sample(&rec)?;
        summary.samples += 1;
        for j in judge_records(item, &rec) {
            judge.append(&j)?;
            summary.judged += 1;
        }
    }
    let manifest = manifest_of(file, out, &ds, opts, reverify, reading);
    store::write_manifest(out, &manifest)?;
    if reverify {
        let mut d = Appender::open(&out.join("disagreements.jsonl"))?;
        for x in &summary.disagreements {
            d.append(x)?;
        }
    }
    Ok(summary)
}

/// The model of an imported run or judge (`provider` "imported").
fn imported_model(name: String) -> ModelInfo {
    ModelInfo {
        provider: "imported".into(),
        name,
        base_url: None,
        api_key_env: None,
        synthetic: false,
    }
}

/// One original item as a one-round sample with the original's verdict, and its
/// autoformalization prompt (empty when the original kept none).
fn imported_sample(
    item: &Item,
    phi0: &Expr,
    syntax: SyntaxKind,
    reading: Reading,
) -> (SampleRecord, String) {
    let id = item.idx.to_string();
    let llm_fs = item
        .extra
        .get("llm_fs")
        .and_then(Value::as_str)
        .map(str::to_string);
    let error = item
        .extra
        .get("error")
        .and_then(Value::as_str)
        .map(str::to_string);
    let cost = item.extra.get("cost").and_then(Value::as_f64);
    let psi = psi_of(&item.extra);
    let prompt = autoformalize_prompt(&item.extra).unwrap_or_default();
    let parsed = llm_fs.as_deref().map(|t| {
        super::score::extract_phi1(
            t,
            phi0,
            &prompt,
            psi.as_deref().unwrap_or(""),
            syntax,
            reading,
        )
    });
    let phi1 = parsed.as_ref().and_then(|r| r.as_ref().ok());
    // No reply and no error: the original failed the call without saying why.
    let error = error.or_else(|| llm_fs.is_none().then(|| "no answer recorded".to_string()));
    let stored = match (&error, &parsed) {
        (Some(e), _) => Verdict::ModelError { message: e.clone() },
        (None, Some(Err(v))) => (**v).clone(),
        (None, _) => stored_verdict(&item.extra).unwrap_or(Verdict::Unknown {
            reason: "no stored verdict".into(),
        }),
    };
    let round = RoundRecord {
        round: 1,
        input: phi0.to_unicode(),
        informalize: CallRecord {
            prompt_id: "original".into(),
            output: psi.clone(),
            ..Default::default()
        },
        psi,
        autoformalize: Some(CallRecord {
            prompt_id: "original".into(),
            output: llm_fs,
            error,
            cost_usd: cost,
            ..Default::default()
        }),
        phi1: phi1.map(|x| x.value.expr.to_unicode()),
        phi1_span: phi1.map(|x| (x.start, x.end)),
        verdict: stored.clone(),
        verify_ms: 0.0,
    };
    let rec = SampleRecord {
        id,
        idx: item.idx,
        batch: item.batch,
        syntax,
        phi0: phi0.to_unicode(),
        phi0_original: item.fs.clone(),
        num_operators: item.num_operators,
        depth: item.depth,
        closeness: phi1.and_then(|x| closeness_within(phi0, &x.value.expr)),
        rounds_passed: usize::from(stored.is_equivalent()),
        verdict: stored,
        rounds: vec![round],
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: cost,
        finished: now_rfc3339(),
        task: None,
    };
    (rec, prompt)
}

/// Counts the reverified verdict of `rec` against the original's (kept in the
/// summary's table, a disagreement listed).
fn compare_with_stored(item: &Item, phi0: &Expr, rec: &SampleRecord, summary: &mut ImportSummary) {
    // No stored verification but a stored error: the original failed the sample.
    let stored = stored_verdict(&item.extra).or_else(|| {
        item.extra
            .get("error")
            .and_then(Value::as_str)
            .map(|e| Verdict::ModelError { message: e.into() })
    });
    let Some(stored) = stored else {
        return;
    };
    let pair = (stored.kind(), rec.verdict.kind());
    *summary.table.entry(pair).or_default() += 1;
    if pair.0 != pair.1 {
        let llm_fs = item.extra.get("llm_fs").and_then(Value::as_str);
        summary.disagreements.push(Disagreement {
            id: rec.id.clone(),
            phi0: phi0.to_unicode(),
            llm_fs: llm_fs.unwrap_or_default().to_string(),
            stored: stored.name().into(),
            ours: rec.verdict.name().into(),
            kind: format!("{} → {}", pair.0.name(), pair.1.name()),
        });
    }
}

/// The original's judge verdicts of an item (`llm_verification`), beside the verdict
/// of `rec`.
fn judge_records(item: &Item, rec: &SampleRecord) -> Vec<JudgeRecord> {
    let Some(judges) = item
        .extra
        .get("llm_verification")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    judges
        .iter()
        .map(|(jm, v)| {
            let answer = match v.get("is_equivalent").and_then(Value::as_bool) {
                Some(true) => JudgeAnswer::Yes,
                Some(false) => JudgeAnswer::No,
                None => JudgeAnswer::Unparseable,
            };
            let raw = v
                .get("conversations")
                .and_then(Value::as_array)
                .and_then(|c| {
                    c.iter()
                        .rev()
                        .find_map(|t| t.get("content").and_then(Value::as_str))
                })
                .map(str::to_string);
            JudgeRecord {
                id: rec.id.clone(),
                model: imported_model(jm.clone()),
                answer,
                call: CallRecord {
                    prompt_id: "original".into(),
                    output: raw,
                    ..Default::default()
                },
                verifier: rec.verdict.name().into(),
                time: now_rfc3339(),
            }
        })
        .collect()
}

/// The imported run's manifest: the original file's dataset info, model and reading.
fn manifest_of(
    file: &Path,
    out: &Path,
    ds: &Dataset,
    opts: &verify::Options,
    reverify: bool,
    reading: Reading,
) -> Manifest {
    let info = &ds.file.info;
    Manifest {
        format: FORMAT.into(),
        id: out
            .file_name()
            .map_or_else(|| "imported".into(), |s| s.to_string_lossy().into_owned()),
        created: now_rfc3339(),
        tool_version: format!("autoeval {}", env!("CARGO_PKG_VERSION")),
        command: std::env::args().collect(),
        dataset: DatasetInfo {
            sha256: None,
            kind: info
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("dataset")
                .to_string(),
            syntax: ds.syntax,
            path: Some(file.display().to_string()),
            seed: info.get("seed").and_then(Value::as_u64),
            params: info
                .iter()
                .filter(|(k, _)| k.as_str() != "grammar")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            items: ds.file.data.len(),
            filter_field: ds.filter_field(),
        },
        model: imported_model(model_from_filename(file)),
        temperature: Some(0.0),
        max_tokens: 0,
        prompts: PromptInfo {
            source: "original".into(),
            shots: 0,
            hash: String::new(),
        },
        rounds: 1,
        verifier_timeout_ms: opts.timeout.as_millis() as u64,
        concurrency: 1,
        status: crate::record::RunStatus::Finished,
        updated: Some(now_rfc3339()),
        task: None,
        extra: [
            (
                "imported_from".to_string(),
                Value::from(file.display().to_string()),
            ),
            ("reverified".to_string(), Value::from(reverify)),
            (
                crate::record::READING_KEY.to_string(),
                Value::from(reading.name()),
            ),
        ]
        .into_iter()
        .collect(),
    }
}
