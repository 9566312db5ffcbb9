//! Scoring a round from stored text: the copy check, extraction and verification that
//! the pipeline applies to fresh model replies and `rescore` applies to stored ones.

use super::format::RoundRecord;
use crate::prompt::copy_check;
use crate::syntax::{Expr, ExtractContext, Extracted, ReadExpr, Reading, SyntaxKind, extract_read};
use crate::verify::Verdict;

/// `copied` if ψ reproduces the formula it describes.
pub fn copied(psi: &str, input: &Expr) -> Option<Verdict> {
    copy_check(psi, input).map(|(s, e, detail)| Verdict::Copied {
        span: (s, e),
        detail,
    })
}

/// φ₁ extracted from the raw autoformalization reply, under the prompt's context
/// (vocabulary of the round's input, echo of the prompt text) and the reading
/// convention, with the notes on how it was read (add them to the verdict with
/// [`Verdict::with_notes`]), or `unparseable`.
pub fn extract_phi1(
    raw: &str,
    input: &Expr,
    prompt: &str,
    psi: &str,
    syntax: SyntaxKind,
    reading: Reading,
) -> Result<Extracted<ReadExpr>, Box<Verdict>> {
    let ctx = ExtractContext::new(input.symbols(), prompt, psi);
    extract_read(raw, syntax, &ctx, reading).map_err(|e| {
        Box::new(Verdict::Unparseable {
            pos: e.pos,
            reason: e.reason,
        })
    })
}

/// A sample's final verdict: the first failing round's, else the last round's.
pub fn final_verdict(rounds: &[RoundRecord]) -> Verdict {
    rounds
        .iter()
        .find(|r| !r.verdict.is_equivalent())
        .or(rounds.last())
        .map_or(
            Verdict::Unknown {
                reason: "no round ran".into(),
            },
            |r| r.verdict.clone(),
        )
}
