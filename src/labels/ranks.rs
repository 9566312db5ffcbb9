//! Human rankings of the candidates φ₁ answering one φ₀ (the paper's ranking study):
//! `ranks.jsonl` beside `labels.jsonl`, appended under the same lock, one record per
//! submitted ranking; the newest record per (φ₀, annotator) counts.

use super::store::{LabelError, append_line};
use crate::record::now_rfc3339;
use crate::run::store::{Loaded, StoreError, read_jsonl};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// File name of the rankings, in the directory of the run the ranking was made from.
pub(crate) const RANKS: &str = "ranks.jsonl";
/// Most candidates one ranking holds (ranks are typed as single digits).
pub(crate) const MAX_CANDIDATES: usize = 9;
/// Longest name, id or φ₀ a record may carry (bytes).
const MAX_TEXT: usize = 64 << 10;

/// One answer being ranked: the run it comes from and its sample id there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Candidate {
    /// The run's name (its manifest id).
    pub run: String,
    /// The sample's id within that run.
    pub id: String,
}

/// One line of `ranks.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawRank")]
pub struct RankRecord {
    /// `phi0_hash` of `phi0`, 16 hex digits.
    pub phi0_hash: String,
    /// φ₀ as the annotator saw it.
    pub phi0: String,
    /// The candidates in the order they were shown.
    pub candidates: Vec<Candidate>,
    /// Rank of each candidate (same order): 1 = best, equal ranks for ties.
    pub ranks: Vec<u32>,
    /// Who ranked.
    pub annotator: String,
    /// When (RFC 3339, UTC), set on append.
    pub time: String,
}

/// The record as read, before its checks.
#[derive(Deserialize)]
struct RawRank {
    phi0_hash: String,
    phi0: String,
    candidates: Vec<Candidate>,
    ranks: Vec<u32>,
    annotator: String,
    #[serde(default)]
    time: String,
}

impl TryFrom<RawRank> for RankRecord {
    type Error = String;

    fn try_from(r: RawRank) -> Result<RankRecord, String> {
        let rec = RankRecord {
            phi0_hash: r.phi0_hash,
            phi0: r.phi0,
            candidates: r.candidates,
            ranks: r.ranks,
            annotator: r.annotator,
            time: r.time,
        };
        rec.check()?;
        Ok(rec)
    }
}

/// The hash a ranking files φ₀ under: the viewer's row hash (FNV-1a), as 16 hex digits.
pub(crate) fn phi0_hash(phi0: &str) -> String {
    format!("{:016x}", crate::run::rows::phi0_hash(phi0))
}

impl RankRecord {
    /// A ranking of `candidates` (`ranks` in the same order) by `annotator`.
    pub fn new(phi0: &str, candidates: Vec<Candidate>, ranks: Vec<u32>, annotator: &str) -> Self {
        RankRecord {
            phi0_hash: phi0_hash(phi0),
            phi0: phi0.to_string(),
            candidates,
            ranks,
            annotator: annotator.to_string(),
            time: String::new(),
        }
    }

    /// Why the record cannot be a ranking, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let n = self.candidates.len();
        if !(2..=MAX_CANDIDATES).contains(&n) {
            return Err(format!(
                "a ranking needs 2 to {MAX_CANDIDATES} candidates, this one has {n}"
            ));
        }
        if self.ranks.len() != n {
            return Err(format!(
                "{} rank(s) for {n} candidates: give one rank per candidate",
                self.ranks.len()
            ));
        }
        if let Some(r) = self.ranks.iter().find(|r| **r == 0 || **r as usize > n) {
            return Err(format!("rank {r} is outside 1..={n} (1 = best)"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for c in &self.candidates {
            if c.run.is_empty() || c.id.is_empty() {
                return Err("a candidate needs a run name and a sample id".into());
            }
            if c.run.len() > MAX_TEXT || c.id.len() > MAX_TEXT {
                return Err("a candidate's run name or id is longer than 64 KiB".into());
            }
            if !seen.insert(c) {
                return Err(format!(
                    "candidate {}/{} is listed twice",
                    crate::base::sanitize::one_line(&c.run),
                    crate::base::sanitize::one_line(&c.id)
                ));
            }
        }
        if self.annotator.trim().is_empty() || self.annotator.len() > MAX_TEXT {
            return Err("the annotator must be named (at most 64 KiB)".into());
        }
        if self.phi0.len() > MAX_TEXT {
            return Err("φ₀ is longer than 64 KiB".into());
        }
        if self.phi0_hash.len() != 16 || !self.phi0_hash.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "phi0_hash '{}' is not 16 hex digits",
                crate::base::sanitize::one_line(&self.phi0_hash)
            ));
        }
        Ok(())
    }
}

/// Appends a ranking to `dir/ranks.jsonl` (its time is set here) under the label lock.
pub fn append(dir: &Path, mut rec: RankRecord) -> Result<RankRecord, LabelError> {
    let path = dir.join(RANKS);
    rec.check().map_err(|e| {
        LabelError::Io(
            path.display().to_string(),
            std::io::Error::new(std::io::ErrorKind::InvalidInput, e),
        )
    })?;
    rec.time = now_rfc3339();
    let line = serde_json::to_vec(&rec)
        .map_err(|e| LabelError::Io(path.display().to_string(), e.into()))?;
    append_line(&path, line)?;
    Ok(rec)
}

/// Every ranking in `dir/ranks.jsonl` (none when it is missing); a bad line is a
/// warning naming the file and line, and is skipped.
pub fn read(dir: &Path) -> Result<Loaded<RankRecord>, StoreError> {
    read_jsonl(&dir.join(RANKS))
}

