//! Truth tables of many nodes in one allocation, for the PL screen's arenas.

use crate::syntax::BinOp;

/// One table of `words` words per node, all in one allocation (an arena is built for
/// every formula the search edits, and three vectors a node were allocated before).
pub(super) struct Tables {
    words: usize,
    /// Node i's table is `data[i * words..(i + 1) * words]`.
    pub(super) data: Vec<u64>,
}

impl Tables {
    pub(super) fn new(words: usize, nodes: usize) -> Tables {
        Tables {
            words: words.max(1),
            data: Vec::with_capacity(words.max(1) * nodes),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.data.len() / self.words
    }

    /// Node `i`'s table (None past the last node).
    pub(super) fn get(&self, i: usize) -> Option<&[u64]> {
        let start = i.checked_mul(self.words)?;
        self.data.get(start..start.checked_add(self.words)?)
    }

    /// Word `w` of node `i`'s table (within range: the caller's indices are nodes').
    pub(super) fn word(&self, i: usize, w: usize) -> u64 {
        self.data[i * self.words + w]
    }

    pub(super) fn push(&mut self, t: &[u64]) {
        self.data.extend_from_slice(t);
    }

    /// A copy of `other`'s table of node `i` as the next node's.
    pub(super) fn push_copy_from(&mut self, other: &Tables, i: usize) {
        self.data.extend_from_slice(&other[i]);
    }

    /// Node `i`'s table set to `t`.
    pub(super) fn set(&mut self, i: usize, t: &[u64]) {
        let w = self.words;
        self.data[i * w..(i + 1) * w].copy_from_slice(t);
    }

    /// Node `to`'s table set to node `from`'s.
    pub(super) fn copy(&mut self, from: usize, to: usize) {
        let w = self.words;
        self.data.copy_within(from * w..(from + 1) * w, to * w);
    }

    /// Node `at`'s table set to its own `op` node `k`'s (`at` comes first: a parent).
    pub(super) fn combine_with(&mut self, at: usize, op: BinOp, k: usize) {
        let w = self.words;
        let (lo, hi) = self.data.split_at_mut(k * w);
        combine(op, &mut lo[at * w..(at + 1) * w], &hi[..w]);
    }

    /// Node `at`'s table negated.
    pub(super) fn negate(&mut self, at: usize) {
        let w = self.words;
        not(&mut self.data[at * w..(at + 1) * w]);
    }
}

impl std::ops::Index<usize> for Tables {
    type Output = [u64];
    fn index(&self, i: usize) -> &[u64] {
        &self.data[i * self.words..(i + 1) * self.words]
    }
}

/// `a` op= `b`, word by word (64 truth-table rows a word).
pub(super) fn combine(op: BinOp, a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = match op {
            BinOp::And => *x & y,
            BinOp::Or => *x | y,
            BinOp::Implies => !*x | y,
            BinOp::Iff => !(*x ^ y),
            BinOp::Xor => *x ^ y,
        };
    }
}

/// Negates a table in place.
pub(super) fn not(a: &mut [u64]) {
    for x in a {
        *x = !*x;
    }
}
