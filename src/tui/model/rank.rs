//! The rank view's state: the answers φ₁ (with ψ) to one φ₀, in an order shuffled per
//! annotator and φ₀, the ranks typed so far, and, held back until the ranking is
//! submitted, each answer's run, verdict and closeness metrics.

use super::Model;
use crate::labels::ranks::{Candidate, MAX_CANDIDATES, RankRecord};
use crate::verify::VerdictKind;
use std::path::PathBuf;

/// One answer being ranked.
#[derive(Debug, Clone)]
pub struct RankCandidate {
    /// Its (run, row) in the viewer.
    pub key: (u32, u32),
    /// Run name and sample id, as `ranks.jsonl` stores it.
    pub candidate: Candidate,
    /// The run's model (shown after submitting).
    pub model: String,
    /// ψ.
    pub psi: String,
    /// φ₁.
    pub phi1: String,
    /// The verdict (shown after submitting).
    pub verdict: VerdictKind,
    /// Closeness metrics by field name, in the tables' order (shown after submitting).
    pub metrics: Vec<(String, f64)>,
}

/// Ranking the answers to one φ₀.
#[derive(Debug, Clone)]
pub struct RankView {
    /// φ₀ as shown.
    pub phi0: String,
    /// Where `ranks.jsonl` is written: the selected sample's run.
    pub dir: PathBuf,
    /// The answers in display order.
    pub candidates: Vec<RankCandidate>,
    /// The rank typed for each answer (1 = best).
    pub ranks: Vec<Option<u32>>,
    /// The highlighted answer.
    pub cursor: usize,
    /// Lines scrolled in the answers' columns.
    pub scroll: u16,
    /// Saved: verdicts and metrics may show now.
    pub submitted: bool,
    /// Whether submitting reveals each answer's run, model, verdict and metrics (not in
    /// blind mode, where they would tell what other samples hold).
    pub reveal: bool,
    /// Answers left out because one ranking holds at most `MAX_CANDIDATES`.
    pub left_out: usize,
}

/// The letter an answer goes by before its run is revealed.
pub(crate) fn letter(k: usize) -> char {
    char::from(b'A' + (k % 26) as u8)
}

impl RankView {
    /// Sets the highlighted answer's rank and highlights the next one; refuses a rank
    /// outside 1..=n (returns false).
    pub fn set(&mut self, rank: u32) -> bool {
        let n = self.candidates.len();
        if self.submitted || rank == 0 || rank as usize > n {
            return false;
        }
        self.ranks[self.cursor] = Some(rank);
        self.cursor = (self.cursor + 1) % n;
        true
    }

    /// Clears the highlighted answer's rank.
    pub fn clear(&mut self) {
        if !self.submitted {
            self.ranks[self.cursor] = None;
        }
    }

    /// Moves the highlight by `d`, wrapping.
    pub fn step(&mut self, d: isize) {
        let n = self.candidates.len() as isize;
        self.cursor = (self.cursor as isize + d).rem_euclid(n.max(1)) as usize;
    }

    /// Answers ranked so far.
    pub fn ranked(&self) -> usize {
        self.ranks.iter().flatten().count()
    }

    /// The ranking to store, once every answer has a rank.
    pub fn record(&self, annotator: &str) -> Option<RankRecord> {
        let ranks: Option<Vec<u32>> = self.ranks.iter().copied().collect();
        Some(RankRecord::new(
            &self.phi0,
            self.candidates
                .iter()
                .map(|c| c.candidate.clone())
                .collect(),
            ranks?,
            annotator,
        ))
    }
}

