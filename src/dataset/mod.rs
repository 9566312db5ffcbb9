//! Dataset files: the original AutoEval JSON layout plus our richer fields.
//!
//! Written: `{"info": {...}, "metadata": {field: {"total": N, "<value>": count}},
//! "data": [{"idx", "fs", "depth", "num_operators", …}], "<field>": {"<value>": [idx…]}}`
//! exactly as the original's tooling expects, with extra keys that old readers ignore.

pub mod folio;
pub mod limit;
pub mod stream;
pub mod task_kind;
pub mod tasks;

use crate::grammar::generator::{Batch, BucketReport, GenItem, GenParams};
use crate::grammar::{Cfg, DatasetKind, Metric};
use crate::syntax::{Expr, Notation, SyntaxKind, logic_metrics, parse, regex_metrics};
use crate::verify::automata::Dfa;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// One dataset item.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Item {
    /// Index, unique within the file.
    pub idx: usize,
    /// The formula in the original's notation (`v` for ∨).
    pub fs: String,
    /// Generation level (the original's `depth`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// Operator count (logic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_operators: Option<usize>,
    /// The original's proposition count (vocabulary tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_propositions: Option<usize>,
    /// Quantifier count (logic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_quantifiers: Option<usize>,
    /// Predicate-atom count (logic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_predicates: Option<usize>,
    /// Minimal-DFA states (regex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<usize>,
    /// Minimal-DFA edges (regex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_edges: Option<usize>,
    /// Minimal-DFA density (regex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Batch number (ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
    /// Canonical Unicode form (ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_unicode: Option<String>,
    /// ASCII form (ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_ascii: Option<String>,
    /// Tree height (ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_depth: Option<usize>,
    /// Atom occurrences (ours, logic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_terminals: Option<usize>,
    /// Distinct symbols (ours, logic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_symbols: Option<usize>,
    /// Anything else (the original's run fields: `llm_fs`, `verification`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A dataset file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DatasetFile {
    /// Generation parameters (the original's keys plus ours).
    pub info: Map<String, Value>,
    /// Counts per metric value.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// The items.
    pub data: Vec<Item>,
    /// The original's index maps (`"num_operators": {"3": [idx…]}`) and unknown keys.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A loaded dataset with each item parsed.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The file contents.
    pub file: DatasetFile,
    /// Which syntax the formulas use.
    pub syntax: SyntaxKind,
    /// Parsed φ₀ per item, aligned with `file.data` (items that failed are dropped).
    pub exprs: Vec<Expr>,
    /// Items skipped because φ₀ did not parse, with the reason.
    pub skipped: Vec<String>,
}

/// Dataset loading errors.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// I/O.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Not JSON of the expected shape.
    #[error(
        "{path}:{line}:{column}: {msg} (expected an AutoEval dataset with \"info\" and \"data\")"
    )]
    Json {
        /// File.
        path: String,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// Message.
        msg: String,
    },
    /// No item parsed.
    #[error("{path}: none of the {n} items parse ({first})")]
    Empty {
        /// File.
        path: String,
        /// Item count.
        n: usize,
        /// First problem.
        first: String,
    },
}

const FIELDS_LOGIC: [&str; 5] = [
    "depth",
    "num_operators",
    "num_propositions",
    "num_quantifiers",
    "num_predicates",
];
const FIELDS_REGEX: [&str; 4] = ["depth", "num_nodes", "num_edges", "density"];

fn field_value(item: &Item, field: &str) -> Option<String> {
    match field {
        "depth" => item.depth.map(|v| v.to_string()),
        "num_operators" => item.num_operators.map(|v| v.to_string()),
        "num_propositions" => item.num_propositions.map(|v| v.to_string()),
        "num_quantifiers" => item.num_quantifiers.map(|v| v.to_string()),
        "num_predicates" => item.num_predicates.map(|v| v.to_string()),
        "num_nodes" => item.num_nodes.map(|v| v.to_string()),
        "num_edges" => item.num_edges.map(|v| v.to_string()),
        "density" => item.density.map(|v| format!("{v:?}")),
        _ => None,
    }
}

/// Builds the item for one generated expression.
pub fn item_from(generated: &GenItem, idx: usize, batch: usize) -> Item {
    let mut item = Item {
        idx,
        fs: String::new(),
        depth: Some(generated.level),
        num_operators: None,
        num_propositions: None,
        num_quantifiers: None,
        num_predicates: None,
        num_nodes: None,
        num_edges: None,
        density: None,
        batch: Some(batch),
        fs_unicode: Some(generated.expr.to_unicode()),
        fs_ascii: Some(generated.expr.print(Notation::Ascii)),
        tree_depth: None,
        num_terminals: None,
        distinct_symbols: None,
        extra: Map::new(),
    };
    match &generated.expr {
        Expr::Logic(f) => {
            let m = logic_metrics(f);
            item.fs = generated.expr.print(Notation::Original);
            item.num_operators = Some(m.operators);
            item.num_propositions = Some(generated.vocab_tokens);
            item.num_quantifiers = Some(m.quantifiers);
            item.num_predicates = Some(m.predicates);
            item.tree_depth = Some(m.tree_depth);
            item.num_terminals = Some(m.terminals);
            item.distinct_symbols = Some(m.distinct_symbols);
        }
        Expr::Regex(r) => {
            item.fs = generated.text.clone();
            item.tree_depth = Some(regex_metrics(r).cfg_depth);
            if let Ok(d) = Dfa::build(r, &r.alphabet()) {
                let m = d.metrics();
                item.num_nodes = Some(m.nodes);
                item.num_edges = Some(m.edges);
                item.density = Some(m.density);
            }
        }
    }
    item
}

