//! How near a proved candidate is to φ₁, read through the rewrites a model makes.
//!
//! Two edits can both be proved (`p ∨ (q ∧ ¬p)` is `p ∨ q`: a negation added and an
//! operand dropped say the same thing). The rewrites of the planted-kind table (De
//! Morgan, duality, →/↔ elimination, contraposition, distribution, miniscoping,
//! commutation, regrouping, renaming) keep the literals of φ₁'s negation normal form,
//! so the candidate whose literals match φ₁'s is the edit the model made. Regex
//! rewrites keep how often each symbol occurs up to repetition, so regexes compare
//! symbol counts.

use crate::syntax::{BinOp, Formula, Regex};
use std::collections::{BTreeMap, BTreeSet};

/// A literal of the negation normal form: polarity, name, and the constants of its
/// arguments (variables are `_`, so renamed bound variables match).
type Literal = (bool, String);

fn literals(f: &Formula, positive: bool, out: &mut BTreeSet<Literal>) {
    match f {
        Formula::Bool(_) => {}
        Formula::Prop(n) => {
            out.insert((positive, n.to_string()));
        }
        Formula::Pred(n, args) => {
            let args = super::keys::nameless(args);
            out.insert((positive, format!("{n}({})", args.join(","))));
        }
        Formula::Not(x) => literals(x, !positive, out),
        Formula::Bin(BinOp::And | BinOp::Or, x, y) => {
            literals(x, positive, out);
            literals(y, positive, out);
        }
        Formula::Bin(BinOp::Implies, x, y) => {
            literals(x, !positive, out);
            literals(y, positive, out);
        }
        // ↔ and ⊕ expand to both polarities of both sides.
        Formula::Bin(_, x, y) => {
            for p in [true, false] {
                literals(x, p, out);
                literals(y, p, out);
            }
        }
        Formula::Quant(_, _, body) => literals(body, positive, out),
    }
}

/// Literals of `g` and `b` in one and not the other (0: the same literals).
pub(super) fn logic_distance(g: &Formula, b: &BTreeSet<Literal>) -> usize {
    let mut lg = BTreeSet::new();
    literals(g, true, &mut lg);
    lg.symmetric_difference(b).count()
}

/// The literals of φ₁, computed once per search.
pub(super) fn logic_literals(b: &Formula) -> BTreeSet<Literal> {
    let mut out = BTreeSet::new();
    literals(b, true, &mut out);
    out
}

fn symbols(r: &Regex, out: &mut BTreeMap<char, usize>) {
    match r {
        Regex::Epsilon => {}
        Regex::Sym(c) => *out.entry(*c).or_default() += 1,
        Regex::Concat(xs) | Regex::Alt(xs) => xs.iter().for_each(|x| symbols(x, out)),
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => symbols(x, out),
    }
}

/// How often each symbol occurs in φ₁, computed once per search.
pub(super) fn regex_counts(b: &Regex) -> BTreeMap<char, usize> {
    let mut out = BTreeMap::new();
    symbols(b, &mut out);
    out
}

/// The summed difference of symbol counts between `g` and φ₁ (0: the same counts).
pub(super) fn regex_distance(g: &Regex, b: &BTreeMap<char, usize>) -> usize {
    let mut cg = BTreeMap::new();
    symbols(g, &mut cg);
    let keys: BTreeSet<char> = cg.keys().chain(b.keys()).copied().collect();
    keys.iter()
        .map(|k| {
            let (x, y) = (
                cg.get(k).copied().unwrap_or(0),
                b.get(k).copied().unwrap_or(0),
            );
            x.abs_diff(y)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{parse_formula, parse_regex};

    #[test]
    fn rewrites_keep_literals_and_a_negation_is_nearer_than_an_absorbing_drop() {
        let b = parse_formula("¬(¬p1 ∧ ¬(p2 ∧ ¬p1))").unwrap();
        let lb = logic_literals(&b);
        // φ₀ = p1 ∨ (p2 ∧ p1), negation planted on the inner p1.
        let negated = parse_formula("p1 ∨ (p2 ∧ ¬p1)").unwrap();
        let dropped = parse_formula("p1 ∨ p2").unwrap();
        assert_eq!(logic_distance(&negated, &lb), 0);
        assert_eq!(logic_distance(&dropped, &lb), 1);
        let f = parse_formula("∀x1.(a(x1) → b(x1,c))").unwrap();
        let g = parse_formula("∀z1.(¬b(z1,c) → ¬a(z1))").unwrap();
        assert_eq!(logic_distance(&g, &logic_literals(&f)), 0);
    }

    #[test]
    fn regex_counts_prefer_the_edit_with_phi1s_symbols() {
        let b = regex_counts(&parse_regex("(ε|0+)0*").unwrap());
        assert_eq!(regex_distance(&parse_regex("0*0*").unwrap(), &b), 0);
        assert_eq!(regex_distance(&parse_regex("0*").unwrap(), &b), 1);
    }
}
