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

use autoeval::analysis::breaking::{BreakingPoint, Cell, breaking_point};
use autoeval::analysis::design;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::perturb_per_op;
use autoeval::rng::Rng;
use autoeval::syntax::Expr;
use autoeval::verify::{Options, verify_batch};
use std::collections::BTreeMap;
use std::time::Instant;

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
            design::next_round(&counts, &obs, 0.5, (budget / 10).max(5).min(left))
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
        let truth = breaking_point(&pooled, 0.5)
            .0
            .value
            .expect("the pooled curve crosses");
        let naive = 0.5f64.ln() / (1.0 - r).ln();
        if std::env::var("BREAKING_DIAG").is_ok() {
            eprintln!("R {r}:");
            diag(&items, &answers, &pooled, truth, budget);
            continue;
        }
        let (mut sum, mut covered, mut reached, mut agree, mut ratios) = (0.0, 0, 0, 0, Vec::new());
        let mut widths = Vec::new();
        for (s, ok) in answers.iter().enumerate() {
            let (full, _) = breaking_point(&cells(&items, ok, |_| true), 0.5);
            let Some(v) = full.value else { continue };
            reached += 1;
            sum += v;
            let [lo, hi] = full.ci;
            if lo.is_none_or(|l| l <= truth) && hi.is_none_or(|h| truth <= h) {
                covered += 1;
            }
            let (ad, _) = adaptive(&items, ok, budget, None, s as u64 ^ 0xad);
            if ad.value.is_some_and(|a| (a - v).abs() <= 1.5) {
                agree += 1;
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
        let c = design::next_round(&avail, &obs, 0.5, 200);
        std::hint::black_box((bp, c));
    }
    eprintln!(
        "fit + interval + next-round choice at 2,000 samples: {:.2?} each (target ≤ 50 ms)",
        t.elapsed() / reps
    );
}
// `BREAKING_DIAG=1`: which crossing is the estimand. Four adaptive variants against the
// full sweep, per seed: the run's design (c-optimal, unweighted fit), the same design
// with a design-weighted fit (each category's share scaled to its size in the dataset,
// which estimates the full sweep's whole-curve compromise), Neyman allocation for that
// weighted fit, and spreading the whole budget evenly.

/// Design-weighted cells: each category's observed share scaled to its size in the dataset.
fn weighted(obs: &[Cell], sizes: &BTreeMap<usize, usize>) -> Vec<Cell> {
    obs.iter()
        .filter(|c| c.n > 0.0)
        .map(|c| {
            let nn = sizes[&(c.x as usize)] as f64;
            Cell {
                x: c.x,
                k: c.k / c.n * nn,
                n: nn,
            }
        })
        .collect()
}

