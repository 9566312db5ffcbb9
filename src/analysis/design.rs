//! The adaptive design's choice: where the next round's samples go.
//!
//! Round 0 spreads samples evenly over every category (a coarse sweep). After it, each
//! round refits the logistic curve and places samples one at a time where they most
//! reduce the delta-method variance of the breaking point on the fitted scale,
//! `t* = (logit L − a)/b` (a c-optimal design for it, evaluated at the current fit; the
//! breaking point `x*` is a monotone function of `t*`, so the same samples minimise its
//! variance): adding a sample at `x` with weight `w = p(1−p)` lowers `Var(t*) = gᵀI⁻¹g`
//! by `w (gᵀI⁻¹v)² / (1 + w vᵀI⁻¹v)`, `v = (1, t(x) − t̄)` (Sherman–Morrison). Without a curve to refine (every answer right,
//! every answer wrong, a crossing outside the data) the round goes where the crossing
//! must lie: the hardest categories, the easiest, or evenly where samples are fewest.

use super::breaking::{Cell, Logistic, Scale, fit_on};
use std::collections::BTreeMap;

/// z for 95 %.
const Z95: f64 = 1.959_963_984_540_054;

/// Where one round's samples go, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// Category value → samples to draw there.
    pub per_category: BTreeMap<usize, usize>,
    /// One line saying why (written to `design.jsonl`).
    pub reason: String,
    /// The criterion used: `spread`, `c-optimal`, `harder`, `easier`.
    pub criterion: &'static str,
    /// The expected 95 % Wald width of the breaking point after the round (c-optimal only).
    pub expected_width: Option<f64>,
}

/// Round 0: `n` samples spread evenly (round-robin, fewest first) over the categories
/// with items left (`available`: category → items not yet asked).
pub fn spread(available: &BTreeMap<usize, usize>, observed: &[Cell], n: usize) -> Choice {
    let mut seen: BTreeMap<usize, f64> = observed.iter().map(|c| (c.x as usize, c.n)).collect();
    let mut left = available.clone();
    let mut out: BTreeMap<usize, usize> = BTreeMap::new();
    for _ in 0..n {
        let Some(x) = left
            .iter()
            .filter(|(_, a)| **a > 0)
            .min_by(|a, b| {
                let sa = seen.get(a.0).copied().unwrap_or(0.0);
                let sb = seen.get(b.0).copied().unwrap_or(0.0);
                sa.total_cmp(&sb).then(a.0.cmp(b.0))
            })
            .map(|(x, _)| *x)
        else {
            break;
        };
        *out.entry(x).or_default() += 1;
        *seen.entry(x).or_default() += 1.0;
        if let Some(a) = left.get_mut(&x) {
            *a -= 1;
        }
    }
    Choice {
        per_category: out,
        reason: "coarse spread: the same number of samples in every category with items left"
            .into(),
        criterion: "spread",
        expected_width: None,
    }
}

/// `n` samples taken from the categories in `order`, as many as each has left.
fn fill(available: &BTreeMap<usize, usize>, order: &[usize], n: usize) -> BTreeMap<usize, usize> {
    let mut out = BTreeMap::new();
    let mut need = n;
    // Round-robin over the first few categories in `order`, so one category's items are
    // not all spent before its neighbours'.
    let window: Vec<usize> = order
        .iter()
        .copied()
        .filter(|x| available.get(x).is_some_and(|a| *a > 0))
        .collect();
    let mut left: BTreeMap<usize, usize> = window.iter().map(|x| (*x, available[x])).collect();
    let width = window.len().clamp(1, 5);
    while need > 0 && left.values().any(|a| *a > 0) {
        let mut moved = false;
        let open: Vec<usize> = window
            .iter()
            .copied()
            .filter(|x| left.get(x).is_some_and(|a| *a > 0))
            .take(width)
            .collect();
        for x in &open {
            if need == 0 {
                break;
            }
            *out.entry(*x).or_default() += 1;
            if let Some(a) = left.get_mut(x) {
                *a -= 1;
            }
            need -= 1;
            moved = true;
        }
        if !moved {
            break;
        }
    }
    out
}

