use super::*;
use crate::base::rng::Rng;
use proptest::prelude::*;

/// Samples of a known curve `logit p = a + b·x`: `per` trials at each x in `xs`, seeded.
fn simulate(a: f64, b: f64, xs: &[f64], per: usize, seed: u64) -> Vec<Cell> {
    simulate_on(Scale::Linear, a, b, xs, per, seed)
}

/// Samples of `logit p = a + b·t(x)` on `scale`.
fn simulate_on(scale: Scale, a: f64, b: f64, xs: &[f64], per: usize, seed: u64) -> Vec<Cell> {
    let mut rng = Rng::new(seed);
    xs.iter()
        .map(|&x| {
            let p = sigmoid(a + b * scale.to(x));
            let k = (0..per).filter(|_| rng.chance(p)).count();
            Cell {
                x,
                k: k as f64,
                n: per as f64,
            }
        })
        .collect()
}

fn xs(lo: usize, hi: usize) -> Vec<f64> {
    (lo..=hi).map(|x| x as f64).collect()
}

#[test]
fn recovers_a_known_crossing_with_an_interval_around_it() {
    // Both curves cross 0.5 at x = 12: logit p = 3 − 0.25·x, and 1.2·(ln 13 − ln(1 + x)).
    for (scale, a, b) in [
        (Scale::Linear, 3.0, -0.25),
        (Scale::Log, 1.2 * 13f64.ln(), -1.2),
    ] {
        let cells = simulate_on(scale, a, b, &xs(1, 30), 60, 7);
        let (bp, f) = breaking_point_on(&cells, 0.5, scale);
        let f = f.expect("fit");
        assert_eq!(f.scale, scale);
        let v = bp.value.expect("reached");
        assert!(bp.reached);
        assert!((v - 12.0).abs() < 1.0, "{scale:?} {v}");
        assert!((f.crossing(0.5).expect("crosses") - v).abs() < 1e-9);
        assert!((f.predict(v) - 0.5).abs() < 1e-9);
        let [lo, hi] = bp.ci.map(|x| x.expect("bounded"));
        assert!(lo < v && v < hi, "{lo} {v} {hi}");
        assert!(hi - lo < 4.0, "{lo} {hi}");
        assert_eq!(bp.n, 30 * 60);
        // The profile at each bound sits on the χ² cut (on the fitted scale).
        let on = on_scale(&cells, scale);
        for t in [lo, hi] {
            let (l, _) = profile(&on, 0.0, scale.to(t), f.b);
            assert!(
                (f.loglik - l - HALF_CHI2_95).abs() < 1e-3,
                "{}",
                f.loglik - l
            );
        }
    }
}

#[test]
fn each_scale_fits_its_own_curve_best() {
    // A curve logistic in ln(1 + x), like the offline model's: the log scale fits it
    // with a higher likelihood, and the linear scale's crossing is pulled off by the tail.
    let cells = simulate_on(Scale::Log, 3.0, -1.1, &xs(0, 39), 50, 3);
    let log = fit_on(&cells, Scale::Log).expect("log fit");
    let lin = fit_on(&cells, Scale::Linear).expect("linear fit");
    assert!(
        log.loglik > lin.loglik + 10.0,
        "{} {}",
        log.loglik,
        lin.loglik
    );
    let truth = (3.0f64 / 1.1).exp_m1();
    let at = |s| breaking_point_on(&cells, 0.5, s).0.value.expect("reached");
    assert!((at(Scale::Log) - truth).abs() < 1.5, "{}", at(Scale::Log));
    assert!(
        (at(Scale::Linear) - truth).abs() > 1.5,
        "{}",
        at(Scale::Linear)
    );
    // The default is the log scale.
    assert_eq!(breaking_point(&cells, 0.5).0.value, Some(at(Scale::Log)));
}

#[test]
fn a_level_never_crossed_inside_the_data_is_not_reached() {
    // Accuracy stays above 0.9 over 1..10: its 0.5 crossing would be extrapolated.
    let cells = simulate(5.0, -0.1, &xs(1, 10), 80, 3);
    let (bp, f) = breaking_point_on(&cells, 0.5, Scale::Linear);
    assert!(f.is_some());
    assert!(!bp.reached);
    assert_eq!(bp.value, None);
    assert_eq!(bp.ci, [None, None]);
}

