//! How well one closeness score predicts the verifier's verdict (`autoeval metrics
//! align`): ROC AUC with a DeLong 95% interval, the best-threshold accuracy, and the
//! share of not-equivalent samples scoring above the equivalent ones' median.

use serde::Serialize;

/// The two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

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
    /// DeLong 95% interval, lower end (None with fewer than two samples in a class).
    pub auc_low: Option<f64>,
    /// DeLong 95% interval, upper end.
    pub auc_high: Option<f64>,
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

/// 1-based ranks of `xs` with ties given their mean rank.
fn midranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        // Positions i..=j (0-based) share the mean of ranks i+1..=j+1.
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        i = j + 1;
    }
    ranks
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])
    }
}

/// AUC and its DeLong (1988) variance from the structural components.
fn auc_delong(pos: &[f64], neg: &[f64]) -> (f64, Option<f64>) {
    let (m, n) = (pos.len() as f64, neg.len() as f64);
    let all: Vec<f64> = pos.iter().chain(neg).copied().collect();
    let r_all = midranks(&all);
    let (r_pos, r_neg) = (midranks(pos), midranks(neg));
    // V10_i: the share of negatives positive i beats (ties ½); V01_j: the share of
    // positives that beat negative j.
    let v10: Vec<f64> = (0..pos.len()).map(|i| (r_all[i] - r_pos[i]) / n).collect();
    let v01: Vec<f64> = (0..neg.len())
        .map(|j| 1.0 - (r_all[pos.len() + j] - r_neg[j]) / m)
        .collect();
    let auc = v10.iter().sum::<f64>() / m;
    if pos.len() < 2 || neg.len() < 2 {
        return (auc, None);
    }
    let s = |v: &[f64]| v.iter().map(|x| (x - auc).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    (auc, Some(s(&v10) / m + s(&v01) / n))
}

/// The statistics of `(score, equivalent)` pairs (non-finite scores must be removed).
pub(crate) fn align_stats(xs: &[(f64, bool)]) -> AlignStats {
    let mut pos: Vec<f64> = xs.iter().filter(|x| x.1).map(|x| x.0).collect();
    let mut neg: Vec<f64> = xs.iter().filter(|x| !x.1).map(|x| x.0).collect();
    pos.sort_by(f64::total_cmp);
    neg.sort_by(f64::total_cmp);
    let total = xs.len();
    let (n_eq, n_neq) = (pos.len(), neg.len());
    let frac = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let (auc, var) = if n_eq > 0 && n_neq > 0 {
        let (a, v) = auc_delong(&pos, &neg);
        (Some(a), v)
    } else {
        (None, None)
    };
    let (auc_low, auc_high) = match (auc, var) {
        (Some(a), Some(v)) => {
            let h = Z95 * v.max(0.0).sqrt();
            (Some((a - h).clamp(0.0, 1.0)), Some((a + h).clamp(0.0, 1.0)))
        }
        _ => (None, None),
    };
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
        assert_eq!((s.auc_low, s.auc_high), (Some(1.0), Some(1.0)));
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
        // DeLong by hand. V10, each eq sample's share of neq ones it beats: 0.8 → 1,
        // 0.6 → 0.75, 0.2 → 0. V01, each neq sample's share of eq ones above it:
        // 0.6 → (1 + 0.5)/3, 0.4 → 2/3.
        let auc = 3.5 / 6.0;
        let v10 = [1.0, 0.75, 0.0];
        let v01 = [0.5, 2.0 / 3.0];
        let s10 = v10.iter().map(|v: &f64| (v - auc).powi(2)).sum::<f64>() / 2.0;
        let s01 = v01.iter().map(|v: &f64| (v - auc).powi(2)).sum::<f64>() / 1.0;
        let h = Z95 * (s10 / 3.0 + s01 / 2.0).sqrt();
        assert!(close(s.auc_low.unwrap_or(f64::NAN), (auc - h).max(0.0)));
        assert!(close(s.auc_high.unwrap_or(f64::NAN), (auc + h).min(1.0)));
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
