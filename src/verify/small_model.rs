//! The least countermodel with exactly k elements, searched by our own evaluator:
//! symbols are given values one at a time in the order of
//! `z3_logic::least_model::canonical`, each preferred value first, and a
//! branch ends as soon as a three-valued evaluation decides both sides. Within its
//! budget the search answers what the solver would (a model of that size, and then
//! the least one, or none) at a fraction of the cost; beyond it the caller asks Z3.

use super::model::FiniteModel;
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use std::collections::{BTreeSet, HashSet};

/// Most formula nodes evaluated by one search before it gives up (about a millisecond).
const BUDGET: usize = 200_000;

/// The answer of a search that finished.
pub(super) enum Found {
    /// The least countermodel with the asked number of elements.
    Model(FiniteModel),
    /// No countermodel has that many elements.
    None,
}

/// A term: a bound variable (its depth in the quantifier stack) or a constant.
#[derive(Clone, Copy)]
enum T {
    Var(usize),
    Const(usize),
}

/// A formula over symbol indices.
enum N {
    Bool(bool),
    Prop(usize),
    Pred(usize, Vec<T>),
    Not(Box<N>),
    Bin(BinOp, Box<N>, Box<N>),
    Quant(Quantifier, Box<N>),
}

/// The symbols, each kind in the order the least model chooses them.
#[derive(Default)]
struct Symbols {
    consts: Vec<String>,
    props: Vec<String>,
    preds: Vec<(String, usize)>,
}

/// The symbols as sets while they are gathered.
#[derive(Default)]
struct Sets {
    consts: BTreeSet<String>,
    props: BTreeSet<String>,
    preds: BTreeSet<(String, usize)>,
}

/// Names a term takes as the Z3 encoder does: a name bound by an enclosing
/// quantifier is that variable, whatever its kind; any other name is a constant.
fn gather(f: &Formula, bound: &mut Vec<String>, s: &mut Sets) {
    match f {
        Formula::Bool(_) => {}
        Formula::Prop(p) => {
            s.props.insert(p.to_string());
        }
        Formula::Pred(p, args) => {
            s.preds.insert((p.to_string(), args.len()));
            for t in args {
                if !bound.iter().any(|v| v == t.name()) {
                    s.consts.insert(t.name().to_string());
                }
            }
        }
        Formula::Not(a) => gather(a, bound, s),
        Formula::Bin(_, a, b) => {
            gather(a, bound, s);
            gather(b, bound, s);
        }
        Formula::Quant(_, v, body) => {
            bound.push(v.to_string());
            gather(body, bound, s);
            bound.pop();
        }
    }
}

fn index<T: Ord>(v: &[T], x: &T) -> usize {
    v.binary_search(x).unwrap_or(0)
}

fn compile(f: &Formula, bound: &mut Vec<String>, sy: &Symbols) -> N {
    match f {
        Formula::Bool(b) => N::Bool(*b),
        Formula::Prop(p) => N::Prop(index(&sy.props, &p.to_string())),
        Formula::Pred(p, args) => {
            let terms = args
                .iter()
                .map(|t: &Term| {
                    let name = t.name();
                    match bound.iter().rposition(|v| v == name) {
                        Some(d) => T::Var(d),
                        None => T::Const(index(&sy.consts, &name.to_string())),
                    }
                })
                .collect();
            N::Pred(index(&sy.preds, &(p.to_string(), args.len())), terms)
        }
        Formula::Not(a) => N::Not(Box::new(compile(a, bound, sy))),
        Formula::Bin(op, a, b) => N::Bin(
            *op,
            Box::new(compile(a, bound, sy)),
            Box::new(compile(b, bound, sy)),
        ),
        Formula::Quant(q, v, body) => {
            bound.push(v.to_string());
            let n = N::Quant(*q, Box::new(compile(body, bound, sy)));
            bound.pop();
            n
        }
    }
}

/// A partial structure: `None` is a value not chosen yet.
struct Partial {
    k: usize,
    consts: Vec<Option<usize>>,
    props: Vec<Option<bool>>,
    /// Each predicate's table, tuples in lexicographic order.
    preds: Vec<Vec<Option<bool>>>,
    /// Nodes evaluated so far.
    spent: usize,
    /// First slot of each predicate's table (the propositions' slots come first).
    base: Vec<usize>,
    /// The proposition and tuple slots the last evaluations read while unchosen.
    read: Vec<bool>,
}

impl Partial {
    /// Kleene's three-valued value of `n` (`None`: depends on values not chosen yet).
    fn eval(&mut self, n: &N, env: &mut Vec<usize>) -> Option<bool> {
        self.spent += 1;
        match n {
            N::Bool(b) => Some(*b),
            N::Prop(i) => {
                let v = self.props.get(*i).copied().flatten();
                if v.is_none()
                    && let Some(r) = self.read.get_mut(self.consts.len() + i)
                {
                    *r = true;
                }
                v
            }
            N::Pred(p, args) => {
                let mut code = 0;
                for t in args {
                    let e = match t {
                        T::Var(d) => env.get(*d).copied()?,
                        T::Const(c) => self.consts.get(*c).copied().flatten()?,
                    };
                    code = code * self.k + e;
                }
                let v = self.preds.get(*p)?.get(code).copied().flatten();
                if v.is_none()
                    && let Some(r) = self.read.get_mut(self.base.get(*p).copied()? + code)
                {
                    *r = true;
                }
                v
            }
            N::Not(a) => self.eval(a, env).map(|x| !x),
            N::Bin(op, a, b) => {
                let x = self.eval(a, env);
                // Short cuts that hold whatever the other side is.
                match (op, x) {
                    (BinOp::And, Some(false)) => return Some(false),
                    (BinOp::Or, Some(true)) | (BinOp::Implies, Some(false)) => return Some(true),
                    _ => {}
                }
                let y = self.eval(b, env);
                match (op, x, y) {
                    (_, Some(x), Some(y)) => Some(op.apply(x, || y)),
                    (BinOp::And, _, Some(false)) => Some(false),
                    (BinOp::Or | BinOp::Implies, _, Some(true)) => Some(true),
                    _ => None,
                }
            }
            N::Quant(q, body) => {
                let all = *q == Quantifier::Forall;
                let mut known = true;
                for e in 0..self.k {
                    env.push(e);
                    let v = self.eval(body, env);
                    env.pop();
                    match v {
                        Some(v) if v != all => return Some(!all),
                        Some(_) => {}
                        None => known = false,
                    }
                }
                known.then_some(all)
            }
        }
    }
}

