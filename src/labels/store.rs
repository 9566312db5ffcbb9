//! Appending hand labels to a run's `labels.jsonl`, and who is labelling.

use crate::record::{LabelRecord, now_rfc3339};
use crate::run::store::LABELS;
use std::io::Write;
use std::path::Path;

/// The name labels go under when no annotator is configured.
pub const ANONYMOUS: &str = "anonymous";

/// What to say (once) when a label goes in as [`ANONYMOUS`] because nobody was named.
pub const NO_ANNOTATOR: &str = "no annotator configured: labels go in as 'anonymous'; \
     name yourself with --annotator NAME or AUTOEVAL_ANNOTATOR=NAME \
     (the viewer also reads annotator = \"NAME\" in config.toml)";

/// Who is labelling, if anyone is named: config, then $AUTOEVAL_ANNOTATOR, then $USER.
pub fn named_annotator(config: Option<&str>) -> Option<String> {
    config
        .map(str::to_string)
        .or_else(|| std::env::var("AUTOEVAL_ANNOTATOR").ok())
        .or_else(|| std::env::var("USER").ok())
        .filter(|s| !s.trim().is_empty())
}

/// Who is labelling: config, then $AUTOEVAL_ANNOTATOR, then $USER, else [`ANONYMOUS`].
pub fn annotator(config: Option<&str>) -> String {
    named_annotator(config).unwrap_or_else(|| ANONYMOUS.into())
}

/// A name given on the command line (`--annotator`, `--by`) as it goes into
/// `labels.jsonl`: one line of 1 to 100 printable characters, trimmed. An empty name
/// is refused, never replaced by another (it would file labels under someone else).
pub fn checked_name(flag: &str, name: Option<String>) -> Result<Option<String>, String> {
    let Some(n) = name else { return Ok(None) };
    let n = n.trim().to_string();
    if n.is_empty() || n.chars().count() > 100 || n.chars().any(char::is_control) {
        return Err(format!(
            "{flag} {:?}: give a name of 1 to 100 printable characters",
            crate::base::sanitize::one_line(&n)
        ));
    }
    Ok(Some(n))
}

/// Appends one label record to the run's `labels.jsonl` under an exclusive file lock,
/// so two viewers labelling the same run never interleave their lines.
pub fn append(
    dir: &Path,
    id: &str,
    categories: &[String],
    note: &str,
    annotator: &str,
) -> Result<LabelRecord, LabelError> {
    append_record(
        dir,
        LabelRecord {
            id: id.to_string(),
            categories: categories.to_vec(),
            note: note.to_string(),
            annotator: annotator.to_string(),
            time: String::new(),
            blind: false,
            adjudicator: None,
            retract: false,
        },
    )
}

/// Records a settled label: annotator `crate::labels::ADJUDICATED`, `adjudicator` who
/// settled it (`labels adjudicate` and the viewer's adjudication layer).
pub fn adjudicate(
    dir: &Path,
    id: &str,
    categories: &[String],
    note: &str,
    by: &str,
) -> Result<LabelRecord, LabelError> {
    append_record(
        dir,
        LabelRecord {
            id: id.to_string(),
            categories: categories.to_vec(),
            note: note.to_string(),
            annotator: crate::labels::ADJUDICATED.to_string(),
            time: String::new(),
            blind: false,
            adjudicator: Some(by.to_string()),
            retract: false,
        },
    )
}

/// Withdraws `annotator`'s label on sample `id` (`labels retract`, the viewer's undo):
/// appends a retraction record, so the file stays append-only and keeps the history.
pub fn retract(dir: &Path, id: &str, annotator: &str) -> Result<LabelRecord, LabelError> {
    append_record(
        dir,
        LabelRecord {
            id: id.to_string(),
            categories: vec![],
            note: String::new(),
            annotator: annotator.to_string(),
            time: String::new(),
            blind: false,
            adjudicator: None,
            retract: true,
        },
    )
}

/// Appends a prepared record (its time is set here), e.g. a blind or adjudicated label.
pub fn append_record(dir: &Path, mut rec: LabelRecord) -> Result<LabelRecord, LabelError> {
    rec.time = now_rfc3339();
    let path = dir.join(LABELS);
    let line = serde_json::to_vec(&rec)
        .map_err(|e| LabelError::Io(path.display().to_string(), e.into()))?;
    append_line(&path, line)?;
    Ok(rec)
}

/// Appends one JSON line to `path` under an exclusive file lock (labels and ranks alike).
pub(crate) fn append_line(path: &Path, mut line: Vec<u8>) -> Result<(), LabelError> {
    let io = |e| LabelError::Io(path.display().to_string(), e);
    line.push(b'\n');
    let mut f = crate::base::fswrite::room::append(path).map_err(io)?;
    f.lock()
        .map_err(|e| LabelError::Lock(path.display().to_string(), e))?;
    // A half-written last line (a crash mid-append) must not swallow this label:
    // start a new line first. Checked under the lock, so appenders agree.
    let torn = {
        use std::io::{Read, Seek, SeekFrom};
        let len = f.metadata().map_or(0, |m| m.len());
        let mut last = [b'\n'];
        len > 0
            && f.seek(SeekFrom::Start(len - 1)).is_ok()
            && f.read_exact(&mut last).is_ok()
            && last[0] != b'\n'
    };
    if torn {
        line.insert(0, b'\n');
    }
    let r = f.write_all(&line).and_then(|()| f.sync_data());
    let _ = f.unlock();
    r.map_err(io)
}

/// A label that could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// Writing `labels.jsonl`.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Locking it against another viewer.
    #[error("{0}: cannot lock: {1}")]
    Lock(String, std::io::Error),
}
