//! AUC intervals that hold at `metrics align`'s sample sizes: DeLong's variance with
//! samples clustered by φ₀ (Obuchowski 1997: a formula answered by several runs is one
//! cluster, not several independent samples), the interval taken on the logit scale
//! (so it stays inside (0, 1) and widens toward the ends, where the plain normal
//! interval undercovers), a binormal bound when the classes separate perfectly (where
//! DeLong's variance is 0), and DeLong's test of two correlated AUCs on the same samples.

use std::collections::HashMap;

/// The two-sided 95% normal quantile.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// Standard normal CDF (complementary error function of Numerical Recipes, `erfcc`:
/// relative error below 1.2e-7).
pub(crate) fn norm_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
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
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// One metric's AUC and its placement values, per sample.
pub(crate) struct Placements {
    /// P(positive beats negative), ties ½.
    pub auc: f64,
    /// Positives and negatives.
    pub m: usize,
    /// Negatives.
    pub n: usize,
    /// Per sample (input order): a positive's share of negatives it beats, or a
    /// negative's share of positives that beat it.
    pub v: Vec<f64>,
}

/// Placements of `(score, positive)` samples; `None` unless both classes are present.
pub(crate) fn placements(xs: &[(f64, bool)]) -> Option<Placements> {
    let pos: Vec<f64> = xs.iter().filter(|x| x.1).map(|x| x.0).collect();
    let neg: Vec<f64> = xs.iter().filter(|x| !x.1).map(|x| x.0).collect();
    let (m, n) = (pos.len(), neg.len());
    if m == 0 || n == 0 {
        return None;
    }
    let all: Vec<f64> = xs.iter().map(|x| x.0).collect();
    let (r_all, r_pos, r_neg) = (midranks(&all), midranks(&pos), midranks(&neg));
    let (mut ip, mut ineg) = (0, 0);
    let mut v = Vec::with_capacity(xs.len());
    let mut sum = 0.0;
    for (k, x) in xs.iter().enumerate() {
        if x.1 {
            // Rank among all minus rank among positives: negatives below (ties ½).
            let p = (r_all[k] - r_pos[ip]) / n as f64;
            sum += p;
            v.push(p);
            ip += 1;
        } else {
            v.push(1.0 - (r_all[k] - r_neg[ineg]) / m as f64);
            ineg += 1;
        }
    }
    Some(Placements {
        auc: sum / m as f64,
        m,
        n,
        v,
    })
}

/// Per-cluster deviations (Σ positive placements − mₖ·AUC, Σ negative placements −
/// nₖ·AUC), clusters numbered densely.
fn deviations(p: &Placements, pos: &[bool], cluster: &[usize], k: usize) -> Vec<(f64, f64)> {
    let mut d = vec![(0.0, 0.0); k];
    for ((v, &is_pos), &c) in p.v.iter().zip(pos).zip(cluster) {
        if is_pos {
            d[c].0 += v - p.auc;
        } else {
            d[c].1 += v - p.auc;
        }
    }
    d
}

/// Dense cluster numbers (0..k) for arbitrary cluster keys, and k.
pub(crate) fn dense<K: std::hash::Hash + Eq + Clone>(keys: &[K]) -> (Vec<usize>, usize) {
    let mut ids: HashMap<K, usize> = HashMap::new();
    let v = keys
        .iter()
        .map(|c| {
            let next = ids.len();
            *ids.entry(c.clone()).or_insert(next)
        })
        .collect();
    (v, ids.len())
}

/// Obuchowski's clustered covariance of two AUCs on the same samples (`a` with itself:
/// the variance). `None` with fewer than two clusters.
pub(crate) fn cov(
    a: &Placements,
    b: &Placements,
    pos: &[bool],
    cluster: &[usize],
    k: usize,
) -> Option<f64> {
    if k < 2 {
        return None;
    }
    let (da, db) = (
        deviations(a, pos, cluster, k),
        deviations(b, pos, cluster, k),
    );
    let (m, n) = (a.m as f64, a.n as f64);
    let f = k as f64 / (k as f64 - 1.0);
    let (mut s10, mut s01, mut s11) = (0.0, 0.0, 0.0);
    for (x, y) in da.iter().zip(&db) {
        s10 += x.0 * y.0;
        s01 += x.1 * y.1;
        s11 += x.0 * y.1 + y.0 * x.1;
    }
    Some(f * (s10 / (m * m) + s01 / (n * n) + s11 / (m * n)))
}

/// The 95% interval of an AUC with variance `var` on the logit scale.
pub(crate) fn logit_interval(auc: f64, var: f64) -> (f64, f64) {
    let se = var.max(0.0).sqrt() / (auc * (1.0 - auc));
    let l = (auc / (1.0 - auc)).ln();
    let expit = |x: f64| 1.0 / (1.0 + (-x).exp());
    (expit(l - Z95 * se), expit(l + Z95 * se))
}

/// P(every one of `m` positives scores above every one of `n` negatives) when positives
/// are N(δ, 1) and negatives N(0, 1).
fn p_separated(delta: f64, m: usize, n: usize) -> f64 {
    // ∫ n φ(y) Φ(y)^(n−1) (1 − Φ(y − δ))^m dy over the largest negative y.
    let (lo, hi, steps) = (-9.0, 9.0, 3600);
    let h = (hi - lo) / steps as f64;
    let mut sum = 0.0;
    for i in 0..=steps {
        let y = lo + h * i as f64;
        let phi = (-0.5 * y * y).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let f =
            n as f64 * phi * norm_cdf(y).powi(n as i32 - 1) * norm_cdf(delta - y).powi(m as i32);
        sum += if i == 0 || i == steps { f / 2.0 } else { f };
    }
    sum * h
}

/// The lower 95% bound of the AUC when `m` positives and `n` negatives separate
/// perfectly: the smallest binormal AUC Φ(δ/√2) under which perfect separation still
/// has a 2.5% chance.
pub(crate) fn separation_bound(m: usize, n: usize) -> f64 {
    let (mut lo, mut hi) = (-2.0f64, 14.0f64);
    for _ in 0..60 {
        let mid = f64::midpoint(lo, hi);
        if p_separated(mid, m, n) < 0.025 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    norm_cdf(hi / std::f64::consts::SQRT_2)
}

/// DeLong's test of two correlated AUCs on the same samples: (z, two-sided p).
pub(crate) fn paired_test(
    a: &Placements,
    b: &Placements,
    pos: &[bool],
    cluster: &[usize],
    k: usize,
) -> Option<(f64, f64)> {
    let var = cov(a, a, pos, cluster, k)? + cov(b, b, pos, cluster, k)?
        - 2.0 * cov(a, b, pos, cluster, k)?;
    let d = a.auc - b.auc;
    if var <= 1e-300 {
        // Identical placements: no difference to test.
        return (d == 0.0).then_some((0.0, 1.0));
    }
    let z = d / var.sqrt();
    // The CDF approximation errs by ~1e-7: keep p a probability.
    Some((z, (2.0 * (1.0 - norm_cdf(z.abs()))).clamp(0.0, 1.0)))
}

#[cfg(test)]
#[path = "align_interval_tests.rs"]
mod tests;