/// Per-field counts and index lists, built item by item (the file's `metadata` and the
/// original's index maps).
#[derive(Default)]
struct FieldStats {
    counts: BTreeMap<&'static str, BTreeMap<String, usize>>,
    index: BTreeMap<&'static str, BTreeMap<String, Vec<usize>>>,
    total: usize,
}

impl FieldStats {
    fn add(&mut self, fields: &[&'static str], item: &Item) {
        self.total += 1;
        for f in fields {
            if let Some(v) = field_value(item, f) {
                *self
                    .counts
                    .entry(f)
                    .or_default()
                    .entry(v.clone())
                    .or_default() += 1;
                self.index
                    .entry(f)
                    .or_default()
                    .entry(v)
                    .or_default()
                    .push(item.idx);
            }
        }
    }

    fn into_maps(mut self, fields: &[&'static str]) -> (Map<String, Value>, Map<String, Value>) {
        let mut metadata = Map::new();
        let mut extra = Map::new();
        for f in fields {
            let mut m = Map::new();
            m.insert("total".into(), Value::from(self.total));
            for (k, v) in self.counts.remove(f).unwrap_or_default() {
                m.insert(k, Value::from(v));
            }
            metadata.insert(f.to_string(), Value::Object(m));
            let index = self.index.remove(f).unwrap_or_default();
            extra.insert(
                f.to_string(),
                serde_json::to_value(index).unwrap_or(Value::Null),
            );
        }
        (metadata, extra)
    }
}

fn fields_for(cfg: &Cfg) -> &'static [&'static str] {
    if cfg.syntax == SyntaxKind::Regex {
        &FIELDS_REGEX
    } else {
        &FIELDS_LOGIC
    }
}

/// What `info` needs from each batch once its items are gone.
struct BatchSummary {
    vocab: Value,
    unfilled: Vec<Value>,
}

fn summarize(b: usize, batch: &Batch) -> BatchSummary {
    BatchSummary {
        vocab: serde_json::to_value(&batch.vocab).unwrap_or(Value::Null),
        unfilled: batch
            .buckets
            .iter()
            .filter(|r| r.got < r.wanted)
            .map(|r: &BucketReport| serde_json::json!({"batch": b, "bucket": r.bucket, "wanted": r.wanted, "got": r.got, "leaves": r.leaves}))
            .collect(),
    }
}

fn info_map(
    kind_name: &str,
    builtin: Option<DatasetKind>,
    cfg: &Cfg,
    params: &GenParams,
    seed: u64,
    batches: &[BatchSummary],
) -> Map<String, Value> {
    let metric = params.metric.unwrap_or(cfg.metric);
    let syntax_name = match (cfg.syntax, builtin) {
        (SyntaxKind::Regex, _) => "regex",
        (_, Some(DatasetKind::Fol | DatasetKind::FolEnglish)) => "fol",
        _ if cfg.uses(crate::grammar::cfg::TermClass::Atom) => "fol",
        _ => "pl",
    };
    let mut info = Map::new();
    let set = |info: &mut Map<String, Value>, k: &str, v: Value| {
        info.insert(k.to_string(), v);
    };
    set(&mut info, "type", Value::from(kind_name));
    set(&mut info, "grammar", Value::from(cfg.source.clone()));
    set(&mut info, "seed", Value::from(seed));
    set(&mut info, "max_depth", Value::from(params.depth));
    set(&mut info, "n", Value::from(params.branching));
    set(&mut info, "sample_count", Value::from(params.per_category));
    set(&mut info, "filter_field", Value::from(metric.field()));
    set(&mut info, "syntax", Value::from(syntax_name));
    set(&mut info, "batches", Value::from(batches.len()));
    set(
        &mut info,
        "generator",
        Value::from(format!("autoeval {}", env!("CARGO_PKG_VERSION"))),
    );
    set(
        &mut info,
        "vocab_params",
        serde_json::to_value(&params.vocab).unwrap_or(Value::Null),
    );
    set(
        &mut info,
        "vocabularies",
        Value::Array(batches.iter().map(|b| b.vocab.clone()).collect()),
    );
    set(
        &mut info,
        "unfilled_buckets",
        Value::Array(
            batches
                .iter()
                .flat_map(|b| b.unfilled.iter().cloned())
                .collect(),
        ),
    );
    info
}

/// Assembles a dataset file from generated batches.
pub fn assemble(
    kind_name: &str,
    builtin: Option<DatasetKind>,
    cfg: &Cfg,
    params: &GenParams,
    seed: u64,
    batches: &[Batch],
) -> DatasetFile {
    let fields = fields_for(cfg);
    let mut data = Vec::new();
    let mut stats = FieldStats::default();
    for (b, batch) in batches.iter().enumerate() {
        for g in &batch.items {
            let item = item_from(g, data.len(), b);
            stats.add(fields, &item);
            data.push(item);
        }
    }
    let (metadata, extra) = stats.into_maps(fields);
    let summaries: Vec<BatchSummary> = batches
        .iter()
        .enumerate()
        .map(|(b, x)| summarize(b, x))
        .collect();
    DatasetFile {
        info: info_map(kind_name, builtin, cfg, params, seed, &summaries),
        metadata,
        data,
        extra,
    }
}

/// Writes a dataset atomically (temporary file, then rename).
pub fn write(path: &Path, file: &DatasetFile) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(file).map_err(std::io::Error::other)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    crate::base::fswrite::write(
        path,
        &path.with_extension("json.tmp"),
        (text + "\n").as_bytes(),
    )
}

