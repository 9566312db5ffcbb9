//! Flat JSONL: one line per sample, every value a scalar and every line the same keys,
//! so DuckDB, pandas and Arrow infer one schema (the countermodel, whose shape differs
//! by logic, is a JSON string).

use super::{for_each_sample, kind_ids, labels_by_sample, verdict_detail};
use crate::record::{Manifest, SampleRecord};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// One sample as a flat object.
pub fn flat(
    m: &Manifest,
    s: &SampleRecord,
    labels: Option<&Vec<crate::record::LabelRecord>>,
) -> Value {
    use crate::verify::Verdict;
    let first = s.rounds.first();
    let last = s.rounds.iter().rev().find(|r| r.phi1.is_some());
    let countermodel = match &s.verdict {
        Verdict::NotEquivalent { countermodel, .. } => {
            Value::String(serde_json::to_string(countermodel).unwrap_or_default())
        }
        _ => Value::Null,
    };
    let cats: Vec<String> = labels
        .map(|ls| {
            let mut c: Vec<String> = ls
                .iter()
                .flat_map(|l| l.categories.iter().cloned())
                .collect();
            c.sort();
            c.dedup();
            c
        })
        .unwrap_or_default();
    let mut v = json!({
        "run": m.id,
        "provider": m.model.provider,
        "model": m.model.name,
        "dataset": m.dataset.kind,
        "syntax": s.syntax,
        "id": s.id,
        "idx": s.idx,
        "batch": s.batch,
        "num_operators": s.num_operators,
        "depth": s.depth,
        "phi0": s.phi0,
        "psi": first.and_then(|r| r.psi.clone()),
        "phi1": last.and_then(|r| r.phi1.clone()),
        "verdict": s.verdict.name(),
        "passed": s.verdict.is_equivalent(),
        "verdict_detail": verdict_detail(&s.verdict),
        "countermodel": countermodel,
        "kinds": kind_ids(s).join(";"),
        "rounds": s.rounds.len(),
        "rounds_passed": s.rounds_passed,
        "input_tokens": s.input_tokens,
        "output_tokens": s.output_tokens,
        "cost_usd": s.cost_usd,
        "finished": s.finished,
        "labels": cats.join(";"),
        "annotators": labels.map_or(0, Vec::len),
    });
    // Every stored closeness metric its own column (null where the record has none).
    if let Value::Object(o) = &mut v {
        for metric in crate::record::Metric::ALL {
            o.insert(
                metric.name().to_string(),
                s.closeness.and_then(|c| c.get(metric)).into(),
            );
        }
    }
    v
}

/// Writes a run as flat JSONL to `out`; returns the samples written and warnings.
pub fn write(dir: &Path, out: &mut impl Write) -> anyhow::Result<(usize, Vec<String>)> {
    let m = crate::run::store::read_manifest(dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let labels = labels_by_sample(dir);
    let mut n = 0;
    let warnings = for_each_sample(dir, |s| {
        serde_json::to_writer(&mut *out, &flat(&m, &s, labels.get(&s.id)))?;
        out.write_all(b"\n")?;
        n += 1;
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((n, warnings))
}
