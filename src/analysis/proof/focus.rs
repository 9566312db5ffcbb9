//! Where the structural diff points (issue 47): the nodes of φ₀ whose subformula φ₁
//! no longer holds, read through the rewrites a model makes, so the two-edit search
//! spends its budget there first.
//!
//! Each subformula gets a key that the planted-kind rewrites keep: negations pushed
//! to the atoms (De Morgan, duality, double negation), → read as ¬a ∨ b
//! (contraposition), ∧/∨ chains flattened and sorted (commutation, regrouping), ↔/⊕
//! unordered, bound variables nameless (renaming). A node of φ₀ whose key is the key
//! of some subformula of φ₁ is kept; the nodes above every kept
//! one are where the change is. An order, never a filter: every edit is still tried.
//!
//! An edit there whose result φ₁ holds (by key) is *pointed at*: the two-edit search
//! tries pairs of pointed edits first (the second pointed at after the first is
//! made), which finds two mistakes in a large φ₀ without screening every pair.

use super::keys::key;
use super::logic::{Edit, Pool, each_edit, local};
use crate::syntax::Formula;
use std::collections::HashSet;

/// The keys of φ₁'s subformulas.
pub(super) struct Kept(HashSet<u64>);

impl Kept {
    pub(super) fn new(b: &Formula) -> Kept {
        let mut kept = HashSet::new();
        b.walk(&mut |g| {
            kept.insert(key(g, false));
        });
        Kept(kept)
    }

    /// Per node of `a` in pre-order: 0 where the change is (φ₁ holds no subformula
    /// with its key, nor does it around it), 1 for a kept child of such a node (a
    /// negation or rename lands on a node φ₁ still has, under a changed parent), 2
    /// elsewhere.
    pub(super) fn levels(&self, a: &Formula) -> Vec<u8> {
        let mut out = Vec::with_capacity(a.size());
        mark(a, &self.0, true, &mut out);
        out
    }

    /// The edits of `f` the diff points at, in [`each_edit`]'s order: at a node where
    /// the change is (or a kept child of one), making a subformula φ₁ holds.
    pub(super) fn pointed(&self, f: &Formula, pool: &Pool) -> Vec<Edit> {
        let levels = self.levels(f);
        let mut nodes = Vec::with_capacity(levels.len());
        f.walk(&mut |g| nodes.push(g));
        let mut out = Vec::new();
        each_edit(f, pool, &mut |e| {
            if levels.get(e.at).is_some_and(|l| *l <= 1)
                && let Some(g) = nodes.get(e.at).and_then(|n| local(n, &e.op, pool))
                && self.0.contains(&key(&g, false))
            {
                out.push(e);
            }
        });
        out
    }
}

/// [`Kept::levels`] of `a` against φ₁ = `b`.
#[cfg(test)]
fn logic(a: &Formula, b: &Formula) -> Vec<u8> {
    Kept::new(b).levels(a)
}

/// Marks `f` and below; `changed_above`: every ancestor is where the change is.
fn mark(f: &Formula, kept: &HashSet<u64>, changed_above: bool, out: &mut Vec<u8>) {
    let here = changed_above && !kept.contains(&key(f, false));
    out.push(match (here, changed_above) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    });
    match f {
        Formula::Not(x) | Formula::Quant(_, _, x) => mark(x, kept, here, out),
        Formula::Bin(_, x, y) => {
            mark(x, kept, here, out);
            mark(y, kept, here, out);
        }
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Expr, SyntaxKind, parse};

    fn f(t: &str) -> Formula {
        match parse(t, SyntaxKind::Fol) {
            Ok(Expr::Logic(f)) => f,
            other => panic!("{t}: {other:?}"),
        }
    }

    #[test]
    fn rewrites_keep_keys_and_the_change_is_pointed_at() {
        // De Morgan, → elimination, commutation, renaming keep the key.
        for (x, y) in [
            ("¬(p1 ∧ p2)", "¬p2 ∨ ¬p1"),
            ("p1 → (p2 ∨ p3)", "(p3 ∨ ¬p1) ∨ p2"),
            ("∀x1.¬P(x1)", "¬∃z1.P(z1)"),
            ("p1 ↔ p2", "¬(p2 ⊕ p1)"),
        ] {
            assert_eq!(key(&f(x), false), key(&f(y), false), "{x} vs {y}");
        }
        // p1 ∧ (p2 ∨ ∀x1.P(x1)) with ∀ → ∃, under De Morgan: the root, the ∨ and the
        // quantifier are where the change is; p1 and p2 are kept under changed parents;
        // P(x1) under a changed quantifier is kept too.
        let a = f("p1 ∧ (p2 ∨ ∀x1.P(x1))");
        let b = f("¬(¬p1 ∨ ¬(p2 ∨ ∃x1.P(x1)))");
        assert_eq!(logic(&a, &b), [0, 1, 0, 1, 0, 1]);
        // Unchanged branches are not pointed at below their root.
        let a = f("(p1 ∧ p2) ∨ ¬p3");
        let b = f("(p2 ∧ p1) ∨ p3");
        assert_eq!(logic(&a, &b), [0, 1, 2, 2, 0, 1]);
    }
}
