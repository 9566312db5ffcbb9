//! Breaking points (issue 49): the estimator's bias and its interval's coverage on full
//! sweeps of the offline model with known R, the adaptive design's agreement and cost,
//! and the time of one fit plus next-round choice at 2,000 samples.
//!
//! For each R and seed the offline model's answer to every φ₀ of a PL dataset (seed 1,
//! 50 per operator count, as `sample-runs/pl-per-op-full`) is φ₀ with each operator
//! negated with probability R, verified against φ₀ — what `run --model perturb
//! --perturb-per-op R` does, without the prompts. The truth for R is the breaking point
//! of all seeds' samples pooled (the population value of the logistic fit for this
//! model on this dataset: a perturbation can be equivalent by chance, so the curve is
//! only roughly (1 − R)^operators). The adaptive runs replay the same answers through
//! the design `run --adaptive` uses (same functions, same draws).
//!
//! `cargo bench --bench breaking` (SEEDS=50 by default; `BREAKING_RATES=0.05,0.1,0.2`;
//! `BREAKING_DIAG=1` for the pooled curve, its local crossing and four adaptive variants).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A bench's `main` is its list of figures, in the order they print.
#![allow(clippy::too_many_lines)]

use autoeval::analysis::breaking::{BreakingPoint, Cell, Logistic, Scale, breaking_point_on};
use autoeval::analysis::design;
use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::perturb_per_op;
use autoeval::syntax::Expr;
use autoeval::verify::{Options, verify_batch};
use std::collections::BTreeMap;
use std::time::Instant;

#[path = "breaking/diag.rs"]
mod diag;

/// The scale of the fit (`BREAKING_SCALE=linear` for the logistic in operators the
/// reports used before; the default is the reports' own).
fn scale() -> Scale {
    match std::env::var("BREAKING_SCALE").as_deref() {
        Ok("linear") => Scale::Linear,
        Ok("log") => Scale::Log,
        _ => Scale::DEFAULT,
    }
}

fn breaking_point(cells: &[Cell], level: f64) -> (BreakingPoint, Option<Logistic>) {
    breaking_point_on(cells, level, scale())
}

fn next_round(
    avail: &BTreeMap<usize, usize>,
    obs: &[Cell],
    level: f64,
    n: usize,
) -> design::Choice {
    design::next_round_on(avail, obs, level, n, scale())
}

fn dataset() -> Vec<(usize, Expr)> {
    let kind = DatasetKind::Pl;
    let cfg = kind.grammar().expect("grammar");
    let params = GenParams {
        per_category: 50,
        vocab: kind.vocab(),
        ..GenParams::default()
    };
    let batch = generate_batch(&cfg, &params, 1, 0, &mut |_| {}).expect("batch");
    batch
        .items
        .into_iter()
        .map(|i| (i.bucket, i.expr))
        .collect()
}

fn cells(items: &[(usize, Expr)], ok: &[bool], pick: impl Fn(usize) -> bool) -> Vec<Cell> {
    let mut m: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    for (i, (x, _)) in items.iter().enumerate() {
        if pick(i) {
            let e = m.entry(*x).or_default();
            e.0 += f64::from(u8::from(ok[i]));
            e.1 += 1.0;
        }
    }
    m.into_iter()
        .map(|(x, (k, n))| Cell { x: x as f64, k, n })
        .collect()
}

/// An adaptive run over known answers: rounds as `run --adaptive` plans them. Returns
/// the final breaking point and the samples spent.
fn adaptive(
    items: &[(usize, Expr)],
    ok: &[bool],
    budget: usize,
    target: Option<f64>,
    seed: u64,
) -> (BreakingPoint, usize) {
    let mut asked = vec![false; items.len()];
    let mut round = 0u64;
    loop {
        let spent = asked.iter().filter(|a| **a).count();
        let obs = cells(items, ok, |i| asked[i]);
        let (bp, _) = breaking_point(&obs, 0.5);
        let width = match bp.ci {
            [Some(l), Some(h)] if bp.reached => Some(h - l),
            _ => None,
        };
        let narrow = matches!((width, target), (Some(w), Some(t)) if w <= t);
        let mut pools: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, (x, _)) in items.iter().enumerate() {
            if !asked[i] {
                pools.entry(*x).or_default().push(i);
            }
        }
        if spent >= budget || narrow || pools.is_empty() {
            return (bp, spent);
        }
        let counts: BTreeMap<usize, usize> = pools.iter().map(|(k, v)| (*k, v.len())).collect();
        let left = budget - spent;
        let choice = if spent == 0 {
            design::spread(&counts, &obs, (budget / 4).max(2 * counts.len()).min(left))
        } else {
            next_round(&counts, &obs, 0.5, (budget / 10).max(5).min(left))
        };
        for (k, m) in &choice.per_category {
            let pool = &pools[k];
            let mut idx: Vec<usize> = (0..pool.len()).collect();
            Rng::new(seed ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (*k as u64))
                .shuffle(&mut idx);
            for j in idx.into_iter().take(*m) {
                asked[pool[j]] = true;
            }
        }
        round += 1;
    }
}

