//! Comparing runs that answered the same φ₀: the pass/fail matrix, pattern counts, and
//! McNemar's test for the difference between two runs.

use std::collections::{BTreeMap, HashMap};

/// Samples × runs: whether each run passed each φ₀ (None: that run has no such sample).
#[derive(Clone, Debug, Default)]
pub struct PassFail {
    /// Run names, one per column.
    pub runs: Vec<String>,
    /// φ₀ of each row (with `#k` appended for its k-th repeat within a run).
    pub keys: Vec<String>,
    /// Rows × columns.
    pub cells: Vec<Vec<Option<bool>>>,
}

/// Builds the matrix. Samples are matched by φ₀; a φ₀ that occurs several times in a run
/// is matched occurrence by occurrence (its k-th copy with the other run's k-th copy).
pub fn build<'a, R, I>(runs: R) -> PassFail
where
    R: IntoIterator<Item = (String, I)>,
    I: IntoIterator<Item = (&'a str, bool)>,
{
    let mut m = PassFail::default();
    let mut index: HashMap<(&'a str, u32), usize> = HashMap::new();
    for (col, (name, samples)) in runs.into_iter().enumerate() {
        m.runs.push(name);
        for row in &mut m.cells {
            row.push(None);
        }
        let mut seen: HashMap<&'a str, u32> = HashMap::new();
        for (phi0, pass) in samples {
            let occ = seen.entry(phi0).or_insert(0);
            let key = (phi0, *occ);
            *occ += 1;
            let r = *index.entry(key).or_insert_with(|| {
                m.keys.push(if key.1 == 0 {
                    phi0.to_string()
                } else {
                    format!("{phi0} #{}", key.1 + 1)
                });
                m.cells.push(vec![None; col + 1]);
                m.cells.len() - 1
            });
            m.cells[r][col] = Some(pass);
        }
    }
    m
}

/// The four outcomes of two runs on the samples both have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PairCounts {
    /// Both passed.
    pub both: usize,
    /// Only the first passed.
    pub a_only: usize,
    /// Only the second passed.
    pub b_only: usize,
    /// Neither passed.
    pub neither: usize,
}

impl PairCounts {
    /// Samples both runs have.
    pub fn n(&self) -> usize {
        self.both + self.a_only + self.b_only + self.neither
    }

    /// McNemar's test (two-sided) on the discordant pairs: exact binomial up to 10,000
    /// discordant samples, the χ² approximation with continuity correction beyond.
    /// None when no sample is discordant.
    pub fn mcnemar_p(&self) -> Option<f64> {
        mcnemar(self.a_only, self.b_only)
    }
}

/// Two-sided McNemar p-value for `b` and `c` discordant samples.
pub fn mcnemar(b: usize, c: usize) -> Option<f64> {
    let n = b + c;
    if n == 0 {
        return None;
    }
    if n <= 10_000 {
        // P(X ≤ min(b, c)) for X ~ Bin(n, ½), doubled; terms summed in log space.
        let k = b.min(c);
        let ln_half_n = n as f64 * std::f64::consts::LN_2;
        let mut ln_choose = 0.0f64; // ln C(n, 0)
        let mut tail = 0.0f64;
        for i in 0..=k {
            if i > 0 {
                ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
            }
            tail += (ln_choose - ln_half_n).exp();
        }
        Some((2.0 * tail).min(1.0))
    } else {
        let d = (b as f64 - c as f64).abs() - 1.0;
        let chi2 = d.max(0.0).powi(2) / n as f64;
        // χ²(1) survival = erfc(√(χ²/2)).
        Some(erfc((chi2 / 2.0).sqrt()))
    }
}

/// Complementary error function (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

impl PassFail {
    /// Outcomes of runs `a` and `b` on the samples both have.
    pub fn pair(&self, a: usize, b: usize) -> PairCounts {
        let mut p = PairCounts::default();
        for row in &self.cells {
            match (row.get(a).copied().flatten(), row.get(b).copied().flatten()) {
                (Some(true), Some(true)) => p.both += 1,
                (Some(true), Some(false)) => p.a_only += 1,
                (Some(false), Some(true)) => p.b_only += 1,
                (Some(false), Some(false)) => p.neither += 1,
                _ => {}
            }
        }
        p
    }

    /// Rows every run has.
    pub fn complete_rows(&self) -> impl Iterator<Item = &Vec<Option<bool>>> {
        self.cells.iter().filter(|r| r.iter().all(Option::is_some))
    }

    /// Pattern (one `✓`/`✗` per run, in column order) → samples, over rows every run has.
    pub fn patterns(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for row in self.complete_rows() {
            let p: String = row
                .iter()
                .map(|c| if *c == Some(true) { '✓' } else { '✗' })
                .collect();
            *out.entry(p).or_insert(0) += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_matches_by_phi0_and_occurrence() {
        let a = vec![("p", true), ("q", false), ("p", false), ("r", true)];
        let b = vec![("q", true), ("p", true), ("p", true)];
        let m = build(vec![("A".to_string(), a), ("B".to_string(), b)]);
        assert_eq!(m.keys, ["p", "q", "p #2", "r"]);
        assert_eq!(
            m.pair(0, 1),
            PairCounts {
                both: 1,
                a_only: 0,
                b_only: 2,
                neither: 0
            }
        );
        assert_eq!(m.complete_rows().count(), 3);
        assert_eq!(m.patterns()["✗✓"], 2);
    }

    #[test]
    fn mcnemar_hand_worked() {
        // b = 0, c = 5: p = 2 · (½)^5 = 0.0625.
        assert!((mcnemar(0, 5).unwrap() - 0.0625).abs() < 1e-12);
        // b = 2, c = 8: 2 · (1 + 10 + 45)/1024 = 0.109375.
        assert!((mcnemar(2, 8).unwrap() - 0.109_375).abs() < 1e-12);
        assert_eq!(mcnemar(3, 3), Some(1.0));
        assert_eq!(mcnemar(0, 0), None);
        // The χ² branch: b = 5,000, c = 5,400 → χ² = 399²/10,400 = 15.308, p ≈ 9.13e-5.
        let p = mcnemar(5_000, 5_400).unwrap();
        assert!((p - 9.13e-5).abs() < 2e-6, "{p}");
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
    }
}
