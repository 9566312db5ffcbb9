//! How near a proved candidate is to φ₁, read through the rewrites a model makes.
//!
//! Two edits can both be proved (`p ∨ (q ∧ ¬p)` is `p ∨ q`: a negation added and an
//! operand dropped say the same thing). The rewrites of the planted-kind table (De
//! Morgan, duality, →/↔ elimination, contraposition, distribution, miniscoping,
//! commutation, regrouping, renaming) keep the literals of φ₁'s negation normal form,
//! so the candidate whose literals match φ₁'s is the edit the model made. Regex
//! rewrites keep how often each symbol occurs up to repetition, so regexes compare
//! symbol counts.

use crate::syntax::{BinOp, Formula, Regex, Term};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// A literal of the negation normal form: polarity, name, and for a predicate its
/// arguments, compared by the constants they name (every variable reads as `_`, so
/// renamed bound variables match). Borrowed from the formula: a candidate's literals
/// are read without formatting a string each.
#[derive(Clone, Copy, Debug)]
pub(super) struct Literal<'a> {
    positive: bool,
    name: &'a str,
    args: Option<&'a [Term]>,
}

impl Literal<'_> {
    /// The arguments as compared: a constant by its name, a variable as `_`.
    fn args(&self) -> Option<impl Iterator<Item = &str>> {
        self.args.map(super::keys::nameless_iter)
    }
}

impl Ord for Literal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.positive, self.name)
            .cmp(&(other.positive, other.name))
            .then_with(|| match (self.args(), other.args()) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) => x.cmp(y),
            })
    }
}

impl PartialOrd for Literal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Literal<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Literal<'_> {}

fn literals<'a>(f: &'a Formula, positive: bool, out: &mut Vec<Literal<'a>>) {
    match f {
        Formula::Bool(_) => {}
        Formula::Prop(n) => out.push(Literal {
            positive,
            name: n.as_str(),
            args: None,
        }),
        Formula::Pred(n, args) => out.push(Literal {
            positive,
            name: n.as_str(),
            args: Some(args),
        }),
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

/// The distinct literals of `f`, sorted (φ₁'s computed once per search).
pub(super) fn logic_literals(f: &Formula) -> Vec<Literal<'_>> {
    let mut out = Vec::new();
    literals(f, true, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Literals of `g` and `b` in one and not the other (0: the same literals).
pub(super) fn logic_distance(g: &Formula, b: &[Literal<'_>]) -> usize {
    let lg = logic_literals(g);
    // Both sorted and distinct: the symmetric difference by one merge.
    let (mut i, mut j, mut both) = (0, 0, 0);
    while let (Some(x), Some(y)) = (lg.get(i), b.get(j)) {
        match x.cmp(y) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    lg.len() + b.len() - 2 * both
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

    /// The literals as strings, the way they were first written (a formatted string
    /// per literal, in a set): the reference the borrowed literals must agree with.
    fn reference(f: &Formula, positive: bool, out: &mut BTreeSet<(bool, String)>) {
        match f {
            Formula::Bool(_) => {}
            Formula::Prop(n) => {
                out.insert((positive, n.to_string()));
            }
            Formula::Pred(n, args) => {
                let args: Vec<&str> = args
                    .iter()
                    .map(|t| match t {
                        Term::Const(c) => c.as_str(),
                        Term::Var(_) => "_",
                    })
                    .collect();
                out.insert((positive, format!("{n}({})", args.join(","))));
            }
            Formula::Not(x) => reference(x, !positive, out),
            Formula::Bin(BinOp::And | BinOp::Or, x, y) => {
                reference(x, positive, out);
                reference(y, positive, out);
            }
            Formula::Bin(BinOp::Implies, x, y) => {
                reference(x, !positive, out);
                reference(y, positive, out);
            }
            Formula::Bin(_, x, y) => {
                for p in [true, false] {
                    reference(x, p, out);
                    reference(y, p, out);
                }
            }
            Formula::Quant(_, _, body) => reference(body, positive, out),
        }
    }

    /// Formulas over few names, so literals often coincide: a proposition and a
    /// predicate of one name, a constant named like the variables' `_`.
    fn formula() -> impl proptest::strategy::Strategy<Value = Formula> {
        use crate::syntax::Quantifier;
        use proptest::prelude::*;
        let term = prop_oneof![
            Just(Term::Var("x".into())),
            Just(Term::Var("y".into())),
            Just(Term::Const("a".into())),
            Just(Term::Const("_".into())),
        ];
        let atom = prop_oneof![
            prop_oneof![Just("p"), Just("P")].prop_map(|p| Formula::Prop(p.into())),
            proptest::collection::vec(term, 0..3).prop_map(|args| Formula::Pred("P".into(), args)),
        ];
        atom.prop_recursive(4, 16, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(Formula::negate),
                (0u8..5, inner.clone(), inner.clone()).prop_map(|(o, a, b)| {
                    let op = BinOp::ALL[usize::from(o)];
                    Formula::bin(op, a, b)
                }),
                (any::<bool>(), inner).prop_map(|(u, b)| {
                    let q = if u {
                        Quantifier::Forall
                    } else {
                        Quantifier::Exists
                    };
                    Formula::quant(q, "x", b)
                }),
            ]
        })
    }

    proptest::proptest! {
        /// The distance by borrowed literals is the distance by formatted strings.
        #[test]
        fn borrowed_literals_measure_what_formatted_ones_did(g in formula(), b in formula()) {
            let (mut lg, mut lb) = (BTreeSet::new(), BTreeSet::new());
            reference(&g, true, &mut lg);
            reference(&b, true, &mut lb);
            let expected = lg.symmetric_difference(&lb).count();
            proptest::prop_assert_eq!(logic_distance(&g, &logic_literals(&b)), expected);
        }
    }

    #[test]
    fn regex_counts_prefer_the_edit_with_phi1s_symbols() {
        let b = regex_counts(&parse_regex("(ε|0+)0*").unwrap());
        assert_eq!(regex_distance(&parse_regex("0*0*").unwrap(), &b), 0);
        assert_eq!(regex_distance(&parse_regex("0*").unwrap(), &b), 1);
    }
}
