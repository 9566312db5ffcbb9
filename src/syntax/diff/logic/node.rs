//! Formulas as the diff sees them: ∧/∨/⊕/↔ chains flattened, double negations
//! dropped, each node keeping the formula it stands for.

use crate::syntax::diff::Change;
use crate::syntax::logic::{BinOp, Formula, Quantifier, Term};
use crate::syntax::{Notation, print_formula};
use std::cell::OnceCell;

/// The formula a node stands for, with what the diff asks of it again and again
/// computed once: its size, and on first use its printed text, and its key and
/// feature bag where they do not depend on the context.
pub(super) struct Src<'a> {
    pub(super) f: &'a Formula,
    /// No variable occurs free: the key is the same in every context.
    pub(super) closed: bool,
    /// No variable occurs at all: the feature bag is the same in every context.
    pub(super) ground: bool,
    /// The key of a `closed` node, computed on first use.
    pub(super) key: OnceCell<u64>,
    pub(super) size: usize,
    text: OnceCell<String>,
    pub(super) bag: OnceCell<Vec<u64>>,
}

/// A formula with ∧/∨/⊕/↔ chains flattened and double negations dropped; each node
/// keeps the formula it stands for, to be printed as written.
pub(super) enum Node<'a> {
    Atom(Src<'a>),
    Not(Src<'a>, Box<Node<'a>>),
    Chain(Src<'a>, BinOp, Vec<Node<'a>>),
    Imp(Src<'a>, Box<Node<'a>>, Box<Node<'a>>),
    Quant(Src<'a>, Quantifier, &'a str, Box<Node<'a>>),
}

fn src(f: &Formula, closed: bool, ground: bool, size: usize) -> Src<'_> {
    Src {
        f,
        closed,
        ground,
        key: OnceCell::new(),
        size,
        text: OnceCell::new(),
        bag: OnceCell::new(),
    }
}

pub(super) fn build(f: &Formula) -> Node<'_> {
    match f {
        Formula::Not(x) => {
            if let Formula::Not(y) = &**x {
                return build(y);
            }
            let x = build(x);
            let s = src(f, x.src_info().closed, x.src_info().ground, 1 + x.size());
            Node::Not(s, Box::new(x))
        }
        Formula::Bin(BinOp::Implies, x, y) => {
            let (x, y) = (build(x), build(y));
            let (i, j) = (x.src_info(), y.src_info());
            let s = src(
                f,
                i.closed && j.closed,
                i.ground && j.ground,
                1 + i.size + j.size,
            );
            Node::Imp(s, Box::new(x), Box::new(y))
        }
        Formula::Bin(op, x, y) => {
            let mut items = Vec::new();
            for c in [build(x), build(y)] {
                match c {
                    Node::Chain(_, o, xs) if o == *op => items.extend(xs),
                    other => items.push(other),
                }
            }
            let closed = items.iter().all(|c| c.src_info().closed);
            let ground = items.iter().all(|c| c.src_info().ground);
            let size = 1 + items.iter().map(Node::size).sum::<usize>();
            Node::Chain(src(f, closed, ground, size), *op, items)
        }
        Formula::Quant(q, v, body) => {
            let b = build(body);
            // The body's free variables other than `v` are free here too.
            let closed = b.src_info().closed || free_only(&b, v);
            Node::Quant(src(f, closed, false, 1 + b.size()), *q, v, Box::new(b))
        }
        Formula::Bool(_) | Formula::Prop(_) => Node::Atom(src(f, true, true, 1)),
        Formula::Pred(_, args) => {
            let vars = args.iter().any(|t| matches!(t, Term::Var(_)));
            Node::Atom(src(f, !vars, !vars, 1))
        }
    }
}

/// Whether `v` is the only variable free in `n`.
fn free_only(n: &Node<'_>, v: &str) -> bool {
    fn go<'a>(n: &Node<'a>, v: &str, inner: &mut Vec<&'a str>) -> bool {
        if n.src_info().closed {
            return true;
        }
        match n {
            Node::Atom(s) => match s.f {
                Formula::Pred(_, args) => args.iter().all(|t| match t {
                    Term::Var(x) => x == v || inner.contains(&x.as_str()),
                    Term::Const(_) => true,
                }),
                _ => true,
            },
            Node::Not(_, x) => go(x, v, inner),
            Node::Chain(_, _, xs) => xs.iter().all(|x| go(x, v, inner)),
            Node::Imp(_, x, y) => go(x, v, inner) && go(y, v, inner),
            Node::Quant(_, _, w, body) => {
                inner.push(w);
                let r = go(body, v, inner);
                inner.pop();
                r
            }
        }
    }
    go(n, v, &mut Vec::new())
}

impl<'a> Node<'a> {
    pub(super) fn src_info(&self) -> &Src<'a> {
        match self {
            Node::Atom(s)
            | Node::Not(s, _)
            | Node::Chain(s, ..)
            | Node::Imp(s, ..)
            | Node::Quant(s, ..) => s,
        }
    }

    /// The subformula as written, printed once and then copied.
    pub(super) fn text(&self) -> String {
        self.text_ref().to_owned()
    }

    pub(super) fn text_ref(&self) -> &str {
        let s = self.src_info();
        s.text.get_or_init(|| print_formula(s.f, Notation::Unicode))
    }

    pub(super) fn size(&self) -> usize {
        self.src_info().size
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
