//! Keys (equal up to commutation, regrouping, double negation and renaming of bound
//! variables) and similarity of nodes.

use super::Ctx;
use super::node::{Node, Side};
use crate::syntax::logic::{BinOp, Formula, Term};
use crate::syntax::{Notation, print_formula};
use std::hash::{DefaultHasher, Hash, Hasher};

impl<'a> Ctx<'a> {
    pub(super) fn stack(&self, side: Side) -> &[(&'a str, Option<u32>)] {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    pub(super) fn hash_term(&self, t: &Term, side: Side, inner: &[&'a str], h: &mut DefaultHasher) {
        match t {
            Term::Var(v) => {
                if let Some(i) = inner.iter().rposition(|x| *x == v.as_str()) {
                    (0u8, i).hash(h);
                } else if let Some((_, id)) = self
                    .stack(side)
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == v.as_str())
                {
                    match id {
                        Some(id) => (1u8, *id).hash(h),
                        // A binder with no partner: its variable matches the same name
                        // used free on the other side (a dropped quantifier).
                        None => (2u8, v.as_str()).hash(h),
                    }
                } else {
                    (2u8, v.as_str()).hash(h);
                }
            }
            Term::Const(c) => (3u8, c.as_str()).hash(h),
        }
    }

    pub(super) fn hash_node(
        &self,
        n: &Node<'a>,
        side: Side,
        inner: &mut Vec<&'a str>,
        h: &mut DefaultHasher,
    ) {
        match n {
            Node::Atom(f) => {
                if let Formula::Pred(p, args) = f {
                    (5u8, p.as_str(), args.len()).hash(h);
                    for t in args {
                        self.hash_term(t, side, inner, h);
                    }
                } else if let Formula::Prop(p) = f {
                    (6u8, p.as_str()).hash(h);
                } else {
                    (7u8, print_formula(f, Notation::Unicode)).hash(h);
                }
            }
            Node::Not(_, x) => {
                1u8.hash(h);
                self.hash_node(x, side, inner, h);
            }
            Node::Chain(_, op, xs) => {
                let mut keys: Vec<u64> = xs
                    .iter()
                    .map(|x| {
                        let mut hx = DefaultHasher::new();
                        self.hash_node(x, side, inner, &mut hx);
                        hx.finish()
                    })
                    .collect();
                keys.sort_unstable();
                (2u8, *op, keys).hash(h);
            }
            Node::Imp(_, x, y) => {
                3u8.hash(h);
                self.hash_node(x, side, inner, h);
                self.hash_node(y, side, inner, h);
            }
            Node::Quant(_, q, v, body) => {
                (4u8, *q).hash(h);
                inner.push(v);
                self.hash_node(body, side, inner, h);
                inner.pop();
            }
        }
    }

    /// A key equal for two nodes exactly when they are the same up to commutation,
    /// regrouping, double negation and renaming of bound variables.
    pub(super) fn key(&self, n: &Node<'a>, side: Side) -> u64 {
        let mut h = DefaultHasher::new();
        self.hash_node(n, side, &mut Vec::new(), &mut h);
        h.finish()
    }

    /// What a node is made of (symbols, atoms, connectives), for similarity.
    pub(super) fn features(
        &self,
        n: &Node<'a>,
        side: Side,
        inner: &mut Vec<&'a str>,
        out: &mut Vec<u64>,
    ) {
        let one = |x: &dyn Fn(&mut DefaultHasher)| {
            let mut h = DefaultHasher::new();
            x(&mut h);
            h.finish()
        };
        match n {
            Node::Atom(f) => {
                let mut h = DefaultHasher::new();
                self.hash_node(n, side, inner, &mut h);
                out.push(one(&|x| (0u8, h.finish()).hash(x)));
                if let Formula::Pred(p, args) = f {
                    out.push(one(&|x| (1u8, p.as_str(), args.len()).hash(x)));
                    for t in args {
                        if let Term::Const(c) = t {
                            out.push(one(&|x| (2u8, c.as_str()).hash(x)));
                        }
                    }
                }
            }
            Node::Not(_, x) => {
                out.push(one(&|h| 3u8.hash(h)));
                self.features(x, side, inner, out);
            }
            Node::Chain(_, op, xs) => {
                out.push(one(&|h| (4u8, *op).hash(h)));
                for x in xs {
                    self.features(x, side, inner, out);
                }
            }
            Node::Imp(_, x, y) => {
                out.push(one(&|h| (4u8, BinOp::Implies).hash(h)));
                self.features(x, side, inner, out);
                self.features(y, side, inner, out);
            }
            Node::Quant(_, q, v, body) => {
                out.push(one(&|h| (5u8, *q).hash(h)));
                inner.push(v);
                self.features(body, side, inner, out);
                inner.pop();
            }
        }
    }

    pub(super) fn feature_bag(&self, n: &Node<'a>, side: Side) -> Vec<u64> {
        let mut out = Vec::new();
        self.features(n, side, &mut Vec::new(), &mut out);
        out.sort_unstable();
        out
    }

    pub(super) fn same(&self, a: &Node<'a>, b: &Node<'a>) -> bool {
        self.key(a, Side::Left) == self.key(b, Side::Right)
    }

    pub(super) fn term_key(&self, t: &Term, side: Side) -> u64 {
        let mut h = DefaultHasher::new();
        self.hash_term(t, side, &[], &mut h);
        h.finish()
    }
}

/// Dice similarity of two sorted feature bags, in thousandths.
pub(super) fn dice(a: &[u64], b: &[u64]) -> u64 {
    let (mut i, mut j, mut common) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let total = (a.len() + b.len()) as u64;
    (2000 * common).checked_div(total).unwrap_or(0)
}