/// The next round of `n` samples given what was observed (the fit on the default scale).
pub fn next_round(
    available: &BTreeMap<usize, usize>,
    observed: &[Cell],
    level: f64,
    n: usize,
) -> Choice {
    next_round_on(available, observed, level, n, Scale::DEFAULT)
}

/// [`next_round`] with the category on `scale`.
pub fn next_round_on(
    available: &BTreeMap<usize, usize>,
    observed: &[Cell],
    level: f64,
    n: usize,
    scale: Scale,
) -> Choice {
    let (k, total): (f64, f64) = observed
        .iter()
        .fold((0.0, 0.0), |(k, t), c| (k + c.k, t + c.n));
    let lo = observed.iter().map(|c| c.x).fold(f64::INFINITY, f64::min);
    let hi = observed
        .iter()
        .map(|c| c.x)
        .fold(f64::NEG_INFINITY, f64::max);
    let ascending: Vec<usize> = available.keys().copied().collect();
    let descending: Vec<usize> = ascending.iter().rev().copied().collect();
    let harder = |why: String| Choice {
        per_category: fill(available, &descending, n),
        reason: why,
        criterion: "harder",
        expected_width: None,
    };
    let easier = |why: String| Choice {
        per_category: fill(available, &ascending, n),
        reason: why,
        criterion: "easier",
        expected_width: None,
    };
    if total <= 0.0 {
        return spread(available, observed, n);
    }
    let Some(f) = fit_on(observed, scale) else {
        if k >= total * level {
            return harder(format!(
                "no curve yet ({k:.0} of {total:.0} right): the model has not broken, so the hardest categories left"
            ));
        }
        return easier(format!(
            "no curve yet ({k:.0} of {total:.0} right): the model breaks early, so the easiest categories left"
        ));
    };
    match f.crossing(level) {
        Some(x) if x > hi => harder(format!(
            "the fitted curve crosses {level} at {x:.1}, beyond the hardest category asked ({hi}): the hardest categories left"
        )),
        Some(x) if x < lo => easier(format!(
            "the fitted curve crosses {level} at {x:.1}, below the easiest category asked ({lo}): the easiest categories left"
        )),
        Some(x) => c_optimal(available, observed, &f, level, x, n),
        None => spread(available, observed, n),
    }
}

