//! Subformulas of φ and φ′ evaluated under a countermodel, aligned, with the
//! smallest places where the two sides' truth values split marked.

use super::model::{FiniteModel, holds};
use crate::syntax::{Formula, Notation, Term, print_formula};

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
        (Formula::Quant(_, v1, x), Formula::Quant(_, v2, y))
            if v1 == v2 && va.is_some() && vb.is_some() =>
        {
            // Instantiate the witness: the element where the two bodies differ, so the
            // marker can go down to the atom where the values split.
            match witness(m, v1, x, y) {
                Some(name) => {
                    out.push(EvalLine {
                        depth: depth + 1,
                        left: Some((format!("with {v1} = {name}"), None)),
                        right: Some((format!("with {v2} = {name}"), None)),
                        split: false,
                    });
                    let (xi, yi) = (subst(x, v1, &name), subst(y, v2, &name));
                    inner = align(&xi, &yi, depth + 1, m, out);
                }
                None => inner = align(x, y, depth + 1, m, out),
            }
        }
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

/// `f` with the free occurrences of variable `v` replaced by the constant `c`.
fn subst(f: &Formula, v: &str, c: &str) -> Formula {
    f.map_terms(&mut |t, bound| match t {
        Term::Var(x) if x == v && !bound.contains(&v) => Term::Const(c.into()),
        other => other.clone(),
    })
}

/// The name the countermodel gives the first element at which `x` and `y`, with `v`
/// bound to it, take different values. Elements are named `e1`, `e2`, … as in the
/// shown countermodel; a model whose own constants use those names is left alone.
fn witness(m: &FiniteModel, v: &str, x: &Formula, y: &Formula) -> Option<String> {
    (0..m.size).find_map(|e| {
        let name = format!("e{}", e + 1);
        if m.constants.get(&name).is_some_and(|&k| k != e) {
            return None;
        }
        let mut env = vec![(v.to_string(), e)];
        let vx = m.eval(x, &mut env);
        let vy = m.eval(y, &mut env);
        (vx != vy).then_some(name)
    })
}

/// Aligned evaluation of φ and φ′ under `m`.
pub fn explain(a: &Formula, b: &Formula, m: &FiniteModel) -> Vec<EvalLine> {
    // Element names (`e2`) become constants of the model for instantiated bodies.
    let mut m = m.clone();
    for e in 0..m.size {
        m.constants.entry(format!("e{}", e + 1)).or_insert(e);
    }
    let mut out = Vec::new();
    align(a, b, 0, &m, &mut out);
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

    #[test]
    fn instantiates_the_witness_down_to_the_atom() {
        // ∃x.(P(x) ∧ Q(x)) vs ∃x.(P(x) ∧ ¬Q(x)) in {e1, e2}: P = {e1}, Q = {}.
        let a = parse_formula("∃x.(P(x) ∧ Q(x))").unwrap();
        let b = parse_formula("∃x.(P(x) ∧ ¬Q(x))").unwrap();
        let m = FiniteModel {
            size: 2,
            predicates: [(("P".to_string(), 1), [vec![0]].into())].into(),
            ..Default::default()
        };
        let lines = explain(&a, &b, &m);
        assert!(
            lines
                .iter()
                .any(|l| l.left.as_ref().is_some_and(|(t, _)| t == "with x = e1")),
            "{lines:?}"
        );
        let split: Vec<_> = lines.iter().filter(|l| l.split).collect();
        assert_eq!(split.len(), 1, "{lines:?}");
        assert_eq!(split[0].left.as_ref().unwrap().0, "Q(e1)");
        assert_eq!(split[0].right.as_ref().unwrap().0, "¬Q(e1)");
    }
}
