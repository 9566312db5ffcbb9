//! `metrics pairs --bertscore-model DIR`: the optional `bertscore_minilm` column, which
//! exists only in builds with the cargo feature `bertscore`.

use super::metrics_input::PairSyntax;
use anyhow::Result;
use std::path::Path;

/// The loaded model, or nothing when no model directory was given.
pub(crate) struct BertColumn {
    #[cfg(feature = "bertscore")]
    model: Option<crate::analysis::bertscore_minilm::BertScoreMiniLm>,
}

impl BertColumn {
    /// Loads the model in `dir`, if given; refuses a directory in builds without the feature.
    pub(crate) fn load(dir: Option<&Path>) -> Result<Self> {
        #[cfg(feature = "bertscore")]
        {
            let model = dir
                .map(crate::analysis::bertscore_minilm::BertScoreMiniLm::load)
                .transpose()?;
            Ok(Self { model })
        }
        #[cfg(not(feature = "bertscore"))]
        {
            if let Some(d) = dir {
                anyhow::bail!(
                    "--bertscore-model {}: this autoeval was built without bertscore-minilm; \
                     rebuild with `cargo install --path . --features bertscore`",
                    d.display()
                );
            }
            Ok(Self {})
        }
    }

    /// Whether a model is loaded.
    #[cfg(feature = "bertscore")]
    pub(crate) fn loaded(&self) -> bool {
        self.model.is_some()
    }

    /// Whether a model is loaded: never in builds without the feature.
    #[cfg(not(feature = "bertscore"))]
    #[allow(clippy::unused_self)]
    pub(crate) fn loaded(&self) -> bool {
        false
    }

    /// F1 of each (reference, candidate) pair; an error without a loaded model.
    #[cfg_attr(not(feature = "bertscore"), allow(clippy::unused_self))]
    pub(crate) fn f1_pairs(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>> {
        #[cfg(feature = "bertscore")]
        if let Some(model) = &self.model {
            return Ok(model.f1(pairs)?);
        }
        let _ = pairs;
        anyhow::bail!("internal: bertscore_minilm asked for without a model")
    }

    /// `bertscore_minilm` of each input line that reads as a pair (`None` for the rest,
    /// and for every line when no model is loaded).
    // Without the feature the body has nothing to do with `self` and cannot fail.
    #[cfg_attr(
        not(feature = "bertscore"),
        allow(clippy::unused_self, clippy::unnecessary_wraps)
    )]
    pub(crate) fn scores(
        &self,
        batch: &[(usize, String)],
        default: PairSyntax,
    ) -> Result<Vec<Option<f64>>> {
        #[cfg(feature = "bertscore")]
        if let Some(model) = &self.model {
            let read: Vec<Option<(String, String)>> = batch
                .iter()
                .map(|(_, t)| {
                    super::metrics_input::read_pair(t, default)
                        .ok()
                        .map(|(a, b, _)| (a, b))
                })
                .collect();
            let pairs: Vec<(&str, &str)> = read
                .iter()
                .flatten()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let mut f1 = model.f1(&pairs)?.into_iter();
            return Ok(read.iter().map(|r| r.as_ref().and(f1.next())).collect());
        }
        let _ = default;
        Ok(vec![None; batch.len()])
    }
}
