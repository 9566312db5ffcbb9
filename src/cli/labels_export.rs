//! `autoeval labels export` rows (labels with the sample, run and model beside them)
//! and `autoeval labels disagreements`.

use crate::labels::ADJUDICATED;
use crate::labels::agreement::{Unit, disagrees};
use crate::record::{LabelRecord, Manifest, SampleRecord};
use crate::report::labels::latest;
use crate::report::load_run;
use crate::run::store::read_labels;
use anyhow::{Result, anyhow};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Export formats.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ExportFormat {
    /// One row per (sample, annotator).
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// CSV header: the columns before `psi` keep their earlier order.
const HEADER: [&str; 19] = [
    "id",
    "annotator",
    "time",
    "categories",
    "note",
    "verdict",
    "num_operators",
    "depth",
    "phi0",
    "phi1",
    "psi",
    "run",
    "model",
    "dataset",
    "kinds",
    "blind",
    "adjudicator",
    "suggested_informalization",
    "suggested_autoformalization",
];

pub use crate::report::open::dataset_name;

/// One export row's values in [`HEADER`] order.
fn row(l: &LabelRecord, s: Option<&SampleRecord>, m: &Manifest) -> Vec<String> {
    let first = s.and_then(|s| s.rounds.first());
    let kinds = s.map(|s| {
        crate::analysis::kinds::classify(s)
            .iter()
            .map(|k| k.id())
            .collect::<Vec<_>>()
            .join(";")
    });
    let sug = s
        .map(crate::labels::suggest::for_sample)
        .unwrap_or_default();
    let side = |f: fn(&crate::labels::suggest::Suggestion) -> Option<&'static str>| {
        sug.iter().filter_map(f).collect::<Vec<_>>().join(";")
    };
    vec![
        l.id.clone(),
        l.annotator.clone(),
        l.time.clone(),
        l.categories.join(";"),
        l.note.clone(),
        s.map(|s| s.verdict.name().to_string()).unwrap_or_default(),
        s.and_then(|s| s.num_operators)
            .map(|v| v.to_string())
            .unwrap_or_default(),
        s.and_then(|s| s.depth)
            .map(|v| v.to_string())
            .unwrap_or_default(),
        s.map(|s| s.phi0.clone()).unwrap_or_default(),
        first.and_then(|r| r.phi1.clone()).unwrap_or_default(),
        first.and_then(|r| r.psi.clone()).unwrap_or_default(),
        m.id.clone(),
        m.model.name.clone(),
        dataset_name(m),
        kinds.unwrap_or_default(),
        l.blind.to_string(),
        l.adjudicator.clone().unwrap_or_default(),
        side(|x| x.informalization),
        side(|x| x.autoformalization),
    ]
}

/// The current labels of a run (newest per sample and annotator) as CSV or JSONL.
pub fn export(run: &Path, format: ExportFormat) -> Result<String> {
    let data = load_run(run).map_err(|e| anyhow!("{e}"))?;
    let labels = read_labels(run).map_err(|e| anyhow!("{e}"))?;
    for w in &labels.warnings {
        eprintln!("warning: {w}");
    }
    let samples: HashMap<&str, &SampleRecord> =
        data.samples.iter().map(|s| (s.id.as_str(), s)).collect();
    let current = latest(&labels.records);
    match format {
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(HEADER)?;
            for l in current.values() {
                w.write_record(crate::base::sanitize::csv_record(row(
                    l,
                    samples.get(l.id.as_str()).copied(),
                    &data.manifest,
                )))?;
            }
            let bytes = w.into_inner().map_err(|e| anyhow!("{e}"))?;
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        ExportFormat::Jsonl => {
            let mut text = String::new();
            for l in current.values() {
                let s = samples.get(l.id.as_str()).copied();
                let vals = row(l, s, &data.manifest);
                let mut o = serde_json::Map::new();
                for (k, v) in HEADER.iter().zip(vals) {
                    let v = match *k {
                        "categories" => serde_json::to_value(&l.categories)?,
                        "kinds" | "suggested_informalization" | "suggested_autoformalization" => {
                            serde_json::to_value(
                                v.split(';').filter(|x| !x.is_empty()).collect::<Vec<_>>(),
                            )?
                        }
                        "num_operators" | "depth" => {
                            v.parse::<u64>().map_or(serde_json::Value::Null, Into::into)
                        }
                        "blind" => l.blind.into(),
                        "adjudicator" => serde_json::to_value(&l.adjudicator)?,
                        _ if v.is_empty() && s.is_none() => serde_json::Value::Null,
                        _ => v.into(),
                    };
                    o.insert((*k).to_string(), v);
                }
                text.push_str(&serde_json::Value::Object(o).to_string());
                text.push('\n');
            }
            Ok(text)
        }
    }
}

