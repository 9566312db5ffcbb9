//! A key per subformula that the planted-kind rewrites keep (issue 47): negations
//! pushed to the atoms, → read as ¬a ∨ b, ∧/∨ chains flattened and sorted, ↔/⊕
//! unordered, bound variables nameless. Syntax only; the focus and the operand
//! pools both read it.

use crate::syntax::{BinOp, Formula, Quantifier, Term};
use std::hash::{DefaultHasher, Hash, Hasher};

fn hash(x: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// The connective `op` is read as under a negation (`neg`), after pushing it inward.
fn effective(op: BinOp, neg: bool) -> BinOp {
    match (op, neg) {
        (BinOp::And, true) => BinOp::Or,
        (BinOp::Or | BinOp::Implies, true) => BinOp::And,
        (BinOp::Implies, false) => BinOp::Or,
        (BinOp::Iff, true) => BinOp::Xor,
        (BinOp::Xor, true) => BinOp::Iff,
        (o, false) => o,
    }
}

/// The keys of the operands of an ∧/∨ chain whose connective reads as `chain`.
fn operands(f: &Formula, neg: bool, chain: BinOp, out: &mut Vec<u64>) {
    match f {
        Formula::Not(x) => operands(x, !neg, chain, out),
        Formula::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
            if effective(*op, neg) == chain =>
        {
            // a → b is ¬a ∨ b: its left operand flips.
            let left = if *op == BinOp::Implies { !neg } else { neg };
            operands(a, left, chain, out);
            operands(b, neg, chain, out);
        }
        _ => out.push(key(f, neg)),
    }
}

/// A predicate's arguments with variables nameless (`_`), so renamed bound variables
/// match.
pub(super) fn nameless(args: &[Term]) -> Vec<&str> {
    nameless_iter(args).collect()
}

/// [`nameless`] without collecting.
pub(super) fn nameless_iter(args: &[Term]) -> impl Iterator<Item = &str> {
    args.iter().map(|t| match t {
        Term::Const(c) => c.as_str(),
        Term::Var(_) => "_",
    })
}

/// The key of `f` read under `neg` negations.
pub(super) fn key(f: &Formula, neg: bool) -> u64 {
    match f {
        Formula::Bool(b) => hash(("bool", *b != neg)),
        Formula::Prop(p) => hash(("lit", neg, p.as_str())),
        Formula::Pred(p, args) => hash(("lit", neg, p.as_str(), nameless(args))),
        Formula::Not(x) => key(x, !neg),
        Formula::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Implies), ..) => {
            let chain = effective(*op, neg);
            let mut keys = Vec::new();
            operands(f, neg, chain, &mut keys);
            keys.sort_unstable();
            keys.dedup();
            hash(("chain", chain == BinOp::And, keys))
        }
        Formula::Bin(op, a, b) => {
            let mut keys = [key(a, false), key(b, false)];
            keys.sort_unstable();
            hash(("iff", effective(*op, neg) == BinOp::Iff, keys))
        }
        Formula::Quant(q, _, body) => {
            let all = (*q == Quantifier::Forall) != neg;
            hash(("quant", all, key(body, neg)))
        }
    }
}
