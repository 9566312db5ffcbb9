//! Cheap screening of candidate formulas before the verifier sees them: PL truth
//! tables as bitsets (every row up to `MAX_EXACT_VARS` atoms, sampled rows above),
//! FOL values on a few small random models. A candidate that disagrees with φ₁
//! anywhere here is not equivalent to it; one that agrees still needs the verifier.

use super::logic::{Edit, Op, Pool};
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use std::collections::BTreeMap;

/// Most atoms whose truth table is complete; above, `SAMPLED_WORDS` × 64 rows are drawn.
const MAX_EXACT_VARS: usize = 12;
/// Words of sampled rows for larger propositional formulas.
const SAMPLED_WORDS: usize = 64;
/// Random models a first-order candidate is evaluated on.
const MODELS: usize = 64;

/// A small deterministic generator (xorshift64*), so screening never depends on time.
pub(crate) struct Rand(u64);

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
    words: usize,
    last: u64,
    target: Vec<u64>,
    operands: Vec<Option<Vec<u64>>>,
    props: Vec<Option<Vec<u64>>>,
}

/// Truth tables of every node of one formula, in pre-order.
pub(crate) struct Arena {
    tables: Vec<Vec<u64>>,
    parent: Vec<usize>,
    kids: Vec<[usize; 2]>,
    ops: Vec<Option<BinOp>>,
}

