//! Breaking points: where a logistic fit of A3 against a category crosses a level.
//!
//! The model is `logit P(equivalent) = a + b·t(x)`, fitted by maximum likelihood on the
//! samples, with `t(x) = ln(1 + x)` by default ([`Scale`]: accuracy that falls as
//! `(1 − R)^x` for most items but not all flattens into a power-law tail, which a
//! logistic in `x` fits badly and a logistic in `ln(1 + x)` fits; see the book's
//! "Finding where a model breaks"). With one covariate the per-category counts (successes, trials) are
//! sufficient statistics, so the sample likelihood is evaluated over them exactly (not
//! a fit to bucket means). The breaking point is `x* = (logit(level) − a) / b`; its 95 %
//! interval is the profile-likelihood interval: the `x*` whose profile log-likelihood
//! (maximised over the slope with `x*` held) is within χ²₁(0.95)/2 of the maximum.

use serde::{Deserialize, Serialize};

/// χ²₁ at 0.95, halved: the drop in log-likelihood a 95 % profile interval allows.
const HALF_CHI2_95: f64 = 3.841_458_820_694_124 / 2.0;
/// z for a two-sided 95 % band.
const Z95: f64 = 1.959_963_984_540_054;
/// The default level: where predicted A3 falls to one half.
pub const DEFAULT_LEVEL: f64 = 0.5;

/// The scale the category enters the logistic on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// `logit P = a + b·x`.
    Linear,
    /// `logit P = a + b·ln(1 + x)` (categories are counts, ≥ 0).
    Log,
}

impl Scale {
    /// The scale reports use.
    pub const DEFAULT: Scale = Scale::Log;

    /// A category value on this scale.
    pub fn to(self, x: f64) -> f64 {
        match self {
            Scale::Linear => x,
            Scale::Log => x.ln_1p(),
        }
    }

    /// A value on this scale back as a category value.
    pub fn from(self, t: f64) -> f64 {
        match self {
            Scale::Linear => t,
            Scale::Log => t.exp_m1(),
        }
    }

    /// The model in words, for reports.
    pub fn model(self) -> &'static str {
        match self {
            Scale::Linear => "logit A3 = a + b·x",
            Scale::Log => "logit A3 = a + b·ln(1 + x)",
        }
    }
}

/// One category value's samples: `k` equivalent out of `n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Category value (operators, depth, …).
    pub x: f64,
    /// Samples counted as accurate (A3's numerator).
    pub k: f64,
    /// Samples that are right or wrong (A3's denominator).
    pub n: f64,
}

/// A maximum-likelihood logistic fit (`t(x)` centred on `xbar` for stability).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Logistic {
    /// Intercept at `t(x) = xbar`.
    pub a: f64,
    /// Slope per unit of `t(x)`.
    pub b: f64,
    /// The centre of `t(x)`.
    pub xbar: f64,
    /// The scale `t` the category enters on.
    pub scale: Scale,
    /// Covariance of (a, b) as (var a, cov ab, var b): the inverse observed information.
    pub cov: [f64; 3],
    /// Maximised log-likelihood.
    pub loglik: f64,
}

/// A run's breaking point as reports write it (`breaking_point` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakingPoint {
    /// The category where predicted A3 crosses `level` (None when not reached).
    pub value: Option<f64>,
    /// 95 % profile-likelihood interval; a None bound lies beyond the data.
    pub ci: [Option<f64>; 2],
    /// The A3 level crossed.
    pub level: f64,
    /// Whether the fitted curve crosses the level inside the data's range.
    pub reached: bool,
    /// Samples fitted.
    pub n: usize,
}

fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

/// Log-likelihood of linear predictor `eta(x)` over the cells.
fn loglik(cells: &[Cell], eta: impl Fn(f64) -> f64) -> f64 {
    cells
        .iter()
        .map(|c| {
            let e = eta(c.x);
            c.k * e - c.n * softplus(e)
        })
        .sum()
}

/// The cells' x range and sample-weighted mean (None when empty).
fn span(cells: &[Cell]) -> Option<(f64, f64, f64)> {
    let n: f64 = cells.iter().map(|c| c.n).sum();
    if n <= 0.0 {
        return None;
    }
    let lo = cells.iter().map(|c| c.x).fold(f64::INFINITY, f64::min);
    let hi = cells.iter().map(|c| c.x).fold(f64::NEG_INFINITY, f64::max);
    let mean = cells.iter().map(|c| c.x * c.n).sum::<f64>() / n;
    Some((lo, hi, mean))
}

/// Fits the logistic curve on the default scale (see [`fit_on`]).
pub fn fit(cells: &[Cell]) -> Option<Logistic> {
    fit_on(cells, Scale::DEFAULT)
}