#[test]
fn all_right_or_all_wrong_has_no_fit() {
    let all = |k: f64| {
        (1..6)
            .map(|x| Cell {
                x: f64::from(x),
                k: k * 10.0,
                n: 10.0,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(fit(&all(1.0)), None);
    assert_eq!(fit(&all(0.0)), None);
    assert!(!breaking_point(&all(1.0), 0.5).0.reached);
}

#[test]
fn separated_data_has_no_fit_rather_than_a_runaway_slope() {
    let cells: Vec<Cell> = (1..=10)
        .map(|x| Cell {
            x: f64::from(x),
            k: if x <= 5 { 10.0 } else { 0.0 },
            n: 10.0,
        })
        .collect();
    assert_eq!(fit(&cells), None);
}

#[test]
fn other_levels_move_the_point_along_the_curve() {
    let cells = simulate(3.0, -0.25, &xs(1, 30), 60, 11);
    let hi = breaking_point(&cells, 0.8).0.value.expect("0.8");
    let mid = breaking_point(&cells, 0.5).0.value.expect("0.5");
    let lo = breaking_point(&cells, 0.2).0.value.expect("0.2");
    let f = fit(&cells).expect("fit");
    for (level, x) in [(0.8, hi), (0.5, mid), (0.2, lo)] {
        assert!((f.predict(x) - level).abs() < 1e-9);
    }
    assert!(hi < mid && mid < lo, "{hi} {mid} {lo}");
    assert!(!breaking_point(&cells, 1.0).0.reached);
}

#[test]
fn the_band_holds_the_curve() {
    let cells = simulate(2.0, -0.2, &xs(0, 20), 40, 5);
    let f = fit(&cells).expect("fit");
    let lin = fit_on(&cells, Scale::Linear).expect("fit");
    for x in 0..=20 {
        let (p, lo, hi) = lin.band(f64::from(x));
        assert!(lo <= p && p <= hi && lo >= 0.0 && hi <= 1.0);
        let (p, lo, hi) = f.band(f64::from(x));
        assert!(lo <= p && p <= hi && lo >= 0.0 && hi <= 1.0);
        assert!((p - f.predict(f64::from(x))).abs() < 1e-12);
    }
}

proptest! {
    /// The fit is a maximum: no nearby (a, b) has a higher likelihood.
    #[test]
    fn the_fit_maximises_the_likelihood(
        a in -3.0f64..5.0, b in -0.8f64..-0.05, per in 5usize..40, seed in 0u64..1000,
    ) {
        let cells = simulate(a, b, &xs(1, 25), per, seed);
        if let Some(f) = fit(&cells) {
            let ll = |da: f64, db: f64| loglik(&cells, |x| f.a + da + (f.b + db) * f.centred(x));
            prop_assert!((ll(0.0, 0.0) - f.loglik).abs() < 1e-6);
            for (da, db) in [(1e-3, 0.0), (-1e-3, 0.0), (0.0, 1e-4), (0.0, -1e-4), (1e-3, 1e-4)] {
                prop_assert!(ll(da, db) <= f.loglik + 1e-9);
            }
        }
    }

    /// A reached point lies in the data and inside its interval; doubling every sample
    /// keeps the point and narrows the interval.
    #[test]
    fn reached_points_sit_inside_their_interval(
        a in 0.0f64..6.0, b in -0.8f64..-0.1, per in 5usize..30, seed in 0u64..1000, log in any::<bool>(),
    ) {
        let scale = if log { Scale::Log } else { Scale::Linear };
        let b = if log { b * 5.0 } else { b };
        let cells = simulate_on(scale, a, b, &xs(1, 25), per, seed);
        let (bp, _) = breaking_point_on(&cells, 0.5, scale);
        if let Some(v) = bp.value {
            prop_assert!((1.0..=25.0).contains(&v));
            if let Some(lo) = bp.ci[0] { prop_assert!(lo < v); }
            if let Some(hi) = bp.ci[1] { prop_assert!(v < hi); }
            let twice: Vec<Cell> = cells.iter().map(|c| Cell { k: 2.0 * c.k, n: 2.0 * c.n, ..*c }).collect();
            let (bp2, _) = breaking_point_on(&twice, 0.5, scale);
            let v2 = bp2.value.expect("same point");
            prop_assert!((v - v2).abs() < 1e-6, "{} {}", v, v2);
            if let ([Some(l1), Some(h1)], [Some(l2), Some(h2)]) = (bp.ci, bp2.ci) {
                prop_assert!(h2 - l2 < h1 - l1);
            }
        }
    }
}