/// Neyman allocation of `n` samples for the weighted estimator's crossing.
fn neyman(
    avail: &BTreeMap<usize, usize>,
    obs: &[Cell],
    sizes: &BTreeMap<usize, usize>,
    n: usize,
) -> BTreeMap<usize, usize> {
    let w = weighted(obs, sizes);
    let mut out = BTreeMap::new();
    let Some(f) = autoeval::analysis::breaking::fit(&w) else {
        return out;
    };
    let Some(xs) = f.crossing(0.5) else {
        return out;
    };
    let theta = xs - f.xbar;
    let g = [-1.0 / f.b, -theta / f.b];
    // Influence of category x: c_x = g' H^-1 (1, xc), H = full-population information (cov = H^-1 here).
    let [vaa, vab, vbb] = f.cov;
    let mut nx: BTreeMap<usize, f64> = obs.iter().map(|c| (c.x as usize, c.n)).collect();
    let mut left = avail.clone();
    for _ in 0..n {
        let mut best: Option<(usize, f64)> = None;
        for (&x, &a) in &left {
            if a == 0 {
                continue;
            }
            let xc = x as f64 - f.xbar;
            let c = g[0] * (vaa + xc * vab) + g[1] * (vab + xc * vbb);
            let p = f.predict(x as f64).clamp(0.02, 0.98);
            let big = sizes[&x] as f64;
            let have = nx.get(&x).copied().unwrap_or(0.0);
            let gain = if have == 0.0 {
                f64::INFINITY
            } else {
                big * big * c * c * p * (1.0 - p) * (1.0 / have - 1.0 / (have + 1.0))
            };
            if best.is_none_or(|(_, b)| gain > b) {
                best = Some((x, gain));
            }
        }
        let Some((x, _)) = best else { break };
        *out.entry(x).or_default() += 1;
        *nx.entry(x).or_default() += 1.0;
        if let Some(a) = left.get_mut(&x) {
            *a -= 1;
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Current,
    CurrentWeighted,
    Neyman,
    Spread,
}

fn adaptive_v(
    items: &[(usize, Expr)],
    ok: &[bool],
    budget: usize,
    seed: u64,
    v: Variant,
) -> Option<f64> {
    let mut asked = vec![false; items.len()];
    let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for (x, _) in items {
        *sizes.entry(*x).or_default() += 1;
    }
    let mut round = 0u64;
    loop {
        let spent = asked.iter().filter(|a| **a).count();
        let obs = cells(items, ok, |i| asked[i]);
        let mut pools: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, (x, _)) in items.iter().enumerate() {
            if !asked[i] {
                pools.entry(*x).or_default().push(i);
            }
        }
        if spent >= budget || pools.is_empty() {
            return match v {
                Variant::Current | Variant::Spread => breaking_point(&obs, 0.5).0.value,
                Variant::CurrentWeighted | Variant::Neyman => {
                    breaking_point(&weighted(&obs, &sizes), 0.5).0.value
                }
            };
        }
        let counts: BTreeMap<usize, usize> = pools.iter().map(|(k, v)| (*k, v.len())).collect();
        let left = budget - spent;
        let choice = if spent == 0 || v == Variant::Spread {
            design::spread(
                &counts,
                &obs,
                if spent == 0 {
                    (budget / 4).max(2 * counts.len()).min(left)
                } else {
                    left
                },
            )
            .per_category
        } else if v == Variant::Neyman {
            let c = neyman(&counts, &obs, &sizes, (budget / 10).max(5).min(left));
            if c.is_empty() {
                design::next_round(&counts, &obs, 0.5, (budget / 10).max(5).min(left)).per_category
            } else {
                c
            }
        } else {
            design::next_round(&counts, &obs, 0.5, (budget / 10).max(5).min(left)).per_category
        };
        for (k, m) in &choice {
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

/// Where pooled per-category means cross 0.5 (linear interpolation; first crossing).
fn local_truth(pooled: &[Cell]) -> Option<f64> {
    pooled.windows(2).find_map(|w| {
        let (p0, p1) = (w[0].k / w[0].n, w[1].k / w[1].n);
        (p0 >= 0.5 && p1 < 0.5).then(|| w[0].x + (p0 - 0.5) / (p0 - p1) * (w[1].x - w[0].x))
    })
}

fn diag(
    items: &[(usize, Expr)],
    answers: &[Vec<bool>],
    pooled: &[Cell],
    truth: f64,
    budget: usize,
) {
    let curve: Vec<String> = pooled
        .iter()
        .map(|c| format!("{}:{:.2}", c.x, c.k / c.n))
        .collect();
    eprintln!("  pooled A3 by operators: {}", curve.join(" "));
    eprintln!(
        "  local crossing (interpolated pooled means) {:?}; logistic truth {truth:.2}",
        local_truth(pooled)
    );
    for v in [
        Variant::Current,
        Variant::CurrentWeighted,
        Variant::Neyman,
        Variant::Spread,
    ] {
        let (mut agree, mut n, mut errs) = (0, 0, Vec::new());
        for (s, ok) in answers.iter().enumerate() {
            let Some(full) = breaking_point(&cells(items, ok, |_| true), 0.5).0.value else {
                continue;
            };
            n += 1;
            let a = adaptive_v(items, ok, budget, s as u64 ^ 0xad, v);
            if let Some(a) = a {
                errs.push(a - full);
                if (a - full).abs() <= 1.5 {
                    agree += 1;
                }
            }
        }
        errs.sort_by(f64::total_cmp);
        let mean = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
        let sd = (errs.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / errs.len().max(1) as f64)
            .sqrt();
        let name = match v {
            Variant::Current => "current c-optimal, unweighted",
            Variant::CurrentWeighted => "current design, design-weighted fit",
            Variant::Neyman => "Neyman for weighted fit",
            Variant::Spread => "spread only, unweighted",
        };
        eprintln!(
            "  {name}: within ±1.5 in {agree}/{n}; adaptive − full: mean {mean:+.2}, sd {sd:.2}, range [{:.2}, {:.2}]",
            errs.first().copied().unwrap_or(f64::NAN),
            errs.last().copied().unwrap_or(f64::NAN)
        );
    }
}
