//! `bertscore_minilm` in a run's `closeness` records: scored in batches on the same
//! FOLIO printings as the other paper-compatible metrics, only when the user gives a
//! model (`run`/`rescore --bertscore-model DIR`, builds with the cargo feature
//! `bertscore`).

use crate::analysis::paper_notation::paper_notation;
use crate::record::SampleRecord;
use crate::syntax::{Expr, parse};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Scores (reference, candidate) text pairs in one batch, in order.
pub trait PairScorer: Send + Sync {
    /// One F1 per pair.
    fn f1(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>, String>;
}

#[cfg(feature = "bertscore")]
impl PairScorer for crate::analysis::bertscore_minilm::BertScoreMiniLm {
    fn f1(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>, String> {
        crate::analysis::bertscore_minilm::BertScoreMiniLm::f1(self, pairs)
            .map_err(|e| format!("{e:#}"))
    }
}

/// Why `--bertscore-model` could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The model files (builds with the feature).
    #[error(transparent)]
    Model(Box<dyn std::error::Error + Send + Sync>),
    /// This build has no bertscore-minilm.
    #[error(
        "--bertscore-model {0}: this autoeval was built without the cargo feature \
         `bertscore` (bertscore-minilm); rebuild with \
         `cargo install --path . --features bertscore`"
    )]
    NotBuilt(String),
}

/// A loaded bertscore-minilm scorer, shared by the threads of a rescore and the tasks
/// of a run.
#[derive(Clone)]
pub struct Bertscore(pub Arc<dyn PairScorer>, Arc<AtomicUsize>);

/// Failed samples a run names in warnings; later ones are only counted, so a scorer
/// that fails on every sample cannot flood the terminal.
const WARNED_FAILURES: usize = 3;

impl Bertscore {
    /// Wraps a scorer.
    pub fn new(scorer: Arc<dyn PairScorer>) -> Self {
        Self(scorer, Arc::new(AtomicUsize::new(0)))
    }

    /// Loads the all-MiniLM-L6-v2 files in `dir`; refused, naming the flag, in builds
    /// without the cargo feature `bertscore`.
    pub fn load(dir: &std::path::Path) -> Result<Self, LoadError> {
        #[cfg(feature = "bertscore")]
        {
            let model = crate::analysis::bertscore_minilm::BertScoreMiniLm::load(dir)
                .map_err(|e| LoadError::Model(Box::new(e)))?;
            Ok(Self::new(Arc::new(model)))
        }
        #[cfg(not(feature = "bertscore"))]
        Err(LoadError::NotBuilt(dir.display().to_string()))
    }

    /// Sets `bertscore_minilm` on one finished record, off the async executor (the
    /// encoder is CPU work). A failure leaves the field absent; the warning to show
    /// for it is returned (for the first few failures; then `None`, counted).
    pub(crate) async fn fill_one(&self, rec: &mut SampleRecord) -> Option<String> {
        let (a, b) = folio_pair(rec)?;
        let later = "; `rescore --bertscore-model` fills the field later";
        let (v, warning) = self.score_pair(&rec.id, a, b, later).await;
        if let (Some(v), Some(c)) = (v, rec.closeness.as_mut()) {
            c.bertscore_minilm = Some(v);
        }
        warning
    }

    /// The F1 of `candidate` against `reference` for sample `id`, off the async executor;
    /// on failure `None` and the warning to show (for the first few failures; `later`
    /// ends the last one shown).
    pub(crate) async fn score_pair(
        &self,
        id: &str,
        reference: String,
        candidate: String,
        later: &str,
    ) -> (Option<f64>, Option<String>) {
        let scorer = self.0.clone();
        let got = tokio::task::spawn_blocking(move || scorer.f1(&[(&reference, &candidate)]))
            .await
            .unwrap_or_else(|e| Err(format!("bertscore-minilm crashed: {e}")));
        let why = match got {
            Ok(v) if v.len() == 1 && v.first().is_some_and(|x| x.is_finite()) => {
                return (v.first().copied(), None);
            }
            Ok(v) if v.len() == 1 => "bertscore-minilm gave a score that is not a number".into(),
            Ok(v) => format!("bertscore-minilm gave {} scores for 1 pair", v.len()),
            Err(e) => e,
        };
        let n = self.1.fetch_add(1, Ordering::Relaxed) + 1;
        let warning = match n.cmp(&WARNED_FAILURES) {
            std::cmp::Ordering::Less => Some(format!("sample {id}: no bertscore-minilm: {why}")),
            std::cmp::Ordering::Equal => Some(format!(
                "sample {id}: no bertscore-minilm: {why} (further failures are not shown{later})"
            )),
            std::cmp::Ordering::Greater => None,
        };
        (None, warning)
    }
}