/// The newest ranking per (φ₀ hash, annotator): the later time wins, and at an equal
/// time the later record (file order is append order).
pub fn latest<'a>(
    records: impl IntoIterator<Item = &'a RankRecord>,
) -> BTreeMap<(String, String), RankRecord> {
    let mut out: BTreeMap<(String, String), RankRecord> = BTreeMap::new();
    for r in records {
        let key = (r.phi0_hash.clone(), r.annotator.clone());
        if out.get(&key).is_none_or(|old| r.time >= old.time) {
            out.insert(key, r.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands(n: usize) -> Vec<Candidate> {
        (0..n)
            .map(|i| Candidate {
                run: format!("run{i}"),
                id: "s1".into(),
            })
            .collect()
    }

    #[test]
    fn appends_reads_back_and_keeps_the_newest_per_phi0_and_annotator() {
        let dir = tempfile::tempdir().unwrap();
        let a = append(
            dir.path(),
            RankRecord::new("∀x1.P(x1)", cands(3), vec![1, 1, 3], "alice"),
        )
        .unwrap();
        assert!(!a.time.is_empty(), "the time is set on append");
        append(
            dir.path(),
            RankRecord::new("∀x1.P(x1)", cands(3), vec![3, 2, 1], "bob"),
        )
        .unwrap();
        append(
            dir.path(),
            RankRecord::new("∀x1.P(x1)", cands(3), vec![2, 1, 3], "alice"),
        )
        .unwrap();
        append(
            dir.path(),
            RankRecord::new("Q(c)", cands(2), vec![1, 2], "alice"),
        )
        .unwrap();
        let text = std::fs::read_to_string(dir.path().join(RANKS)).unwrap();
        assert_eq!(text.lines().count(), 4, "one line per ranking");
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["phi0"], "∀x1.P(x1)");
        assert_eq!(first["phi0_hash"], phi0_hash("∀x1.P(x1)"));
        assert_eq!(first["candidates"][1]["run"], "run1");
        assert_eq!(first["candidates"][1]["id"], "s1");
        assert_eq!(first["ranks"], serde_json::json!([1, 1, 3]));
        assert_eq!(first["annotator"], "alice");
        let loaded = read(dir.path()).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(loaded.records.len(), 4);
        let l = latest(&loaded.records);
        assert_eq!(l.len(), 3);
        let h = phi0_hash("∀x1.P(x1)");
        assert_eq!(l[&(h.clone(), "alice".into())].ranks, vec![2, 1, 3]);
        assert_eq!(l[&(h, "bob".into())].ranks, vec![3, 2, 1]);
        // A later time in another file wins over file order; an earlier one does not.
        let mut old = l[&(phi0_hash("Q(c)"), "alice".into())].clone();
        old.ranks = vec![2, 1];
        old.time = "2000-01-01T00:00:00Z".into();
        let mut newer = old.clone();
        newer.time = "2999-01-01T00:00:00Z".into();
        newer.ranks = vec![1, 1];
        let all: Vec<RankRecord> = loaded.records.iter().cloned().chain([old]).collect();
        assert_eq!(
            latest(&all)[&(phi0_hash("Q(c)"), "alice".into())].ranks,
            vec![1, 2]
        );
        let all: Vec<RankRecord> = all.into_iter().chain([newer]).collect();
        assert_eq!(
            latest(&all)[&(phi0_hash("Q(c)"), "alice".into())].ranks,
            vec![1, 1]
        );
    }

    #[test]
    fn missing_file_is_empty_and_bad_lines_are_warnings_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().records.is_empty());
        let good = serde_json::to_string(&RankRecord::new("P", cands(2), vec![2, 1], "a")).unwrap();
        let bad_rank = good.replace("[2,1]", "[3,1]");
        let short = good.replace("[2,1]", "[1]");
        std::fs::write(
            dir.path().join(RANKS),
            format!("{good}\n{bad_rank}\n{short}\nnot json\n{{\"phi0\":\"x\"}}\n"),
        )
        .unwrap();
        let loaded = read(dir.path()).unwrap();
        assert_eq!(loaded.records.len(), 1);
        assert_eq!(loaded.warnings.len(), 4, "{:?}", loaded.warnings);
        assert!(loaded.warnings[0].contains(":2:"), "{:?}", loaded.warnings);
        assert!(loaded.warnings[0].contains("outside 1..=2"));
        assert!(loaded.warnings[1].contains("one rank per candidate"));
    }

    #[test]
    fn append_refuses_what_is_not_a_ranking() {
        let dir = tempfile::tempdir().unwrap();
        for (c, r) in [
            (cands(1), vec![1]),
            (cands(2), vec![1, 0]),
            (cands(10), vec![1; 10]),
        ] {
            assert!(append(dir.path(), RankRecord::new("P", c, r, "a")).is_err());
        }
        let mut twice = cands(2);
        twice[1] = twice[0].clone();
        let e = append(dir.path(), RankRecord::new("P", twice, vec![1, 2], "a")).unwrap_err();
        assert!(e.to_string().contains("listed twice"), "{e}");
        assert!(!dir.path().join(RANKS).exists(), "nothing was written");
    }

    #[test]
    fn torn_last_line_does_not_swallow_a_ranking() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(RANKS), "{\"phi0_hash\":\"00").unwrap();
        append(dir.path(), RankRecord::new("P", cands(2), vec![1, 2], "a")).unwrap();
        let loaded = read(dir.path()).unwrap();
        assert_eq!(loaded.records.len(), 1);
        assert_eq!(loaded.warnings.len(), 1);
    }
}
