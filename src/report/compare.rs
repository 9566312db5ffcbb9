//! Comparing runs that answered the same φ₀: the pass/fail matrix, pattern counts, and
//! McNemar's test for the difference between two runs.

use std::collections::{BTreeMap, HashMap};

/// Samples × runs: whether each run passed each φ₀ (None: that run has no such sample).
#[derive(Clone, Debug)]
pub struct PassFail<K> {
    /// Run names, one per column.
    pub runs: Vec<String>,
    /// φ₀ (or its hash) of each row and its occurrence (0 for the first copy within a run).
    pub keys: Vec<(K, u32)>,
    /// One column per run, one entry per row (column-major: two allocations per run,
    /// not one per sample).
    pub columns: Vec<Vec<Option<bool>>>,
}

impl<K> Default for PassFail<K> {
    fn default() -> Self {
        PassFail {
            runs: Vec::new(),
            keys: Vec::new(),
            columns: Vec::new(),
        }
    }
}

/// How a row's key reads: φ₀, with `#k` for its k-th repeat within a run.
pub(crate) fn key_text((phi0, occ): (&str, u32)) -> String {
    if occ == 0 {
        phi0.to_string()
    } else {
        format!("{phi0} #{}", occ + 1)
    }
}

/// Builds the matrix. Samples are matched by φ₀; a φ₀ that occurs several times in a run
/// is matched occurrence by occurrence (its k-th copy with the other run's k-th copy).
pub fn build<K, R, I>(runs: R) -> PassFail<K>
where
    K: Copy + Eq + std::hash::Hash,
    R: IntoIterator<Item = (String, I)>,
    I: IntoIterator<Item = (K, bool)>,
{
    struct Entry {
        /// Rows of this φ₀: its first, second, … copy.
        rows: Vec<usize>,
        /// The run whose copies are being counted, and how many it has had so far.
        run: usize,
        seen: usize,
    }
    let mut m = PassFail::default();
    // One map, one hash per sample; a fast non-cryptographic hash (keys are not secret,
    // and a run's φ₀ are its own).
    let mut index: HashMap<K, Entry, FastHash> = HashMap::default();
    for (col, (name, samples)) in runs.into_iter().enumerate() {
        m.runs.push(name);
        let mut column: Vec<Option<bool>> = vec![None; m.keys.len()];
        for (phi0, pass) in samples {
            let e = index.entry(phi0).or_insert_with(|| Entry {
                rows: Vec::new(),
                run: col,
                seen: 0,
            });
            if e.run != col {
                e.run = col;
                e.seen = 0;
            }
            let occ = e.seen;
            e.seen += 1;
            let r = if let Some(&r) = e.rows.get(occ) {
                r
            } else {
                m.keys.push((phi0, occ as u32));
                e.rows.push(m.keys.len() - 1);
                m.keys.len() - 1
            };
            if r >= column.len() {
                column.resize(r + 1, None);
            }
            column[r] = Some(pass);
        }
        m.columns.push(column);
    }
    let n = m.keys.len();
    for c in &mut m.columns {
        c.resize(n, None);
    }
    m
}

/// FxHash-style hashing (multiply and rotate, eight bytes at a time).
#[derive(Default, Clone, Copy)]
struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FastHash = std::hash::BuildHasherDefault<FastHasher>;

/// A p-value as people read it: four decimals, scientific below 0.0001, `<1e-16`
/// below what a double tells from zero (`0.0e0` read as "impossible"), `–` for none.
pub(crate) fn format_p(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 1e-16 => "<1e-16".into(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
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
pub(crate) fn mcnemar(b: usize, c: usize) -> Option<f64> {
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

impl<K> PassFail<K> {
    /// Whether run `col` passed row `row` (None: it has no such sample).
    pub fn cell(&self, row: usize, col: usize) -> Option<bool> {
        self.columns
            .get(col)
            .and_then(|c| c.get(row))
            .copied()
            .flatten()
    }

    /// Outcomes of runs `a` and `b` on the samples both have.
    pub fn pair(&self, a: usize, b: usize) -> PairCounts {
        let mut p = PairCounts::default();
        let (Some(ca), Some(cb)) = (self.columns.get(a), self.columns.get(b)) else {
            return p;
        };
        for (x, y) in ca.iter().zip(cb) {
            match (x, y) {
                (Some(true), Some(true)) => p.both += 1,
                (Some(true), Some(false)) => p.a_only += 1,
                (Some(false), Some(true)) => p.b_only += 1,
                (Some(false), Some(false)) => p.neither += 1,
                _ => {}
            }
        }
        p
    }

    /// Indices of the rows every run has.
    pub(crate) fn complete_rows(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.keys.len()).filter(|&r| self.columns.iter().all(|c| c[r].is_some()))
    }

    /// Pattern (one `✓`/`✗` per run, in column order) → samples, over rows every run has.
    pub(crate) fn patterns(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for r in self.complete_rows() {
            let p: String = self
                .columns
                .iter()
                .map(|c| if c[r] == Some(true) { '✓' } else { '✗' })
                .collect();
            *out.entry(p).or_insert(0) += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_p_value_too_small_for_a_double_reads_as_a_bound_not_zero() {
        assert_eq!(super::format_p(Some(0.0)), "<1e-16");
        assert_eq!(super::format_p(Some(3.2e-7)), "3.2e-7");
        assert_eq!(super::format_p(Some(0.04)), "0.0400");
    }

    use super::*;

    #[test]
    fn matrix_matches_by_phi0_and_occurrence() {
        let a = vec![("p", true), ("q", false), ("p", false), ("r", true)];
        let b = vec![("q", true), ("p", true), ("p", true)];
        let m = build(vec![("A".to_string(), a), ("B".to_string(), b)]);
        let keys: Vec<String> = m.keys.iter().map(|k| key_text(*k)).collect();
        assert_eq!(keys, ["p", "q", "p #2", "r"]);
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
