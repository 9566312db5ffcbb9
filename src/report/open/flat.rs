//! Flat exports: one row per sample under one fixed schema ([`columns`]), whatever the
//! run holds, so no reader has to infer a type (an all-null column is still `double`).
//! JSONL (`jsonl-flat`, every line the same keys in the same order, with a dataset card
//! beside it) and Parquet (`parquet`, in `parquet_out`) write the same rows.

use super::{Pick, labels_by_sample, read_picks, verdict_detail};
use crate::llm::judge::JudgeAnswer;
use crate::record::{CallRecord, JudgeRecord, LabelRecord, Manifest, Metric, SampleRecord};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// UTF-8 text.
    Str,
    /// 64-bit signed integer.
    Int,
    /// 64-bit float.
    Float,
    /// Boolean.
    Bool,
    /// List of text.
    StrList,
    /// A UTC time: RFC 3339 text in JSONL, a timestamp (ms, UTC) in Parquet.
    Time,
}

impl Ty {
    /// The Hugging Face `datasets` dtype in a dataset card.
    fn hf(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Int => "int64",
            Ty::Float => "float64",
            Ty::Bool => "bool",
            Ty::StrList => "string",
            Ty::Time => "string",
        }
    }
}

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Missing.
    Null,
    /// Text.
    Str(String),
    /// Integer.
    Int(i64),
    /// Float.
    Float(f64),
    /// Boolean.
    Bool(bool),
    /// List of text.
    List(Vec<String>),
}

impl Cell {
    fn json(&self) -> Value {
        match self {
            Cell::Null => Value::Null,
            Cell::Str(s) => Value::String(s.clone()),
            Cell::Int(i) => Value::from(*i),
            // JSON has no NaN; a non-finite metric is missing.
            Cell::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Cell::Bool(b) => Value::Bool(*b),
            Cell::List(l) => Value::Array(l.iter().cloned().map(Value::String).collect()),
        }
    }
}

/// The fixed columns before the metrics, in order.
const FIXED: &[(&str, Ty)] = &[
    ("run", Ty::Str),
    ("provider", Ty::Str),
    ("model", Ty::Str),
    ("synthetic", Ty::Bool),
    ("dataset", Ty::Str),
    ("syntax", Ty::Str),
    ("shots", Ty::Int),
    ("prompt_hash", Ty::Str),
    ("reading", Ty::Str),
    ("temperature", Ty::Float),
    ("id", Ty::Str),
    ("idx", Ty::Int),
    ("batch", Ty::Int),
    ("num_operators", Ty::Int),
    ("depth", Ty::Int),
    ("phi0", Ty::Str),
    ("psi", Ty::Str),
    ("phi1", Ty::Str),
    ("verdict", Ty::Str),
    ("passed", Ty::Bool),
    ("compliant", Ty::Bool),
    ("verdict_detail", Ty::Str),
    ("countermodel", Ty::Str),
    ("kinds", Ty::StrList),
    ("rounds", Ty::Int),
    ("rounds_passed", Ty::Int),
    ("input_tokens", Ty::Int),
    ("output_tokens", Ty::Int),
    ("reasoning_tokens", Ty::Int),
    ("cost_usd", Ty::Float),
    ("finished", Ty::Time),
    ("judge_model", Ty::Str),
    ("judge_answer", Ty::Str),
    ("judge_agrees", Ty::Bool),
    ("labels", Ty::StrList),
    ("annotators", Ty::Int),
];

/// Every column and its type, in file order: the fixed ones, then each stored metric.
pub fn columns() -> Vec<(&'static str, Ty)> {
    let mut c = FIXED.to_vec();
    c.extend(Metric::ALL.iter().map(|m| (m.name(), Ty::Float)));
    c
}

/// Reasoning tokens of one call (0 until runs record them).
pub(crate) fn call_reasoning_tokens(call: &CallRecord) -> u64 {
    call.reasoning_token_count()
}

/// Reasoning tokens of a sample; `None` (null in the export) when no call reported any:
/// the provider did not say, which is not 0.
fn reasoning_tokens(s: &SampleRecord) -> Option<u64> {
    s.calls()
        .any(|c| c.reasoning_tokens.is_some())
        .then(|| s.calls().map(call_reasoning_tokens).sum())
}

/// What a run's rows share: the manifest, labels and the newest judge answer per sample.
pub(crate) struct RunRows {
    m: Manifest,
    labels: std::collections::BTreeMap<String, Vec<LabelRecord>>,
    judge: HashMap<String, (String, JudgeAnswer)>,
    /// Judge records skipped.
    pub warnings: Vec<String>,
    /// How a reference task's samples count (None: a dataset run).
    task: Option<crate::analysis::counts::TaskScoring>,
}

