//! Settling trivial rewrites without a solver: double negation, commutation,
//! associativity and idempotence of ∧/∨, commutation of ↔/⊕.

use crate::syntax::{BinOp, Formula, Term};

/// A normal form under which formulas that differ only by trivial rewrites are equal:
/// negation normal form (double negation, De Morgan, quantifier duality, `a → b` as
/// `¬a ∨ b`, `¬(a ↔ b)` as `a ⊕ b`), then ∧/∨ flattened, sorted and deduplicated and
/// the sides of ↔/⊕ sorted. Every step is an equivalence, so equal normal forms imply
/// equivalence; different ones decide nothing.
pub fn normalize(f: &Formula) -> Formula {
    sorted(&nnf(f, false))
}

fn nnf(f: &Formula, neg: bool) -> Formula {
    match f {
        Formula::Prop(_) | Formula::Pred(..) => {
            if neg {
                Formula::negate(f.clone())
            } else {
                f.clone()
            }
        }
        Formula::Not(a) => nnf(a, !neg),
        Formula::Bin(op, a, b) => match (op, neg) {
            (BinOp::And, false) => Formula::bin(BinOp::And, nnf(a, false), nnf(b, false)),
            (BinOp::And, true) => Formula::bin(BinOp::Or, nnf(a, true), nnf(b, true)),
            (BinOp::Or, false) => Formula::bin(BinOp::Or, nnf(a, false), nnf(b, false)),
            (BinOp::Or, true) => Formula::bin(BinOp::And, nnf(a, true), nnf(b, true)),
            (BinOp::Implies, false) => Formula::bin(BinOp::Or, nnf(a, true), nnf(b, false)),
            (BinOp::Implies, true) => Formula::bin(BinOp::And, nnf(a, false), nnf(b, true)),
            (BinOp::Iff, false) | (BinOp::Xor, true) => {
                Formula::bin(BinOp::Iff, nnf(a, false), nnf(b, false))
            }
            (BinOp::Iff, true) | (BinOp::Xor, false) => {
                Formula::bin(BinOp::Xor, nnf(a, false), nnf(b, false))
            }
        },
        Formula::Quant(q, v, body) => {
            let q = if neg { q.dual() } else { *q };
            Formula::quant(q, v.clone(), nnf(body, neg))
        }
    }
}

fn sorted(f: &Formula) -> Formula {
    match f {
        Formula::Prop(_) | Formula::Pred(..) => f.clone(),
        Formula::Not(a) => Formula::negate(sorted(a)),
        Formula::Bin(op @ (BinOp::And | BinOp::Or), ..) => {
            let mut parts = Vec::new();
            flatten(f, *op, &mut parts);
            let mut parts: Vec<Formula> = parts.into_iter().map(sorted).collect();
            parts.sort();
            parts.dedup();
            let mut it = parts.into_iter();
            let first = it.next().unwrap_or_else(|| f.clone());
            it.fold(first, |acc, x| Formula::bin(*op, acc, x))
        }
        Formula::Bin(op @ (BinOp::Iff | BinOp::Xor), a, b) => {
            let (x, y) = (sorted(a), sorted(b));
            if x <= y {
                Formula::bin(*op, x, y)
            } else {
                Formula::bin(*op, y, x)
            }
        }
        Formula::Bin(op, a, b) => Formula::bin(*op, sorted(a), sorted(b)),
        Formula::Quant(q, v, body) => Formula::quant(*q, v.clone(), sorted(body)),
    }
}

fn flatten<'a>(f: &'a Formula, op: BinOp, out: &mut Vec<&'a Formula>) {
    match f {
        Formula::Bin(o, a, b) if *o == op => {
            flatten(a, op, out);
            flatten(b, op, out);
        }
        _ => out.push(f),
    }
}

