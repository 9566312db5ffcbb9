//! The first-order screen: a candidate's values on a few small random models (and
//! models where φ₀ and φ₁ differ, checked first). An edit is screened without
//! building the candidate: the values of every node outside any quantifier's scope
//! are kept as bits (one per model), the edited region is evaluated alone, and its
//! new bits are combined up the path to the root, as the PL screen does with rows.

use super::logic::{Edit, Op, Pool, apply};
use super::screen::{Rand, op1};
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use std::collections::BTreeMap;

/// Random models a first-order candidate is evaluated on.
const MODELS: usize = 64;
/// The models an edit is checked on first (bits of the first word): most candidates
/// already fail on the first models where φ₀ and φ₁ differ.
const FIRST: u64 = 0xF;

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
                op.apply(x, || self.eval(b, env))
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
    /// φ₁'s values as bits (bit i of word i / 64: model i).
    bits: Vec<u64>,
    /// Each pool operand's values (at no bound variable) as bits.
    operands: Vec<Vec<u64>>,
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
        let mut s = FolScreen {
            models: first,
            target,
            bits: Vec::new(),
            operands: Vec::new(),
        };
        s.bits = s.values(b);
        s.operands = pool.operands.iter().map(|f| s.values(f)).collect();
        s
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

/// Countermodels the verifier returned for candidates it refuted, with φ₁'s value on
/// each: a later candidate that takes another value on one is refuted without asking
/// the verifier again (the screen's models are random; these are where the screen
/// was wrong).
pub(crate) struct Learned {
    models: Vec<(Model, bool)>,
    names: Vec<String>,
    rng: Rand,
}

impl Learned {
    /// No countermodel learned yet, for explaining φ₁ = `b` from `a`.
    pub fn new(a: &Formula, b: &Formula, pool: &Pool) -> Learned {
        let mut free: Vec<String> = a.free_variables().into_iter().collect();
        free.extend(b.free_variables());
        let names = pool.consts.iter().chain(&free).cloned().collect();
        Learned {
            models: Vec::new(),
            names,
            rng: Rand::new(0x2545_F491_4F6C_DD1D),
        }
    }

    /// Keeps the verifier's countermodel for a refuted candidate (φ₁ is `b`).
    pub fn learn(&mut self, c: &crate::verify::Countermodel, b: &Formula, pool: &Pool) {
        if let Some(fm) = crate::verify::model::FiniteModel::from_countermodel(c) {
            let m = from_finite(&fm, pool, &self.names, &mut self.rng);
            let t = m.eval(b, &mut Vec::new());
            self.models.push((m, t));
        }
    }

    /// Whether a learned countermodel shows `g` is not equivalent to φ₁.
    pub fn refutes(&self, g: &Formula) -> bool {
        let mut env = Vec::new();
        self.models.iter().any(|(m, t)| m.eval(g, &mut env) != *t)
    }
}

/// What a node outside every quantifier's scope is, for combining its bits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Not,
    Bin(BinOp),
    /// An atom, a constant or a quantified formula: evaluated whole.
    Leaf,
}

/// The bits of every node of one formula outside any quantifier's scope, in
/// pre-order; a node inside a scope refers to its region (the outermost quantified
/// formula around it), which an edit there re-evaluates.
pub(crate) struct FolArena<'a> {
    nodes: Vec<&'a Formula>,
    bits: Vec<Vec<u64>>,
    parent: Vec<usize>,
    kids: Vec<[usize; 2]>,
    shape: Vec<Shape>,
    region: Vec<usize>,
}

impl FolScreen {
    /// Words of bits: one bit per model.
    fn words(&self) -> usize {
        self.models.len().div_ceil(64)
    }

    /// `f`'s values on every model (no bound variable), as bits.
    fn values(&self, f: &Formula) -> Vec<u64> {
        (0..self.words()).map(|w| self.word(f, w)).collect()
    }

    /// `f`'s values on models 64w..64w+63 as one word.
    fn word(&self, f: &Formula, w: usize) -> u64 {
        self.bits_in(f, w, u64::MAX)
    }

    /// `f`'s values on the models of word `w` that `mask` selects (other bits 0).
    fn bits_in(&self, f: &Formula, w: usize, mask: u64) -> u64 {
        let mut env = Vec::new();
        self.models
            .iter()
            .skip(w * 64)
            .take(64)
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .fold(0, |acc, (i, m)| acc | (u64::from(m.eval(f, &mut env)) << i))
    }