impl RunRows {
    /// Reads a run's manifest, labels and judge answers.
    pub fn load(dir: &Path) -> Result<RunRows, super::ExportError> {
        let m = crate::run::store::read_manifest(dir).map_err(super::ExportError::failed)?;
        let j = crate::run::store::read_jsonl::<JudgeRecord>(&dir.join(crate::run::store::JUDGE))
            .map_err(super::ExportError::failed)?;
        let mut judge = HashMap::new();
        for r in j.records {
            // Later lines are newer decisions.
            judge.insert(
                r.id,
                (format!("{}/{}", r.model.provider, r.model.name), r.answer),
            );
        }
        Ok(RunRows {
            labels: labels_by_sample(dir),
            task: crate::run::task::scoring_of(&m),
            m,
            judge,
            warnings: j.warnings,
        })
    }

    /// The judge's cells of sample `id` (verdict `kind`): the judge model, its answer, and
    /// whether it agrees with the verifier.
    fn judge_cells(&self, id: &str, kind: crate::verify::VerdictKind) -> [Cell; 3] {
        let judge = self.judge.get(id);
        let answer = judge.map(|(_, a)| *a);
        let agrees = match answer {
            Some(JudgeAnswer::Yes) => Cell::Bool(kind.is_pass()),
            Some(JudgeAnswer::No) => Cell::Bool(!kind.is_pass()),
            _ => Cell::Null,
        };
        let answer_name = answer.map_or(Cell::Null, |a| {
            Cell::Str(
                match a {
                    JudgeAnswer::Yes => "yes",
                    JudgeAnswer::No => "no",
                    JudgeAnswer::Unparseable => "unparseable",
                }
                .to_string(),
            )
        });
        [
            judge.map_or(Cell::Null, |(m, _)| Cell::Str(m.clone())),
            answer_name,
            agrees,
        ]
    }

    /// One sample's row, in [`columns`] order (`kinds`: its failure kinds' ids).
    pub fn row(&self, s: &SampleRecord, kinds: &[&str]) -> Vec<Cell> {
        use crate::verify::Verdict;
        let m = &self.m;
        let str = |x: &str| Cell::Str(x.to_string());
        let opt_str = |x: Option<&String>| x.map_or(Cell::Null, |v| Cell::Str(v.clone()));
        let int = |x: u64| Cell::Int(i64::try_from(x).unwrap_or(i64::MAX));
        let opt_int = |x: Option<usize>| x.map_or(Cell::Null, |v| int(v as u64));
        let first = s.rounds.first();
        let last = s.rounds.iter().rev().find(|r| r.phi1.is_some());
        let kind = s.verdict.kind();
        let countermodel = match &s.verdict {
            Verdict::NotEquivalent { countermodel, .. } => {
                Cell::Str(serde_json::to_string(countermodel).unwrap_or_default())
            }
            _ => Cell::Null,
        };
        let labels = self.labels.get(&s.id);
        let [judge_model, answer_name, agrees] = self.judge_cells(&s.id, kind);
        let mut row = vec![
            str(&m.id),
            str(&m.model.provider),
            str(&m.model.name),
            Cell::Bool(m.model.synthetic),
            str(&m.dataset.kind),
            Cell::Str(syntax_name(s.syntax)),
            int(m.prompts.shots as u64),
            str(&m.prompts.hash),
            str(m.reading().name()),
            super::temperature(m).map_or(Cell::Null, Cell::Float),
            str(&s.id),
            int(s.idx as u64),
            opt_int(s.batch),
            opt_int(s.num_operators),
            opt_int(s.depth),
            str(&s.phi0),
            opt_str(first.and_then(|r| r.psi.as_ref())),
            opt_str(last.and_then(|r| r.phi1.as_ref())),
            str(s.verdict.name()),
            // folio-i is scored by text metrics: it has no pass (A3).
            if self.task == Some(crate::analysis::counts::TaskScoring::Text) {
                Cell::Null
            } else {
                Cell::Bool(kind.is_pass())
            },
            // A2 is over answered samples only: missing for copies and model errors.
            // A reference task's sample counts by its task's rule (a reply without a
            // marked answer is not compliant), as `report` and `leaderboard` count it.
            match self.task {
                _ if kind == crate::verify::VerdictKind::ModelError => Cell::Null,
                Some(how) => Cell::Bool(crate::analysis::counts::task_compliant(kind, how)),
                None if kind.answered() => Cell::Bool(kind.compliant()),
                None => Cell::Null,
            },
            str(&verdict_detail(&s.verdict)),
            countermodel,
            Cell::List(kinds.iter().map(|k| (*k).to_string()).collect()),
            int(s.rounds.len() as u64),
            int(s.rounds_passed as u64),
            int(s.input_tokens),
            int(s.output_tokens),
            reasoning_tokens(s).map_or(Cell::Null, int),
            s.cost_usd.map_or(Cell::Null, Cell::Float),
            str(&s.finished),
            judge_model,
            answer_name,
            agrees,
            Cell::List(label_categories(labels)),
            int(labels.map_or(0, Vec::len) as u64),
        ];
        for metric in Metric::ALL {
            row.push(
                s.closeness
                    .and_then(|c| c.get(metric))
                    .map_or(Cell::Null, Cell::Float),
            );
        }
        row
    }
}

