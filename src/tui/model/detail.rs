//! Everything derived for the selected sample: the record, parsed formulas, the
//! structural diff, the countermodel's evaluations, the transcript.

use super::Model;
use crate::record::SampleRecord;
use crate::syntax::diff::{DiffLine, diff, summary};
use crate::syntax::{Expr, parse};
use crate::verify::Verdict;
use crate::verify::explain::{EvalLine, explain};
use crate::verify::model::FiniteModel;

/// A formula as printed and the byte range to highlight in it.
pub type Highlighted = (String, Option<(usize, usize)>);

/// The changes and failure kinds of `verify --explain` for a pair.
pub type Explained = (
    crate::analysis::proof::Explanation,
    Vec<crate::analysis::kinds::FailureKind>,
);

/// Everything derived for the selected sample.
#[derive(Debug)]
pub struct Detail {
    /// (run, row) it belongs to.
    pub key: (u32, u32),
    /// The full record, or why it could not be read.
    pub record: Result<SampleRecord, crate::tui::data::RecordError>,
    /// φ₀ parsed.
    pub phi0: Option<Expr>,
    /// Round 1's φ₁ parsed.
    pub phi1: Option<Expr>,
    /// Aligned diff.
    pub diff: Vec<DiffLine>,
    /// Kinds of change.
    pub changes: Vec<&'static str>,
    /// Each diff line's mark, named as `verify --explain` names the change.
    pub marks: Vec<String>,
    /// The row's failure-kind mask (kinds from proved edits, computed when the run
    /// was indexed), with `UNPROVED` when the kinds are the structural diff's guess.
    pub fails: u32,
    /// The changes and kinds exactly as `verify --explain` prints them: a proof search,
    /// started only when the Diff tab first shows this sample, on a background thread
    /// (a FOL search confirms with Z3 and can take longer than a frame).
    explained: std::sync::Arc<std::sync::OnceLock<Explained>>,
    /// Whether the search was started, and whether a frame showed it still running
    /// (so the frame after it ends is drawn).
    proving: std::cell::Cell<(bool, bool)>,
    /// Subformulas evaluated under the countermodel.
    pub explain: Vec<EvalLine>,
    /// φ₀ and φ₁ as printed, each with the byte range of the smallest subformula that
    /// holds every difference (highlighted on the Overview).
    pub highlight: Option<[Highlighted; 2]>,
    /// Every model call as a conversation (the Raw tab).
    pub transcript: Vec<crate::tui::transcript::Call>,
    /// In a blind session before this annotator labelled it, what may be shown of the
    /// sample: the Overview and the copy menu draw this and nothing else.
    pub blind: Option<super::blind::BlindSample>,
}

impl Detail {
    /// Reads and analyses sample `key` of the model.
    pub fn of(m: &Model, key: (u32, u32)) -> Detail {
        let run = &m.runs[key.0 as usize];
        let row = &run.rows[key.1 as usize];
        let record = run.record(row);
        let fails = row.fails;
        let (mut phi0, mut phi1, mut d, mut changes, mut ex) = (None, None, vec![], vec![], vec![]);
        let mut highlight = None;
        let mut transcript = Vec::new();
        let mut marks = Vec::new();
        if let Ok(rec) = &record {
            let prompts = run
                .manifest
                .as_ref()
                .and_then(crate::tui::transcript::prompts_of);
            transcript = crate::tui::transcript::transcript(rec, prompts.as_ref());
            phi0 = parse(&rec.phi0, rec.syntax).ok();
            phi1 = rec
                .rounds
                .first()
                .and_then(|r| r.phi1.as_ref())
                .and_then(|t| parse(t, rec.syntax).ok());
            if let (Some(a), Some(b)) = (&phi0, &phi1) {
                d = diff(a, b);
                changes = summary(&d);
                marks = crate::syntax::diff::line_marks(&d);
                if let (Expr::Logic(fa), Expr::Logic(fb)) = (a, b)
                    && let Some((sa, sb)) = crate::verify::normalize::difference_path(fa, fb)
                        .last()
                        .copied()
                {
                    highlight = Some([
                        crate::syntax::print_with_span(fa, sa),
                        crate::syntax::print_with_span(fb, sb),
                    ]);
                }
                if let (
                    Verdict::NotEquivalent { countermodel, .. },
                    Expr::Logic(fa),
                    Expr::Logic(fb),
                ) = (&rec.verdict, a, b)
                    && let Some(fm) = FiniteModel::from_countermodel(countermodel)
                {
                    ex = explain(fa, fb, &fm);
                }
            }
        }
        let blind = match &record {
            Ok(rec) if m.hidden(key) => Some(super::blind::BlindSample::of(rec, key.0 as usize)),
            _ => None,
        };
        Detail {
            blind,
            transcript,
            key,
            record,
            phi0,
            phi1,
            diff: d,
            changes,
            marks,
            fails,
            explained: std::sync::Arc::default(),
            proving: std::cell::Cell::new((false, false)),
            explain: ex,
            highlight,
        }
    }

    /// The changes and kinds of `verify --explain` for this pair: the very call it
    /// makes, so both say the same words. The first call starts the search on a
    /// background thread; `None` while it runs (the Diff tab says "proving…").
    pub fn explained(&self) -> Option<&Explained> {
        if let Some(x) = self.explained.get() {
            return Some(x);
        }
        let (Some(a), Ok(rec)) = (&self.phi0, &self.record) else {
            return Some(self.explained.get_or_init(Default::default));
        };
        if !self.proving.get().0 {
            let (a, b, v) = (a.clone(), self.phi1.clone(), rec.verdict.clone());
            let cell = std::sync::Arc::clone(&self.explained);
            std::thread::spawn(move || {
                let _ = cell.set(crate::analysis::kinds::explain(&a, b.as_ref(), &v));
            });
        }
        self.proving.set((true, true));
        None
    }

    /// Whether a search that a frame showed running has ended since (draw again).
    pub fn proof_arrived(&self) -> bool {
        let (started, shown) = self.proving.get();
        let arrived = shown && self.explained.get().is_some();
        if arrived {
            self.proving.set((started, false));
        }
        arrived
    }

    /// Waits up to `timeout` for a started search to end; whether it has.
    pub fn wait_explained(&self, timeout: std::time::Duration) -> bool {
        let end = std::time::Instant::now() + timeout;
        while self.explained.get().is_none() {
            if !self.proving.get().0 || std::time::Instant::now() >= end {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        true
    }

    /// Whether the sample's changes are the structural diff's guess (no explanation of
    /// ≤ 2 edits proved).
    pub fn unproved(&self) -> bool {
        self.fails & crate::analysis::kinds::UNPROVED != 0
    }

    /// What the structural diff suggests for the sample's first automatic failure kind
    /// that maps to the taxonomy: the matching category on each side (the diff cannot
    /// tell whether ψ or φ₁ went wrong).
    pub fn suggestion(&self) -> Option<crate::labels::suggest::Suggestion> {
        let kinds = match &self.record {
            Ok(_) => crate::analysis::kinds::unmask(self.fails),
            Err(_) => crate::analysis::kinds::kinds_of_diff(&self.diff),
        };
        crate::labels::suggest::suggest(&kinds, &self.diff)
            .into_iter()
            .next()
    }
}
