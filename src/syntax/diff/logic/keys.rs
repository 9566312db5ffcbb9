//! Keys (equal up to commutation, regrouping, double negation and renaming of bound
//! variables) and similarity of nodes.
//!
//! A key is built from the keys of the node's children, so a node in which no
//! variable is free keeps the key computed once when it was built; only nodes with
//! free variables (whose key depends on which binders of the other side they pair
//! with) are keyed again in their context.

use super::Ctx;
use super::node::{Node, Side};
use crate::syntax::logic::{BinOp, Formula, Term};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};

/// A fast 64-bit hasher for keys and features (rotate, xor, multiply per word, then a
/// final mix): a diff hashes every node of both formulas, and keys are compared only
/// with each other, never stored or shown.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.add(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // splitmix64's finaliser: every input bit reaches every output bit.
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// How a variable not bound inside the keyed node is read.
pub(super) enum Free {
    /// Bound by a binder paired with one of the other side (the pair's id).
    Paired(u32),
    /// By its name: free, or bound by a binder with no partner (a dropped quantifier,
    /// whose variable matches the same name used free on the other side).
    Named,
}

/// How a variable bound inside the hashed node is numbered: by the distance to its
/// binder (for keys, so that a subtree's key does not depend on where it sits), or
/// by the binder's place from the outside in (for feature bags, which compare atoms
/// at their place from the bag's root).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Distance,
    Place,
}

fn hash_term(
    t: &Term,
    inner: &[&str],
    bound: Bound,
    free: &dyn Fn(&str) -> Free,
    h: &mut KeyHasher,
) {
    match t {
        Term::Var(v) => {
            if let Some(i) = inner.iter().rposition(|x| *x == v.as_str()) {
                let i = match bound {
                    Bound::Distance => inner.len() - 1 - i,
                    Bound::Place => i,
                };
                (0u8, i).hash(h);
            } else {
                match free(v) {
                    Free::Paired(id) => (1u8, id).hash(h),
                    Free::Named => (2u8, v.as_str()).hash(h),
                }
            }
        }
        Term::Const(c) => (3u8, c.as_str()).hash(h),
    }
}

fn hash_atom(f: &Formula, inner: &[&str], bound: Bound, free: &dyn Fn(&str) -> Free) -> u64 {
    let mut h = KeyHasher::default();
    match f {
        Formula::Pred(p, args) => {
            (5u8, p.as_str(), args.len()).hash(&mut h);
            for t in args {
                hash_term(t, inner, bound, free, &mut h);
            }
        }
        Formula::Prop(p) => (6u8, p.as_str()).hash(&mut h),
        Formula::Bool(b) => (7u8, *b).hash(&mut h),
        // Not atoms: never built as `Node::Atom`.
        Formula::Not(_) | Formula::Bin(..) | Formula::Quant(..) => 8u8.hash(&mut h),
    }
    h.finish()
}

/// The key of `n` under the binders `inner` (inside the keyed root) and `free`; a
/// node with no free variable answers its stored key.
fn key_in<'a>(n: &Node<'a>, inner: &mut Vec<&'a str>, free: &dyn Fn(&str) -> Free) -> u64 {
    let s = n.src_info();
    if s.closed {
        return *s
            .key
            .get_or_init(|| compute_key(n, &mut Vec::new(), &|_| Free::Named));
    }
    compute_key(n, inner, free)
}

/// The key of `n` computed from its children's keys (once for a node with no free
/// variable, in context for the others).
fn compute_key<'a>(n: &Node<'a>, inner: &mut Vec<&'a str>, free: &dyn Fn(&str) -> Free) -> u64 {
    let mut h = KeyHasher::default();
    match n {
        Node::Atom(s) => return hash_atom(s.f, inner, Bound::Distance, free),
        Node::Not(_, x) => (1u8, key_in(x, inner, free)).hash(&mut h),
        Node::Chain(_, op, xs) => {
            let mut keys: Vec<u64> = xs.iter().map(|x| key_in(x, inner, free)).collect();
            keys.sort_unstable();
            (2u8, *op, keys).hash(&mut h);
        }
        Node::Imp(_, x, y) => {
            let kx = key_in(x, inner, free);
            (3u8, kx, key_in(y, inner, free)).hash(&mut h);
        }
        Node::Quant(_, q, v, body) => {
            inner.push(v);
            let kb = key_in(body, inner, free);
            inner.pop();
            (4u8, *q, kb).hash(&mut h);
        }
    }
    h.finish()
}

fn one(x: impl Hash) -> u64 {
    let mut h = KeyHasher::default();
    x.hash(&mut h);
    h.finish()
}

impl<'a> Ctx<'a> {
    pub(super) fn stack(&self, side: Side) -> &[(&'a str, Option<u32>)] {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    /// How this side's binders in scope read a variable free in a keyed node.
    fn free_of(&self, side: Side, v: &str) -> Free {
        match self.stack(side).iter().rev().find(|(n, _)| *n == v) {
            Some((_, Some(id))) => Free::Paired(*id),
            _ => Free::Named,
        }
    }

    /// A key equal for two nodes exactly when they are the same up to commutation,
    /// regrouping, double negation and renaming of bound variables.
    pub(super) fn key(&self, n: &Node<'a>, side: Side) -> u64 {
        key_in(n, &mut Vec::new(), &|v| self.free_of(side, v))
    }

    /// What a node is made of (symbols, atoms, connectives), for similarity.
    fn features(&self, n: &Node<'a>, side: Side, inner: &mut Vec<&'a str>, out: &mut Vec<u64>) {
        match n {
            Node::Atom(s) => {
                let free = |v: &str| self.free_of(side, v);
                out.push(one((0u8, hash_atom(s.f, inner, Bound::Place, &free))));
                if let Formula::Pred(p, args) = s.f {
                    out.push(one((1u8, p.as_str(), args.len())));
                    for t in args {
                        if let Term::Const(c) = t {
                            out.push(one((2u8, c.as_str())));
                        }
                    }
                }
            }
            Node::Not(_, x) => {
                out.push(one(3u8));
                self.features(x, side, inner, out);
            }
            Node::Chain(_, op, xs) => {
                out.push(one((4u8, *op)));
                for x in xs {
                    self.features(x, side, inner, out);
                }
            }
            Node::Imp(_, x, y) => {
                out.push(one((4u8, BinOp::Implies)));
                self.features(x, side, inner, out);
                self.features(y, side, inner, out);
            }
            Node::Quant(_, q, v, body) => {
                out.push(one((5u8, *q)));
                inner.push(v);
                self.features(body, side, inner, out);
                inner.pop();
            }
        }
    }

    /// The node's features, sorted; a node with no variable computes its bag once
    /// (the same operand is weighed again by every alternative tried around it).
    pub(super) fn feature_bag<'n>(&self, n: &'n Node<'a>, side: Side) -> Cow<'n, [u64]> {
        let bag = || {
            let mut out = Vec::new();
            self.features(n, side, &mut Vec::new(), &mut out);
            out.sort_unstable();
            out
        };
        if n.src_info().ground {
            Cow::Borrowed(n.src_info().bag.get_or_init(bag))
        } else {
            Cow::Owned(bag())
        }
    }

    pub(super) fn same(&self, a: &Node<'a>, b: &Node<'a>) -> bool {
        self.key(a, Side::Left) == self.key(b, Side::Right)
    }

    pub(super) fn term_key(&self, t: &Term, side: Side) -> u64 {
        let mut h = KeyHasher::default();
        hash_term(t, &[], Bound::Distance, &|v| self.free_of(side, v), &mut h);
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