/// The categories of a sample's labels, sorted, each once.
fn label_categories(labels: Option<&Vec<LabelRecord>>) -> Vec<String> {
    let mut cats: Vec<String> = labels
        .map(|ls| {
            ls.iter()
                .flat_map(|l| l.categories.iter().cloned())
                .collect()
        })
        .unwrap_or_default();
    cats.sort();
    cats.dedup();
    cats
}

/// `pl`, `fol` or `regex`: the syntax as run files spell it.
fn syntax_name(k: crate::syntax::SyntaxKind) -> String {
    match serde_json::to_value(k) {
        Ok(Value::String(s)) => s,
        _ => format!("{k:?}").to_ascii_lowercase(),
    }
}

/// Writes one row as a JSON line, keys in [`columns`] order.
pub fn write_line(
    out: &mut impl Write,
    cols: &[(&'static str, Ty)],
    row: Vec<Cell>,
) -> std::io::Result<()> {
    out.write_all(b"{")?;
    for (i, ((name, _), cell)) in cols.iter().zip(row).enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, name)?;
        out.write_all(b":")?;
        serde_json::to_writer(&mut *out, &cell.json())?;
    }
    out.write_all(b"}\n")
}

/// The failure kinds of a row index mask, as ids.
pub(crate) fn kind_ids(mask: u32) -> Vec<&'static str> {
    crate::analysis::kinds::unmask(mask)
        .iter()
        .map(|k| k.id())
        .collect()
}

/// Writes the samples `picks` points at as flat JSONL to `out`, advancing `bar` once a
/// sample; returns the samples written and warnings.
pub(crate) fn write(
    dir: &Path,
    picks: &[Pick],
    out: &mut impl Write,
    bar: &indicatif::ProgressBar,
) -> Result<(usize, Vec<String>), super::ExportError> {
    let rows = RunRows::load(dir)?;
    let cols = columns();
    let mut n = 0;
    let mut warnings = rows.warnings.clone();
    warnings.extend(
        read_picks(dir, picks, |s, mask| {
            write_line(out, &cols, rows.row(&s, &kind_ids(mask)))?;
            n += 1;
            bar.inc(1);
            Ok(())
        })
        .map_err(super::ExportError::failed)?,
    );
    Ok((n, warnings))
}

/// The line that marks a README.md as a card `export` wrote (and may rewrite).
pub const CARD_MARK: &str = "Written by `autoeval export`.";

/// The dataset card at the root of a flat export (the data under `data/`, as on the
/// Hub): Hugging Face `datasets` reads the `features` block as the schema instead of
/// inferring one per file. `parquet`: the files are Parquet, where `finished` is a
/// timestamp (in JSONL it is RFC 3339 text).
pub fn dataset_card(data_files: &str, parquet: bool) -> String {
    let hf = |ty: Ty| {
        if parquet && ty == Ty::Time {
            "timestamp[ms, tz=UTC]"
        } else {
            ty.hf()
        }
    };
    let mut s =
        String::from("---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n");
    s.push_str(&format!("    path: \"{data_files}\"\n"));
    s.push_str("dataset_info:\n  features:\n");
    for (name, ty) in columns() {
        if ty == Ty::StrList {
            s.push_str(&format!("  - name: {name}\n    sequence: {}\n", ty.hf()));
        } else {
            s.push_str(&format!("  - name: {name}\n    dtype: {}\n", hf(ty)));
        }
    }
    s.push_str("---\n\n# autoeval runs, one row per sample\n\n");
    s.push_str(
        "Written by `autoeval export`. Every file has the columns below with these types \
         (null where a sample has no value); `kinds` and `labels` are lists of ids, \
         `countermodel` is a JSON string, `compliant` (A2) is null for samples whose \
         autoformalization was never answered (copies, model errors) and follows the \
         task's rule for reference tasks (`report` and `leaderboard` count alike), \
         `judge_agrees` is \
         null without a judge answer. Group by `run`, or by `model`, `dataset`, `shots` and \
         `prompt_hash` together: runs that differ in prompts are not comparable.\n\n\
         | column | type |\n|---|---|\n",
    );
    for (name, ty) in columns() {
        let t = if ty == Ty::StrList {
            "list<string>"
        } else {
            hf(ty)
        };
        s.push_str(&format!("| `{name}` | {t} |\n"));
    }
    s
}