    /// The parts of the bits an edit is checked on, in order: the first models (where
    /// φ₀ and φ₁ differ, when found) alone, then the rest of each word.
    fn chunks(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let n = self.models.len();
        (0..self.words()).flat_map(move |w| {
            let all = if (w + 1) * 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n % 64)) - 1
            };
            let first = if w == 0 { all & FIRST } else { 0 };
            [(w, first), (w, all & !first)]
                .into_iter()
                .filter(|(_, m)| *m != 0)
        })
    }

    /// The node bits of `f`.
    pub fn arena<'a>(&self, f: &'a Formula) -> FolArena<'a> {
        fn go<'a>(
            s: &FolScreen,
            f: &'a Formula,
            parent: usize,
            inside: Option<usize>,
            ar: &mut FolArena<'a>,
        ) -> usize {
            let at = ar.nodes.len();
            ar.nodes.push(f);
            ar.bits.push(Vec::new());
            ar.parent.push(parent);
            ar.kids.push([usize::MAX; 2]);
            ar.shape.push(Shape::Leaf);
            ar.region.push(inside.unwrap_or(at));
            if let Some(r) = inside {
                match f {
                    Formula::Not(a) | Formula::Quant(_, _, a) => {
                        go(s, a, at, Some(r), ar);
                    }
                    Formula::Bin(_, a, b) => {
                        go(s, a, at, Some(r), ar);
                        go(s, b, at, Some(r), ar);
                    }
                    _ => {}
                }
                return at;
            }
            let bits = match f {
                Formula::Not(a) => {
                    let k = go(s, a, at, None, ar);
                    ar.kids[at][0] = k;
                    ar.shape[at] = Shape::Not;
                    ar.bits[k].iter().map(|x| !x).collect()
                }
                Formula::Bin(op, a, b) => {
                    let k0 = go(s, a, at, None, ar);
                    let k1 = go(s, b, at, None, ar);
                    ar.kids[at] = [k0, k1];
                    ar.shape[at] = Shape::Bin(*op);
                    ar.bits[k0]
                        .iter()
                        .zip(&ar.bits[k1])
                        .map(|(x, y)| op1(*op, *x, *y))
                        .collect()
                }
                Formula::Quant(_, _, body) => {
                    go(s, body, at, Some(at), ar);
                    s.values(f)
                }
                _ => s.values(f),
            };
            ar.bits[at] = bits;
            at
        }
        let mut ar = FolArena {
            nodes: Vec::new(),
            bits: Vec::new(),
            parent: Vec::new(),
            kids: Vec::new(),
            shape: Vec::new(),
            region: Vec::new(),
        };
        go(self, f, usize::MAX, None, &mut ar);
        ar
    }

    /// Whether the edit of the arena's formula takes φ₁'s value on every model: the
    /// same answer as evaluating the edited formula, one word of models at a time
    /// (the models where φ₀ and φ₁ differ come first: most candidates fail there).
    pub fn edit_agrees(&self, ar: &FolArena<'_>, e: &Edit, pool: &Pool) -> bool {
        let Some(&root) = ar.region.get(e.at) else {
            return false;
        };
        let fast = root == e.at && self.local_word(ar, e, 0).is_some();
        // Edits the bits cannot express rebuild the region alone (never the whole
        // formula unless the region is the root).
        let region = if fast {
            None
        } else {
            let sub = ar.nodes[root];
            let local = Edit {
                at: e.at - root,
                op: e.op.clone(),
            };
            match apply(sub, &local, pool) {
                Some(g) => Some(g),
                None => return false,
            }
        };
        for (w, mask) in self.chunks() {
            let cur = match &region {
                Some(g) => self.bits_in(g, w, mask),
                None => match self.local_word(ar, e, w) {
                    Some(x) => x,
                    None => return false,
                },
            };
            if (up(ar, root, cur, w) ^ self.bits[w]) & mask != 0 {
                return false;
            }
        }
        true
    }

    /// Per node of the arena's formula, whether an edit there can change the formula's
    /// value on every model where it and φ₁ differ (as [`super::screen::PlScreen::covering`]):
    /// a node inside a quantifier's scope changes only its region, so the region's
    /// sensitivity decides.
    pub fn covering(&self, ar: &FolArena<'_>) -> Vec<bool> {
        let n = self.models.len();
        let words = self.words();
        let regions: Vec<bool> = (0..ar.nodes.len())
            .map(|i| {
                ar.region[i] != i
                    || (0..words).all(|w| {
                        let all = if (w + 1) * 64 <= n {
                            u64::MAX
                        } else {
                            (1u64 << (n % 64)) - 1
                        };
                        let diff = (ar.bits[0][w] ^ self.bits[w]) & all;
                        let sensitive = up(ar, i, u64::MAX, w) ^ up(ar, i, 0, w);
                        diff & !sensitive == 0
                    })
            })
            .collect();
        ar.region.iter().map(|r| regions[*r]).collect()
    }

    /// Word `w` of the edited node's bits for the edits a node outside every scope
    /// takes from its children's bits (None: not one of them, or it does not apply).
    fn local_word(&self, ar: &FolArena<'_>, e: &Edit, w: usize) -> Option<u64> {
        let at = e.at;
        let t = |i: usize| ar.bits.get(i).and_then(|v| v.get(w)).copied();
        let [k0, k1] = *ar.kids.get(at)?;
        Some(match (&e.op, ar.shape[at]) {
            (Op::Negate, _) => !t(at)?,
            (Op::Unnegate, Shape::Not) => t(k0)?,
            (Op::Connective(o), Shape::Bin(_)) => op1(*o, t(k0)?, t(k1)?),
            (Op::SwapOperands, Shape::Bin(op)) => op1(op, t(k1)?, t(k0)?),
            (Op::Keep(left), Shape::Bin(_)) => t(if *left { k0 } else { k1 })?,
            (Op::Add(o, i), _) => op1(*o, t(at)?, *self.operands.get(*i)?.get(w)?),
            _ => return None,
        })
    }
}

