//! Reading a run's spend ledger (`spend.jsonl`): what was billed over every session
//! of the run, for `--max-cost` on resume and for `report`.

use super::store::{BoundedLines, StoreError};
use crate::llm::ledger::{LEDGER, Spend, SpendKind};
use std::io::BufReader;
use std::path::Path;

/// The ledger's totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ledgered {
    /// USD over every priced line.
    pub usd: f64,
    /// Lines read.
    pub calls: usize,
    /// Lines of calls stopped before their reply (charged at their worst case).
    pub interrupted: usize,
    /// Lines whose server usage was implausible (charged as reported).
    pub implausible: usize,
    /// Lines of calls that billed more than they reserved.
    pub overruns: usize,
    /// Lines without a price (the model is not in the price table).
    pub unpriced: usize,
    /// Damaged or torn lines, skipped (file:line and why).
    pub warnings: Vec<String>,
}

/// Longest ledger line read (a line is a few hundred bytes).
const MAX_LINE: usize = 64 * 1024;

/// The totals of `dir`'s ledger, streamed (memory does not grow with it); `None` when
/// the run has no ledger (runs from before it).
pub(crate) fn read(dir: &Path) -> Result<Option<Ledgered>, StoreError> {
    let path = dir.join(LEDGER);
    let file = match crate::base::fsread::open(&path, crate::base::fsread::STREAM) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::Io(path.display().to_string(), e)),
    };
    let io = |e| StoreError::Io(path.display().to_string(), e);
    let mut lines = BoundedLines::new(BufReader::new(file), MAX_LINE);
    let mut out = Ledgered::default();
    let mut lineno = 0usize;
    while let Some(line) = lines.next_line().map_err(io)? {
        lineno += 1;
        let line = match line {
            Ok(l) if l.trim().is_empty() => continue,
            Ok(l) => l,
            Err(len) => {
                out.warnings.push(format!(
                    "{}:{lineno}: a line of {len} bytes skipped (limit {MAX_LINE})",
                    path.display()
                ));
                continue;
            }
        };
        match serde_json::from_str::<Spend>(&line) {
            Ok(s) => {
                out.calls += 1;
                match s.cost_usd {
                    // A ledger never lowers the spend: negative or NaN costs count as 0.
                    Some(c) if c.is_finite() && c > 0.0 => out.usd += c,
                    Some(c) if c.is_infinite() && c > 0.0 => out.usd = f64::INFINITY,
                    Some(_) => {}
                    None => out.unpriced += 1,
                }
                out.interrupted += usize::from(s.kind == SpendKind::Interrupted);
                out.implausible += usize::from(s.implausible);
                out.overruns += usize::from(s.overrun);
            }
            Err(e) => out.warnings.push(format!(
                "{}:{lineno}: skipped, not a ledger line ({e})",
                path.display()
            )),
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_skip_damage_and_never_subtract() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(dir.path()).unwrap_or_else(|e| panic!("{e}")), None);
        let lines = [
            r#"{"time":"t","call":"1_r1_i","kind":"live","cost_usd":0.25,"implausible":true}"#,
            r#"{"time":"t","call":"1_r1_a","kind":"interrupted","cost_usd":0.5}"#,
            r#"{"time":"t","call":"2_r1_i","kind":"live","cost_usd":-3.0}"#,
            r#"{"time":"t","call":"2_r1_a","kind":"batch","cost_usd":null,"overrun":true}"#,
            "garbage",
            r#"{"time":"t","call":"3_r1_i","kind":"li"#,
        ];
        std::fs::write(dir.path().join(LEDGER), lines.join("\n")).unwrap_or_else(|e| panic!("{e}"));
        let l = read(dir.path())
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_default();
        assert!((l.usd - 0.75).abs() < 1e-12, "{l:?}");
        assert_eq!(
            (
                l.calls,
                l.interrupted,
                l.implausible,
                l.overruns,
                l.unpriced
            ),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        assert!(l.warnings[0].contains(":5:"), "{:?}", l.warnings);
    }
}