/// Standard deviation.
fn sd(v: &[f64]) -> f64 {
    let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len().max(1) as f64).sqrt()
}

/// erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    y.copysign(x)
}

/// About the most agreement any design of `budget` samples can reach, under the pooled
/// fit: every sample at the crossing with the slope known gives the crossing a variance
/// of v / (P′(x*)² · budget), with P′ the fitted curve's slope there and v the variance
/// of one answer there — the mean p(1 − p) over the items of the two buckets around the
/// crossing, each item's p taken over the seeds (the items are the same in every seed,
/// so this is below ¼). The full sweep's estimate is efficient and the adaptive run's
/// answers are a subset of its answers, so Var(adaptive − full) ≈ Var(adaptive) −
/// Var(full) (Hausman), the latter taken from the seeds. Approximate: the fit is not the
/// curve, and the slope is estimated.
fn ceiling(
    (f, truth): (&Logistic, f64),
    (items, answers): (&[(usize, Expr)], &[Vec<bool>]),
    budget: usize,
    fulls: &[f64],
    diffs: &[f64],
) {
    let t = f.scale.to(truth);
    let h = 1e-4;
    let dtdx = 2.0 * h / (f.scale.from(t + h) - f.scale.from(t - h));
    let slope = f.b.abs() * 0.25 * dtdx;
    let near = |x: usize| (x as f64 - truth).abs() < 1.0;
    let (mut v, mut m) = (0.0, 0.0);
    for (i, (x, _)) in items.iter().enumerate() {
        if near(*x) {
            let p = answers.iter().filter(|a| a[i]).count() as f64 / answers.len() as f64;
            v += p * (1.0 - p);
            m += 1.0;
        }
    }
    let v = if m > 0.0 { v / m } else { 0.25 };
    let se_min = (v / budget as f64).sqrt() / slope;
    let sd_full = sd(fulls);
    let floor = (se_min * se_min - sd_full * sd_full).max(0.0).sqrt();
    let best = if floor > 0.0 {
        erf(1.5 / (floor * std::f64::consts::SQRT_2))
    } else {
        1.0
    };
    eprintln!(
        "       information ceiling: the fitted curve falls {slope:.3} per operator at the crossing and an answer \
         there varies by {v:.3}, so {budget} samples all at the crossing leave the adaptive point an SD of about \
         {se_min:.2} (full sweep's SD over seeds {sd_full:.2}): adaptive − full has an SD of about {floor:.2} and \
         about {:.0}% of seeds can agree within ±1.5; measured SD {:.2}",
        100.0 * best,
        sd(diffs)
    );
}

