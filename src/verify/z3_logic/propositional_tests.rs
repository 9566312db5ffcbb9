//! Propositional pairs are settled by our own search before the solver: the verdict,
//! and the countermodel it shows, are what the solver's way gives.

use super::{check, check_here};
use crate::syntax::{BinOp, Formula};
use crate::verify::model::{FiniteModel, holds};
use crate::verify::small_model::{Found, least};
use crate::verify::verdict::Verdict;
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// Propositional formulas over `names` propositions `p10`, `p11`, … (two digits, so
/// name order is number order).
fn formula(names: usize, depth: u32, size: u32) -> impl Strategy<Value = Formula> {
    let atom = (0..names).prop_map(|i| Formula::Prop(format!("p{}", 10 + i).into()));
    atom.prop_recursive(depth, size, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(Formula::negate),
            (0u8..5, inner.clone(), inner)
                .prop_map(|(o, a, b)| { Formula::bin(BinOp::ALL[usize::from(o)], a, b) }),
        ]
    })
}

/// Formulas with 20 to 40 leaves over 30 propositions: most use more than the truth
/// table's 20 variables.
fn large_formula() -> impl Strategy<Value = Formula> {
    (20usize..40)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(0usize..30, n),
                proptest::collection::vec(any::<u16>(), n),
            )
        })
        .prop_map(|(leaves, shape)| tree(&leaves, &shape))
}

/// A tree over `leaves` in order, `shape` choosing each split point, connective and
/// negation.
fn tree(leaves: &[usize], shape: &[u16]) -> Formula {
    let code = usize::from(shape.first().copied().unwrap_or(0));
    let f = match leaves {
        [] => Formula::Bool(true),
        [leaf] => Formula::Prop(format!("p{}", 10 + leaf).into()),
        _ => {
            let split = 1 + code % (leaves.len() - 1);
            let rest = shape.get(1..).unwrap_or(&[]);
            let (left, right) = rest.split_at(rest.len() / 2);
            Formula::bin(
                BinOp::ALL[(code / 64) % BinOp::ALL.len()],
                tree(&leaves[..split], left),
                tree(&leaves[split..], right),
            )
        }
    };
    if code % 4 == 0 { Formula::negate(f) } else { f }
}

/// `f` with the node at preorder position `*at` edited by `how`: the first three kinds
/// of edit change the meaning there, the others rewrite it to an equivalent.
fn edited(f: &Formula, at: &mut usize, how: u8) -> Formula {
    if *at == 0 {
        *at = usize::MAX;
        return edit_here(f, how);
    }
    *at -= 1;
    match f {
        Formula::Not(a) => Formula::negate(edited(a, at, how)),
        Formula::Bin(op, a, b) => {
            let a = edited(a, at, how);
            Formula::bin(*op, a, edited(b, at, how))
        }
        other => other.clone(),
    }
}

fn edit_here(f: &Formula, how: u8) -> Formula {
    match (how, f) {
        (0, _) => Formula::negate(f.clone()),
        (1, Formula::Bin(op, a, b)) => {
            let i = BinOp::ALL.iter().position(|o| o == op).unwrap_or(0);
            Formula::Bin(BinOp::ALL[(i + 1) % BinOp::ALL.len()], a.clone(), b.clone())
        }
        (1 | 2, Formula::Prop(p)) => Formula::Prop(format!("{p}x").into()),
        (3, _) => Formula::negate(Formula::negate(f.clone())),
        (4, Formula::Bin(BinOp::And, a, b)) => Formula::negate(Formula::bin(
            BinOp::Or,
            Formula::negate((**a).clone()),
            Formula::negate((**b).clone()),
        )),
        (4 | 5, Formula::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Iff | BinOp::Xor), a, b)) => {
            Formula::Bin(*op, b.clone(), a.clone())
        }
        (6, Formula::Bin(BinOp::Implies, a, b)) => {
            Formula::bin(BinOp::Or, Formula::negate((**a).clone()), (**b).clone())
        }
        // An edit that does not fit the node: a change for the first kinds, a rewrite for
        // the others.
        (0..=2, _) => Formula::negate(f.clone()),
        _ => Formula::negate(Formula::negate(f.clone())),
    }
}

/// The first assignment in the least model's order (propositions by name, false
/// first) on which `a` and `b` differ, over the propositions either uses.
fn brute(a: &Formula, b: &Formula) -> Option<FiniteModel> {
    let mut names = a.propositions();
    names.extend(b.propositions());
    let n = names.len();
    (0..1u64 << n).find_map(|code| {
        let mut fm = FiniteModel::default();
        for (i, name) in names.iter().enumerate() {
            fm.propositions
                .insert(name.clone(), code >> (n - 1 - i) & 1 == 1);
        }
        (holds(&fm, a) != holds(&fm, b)).then_some(fm)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// With no elements, our search finds the least assignment that separates the
    /// pair, or says none does, as enumerating every assignment in order does.
    #[test]
    fn the_search_finds_the_least_assignment(
        a in formula(8, 4, 14),
        (at, how) in (0usize..40, 0u8..7),
    ) {
        let b = edited(&a, &mut (at % a.size()), how);
        let want = brute(&a, &b);
        match least(&a, &b, 0) {
            Some(Found::Model(m)) => {
                let want = want.expect("the search found a model the enumeration did not");
                prop_assert_eq!(&m.propositions, &want.propositions);
            }
            Some(Found::None) => prop_assert!(want.is_none(), "missed {want:?}"),
            None => prop_assert!(false, "out of budget on eight propositions"),
        }
    }
}

/// Large propositional pairs (past the truth table's 20 variables, as `decide`
/// abstracts them) get the verdict and countermodel the solver's way gives: Z3's
/// check, then the least model by Z3's choices. The search must settle a fair share
/// of them itself (a third, as generated here), past 20 variables too, or the
/// comparison would be Z3's way against itself.
#[test]
fn large_pairs_get_the_solvers_verdict() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(300));
    let (settled, settled_large) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let strategy = (large_formula(), (0usize..200, 0u8..7));
    let result = runner.run(&strategy, |(a, (at, how))| {
        let b = edited(&a, &mut (at % a.size()), how);
        let deadline = Instant::now() + Duration::from_secs(30);
        let ours = check(&a, &b, deadline, 3);
        let solvers = check_here(&a, &b, deadline, 3, 0);
        prop_assert!(
            !matches!(solvers, Verdict::Unknown { .. }),
            "the solver could not decide: {solvers:?}"
        );
        prop_assert_eq!(ours, solvers);
        if least(&a, &b, 0).is_some() {
            settled.set(settled.get() + 1);
            let mut names = a.propositions();
            names.extend(b.propositions());
            if names.len() > 20 {
                settled_large.set(settled_large.get() + 1);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        settled.get() >= 60 && settled_large.get() >= 10,
        "our search settled {} of 300 pairs, {} past 20 variables",
        settled.get(),
        settled_large.get()
    );
}