fn combine(op: BinOp, a: &mut [u64], b: &[u64]) {
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

fn op1(op: BinOp, x: u64, y: u64) -> u64 {
    match op {
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Implies => !x | y,
        BinOp::Iff => !(x ^ y),
        BinOp::Xor => x ^ y,
    }
}

fn not(a: &mut [u64]) {
    for x in a {
        *x = !*x;
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
            let at = ar.tables.len();
            ar.tables.push(Vec::new());
            ar.parent.push(parent);
            ar.kids.push([usize::MAX; 2]);
            ar.ops.push(None);
            let t = match f {
                Formula::Not(a) => {
                    let k = go(s, a, at, ar)?;
                    ar.kids[at][0] = k;
                    let mut t = ar.tables[k].clone();
                    not(&mut t);
                    t
                }
                Formula::Bin(op, a, b) => {
                    let k0 = go(s, a, at, ar)?;
                    let k1 = go(s, b, at, ar)?;
                    ar.kids[at] = [k0, k1];
                    ar.ops[at] = Some(*op);
                    let mut t = ar.tables[k0].clone();
                    combine(*op, &mut t, &ar.tables[k1]);
                    t
                }
                _ => s.table(f)?,
            };
            ar.tables[at] = t;
            Some(at)
        }
        let mut ar = Arena {
            tables: Vec::new(),
            parent: Vec::new(),
            kids: Vec::new(),
            ops: Vec::new(),
        };
        go(self, f, usize::MAX, &mut ar)?;
        Some(ar)
    }

    /// Whether the edit of the arena's formula agrees with φ₁: the edited node's new
    /// table from its children's, then each ancestor's from its other child's. The
    /// first 64 rows are checked alone first (no allocation): most candidates fail there.
    pub fn edit_agrees(&self, ar: &Arena, e: &Edit) -> bool {
        let mask = if self.words == 1 { self.last } else { u64::MAX };
        match self.first_word(ar, e) {
            Some(w) if (w ^ self.target[0]) & mask == 0 => {}
            _ => return false,
        }
        self.words == 1 || self.edited(ar, e).is_some_and(|t| self.same(&t))
    }

    /// [`Self::edited`] on the first word of every table only.
    fn first_word(&self, ar: &Arena, e: &Edit) -> Option<u64> {
        let at = e.at;
        let t = |i: usize| ar.tables.get(i).map(|v| v[0]);
        let [k0, k1] = *ar.kids.get(at)?;
        let mut cur = match &e.op {
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
        };
        let mut node = at;
        while let Some(&p) = ar.parent.get(node) {
            if p == usize::MAX {
                break;
            }
            cur = match ar.ops[p] {
                None => !cur,
                Some(op) => {
                    let [a, b] = ar.kids[p];
                    if a == node {
                        op1(op, cur, ar.tables[b][0])
                    } else {
                        op1(op, ar.tables[a][0], cur)
                    }
                }
            };
            node = p;
        }
        Some(cur)
    }

    fn edited(&self, ar: &Arena, e: &Edit) -> Option<Vec<u64>> {
        let at = e.at;
        let t = |i: usize| ar.tables.get(i);
        let [k0, k1] = *ar.kids.get(at)?;
        let mut cur = match &e.op {
            Op::Negate => {
                let mut x = t(at)?.clone();
                not(&mut x);
                x
            }
            Op::Unnegate => t(k0)?.clone(),
            Op::Connective(o) => {
                let mut x = t(k0)?.clone();
                combine(*o, &mut x, t(k1)?);
                x
            }
            Op::SwapOperands => {
                let mut x = t(k1)?.clone();
                combine(ar.ops[at]?, &mut x, t(k0)?);
                x
            }
            Op::Keep(left) => t(if *left { k0 } else { k1 })?.clone(),
            Op::RegroupLeft => {
                // a op (b op2 c) → (a op b) op2 c
                let [b, c] = *ar.kids.get(k1)?;
                let mut x = t(k0)?.clone();
                combine(ar.ops[at]?, &mut x, t(b)?);
                combine(ar.ops[k1]?, &mut x, t(c)?);
                x
            }
            Op::RegroupRight => {
                // (a op2 b) op c → a op2 (b op c)
                let [a, b] = *ar.kids.get(k0)?;
                let mut inner = t(b)?.clone();
                combine(ar.ops[at]?, &mut inner, t(k1)?);
                let mut x = t(a)?.clone();
                combine(ar.ops[k0]?, &mut x, &inner);
                x
            }
            Op::FlipBool => {
                let mut x = t(at)?.clone();
                not(&mut x);
                x
            }
            Op::WidenNeg(left) => {
                // ¬a op b → ¬(a op b): `a` is the negated child's child.
                let op = ar.ops[at]?;
                let (mut x, y) = if *left {
                    (t(ar.kids.get(k0)?[0])?.clone(), t(k1)?)
                } else {
                    (t(k0)?.clone(), t(ar.kids.get(k1)?[0])?)
                };
                combine(op, &mut x, y);
                not(&mut x);
                x
            }
            Op::NarrowNeg(left) => {
                let [a, b] = *ar.kids.get(k0)?;
                let op = ar.ops[k0]?;
                let mut x = t(a)?.clone();
                if *left {
                    not(&mut x);
                    combine(op, &mut x, t(b)?);
                } else {
                    let mut y = t(b)?.clone();
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
                    let mut inner = t(b)?.clone();
                    combine(*o2, &mut inner, t(k1)?);
                    let mut x = t(a)?.clone();
                    combine(op, &mut x, &inner);
                    x
                } else {
                    // a op (b op c) → (a o2 b) op c
                    let [b, c] = *ar.kids.get(k1)?;
                    let mut x = t(k0)?.clone();
                    combine(*o2, &mut x, t(b)?);
                    combine(op, &mut x, t(c)?);
                    x
                }
            }
            Op::Add(o, i) => {
                let mut x = t(at)?.clone();
                combine(*o, &mut x, self.operands.get(*i)?.as_ref()?);
                x
            }
            Op::RenameProp(i) => self.props.get(*i)?.as_ref()?.clone(),
            _ => return None,
        };
        let mut node = at;
        while let Some(&p) = ar.parent.get(node) {
            if p == usize::MAX {
                break;
            }
            match ar.ops[p] {
                None => not(&mut cur),
                Some(op) => {
                    let [a, b] = ar.kids[p];
                    if a == node {
                        combine(op, &mut cur, &ar.tables[b]);
                    } else {
                        let mut x = ar.tables[a].clone();
                        combine(op, &mut x, &cur);
                        cur = x;
                    }
                }
            }
            node = p;
        }
        Some(cur)
    }
}

