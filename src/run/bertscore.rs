//! `bertscore_minilm` in a run's `closeness` records: scored in batches on the same
//! FOLIO printings as the other paper-compatible metrics, only when the user gives a
//! model (`run`/`rescore --bertscore-model DIR`, builds with the cargo feature
//! `bertscore`).

use crate::analysis::paper_notation::paper_notation;
use crate::record::SampleRecord;
use crate::syntax::{Expr, parse};
use std::sync::Arc;

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

/// A loaded bertscore-minilm scorer, shared by the threads of a rescore.
#[derive(Clone)]
pub struct Bertscore(pub Arc<dyn PairScorer>);

impl Bertscore {
    /// Loads the all-MiniLM-L6-v2 files in `dir`; refused, naming the flag, in builds
    /// without the cargo feature `bertscore`.
    pub fn load(dir: &std::path::Path) -> anyhow::Result<Self> {
        #[cfg(feature = "bertscore")]
        {
            let model = crate::analysis::bertscore_minilm::BertScoreMiniLm::load(dir)?;
            Ok(Self(Arc::new(model)))
        }
        #[cfg(not(feature = "bertscore"))]
        anyhow::bail!(
            "--bertscore-model {}: this autoeval was built without the cargo feature \
             `bertscore` (bertscore-minilm); rebuild with \
             `cargo install --path . --features bertscore`",
            dir.display()
        )
    }

    /// Sets `bertscore_minilm` on one finished record, off the async executor (the
    /// encoder is CPU work). A failure leaves the field absent and is returned.
    pub(crate) async fn fill_one(&self, rec: &mut SampleRecord) -> Result<(), String> {
        let Some((a, b)) = folio_pair(rec) else {
            return Ok(());
        };
        let scorer = self.0.clone();
        let got = tokio::task::spawn_blocking(move || scorer.f1(&[(&a, &b)]))
            .await
            .map_err(|e| format!("bertscore-minilm crashed: {e}"))??;
        match (got.as_slice(), rec.closeness.as_mut()) {
            ([v], Some(c)) => {
                c.bertscore_minilm = Some(*v);
                Ok(())
            }
            _ => Err(format!(
                "bertscore-minilm gave {} scores for 1 pair",
                got.len()
            )),
        }
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
