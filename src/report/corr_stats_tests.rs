use super::*;

#[test]
fn special_functions_match_known_values() {
    assert!((ln_gamma(0.5) - 0.572_364_942_924_700_1).abs() < 1e-14);
    assert!((ln_gamma(10.0) - 12.801_827_480_081_469).abs() < 1e-13);
    // I_0.3(2, 3) = 0.3483 exactly: 1 − Σ… = 0.3483.
    assert!((beta_reg(2.0, 3.0, 0.3) - 0.3483).abs() < 1e-14);
    // erfc(1) = 0.157299207050285…
    assert!((normal_two_sided(2f64.sqrt()) - 0.157_299_207_050_285_13).abs() < 1e-15);
}

#[test]
fn predictive_power_counts_ordered_pairs_and_ties_in_y_as_not_greater() {
    // Pairs with differing X: (1,2), (1,3), (2,3) → y: 1<2 hit, 1=1 tie (miss), 2>1 miss.
    let p = predictive_power(&[1.0, 2.0, 3.0], &[1.0, 2.0, 1.0], 100, 1);
    assert_eq!(p.pairs, 3);
    assert_eq!(p.value, Some(1.0 / 3.0));
    // Tied X never forms a pair.
    let p = predictive_power(&[1.0, 1.0, 2.0], &[0.0, 5.0, 3.0], 0, 1);
    assert_eq!(p.pairs, 2);
    assert_eq!(p.value, Some(0.5));
    assert_eq!(p.ci, None);
}

#[test]
fn shared_draws_give_each_pair_what_it_gets_alone() {
    let mut rng = Rng::new(4);
    let x: Vec<f64> = (0..30).map(|_| rng.below(10) as f64).collect();
    let ys: Vec<Vec<f64>> = (0..4)
        .map(|_| (0..30).map(|_| rng.below(10) as f64).collect())
        .collect();
    let pairs: Vec<(&[f64], &[f64])> = ys.iter().map(|y| (x.as_slice(), y.as_slice())).collect();
    let many = predictive_power_many(&pairs, 500, 77);
    for (y, p) in ys.iter().zip(&many) {
        assert_eq!(*p, predictive_power(&x, y, 500, 77));
        assert!(p.ci.is_some());
    }
    // A constant X has no pair: no value, no draws, and the others are unaffected.
    let flat = vec![1.0; 30];
    let mixed = predictive_power_many(&[(&flat, &ys[0]), (&x, &ys[1])], 500, 77);
    assert_eq!(mixed[0].value, None);
    assert_eq!(mixed[1], many[1]);
}

#[test]
fn weighted_counts_equal_the_definition_walked_pair_by_pair() {
    // 150 models (three words a bitset) with ties, weights up to 9 (four planes).
    let mut rng = Rng::new(9);
    let n = 150;
    let x: Vec<f64> = (0..n).map(|_| rng.below(20) as f64).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.below(20) as f64).collect();
    let pc = PowerCounter::new(&x, &y);
    let mut planes = Vec::new();
    for _ in 0..20 {
        let w: Vec<u32> = (0..n).map(|_| rng.below(10) as u32).collect();
        let (mut hits, mut pairs) = (0u64, 0u64);
        for i in 0..n {
            for j in 0..n {
                let ww = u64::from(w[i]) * u64::from(w[j]);
                if x[i] > x[j] {
                    pairs += ww;
                    if y[i] > y[j] {
                        hits += ww;
                    }
                }
            }
        }
        assert_eq!(pc.count(&w, &mut planes), (hits, pairs));
    }
}