/// One sample annotators disagree on.
#[derive(serde::Serialize)]
struct Disagreement<'a> {
    id: &'a str,
    phi0: Option<&'a str>,
    psi: Option<&'a str>,
    phi1: Option<&'a str>,
    labels: Vec<&'a LabelRecord>,
    adjudicated: Option<&'a LabelRecord>,
}

/// Runs `autoeval labels disagreements`.
pub fn disagreements(run: &Path, all: bool, json: bool) -> Result<i32> {
    let data = load_run(run).map_err(|e| anyhow!("{e}"))?;
    let labels = read_labels(run).map_err(|e| anyhow!("{e}"))?;
    let samples: HashMap<&str, &SampleRecord> =
        data.samples.iter().map(|s| (s.id.as_str(), s)).collect();
    let current = latest(&labels.records);
    let mut per: BTreeMap<&str, (Unit, Vec<&LabelRecord>, Option<&LabelRecord>)> = BTreeMap::new();
    for ((id, who), l) in &current {
        let e = per.entry(id.as_str()).or_default();
        if who == ADJUDICATED {
            e.2 = Some(l);
        } else {
            e.0.insert(who.clone(), l.categories.iter().cloned().collect());
            e.1.push(l);
        }
    }
    let list: Vec<Disagreement> = per
        .iter()
        .filter(|(_, (u, _, adj))| disagrees(u) && (all || adj.is_none()))
        .map(|(id, (_, ls, adj))| {
            let s = samples.get(id);
            let first = s.and_then(|s| s.rounds.first());
            Disagreement {
                id,
                phi0: s.map(|s| s.phi0.as_str()),
                psi: first.and_then(|r| r.psi.as_deref()),
                phi1: first.and_then(|r| r.phi1.as_deref()),
                labels: ls.clone(),
                adjudicated: *adj,
            }
        })
        .collect();
    if json {
        for d in &list {
            outln!("{}", serde_json::to_string(d)?);
        }
        return Ok(0);
    }
    let one = crate::base::sanitize::one_line;
    if list.is_empty() {
        outln!("no {}disagreements", if all { "" } else { "unsettled " });
        return Ok(0);
    }
    for d in &list {
        outln!("sample {}", one(d.id));
        for (k, v) in [("φ₀", d.phi0), ("ψ ", d.psi), ("φ₁", d.phi1)] {
            outln!("  {k} {}", one(v.unwrap_or("–")));
        }
        for l in &d.labels {
            outln!(
                "  {:<16} {:<48} {}",
                one(&l.annotator),
                one(&if l.categories.is_empty() {
                    "(nothing wrong)".to_string()
                } else {
                    l.categories.join(", ")
                }),
                one(&l.note)
            );
        }
        if let Some(a) = d.adjudicated {
            outln!(
                "  settled by {}: {}",
                one(a.adjudicator.as_deref().unwrap_or("unknown")),
                one(&a.categories.join(", "))
            );
        }
    }
    outln!(
        "\n{} sample(s); settle one with `autoeval labels adjudicate RUN ID CATEGORY… --by NAME`",
        list.len()
    );
    Ok(0)
}
