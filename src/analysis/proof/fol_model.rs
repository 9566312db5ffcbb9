//! The first-order screen's small models: drawn in one order (part of what the screen
//! answers) as maps keyed by symbol name, or straight into arrays indexed by symbol
//! number (the pool's symbols resolved once per screen, see [`Layout`]), on which
//! formulas compiled once are evaluated without a string compare ([`prog`]).
use super::logic::Pool;
use super::screen::Rand;
use crate::syntax::{Formula, Quantifier, Term};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

mod prog;
mod skip;
pub(super) use prog::{Dense, Prog};

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
    let mut sink = Maps {
        pool,
        names,
        m: Model {
            size: 1,
            props: BTreeMap::new(),
            preds: BTreeMap::new(),
            names: BTreeMap::new(),
        },
    };
    let arities = pool.preds.iter().map(|(_, k)| *k);
    sink.m.size = draw(i, pool.props.len(), arities, names.len(), rng, &mut sink);
    sink.m
}

/// Where a random model's draws go.
trait Sink {
    /// Proposition `j` of the pool.
    fn prop(&mut self, j: usize, v: bool);
    /// Where the `slot`-th table drawn (pool predicate `j` at `arity`, `n` entries)
    /// is written; `None`: drawn and dropped.
    fn table(&mut self, slot: usize, j: usize, arity: usize, n: usize) -> Option<&mut [bool]>;
    /// Name `j` (an index in the names drawn).
    fn name(&mut self, j: usize, e: usize);
}

/// A model drawn as maps keyed by symbol name.
struct Maps<'a> {
    pool: &'a Pool,
    names: &'a [String],
    m: Model,
}

impl Sink for Maps<'_> {
    fn prop(&mut self, j: usize, v: bool) {
        if let Some(p) = self.pool.props.get(j) {
            self.m.props.insert(p.clone(), v);
        }
    }

    fn table(&mut self, _: usize, j: usize, arity: usize, n: usize) -> Option<&mut [bool]> {
        let (p, _) = self.pool.preds.get(j)?;
        let e = self.m.preds.entry(p.clone()).or_default();
        // A name the pool lists at two arities: the first table drawn at an arity stays.
        if e.iter().any(|(a, _)| *a == arity) {
            return None;
        }
        e.push((arity, vec![false; n]));
        e.last_mut().map(|(_, t)| t.as_mut_slice())
    }

    fn name(&mut self, j: usize, e: usize) {
        if let Some(c) = self.names.get(j) {
            self.m.names.insert(c.clone(), e);
        }
    }
}

