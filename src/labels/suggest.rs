//! Label suggestions from the φ₀/φ₁ diff. Formulas alone cannot tell whether a change
//! happened while describing φ₀ (informalization) or while reading ψ back
//! (autoformalization), so each suggestion names the matching category of both sides
//! and the annotator picks after reading ψ.

use crate::analysis::kinds::FailureKind;
use crate::syntax::diff::{Change, DiffLine};

/// One suggestion: the diff's change and the category it matches on each side.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Suggestion {
    /// The failure kind the diff shows.
    pub kind: &'static str,
    /// The informalization category (ψ already says it wrongly), if the taxonomy has one.
    pub informalization: Option<&'static str>,
    /// The autoformalization category (ψ is right, φ₁ misreads it), if any.
    pub autoformalization: Option<&'static str>,
}

impl Suggestion {
    /// The category `y` takes in label mode: the autoformalization reading (φ₁ misread
    /// ψ) when the taxonomy has one, else the informalization one.
    pub fn accepted(&self) -> Option<&'static str> {
        self.autoformalization.or(self.informalization)
    }

    /// The line the viewer and exports show: where it comes from and both readings.
    pub fn describe(&self) -> String {
        let sides: Vec<String> = [
            self.informalization
                .map(|c| format!("{c} (if ψ says it wrongly)")),
            self.autoformalization
                .map(|c| format!("{c} (if φ₁ misreads ψ)")),
        ]
        .into_iter()
        .flatten()
        .collect();
        format!("from the φ₀/φ₁ diff, {}: {}", self.kind, sides.join(" or "))
    }
}

/// The categories on each side that match one failure kind.
fn sides(kind: FailureKind) -> (Option<&'static str>, Option<&'static str>) {
    match kind {
        FailureKind::NegationMisplaced => {
            (Some("negation-misdescribed"), Some("negation-misplaced"))
        }
        FailureKind::AndOrSwap => (Some("connective-misdescribed"), Some("and-or-swap")),
        FailureKind::ConnectiveSwapped => {
            (Some("connective-misdescribed"), Some("connective-swapped"))
        }
        FailureKind::QuantifierChanged => {
            (Some("quantifier-misdescribed"), Some("quantifier-swap"))
        }
        FailureKind::ScopeChanged | FailureKind::Restructured => {
            (Some("scope-not-conveyed"), Some("parentheses-scope"))
        }
        FailureKind::SymbolRenamed => (Some("symbols-renamed"), None),
        FailureKind::ConstantVariable => (None, Some("constant-variable")),
        FailureKind::Arity => (None, Some("arity")),
        FailureKind::OperandDropped => (Some("incomplete"), Some("term-dropped")),
        FailureKind::StarMisplaced => (Some("star-misdescribed"), Some("star-misplaced")),
        FailureKind::Copied | FailureKind::OffFormat => (Some("off-format"), None),
        FailureKind::ForeignSyntax => (None, Some("foreign-syntax")),
        FailureKind::OperandAdded
        | FailureKind::ModelError
        | FailureKind::Truncated
        | FailureKind::VerifierUnknown
        | FailureKind::Other => (None, None),
    }
}

/// Whether the diff swaps ∨ and ⊕ somewhere.
fn or_xor(diff: &[DiffLine]) -> bool {
    diff.iter().any(|l| {
        l.change == Change::OperatorSwapped && {
            let (a, b) = (l.left.as_deref(), l.right.as_deref());
            matches!((a, b), (Some("∨"), Some("⊕")) | (Some("⊕"), Some("∨")))
        }
    })
}

/// Suggestions for a sample's failure kinds (in their order, without repeats); `diff`
/// tells a ∨/⊕ swap apart from other connective swaps.
pub(crate) fn suggest(kinds: &[FailureKind], diff: &[DiffLine]) -> Vec<Suggestion> {
    let mut out: Vec<Suggestion> = Vec::new();
    for k in kinds {
        let (mut inf, mut auto) = sides(*k);
        if *k == FailureKind::ConnectiveSwapped && or_xor(diff) {
            (inf, auto) = (Some("or-xor-confused"), Some("connective-swapped"));
        }
        if inf.is_none() && auto.is_none() {
            continue;
        }
        let s = Suggestion {
            kind: k.id(),
            informalization: inf,
            autoformalization: auto,
        };
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Suggestions for a stored sample (its deciding round's φ₁ against the input).
pub(crate) fn for_sample(rec: &crate::record::SampleRecord) -> Vec<Suggestion> {
    let kinds = crate::analysis::kinds::classify(rec);
    let round = rec.rounds.iter().rev().find(|r| r.phi1.is_some());
    let diff = round
        .and_then(|r| {
            let a = crate::syntax::parse(&r.input, rec.syntax).ok()?;
            let b = crate::syntax::parse(r.phi1.as_deref()?, rec.syntax).ok()?;
            Some(crate::syntax::diff::diff(&a, &b))
        })
        .unwrap_or_default();
    suggest(&kinds, &diff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Taxonomy;

    #[test]
    fn every_suggested_category_is_in_the_taxonomy_on_its_side() {
        let t = Taxonomy::builtin();
        let all = [
            FailureKind::NegationMisplaced,
            FailureKind::AndOrSwap,
            FailureKind::ConnectiveSwapped,
            FailureKind::QuantifierChanged,
            FailureKind::ScopeChanged,
            FailureKind::SymbolRenamed,
            FailureKind::ConstantVariable,
            FailureKind::Arity,
            FailureKind::OperandDropped,
            FailureKind::StarMisplaced,
            FailureKind::OffFormat,
            FailureKind::ForeignSyntax,
        ];
        for k in all {
            let (i, a) = sides(k);
            if let Some(i) = i {
                assert_eq!(
                    t.by_id(i).map(|c| c.side.as_str()),
                    Some("informalization"),
                    "{i}"
                );
            }
            if let Some(a) = a {
                assert_eq!(
                    t.by_id(a).map(|c| c.side.as_str()),
                    Some("autoformalization"),
                    "{a}"
                );
            }
        }
    }

    #[test]
    fn or_xor_swap_offers_the_or_xor_category() {
        use crate::syntax::{SyntaxKind, parse};
        let a = parse("p1 ∨ p2", SyntaxKind::Pl).unwrap();
        let b = parse("p1 ⊕ p2", SyntaxKind::Pl).unwrap();
        let d = crate::syntax::diff::diff(&a, &b);
        let s = suggest(&crate::analysis::kinds::classify_pair(&a, &b), &d);
        assert_eq!(s[0].informalization, Some("or-xor-confused"), "{s:?}");
        assert!(s[0].describe().starts_with("from the φ₀/φ₁ diff"));
        let b = parse("¬p1 ∨ p2", SyntaxKind::Pl).unwrap();
        let d = crate::syntax::diff::diff(&a, &b);
        let s = suggest(&crate::analysis::kinds::classify_pair(&a, &b), &d);
        assert_eq!(
            (s[0].informalization, s[0].autoformalization),
            (Some("negation-misdescribed"), Some("negation-misplaced"))
        );
    }
}
