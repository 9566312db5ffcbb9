//! Open formats other tools read: Inspect eval logs (`.eval` and JSON), flat JSONL and
//! Parquet. All stream a run's samples one at a time (the newest record per id), so
//! memory stays that of one sample (or one Parquet row group) whatever the run's size.

pub mod flat;
pub mod inspect;
pub mod inspect_eval;
pub(crate) mod inspect_sample;
pub(crate) mod inspect_shape;
pub mod parquet_out;
pub(crate) mod zip_spool;

use crate::record::{LabelRecord, SampleRecord};
use crate::run::store::{MAX_RECORD, SAMPLES, StoreError};
use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::Path;

/// Why an export of a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run could not be read, or a step failed with this message.
    #[error("{0}")]
    Failed(String),
    /// Writing the output.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Serialising a record.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Building a Parquet row group.
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
    /// Writing the Parquet file.
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
}

impl ExportError {
    /// A failure known by its message only (as the run's readers report theirs).
    pub(crate) fn failed(e: impl std::fmt::Display) -> ExportError {
        ExportError::Failed(e.to_string())
    }
}

/// Calls `f` with every current sample of a run (the newest line of each id), in file
/// order; returns the warnings met (skipped lines).
pub(crate) fn for_each_sample(
    dir: &Path,
    mut f: impl FnMut(SampleRecord) -> std::io::Result<()>,
) -> Result<Vec<String>, StoreError> {
    scan_samples(dir, false, |_| true, |s, _| f(s))
}

/// [`for_each_sample`] for the ids `want` accepts. The run's row index says where each
/// id's newest line is, so only those lines are read and parsed, one at a time.
pub(crate) fn for_each_sample_where(
    dir: &Path,
    want: impl Fn(&str) -> bool,
    mut f: impl FnMut(SampleRecord) -> std::io::Result<()>,
) -> Result<Vec<String>, StoreError> {
    scan_samples(dir, false, want, |s, _| f(s))
}

/// [`for_each_sample`] with each sample's failure kinds as ids, taken from the run's row
/// index: classifying a not-equivalent sample searches for proved edits (Z3), far
/// dearer than the rest of an export, and the kinds cache keeps what any reader proved
/// ([`crate::run::kinds_cache`]); the rest are proved first, unless `--no-kinds` (then
/// such a sample lists none). The kinds come in the taxonomy's order
/// (`FailureKind::ALL`), as the viewer's.
pub(crate) fn for_each_sample_kinds(
    dir: &Path,
    f: impl FnMut(SampleRecord, Vec<&'static str>) -> std::io::Result<()>,
) -> Result<Vec<String>, StoreError> {
    let mut f = f;
    scan_samples(
        dir,
        true,
        |_| true,
        |s, mask| {
            let kinds = crate::analysis::kinds::unmask(mask)
                .iter()
                .map(|k| k.id())
                .collect();
            f(s, kinds)
        },
    )
}

/// Where one current sample's line is, with what the row index knows of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pick {
    /// Byte offset of the line in `samples.jsonl`.
    pub offset: u64,
    /// Line length.
    pub len: u32,
    /// Failure-kind mask.
    pub fails: u32,
    /// Dataset batch (0 when the dataset has one).
    pub batch: u16,
}

/// The current samples of a run (the newest line of each id `want` accepts), in file
/// order, and the warnings the index met. With `kinds`, the failure kinds not yet proved
/// are proved first as the process's policy says ([`crate::run::kinds_cache`]).
pub(crate) fn picks(
    dir: &Path,
    kinds: bool,
    want: impl Fn(&str) -> bool,
) -> Result<(Vec<Pick>, Vec<String>), StoreError> {
    let path = dir.join(SAMPLES);
    crate::run::store::ensure_regular(&path)?;
    let mut scan = crate::run::index::load_rows(dir);
    if kinds {
        crate::run::kinds_cache::complete_as_asked(dir, &mut scan.rows);
    }
    let mut picks: Vec<Pick> = crate::run::rows::latest_per_id(&scan.rows)
        .into_iter()
        .map(|i| &scan.rows[i])
        .filter(|r| want(&r.id))
        .map(|r| Pick {
            offset: r.offset,
            len: r.len,
            fails: r.fails,
            batch: r.batch,
        })
        .collect();
    picks.sort_unstable_by_key(|p| p.offset);
    // Everything else the index held (rows, extras, text spans) goes before the
    // records are read: at a million samples it is most of the export's memory.
    Ok((picks, scan.warnings))
}

/// Reads the records `picks` point at (in file order), calling `f` with each and its
/// failure-kind mask; returns the warnings met (lines skipped).
pub(crate) fn read_picks(
    dir: &Path,
    picks: &[Pick],
    mut f: impl FnMut(SampleRecord, u32) -> std::io::Result<()>,
) -> Result<Vec<String>, StoreError> {
    use std::io::Read;
    let path = dir.join(SAMPLES);
    let io = |e: std::io::Error| StoreError::Io(path.display().to_string(), e);
    let mut warnings = Vec::new();
    let mut file = BufReader::with_capacity(1 << 20, std::fs::File::open(&path).map_err(io)?);
    let (mut pos, mut buf) = (0u64, Vec::new());
    for p in picks {
        let (off, len) = (p.offset, p.len);
        if u64::from(len) > MAX_RECORD || off < pos {
            warnings.push(format!(
                "{}: a line at byte {off} was skipped (over {MAX_RECORD} bytes or overlapping)",
                path.display()
            ));
            continue;
        }
        file.seek_relative(i64::try_from(off - pos).unwrap_or(i64::MAX))
            .map_err(io)?;
        buf.resize(len as usize, 0);
        file.read_exact(&mut buf).map_err(io)?;
        pos = off + u64::from(len);
        match serde_json::from_slice::<SampleRecord>(&buf) {
            Ok(r) => f(r, p.fails).map_err(io)?,
            Err(e) => warnings.push(format!("{} at byte {off}: skipped: {e}", path.display())),
        }
    }
    Ok(warnings)
}

/// The scan behind [`for_each_sample`]: each wanted id's newest record and its row's
/// failure-kind mask.
fn scan_samples(
    dir: &Path,
    kinds: bool,
    want: impl Fn(&str) -> bool,
    f: impl FnMut(SampleRecord, u32) -> std::io::Result<()>,
) -> Result<Vec<String>, StoreError> {
    let (picks, mut warnings) = picks(dir, kinds, want)?;
    warnings.extend(read_picks(dir, &picks, f)?);
    Ok(warnings)
}

/// The dataset a run used, as tables name it: the file stem, else the kind.
pub fn dataset_name(m: &crate::record::Manifest) -> String {
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
pub(crate) fn labels_by_sample(dir: &Path) -> BTreeMap<String, Vec<LabelRecord>> {
    let mut out: BTreeMap<String, Vec<LabelRecord>> = BTreeMap::new();
    if let Ok(l) = crate::run::store::read_labels(dir) {
        for ((id, _), rec) in crate::report::labels::latest(&l.records) {
            out.entry(id).or_default().push(rec);
        }
    }
    out
}

/// The verdict's detail as text: the countermodel, or the reason/message.
pub(crate) fn verdict_detail(v: &crate::verify::Verdict) -> String {
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

/// The run's temperature as written (0.1, never an f32's 0.10000000149011612); `None`
/// when the model's profile omits it (reasoning models).
pub(crate) fn temperature(m: &crate::record::Manifest) -> Option<f64> {
    m.temperature
}
