//! The spend ledger (`spend.jsonl` beside a run's samples): one line for every call
//! that was billed or may have been, written the moment its bill is known, so the
//! calls of samples that are never written (dropped by a stop, refused, retried) are
//! still counted by `--max-cost` on resume and by `report`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The ledger's file name in a run directory.
pub const LEDGER: &str = "spend.jsonl";

/// How a ledger line's cost was known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpendKind {
    /// A live call's reply, priced from the usage the server reported.
    Live,
    /// An answer of a provider batch (or a batch result file), at the batch price.
    Batch,
    /// A request sent but stopped before its reply (Ctrl-C, a dropped sample): its
    /// bill is unknown, so its worst case is charged.
    Interrupted,
    /// What the run's samples had recorded before the ledger existed.
    Carried,
}

/// One billed (or possibly billed) call.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Spend {
    /// When it was recorded.
    pub time: String,
    /// The call: `SAMPLE_rROUND_i` / `_a` (as batch custom ids), empty when unknown.
    pub call: String,
    /// How the cost was known.
    pub kind: SpendKind,
    /// The provider batch that billed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_id: Option<String>,
    /// Prompt tokens as the server reported them (never capped).
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens as the server reported them (never capped).
    #[serde(default)]
    pub output_tokens: u64,
    /// USD charged (none: the model is not priced).
    pub cost_usd: Option<f64>,
    /// USD reserved for it under `--max-cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_usd: Option<f64>,
    /// The server's token counts could not be real (over 10 million); charged anyway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub implausible: bool,
    /// It billed more than was reserved for it: the run stopped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overrun: bool,
}

impl Spend {
    /// A line of `kind` for `call`, stamped now.
    pub fn new(kind: SpendKind, call: &str, cost_usd: Option<f64>) -> Spend {
        Spend {
            time: crate::base::clock::now_rfc3339(),
            call: safe_id(call),
            kind,
            batch_id: None,
            input_tokens: 0,
            output_tokens: 0,
            cost_usd,
            reserved_usd: None,
            implausible: false,
            overrun: false,
        }
    }
}

/// A call or batch id as stored: ASCII letters, digits, `-`, `_`, `:` and `.` only, at
/// most 100 of them (ids come from the provider too, and may carry anything).
pub(crate) fn safe_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect()
}

/// The append-only ledger of one run. The file is created by the first line, so a
/// dry run or a refused start writes nothing.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    file: Mutex<Option<File>>,
}

impl Ledger {
    /// The ledger of the run directory `dir`.
    pub fn new(dir: &Path) -> Ledger {
        Ledger {
            path: dir.join(LEDGER),
            file: Mutex::new(None),
        }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line with a single `write` and flushes it (a crash leaves at most a
    /// torn last line, which readers skip; the next line starts on a new one).
    pub fn record(&self, s: &Spend) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(s).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut guard = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("ledger lock poisoned"))?;
        if guard.is_none() {
            *guard = Some(open_for_append(&self.path)?);
        }
        let f = guard
            .as_mut()
            .ok_or_else(|| std::io::Error::other("ledger not open"))?;
        f.write_all(&line)?;
        f.flush()
    }

    /// Forces what was written to disk.
    pub fn sync(&self) -> std::io::Result<()> {
        match self.file.lock() {
            Ok(g) => g.as_ref().map_or(Ok(()), File::sync_data),
            Err(_) => Ok(()),
        }
    }
}

/// Opens the ledger for appending; a torn last line (a crash mid-write) is ended first.
/// Anything but a regular file (or nothing) under its name is refused, a link too.
fn open_for_append(path: &Path) -> std::io::Result<File> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = crate::base::fswrite::room::append(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let len = f.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        if last[0] != b'\n' {
            f.write_all(b"\n")?;
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_append_after_a_torn_line_and_ids_are_made_safe() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join(LEDGER), b"{\"torn").unwrap_or_else(|e| panic!("{e}"));
        let l = Ledger::new(dir.path());
        let mut s = Spend::new(SpendKind::Live, "3_r1_i\u{1b}]0;x", Some(0.5));
        s.batch_id = Some(safe_id("b/../../x"));
        l.record(&s).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(l.path()).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], "{\"torn");
        let back: Spend = serde_json::from_str(lines[1]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.call, "3_r1_i__0_x");
        assert_eq!(back.batch_id.as_deref(), Some("b_.._.._x"));
        assert_eq!(back.cost_usd, Some(0.5));
    }
}