/// One random finite structure.
#[derive(Clone)]
struct Model {
    size: usize,
    props: BTreeMap<String, bool>,
    preds: BTreeMap<String, Vec<(usize, Vec<bool>)>>,
    names: BTreeMap<String, usize>,
}

impl Model {
    fn term<'a>(&self, t: &'a Term, env: &[(&'a str, usize)]) -> usize {
        let n = t.name();
        env.iter()
            .rev()
            .find(|(v, _)| *v == n)
            .map(|(_, e)| *e)
            .or_else(|| self.names.get(n).copied())
            .unwrap_or(0)
    }

    fn eval<'a>(&self, f: &'a Formula, env: &mut Vec<(&'a str, usize)>) -> bool {
        match f {
            Formula::Bool(b) => *b,
            Formula::Prop(p) => self.props.get(p.as_str()).copied().unwrap_or(false),
            Formula::Pred(p, args) => {
                let Some(ext) = self
                    .preds
                    .get(p.as_str())
                    .and_then(|v| v.iter().find(|(k, _)| *k == args.len()))
                else {
                    return false;
                };
                let idx = args
                    .iter()
                    .fold(0, |i, t| i * self.size + self.term(t, env));
                ext.1.get(idx).copied().unwrap_or(false)
            }
            Formula::Not(a) => !self.eval(a, env),
            Formula::Bin(op, a, b) => {
                let x = self.eval(a, env);
                match op {
                    BinOp::And => x && self.eval(b, env),
                    BinOp::Or => x || self.eval(b, env),
                    BinOp::Implies => !x || self.eval(b, env),
                    BinOp::Iff => x == self.eval(b, env),
                    BinOp::Xor => x != self.eval(b, env),
                }
            }
            Formula::Quant(q, v, body) => {
                let all = *q == Quantifier::Forall;
                for e in 0..self.size {
                    env.push((v.as_str(), e));
                    let val = self.eval(body, env);
                    env.pop();
                    if val != all {
                        return !all;
                    }
                }
                all
            }
        }
    }
}

/// First-order screen: φ₁'s value on each of a few small random models.
pub(crate) struct FolScreen {
    models: Vec<Model>,
    target: Vec<bool>,
}

/// Largest tuple table drawn for one predicate (domain^arity entries).
const MAX_TUPLES: usize = 1 << 12;

/// Random models searched for ones where φ₀ and φ₁ differ.
const PROBES: usize = 512;
/// Distinguishing models kept (checked first: a candidate must flip φ₀ there).
const DISTINGUISHING: usize = 16;

impl FolScreen {
    /// Models over the symbols of both sides (and of the arities an edit may give a
    /// predicate), with φ₁'s value on each. Models where φ₀ and φ₁ differ come first:
    /// found among random ones, else `countermodel` (the verifier's, when it has to be
    /// asked) and small perturbations of it.
    pub fn new(
        a: &Formula,
        b: &Formula,
        pool: &Pool,
        countermodel: impl FnOnce() -> Option<crate::verify::model::FiniteModel>,
    ) -> FolScreen {
        let mut rng = Rand::new(0xD1B5_4A32_D192_ED03);
        let mut free: Vec<String> = a.free_variables().into_iter().collect();
        free.extend(b.free_variables());
        let names: Vec<String> = pool.consts.iter().chain(&free).cloned().collect();
        let mut models: Vec<Model> = (0..MODELS)
            .map(|i| random_model(i, pool, &names, &mut rng))
            .collect();
        let differs = |m: &Model| m.eval(a, &mut Vec::new()) != m.eval(b, &mut Vec::new());
        let mut first: Vec<Model> = Vec::new();
        for i in 0..PROBES {
            if first.len() >= DISTINGUISHING {
                break;
            }
            let m = random_model(i + 7, pool, &names, &mut rng);
            if differs(&m) {
                first.push(m);
            }
        }
        if first.is_empty()
            && let Some(fm) = countermodel()
        {
            let base = from_finite(&fm, pool, &names, &mut rng);
            for _ in 0..DISTINGUISHING {
                let mut m = base.clone();
                // Flip a few tuples: nearby models keep most of what distinguishes.
                for ext in m.preds.values_mut().flatten() {
                    if !ext.1.is_empty() && rng.below(3) == 0 {
                        let k = rng.below(ext.1.len());
                        ext.1[k] = !ext.1[k];
                    }
                }
                if differs(&m) {
                    first.push(m);
                }
            }
            first.insert(0, base);
        }
        first.append(&mut models);
        let target = first.iter().map(|m| m.eval(b, &mut Vec::new())).collect();
        FolScreen {
            models: first,
            target,
        }
    }

