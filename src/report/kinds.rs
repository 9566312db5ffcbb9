//! Failure kinds of stored samples. The kinds themselves and how they are found live
//! in [`crate::analysis::kinds`]; they are re-exported here for the report's users.

pub use crate::analysis::kinds::{
    FailureKind, categories, classify_pair, classify_parts, kind_of_change, kinds_of_changes,
    kinds_of_diff, mask, unmask, verdict_kinds,
};
use crate::run::format::SampleRecord;
use crate::verify::Verdict;

/// The failure kinds of one sample (empty for a pass). Structural kinds come from the
/// deciding round's φ₁ against its input.
pub fn classify(rec: &SampleRecord) -> Vec<FailureKind> {
    let reason = match &rec.verdict {
        Verdict::Unparseable { reason, .. } => Some(reason.as_str()),
        _ => None,
    };
    let round = rec.rounds.iter().rev().find(|r| r.phi1.is_some());
    classify_parts(
        rec.verdict.kind(),
        reason,
        rec.syntax,
        round.map(|r| r.input.as_str()),
        round.and_then(|r| r.phi1.as_deref()),
    )
}
