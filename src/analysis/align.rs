//! How well one closeness score predicts the verifier's verdict (`autoeval metrics
//! align`): ROC AUC with a 95% interval that holds at small samples (clustered DeLong on
//! the logit scale, `align_interval`), the best-threshold accuracy, and the share of
//! not-equivalent samples scoring above the equivalent ones' median.

use super::align_interval::{cov, dense, logit_interval, placements, separation_bound};
use serde::Serialize;

/// A metric's agreement with the verdicts of the samples that carry it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct AlignStats {
    /// Samples scored.
    pub n: usize,
    /// Of them, verified equivalent.
    pub n_equivalent: usize,
    /// Of them, verified not equivalent.
    pub n_not_equivalent: usize,
    /// P(an equivalent sample scores above a not-equivalent one), ties counting ½;
    /// None when either class is empty.
    pub auc: Option<f64>,
    /// 95% interval, lower end: DeLong's variance clustered by φ₀, on the logit scale;
    /// at perfect separation the binormal bound (None with fewer than two clusters).
    pub auc_low: Option<f64>,
    /// 95% interval, upper end.
    pub auc_high: Option<f64>,
    /// Distinct formulas (φ₀) among the samples: the clusters of the interval.
    pub clusters: usize,
    /// Every equivalent sample scores above every not-equivalent one (or below): the
    /// AUC is 1 (or 0) and the interval is the binormal bound.
    pub perfect_separation: bool,
    /// Best accuracy of "equivalent iff score ≥ threshold".
    pub accuracy: f64,
    /// That threshold; None when calling every sample not equivalent is best.
    pub threshold: Option<f64>,
    /// Accuracy of always answering the larger class.
    pub majority: f64,
    /// Share of not-equivalent samples scoring strictly above the median of the
    /// equivalent ones (None when either class is empty).
    pub not_equivalent_above_equivalent_median: Option<f64>,
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])
    }
}

/// The statistics of `(score, equivalent)` pairs, each sample its own cluster.
#[cfg(test)]
pub(crate) fn align_stats(xs: &[(f64, bool)]) -> AlignStats {
    let with: Vec<(f64, bool, usize)> = xs.iter().enumerate().map(|(i, x)| (x.0, x.1, i)).collect();
    align_stats_clustered(&with)
}

/// The interval of an AUC from its placements: (low, high, perfect separation).
fn interval(xs: &[(f64, bool)], clusters: &[usize]) -> (Option<f64>, Option<f64>, bool, usize) {
    let (cl, k) = dense(clusters);
    let Some(p) = placements(xs) else {
        return (None, None, false, k);
    };
    let pos: Vec<bool> = xs.iter().map(|x| x.1).collect();
    if p.auc >= 1.0 || p.auc <= 0.0 {
        let b = separation_bound(p.m, p.n);
        return if p.auc >= 1.0 {
            (Some(b), Some(1.0), true, k)
        } else {
            (Some(0.0), Some(1.0 - b), true, k)
        };
    }
    match cov(&p, &p, &pos, &cl, k) {
        Some(var) => {
            let (lo, hi) = logit_interval(p.auc, var);
            (Some(lo), Some(hi), false, k)
        }
        None => (None, None, false, k),
    }
}

