//! Settling trivial rewrites without a solver: double negation, commutation,
//! associativity and idempotence of ∧/∨, commutation of ↔/⊕.

use crate::syntax::logic::Name;
use crate::syntax::{BinOp, Formula, Quantifier, Term};

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
        Formula::Bool(b) => Formula::Bool(*b != neg),
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
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => f.clone(),
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

/// Whether variable `v` occurs free in `f`.
fn has_free(f: &Formula, v: &str) -> bool {
    match f {
        Formula::Bool(_) | Formula::Prop(_) => false,
        Formula::Pred(_, args) => args.iter().any(|t| matches!(t, Term::Var(x) if x == v)),
        Formula::Not(a) => has_free(a, v),
        Formula::Bin(_, a, b) => has_free(a, v) || has_free(b, v),
        Formula::Quant(_, x, body) => x != v && has_free(body, v),
    }
}

/// Negation normal form with every quantifier pushed as far in as it goes
/// (miniscoping): `∀x.(a ∧ b)` becomes `∀x.a ∧ ∀x.b`, `∀x.(a ∨ b)` with `x` not in `b`
/// becomes `∀x.a ∨ b`, duals for `∃`, and a quantifier over a formula without its
/// variable is dropped (domains are never empty). Each step is an equivalence, and the
/// solver's instantiation works on many small scopes instead of one large one.
pub(crate) fn miniscope(f: &Formula) -> Formula {
    fn go(f: &Formula) -> Formula {
        match f {
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => f.clone(),
            Formula::Not(a) => Formula::negate(go(a)),
            Formula::Bin(op, a, b) => Formula::bin(*op, go(a), go(b)),
            Formula::Quant(q, v, body) => push(*q, v, go(body)),
        }
    }
    fn push(q: Quantifier, v: &Name, body: Formula) -> Formula {
        if !has_free(&body, v) {
            return body;
        }
        // ∀ distributes over ∧ and ∃ over ∨; the other connective only lets the parts
        // without the variable out.
        let (splits, keeps) = match q {
            Quantifier::Forall => (BinOp::And, BinOp::Or),
            Quantifier::Exists => (BinOp::Or, BinOp::And),
        };
        match &body {
            Formula::Bin(op, ..) if *op == splits => {
                let mut parts = Vec::new();
                flatten(&body, splits, &mut parts);
                let parts: Vec<Formula> =
                    parts.into_iter().map(|p| push(q, v, p.clone())).collect();
                rebuild(splits, parts).unwrap_or(body)
            }
            Formula::Bin(op, ..) if *op == keeps => {
                let mut parts = Vec::new();
                flatten(&body, keeps, &mut parts);
                let (with, without): (Vec<&Formula>, Vec<&Formula>) =
                    parts.into_iter().partition(|p| has_free(p, v));
                if without.is_empty() {
                    return Formula::quant(q, v.clone(), body.clone());
                }
                let with: Vec<Formula> = with.into_iter().cloned().collect();
                let inner = match with.len() {
                    1 => with.into_iter().next().map(|w| push(q, v, w)),
                    _ => rebuild(keeps, with).map(|w| Formula::quant(q, v.clone(), w)),
                };
                let rest = without.into_iter().cloned();
                rebuild(keeps, inner.into_iter().chain(rest).collect()).unwrap_or(body)
            }
            _ => Formula::quant(q, v.clone(), body),
        }
    }
    fn rebuild(op: BinOp, parts: Vec<Formula>) -> Option<Formula> {
        let mut it = parts.into_iter();
        let first = it.next()?;
        Some(it.fold(first, |acc, x| Formula::bin(op, acc, x)))
    }
    go(&nnf(f, false))
}

/// `f` with each free occurrence of the variables in `free` turned into a constant of
/// the same name: free variables become parameters shared by both sides of a check.
pub fn parameterize(f: &Formula, free: &[&str]) -> Formula {
    f.map_terms(&mut |t, bound| match t {
        Term::Var(v) if free.contains(&v.as_str()) && !bound.contains(&v.as_str()) => {
            Term::Const(v.clone())
        }
        other => other.clone(),
    })
}