/// Greedy c-optimal allocation for the crossing at `x` (see the module doc).
fn c_optimal(
    available: &BTreeMap<usize, usize>,
    observed: &[Cell],
    f: &Logistic,
    level: f64,
    x: f64,
    n: usize,
) -> Choice {
    let c0 = (level / (1.0 - level)).ln();
    let theta_c = (c0 - f.a) / f.b;
    let g = [-1.0 / f.b, -theta_c / f.b];
    // Observed information at the current fit.
    let mut info = [0.0f64; 3];
    for c in observed {
        let xc = f.centred(c.x);
        let p = f.predict(c.x);
        let w = c.n * p * (1.0 - p);
        info[0] += w;
        info[1] += w * xc;
        info[2] += w * xc * xc;
    }
    let inverse = |m: [f64; 3]| {
        let det = m[0] * m[2] - m[1] * m[1];
        (det > 0.0).then(|| [m[2] / det, -m[1] / det, m[0] / det])
    };
    let var =
        |inv: [f64; 3]| g[0] * g[0] * inv[0] + 2.0 * g[0] * g[1] * inv[1] + g[1] * g[1] * inv[2];
    let Some(mut inv) = inverse(info) else {
        return spread(available, observed, n);
    };
    let before = var(inv);
    let mut left = available.clone();
    let mut out: BTreeMap<usize, usize> = BTreeMap::new();
    for _ in 0..n {
        let mut best: Option<(usize, f64)> = None;
        for (&cx, &a) in &left {
            if a == 0 {
                continue;
            }
            let xc = f.centred(cx as f64);
            let p = f.predict(cx as f64);
            let w = p * (1.0 - p);
            let iv = [inv[0] + xc * inv[1], inv[1] + xc * inv[2]];
            let giv = g[0] * iv[0] + g[1] * iv[1];
            let viv = iv[0] + xc * iv[1];
            let gain = w * giv * giv / (1.0 + w * viv);
            if best.is_none_or(|(_, b)| gain > b) {
                best = Some((cx, gain));
            }
        }
        let Some((cx, _)) = best else { break };
        *out.entry(cx).or_default() += 1;
        if let Some(a) = left.get_mut(&cx) {
            *a -= 1;
        }
        let xc = f.centred(cx as f64);
        let p = f.predict(cx as f64);
        let w = p * (1.0 - p);
        info[0] += w;
        info[1] += w * xc;
        info[2] += w * xc * xc;
        match inverse(info) {
            Some(i) => inv = i,
            None => break,
        }
    }
    let after = var(inv);
    // The delta-method interval is symmetric on the fitted scale; its width in
    // categories is that of its image.
    let width = |v: f64| {
        let se = Z95 * v.max(0.0).sqrt();
        f.scale.from(theta_c + f.xbar + se) - f.scale.from(theta_c + f.xbar - se)
    };
    Choice {
        per_category: out,
        reason: format!(
            "c-optimal for the breaking point at {x:.2}: samples where they most reduce its \
             delta-method variance (expected 95% width {:.2} → {:.2})",
            width(before),
            width(after)
        ),
        criterion: "c-optimal",
        expected_width: Some(width(after)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avail(lo: usize, hi: usize, each: usize) -> BTreeMap<usize, usize> {
        (lo..=hi).map(|x| (x, each)).collect()
    }

    #[test]
    fn spread_covers_every_category_evenly() {
        let c = spread(&avail(1, 10, 5), &[], 25);
        assert_eq!(c.per_category.len(), 10);
        assert!(c.per_category.values().all(|n| (2..=3).contains(n)));
        assert_eq!(c.per_category.values().sum::<usize>(), 25);
        // Never more than a category holds.
        let c = spread(&avail(1, 3, 2), &[], 100);
        assert_eq!(c.per_category.values().sum::<usize>(), 6);
    }

    #[test]
    fn an_unbroken_model_is_asked_harder_items() {
        let obs: Vec<Cell> = (1..=5)
            .map(|x| Cell {
                x: f64::from(x),
                k: 4.0,
                n: 4.0,
            })
            .collect();
        let c = next_round(&avail(1, 20, 10), &obs, 0.5, 10);
        assert_eq!(c.criterion, "harder");
        assert!(
            c.per_category.keys().all(|x| *x >= 16),
            "{:?}",
            c.per_category
        );
    }

    #[test]
    fn c_optimal_samples_near_the_crossing() {
        // logit p = 3 − 0.3·x: crosses 0.5 at 10.
        let obs: Vec<Cell> = (1..=30)
            .map(|x| {
                let p = 1.0 / (1.0 + (-(3.0 - 0.3 * f64::from(x))).exp());
                Cell {
                    x: f64::from(x),
                    k: (4.0 * p).round(),
                    n: 4.0,
                }
            })
            .collect();
        let c = next_round(&avail(1, 30, 20), &obs, 0.5, 30);
        assert_eq!(c.criterion, "c-optimal");
        let mean = c
            .per_category
            .iter()
            .map(|(x, n)| (*x * n) as f64)
            .sum::<f64>()
            / 30.0;
        assert!((mean - 10.0).abs() < 4.0, "{:?}", c.per_category);
        assert!(
            c.per_category.keys().all(|x| (3..=18).contains(x)),
            "{:?}",
            c.per_category
        );
        assert!(c.reason.contains("c-optimal"));
    }
}