/// `cur` (word `w` of node `at`'s new bits) combined up the path to the root.
fn up(ar: &FolArena<'_>, mut at: usize, mut cur: u64, w: usize) -> u64 {
    while let Some(&p) = ar.parent.get(at) {
        if p == usize::MAX {
            break;
        }
        cur = match ar.shape[p] {
            Shape::Bin(op) => {
                let [a, b] = ar.kids[p];
                if a == at {
                    op1(op, cur, ar.bits[b][w])
                } else {
                    op1(op, ar.bits[a][w], cur)
                }
            }
            Shape::Not => !cur,
            // A quantified formula's body is inside its scope: never a parent here.
            Shape::Leaf => break,
        };
        at = p;
    }
    cur
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::proof::logic::edits;
    use crate::syntax::{Expr, SyntaxKind, parse};

    fn fol(t: &str) -> Formula {
        match parse(t, SyntaxKind::Fol) {
            Ok(Expr::Logic(f)) => f,
            other => panic!("{t}: {other:?}"),
        }
    }

    /// Every edit of φ₀ (and of one edited φ₀, as the two-edit search sees) is
    /// screened exactly as evaluating the built candidate on every model would.
    #[test]
    fn edit_bits_agree_with_the_built_candidate() {
        let pairs = [
            (
                "∀x1.(P(x1) → ∃x2.R(x1,x2)) ∧ ¬Q(c1)",
                "∀x1.(P(x1) ∧ ∃x2.R(x2,x1)) ∨ Q(c1)",
            ),
            (
                "(¬pred3(p10) ∧ pred1(p3,p7)) ∨ ¬(¬pred7(p5,p2) ∨ pred6(p5,p2))",
                "(¬pred3(p10) ∨ pred1(p3,p7)) ∨ (pred7(p5,p2) ∧ ¬pred6(p5,p2))",
            ),
            (
                "∃x1.∀x2.(P(x1) ↔ R(x2,c1)) ⊕ Q(c2)",
                "¬∀x2.∃x1.(P(x1) ↔ R(x2,c1))",
            ),
            ("P(x1) → (Q(c1) ∧ ∀x2.R(x1,x2))", "Q(c1) ∨ ¬P(x1)"),
        ];
        let (mut checked, mut passed, mut pruned) = (0, 0, 0);
        for (a, b) in pairs {
            let (a, b) = (fol(a), fol(b));
            let pool = Pool::new(&a, &b);
            let s = FolScreen::new(&a, &b, &pool, || None);
            let mut formulas = vec![a.clone()];
            for e in edits(&a, &pool).iter().step_by(7) {
                formulas.extend(apply(&a, e, &pool));
            }
            for f in &formulas {
                let ar = s.arena(f);
                let covering = s.covering(&ar);
                for e in edits(f, &pool) {
                    let slow = apply(f, &e, &pool).is_some_and(|g| s.agrees(&g));
                    assert_eq!(s.edit_agrees(&ar, &e, &pool), slow, "{f:?} {e:?}");
                    // An edit the distinguishing models prune never agrees.
                    assert!(covering[e.at] || !slow, "pruned {f:?} {e:?}");
                    pruned += usize::from(!covering[e.at]);
                    checked += 1;
                    passed += usize::from(slow);
                }
            }
        }
        assert!(
            checked > 2_000 && passed > 0 && pruned > checked / 10,
            "{checked} edits, {passed} passed, {pruned} pruned"
        );
    }
}
