//! Settling trivial rewrites without a solver: double negation, commutation,
//! associativity and idempotence of ∧/∨, commutation of ↔/⊕.

use crate::syntax::{BinOp, Formula, Term};

/// A normal form under which formulas that differ only by trivial rewrites are equal.
/// Equal normal forms imply equivalence; different ones decide nothing.
pub fn normalize(f: &Formula) -> Formula {
    match f {
        Formula::Prop(_) | Formula::Pred(..) => f.clone(),
        Formula::Not(a) => match a.as_ref() {
            Formula::Not(b) => normalize(b),
            _ => Formula::negate(normalize(a)),
        },
        Formula::Bin(op @ (BinOp::And | BinOp::Or), ..) => {
            let mut parts = Vec::new();
            flatten(f, *op, &mut parts);
            let mut parts: Vec<Formula> = parts.into_iter().map(normalize).collect();
            parts.sort();
            parts.dedup();
            let mut it = parts.into_iter();
            let first = it.next().unwrap_or_else(|| f.clone());
            it.fold(first, |acc, x| Formula::bin(*op, acc, x))
        }
        Formula::Bin(op @ (BinOp::Iff | BinOp::Xor), a, b) => {
            let (x, y) = (normalize(a), normalize(b));
            if x <= y {
                Formula::bin(*op, x, y)
            } else {
                Formula::bin(*op, y, x)
            }
        }
        Formula::Bin(op, a, b) => Formula::bin(*op, normalize(a), normalize(b)),
        Formula::Quant(q, v, body) => Formula::quant(*q, v.clone(), normalize(body)),
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
    }
}
