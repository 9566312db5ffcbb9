//! `autoeval labels retract`, and what `labels add|retract|adjudicate` print with
//! `--format json`: the line they appended to labels.jsonl.

use crate::run::store::read_labels;
use anyhow::{Result, anyhow};
use std::path::Path;

/// Prints the newest line of `run`'s labels.jsonl by `annotator` on sample `id` (the
/// one just appended) as one JSON object, every field present.
pub(crate) fn print_recorded(run: &Path, id: &str, annotator: &str) -> Result<()> {
    let labels = read_labels(run).map_err(|e| anyhow!("{e}"))?.records;
    let r = labels
        .iter()
        .rev()
        .find(|r| r.id == id && r.annotator == annotator)
        .ok_or_else(|| {
            anyhow!(
                "{}: the label just recorded is not in labels.jsonl",
                run.display()
            )
        })?;
    let mut v = serde_json::json!({
        "run": run.display().to_string(),
        "id": r.id,
        "annotator": r.annotator,
        "categories": r.categories,
        "note": r.note,
        "time": r.time,
        "blind": r.blind,
        "adjudicator": r.adjudicator,
        "retract": r.retract,
    });
    crate::base::sanitize::json_for_terminal(&mut v);
    outln!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

/// `labels retract`: only a label in force can be taken back (a typo in the id or the
/// name must not pass silently).
pub(crate) fn retract(run: &Path, id: &str, who: &str, json: bool) -> Result<i32> {
    let one = crate::base::sanitize::one_line;
    crate::run::store::read_manifest(run).map_err(|e| anyhow!("{e}"))?;
    let labels = read_labels(run).map_err(|e| anyhow!("{e}"))?.records;
    let current = crate::report::labels::latest(&labels);
    // The state machine every label edit goes through says whether there is one to take back.
    let state = crate::labels::state::LabelState::fold(
        labels.iter().filter(|r| r.id == id && r.annotator == who),
    );
    let step = crate::labels::state::edit(&state, "", crate::labels::state::Edit::Retract);
    if !matches!(step, crate::labels::state::Step::Retract { .. }) {
        let by: Vec<&str> = current
            .keys()
            .filter(|(i, _)| i == id)
            .map(|(_, a)| a.as_str())
            .collect();
        let known = crate::run::index::load_or_build(run, false)
            .rows
            .iter()
            .any(|r| &*r.id == id);
        if !known && by.is_empty() {
            return Err(anyhow!(
                "{}: no such sample '{}': the run has no sample with that id",
                run.display(),
                one(id)
            ));
        }
        let fix = if by.is_empty() {
            "it has no label in force (never labelled, or already retracted)".to_string()
        } else {
            format!(
                "labels in force are by {}: pass --annotator NAME",
                one(&by.join(", "))
            )
        };
        return Err(anyhow!(
            "{}: sample '{}' has no label by '{}' to retract: {fix}",
            run.display(),
            one(id),
            one(who)
        ));
    }
    crate::labels::retract(run, id, who).map_err(|e| anyhow!(e))?;
    if json {
        print_recorded(run, id, who)?;
        return Ok(0);
    }
    outln!(
        "retracted {}'s label on sample {} (labels.jsonl keeps the history)",
        one(who),
        one(id)
    );
    Ok(0)
}
