//! Automatic failure classification: what kind of mistake each failing sample shows,
//! found from its verdict and the named changes of the structural diff of φ₀ and φ₁,
//! mapped to the taxonomy.

pub use crate::analysis::failure_kind::{FailureKind, kind_of_change};
pub use crate::analysis::proof::Explanation;
use crate::record::SampleRecord;
use crate::syntax::diff::{DiffLine, NamedChange, changes};
use crate::syntax::{Expr, SyntaxKind, parse};
use crate::verify::{Countermodel, Verdict, VerdictKind};

/// The kinds named changes show, in the order they appear, without repeats.
pub fn kinds_of_changes(named: &[NamedChange]) -> Vec<FailureKind> {
    let mut out = Vec::new();
    for k in named.iter().filter_map(|c| kind_of_change(c.change)) {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The kinds a diff shows, in the order they appear, without repeats.
pub fn kinds_of_diff(lines: &[DiffLine]) -> Vec<FailureKind> {
    kinds_of_changes(&changes(lines))
}

/// Classifies a not-equivalent φ₀ against φ₁ (both parsed): the kinds of the changes
/// the verifier proves ([`crate::analysis::proof`]), else of the structural diff.
pub fn classify_pair(phi0: &Expr, phi1: &Expr) -> Vec<FailureKind> {
    kinds_of_changes(&proved_changes(phi0, phi1, false).changes)
}

/// The changes from φ₀ to φ₁ for a pair the verifier found `equivalent` (true) or not:
/// none for an equivalent pair, else the proved edits or the structural diff's guess.
pub fn proved_changes(phi0: &Expr, phi1: &Expr, equivalent: bool) -> Explanation {
    proved_changes_with(phi0, phi1, equivalent, None)
}

/// [`proved_changes`] with the countermodel the verifier found for a not-equivalent
/// pair, which spares asking it again ([`crate::analysis::proof::explain_with`]).
pub fn proved_changes_with(
    phi0: &Expr,
    phi1: &Expr,
    equivalent: bool,
    countermodel: Option<&Countermodel>,
) -> Explanation {
    crate::analysis::proof::explain_with(
        phi0,
        phi1,
        equivalent,
        countermodel,
        &crate::verify::Options::default(),
    )
}

/// How the reason of a sample whose call ran out of tokens before answering begins.
pub const TRUNCATED_REASON: &str = "no answer: stopped at max tokens";

/// The failure kinds of a verdict: from its kind and an unparseable verdict's reason,
/// and for a not-equivalent one the structural kinds `structural` computes (`other`
/// when it finds none).
pub fn verdict_kinds(
    kind: VerdictKind,
    unparseable_reason: Option<&str>,
    structural: impl FnOnce() -> Vec<FailureKind>,
) -> Vec<FailureKind> {
    match kind {
        VerdictKind::Equivalent => vec![],
        VerdictKind::Copied => vec![FailureKind::Copied],
        VerdictKind::ModelError => vec![FailureKind::ModelError],
        VerdictKind::Unknown => vec![FailureKind::VerifierUnknown],
        VerdictKind::Unparseable => {
            if unparseable_reason.is_some_and(|r| r.starts_with("off-format")) {
                vec![FailureKind::OffFormat]
            } else if unparseable_reason.is_some_and(|r| r.starts_with(TRUNCATED_REASON)) {
                vec![FailureKind::Truncated]
            } else {
                vec![FailureKind::ForeignSyntax]
            }
        }
        VerdictKind::NotEquivalent => {
            let kinds = structural();
            if kinds.is_empty() {
                vec![FailureKind::Other]
            } else {
                kinds
            }
        }
    }
}

/// The failure kinds of one sample (empty for a pass). Structural kinds come from the
/// deciding round's φ₁ against its input.
pub fn classify(rec: &SampleRecord) -> Vec<FailureKind> {
    let reason = match &rec.verdict {
        Verdict::Unparseable { reason, .. } => Some(reason.as_str()),
        _ => None,
    };
    let round = rec.rounds.iter().rev().find(|r| r.phi1.is_some());
    let countermodel = match round.map(|r| &r.verdict) {
        Some(Verdict::NotEquivalent { countermodel, .. }) => Some(countermodel),
        _ => None,
    };
    classify_parts_proved(
        rec.verdict.kind(),
        reason,
        rec.syntax,
        round.map(|r| r.input.as_str()),
        round.and_then(|r| r.phi1.as_deref()),
        countermodel,
    )
    .0
}

/// A sample's failure kinds ([`classify`]) from the parts a light
/// reader keeps: the final verdict's kind, an unparseable verdict's reason, and the
/// deciding round's input and φ₁.
pub fn classify_parts(
    kind: VerdictKind,
    unparseable_reason: Option<&str>,
    syntax: SyntaxKind,
    input: Option<&str>,
    phi1: Option<&str>,
) -> Vec<FailureKind> {
    classify_parts_proved(kind, unparseable_reason, syntax, input, phi1, None).0
}

/// Bit of a row's kind mask set when a not-equivalent sample's changes are not proved
/// (no explanation of ≤ 2 edits found: the kinds are the structural diff's guess).
pub const UNPROVED: u32 = 1 << 31;

/// [`classify_parts`] and whether the kinds of a not-equivalent sample come from
/// proved edits (true for every other verdict). `countermodel` is the deciding
/// round's, when the record keeps one: it spares asking the verifier again.
pub fn classify_parts_proved(
    kind: VerdictKind,
    unparseable_reason: Option<&str>,
    syntax: SyntaxKind,
    input: Option<&str>,
    phi1: Option<&str>,
    countermodel: Option<&Countermodel>,
) -> (Vec<FailureKind>, bool) {
    let mut proved = true;
    let kinds = verdict_kinds(kind, unparseable_reason, || {
        let Some((a, b)) = input
            .zip(phi1)
            .and_then(|(a, b)| Some((parse(a, syntax).ok()?, parse(b, syntax).ok()?)))
        else {
            // No pair to compare (a task's answer, an unparsed φ₁): no change was
            // guessed either, so nothing is flagged as a structural guess.
            return vec![];
        };
        let ex = proved_changes_with(&a, &b, false, countermodel);
        proved = ex.proved;
        kinds_of_changes(&ex.changes)
    });
    (kinds, proved)
}

/// The row mask of [`classify_parts_proved`]: the kinds, and [`UNPROVED`] when unproved.
pub fn classify_parts_mask(
    kind: VerdictKind,
    unparseable_reason: Option<&str>,
    syntax: SyntaxKind,
    input: Option<&str>,
    phi1: Option<&str>,
    countermodel: Option<&Countermodel>,
) -> u32 {
    let (kinds, proved) =
        classify_parts_proved(kind, unparseable_reason, syntax, input, phi1, countermodel);
    mask(&kinds) | if proved { 0 } else { UNPROVED }
}

/// What changed from φ to φ′ (nothing when φ′ did not parse or the pair is equivalent)
/// and the failure kinds of the verdict on them: `verify --explain`. Only a
/// not-equivalent pair is searched for proved edits; its verdict is never changed.
pub fn explain(a: &Expr, b: Option<&Expr>, v: &Verdict) -> (Explanation, Vec<FailureKind>) {
    let ex = match (b, v) {
        (Some(b), Verdict::NotEquivalent { countermodel, .. }) => {
            proved_changes_with(a, b, false, Some(countermodel))
        }
        (Some(b), Verdict::Equivalent { .. }) => proved_changes(a, b, true),
        _ => Explanation::default(),
    };
    let reason = match v {
        Verdict::Unparseable { reason, .. } => Some(reason.as_str()),
        _ => None,
    };
    let kinds = verdict_kinds(v.kind(), reason, || kinds_of_changes(&ex.changes));
    (ex, kinds)
}

/// The kinds as a bit set (bit i = `FailureKind::ALL[i]`), for compact per-row storage.
pub fn mask(kinds: &[FailureKind]) -> u32 {
    kinds
        .iter()
        .filter_map(|k| FailureKind::ALL.iter().position(|x| x == k))
        .fold(0, |m, i| m | (1 << i))
}

/// The kinds in a bit set made by [`mask`].
pub fn unmask(m: u32) -> Vec<FailureKind> {
    FailureKind::ALL
        .into_iter()
        .enumerate()
        .filter(|(i, _)| m & (1 << i) != 0)
        .map(|(_, k)| k)
        .collect()
}

/// The taxonomy categories of a sample's automatic kinds, without repeats.
pub fn categories(kinds: &[FailureKind]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for c in kinds.iter().filter_map(|k| k.category()) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(a: &str, b: &str, s: SyntaxKind) -> Vec<&'static str> {
        let (a, b) = (parse(a, s).unwrap(), parse(b, s).unwrap());
        classify_pair(&a, &b).iter().map(|k| k.id()).collect()
    }

    #[test]
    fn structural_kinds_map_to_the_taxonomy() {
        use SyntaxKind::{Fol, Pl, Regex};
        assert_eq!(k("p1 ∧ p2", "p1 ∨ p2", Pl), ["and-or-swap"]);
        assert_eq!(k("p1 → p2", "p1 ↔ p2", Pl), ["connective-swapped"]);
        assert_eq!(k("p1 → p2", "p2 → p1", Pl), ["scope-changed"]);
        assert_eq!(k("¬p1 ∧ p2", "p1 ∧ ¬p2", Pl), ["negation-misplaced"]);
        assert_eq!(k("p1 ∧ p4", "p1", Pl), ["operand-dropped"]);
        assert_eq!(
            k("∀x1.P(x1, c1)", "∀x1.P(x1, x2)", Fol),
            ["constant-variable"]
        );
        assert_eq!(
            k("∀x1.P(x1, c1)", "∃x1.P(x1, c1)", Fol),
            ["quantifier-changed"]
        );
        assert_eq!(k("0*1", "01", Regex), ["star-misplaced"]);
        assert_eq!(
            categories(&[FailureKind::OperandDropped, FailureKind::Copied]),
            ["incomplete", "off-format"]
        );
        for kind in FailureKind::ALL {
            assert_eq!(FailureKind::from_id(kind.id()), Some(kind));
        }
        let ks = [FailureKind::Copied, FailureKind::Arity, FailureKind::Other];
        assert_eq!(unmask(mask(&ks)), ks);
    }
}