/// `f` with each free occurrence of the variables in `free` turned into a constant of
/// the same name: free variables become parameters shared by both sides of a check.
pub fn parameterize(f: &Formula, free: &[&str]) -> Formula {
    fn go(f: &Formula, free: &[&str], bound: &mut Vec<String>) -> Formula {
        match f {
            Formula::Prop(_) => f.clone(),
            Formula::Pred(p, args) => Formula::Pred(
                p.clone(),
                args.iter()
                    .map(|t| match t {
                        Term::Var(v)
                            if free.contains(&v.as_str()) && !bound.iter().any(|b| b == v) =>
                        {
                            Term::Const(v.clone())
                        }
                        other => other.clone(),
                    })
                    .collect(),
            ),
            Formula::Not(a) => Formula::negate(go(a, free, bound)),
            Formula::Bin(op, a, b) => Formula::bin(*op, go(a, free, bound), go(b, free, bound)),
            Formula::Quant(q, v, body) => {
                bound.push(v.to_string());
                let inner = go(body, free, bound);
                bound.pop();
                Formula::quant(*q, v.clone(), inner)
            }
        }
    }
    go(f, free, &mut Vec::new())
}

/// The corresponding subformulas on the path to the one place where `a` and `b`
/// differ, from the root down to the smallest differing pair. Empty when they are
/// equal; the path stops where they differ in more than one place.
pub fn difference_path<'a>(a: &'a Formula, b: &'a Formula) -> Vec<(&'a Formula, &'a Formula)> {
    let mut path = Vec::new();
    let (mut x, mut y) = (a, b);
    loop {
        if x == y {
            return path;
        }
        path.push((x, y));
        let next = match (x, y) {
            (Formula::Not(p), Formula::Not(q)) => Some((&**p, &**q)),
            (Formula::Quant(q1, v1, p), Formula::Quant(q2, v2, q)) if q1 == q2 && v1 == v2 => {
                Some((&**p, &**q))
            }
            (Formula::Bin(o1, p1, p2), Formula::Bin(o2, q1, q2)) if o1 == o2 => {
                match (p1 == q1, p2 == q2) {
                    (true, false) => Some((&**p2, &**q2)),
                    (false, true) => Some((&**p1, &**q1)),
                    _ => None,
                }
            }
            _ => None,
        };
        match next {
            Some((p, q)) => (x, y) = (p, q),
            None => return path,
        }
    }
}

/// The smallest pair of corresponding subformulas where `a` and `b` differ, when they
/// differ in exactly one place (a perturbation, a local rewrite).
pub fn single_difference<'a>(a: &'a Formula, b: &'a Formula) -> Option<(&'a Formula, &'a Formula)> {
    difference_path(a, b).last().copied()
}

/// Whether `f` has no quantifier.
pub fn quantifier_free(f: &Formula) -> bool {
    match f {
        Formula::Prop(_) | Formula::Pred(..) => true,
        Formula::Not(a) => quantifier_free(a),
        Formula::Bin(_, a, b) => quantifier_free(a) && quantifier_free(b),
        Formula::Quant(..) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_formula;

    fn n(s: &str) -> Formula {
        normalize(&parse_formula(s).expect("parses"))
    }

    #[test]
    fn trivial_rewrites_meet() {
        assert_eq!(n("¬¬(p ∧ q)"), n("q ∧ p"));
        assert_eq!(n("(a ∨ b) ∨ c"), n("c ∨ (b ∨ a)"));
        assert_eq!(n("a ↔ b"), n("b ↔ a"));
        assert_eq!(n("a ∧ a"), n("a"));
        assert_ne!(n("a → b"), n("b → a"));
        assert_eq!(n("¬(a ∧ b)"), n("¬a ∨ ¬b"));
        assert_eq!(n("∀x.P(x)"), n("¬∃x.¬P(x)"));
        assert_eq!(n("a → b"), n("¬a ∨ b"));
        assert_eq!(n("¬(a ↔ b)"), n("a ⊕ b"));
        assert_ne!(n("∀x.P(x)"), n("∃x.P(x)"));
    }

    #[test]
    fn finds_the_one_place_two_formulas_differ() {
        let a = parse_formula("∀x.(P(x) ∧ ¬(Q(x) ∨ R(x)))").unwrap();
        let b = parse_formula("∀x.(P(x) ∧ (¬Q(x) ∧ ¬R(x)))").unwrap();
        let (p, q) = single_difference(&a, &b).unwrap();
        assert_eq!(p, &parse_formula("¬(Q(x) ∨ R(x))").unwrap());
        assert_eq!(q, &parse_formula("¬Q(x) ∧ ¬R(x)").unwrap());
        assert!(p.free_variables().contains("x"));
        assert!(single_difference(&a, &a).is_none());
    }
}