/// Infers the syntax of a file that does not say (the original's files).
fn infer_syntax(file: &DatasetFile) -> SyntaxKind {
    if let Some(s) = file.info.get("syntax").and_then(Value::as_str) {
        match s {
            "regex" => return SyntaxKind::Regex,
            "fol" => return SyntaxKind::Fol,
            "pl" => return SyntaxKind::Pl,
            _ => {}
        }
    }
    let regexish = file.data.iter().any(|i| i.num_nodes.is_some())
        || file.info.get("predicate_info").is_none()
            && file.info.get("filter_field").and_then(Value::as_str) == Some("depth");
    if regexish {
        return SyntaxKind::Regex;
    }
    let fol = file.data.iter().take(200).any(|i| {
        i.fs.contains('∀')
            || i.fs.contains('∃')
            || i.fs.contains('(') && i.fs.contains(',')
            || i.num_quantifiers.unwrap_or(0) > 0
    });
    if fol { SyntaxKind::Fol } else { SyntaxKind::Pl }
}

impl Dataset {
    /// Reads a dataset without parsing its formulas (`exprs` stays empty); runs parse
    /// each φ₀ when its sample starts, so memory does not grow with the dataset's ASTs.
    pub fn open(path: &Path) -> Result<Dataset, DatasetError> {
        let p = path.display().to_string();
        let text = crate::base::fsread::read_to_string(path, crate::base::fsread::MAX_DATASET)
            .map_err(|source| DatasetError::Io {
                path: p.clone(),
                source,
            })?;
        // Editors on some systems start UTF-8 files with a byte-order mark.
        let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let file: DatasetFile = serde_json::from_str(body).map_err(|e| DatasetError::Json {
            path: p.clone(),
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        })?;
        drop(text);
        let syntax = infer_syntax(&file);
        Ok(Dataset {
            file,
            syntax,
            exprs: Vec::new(),
            skipped: Vec::new(),
        })
    }

    /// Reads a dataset (ours or the original's) and parses every φ₀.
    pub fn load(path: &Path) -> Result<Dataset, DatasetError> {
        let p = path.display().to_string();
        let Dataset { file, .. } = Dataset::open(path)?;
        let syntax = infer_syntax(&file);
        let mut exprs = Vec::with_capacity(file.data.len());
        let mut skipped = Vec::new();
        let mut kept = Vec::with_capacity(file.data.len());
        for item in &file.data {
            match parse(&item.fs, syntax) {
                Ok(e) => {
                    exprs.push(e);
                    kept.push(item.clone());
                }
                Err(e) => skipped.push(format!("{p}: sample {}: {e} in {:?}", item.idx, item.fs)),
            }
        }
        if kept.is_empty() && !file.data.is_empty() {
            return Err(DatasetError::Empty {
                path: p,
                n: file.data.len(),
                first: skipped.first().cloned().unwrap_or_default(),
            });
        }
        let mut file = file;
        file.data = kept;
        Ok(Dataset {
            file,
            syntax,
            exprs,
            skipped,
        })
    }

    /// The file's `info.type` (the dataset kind), or "dataset".
    pub fn kind_name(&self) -> String {
        self.file
            .info
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("dataset")
            .to_string()
    }

    /// The bucketing field (`filter_field`), defaulting by syntax.
    pub fn filter_field(&self) -> String {
        self.file
            .info
            .get("filter_field")
            .and_then(Value::as_str)
            .map_or_else(
                || match self.syntax {
                    SyntaxKind::Regex => Metric::Depth.field().into(),
                    _ => Metric::Operators.field().into(),
                },
                str::to_string,
            )
    }
}

/// A logic dataset file from items made elsewhere (a FOLIO conversion): `metadata` and
/// the per-field index maps are computed as for generated files.
pub fn assemble_logic(info: Map<String, Value>, data: Vec<Item>) -> DatasetFile {
    let mut stats = FieldStats::default();
    for item in &data {
        stats.add(&FIELDS_LOGIC, item);
    }
    let (metadata, extra) = stats.into_maps(&FIELDS_LOGIC);
    DatasetFile {
        info,
        metadata,
        data,
        extra,
    }
}
