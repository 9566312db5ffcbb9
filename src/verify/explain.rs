//! Subformulas of φ and φ′ evaluated under a countermodel, aligned, with the
//! smallest places where the two sides' truth values split marked.

use super::model::{FiniteModel, holds};
use crate::syntax::{Formula, Notation, print_formula};

/// One aligned line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalLine {
    /// Nesting depth.
    pub depth: usize,
    /// φ's subformula and its value (None: has free variables here).
    pub left: Option<(String, Option<bool>)>,
    /// φ′'s subformula and its value.
    pub right: Option<(String, Option<bool>)>,
    /// A smallest split: values differ here but agree on every aligned child.
    pub split: bool,
}

fn value(m: &FiniteModel, f: &Formula) -> Option<bool> {
    f.free_variables().is_empty().then(|| holds(m, f))
}

fn text(f: &Formula) -> String {
    print_formula(f, Notation::Unicode)
}

/// Returns whether a split was found inside (so parents are not marked too).
fn align(a: &Formula, b: &Formula, depth: usize, m: &FiniteModel, out: &mut Vec<EvalLine>) -> bool {
    let (va, vb) = (value(m, a), value(m, b));
    let at = out.len();
    out.push(EvalLine {
        depth,
        left: Some((text(a), va)),
        right: Some((text(b), vb)),
        split: false,
    });
    if a == b {
        return false;
    }
    let mut inner = false;
    match (a, b) {
        (Formula::Not(x), Formula::Not(y)) | (Formula::Quant(_, _, x), Formula::Quant(_, _, y)) => {
            inner = align(x, y, depth + 1, m, out);
        }
        (Formula::Bin(_, a1, b1), Formula::Bin(_, a2, b2)) => {
            inner = align(a1, a2, depth + 1, m, out);
            inner |= align(b1, b2, depth + 1, m, out);
        }
        _ => {}
    }
    let differs = matches!((va, vb), (Some(x), Some(y)) if x != y);
    if differs && !inner {
        out[at].split = true;
        return true;
    }
    inner
}

/// Aligned evaluation of φ and φ′ under `m`.
pub fn explain(a: &Formula, b: &Formula, m: &FiniteModel) -> Vec<EvalLine> {
    let mut out = Vec::new();
    align(a, b, 0, m, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_formula;

    #[test]
    fn marks_the_smallest_split() {
        let a = parse_formula("(p1 ∧ p2) ∨ p3").unwrap();
        let b = parse_formula("(p1 ∨ p2) ∨ p3").unwrap();
        let m = FiniteModel {
            propositions: [
                ("p1".to_string(), true),
                ("p2".to_string(), false),
                ("p3".to_string(), false),
            ]
            .into(),
            ..Default::default()
        };
        let lines = explain(&a, &b, &m);
        let splits: Vec<_> = lines.iter().filter(|l| l.split).collect();
        assert_eq!(splits.len(), 1);
        assert_eq!(splits[0].left.as_ref().unwrap().0, "p1 ∧ p2");
        assert_eq!(splits[0].right.as_ref().unwrap().1, Some(true));
        assert_eq!(lines[0].left.as_ref().unwrap().1, Some(false));
    }
}