/// The corresponding subformulas on the path to the one place where `a` and `b`
/// differ, from the root down to the smallest differing pair. Empty when they are
/// equal; the path stops where they differ in more than one place.
pub(crate) fn difference_path<'a>(
    a: &'a Formula,
    b: &'a Formula,
) -> Vec<(&'a Formula, &'a Formula)> {
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
pub(crate) fn quantifier_free(f: &Formula) -> bool {
    match f {
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => true,
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
    fn miniscoping_pushes_quantifiers_in() {
        let m = |s: &str| miniscope(&parse_formula(s).expect("parses"));
        let p = |s: &str| parse_formula(s).expect("parses");
        assert_eq!(m("∀x.(P(x) ∧ Q(x))"), p("(∀x.P(x)) ∧ ∀x.Q(x)"));
        assert_eq!(m("∀x.(P(x) ∨ q)"), p("(∀x.P(x)) ∨ q"));
        assert_eq!(m("∃x.(P(x) ∧ q ∧ R(x))"), p("(∃x.(P(x) ∧ R(x))) ∧ q"));
        assert_eq!(m("∀x.∃y.(P(x) ∧ Q(y))"), p("(∃y.Q(y)) ∧ ∀x.P(x)"));
        assert_eq!(m("¬∀x.(P(x) → q)"), p("(∃x.P(x)) ∧ ¬q"));
        assert_eq!(m("∀x.q"), p("q"));
        // Shadowing: the inner ∀x binds its own x.
        assert_eq!(m("∀x.(P(x) ∨ ∀x.Q(x))"), p("(∀x.P(x)) ∨ ∀x.Q(x)"));
    }

    /// A random formula over x, y (bound or free), constant c, P/1, R/2 and q.
    fn random_formula(rng: &mut crate::base::rng::Rng, depth: usize) -> Formula {
        let var = |rng: &mut crate::base::rng::Rng| match rng.below(3) {
            0 => Term::Var("x".into()),
            1 => Term::Var("y".into()),
            _ => Term::Const("c".into()),
        };
        if depth == 0 || rng.chance(0.2) {
            return match rng.below(3) {
                0 => Formula::Prop("q".into()),
                1 => Formula::Pred("P".into(), vec![var(rng)]),
                _ => Formula::Pred("R".into(), vec![var(rng), var(rng)]),
            };
        }
        match rng.below(6) {
            0 => Formula::negate(random_formula(rng, depth - 1)),
            1 | 2 => {
                let q = if rng.chance(0.5) {
                    Quantifier::Forall
                } else {
                    Quantifier::Exists
                };
                let v = if rng.chance(0.5) { "x" } else { "y" };
                Formula::Quant(q, Name::from(v), Box::new(random_formula(rng, depth - 1)))
            }
            _ => {
                let op = BinOp::ALL[rng.below(5)];
                Formula::bin(
                    op,
                    random_formula(rng, depth - 1),
                    random_formula(rng, depth - 1),
                )
            }
        }
    }

    #[test]
    fn miniscoping_keeps_the_meaning_in_random_finite_models() {
        use crate::verify::model::FiniteModel;
        let mut rng = crate::base::rng::Rng::new(21);
        let mut changed = 0;
        for _ in 0..3000 {
            let f = random_formula(&mut rng, 6);
            let g = miniscope(&f);
            changed += usize::from(g != f);
            for _ in 0..6 {
                let size = 1 + rng.below(3);
                let mut m = FiniteModel {
                    size,
                    ..Default::default()
                };
                m.constants.insert("c".into(), rng.below(size));
                m.propositions.insert("q".into(), rng.chance(0.5));
                let p: std::collections::HashSet<Vec<usize>> = (0..size)
                    .filter(|_| rng.chance(0.5))
                    .map(|e| vec![e])
                    .collect();
                let mut r = std::collections::HashSet::new();
                for a in 0..size {
                    for b in 0..size {
                        if rng.chance(0.5) {
                            r.insert(vec![a, b]);
                        }
                    }
                }
                m.predicates.insert(("P".into(), 1), p);
                m.predicates.insert(("R".into(), 2), r);
                // Free variables get the same values on both sides.
                let env = vec![
                    ("x".to_string(), rng.below(size)),
                    ("y".to_string(), rng.below(size)),
                ];
                assert_eq!(
                    m.eval(&f, &mut env.clone()),
                    m.eval(&g, &mut env.clone()),
                    "{f:?}\n→ {g:?}"
                );
            }
        }
        assert!(changed > 1000, "only {changed} formulas were rewritten");
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
