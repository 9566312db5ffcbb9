//! Fuzzy search over φ₀, ψ and φ₁.
//!
//! A sample matches when the query's characters (spaces ignored) appear in order
//! inside one of the three texts within a short window: gaps are allowed, but the
//! k-th character of the query must come within 3·k + 6 bytes of the first (so the
//! whole match spans at most three times the query's length plus six bytes). Each
//! prefix of a query obeys the same deadlines as in the longer query, so a row that
//! matches a query matches each of its prefixes, and typing can narrow the previous
//! results without losing rows. Loose
//! subsequences across a whole 500-character description would match nearly
//! every sample. Lowercase queries ignore case. The check runs on bytes, so it
//! stays fast on 100,000 samples. fuzzy-matcher's skim scorer then marks the
//! matched characters in the detail view.

use super::data::SEP;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

/// A compiled query.
pub struct Query {
    bytes: Vec<u8>,
    fold: bool,
    raw: String,
}

impl Query {
    /// Compiles `q`.
    pub fn new(q: &str) -> Query {
        let raw: String = q.split_whitespace().collect();
        let fold = !raw.chars().any(char::is_uppercase);
        let bytes: Vec<u8> = raw
            .bytes()
            .map(|b| if fold { b.to_ascii_lowercase() } else { b })
            .collect();
        Query { bytes, fold, raw }
    }

    /// Whether the query is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    #[inline]
    fn eq(&self, a: u8, q: u8) -> bool {
        a == q || (self.fold && a.to_ascii_lowercase() == q)
    }

    /// The query's bytes in order somewhere in `field`, the k-th (1-based) within
    /// 3·k + 6 bytes of the first. Greedy earliest matching from each start is optimal
    /// for such deadlines.
    fn window(&self, field: &[u8]) -> bool {
        let q = &self.bytes;
        let first = q[0];
        let mut start = 0;
        while start < field.len() {
            let Some(k) = field[start..].iter().position(|&b| self.eq(b, first)) else {
                return false;
            };
            let s = start + k;
            let mut qi = 1;
            let mut i = s + 1;
            while qi < q.len() {
                let deadline = (s + 3 * (qi + 1) + 6).min(field.len());
                while i < deadline && !self.eq(field[i], q[qi]) {
                    i += 1;
                }
                if i >= deadline {
                    break;
                }
                qi += 1;
                i += 1;
            }
            if qi == q.len() {
                return true;
            }
            start = s + 1;
        }
        false
    }

    /// Whether a row's joined text (φ₀, ψ, φ₁) matches.
    pub fn matches(&self, text: &str) -> bool {
        self.is_empty() || text.split(SEP).any(|f| self.window(f.as_bytes()))
    }

    /// Character positions of the match in `text`, for highlighting.
    pub fn positions(&self, text: &str) -> Vec<usize> {
        if self.is_empty() || !self.window(text.as_bytes()) {
            return vec![];
        }
        let m = if self.fold {
            SkimMatcherV2::default().ignore_case()
        } else {
            SkimMatcherV2::default().respect_case()
        };
        m.fuzzy_indices(text, &self.raw)
            .map(|(_, idx)| idx)
            .unwrap_or_default()
    }
}

/// Filters `pool` in parallel, keeping order.
pub fn filter_parallel<T: Copy + Send + Sync>(
    pool: &[T],
    text: impl Fn(T) -> bool + Sync,
) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    if pool.len() < 4096 || threads == 1 {
        return pool.iter().copied().filter(|x| text(*x)).collect();
    }
    let chunk = pool.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = pool
            .chunks(chunk)
            .map(|c| {
                let text = &text;
                s.spawn(move || c.iter().copied().filter(|x| text(*x)).collect::<Vec<T>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_fuzzy_matches() {
        let q = Query::new("p12");
        assert!(q.matches("(p12 ∧ p3)"));
        assert!(q.matches("p1_2"), "small gaps are fine");
        assert!(
            !q.matches("p3 ∧ (p4 ∨ p5) ∧ ¬p6 ∨ (p7 ∧ p8 ∧ p9) ∨ q1 ∧ ¬(q3 ∨ q4) ∧ q2"),
            "scattered letters are not"
        );
        assert!(
            !Query::new("EITHER").matches("x\u{1f}Either p1 or p2"),
            "uppercase respects case"
        );
        assert!(Query::new("either").matches("x\u{1f}Either p1 or p2"));
        assert!(Query::new("p1∧").matches("¬p1 ∧ p2"));
        assert!(!Query::new("zz").matches("p1"));
        assert!(!Query::new("p12").positions("(p12 ∧ p3)").is_empty());
    }

    /// A row that matches a query matches every prefix of it (narrowing is sound).
    #[test]
    fn matches_are_closed_under_prefixes() {
        let mut rng = crate::rng::Rng::new(5);
        let alphabet = b"p12 x";
        for _ in 0..20_000 {
            let len = 1 + rng.below(40);
            let text: String = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())] as char)
                .collect();
            let qlen = 1 + rng.below(5);
            let q: String = (0..qlen).map(|_| alphabet[rng.below(3)] as char).collect();
            if Query::new(&q).matches(&text) {
                for k in 1..q.len() {
                    assert!(
                        Query::new(&q[..k]).matches(&text),
                        "{q:?} matches {text:?} but {:?} does not",
                        &q[..k]
                    );
                }
            }
        }
    }
}
