//! Formulas as the diff sees them: ∧/∨/⊕/↔ chains flattened, double negations
//! dropped, each node keeping the formula it stands for.

use crate::syntax::diff::Change;
use crate::syntax::logic::{BinOp, Formula, Quantifier};
use crate::syntax::{Notation, print_formula};

/// A formula with ∧/∨/⊕/↔ chains flattened and double negations dropped; each node
/// keeps the formula it stands for, to be printed as written.
pub(super) enum Node<'a> {
    Atom(&'a Formula),
    Not(&'a Formula, Box<Node<'a>>),
    Chain(&'a Formula, BinOp, Vec<Node<'a>>),
    Imp(&'a Formula, Box<Node<'a>>, Box<Node<'a>>),
    Quant(&'a Formula, Quantifier, &'a str, Box<Node<'a>>),
}

pub(super) fn build(f: &Formula) -> Node<'_> {
    if let Formula::Not(x) = f {
        if let Formula::Not(y) = &**x {
            return build(y);
        }
        return Node::Not(f, Box::new(build(x)));
    }
    if let Formula::Bin(op, x, y) = f {
        if *op == BinOp::Implies {
            return Node::Imp(f, Box::new(build(x)), Box::new(build(y)));
        }
        let mut items = Vec::new();
        for c in [build(x), build(y)] {
            match c {
                Node::Chain(_, o, xs) if o == *op => items.extend(xs),
                other => items.push(other),
            }
        }
        return Node::Chain(f, *op, items);
    }
    if let Formula::Quant(q, v, body) = f {
        return Node::Quant(f, *q, v, Box::new(build(body)));
    }
    Node::Atom(f)
}

impl<'a> Node<'a> {
    pub(super) fn src(&self) -> &'a Formula {
        match self {
            Node::Atom(f)
            | Node::Not(f, _)
            | Node::Chain(f, ..)
            | Node::Imp(f, ..)
            | Node::Quant(f, ..) => f,
        }
    }

    pub(super) fn text(&self) -> String {
        print_formula(self.src(), Notation::Unicode)
    }

    pub(super) fn size(&self) -> usize {
        match self {
            Node::Atom(_) => 1,
            Node::Not(_, x) | Node::Quant(_, _, _, x) => 1 + x.size(),
            Node::Chain(_, _, xs) => 1 + xs.iter().map(Node::size).sum::<usize>(),
            Node::Imp(_, x, y) => 1 + x.size() + y.size(),
        }
    }

    /// The operands of a connective (a chain's, or an implication's two).
    pub(super) fn operands(&self) -> Option<(BinOp, Vec<&Node<'a>>)> {
        match self {
            Node::Chain(_, op, xs) => Some((*op, xs.iter().collect())),
            Node::Imp(_, x, y) => Some((BinOp::Implies, vec![&**x, &**y])),
            _ => None,
        }
    }

    pub(super) fn quantifier_prefix(&self) -> usize {
        match self {
            Node::Quant(_, _, _, body) => 1 + body.quantifier_prefix(),
            _ => 0,
        }
    }
}

/// A connective with a negated operand: the connective, its operands and the first
/// negated one's index.
pub(super) fn negated_operand<'n, 'a>(
    n: &'n Node<'a>,
) -> Option<(BinOp, Vec<&'n Node<'a>>, usize)> {
    let (op, parts) = n.operands()?;
    let k = parts.iter().position(|p| matches!(p, Node::Not(..)))?;
    Some((op, parts, k))
}

pub(super) fn op_label(o: BinOp) -> &'static str {
    match o {
        BinOp::And => "∧",
        BinOp::Or => "∨",
        BinOp::Implies => "→",
        BinOp::Iff => "↔",
        BinOp::Xor => "⊕",
    }
}

pub(super) fn q_label(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Forall => "∀",
        Quantifier::Exists => "∃",
    }
}

pub(super) fn swap_change(from: BinOp, to: BinOp) -> Change {
    let ao = |o: BinOp| matches!(o, BinOp::And | BinOp::Or);
    if ao(from) && ao(to) {
        Change::AndOrSwapped
    } else {
        Change::OperatorSwapped
    }
}

/// `xs` with the operands of every `op` chain among them spliced in (what a chain
/// becomes when the connective around it turns into `op`).
pub(super) fn flatten<'n, 'a>(xs: &[&'n Node<'a>], op: BinOp) -> Vec<&'n Node<'a>> {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        match x {
            Node::Chain(_, o, cs) if *o == op => out.extend(cs.iter()),
            other => out.push(*other),
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Left,
    Right,
}