/// One symbol to choose a value for, in choice order.
#[derive(Clone, Copy)]
enum Slot {
    Const(usize),
    Prop(usize),
    Tuple(usize, usize),
}

/// The least countermodel of φ and φ′ (both closed) with exactly `k` elements, or that
/// there is none; `None` when the search ran out of budget.
pub(super) fn least(a: &Formula, b: &Formula, k: usize) -> Option<Found> {
    let mut sets = Sets::default();
    gather(a, &mut Vec::new(), &mut sets);
    gather(b, &mut Vec::new(), &mut sets);
    let sy = Symbols {
        consts: sets.consts.into_iter().collect(),
        props: sets.props.into_iter().collect(),
        preds: sets.preds.into_iter().collect(),
    };
    if k == 0 && !(sy.consts.is_empty() && sy.preds.is_empty()) {
        return None;
    }
    let (na, nb) = (
        compile(a, &mut Vec::new(), &sy),
        compile(b, &mut Vec::new(), &sy),
    );
    let mut slots: Vec<Slot> = (0..sy.consts.len()).map(Slot::Const).collect();
    slots.extend((0..sy.props.len()).map(Slot::Prop));
    let mut tables = Vec::with_capacity(sy.preds.len());
    let mut base = Vec::with_capacity(sy.preds.len());
    for (p, (_, arity)) in sy.preds.iter().enumerate() {
        let n = k.checked_pow(u32::try_from(*arity).ok()?)?;
        if n > BUDGET {
            return None;
        }
        base.push(slots.len());
        slots.extend((0..n).map(|t| Slot::Tuple(p, t)));
        tables.push(vec![None; n]);
    }
    let mut s = Partial {
        k,
        consts: vec![None; sy.consts.len()],
        props: vec![None; sy.props.len()],
        preds: tables,
        spent: 0,
        base,
        read: vec![false; slots.len()],
    };
    let found = search(&mut s, &slots, 0, &na, &nb)?;
    if !found {
        return Some(Found::None);
    }
    // Values never chosen (both sides were decided before them) take their preferred one.
    let mut fm = FiniteModel {
        size: k,
        ..FiniteModel::default()
    };
    for (name, v) in sy.consts.iter().zip(&s.consts) {
        fm.constants.insert(name.clone(), v.unwrap_or(0));
    }
    for (name, v) in sy.props.iter().zip(&s.props) {
        fm.propositions.insert(name.clone(), v.unwrap_or(false));
    }
    for ((name, arity), table) in sy.preds.iter().zip(&s.preds) {
        let mut ext = HashSet::new();
        for (code, v) in table.iter().enumerate() {
            if v.unwrap_or(false) {
                let mut tuple = vec![0; *arity];
                let mut c = code;
                for slot in tuple.iter_mut().rev() {
                    *slot = c % k;
                    c /= k;
                }
                ext.insert(tuple);
            }
        }
        fm.predicates.insert((name.clone(), *arity), ext);
    }
    Some(Found::Model(fm))
}

/// Depth-first over the slots from `at`, preferred values first: `Some(true)` leaves
/// the least separating choice in `s`, `Some(false)` means none separates, `None` is
/// an exhausted budget.
fn search(s: &mut Partial, slots: &[Slot], at: usize, a: &N, b: &N) -> Option<bool> {
    if s.spent > BUDGET {
        return None;
    }
    s.read.iter_mut().for_each(|r| *r = false);
    let (x, y) = (s.eval(a, &mut Vec::new()), s.eval(b, &mut Vec::new()));
    match (x, y) {
        (Some(x), Some(y)) => return Some(x != y),
        _ if at == slots.len() => return Some(false),
        _ => {}
    }
    let Some(slot) = slots.get(at).copied() else {
        return Some(false);
    };
    // A proposition or tuple neither side read, with every constant chosen (they come
    // first), stays unread whatever comes later (values only cut more of the
    // formulas off): it cannot separate, so only its preferred value is tried.
    let read = s.read.get(at).copied().unwrap_or(true);
    let choices = match slot {
        Slot::Const(_) => s.k,
        Slot::Prop(_) | Slot::Tuple(..) if !read => 1,
        Slot::Prop(_) | Slot::Tuple(..) => 2,
    };
    for v in 0..choices {
        match slot {
            Slot::Const(c) => s.consts[c] = Some(v),
            Slot::Prop(p) => s.props[p] = Some(v == 1),
            Slot::Tuple(p, t) => s.preds[p][t] = Some(v == 1),
        }
        if search(s, slots, at + 1, a, b)? {
            return Some(true);
        }
    }
    match slot {
        Slot::Const(c) => s.consts[c] = None,
        Slot::Prop(p) => s.props[p] = None,
        Slot::Tuple(p, t) => s.preds[p][t] = None,
    }
    Some(false)
}
