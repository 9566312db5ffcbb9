//! Operands an "added" edit may insert (issue 47): φ₁'s own subformulas, those φ₀
//! does not hold first (what the model added is there, whatever else it rewrote),
//! then φ₁'s atoms and their negations, then its other small subformulas.

use crate::syntax::Formula;
use std::collections::HashSet;

/// Largest φ₁ subformula absent from φ₀ offered as an added operand.
const NEW_SIZE: usize = 8;
/// Largest other φ₁ subformula offered.
const OPERAND_SIZE: usize = 4;
/// Most operands offered (each is tried at every node, twice).
const MAX_OPERANDS: usize = 16;

/// The operands of φ₁ (`b`) an added edit to φ₀ (`a`) may insert, best first.
pub(super) fn operands(a: &Formula, b: &Formula) -> Vec<Formula> {
    let mut in_a = HashSet::new();
    a.walk(&mut |g| {
        in_a.insert(g.clone());
    });
    let mut new: Vec<Formula> = Vec::new();
    let mut atoms: Vec<Formula> = Vec::new();
    let mut small: Vec<Formula> = Vec::new();
    b.walk(&mut |g| {
        if g.is_atom() {
            atoms.push(g.clone());
            atoms.push(Formula::negate(g.clone()));
        } else if !in_a.contains(g) && g.size() <= NEW_SIZE && g.size() < b.size() {
            new.push(g.clone());
        } else if g.size() <= OPERAND_SIZE && !matches!(g, Formula::Not(x) if x.is_atom()) {
            small.push(g.clone());
        }
    });
    // Smallest new subformulas first: the added part, not a whole rewritten branch.
    new.sort_by_key(Formula::size);
    let mut out: Vec<Formula> = new.into_iter().take(MAX_OPERANDS / 2).collect();
    out.extend(atoms);
    out.extend(small);
    let mut seen = HashSet::new();
    out.retain(|f| seen.insert(f.clone()));
    out.truncate(MAX_OPERANDS);
    out
}