/// The cells with their category on `scale` (empty ones dropped).
fn on_scale(cells: &[Cell], scale: Scale) -> Vec<Cell> {
    cells
        .iter()
        .filter(|c| c.n > 0.0)
        .map(|c| Cell {
            x: scale.to(c.x),
            ..*c
        })
        .collect()
}

/// Fits the logistic curve on `scale` by Newton–Raphson with step halving. None when
/// the data cannot identify it: fewer than two category values, every sample right or
/// every one wrong, or (quasi-)separated data whose slope runs off to infinity.
pub fn fit_on(cells: &[Cell], scale: Scale) -> Option<Logistic> {
    fit_scaled(&on_scale(cells, scale), scale)
}

/// [`fit_on`] of cells already on `scale`.
fn fit_scaled(cells: &[Cell], scale: Scale) -> Option<Logistic> {
    let cells: Vec<Cell> = cells.iter().copied().filter(|c| c.n > 0.0).collect();
    let (lo, hi, xbar) = span(&cells)?;
    let (k, n): (f64, f64) = cells
        .iter()
        .fold((0.0, 0.0), |(k, n), c| (k + c.k, n + c.n));
    if hi <= lo || k <= 0.0 || k >= n {
        return None;
    }
    let mut a = logit(k / n);
    let mut b = 0.0;
    let ll = |a: f64, b: f64| loglik(&cells, |x| a + b * (x - xbar));
    let mut cur = ll(a, b);
    for _ in 0..200 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for c in &cells {
            let xc = c.x - xbar;
            let p = sigmoid(a + b * xc);
            let r = c.k - c.n * p;
            let w = c.n * p * (1.0 - p);
            ga += r;
            gb += r * xc;
            haa += w;
            hab += w * xc;
            hbb += w * xc * xc;
        }
        let det = haa * hbb - hab * hab;
        if det <= 0.0 || !det.is_finite() {
            return None;
        }
        let (da, db) = ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det);
        let mut t = 1.0;
        let mut next = ll(a + da, b + db);
        while next < cur - 1e-12 && t > 1e-8 {
            t /= 2.0;
            next = ll(a + t * da, b + t * db);
        }
        a += t * da;
        b += t * db;
        let gain = next - cur;
        cur = next;
        if gain.abs() < 1e-12 && (ga.abs() + gb.abs()) < 1e-6 * n.max(1.0) {
            break;
        }
    }
    // A slope that changes the odds by e^40 across the data is separation, not a fit.
    if !(a.is_finite() && b.is_finite()) || (b * (hi - lo)).abs() > 40.0 {
        return None;
    }
    let (mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0);
    for c in &cells {
        let xc = c.x - xbar;
        let p = sigmoid(a + b * xc);
        let w = c.n * p * (1.0 - p);
        haa += w;
        hab += w * xc;
        hbb += w * xc * xc;
    }
    let det = haa * hbb - hab * hab;
    if det <= 0.0 {
        return None;
    }
    Some(Logistic {
        a,
        b,
        xbar,
        scale,
        cov: [hbb / det, -hab / det, haa / det],
        loglik: cur,
    })
}

impl Logistic {
    /// The category value `x` on the fitted scale, centred.
    pub fn centred(&self, x: f64) -> f64 {
        self.scale.to(x) - self.xbar
    }

    /// Predicted A3 at `x`.
    pub fn predict(&self, x: f64) -> f64 {
        sigmoid(self.a + self.b * self.centred(x))
    }

    /// Predicted A3 at `x` with its pointwise 95 % band (Wald, on the logit scale).
    pub fn band(&self, x: f64) -> (f64, f64, f64) {
        let xc = self.centred(x);
        let [vaa, vab, vbb] = self.cov;
        let se = (vaa + 2.0 * xc * vab + xc * xc * vbb).max(0.0).sqrt();
        let eta = self.a + self.b * xc;
        (
            sigmoid(eta),
            sigmoid(eta - Z95 * se),
            sigmoid(eta + Z95 * se),
        )
    }

    /// Where the curve crosses `level` (None for a flat curve).
    pub fn crossing(&self, level: f64) -> Option<f64> {
        (self.b != 0.0).then(|| {
            self.scale
                .from(self.xbar + (logit(level) - self.a) / self.b)
        })
    }
}

