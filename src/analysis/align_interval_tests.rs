use super::*;
use crate::base::rng::Rng;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn singletons(xs: &[(f64, bool)]) -> (Vec<bool>, Vec<usize>, usize) {
    (
        xs.iter().map(|x| x.1).collect(),
        (0..xs.len()).collect(),
        xs.len(),
    )
}

#[test]
fn normal_cdf_matches_tables() {
    assert!(close(norm_cdf(0.0), 0.5, 1e-7));
    assert!(close(norm_cdf(Z95), 0.975, 1e-7));
    assert!(close(norm_cdf(-1.0), 0.158_655_253_9, 1e-7));
    assert!(close(norm_cdf(3.0), 0.998_650_101_97, 1e-7));
}

#[test]
fn clustered_variance_by_hand_and_duplicates_are_one_cluster() {
    // The hand-worked example of align.rs: V10 = [1, 0.75, 0], V01 = [0.5, 2/3].
    let xs = [
        (0.8, true),
        (0.6, true),
        (0.2, true),
        (0.6, false),
        (0.4, false),
    ];
    let p = placements(&xs).unwrap();
    let a = 3.5 / 6.0;
    assert!(close(p.auc, a, 1e-12));
    let (pos, cl, k) = singletons(&xs);
    let s10: f64 = [1.0, 0.75, 0.0].iter().map(|v: &f64| (v - a).powi(2)).sum();
    let s01: f64 = [0.5, 2.0 / 3.0].iter().map(|v: &f64| (v - a).powi(2)).sum();
    let want = 5.0 / 4.0 * (s10 / 9.0 + s01 / 4.0);
    let var = cov(&p, &p, &pos, &cl, k).unwrap();
    assert!(close(var, want, 1e-12), "{var} vs {want}");
    // Every formula answered twice (two runs): as one cluster each the variance is the
    // same as once; counted as independent samples it would shrink.
    let twice: Vec<(f64, bool)> = xs.iter().chain(&xs).copied().collect();
    let p2 = placements(&twice).unwrap();
    assert!(close(p2.auc, a, 1e-12));
    let pos2: Vec<bool> = twice.iter().map(|x| x.1).collect();
    let cl2: Vec<usize> = (0..twice.len()).map(|i| i % xs.len()).collect();
    let clustered = cov(&p2, &p2, &pos2, &cl2, xs.len()).unwrap();
    assert!(close(clustered, var, 1e-12), "{clustered} vs {var}");
    let naive = cov(
        &p2,
        &p2,
        &pos2,
        &(0..twice.len()).collect::<Vec<_>>(),
        twice.len(),
    )
    .unwrap();
    assert!(naive < 0.6 * var, "{naive} vs {var}");
    assert_eq!(cov(&p, &p, &pos, &[0; 5], 1), None);
}

#[test]
fn separation_bound_grows_with_the_samples() {
    let small = separation_bound(14, 64);
    let large = separation_bound(100, 400);
    assert!(small > 0.8 && small < 0.99, "{small}");
    assert!(large > small && large < 1.0, "{large}");
    // At the bound, perfect separation has a 2.5% chance.
    let delta = std::f64::consts::SQRT_2 * inverse_cdf(small);
    assert!(close(p_separated(delta, 14, 64), 0.025, 1e-3));
}

fn inverse_cdf(p: f64) -> f64 {
    let (mut lo, mut hi) = (-10.0, 10.0);
    for _ in 0..100 {
        let mid = f64::midpoint(lo, hi);
        if norm_cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    f64::midpoint(lo, hi)
}

#[test]
fn paired_test_sees_a_reversed_metric_and_not_itself() {
    let mut rng = Rng::new(4);
    let xs: Vec<(f64, bool)> = (0..60)
        .map(|i| {
            let pos = i % 3 != 0;
            (normal(&mut rng) + if pos { 1.5 } else { 0.0 }, pos)
        })
        .collect();
    let rev: Vec<(f64, bool)> = xs.iter().map(|&(x, p)| (-x, p)).collect();
    let (a, b) = (placements(&xs).unwrap(), placements(&rev).unwrap());
    let (pos, cl, k) = singletons(&xs);
    assert_eq!(paired_test(&a, &a, &pos, &cl, k), Some((0.0, 1.0)));
    let (z, p) = paired_test(&a, &b, &pos, &cl, k).unwrap();
    assert!(z > 5.0 && p < 1e-6, "{z} {p}");
    // A noisier copy of the metric: a smaller AUC, the difference within reason.
    let noisy: Vec<(f64, bool)> = xs
        .iter()
        .map(|&(x, p)| (x + 2.0 * normal(&mut rng), p))
        .collect();
    let c = placements(&noisy).unwrap();
    let (z, p) = paired_test(&a, &c, &pos, &cl, k).unwrap();
    assert!(z > 0.0 && p < 0.5, "{z} {p}");
}

fn normal(rng: &mut Rng) -> f64 {
    let (u, v) = (rng.unit().max(1e-300), rng.unit());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// Coverage of the true AUC by (plain DeLong, logit DeLong with the separation bound)
/// over `reps` binormal samples of `m` positives and `n` negatives.
fn coverage(m: usize, n: usize, auc: f64, reps: usize, seed: u64) -> (f64, f64) {
    let delta = std::f64::consts::SQRT_2 * inverse_cdf(auc);
    let mut rng = Rng::new(seed);
    let bound = separation_bound(m, n);
    let (mut plain, mut logit) = (0, 0);
    for _ in 0..reps {
        let xs: Vec<(f64, bool)> = (0..m + n)
            .map(|i| {
                let pos = i < m;
                (normal(&mut rng) + if pos { delta } else { 0.0 }, pos)
            })
            .collect();
        let p = placements(&xs).unwrap();
        let (pos, cl, k) = singletons(&xs);
        let var = cov(&p, &p, &pos, &cl, k).unwrap();
        let h = Z95 * var.sqrt();
        plain += usize::from((p.auc - h).max(0.0) <= auc && auc <= (p.auc + h).min(1.0));
        let (lo, hi) = if p.auc >= 1.0 {
            (bound, 1.0)
        } else {
            logit_interval(p.auc, var)
        };
        logit += usize::from(lo <= auc && auc <= hi);
    }
    (plain as f64 / reps as f64, logit as f64 / reps as f64)
}

#[test]
fn the_logit_interval_holds_its_coverage_where_plain_delong_does_not() {
    // 14 equivalent against 64 not-equivalent, as in the shipped runs' bands.
    for (auc, seed) in [(0.90, 1), (0.95, 2), (0.99, 3)] {
        let (plain, logit) = coverage(14, 64, auc, 400, seed);
        assert!(
            logit >= 0.91,
            "AUC {auc}: logit coverage {logit} (plain {plain})"
        );
        if auc >= 0.95 {
            assert!(plain < logit, "AUC {auc}: plain {plain} vs logit {logit}");
        }
    }
}

/// The README's coverage table: `cargo test --lib align_interval -- --ignored --nocapture`.
#[test]
#[ignore = "prints the README's coverage table (2,000 samples per cell)"]
fn coverage_table() {
    println!("| AUC | plain DeLong | logit DeLong + separation bound |");
    println!("|---|---|---|");
    for (i, auc) in [0.90, 0.93, 0.95, 0.97, 0.99].into_iter().enumerate() {
        let (plain, logit) = coverage(14, 64, auc, 2000, 100 + i as u64);
        println!(
            "| {auc:.2} | {:.1} % | {:.1} % |",
            plain * 100.0,
            logit * 100.0
        );
    }
}