fn main() {
    let seeds: u64 = std::env::var("SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let rates: Vec<f64> = std::env::var("BREAKING_RATES").ok().map_or_else(
        || vec![0.05, 0.1, 0.2],
        |s| s.split(',').filter_map(|r| r.trim().parse().ok()).collect(),
    );
    let items = dataset();
    let n = items.len();
    let budget = n * 15 / 100;
    eprintln!("dataset: PL seed 1, {n} items; adaptive budget {budget} (15%); {seeds} seeds per R");
    let opts = Options::default();
    let sensitive = std::env::var("BREAKING_DIAG")
        .is_ok()
        .then(|| diag::sensitive_operators(&items));
    for r in rates {
        let started = Instant::now();
        let mut answers: Vec<Vec<bool>> = Vec::new();
        for s in 0..seeds {
            let pairs: Vec<(Expr, Expr)> = items
                .iter()
                .enumerate()
                .map(|(i, (_, e))| {
                    let mut rng = Rng::new(s.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ i as u64);
                    (e.clone(), perturb_per_op(e, r, &mut rng))
                })
                .collect();
            answers.push(
                verify_batch(&pairs, &opts)
                    .iter()
                    .map(autoeval::verify::Verdict::is_equivalent)
                    .collect(),
            );
        }
        let mut pooled: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
        for ok in &answers {
            for c in cells(&items, ok, |_| true) {
                let e = pooled.entry(c.x as u64).or_default();
                e.0 += c.k;
                e.1 += c.n;
            }
        }
        let pooled: Vec<Cell> = pooled
            .into_iter()
            .map(|(x, (k, n))| Cell { x: x as f64, k, n })
            .collect();
        let (truth, truth_fit) = breaking_point(&pooled, 0.5);
        let truth = truth.value.expect("the pooled curve crosses");
        let truth_fit = truth_fit.expect("the pooled curve has a fit");
        let naive = 0.5f64.ln() / (1.0 - r).ln();
        if let Some(sens) = &sensitive {
            eprintln!("R {r}:");
            diag::diag(&items, &answers, &pooled, (truth, r), budget, sens);
            continue;
        }
        let (mut sum, mut covered, mut reached, mut agree, mut ratios) = (0.0, 0, 0, 0, Vec::new());
        let (mut widths, mut fulls, mut diffs) = (Vec::new(), Vec::new(), Vec::new());
        for (s, ok) in answers.iter().enumerate() {
            let (full, _) = breaking_point(&cells(&items, ok, |_| true), 0.5);
            let Some(v) = full.value else { continue };
            reached += 1;
            sum += v;
            fulls.push(v);
            let [lo, hi] = full.ci;
            if lo.is_none_or(|l| l <= truth) && hi.is_none_or(|h| truth <= h) {
                covered += 1;
            }
            let (ad, _) = adaptive(&items, ok, budget, None, s as u64 ^ 0xad);
            if let Some(a) = ad.value {
                diffs.push(a - v);
                agree += i32::from((a - v).abs() <= 1.5);
            }
            // Cost ratio: samples the adaptive design needs to reach the full sweep's width.
            if let [Some(l), Some(h)] = full.ci {
                widths.push(h - l);
                let (_, spent) = adaptive(&items, ok, n, Some(h - l), s as u64 ^ 0xad);
                ratios.push(spent as f64 / n as f64);
            }
        }
        ratios.sort_by(f64::total_cmp);
        widths.sort_by(f64::total_cmp);
        let median = |v: &[f64]| v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
        let k = f64::from(reached);
        eprintln!(
            "R {r}: truth {truth:.2} operators ((1-R)^x = 1/2 at {naive:.2}); full sweep: {reached}/{seeds} reached, \
             bias {:+.3}, 95% CI covers the truth in {covered}/{reached} ({:.0}%), median width {:.2}; \
             adaptive at 15%: within ±1.5 of the full sweep in {agree}/{reached} ({:.0}%); \
             samples to the full sweep's width: median {:.0}% ({}–{}%) — {:.1?}",
            sum / k - truth,
            100.0 * f64::from(covered) / k,
            median(&widths),
            100.0 * f64::from(agree) / k,
            100.0 * median(&ratios),
            (100.0 * ratios.first().copied().unwrap_or(f64::NAN)).round(),
            (100.0 * ratios.last().copied().unwrap_or(f64::NAN)).round(),
            started.elapsed()
        );
        ceiling(
            (&truth_fit, truth),
            (&items, &answers),
            budget,
            &fulls,
            &diffs,
        );
    }
    // Fit plus next-round choice at 2,000 samples.
    let mut rng = Rng::new(9);
    let obs: Vec<Cell> = (0..40)
        .map(|x| {
            let p = 1.0 / (1.0 + (-(2.0 - 0.2 * f64::from(x))).exp());
            let k = (0..50).filter(|_| rng.chance(p)).count();
            Cell {
                x: f64::from(x),
                k: k as f64,
                n: 50.0,
            }
        })
        .collect();
    let avail: BTreeMap<usize, usize> = (0..40).map(|x| (x, 50)).collect();
    let reps = 200;
    let t = Instant::now();
    for _ in 0..reps {
        let bp = breaking_point(std::hint::black_box(&obs), 0.5);
        let c = next_round(&avail, &obs, 0.5, 200);
        std::hint::black_box((bp, c));
    }
    eprintln!(
        "fit + interval + next-round choice at 2,000 samples: {:.2?} each (target ≤ 50 ms)",
        t.elapsed() / reps
    );
}