/// Draws random model `i` over `props` propositions, one predicate per arity in
/// `arities` (its tables at one less, that, and one more) and `names` names into
/// `sink`; returns the domain size. The one draw order [`random_model`] and
/// [`Layout::draw`] share, so both give the same model: every random number is
/// consumed whatever the sink keeps.
fn draw(
    i: usize,
    props: usize,
    arities: impl IntoIterator<Item = usize>,
    names: usize,
    rng: &mut Rand,
    sink: &mut impl Sink,
) -> usize {
    let size: usize = [1, 2, 3, 2, 3, 4][i % 6];
    // Varying densities make rare and common predicates both show up, so a formula
    // under ∀∀∃ is not false (or true) on every model.
    let density = [1u64, 3, 4, 5, 7][i % 5];
    let coin = |r: &mut Rand| r.next() % 8 < density;
    for j in 0..props {
        let v = coin(rng);
        sink.prop(j, v);
    }
    let mut slot = 0;
    // Numbers of tables dropped, skipped at once before the next number kept.
    let mut dropped = 0;
    for (j, k) in arities.into_iter().enumerate() {
        for arity in k.saturating_sub(1)..=k + 1 {
            let n = size
                .checked_pow(arity as u32)
                .unwrap_or(usize::MAX)
                .min(MAX_TUPLES);
            if let Some(t) = sink.table(slot, j, arity, n) {
                skip::skip(rng, std::mem::take(&mut dropped));
                let t = t.iter_mut().take(n);
                dropped += n - t.len();
                for x in t {
                    *x = coin(rng);
                }
            } else {
                dropped += n;
            }
            slot += 1;
        }
    }
    skip::skip(rng, dropped);
    for j in 0..names {
        // `rng.below(size)`, the divisor a constant for the sizes drawn.
        let x = rng.next();
        let e = match size {
            1 => 0,
            2 => x % 2,
            3 => x % 3,
            4 => x % 4,
            _ => x % size as u64,
        };
        sink.name(j, e as usize);
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

/// Symbol numbers: every name some model gives a value to, and every predicate
/// table (a predicate at one arity).
#[derive(Default)]
pub(super) struct Symbols {
    props: HashMap<String, usize>,
    preds: HashMap<String, usize>,
    /// (predicate number, arity) → table number.
    tables: HashMap<(usize, usize), usize>,
    names: HashMap<String, usize>,
}

fn number(map: &mut HashMap<String, usize>, name: &str) -> usize {
    if let Some(&n) = map.get(name) {
        return n;
    }
    let n = map.len();
    map.insert(name.to_string(), n);
    n
}

fn number_table(map: &mut HashMap<(usize, usize), usize>, key: (usize, usize)) -> usize {
    let n = map.len();
    *map.entry(key).or_insert(n)
}

impl Symbols {
    /// The symbols every random model draws: the pool's and `names`.
    pub fn from_pool(pool: &Pool, names: &[String]) -> Symbols {
        let mut s = Symbols::default();
        for p in &pool.props {
            number(&mut s.props, p);
        }
        for (p, k) in &pool.preds {
            let p = number(&mut s.preds, p);
            for arity in k.saturating_sub(1)..=k + 1 {
                number_table(&mut s.tables, (p, arity));
            }
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
        for (p, exts) in &m.preds {
            let p = number(&mut self.preds, p);
            for (arity, _) in exts {
                number_table(&mut self.tables, (p, *arity));
            }
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
            tables: vec![(0, 0); self.tables.len()],
            bits: Vec::new(),
            names: vec![0; self.names.len()],
        };
        for (p, v) in &m.props {
            if let Some(x) = self.props.get(p).and_then(|&i| d.props.get_mut(i)) {
                *x = *v;
            }
        }
        for (p, exts) in &m.preds {
            let Some(&p) = self.preds.get(p) else {
                continue;
            };
            for (arity, ext) in exts {
                if let Some(t) = self
                    .tables
                    .get(&(p, *arity))
                    .and_then(|&t| d.tables.get_mut(t))
                {
                    *t = (d.bits.len(), ext.len());
                    d.bits.extend_from_slice(ext);
                }
            }
        }
        for (c, v) in &m.names {
            if let Some(x) = self.names.get(c).and_then(|&i| d.names.get_mut(i)) {
                *x = *v;
            }
        }
        d
    }

    /// Where [`random_model`]'s draws land in a [`Dense`] over these numbers (the
    /// pool's symbols resolved once, so a draw compares no name).
    pub fn layout(&self, pool: &Pool, names: &[String]) -> Layout {
        let mut taken = vec![false; self.tables.len()];
        let mut tables = Vec::new();
        for (p, k) in &pool.preds {
            let p = self.preds.get(p);
            for arity in k.saturating_sub(1)..=k + 1 {
                // The first table drawn at a (name, arity) stays, as in [`random_model`].
                let t = p
                    .and_then(|p| self.tables.get(&(*p, arity)))
                    .copied()
                    .filter(|t| taken.get(*t).is_some_and(|x| !x));
                if let Some(x) = t.and_then(|t| taken.get_mut(t)) {
                    *x = true;
                }
                tables.push(t);
            }
        }
        Layout {
            arities: pool.preds.iter().map(|(_, k)| *k).collect(),
            props: pool
                .props
                .iter()
                .map(|p| self.props.get(p).copied())
                .collect(),
            tables,
            names: names.iter().map(|c| self.names.get(c).copied()).collect(),
            lens: [self.props.len(), self.tables.len(), self.names.len()],
        }
    }
}

/// The pool's symbols resolved to [`Symbols`] numbers, for drawing random models
/// straight into arrays.
pub(super) struct Layout {
    /// Per pool predicate, its arity.
    arities: Vec<usize>,
    /// Per pool proposition, its number.
    props: Vec<Option<usize>>,
    /// Per table drawn (in draw order), its number; `None`: an earlier table of the
    /// draw has it.
    tables: Vec<Option<usize>>,
    /// Per name drawn, its number.
    names: Vec<Option<usize>>,
    /// How many propositions, tables and names were numbered.
    lens: [usize; 3],
}

impl Layout {
    /// [`random_model`] `i` drawn into `d` (what [`Symbols::dense`] of it gives), its
    /// arrays reused.
    pub fn draw(&self, i: usize, rng: &mut Rand, d: &mut Dense) {
        let [props, tables, names] = self.lens;
        d.props.clear();
        d.props.resize(props, false);
        d.tables.clear();
        d.tables.resize(tables, (0, 0));
        d.bits.clear();
        d.names.clear();
        d.names.resize(names, 0);
        let arities = self.arities.iter().copied();
        let mut sink = Arrays { layout: self, d };
        let size = draw(
            i,
            self.props.len(),
            arities,
            self.names.len(),
            rng,
            &mut sink,
        );
        d.size = size;
    }
}

impl Layout {
    /// This layout with only the tables `progs` read kept (the rest drawn and
    /// dropped: the random numbers consumed stay the same).
    pub fn reading(&self, progs: &[&Prog]) -> Layout {
        let mut read = vec![false; self.lens[1]];
        for t in progs.iter().flat_map(|p| p.tables()) {
            if let Some(x) = read.get_mut(t) {
                *x = true;
            }
        }
        let tables = self
            .tables
            .iter()
            .map(|t| t.filter(|t| read.get(*t).copied().unwrap_or(false)));
        Layout {
            arities: self.arities.clone(),
            props: self.props.clone(),
            tables: tables.collect(),
            names: self.names.clone(),
            lens: self.lens,
        }
    }
}

/// A model drawn into arrays.
struct Arrays<'a> {
    layout: &'a Layout,
    d: &'a mut Dense,
}

impl Sink for Arrays<'_> {
    fn prop(&mut self, j: usize, v: bool) {
        let p = self.layout.props.get(j).copied().flatten();
        if let Some(x) = p.and_then(|p| self.d.props.get_mut(p)) {
            *x = v;
        }
    }

    fn table(&mut self, slot: usize, _: usize, _: usize, n: usize) -> Option<&mut [bool]> {
        let t = self.layout.tables.get(slot).copied().flatten()?;
        let at = self.d.tables.get_mut(t)?;
        let start = self.d.bits.len();
        *at = (start, n);
        self.d.bits.resize(start + n, false);
        self.d.bits.get_mut(start..)
    }

    fn name(&mut self, j: usize, e: usize) {
        let c = self.layout.names.get(j).copied().flatten();
        if let Some(x) = c.and_then(|c| self.d.names.get_mut(c)) {
            *x = e;
        }
    }
}

#[cfg(test)]
mod tests;