/// The statistics of `(score, equivalent, cluster)` samples (non-finite scores must be
/// removed); samples of one cluster (one φ₀) are not independent.
pub(crate) fn align_stats_clustered(with: &[(f64, bool, usize)]) -> AlignStats {
    let xs: Vec<(f64, bool)> = with.iter().map(|x| (x.0, x.1)).collect();
    let xs = &xs[..];
    let clusters: Vec<usize> = with.iter().map(|x| x.2).collect();
    let mut pos: Vec<f64> = xs.iter().filter(|x| x.1).map(|x| x.0).collect();
    let mut neg: Vec<f64> = xs.iter().filter(|x| !x.1).map(|x| x.0).collect();
    pos.sort_by(f64::total_cmp);
    neg.sort_by(f64::total_cmp);
    let total = xs.len();
    let (n_eq, n_neq) = (pos.len(), neg.len());
    let frac = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let auc = placements(xs).map(|p| p.auc);
    let (auc_low, auc_high, perfect_separation, n_clusters) = interval(xs, &clusters);
    // Sweep thresholds from the highest distinct score down; calling nothing
    // equivalent is the starting point, and only a strictly better accuracy moves the
    // threshold, so ties go to the highest threshold.
    let mut all: Vec<(f64, bool)> = xs.to_vec();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut best = (frac(n_neq, total), None);
    let mut i = 0;
    while i < all.len() {
        let t = all[i].0;
        while i < all.len() && all[i].0 == t {
            if all[i].1 {
                tp += 1;
            } else {
                fp += 1;
            }
            i += 1;
        }
        let acc = frac(tp + n_neq - fp, total);
        if acc > best.0 {
            best = (acc, Some(t));
        }
    }
    let above = (n_eq > 0 && n_neq > 0).then(|| {
        let med = median(&pos);
        frac(neg.iter().filter(|&&x| x > med).count(), n_neq)
    });
    AlignStats {
        n: total,
        n_equivalent: n_eq,
        n_not_equivalent: n_neq,
        auc,
        auc_low,
        auc_high,
        clusters: n_clusters,
        perfect_separation,
        accuracy: best.0,
        threshold: best.1,
        majority: frac(n_eq.max(n_neq), total),
        not_equivalent_above_equivalent_median: above,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn perfect_separation_ties_and_reversal() {
        let perfect = [(0.9, true), (0.8, true), (0.3, false), (0.1, false)];
        let s = align_stats(&perfect);
        assert_eq!(s.auc, Some(1.0));
        // Not [1, 1]: the binormal bound for 2 against 2.
        assert!(s.perfect_separation);
        assert_eq!(s.auc_high, Some(1.0));
        assert_eq!(s.auc_low, Some(separation_bound(2, 2)));
        assert!(s.auc_low.unwrap() < 0.9);
        assert_eq!((s.accuracy, s.threshold), (1.0, Some(0.8)));
        assert_eq!(s.not_equivalent_above_equivalent_median, Some(0.0));
        let ties = [(0.5, true), (0.5, true), (0.5, false)];
        let t = align_stats(&ties);
        assert_eq!(t.auc, Some(0.5));
        // Calling all equivalent (t = 0.5) gets 2/3, the majority.
        assert!(close(t.accuracy, 2.0 / 3.0) && t.threshold == Some(0.5));
        let reversed: Vec<(f64, bool)> = perfect.iter().map(|&(x, e)| (x, !e)).collect();
        let r = align_stats(&reversed);
        assert_eq!(r.auc, Some(0.0));
        assert_eq!(r.not_equivalent_above_equivalent_median, Some(1.0));
        // Nothing beats calling every sample not equivalent: 2 of 4.
        assert!(close(r.accuracy, 0.5) && r.threshold.is_none());
    }

    #[test]
    fn hand_worked_auc_and_delong_interval() {
        // Pairs (eq, neq): 0.8 beats 0.6 and 0.4; 0.6 ties 0.6, beats 0.4;
        // 0.2 beats none: (1 + 1 + 0.5 + 1 + 0 + 0) / 6 = 3.5 / 6.
        let xs = [
            (0.8, true),
            (0.6, true),
            (0.2, true),
            (0.6, false),
            (0.4, false),
        ];
        let s = align_stats(&xs);
        assert!(close(s.auc.unwrap_or(f64::NAN), 3.5 / 6.0));
        // The interval by hand. V10, each eq sample's share of neq ones it beats: 0.8 → 1,
        // 0.6 → 0.75, 0.2 → 0. V01, each neq sample's share of eq ones above it:
        // 0.6 → (1 + 0.5)/3, 0.4 → 2/3. Five clusters of one: variance
        // K/(K−1)·(Σ(V10−A)²/m² + Σ(V01−A)²/n²), then A's logit ± 1.96·SE/(A(1−A)).
        let auc = 3.5 / 6.0;
        let v10 = [1.0, 0.75, 0.0];
        let v01 = [0.5, 2.0 / 3.0];
        let s10 = v10.iter().map(|v: &f64| (v - auc).powi(2)).sum::<f64>() / 9.0;
        let s01 = v01.iter().map(|v: &f64| (v - auc).powi(2)).sum::<f64>() / 4.0;
        let se = (1.25 * (s10 + s01)).sqrt() / (auc * (1.0 - auc));
        let l = (auc / (1.0 - auc)).ln();
        let expit = |x: f64| 1.0 / (1.0 + (-x).exp());
        let z = super::super::align_interval::Z95;
        assert!(close(s.auc_low.unwrap_or(f64::NAN), expit(l - z * se)));
        assert!(close(s.auc_high.unwrap_or(f64::NAN), expit(l + z * se)));
        assert_eq!((s.clusters, s.perfect_separation), (5, false));
        // Median of eq is 0.6; the neq above it: none (0.6 is not above).
        assert_eq!(s.not_equivalent_above_equivalent_median, Some(0.0));
        // Thresholds: 0.8 → 3/5; 0.6 → tp 2, fp 1 → 3/5; 0.4 → 2/5; 0.2 → 3/5.
        assert!(close(s.accuracy, 0.6) && s.threshold == Some(0.8));
        assert!(close(s.majority, 0.6));
        let one_class = align_stats(&[(0.3, true)]);
        assert_eq!(one_class.auc, None);
        assert_eq!(one_class.not_equivalent_above_equivalent_median, None);
    }
}
