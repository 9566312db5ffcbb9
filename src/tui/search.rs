//! Fuzzy search over φ₀, ψ and φ₁ (fuzzy-matcher's skim algorithm) with a cheap
//! subsequence pre-check, since every fuzzy match is a subsequence match.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

/// A compiled query.
pub struct Query {
    lower: Vec<char>,
    raw: String,
    matcher: SkimMatcherV2,
}

impl Query {
    /// Compiles `q` (smart case: lowercase queries ignore case).
    pub fn new(q: &str) -> Query {
        Query {
            lower: q
                .chars()
                .filter(|c| !c.is_whitespace())
                .flat_map(char::to_lowercase)
                .collect(),
            raw: q.split_whitespace().collect::<Vec<_>>().join(""),
            matcher: SkimMatcherV2::default().smart_case(),
        }
    }

    /// Whether the query is empty.
    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    fn subsequence(&self, text: &str) -> bool {
        let mut want = self.lower.iter();
        let mut next = want.next();
        for c in text.chars() {
            let Some(w) = next else { return true };
            if c == *w || c.to_lowercase().next() == Some(*w) {
                next = want.next();
            }
        }
        next.is_none()
    }

    /// Whether `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        self.is_empty()
            || (self.subsequence(text) && self.matcher.fuzzy_match(text, &self.raw).is_some())
    }

    /// Byte positions of the match in `text`, for highlighting.
    pub fn positions(&self, text: &str) -> Vec<usize> {
        if self.is_empty() {
            return vec![];
        }
        self.matcher
            .fuzzy_indices(text, &self.raw)
            .map(|(_, idx)| idx)
            .unwrap_or_default()
    }
}