/// The profile log-likelihood of the crossing at `theta` (centred): the slope is
/// maximised with `eta = logit(level) + b·(x − theta)`, concave in `b`.
fn profile(cells: &[Cell], c0: f64, theta: f64, b0: f64) -> (f64, f64) {
    let mut b = b0;
    let ll = |b: f64| loglik(cells, |x| c0 + b * (x - theta));
    let mut cur = ll(b);
    for _ in 0..100 {
        let (mut g, mut h) = (0.0, 0.0);
        for c in cells {
            let d = c.x - theta;
            let p = sigmoid(c0 + b * d);
            g += (c.k - c.n * p) * d;
            h += c.n * p * (1.0 - p) * d * d;
        }
        if h <= 0.0 {
            break;
        }
        let step = g / h;
        let mut t = 1.0;
        let mut next = ll(b + step);
        while next < cur - 1e-12 && t > 1e-8 {
            t /= 2.0;
            next = ll(b + t * step);
        }
        b += t * step;
        let gain = next - cur;
        cur = next;
        if gain.abs() < 1e-12 && g.abs() < 1e-9 * (1.0 + h) {
            break;
        }
    }
    (cur, b)
}

/// One end of the profile interval, walking from `start` by `step` until the profile
/// falls below `target`, then bisecting; None when it stays above within `limit`.
fn profile_bound(
    cells: &[Cell],
    c0: f64,
    (start, b0): (f64, f64),
    step: f64,
    limit: f64,
    target: f64,
) -> Option<f64> {
    let (mut inside, mut b_in) = (start, b0);
    let mut t = start;
    loop {
        t += step;
        if (step > 0.0 && t > limit) || (step < 0.0 && t < limit) {
            return None;
        }
        let (l, b) = profile(cells, c0, t, b_in);
        if l < target {
            let mut out = t;
            for _ in 0..50 {
                let mid = 0.5 * (inside + out);
                let (lm, bm) = profile(cells, c0, mid, b_in);
                if lm < target {
                    out = mid;
                } else {
                    inside = mid;
                    b_in = bm;
                }
                if (out - inside).abs() < 1e-6 {
                    break;
                }
            }
            return Some(0.5 * (inside + out));
        }
        inside = t;
        b_in = b;
    }
}

/// The breaking point of `cells` at `level` (0 < level < 1) on the default scale, with
/// the fit it came from.
pub fn breaking_point(cells: &[Cell], level: f64) -> (BreakingPoint, Option<Logistic>) {
    breaking_point_on(cells, level, Scale::DEFAULT)
}

/// The breaking point of `cells` at `level` with the category on `scale`: the fit, the
/// crossing and the profile interval are found on the scale and mapped back.
pub fn breaking_point_on(
    cells: &[Cell],
    level: f64,
    scale: Scale,
) -> (BreakingPoint, Option<Logistic>) {
    let cells = on_scale(cells, scale);
    let n = cells.iter().map(|c| c.n).sum::<f64>().round() as usize;
    let none = BreakingPoint {
        value: None,
        ci: [None, None],
        level,
        reached: false,
        n,
    };
    if !(level > 0.0 && level < 1.0) {
        return (none, None);
    }
    let Some(f) = fit_scaled(&cells, scale) else {
        return (none, None);
    };
    let Some((lo, hi, _)) = span(&cells) else {
        return (none, Some(f));
    };
    // The crossing on the fitted scale (where the profile works).
    let Some(x) = (f.b != 0.0)
        .then(|| f.xbar + (logit(level) - f.a) / f.b)
        .filter(|x| (lo..=hi).contains(x))
    else {
        return (none, Some(f));
    };
    let width = hi - lo;
    let target = f.loglik - HALF_CHI2_95;
    let step = width / 200.0;
    let c0 = logit(level);
    let lower = profile_bound(&cells, c0, (x, f.b), -step, lo - width / 2.0, target);
    let upper = profile_bound(&cells, c0, (x, f.b), step, hi + width / 2.0, target);
    (
        BreakingPoint {
            value: Some(scale.from(x)),
            ci: [lower.map(|t| scale.from(t)), upper.map(|t| scale.from(t))],
            level,
            reached: true,
            n,
        },
        Some(f),
    )
}

/// Cells from per-category counts (A3's numerator and denominator).
pub fn cells_of<'a>(
    counts: impl IntoIterator<Item = (&'a usize, &'a super::counts::Counts)>,
) -> Vec<Cell> {
    counts
        .into_iter()
        .map(|(&x, c)| Cell {
            x: x as f64,
            k: c.accurate.min(c.scored()) as f64,
            n: c.scored() as f64,
        })
        .collect()
}

/// "17.3 [15.9, 18.8]", "17.3 [15.9, beyond the data]" or "not reached".
pub fn describe(bp: &BreakingPoint) -> String {
    match bp.value {
        Some(v) => {
            let b =
                |x: Option<f64>| x.map_or_else(|| "beyond the data".into(), |x| format!("{x:.1}"));
            format!("{v:.1} [{}, {}]", b(bp.ci[0]), b(bp.ci[1]))
        }
        None => "not reached".into(),
    }
}

#[cfg(test)]
#[path = "breaking_tests.rs"]
mod tests;
