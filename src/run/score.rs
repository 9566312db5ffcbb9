//! Scoring a round from stored text: the copy check, extraction and verification that
//! `run` applies to fresh model replies and `rescore`, `import --reverify`, the viewer's
//! rescore and `autoeval score` apply to stored ones. `score_round` is the one path.

use crate::prompt::copy_check;
use crate::record::RoundRecord;
use crate::syntax::{
    Expr, ExtractContext, Extracted, ReadExpr, Reading, SyntaxKind, extract_read_among,
};
use crate::verify::{self, Verdict};
use std::time::Instant;

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
/// `Verdict::with_notes`), or `unparseable`.
pub fn extract_phi1(
    raw: &str,
    input: &Expr,
    prompt: &str,
    psi: &str,
    syntax: SyntaxKind,
    reading: Reading,
) -> Result<Extracted<ReadExpr>, Box<Verdict>> {
    let ctx = ExtractContext::new(input.symbols(), prompt, psi);
    // Candidates that say the same thing are one answer, not several.
    let quick = verify::Options {
        timeout: std::time::Duration::from_secs(1),
        ..verify::Options::default()
    };
    let same = |a: &Expr, b: &Expr| a == b || verify::is_equivalent(a, b, &quick);
    extract_read_among(raw, syntax, &ctx, reading, same).map_err(|e| {
        Box::new(Verdict::Unparseable {
            pos: e.pos,
            reason: e.reason,
        })
    })
}

/// What one round's stored text scores as.
#[derive(Clone, Debug)]
pub(crate) struct Scored {
    /// The round's verdict.
    pub verdict: Verdict,
    /// φ₁ and its byte span in the reply, when extraction found one.
    pub phi1: Option<Extracted<Expr>>,
    /// The copied byte span of ψ, when ψ is a copy.
    pub copy_span: Option<(usize, usize)>,
    /// Time spent verifying, in ms.
    pub verify_ms: f64,
}

impl Scored {
    /// Writes the verdict, φ₁, its span and the verification time into a round record.
    pub fn apply(&self, r: &mut RoundRecord) {
        r.verdict = self.verdict.clone();
        r.phi1 = self.phi1.as_ref().map(|x| x.value.to_unicode());
        r.phi1_span = self.phi1.as_ref().map(|x| (x.start, x.end));
        r.verify_ms = self.verify_ms;
    }
}

/// What one round is scored from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoundText<'a> {
    /// The sample's φ₀ (what φ₁ must be equivalent to).
    pub phi0: &'a Expr,
    /// The round's input (φ₀ in round 1, the previous φ₁ later): what ψ describes.
    pub input: &'a Expr,
    /// ψ; `None` skips the copy check.
    pub psi: Option<&'a str>,
    /// The raw autoformalization reply.
    pub reply: &'a str,
    /// The autoformalization prompt's text, for the echo check (empty: unknown).
    pub prompt: &'a str,
    /// The syntax.
    pub syntax: SyntaxKind,
    /// How formulas without full parentheses are grouped.
    pub reading: Reading,
}

/// Scores one round: the copy check of ψ against the round's input, extraction of φ₁
/// from the reply, verification of φ₁ against φ₀. Every scoring command calls this.
pub(crate) fn score_round(t: &RoundText<'_>, opts: &verify::Options) -> Scored {
    let mut out = Scored {
        verdict: Verdict::Unknown {
            reason: String::new(),
        },
        phi1: None,
        copy_span: None,
        verify_ms: 0.0,
    };
    if let Some(psi) = t.psi
        && let Some(v) = copied(psi, t.input)
    {
        if let Verdict::Copied { span, .. } = &v {
            out.copy_span = Some(*span);
        }
        out.verdict = v;
        return out;
    }
    let x = match extract_phi1(
        t.reply,
        t.input,
        t.prompt,
        t.psi.unwrap_or(""),
        t.syntax,
        t.reading,
    ) {
        Ok(x) => x,
        Err(v) => {
            out.verdict = *v;
            return out;
        }
    };
    let started = Instant::now();
    out.verdict = verify::verify(t.phi0, &x.value.expr, opts).with_notes(x.value.notes);
    out.verify_ms = started.elapsed().as_secs_f64() * 1000.0;
    out.phi1 = Some(Extracted {
        value: x.value.expr,
        start: x.start,
        end: x.end,
    });
    out
}

/// A sample's final verdict: the first failing round's, else the last round's.
pub(crate) fn final_verdict(rounds: &[RoundRecord]) -> Verdict {
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