    /// Whether `f` takes φ₁'s value on every model.
    pub fn agrees(&self, f: &Formula) -> bool {
        let mut env = Vec::new();
        self.models
            .iter()
            .zip(&self.target)
            .all(|(m, t)| m.eval(f, &mut env) == *t)
    }
}

/// Random model `i`: sizes and densities vary with `i`.
fn random_model(i: usize, pool: &Pool, names: &[String], rng: &mut Rand) -> Model {
    let size: usize = [1, 2, 3, 2, 3, 4][i % 6];
    // Varying densities make rare and common predicates both show up, so a formula
    // under ∀∀∃ is not false (or true) on every model.
    let density = [1u64, 3, 4, 5, 7][i % 5];
    let coin = |r: &mut Rand| r.next() % 8 < density;
    let props = pool.props.iter().map(|p| (p.clone(), coin(rng))).collect();
    let mut preds: BTreeMap<String, Vec<(usize, Vec<bool>)>> = BTreeMap::new();
    for (p, k) in &pool.preds {
        for arity in k.saturating_sub(1)..=k + 1 {
            let n = size
                .checked_pow(arity as u32)
                .unwrap_or(usize::MAX)
                .min(MAX_TUPLES);
            let ext = (0..n).map(|_| coin(rng)).collect();
            let e = preds.entry(p.clone()).or_default();
            if !e.iter().any(|(a, _)| *a == arity) {
                e.push((arity, ext));
            }
        }
    }
    let names = names.iter().map(|c| (c.clone(), rng.below(size))).collect();
    Model {
        size,
        props,
        preds,
        names,
    }
}

/// The verifier's countermodel as a screening model (symbols it leaves out random).
fn from_finite(
    fm: &crate::verify::model::FiniteModel,
    pool: &Pool,
    names: &[String],
    rng: &mut Rand,
) -> Model {
    let size = fm.size.max(1);
    let mut m = random_model(0, pool, names, rng);
    m.size = size;
    for (p, v) in &fm.propositions {
        m.props.insert(p.clone(), *v);
    }
    for exts in m.preds.values_mut() {
        for (arity, ext) in exts.iter_mut() {
            let n = size
                .checked_pow(*arity as u32)
                .unwrap_or(usize::MAX)
                .min(MAX_TUPLES);
            *ext = (0..n).map(|_| rng.next().is_multiple_of(2)).collect();
        }
    }
    for ((p, arity), tuples) in &fm.predicates {
        let n = size
            .checked_pow(*arity as u32)
            .unwrap_or(usize::MAX)
            .min(MAX_TUPLES);
        let mut ext = vec![false; n];
        for t in tuples {
            let idx = t.iter().fold(0, |i, e| i * size + e);
            if let Some(x) = ext.get_mut(idx) {
                *x = true;
            }
        }
        let e = m.preds.entry(p.clone()).or_default();
        match e.iter_mut().find(|(a, _)| a == arity) {
            Some(slot) => slot.1 = ext,
            None => e.push((*arity, ext)),
        }
    }
    for v in m.names.values_mut() {
        *v = rng.below(size);
    }
    for (c, e) in &fm.constants {
        m.names.insert(c.clone(), *e);
    }
    m
}
