//! Open formats other tools read: Inspect eval logs and flat JSONL. Both stream a run's
//! samples one at a time (the newest record per id), so memory stays that of one
//! sample whatever the run's size.

pub mod flat;
pub mod inspect;

use crate::run::format::{LabelRecord, SampleRecord};
use crate::run::store::{BoundedLines, MAX_RECORD, SAMPLES, StoreError};
use std::collections::{BTreeMap, HashMap};
use std::io::BufReader;
use std::path::Path;

/// Just the id, to find each id's newest line without keeping records.
#[derive(serde::Deserialize)]
struct IdOnly {
    id: String,
}

/// Calls `f` with every current sample of a run (the newest line of each id), in file
/// order of those lines; returns the warnings met (skipped lines).
pub fn for_each_sample(
    dir: &Path,
    mut f: impl FnMut(SampleRecord) -> std::io::Result<()>,
) -> Result<Vec<String>, StoreError> {
    let path = dir.join(SAMPLES);
    crate::run::store::ensure_regular(&path)?;
    let io = |e: std::io::Error| StoreError::Io(path.display().to_string(), e);
    let open = || {
        std::fs::File::open(&path)
            .map(|f| BoundedLines::new(BufReader::new(f), MAX_RECORD as usize))
    };
    // Pass 1: the last line of each id.
    let mut last: HashMap<String, usize> = HashMap::new();
    let mut lines = open().map_err(io)?;
    let mut n = 0;
    while let Some(line) = lines.next_line().map_err(io)? {
        if let Ok(l) = line
            && let Ok(r) = serde_json::from_str::<IdOnly>(&l)
        {
            last.insert(r.id, n);
        }
        n += 1;
    }
    // Pass 2: parse and hand over only those.
    let mut warnings = Vec::new();
    let mut lines = open().map_err(io)?;
    let mut n = 0;
    while let Some(line) = lines.next_line().map_err(io)? {
        n += 1;
        let l = match line {
            Ok(l) if l.trim().is_empty() => continue,
            Ok(l) => l,
            Err(len) => {
                warnings.push(format!(
                    "{}:{n}: a line of {len} bytes was skipped (limit {MAX_RECORD})",
                    path.display()
                ));
                continue;
            }
        };
        match serde_json::from_str::<SampleRecord>(&l) {
            Ok(r) if last.get(&r.id) == Some(&(n - 1)) => f(r).map_err(io)?,
            Ok(_) => {}
            Err(e) => warnings.push(format!("{}:{n}: skipped: {e}", path.display())),
        }
    }
    Ok(warnings)
}

/// The dataset a run used, as tables name it: the file stem, else the kind.
pub fn dataset_name(m: &crate::run::format::Manifest) -> String {
    m.dataset
        .path
        .as_deref()
        .and_then(|p| Path::new(p).file_stem())
        .map_or_else(
            || m.dataset.kind.clone(),
            |s| s.to_string_lossy().into_owned(),
        )
}

/// Current labels per sample id (newest per annotator).
pub fn labels_by_sample(dir: &Path) -> BTreeMap<String, Vec<LabelRecord>> {
    let mut out: BTreeMap<String, Vec<LabelRecord>> = BTreeMap::new();
    if let Ok(l) = crate::run::store::read_labels(dir) {
        for ((id, _), rec) in crate::report::labels::latest(&l.records) {
            out.entry(id).or_default().push(rec);
        }
    }
    out
}

/// The automatic failure kinds of a sample, as ids.
pub fn kind_ids(s: &SampleRecord) -> Vec<&'static str> {
    super::kinds::classify(s).iter().map(|k| k.id()).collect()
}

/// The verdict's detail as text: the countermodel, or the reason/message.
pub fn verdict_detail(v: &crate::verify::Verdict) -> String {
    use crate::verify::Verdict;
    match v {
        Verdict::Equivalent { notes } => notes.join("; "),
        Verdict::NotEquivalent { countermodel, .. } => {
            crate::verify::render::countermodel(countermodel)
                .trim_end()
                .to_string()
        }
        Verdict::Unparseable { reason, pos } => format!("unparseable at byte {pos}: {reason}"),
        Verdict::Unknown { reason } => reason.clone(),
        Verdict::Copied { detail, .. } => format!("ψ copies the formula: {detail}"),
        Verdict::ModelError { message } => message.clone(),
    }
}