impl std::fmt::Debug for Bertscore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Bertscore(model)")
    }
}

/// The FOLIO printings of φ₀ and of the φ₁ the `closeness` record compares (the first
/// round's that has one), when the sample has a closeness record and both print.
pub(crate) fn folio_pair(rec: &SampleRecord) -> Option<(String, String)> {
    rec.closeness.as_ref()?;
    let phi1 = rec.rounds.iter().find_map(|r| r.phi1.as_deref())?;
    let folio = |s: &str| match parse(s, rec.syntax).ok()? {
        Expr::Logic(f) => paper_notation(&f).ok(),
        Expr::Regex(_) => None,
    };
    Some((folio(&rec.phi0)?, folio(phi1)?))
}

/// Sets `bertscore_minilm` on every record with a `folio_pair`, scoring them all in
/// one batch; the others are left as they are.
pub fn fill(scorer: &dyn PairScorer, recs: &mut [&mut SampleRecord]) -> Result<(), String> {
    let texts: Vec<Option<(String, String)>> = recs.iter().map(|r| folio_pair(r)).collect();
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .flatten()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    let scores = scorer.f1(&pairs)?;
    if scores.len() != pairs.len() {
        return Err(format!(
            "bertscore-minilm gave {} scores for {} pairs",
            scores.len(),
            pairs.len()
        ));
    }
    let mut it = scores.into_iter();
    for (r, t) in recs.iter_mut().zip(&texts) {
        if t.is_some()
            && let (Some(c), Some(v)) = (r.closeness.as_mut(), it.next())
        {
            c.bertscore_minilm = Some(v);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers a fixed result for every batch.
    struct Fixed(Result<Vec<f64>, String>);

    impl PairScorer for Fixed {
        fn f1(&self, _: &[(&str, &str)]) -> Result<Vec<f64>, String> {
            self.0.clone()
        }
    }

    /// The first sample of the FOL test run that has a closeness record.
    fn record() -> SampleRecord {
        include_str!("../../tests/fixtures/runs/fol-small/samples.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<SampleRecord>(l).ok())
            .find(|r| r.closeness.is_some())
            .expect("a scored sample")
    }

    fn score(b: &Bertscore, rec: &mut SampleRecord) -> Option<String> {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(b.fill_one(rec))
    }

    #[test]
    fn one_record_is_scored_and_failures_warn_a_bounded_number_of_times() {
        let ok = Bertscore::new(Arc::new(Fixed(Ok(vec![0.75]))));
        let mut rec = record();
        assert!(folio_pair(&rec).is_some());
        assert_eq!(score(&ok, &mut rec), None);
        assert_eq!(rec.closeness.and_then(|c| c.bertscore_minilm), Some(0.75));

        for failing in [
            Fixed(Err("inference failed".into())),
            Fixed(Ok(vec![0.1, 0.2])),
        ] {
            let b = Bertscore::new(Arc::new(failing));
            let mut warnings = Vec::new();
            for _ in 0..10 {
                let mut rec = record();
                warnings.extend(score(&b, &mut rec));
                assert_eq!(rec.closeness.and_then(|c| c.bertscore_minilm), None);
            }
            assert_eq!(warnings.len(), WARNED_FAILURES, "{warnings:?}");
            assert!(
                warnings[0].starts_with("sample 7: no bertscore-minilm: "),
                "{warnings:?}"
            );
            assert!(warnings[WARNED_FAILURES - 1].contains("further failures are not shown"));
        }
        // A record without a closeness record is left alone, with no warning.
        let mut rec = record();
        rec.closeness = None;
        assert_eq!(score(&ok, &mut rec), None);
        assert_eq!(rec.closeness, None);
    }
}
