//! 95 % intervals for the report's shares: Wilson score intervals for A2, A3, the copy
//! share and judge precision/recall (per bucket and overall), and a bootstrap over a
//! run's dataset batches where it has several (batches are the dataset's own replicates,
//! so resampling them shows how much the figure moves from one draw of formulas to the next).

use super::{Counts, JudgeStats};
use crate::base::rng::Rng;
use crate::report::labels::wilson;
use std::collections::BTreeMap;

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;
/// Bootstrap replicates over batches.
pub(crate) const BATCH_BOOTSTRAP: usize = 2000;
/// Fixed so a report prints the same interval every time.
const SEED: u64 = 0xBA7C_4E55;

/// Wilson 95 % interval of k in n, as `[low, high]`.
pub fn wilson95(k: usize, n: usize) -> Option<[f64; 2]> {
    wilson(k, n, Z95).map(|(_, lo, hi)| [lo, hi])
}

/// Intervals of one group's shares.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Ci {
    /// A2 compliance.
    pub a2: Option<[f64; 2]>,
    /// A3 accuracy.
    pub a3: Option<[f64; 2]>,
    /// Copy share.
    pub copy: Option<[f64; 2]>,
}

impl Ci {
    /// Wilson intervals of a group's counts.
    pub fn wilson(c: &Counts) -> Ci {
        Ci {
            a2: wilson95(c.compliant, c.answered),
            a3: wilson95(c.accurate, c.scored()),
            copy: wilson95(c.copied, c.n),
        }
    }
}

/// A judge's precision and recall intervals.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct JudgeCi {
    /// Judge model.
    pub model: String,
    /// TP / (TP + FP).
    pub precision: Option<[f64; 2]>,
    /// TP / (TP + FN).
    pub recall: Option<[f64; 2]>,
}

impl JudgeCi {
    /// Wilson intervals of a judge's confusion counts.
    pub fn of(j: &JudgeStats) -> JudgeCi {
        JudgeCi {
            model: j.model.clone(),
            precision: wilson95(j.tp, j.tp + j.fp),
            recall: wilson95(j.tp, j.tp + j.fn_),
        }
    }
}

/// Percentile bootstrap over batches.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct BatchCi {
    /// Batches resampled.
    pub batches: usize,
    /// Replicates.
    pub replicates: usize,
    /// Whole run.
    pub total: Ci,
    /// Per bucket (batches missing a bucket contribute nothing to it).
    pub by_category: BTreeMap<usize, Ci>,
}

/// Every interval of one run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RunIntervals {
    /// Confidence level.
    pub level: f64,
    /// Wilson intervals, whole run.
    pub total: Ci,
    /// Wilson intervals per bucket.
    pub by_category: BTreeMap<usize, Ci>,
    /// Wilson intervals of each judge's precision and recall.
    pub judges: Vec<JudgeCi>,
    /// Bootstrap over batches, when the run has two or more.
    pub batch_bootstrap: Option<BatchCi>,
}

pub(crate) fn pct_interval(mut v: Vec<f64>) -> Option<[f64; 2]> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (v.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
    };
    Some([at(0.025), at(0.975)])
}

/// Resamples batches with replacement and pools their counts each time.
fn bootstrap(batches: &[Counts], rng: &mut Rng) -> Ci {
    let (mut a2, mut a3, mut cp) = (vec![], vec![], vec![]);
    for _ in 0..BATCH_BOOTSTRAP {
        let mut c = Counts::default();
        for _ in 0..batches.len() {
            c.merge(&batches[rng.below(batches.len())]);
        }
        a2.extend(c.compliance());
        a3.extend(c.accuracy());
        cp.extend(c.copy_share());
    }
    Ci {
        a2: pct_interval(a2),
        a3: pct_interval(a3),
        copy: pct_interval(cp),
    }
}

/// Intervals of a run from its counts, per-batch counts and judges.
pub(crate) fn run_intervals(
    total: &Counts,
    by_category: &BTreeMap<usize, Counts>,
    batches: &BTreeMap<usize, Counts>,
    cat_batches: &BTreeMap<(usize, usize), Counts>,
    judges: &[JudgeStats],
) -> RunIntervals {
    let batch_bootstrap = (batches.len() > 1).then(|| {
        let mut rng = Rng::new(SEED);
        let all: Vec<Counts> = batches.values().cloned().collect();
        let mut per: BTreeMap<usize, Vec<Counts>> = BTreeMap::new();
        for (&(k, b), c) in cat_batches {
            let v = per.entry(k).or_default();
            // Every batch takes part (empty where it lacks the bucket) so each replicate
            // redraws the same batches for all buckets.
            let idx = batches.keys().position(|x| *x == b).unwrap_or(0);
            if v.len() < batches.len() {
                v.resize(batches.len(), Counts::default());
            }
            v[idx] = c.clone();
        }
        BatchCi {
            batches: batches.len(),
            replicates: BATCH_BOOTSTRAP,
            total: bootstrap(&all, &mut rng),
            by_category: per
                .into_iter()
                .map(|(k, v)| (k, bootstrap(&v, &mut rng)))
                .collect(),
        }
    });
    RunIntervals {
        level: 0.95,
        total: Ci::wilson(total),
        by_category: by_category
            .iter()
            .map(|(k, c)| (*k, Ci::wilson(c)))
            .collect(),
        judges: judges.iter().map(JudgeCi::of).collect(),
        batch_bootstrap,
    }
}

/// `74.1–88.0` (percent), or `–` with nothing to bound.
pub fn show(ci: Option<[f64; 2]>) -> String {
    ci.map_or_else(
        || "–".into(),
        |[l, h]| format!("{:.1}–{:.1}", 100.0 * l, 100.0 * h),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson95_matches_hand_values_and_bootstrap_brackets_the_pooled_share() {
        // 3 of 10: [0.1078, 0.6032] (Wilson 1927, z = 1.96).
        let [lo, hi] = wilson95(3, 10).unwrap();
        assert!((lo - 0.10779).abs() < 1e-4 && (hi - 0.60322).abs() < 1e-4);
        assert_eq!(wilson95(0, 0), None);
        let batch = |acc: usize| Counts {
            n: 10,
            answered: 10,
            compliant: 10,
            accurate: acc,
            copied: 0,
            unscored: 0,
        };
        let batches: BTreeMap<usize, Counts> = [(0, batch(2)), (1, batch(5)), (2, batch(8))]
            .into_iter()
            .collect();
        let mut total = Counts::default();
        for c in batches.values() {
            total.merge(c);
        }
        let r = run_intervals(&total, &BTreeMap::new(), &batches, &BTreeMap::new(), &[]);
        let b = r.batch_bootstrap.unwrap();
        let [lo, hi] = b.total.a3.unwrap();
        // Pooled 15/30 = 0.5; resampled batches range from 0.2 to 0.8.
        assert!(lo < 0.5 && hi > 0.5 && lo >= 0.2 && hi <= 0.8, "{lo} {hi}");
        assert_eq!(b.total.a2, Some([1.0, 1.0]));
        let one: BTreeMap<usize, Counts> = [(0, batch(2))].into_iter().collect();
        assert!(
            run_intervals(&total, &BTreeMap::new(), &one, &BTreeMap::new(), &[])
                .batch_bootstrap
                .is_none()
        );
    }
}