impl Model {
    /// The rank view for the selected sample: every answer to its φ₀ (other runs and
    /// repeated samples), or why there is none.
    pub(crate) fn rank_view(&self) -> Result<RankView, String> {
        let Some(sel) = self.selected() else {
            return Err("no sample selected".into());
        };
        let mut rows = self.compare_rows();
        // Two runs under one name would be one candidate twice: keep the first.
        let mut seen = std::collections::HashSet::new();
        rows.retain(|&(r, i)| {
            let run = &self.runs[r as usize];
            seen.insert((run.name(), run.rows[i as usize].id.to_string()))
        });
        if rows.len() < 2 {
            return Err(
                "only one answer to this φ₀: ranking needs two or more runs (or repeated samples) with it"
                    .into(),
            );
        }
        let left_out = rows.len().saturating_sub(MAX_CANDIDATES);
        rows.truncate(MAX_CANDIDATES);
        let run0 = &self.runs[sel.0 as usize];
        let phi0 = run0.phi0(&run0.rows[sel.1 as usize]);
        let mut candidates: Vec<RankCandidate> = rows
            .iter()
            .map(|&(r, i)| {
                let run = &self.runs[r as usize];
                let row = &run.rows[i as usize];
                let text = run.text(row);
                let mut parts = text.split(crate::tui::data::SEP).skip(1);
                let rec = run.record(row).ok();
                let metrics = rec
                    .as_ref()
                    .and_then(|rec| rec.closeness)
                    .map(|c| crate::report::ranks::named_metrics(&c))
                    .unwrap_or_default();
                let psi = parts.next().unwrap_or("").to_string();
                // Blind: the reply as written, not φ₁ (whose absence would say it did
                // not parse), as the blind Overview shows it.
                let phi1 = if self.blind.is_some() {
                    rec.as_ref()
                        .and_then(|r| crate::tui::model::blind::BlindSample::of(r, 0).reply)
                        .map(|r| crate::base::sanitize::for_terminal(&r).into_owned())
                        .unwrap_or_default()
                } else {
                    parts.next().unwrap_or("").to_string()
                };
                RankCandidate {
                    key: (r, i),
                    candidate: Candidate {
                        run: run.name(),
                        id: row.id.to_string(),
                    },
                    model: run.model(),
                    psi,
                    phi1,
                    verdict: row.verdict,
                    metrics,
                }
            })
            .collect();
        // Shown in an order of their own per annotator and φ₀, so neither the selected
        // run nor the run list's order sits first every time.
        let ids: Vec<String> = candidates
            .iter()
            .map(|c| format!("{}/{}", c.candidate.run, c.candidate.id))
            .collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let seed = crate::run::rows::phi0_hash(&phi0);
        let order = crate::labels::blind::order(&refs, &self.annotator, seed);
        let mut slots: Vec<Option<RankCandidate>> = candidates.drain(..).map(Some).collect();
        let candidates: Vec<RankCandidate> =
            order.into_iter().filter_map(|k| slots[k].take()).collect();
        let n = candidates.len();
        Ok(RankView {
            phi0,
            dir: run0.dir.clone(),
            candidates,
            ranks: vec![None; n],
            cursor: 0,
            scroll: 0,
            submitted: false,
            reveal: self.blind.is_none(),
            left_out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(n: usize) -> RankView {
        RankView {
            phi0: "P".into(),
            dir: PathBuf::new(),
            candidates: (0..n)
                .map(|k| RankCandidate {
                    key: (k as u32, 0),
                    candidate: Candidate {
                        run: format!("r{k}"),
                        id: "1".into(),
                    },
                    model: String::new(),
                    psi: String::new(),
                    phi1: String::new(),
                    verdict: VerdictKind::Equivalent,
                    metrics: vec![],
                })
                .collect(),
            ranks: vec![None; n],
            cursor: 0,
            scroll: 0,
            submitted: false,
            reveal: true,
            left_out: 0,
        }
    }

    #[test]
    fn digits_rank_in_order_ties_allowed_and_out_of_range_refused() {
        let mut v = view(3);
        assert!(v.record("a").is_none());
        assert!(v.set(2) && v.set(1));
        assert!(!v.set(4), "only 1..=3");
        assert!(!v.set(0));
        assert!(v.set(1), "a tie");
        assert_eq!(v.cursor, 0, "wraps to the first");
        assert_eq!(v.record("a").unwrap().ranks, vec![2, 1, 1]);
        v.step(-1);
        v.clear();
        assert_eq!(v.ranked(), 2);
        assert!(v.record("a").is_none());
    }

    #[test]
    fn metric_values_follow_the_tables_order() {
        // Built from JSON: fields added to the record later need no change here.
        let c: crate::record::Closeness = serde_json::from_value(serde_json::json!(
            {"rouge_l": 0.25, "le": 1.0, "bleu": 0.5, "tree": 1.0, "rouge_l_fol": 0.75}
        ))
        .unwrap();
        let names: Vec<String> = crate::report::ranks::named_metrics(&c)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(names, ["bleu", "rouge_l", "tree", "rouge_l_fol", "le"]);
    }
}
