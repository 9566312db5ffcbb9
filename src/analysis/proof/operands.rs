//! Operands an "added" edit may insert (issue 47): φ₁'s own subformulas, first those
//! φ₁ joins to a subformula φ₀ holds (`n` → `n ∧ X`: φ₁ holds `n ∧ X`, so `X`), then
//! those φ₀ does not hold (what the model added is there, whatever else it
//! rewrote), then φ₁'s atoms (those φ₀ lacks first) and their negations, then its
//! other small subformulas.

use super::keys::key;
use crate::syntax::Formula;
use std::collections::HashSet;

/// Largest φ₁ subformula absent from φ₀ offered as an added operand.
const NEW_SIZE: usize = 8;
/// Largest other φ₁ subformula offered.
const OPERAND_SIZE: usize = 4;
/// Most operands offered (each is tried at every node, twice).
const MAX_OPERANDS: usize = 16;

/// The subformulas of `f` in pre-order with their sizes, counted in one walk.
fn sized<'a>(f: &'a Formula, out: &mut Vec<(&'a Formula, usize)>) -> usize {
    let at = out.len();
    out.push((f, 1));
    let size = 1 + match f {
        Formula::Not(x) | Formula::Quant(_, _, x) => sized(x, out),
        Formula::Bin(_, x, y) => sized(x, out) + sized(y, out),
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => 0,
    };
    if let Some(slot) = out.get_mut(at) {
        slot.1 = size;
    }
    size
}

/// The operands of φ₁ (`b`) an added edit to φ₀ (`a`) may insert, best first.
pub(super) fn operands(a: &Formula, b: &Formula) -> Vec<Formula> {
    // Only φ₀'s subformulas as small as a new operand can equal one.
    let mut nodes = Vec::new();
    sized(a, &mut nodes);
    let in_a: HashSet<&Formula> = nodes
        .iter()
        .filter(|(_, n)| *n <= NEW_SIZE)
        .map(|(g, _)| *g)
        .collect();
    nodes.clear();
    let whole = sized(b, &mut nodes);
    // Keys (read through the rewrites) of φ₀'s subformulas, and the operands φ₁
    // joins to one of them.
    let mut keys = HashSet::new();
    a.walk(&mut |g| {
        keys.insert(key(g, false));
    });
    let mut joined: Vec<(usize, &Formula)> = Vec::new();
    for &(g, _) in &nodes {
        if let Formula::Bin(_, x, y) = g {
            for (kept, added) in [(x, y), (y, x)] {
                let n = added.size();
                if n <= NEW_SIZE
                    && keys.contains(&key(kept, false))
                    && !keys.contains(&key(added, false))
                {
                    joined.push((n, added));
                }
            }
        }
    }
    joined.sort_by_key(|(n, _)| *n);
    let mut new: Vec<(usize, &Formula)> = Vec::new();
    let mut atoms: Vec<&Formula> = Vec::new();
    let mut small: Vec<&Formula> = Vec::new();
    for &(g, n) in &nodes {
        if g.is_atom() {
            atoms.push(g);
        } else if n <= NEW_SIZE && n < whole && !in_a.contains(g) {
            new.push((n, g));
        } else if n <= OPERAND_SIZE && !matches!(g, Formula::Not(x) if x.is_atom()) {
            small.push(g);
        }
    }
    // Smallest new subformulas first: the added part, not a whole rewritten branch.
    new.sort_by_key(|(n, _)| *n);
    // Atoms φ₀ lacks first (a stable sort keeps φ₁'s order otherwise).
    atoms.sort_by_key(|g| keys.contains(&key(g, false)));
    let candidates = joined
        .into_iter()
        .take(MAX_OPERANDS / 4)
        .chain(new.into_iter().take(MAX_OPERANDS / 2))
        .map(|(_, g)| g.clone())
        .chain(
            atoms
                .into_iter()
                .flat_map(|g| [g.clone(), Formula::negate(g.clone())]),
        )
        .chain(small.into_iter().cloned());
    // The first MAX_OPERANDS distinct ones, in order.
    let mut out: Vec<Formula> = Vec::with_capacity(MAX_OPERANDS);
    for g in candidates {
        if out.len() == MAX_OPERANDS {
            break;
        }
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}
