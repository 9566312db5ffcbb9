//! The least countermodel is the same however it is found: our own search, the
//! solver's choices (with flipped values checked by our evaluator), and a brute-force
//! enumeration of every structure in the order the least model is defined by.

use super::model::{FiniteModel, holds};
use super::small_model::{Found, least};
use super::z3_logic::least_model::canonical;
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use proptest::prelude::*;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Closed formulas over x, y; constants a, b; propositions p, q; P/1 and R/2.
fn formula() -> impl Strategy<Value = Formula> {
    let term = prop_oneof![
        Just(Term::Var("x".into())),
        Just(Term::Var("y".into())),
        Just(Term::Const("a".into())),
        Just(Term::Const("b".into())),
    ];
    let atom = prop_oneof![
        prop_oneof![Just("p"), Just("q")].prop_map(|p| Formula::Prop(p.into())),
        term.clone()
            .prop_map(|t| Formula::Pred("P".into(), vec![t])),
        (term.clone(), term).prop_map(|(s, t)| Formula::Pred("R".into(), vec![s, t])),
    ];
    let body = atom.prop_recursive(4, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(Formula::negate),
            (0u8..5, inner.clone(), inner.clone()).prop_map(|(o, a, b)| {
                let op = BinOp::ALL[usize::from(o)];
                Formula::bin(op, a, b)
            }),
            (any::<bool>(), prop_oneof![Just("x"), Just("y")], inner).prop_map(|(u, v, b)| {
                let q = if u {
                    Quantifier::Forall
                } else {
                    Quantifier::Exists
                };
                Formula::quant(q, v, b)
            }),
        ]
    });
    // The outermost quantifiers close the formula.
    (any::<bool>(), any::<bool>(), body).prop_map(|(u, w, b)| {
        let q = |f: bool| {
            if f {
                Quantifier::Forall
            } else {
                Quantifier::Exists
            }
        };
        Formula::quant(q(u), "x", Formula::quant(q(w), "y", b))
    })
}

/// Every structure with `k` elements over the symbols of both sides, in the order
/// the least model is defined by (constants by name, then propositions, then tuples,
/// each preferred value first); the first that separates φ and φ′ (the last when
/// `last`).
fn brute(a: &Formula, b: &Formula, k: usize, last: bool) -> Option<FiniteModel> {
    let consts = ["a", "b"];
    let props = ["p", "q"];
    let preds = [("P", 1usize), ("R", 2)];
    let tuples: Vec<(usize, Vec<usize>)> = preds
        .iter()
        .enumerate()
        .flat_map(|(p, (_, arity))| {
            let n = k.pow(u32::try_from(*arity).unwrap_or(0));
            (0..n).map(move |code| {
                let mut t = vec![0; *arity];
                let mut c = code;
                for slot in t.iter_mut().rev() {
                    *slot = c % k;
                    c /= k;
                }
                (p, t)
            })
        })
        .collect();
    let bits = props.len() + tuples.len();
    let const_codes = k.pow(u32::try_from(consts.len()).unwrap_or(0));
    let order = |n: usize| -> Box<dyn Iterator<Item = usize>> {
        if last {
            Box::new((0..n).rev())
        } else {
            Box::new(0..n)
        }
    };
    for cc in order(const_codes) {
        for code in order(1usize << bits) {
            let mut fm = FiniteModel {
                size: k,
                ..FiniteModel::default()
            };
            // The first constant is the most significant digit.
            let mut c = cc;
            for name in consts.iter().rev() {
                fm.constants.insert((*name).to_string(), c % k);
                c /= k;
            }
            // The first value chosen is the most significant bit.
            let bit = |i: usize| code >> (bits - 1 - i) & 1 == 1;
            for (i, name) in props.iter().enumerate() {
                fm.propositions.insert((*name).to_string(), bit(i));
            }
            for (name, arity) in preds {
                fm.predicates
                    .insert((name.to_string(), arity), HashSet::new());
            }
            for (j, (p, t)) in tuples.iter().enumerate() {
                if bit(props.len() + j)
                    && let Some(ext) = fm
                        .predicates
                        .get_mut(&(preds[*p].0.to_string(), preds[*p].1))
                {
                    ext.insert(t.clone());
                }
            }
            if holds(&fm, a) != holds(&fm, b) {
                return Some(fm);
            }
        }
    }
    None
}

/// The part of `m` over the symbols φ and φ′ use (the brute force names them all).
fn restricted(m: &FiniteModel, a: &Formula, b: &Formula) -> FiniteModel {
    let mut used = FiniteModel {
        size: m.size,
        ..FiniteModel::default()
    };
    let (mut names, mut preds) = (HashSet::new(), HashSet::new());
    for f in [a, b] {
        f.walk(&mut |g| match g {
            Formula::Prop(p) => {
                names.insert(p.to_string());
            }
            Formula::Pred(p, args) => {
                preds.insert((p.to_string(), args.len()));
                for t in args {
                    if let Term::Const(c) = t {
                        names.insert(c.to_string());
                    }
                }
            }
            _ => {}
        });
    }
    for (k, v) in &m.constants {
        if names.contains(k) {
            used.constants.insert(k.clone(), *v);
        }
    }
    for (k, v) in &m.propositions {
        if names.contains(k) {
            used.propositions.insert(k.clone(), *v);
        }
    }
    for (k, v) in &m.predicates {
        if preds.contains(k) {
            used.predicates.insert(k.clone(), v.clone());
        }
    }
    used
}

fn same(x: &FiniteModel, y: &FiniteModel) -> bool {
    x.size == y.size
        && x.constants == y.constants
        && x.propositions == y.propositions
        && x.predicates == y.predicates
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Our search finds the least countermodel of each size, or says there is none,
    /// as the enumeration of every structure does.
    #[test]
    fn search_finds_the_least_model(a in formula(), b in formula(), k in 1usize..3) {
        let brute = brute(&a, &b, k, false).map(|m| restricted(&m, &a, &b));
        match least(&a, &b, k) {
            Some(Found::Model(m)) => {
                let want = brute.expect("the search found a model the enumeration did not");
                prop_assert!(same(&m, &want), "{m:?} != {want:?}");
            }
            Some(Found::None) => prop_assert!(brute.is_none()),
            None => {}
        }
    }

    /// The solver's way to the least model (each choice shown possible by a flipped
    /// value or by Z3), started from the last countermodel in the order, ends where
    /// the enumeration's first one is.
    #[test]
    fn solver_choices_end_at_the_least_model(a in formula(), b in formula(), k in 1usize..3) {
        let (Some(want), Some(start)) = (brute(&a, &b, k, false), brute(&a, &b, k, true)) else {
            return Ok(());
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        let got = canonical(&a, &b, restricted(&start, &a, &b), deadline, false);
        prop_assert!(
            same(&got, &restricted(&want, &a, &b)),
            "{got:?} != {want:?}"
        );
    }
}
