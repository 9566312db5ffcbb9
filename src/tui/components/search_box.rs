//! The search box (`/`): the query being typed and the bookkeeping of searches that run
//! on a worker — which query the shown results belong to, which search is awaited
//! (older results are dropped by generation), ranked or dataset order, and the scores.

use super::text_field::TextField;

/// The search's state; the app builds each search job from it and the filtered rows.
pub struct SearchBox {
    /// The query being typed.
    pub field: TextField,
    /// The query the shown results were computed for.
    pub last: String,
    /// Bumped by every search; a background result must carry the latest.
    pub generation: u64,
    /// The background search being waited for: (generation, query).
    pub pending: Option<(u64, String)>,
    /// Results best match first (else dataset order).
    pub ranked: bool,
    /// The calls' reasoning is searched too (off: φ₀, ψ and φ₁ only).
    pub reasoning: bool,
    /// Each shown row's score while a ranked search is on (else empty).
    pub scores: Vec<i64>,
    /// Runs large searches (started on first use).
    pub worker: Option<super::super::search::Worker>,
    /// Searches over at most this many rows run at once on the UI thread.
    pub sync_limit: usize,
}

impl Default for SearchBox {
    fn default() -> Self {
        SearchBox {
            field: TextField::default(),
            last: String::new(),
            generation: 0,
            pending: None,
            ranked: true,
            reasoning: false,
            scores: Vec::new(),
            worker: None,
            sync_limit: 10_000,
        }
    }
}

impl SearchBox {
    /// A new search begins: its generation, and whether it may narrow the shown results
    /// (the query extends the one they were computed for).
    pub fn begin(&mut self) -> (u64, bool) {
        self.generation += 1;
        let narrows = !self.last.is_empty() && self.field.text.starts_with(&self.last);
        (self.generation, narrows)
    }

    /// Whether a finished background search is the one awaited; if so, it is no longer
    /// pending and its query is returned.
    pub(crate) fn take_if_awaited(&mut self, generation: u64) -> Option<String> {
        match &self.pending {
            Some((want, _)) if *want == generation => self.pending.take().map(|(_, q)| q),
            _ => None,
        }
    }

    /// Best match first ↔ dataset order; the next search starts from the filtered rows.
    pub(crate) fn toggle_order(&mut self) {
        self.ranked = !self.ranked;
        self.last.clear();
    }

    /// Reasoning searched or not; the next search starts from the filtered rows (the
    /// shown results were narrowed over other fields).
    pub(crate) fn toggle_reasoning(&mut self) {
        self.reasoning = !self.reasoning;
        self.last.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_narrowing_and_stale_results() {
        let mut s = SearchBox::default();
        s.field.text = "p1".into();
        assert_eq!(s.begin(), (1, false));
        s.last = "p1".into();
        s.field.text = "p12".into();
        assert_eq!(s.begin(), (2, true), "a longer query narrows");
        s.field.text = "q".into();
        assert_eq!(s.begin(), (3, false));
        s.pending = Some((3, "q".into()));
        assert_eq!(s.take_if_awaited(2), None, "an overtaken search is dropped");
        assert_eq!(s.take_if_awaited(3), Some("q".into()));
        assert!(s.pending.is_none());
        s.toggle_order();
        assert!(!s.ranked && s.last.is_empty());
    }
}
