//! Cheap screening of candidate formulas before the verifier sees them: PL truth
//! tables as bitsets (every row up to `MAX_EXACT_VARS` atoms, sampled rows above);
//! FOL values on a few small random models are in [`super::screen_fol`]. A candidate
//! that disagrees with φ₁ anywhere here is not equivalent to it; one that agrees
//! still needs the verifier.

use super::logic::{Edit, Op, Pool};
use super::tables::{Tables, combine, not};
use crate::syntax::{BinOp, Formula};
use std::collections::BTreeMap;

/// Most atoms whose truth table is complete; above, `SAMPLED_WORDS` × 64 rows are drawn.
const MAX_EXACT_VARS: usize = 12;
/// Words of sampled rows for larger propositional formulas.
const SAMPLED_WORDS: usize = 64;

/// A small deterministic generator (xorshift64*), so screening never depends on time.
#[derive(Clone)]
pub(crate) struct Rand(pub(super) u64);

impl Rand {
    /// Seeded generator (a zero seed is replaced).
    pub fn new(seed: u64) -> Rand {
        Rand(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Propositional screen: the columns of the atoms and φ₁'s table.
pub(crate) struct PlScreen {
    columns: BTreeMap<String, Vec<u64>>,
    /// Every row of the truth table (not sampled).
    exact: bool,
    words: usize,
    last: u64,
    target: Vec<u64>,
    operands: Vec<Option<Vec<u64>>>,
    props: Vec<Option<Vec<u64>>>,
}

/// Truth tables of every node of one formula, in pre-order.
pub(crate) struct Arena {
    tables: Tables,
    parent: Vec<usize>,
    kids: Vec<[usize; 2]>,
    ops: Vec<Option<BinOp>>,
    /// Per node, the whole formula's table were the node true on every row (`on`)
    /// or false on every row (`off`): the formula is a tree, so with the node's
    /// value `v` it is `(v & on) | (!v & off)`, and an edit there is checked without
    /// walking up to the root.
    on: Tables,
    off: Tables,
}

pub(super) fn op1(op: BinOp, x: u64, y: u64) -> u64 {
    match op {
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Implies => !x | y,
        BinOp::Iff => !(x ^ y),
        BinOp::Xor => x ^ y,
    }
}

impl PlScreen {
    /// The screen for φ₁ = `b` over the atoms of both sides, or None if either side
    /// is first-order.
    pub fn new(a: &Formula, b: &Formula, pool: &Pool) -> Option<PlScreen> {
        if a.is_first_order() || b.is_first_order() {
            return None;
        }
        let vars = &pool.props;
        let exact = vars.len() <= MAX_EXACT_VARS;
        let rows = if exact {
            1usize << vars.len()
        } else {
            SAMPLED_WORDS * 64
        };
        let words = rows.div_ceil(64);
        let last = if rows % 64 == 0 {
            u64::MAX
        } else {
            (1u64 << (rows % 64)) - 1
        };
        let mut rng = Rand::new(0x9E37_79B9_7F4A_7C15 ^ vars.len() as u64);
        let columns = vars
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let col = (0..words)
                    .map(|w| {
                        if !exact {
                            return rng.next();
                        }
                        // Row r has atom i true iff bit i of r is set: within a word
                        // the low six atoms alternate in fixed patterns, the others are
                        // constant per word.
                        const LOW: [u64; 6] = [
                            0xAAAA_AAAA_AAAA_AAAA,
                            0xCCCC_CCCC_CCCC_CCCC,
                            0xF0F0_F0F0_F0F0_F0F0,
                            0xFF00_FF00_FF00_FF00,
                            0xFFFF_0000_FFFF_0000,
                            0xFFFF_FFFF_0000_0000,
                        ];
                        match LOW.get(i) {
                            Some(p) => *p,
                            None if (w >> (i - 6)) & 1 == 1 => u64::MAX,
                            None => 0,
                        }
                    })
                    .collect();
                (v.clone(), col)
            })
            .collect();
        let mut s = PlScreen {
            columns,
            exact,
            words,
            last,
            target: Vec::new(),
            operands: Vec::new(),
            props: Vec::new(),
        };
        s.target = s.table(b)?;
        s.operands = pool.operands.iter().map(|f| s.table(f)).collect();
        s.props = pool
            .props
            .iter()
            .map(|p| s.columns.get(p).cloned())
            .collect();
        Some(s)
    }

    /// The truth table of `f` (None: not propositional, or an unknown atom).
    pub fn table(&self, f: &Formula) -> Option<Vec<u64>> {
        Some(match f {
            Formula::Bool(b) => vec![if *b { u64::MAX } else { 0 }; self.words],
            Formula::Prop(p) => self.columns.get(p.as_str())?.clone(),
            Formula::Pred(..) | Formula::Quant(..) => return None,
            Formula::Not(a) => {
                let mut t = self.table(a)?;
                not(&mut t);
                t
            }
            Formula::Bin(op, a, b) => {
                let mut t = self.table(a)?;
                combine(*op, &mut t, &self.table(b)?);
                t
            }
        })
    }

    /// Whether the table holds every row (agreeing with φ₁ is then equivalence).
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Whether two tables agree on every row.
    fn same(&self, t: &[u64]) -> bool {
        let n = self.words;
        t[..n - 1] == self.target[..n - 1] && (t[n - 1] ^ self.target[n - 1]) & self.last == 0
    }

    /// Whether `f` agrees with φ₁ on every row.
    pub fn agrees(&self, f: &Formula) -> bool {
        self.table(f).is_some_and(|t| self.same(&t))
    }

    /// The node tables of `f` (None: not propositional).
    pub fn arena(&self, f: &Formula) -> Option<Arena> {
        fn go(s: &PlScreen, f: &Formula, parent: usize, ar: &mut Arena) -> Option<usize> {
            let at = ar.parent.len();
            ar.parent.push(parent);
            ar.kids.push([usize::MAX; 2]);
            ar.ops.push(None);
            match f {
                Formula::Not(a) => {
                    let k = go(s, a, at, ar)?;
                    ar.kids[at][0] = k;
                    ar.tables.copy(k, at);
                    ar.tables.negate(at);
                }
                Formula::Bin(op, a, b) => {
                    let k0 = go(s, a, at, ar)?;
                    let k1 = go(s, b, at, ar)?;
                    ar.kids[at] = [k0, k1];
                    ar.ops[at] = Some(*op);
                    ar.tables.copy(k0, at);
                    ar.tables.combine_with(at, *op, k1);
                }
                _ => ar.tables.set(at, &s.table(f)?),
            }
            Some(at)
        }
        let n = f.size();
        let mut ar = Arena {
            tables: Tables::new(self.words, n),
            parent: Vec::with_capacity(n),
            kids: Vec::with_capacity(n),
            ops: Vec::with_capacity(n),
            on: Tables::new(self.words, n),
            off: Tables::new(self.words, n),
        };
        ar.tables.data.resize(self.words * n, 0);
        go(self, f, usize::MAX, &mut ar)?;
        self.contexts(&mut ar);
        Some(ar)
    }

    /// Fills `on` and `off` top-down (a parent comes before its children in pre-order).
    fn contexts(&self, ar: &mut Arena) {
        let n = ar.parent.len();
        let ones = vec![u64::MAX; self.words];
        let zeros = vec![0; self.words];
        for i in 0..n {
            let p = ar.parent[i];
            if p == usize::MAX {
                ar.on.push(&ones);
                ar.off.push(&zeros);
                continue;
            }
            match ar.ops[p] {
                // The parent is a negation: its value is the child's, flipped.
                None => {
                    ar.on.push_copy_from(&ar.off, p);
                    ar.off.push_copy_from(&ar.on, p);
                }
                Some(op) => {
                    let [a, b] = ar.kids[p];
                    let left = a == i;
                    let sib = if left { b } else { a };
                    for w in 0..self.words {
                        let (sw, pon, poff) =
                            (ar.tables.word(sib, w), ar.on.word(p, w), ar.off.word(p, w));
                        // The parent's value with this child's at `v` on word `w`.
                        let through = |v: u64| {
                            let pv = if left { op1(op, v, sw) } else { op1(op, sw, v) };
                            (pv & pon) | (!pv & poff)
                        };
                        ar.on.data.push(through(u64::MAX));
                        ar.off.data.push(through(0));
                    }
                }
            }
        }
    }

    /// Per node of the arena's formula, whether it is sensitive on every row where
    /// the formula and φ₁ differ: an edit at a node that is not leaves one of those
    /// rows as it is, so it cannot agree with φ₁ (the verdict's countermodel is such
    /// a row for φ₀), and it is not screened.
    pub fn covering(&self, ar: &Arena) -> Vec<bool> {
        let n = self.words;
        let diff: Vec<u64> = (0..n)
            .map(|w| {
                let m = if w == n - 1 { self.last } else { u64::MAX };
                (ar.tables[0][w] ^ self.target[w]) & m
            })
            .collect();
        (0..ar.tables.len())
            .map(|i| (0..n).all(|w| diff[w] & !(ar.on.word(i, w) ^ ar.off.word(i, w)) == 0))
            .collect()
    }

    /// Whether node `at` taking the value `v` on word `w` gives φ₁'s rows there
    /// (under `mask`).
    fn fits(&self, ar: &Arena, at: usize, v: u64, w: usize, mask: u64) -> bool {
        let t = self.target[w];
        let bad = (v & (ar.on.word(at, w) ^ t)) | (!v & (ar.off.word(at, w) ^ t));
        bad & mask == 0
    }

    /// Whether the edit of the arena's formula agrees with φ₁: the edited node's new
    /// table from its children's, then each ancestor's from its other child's. The
    /// first 64 rows are checked alone first (no allocation): most candidates fail there.
    pub fn edit_agrees(&self, ar: &Arena, e: &Edit) -> bool {
        let mask = if self.words == 1 { self.last } else { u64::MAX };
        match self.first_word(ar, e) {
            Some(v) if self.fits(ar, e.at, v, 0, mask) => {}
            _ => return false,
        }
        if self.words == 1 {
            return true;
        }
        let Some(v) = self.edited(ar, e) else {
            return false;
        };
        let n = self.words;
        (1..n).all(|w| {
            let m = if w == n - 1 { self.last } else { u64::MAX };
            self.fits(ar, e.at, v[w], w, m)
        })
    }

    /// [`Self::edited`] on the first word of every table only.
    fn first_word(&self, ar: &Arena, e: &Edit) -> Option<u64> {
        let at = e.at;
        let t = |i: usize| ar.tables.get(i).map(|v| v[0]);
        let [k0, k1] = *ar.kids.get(at)?;
        Some(match &e.op {
            Op::Negate | Op::FlipBool => !t(at)?,
            Op::Unnegate => t(k0)?,
            Op::Connective(o) => op1(*o, t(k0)?, t(k1)?),
            Op::SwapOperands => op1(ar.ops[at]?, t(k1)?, t(k0)?),
            Op::Keep(left) => t(if *left { k0 } else { k1 })?,
            Op::RegroupLeft => {
                let [b, c] = *ar.kids.get(k1)?;
                op1(ar.ops[k1]?, op1(ar.ops[at]?, t(k0)?, t(b)?), t(c)?)
            }
            Op::RegroupRight => {
                let [a, b] = *ar.kids.get(k0)?;
                op1(ar.ops[k0]?, t(a)?, op1(ar.ops[at]?, t(b)?, t(k1)?))
            }
            Op::WidenNeg(left) => {
                let op = ar.ops[at]?;
                if *left {
                    !op1(op, t(ar.kids.get(k0)?[0])?, t(k1)?)
                } else {
                    !op1(op, t(k0)?, t(ar.kids.get(k1)?[0])?)
                }
            }
            Op::NarrowNeg(left) => {
                let [a, b] = *ar.kids.get(k0)?;
                let op = ar.ops[k0]?;
                if *left {
                    op1(op, !t(a)?, t(b)?)
                } else {
                    op1(op, t(a)?, !t(b)?)
                }
            }
            Op::ChainSwap(o2, left) => {
                let op = ar.ops[at]?;
                if *left {
                    let [a, b] = *ar.kids.get(k0)?;
                    op1(op, t(a)?, op1(*o2, t(b)?, t(k1)?))
                } else {
                    let [b, c] = *ar.kids.get(k1)?;
                    op1(op, op1(*o2, t(k0)?, t(b)?), t(c)?)
                }
            }
            Op::Add(o, i) => op1(*o, t(at)?, self.operands.get(*i)?.as_ref()?[0]),
            Op::RenameProp(i) => self.props.get(*i)?.as_ref()?[0],
            _ => return None,
        })
    }

    /// The edited node's new table, from its children's.
    fn edited(&self, ar: &Arena, e: &Edit) -> Option<Vec<u64>> {
        let at = e.at;
        let t = |i: usize| ar.tables.get(i);
        let [k0, k1] = *ar.kids.get(at)?;
        Some(match &e.op {
            Op::Negate => {
                let mut x = t(at)?.to_vec();
                not(&mut x);
                x
            }
            Op::Unnegate => t(k0)?.to_vec(),
            Op::Connective(o) => {
                let mut x = t(k0)?.to_vec();
                combine(*o, &mut x, t(k1)?);
                x
            }
            Op::SwapOperands => {
                let mut x = t(k1)?.to_vec();
                combine(ar.ops[at]?, &mut x, t(k0)?);
                x
            }
            Op::Keep(left) => t(if *left { k0 } else { k1 })?.to_vec(),
            Op::RegroupLeft => {
                // a op (b op2 c) → (a op b) op2 c
                let [b, c] = *ar.kids.get(k1)?;
                let mut x = t(k0)?.to_vec();
                combine(ar.ops[at]?, &mut x, t(b)?);
                combine(ar.ops[k1]?, &mut x, t(c)?);
                x
            }
            Op::RegroupRight => {
                // (a op2 b) op c → a op2 (b op c)
                let [a, b] = *ar.kids.get(k0)?;
                let mut inner = t(b)?.to_vec();
                combine(ar.ops[at]?, &mut inner, t(k1)?);
                let mut x = t(a)?.to_vec();
                combine(ar.ops[k0]?, &mut x, &inner);
                x
            }
            Op::FlipBool => {
                let mut x = t(at)?.to_vec();
                not(&mut x);
                x
            }
            Op::WidenNeg(left) => {
                // ¬a op b → ¬(a op b): `a` is the negated child's child.
                let op = ar.ops[at]?;
                let (mut x, y) = if *left {
                    (t(ar.kids.get(k0)?[0])?.to_vec(), t(k1)?)
                } else {
                    (t(k0)?.to_vec(), t(ar.kids.get(k1)?[0])?)
                };
                combine(op, &mut x, y);
                not(&mut x);
                x
            }
            Op::NarrowNeg(left) => {
                let [a, b] = *ar.kids.get(k0)?;
                let op = ar.ops[k0]?;
                let mut x = t(a)?.to_vec();
                if *left {
                    not(&mut x);
                    combine(op, &mut x, t(b)?);
                } else {
                    let mut y = t(b)?.to_vec();
                    not(&mut y);
                    combine(op, &mut x, &y);
                }
                x
            }
            Op::ChainSwap(o2, left) => {
                let op = ar.ops[at]?;
                if *left {
                    // (a op b) op c → a op (b o2 c)
                    let [a, b] = *ar.kids.get(k0)?;
                    let mut inner = t(b)?.to_vec();
                    combine(*o2, &mut inner, t(k1)?);
                    let mut x = t(a)?.to_vec();
                    combine(op, &mut x, &inner);
                    x
                } else {
                    // a op (b op c) → (a o2 b) op c
                    let [b, c] = *ar.kids.get(k1)?;
                    let mut x = t(k0)?.to_vec();
                    combine(*o2, &mut x, t(b)?);
                    combine(op, &mut x, t(c)?);
                    x
                }
            }
            Op::Add(o, i) => {
                let mut x = t(at)?.to_vec();
                combine(*o, &mut x, self.operands.get(*i)?.as_ref()?);
                x
            }
            Op::RenameProp(i) => self.props.get(*i)?.as_ref()?.clone(),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::proof::logic::{apply, edits};
    use crate::syntax::{Expr, SyntaxKind, parse};

    fn pl(t: &str) -> Formula {
        match parse(t, SyntaxKind::Pl) {
            Ok(Expr::Logic(f)) => f,
            other => panic!("{t}: {other:?}"),
        }
    }

    /// Every edit of φ₀ (and of edited φ₀s, as the two-edit search sees) is screened
    /// exactly as the built candidate's whole table would be: one word, several words
    /// and sampled rows.
    #[test]
    fn edit_tables_agree_with_the_built_candidate() {
        let pairs = [
            ("(p1 ∧ p2) ∨ ¬(p3 → p1)", "(p1 ∨ p2) ∨ ¬(p3 → p1)"),
            (
                "((p1 ↔ p2) ⊕ (p3 ∧ ¬p4)) → (p5 ∨ (p6 ∧ p7)) ∧ ¬p8",
                "((p1 ↔ p2) ⊕ (p3 ∨ ¬p4)) → (p5 ∨ (¬p6 ∧ p7)) ∧ ¬p8",
            ),
            (
                "(p1 ∧ p2 ∧ p3) ∨ (p4 ∧ p5 ∧ p6) ∨ (p7 ∧ p8 ∧ p9) ∨ (p10 ∧ p11 ∧ p12) ∨ (p13 → p14)",
                "(p1 ∧ p2 ∧ p3) ∨ (p4 ∧ ¬p5 ∧ p6) ∨ (p7 ∧ p8 ∧ p9) ∨ (p10 ∨ p11 ∧ p12) ∨ (p14 → p13)",
            ),
        ];
        let (mut checked, mut passed, mut pruned) = (0, 0, 0);
        for (a, b) in pairs {
            let (a, b) = (pl(a), pl(b));
            let pool = Pool::new(&a, &b);
            let s = PlScreen::new(&a, &b, &pool).unwrap();
            let mut formulas = vec![a.clone(), b.clone()];
            for e in edits(&a, &pool).iter().step_by(5) {
                formulas.extend(apply(&a, e, &pool));
            }
            for f in &formulas {
                let ar = s.arena(f).unwrap();
                let covering = s.covering(&ar);
                for e in edits(f, &pool) {
                    let slow = apply(f, &e, &pool).is_some_and(|g| s.agrees(&g));
                    assert_eq!(s.edit_agrees(&ar, &e), slow, "{f:?} {e:?}");
                    // An edit the countermodel rows prune never agrees.
                    assert!(covering[e.at] || !slow, "pruned {f:?} {e:?}");
                    pruned += usize::from(!covering[e.at]);
                    checked += 1;
                    passed += usize::from(slow);
                }
            }
        }
        assert!(
            checked > 5_000 && passed > 10 && pruned > checked / 4,
            "{checked} edits, {passed} passed, {pruned} pruned"
        );
    }
}
