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
//! every sample. Lowercase queries ignore case. The check runs on bytes, starting
//! from SIMD searches for the query's bytes, so it stays fast on a million samples
//! (the tests hold it to the plain scan). The window admits a row; fuzzy-matcher's skim
//! scorer then ranks the admitted rows (best match first, or dataset order when the
//! user toggles ranking off) and marks the matched characters in the detail view.
//! Skim alone would admit any scattered subsequence, hence the window in front of it.

use super::data::SEP;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

/// A compiled query.
pub struct Query {
    bytes: Vec<u8>,
    /// Per query byte, the two field bytes it accepts (the same twice unless folding
    /// makes an ASCII letter match its capital).
    accept: Vec<(u8, u8)>,
    raw: String,
    skim: SkimMatcherV2,
    /// Fields searched: φ₀, ψ, φ₁, and the calls' reasoning when asked.
    nfields: usize,
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
        // A field byte `a` matches `q` when `a == q`, or, folding, when
        // `a.to_ascii_lowercase() == q`: only an ASCII capital adds a second byte.
        let accept = bytes
            .iter()
            .map(|&b| {
                if fold && b.is_ascii_lowercase() {
                    (b, b.to_ascii_uppercase())
                } else {
                    (b, b)
                }
            })
            .collect();
        let skim = if fold {
            SkimMatcherV2::default().ignore_case()
        } else {
            SkimMatcherV2::default().respect_case()
        };
        Query {
            bytes,
            accept,
            raw,
            skim,
            nfields: 3,
        }
    }

    /// Searches the calls' reasoning too (the row text's fourth field).
    #[must_use]
    pub fn with_reasoning(mut self, on: bool) -> Query {
        // The fourth field and on are reasoning (its text cannot hold a separator).
        self.nfields = if on { usize::MAX } else { 3 };
        self
    }

    /// Searches only what a blind session shows of a row's text: φ₀ and ψ.
    #[must_use]
    pub fn blind(mut self) -> Query {
        self.nfields = 2;
        self
    }

    /// Whether the query is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The query's bytes in order somewhere in `field`, the k-th (1-based) within
    /// 3·k + 6 bytes of the first. Greedy earliest matching from each start is optimal
    /// for such deadlines.
    fn window(&self, field: &[u8]) -> bool {
        if !self.may_match(field) {
            return false;
        }
        let mut found = false;
        self.each_start(field, &mut |s| {
            found = self.extend(field, s).is_some();
            found
        });
        found
    }

    /// Calls `f` with each position of `field` holding the query's first byte that
    /// may start a window, in order, until it returns true.
    #[inline]
    fn each_start(&self, field: &[u8], f: &mut dyn FnMut(usize) -> bool) {
        let Some(&(x, y)) = self.accept.first() else {
            return;
        };
        let m = self.accept.len();
        let Some(&(lx, ly)) = self.accept.last().filter(|_| m > 1) else {
            if x == y {
                memchr::memchr_iter(x, field).any(f);
            } else {
                memchr::memchr2_iter(x, y, field).any(f);
            }
            return;
        };
        // A window ends on the query's last byte at most 3·m + 5 bytes after its start,
        // so only starts shortly before one of those can succeed. The last byte is
        // usually rarer than the first (`2` against `p`): a SIMD search for it and a
        // short look back for starts skip most of a field.
        let mut next = 0;
        let mut look = |j: usize, f: &mut dyn FnMut(usize) -> bool| {
            let Some(hi) = (j + 2).checked_sub(m) else {
                return false;
            };
            let lo = next.max(j.saturating_sub(3 * m + 5));
            next = next.max(hi);
            (lo..hi).any(|s| {
                let b = field[s];
                (b == x || b == y) && f(s)
            })
        };
        if lx == ly {
            memchr::memchr_iter(lx, field).any(|j| look(j, f));
        } else {
            memchr::memchr2_iter(lx, ly, field).any(|j| look(j, f));
        }
    }

    /// The end (exclusive) of the greedy earliest match of the query's other bytes
    /// after a first byte at `s`, each before its deadline; `None` if one misses it.
    #[inline]
    fn extend(&self, field: &[u8], s: usize) -> Option<usize> {
        let mut i = s + 1;
        for (qi, &(x, y)) in self.accept.iter().enumerate().skip(1) {
            let deadline = (s + 3 * (qi + 1) + 6).min(field.len());
            loop {
                if i >= deadline {
                    return None;
                }
                let b = field[i];
                i += 1;
                if b == x || b == y {
                    break;
                }
            }
        }
        Some(i)
    }

    /// False when `field` lacks one of the query's later bytes: no window then, and a
    /// SIMD search says so sooner than trying every start (a `2` in regex texts).
    fn may_match(&self, field: &[u8]) -> bool {
        self.accept.iter().skip(1).all(|&(x, y)| {
            if x == y {
                memchr::memchr(x, field).is_some()
            } else {
                memchr::memchr2(x, y, field).is_some()
            }
        })
    }

    /// The shortest admitted window of `field`, the earliest of equally short ones.
    fn tightest(&self, field: &[u8]) -> Option<(usize, usize)> {
        if !self.may_match(field) {
            return None;
        }
        // No window is shorter than the query: one that long ends the search.
        let least = self.bytes.len();
        let mut best: Option<(usize, usize)> = None;
        self.each_start(field, &mut |a| {
            if let Some(b) = self.extend(field, a)
                && best.is_none_or(|(x, y)| b - a < y - x)
            {
                best = Some((a, b));
                return b - a == least;
            }
            false
        });
        best
    }

    /// Whether a row's joined text (φ₀, ψ, φ₁, and reasoning when asked) matches.
    pub fn matches(&self, text: &str) -> bool {
        self.is_empty()
            || fields(text)
                .take(self.nfields)
                .any(|f| self.window(f.as_bytes()))
    }

    /// The best skim score over the fields the window admits, or `None` when the row
    /// does not match. Ranking uses it; a higher score is a tighter, earlier match.
    pub fn score(&self, text: &str) -> Option<i64> {
        self.score_with(text, &mut Memo::default())
    }

    /// [`Query::score`] remembering skim's scores in `memo`: the same few windows
    /// (`p12 ∧`) recur across thousands of rows, and φ₁ often repeats φ₀.
    fn score_with(&self, text: &str, memo: &mut Memo) -> Option<i64> {
        if self.is_empty() {
            return Some(0);
        }
        // Skim scores the tightest admitted window of each field (plus a little
        // context for its word-boundary bonus): one call per field, costing the
        // query's length rather than the field's.
        let mut best = None;
        let mut done: [&str; 3] = [""; 3];
        for (k, f) in fields(text).take(self.nfields).enumerate() {
            // A field equal to an earlier one (φ₁ = φ₀ in most samples) adds nothing to
            // the best score.
            if done[..k.min(3)].contains(&f) {
                continue;
            }
            if let Some(d) = done.get_mut(k) {
                *d = f;
            }
            if let Some((a, b)) = self.tightest(f.as_bytes()) {
                let lo = floor_char(f, a.saturating_sub(2));
                let hi = ceil_char(f, (b + 2).min(f.len()));
                best = best.max(memo.score(&self.skim, &f[lo..hi], &self.raw));
            }
        }
        best
    }

    /// Character positions of the match in `text`, for highlighting.
    pub fn positions(&self, text: &str) -> Vec<usize> {
        if self.is_empty() || !self.window(text.as_bytes()) {
            return vec![];
        }
        self.skim
            .fuzzy_indices(text, &self.raw)
            .map(|(_, idx)| idx)
            .unwrap_or_default()
    }
}

