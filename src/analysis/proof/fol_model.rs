//! The first-order screen's small models: drawn as maps keyed by symbol name (the
//! draw order is part of what the screen answers), then turned into dense arrays
//! indexed by symbol number, on which formulas compiled once (names resolved to
//! numbers, variables to quantifier levels) are evaluated without a string compare.

use super::logic::Pool;
use super::screen::Rand;
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

/// One random finite structure, keyed by symbol name.
#[derive(Clone)]
pub(super) struct Model {
    pub size: usize,
    pub props: BTreeMap<String, bool>,
    pub preds: BTreeMap<String, Vec<(usize, Vec<bool>)>>,
    pub names: BTreeMap<String, usize>,
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

    /// `f`'s value (the reference semantics [`Prog::eval`] keeps).
    pub fn eval<'a>(&self, f: &'a Formula, env: &mut Vec<(&'a str, usize)>) -> bool {
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

/// Largest tuple table drawn for one predicate (domain^arity entries).
const MAX_TUPLES: usize = 1 << 12;

/// Random model `i`: sizes and densities vary with `i`.
pub(super) fn random_model(i: usize, pool: &Pool, names: &[String], rng: &mut Rand) -> Model {
    let mut props = BTreeMap::new();
    let mut preds: BTreeMap<String, Vec<(usize, Vec<bool>)>> = BTreeMap::new();
    let mut named = BTreeMap::new();
    let size = draw(
        i,
        pool,
        names,
        rng,
        |p, v| {
            if let Some(p) = pool.props.get(p) {
                props.insert(p.clone(), v);
            }
        },
        |p, arity, ext| {
            if let Some((p, _)) = pool.preds.get(p) {
                let e = preds.entry(p.clone()).or_default();
                if !e.iter().any(|(a, _)| *a == arity) {
                    e.push((arity, ext));
                }
            }
        },
        |c, v| {
            if let Some(c) = names.get(c) {
                named.insert(c.clone(), v);
            }
        },
    );
    Model {
        size,
        props,
        preds,
        names: named,
    }
}

/// Draws random model `i`, handing each proposition's value (by pool index), each
/// predicate's table (pool index, arity) and each name's element (index in `names`)
/// to the sinks; returns the domain size. The one draw order [`random_model`] and
/// [`Symbols::random`] share, so both give the same model.
fn draw(
    i: usize,
    pool: &Pool,
    names: &[String],
    rng: &mut Rand,
    mut prop: impl FnMut(usize, bool),
    mut pred: impl FnMut(usize, usize, Vec<bool>),
    mut name: impl FnMut(usize, usize),
) -> usize {
    let size: usize = [1, 2, 3, 2, 3, 4][i % 6];
    // Varying densities make rare and common predicates both show up, so a formula
    // under ∀∀∃ is not false (or true) on every model.
    let density = [1u64, 3, 4, 5, 7][i % 5];
    let coin = |r: &mut Rand| r.next() % 8 < density;
    for j in 0..pool.props.len() {
        prop(j, coin(rng));
    }
    for (j, (_, k)) in pool.preds.iter().enumerate() {
        for arity in k.saturating_sub(1)..=k + 1 {
            let n = size
                .checked_pow(arity as u32)
                .unwrap_or(usize::MAX)
                .min(MAX_TUPLES);
            pred(j, arity, (0..n).map(|_| coin(rng)).collect());
        }
    }
    for j in 0..names.len() {
        name(j, rng.below(size));
    }
    size
}

/// The verifier's countermodel as a screening model (symbols it leaves out random).
pub(super) fn from_finite(
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

/// Symbol numbers: every name some model gives a value to.
#[derive(Default)]
pub(super) struct Symbols {
    props: HashMap<String, usize>,
    preds: HashMap<String, usize>,
    names: HashMap<String, usize>,
}

fn number(map: &mut HashMap<String, usize>, name: &str) {
    let n = map.len();
    if !map.contains_key(name) {
        map.insert(name.to_string(), n);
    }
}

impl Symbols {
    /// The symbols every random model draws: the pool's and `names`.
    pub fn from_pool(pool: &Pool, names: &[String]) -> Symbols {
        let mut s = Symbols::default();
        for p in &pool.props {
            number(&mut s.props, p);
        }
        for (p, _) in &pool.preds {
            number(&mut s.preds, p);
        }
        for c in names {
            number(&mut s.names, c);
        }
        s
    }

    /// Numbers the symbols of `m` not numbered yet (earlier numbers stay).
    pub fn add(&mut self, m: &Model) {
        for p in m.props.keys() {
            number(&mut self.props, p);
        }
        for p in m.preds.keys() {
            number(&mut self.preds, p);
        }
        for c in m.names.keys() {
            number(&mut self.names, c);
        }
    }

    /// `m` as arrays indexed by these numbers (a symbol `m` lacks: false, or element 0).
    pub fn dense(&self, m: &Model) -> Dense {
        let mut d = Dense {
            size: m.size,
            props: vec![false; self.props.len()],
            preds: vec![Vec::new(); self.preds.len()],
            names: vec![0; self.names.len()],
        };
        for (p, v) in &m.props {
            if let Some(x) = self.props.get(p).and_then(|&i| d.props.get_mut(i)) {
                *x = *v;
            }
        }
        for (p, v) in &m.preds {
            if let Some(x) = self.preds.get(p).and_then(|&i| d.preds.get_mut(i)) {
                x.clone_from(v);
            }
        }
        for (c, v) in &m.names {
            if let Some(x) = self.names.get(c).and_then(|&i| d.names.get_mut(i)) {
                *x = *v;
            }
        }
        d
    }

    /// [`random_model`] drawn straight into arrays (what `self.dense` of it gives, when
    /// its symbols are numbered).
    pub fn random(&self, i: usize, pool: &Pool, names: &[String], rng: &mut Rand) -> Dense {
        let mut d = Dense {
            size: 1,
            props: vec![false; self.props.len()],
            preds: vec![Vec::new(); self.preds.len()],
            names: vec![0; self.names.len()],
        };
        let num =
            |map: &HashMap<String, usize>, n: Option<&String>| n.and_then(|n| map.get(n)).copied();
        d.size = draw(
            i,
            pool,
            names,
            rng,
            |p, v| {
                if let Some(x) =
                    num(&self.props, pool.props.get(p)).and_then(|p| d.props.get_mut(p))
                {
                    *x = v;
                }
            },
            |p, arity, ext| {
                let at = num(&self.preds, pool.preds.get(p).map(|(p, _)| p));
                if let Some(e) = at.and_then(|p| d.preds.get_mut(p))
                    && !e.iter().any(|(a, _)| *a == arity)
                {
                    e.push((arity, ext));
                }
            },
            |c, v| {
                if let Some(x) = num(&self.names, names.get(c)).and_then(|c| d.names.get_mut(c)) {
                    *x = v;
                }
            },
        );
        d
    }

    /// `f` compiled: `scope` lists the variables bound around it, outermost first.
    pub fn compile(&self, f: &Formula, scope: &[&str]) -> Prog {
        let mut p = Prog {
            nodes: Vec::new(),
            terms: Vec::new(),
        };
        let mut scope: Vec<&str> = scope.to_vec();
        self.node(f, &mut scope, &mut p);
        p
    }

    fn node<'a>(&self, f: &'a Formula, scope: &mut Vec<&'a str>, p: &mut Prog) -> usize {
        let at = p.nodes.len();
        p.nodes.push(Node::Bool(false));
        let node = match f {
            Formula::Bool(b) => Node::Bool(*b),
            Formula::Prop(x) => Node::Prop(self.props.get(x.as_str()).copied()),
            Formula::Pred(x, args) => {
                let start = p.terms.len();
                for t in args {
                    let n = t.name();
                    // By name, whatever the term's kind, as [`Model::eval`] reads it.
                    let t = match scope.iter().rposition(|v| *v == n) {
                        Some(level) => T::Level(level),
                        None => self.names.get(n).map_or(T::Zero, |&i| T::Name(i)),
                    };
                    p.terms.push(t);
                }
                Node::Pred(self.preds.get(x.as_str()).copied(), start, args.len())
            }
            Formula::Not(a) => Node::Not(self.node(a, scope, p)),
            Formula::Bin(op, a, b) => {
                let x = self.node(a, scope, p);
                Node::Bin(*op, x, self.node(b, scope, p))
            }
            Formula::Quant(q, v, body) => {
                scope.push(v.as_str());
                let x = self.node(body, scope, p);
                scope.pop();
                Node::Quant(*q == Quantifier::Forall, x)
            }
        };
        p.nodes[at] = node;
        at
    }
}

/// A model as arrays indexed by symbol number.
pub(super) struct Dense {
    pub size: usize,
    props: Vec<bool>,
    /// Per predicate name, its tables by arity.
    preds: Vec<Vec<(usize, Vec<bool>)>>,
    names: Vec<usize>,
}

/// A compiled term.
#[derive(Clone, Copy)]
enum T {
    /// The variable bound at this quantifier level (0: outermost).
    Level(usize),
    /// A named element.
    Name(usize),
    /// A name no model knows (element 0).
    Zero,
}

/// A compiled formula node.
#[derive(Clone, Copy)]
enum Node {
    Bool(bool),
    Prop(Option<usize>),
    /// Predicate number, first term, arity.
    Pred(Option<usize>, usize, usize),
    Not(usize),
    Bin(BinOp, usize, usize),
    /// ∀ (true) or ∃, body.
    Quant(bool, usize),
}

/// A formula compiled against [`Symbols`] (root at node 0).
pub(super) struct Prog {
    nodes: Vec<Node>,
    terms: Vec<T>,
}

impl Prog {
    /// The value on `m` with the enclosing variables at `env` (one element per level).
    pub fn eval(&self, m: &Dense, env: &mut Vec<usize>) -> bool {
        self.at(0, m, env)
    }

    fn at(&self, i: usize, m: &Dense, env: &mut Vec<usize>) -> bool {
        match self.nodes.get(i) {
            None => false,
            Some(Node::Bool(b)) => *b,
            Some(Node::Prop(p)) => p.and_then(|p| m.props.get(p)).copied().unwrap_or(false),
            Some(Node::Pred(p, start, len)) => {
                let Some(ext) = p
                    .and_then(|p| m.preds.get(p))
                    .and_then(|v| v.iter().find(|(k, _)| k == len))
                else {
                    return false;
                };
                let terms = self.terms.get(*start..start + len).unwrap_or(&[]);
                let idx = terms.iter().fold(0, |i, t| {
                    let e = match t {
                        T::Level(l) => env.get(*l).copied().unwrap_or(0),
                        T::Name(n) => m.names.get(*n).copied().unwrap_or(0),
                        T::Zero => 0,
                    };
                    i * m.size + e
                });
                ext.1.get(idx).copied().unwrap_or(false)
            }
            Some(Node::Not(a)) => !self.at(*a, m, env),
            Some(Node::Bin(op, a, b)) => {
                let x = self.at(*a, m, env);
                op.apply(x, || self.at(*b, m, env))
            }
            Some(Node::Quant(all, body)) => {
                for e in 0..m.size {
                    env.push(e);
                    let val = self.at(*body, m, env);
                    env.pop();
                    if val != *all {
                        return !all;
                    }
                }
                *all
            }
        }
    }

    /// The values at every assignment of `depth` enclosing variables (outermost
    /// variable the most significant digit), appended to `out`.
    pub fn table(&self, m: &Dense, depth: usize, out: &mut Vec<bool>) {
        let mut env = vec![0; depth];
        loop {
            out.push(self.eval(m, &mut env));
            // The next assignment, as an odometer (the innermost variable fastest).
            let mut k = depth;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                env[k] += 1;
                if env[k] < m.size {
                    break;
                }
                env[k] = 0;
            }
        }
    }
}