/// Skim's scores of windows already scored in this search (bounded).
#[derive(Default)]
struct Memo(std::collections::HashMap<Box<str>, Option<i64>>);

impl Memo {
    /// Windows remembered at most; then it starts over.
    const MAX: usize = 1 << 16;

    fn score(&mut self, skim: &SkimMatcherV2, window: &str, query: &str) -> Option<i64> {
        if let Some(&s) = self.0.get(window) {
            return s;
        }
        let s = skim.fuzzy_match(window, query);
        if self.0.len() >= Memo::MAX {
            self.0.clear();
        }
        self.0.insert(window.into(), s);
        s
    }
}

/// A row's fields (φ₀, ψ, φ₁): the text split at [`SEP`] by a SIMD search.
fn fields(text: &str) -> impl Iterator<Item = &str> {
    let sep = u8::try_from(SEP).unwrap_or(0x1f);
    let mut from = 0;
    let mut cuts = memchr::memchr_iter(sep, text.as_bytes());
    std::iter::from_fn(move || {
        let start = from;
        if start > text.len() {
            return None;
        }
        // SEP is one ASCII byte, so both ends are on character boundaries.
        let end = cuts.next().unwrap_or(text.len());
        from = end + 1;
        text.get(start..end)
    })
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

mod job;
pub use job::{Found, Job, Worker, filter_parallel};
pub(crate) use job::{filter_range_parallel, merge_by, run_job};

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
