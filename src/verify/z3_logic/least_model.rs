//! The least countermodel of a given size: what makes a not-equivalent verdict's model
//! the same whatever the solver's state. Most of its choices are settled by our own
//! evaluator; Z3 is asked only for the rest.

use super::{
    Encoder, MAX_EXPANDED, checked, quantifier_depth, read_model, remaining, solver_with_timeout,
};
use crate::syntax::Formula;
use crate::verify::model::{FiniteModel, holds};
use crate::verify::small_model::{Found, least};
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, SatResult, Solver};

thread_local! {
    /// Whether the checks on this thread want the least countermodel (see
    /// [`equivalence_only`]).
    static WANTED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Runs `f` with countermodels left as the solver found them: for callers that only
/// ask whether a pair is equivalent (a sub-pair tried on the way to a verdict, two
/// readings of one reply), where the least model would be computed and dropped.
pub(crate) fn equivalence_only<R>(f: impl FnOnce() -> R) -> R {
    /// Restores the flag even when `f` panics (a caught panic keeps the thread).
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            WANTED.set(self.0);
        }
    }
    let _restore = Restore(WANTED.replace(false));
    f()
}

/// Whether `m` tells φ from φ′.
fn separates(a: &Formula, b: &Formula, m: &FiniteModel) -> bool {
    holds(m, a) != holds(m, b)
}

/// The solver over the expanded ¬(φ ↔ φ′) with the choices made so far, built the
/// first time a choice needs it: a choice that one flipped value of the current model
/// already shows possible asks nothing, and most choices are of that sort.
struct Choices<'e> {
    enc: &'e Encoder,
    elems: &'e [Dynamic],
    differ: Bool,
    ms: u64,
    solver: Option<Solver>,
    /// Choices made before the solver was built, asserted when it is.
    fixed: Vec<Bool>,
}

impl Choices<'_> {
    fn fix(&mut self, b: &Bool) {
        match &self.solver {
            Some(s) => s.assert(b),
            None => self.fixed.push(b.clone()),
        }
    }

    fn solver(&mut self) -> &Solver {
        self.solver.get_or_insert_with(|| {
            let solver = solver_with_timeout(self.ms);
            solver.assert(&self.differ);
            if self.elems.len() > 1 {
                solver.assert(Dynamic::distinct(self.elems));
            }
            for c in self.enc.consts.values() {
                let options: Vec<Bool> = self.elems.iter().map(|e| c.eq(e.clone())).collect();
                solver.assert(Bool::or(&options));
            }
            for b in &self.fixed {
                solver.assert(b);
            }
            solver
        })
    }

    /// One step: `want` is preferred; `have` says whether `current` already makes it;
    /// `set(m, true)` changes `m` to make it, `set(m, false)` undoes that. Returns
    /// whether `want` was taken.
    fn choose(
        &mut self,
        (a, b): (&Formula, &Formula),
        (want, other): (&Bool, &Bool),
        have: bool,
        set: impl Fn(&mut FiniteModel, bool),
        current: &mut FiniteModel,
    ) -> bool {
        if have {
            self.fix(want);
            return true;
        }
        // The current model satisfies every choice so far; changed in this one value
        // only it still does, so if it still separates φ and φ′ it shows `want`
        // possible, which is all the solver would have said.
        set(current, true);
        if separates(a, b, current) {
            self.fix(want);
            return true;
        }
        set(current, false);
        // A scope, not assumptions: the `smt` tactic's solver answers unknown to those.
        let (enc, elems) = (self.enc, self.elems);
        let solver = self.solver();
        solver.push();
        solver.assert(want);
        let answer = checked(solver);
        let model = (answer == SatResult::Sat)
            .then(|| solver.get_model().and_then(|m| read_model(enc, &m, elems)))
            .flatten();
        solver.pop(1);
        if let Some(m) = model {
            self.fix(want);
            *current = m;
            true
        } else {
            self.fix(other);
            false
        }
    }
}

/// The least countermodel with as many elements as `found`, so the same pair always
/// shows the same model whatever the solver's state (a thread's context is reused
/// across pairs, so its models depend on what it solved before).
///
/// Least in a fixed order of names: each constant takes the first element it can
/// (constants by name), then each proposition is false if it can be, then each
/// predicate tuple (predicates by name and arity, tuples in order) is false if it can
/// be, each choice kept for the next. Which choices are possible is a fact about φ and
/// φ′, so the result is too, however each choice is shown possible. `found` (which
/// satisfies every choice it agrees with) saves the checks it answers; a check that
/// cannot finish in time keeps `found`'s choice. `search` is false when our own
/// search for it (see [`least`]) already ran out of budget on this pair and size.
pub(in crate::verify) fn canonical(
    a: &Formula,
    b: &Formula,
    found: FiniteModel,
    deadline: Instant,
    search: bool,
) -> FiniteModel {
    if !WANTED.get() {
        return found;
    }
    let k = found.size;
    let qd = quantifier_depth(a).max(quantifier_depth(b));
    let fits = k
        .max(1)
        .checked_pow(qd)
        .and_then(|blowup| (a.size() + b.size()).checked_mul(blowup))
        .is_some_and(|n| n <= MAX_EXPANDED);
    let Some(ms) = remaining(deadline) else {
        return found;
    };
    if !fits || (k == 0 && (a.is_first_order() || b.is_first_order())) {
        return found;
    }
    // The same least model, found by our own search when it is small enough.
    if search && let Some(Found::Model(m)) = least(a, b, k) {
        return m;
    }
    let mut enc = Encoder::new();
    let elems: Vec<Dynamic> = (0..k)
        .map(|i| Dynamic::new_const(format!("e!{}", i + 1), &enc.universe))
        .collect();
    enc.expand = Some(elems.clone());
    let differ = enc.encode(a).iff(enc.encode(b)).not();
    let mut ch = Choices {
        enc: &enc,
        elems: &elems,
        differ,
        ms,
        solver: None,
        fixed: Vec::new(),
    };
    let pair = (a, b);
    let mut current = found;
    ch.least_constants(pair, &mut current);
    ch.least_propositions(pair, &mut current);
    ch.least_predicates(pair, &mut current);
    current
}

/// The steps of [`canonical`], each fixing its choices for the next.
impl Choices<'_> {
    /// Each constant (by name) takes the first element it can.
    fn least_constants(&mut self, pair: (&Formula, &Formula), current: &mut FiniteModel) {
        let (enc, elems) = (self.enc, self.elems);
        let mut consts: Vec<(&String, &Dynamic)> = enc.consts.iter().collect();
        consts.sort_by(|x, y| x.0.cmp(y.0));
        for (name, c) in consts {
            for (i, e) in elems.iter().enumerate() {
                let at = current.constants.get(name).copied().unwrap_or(0);
                if i > at {
                    break;
                }
                let want = c.eq(e.clone());
                if i == at {
                    self.fix(&want);
                    break;
                }
                let set = |m: &mut FiniteModel, on: bool| {
                    m.constants.insert(name.clone(), if on { i } else { at });
                };
                if self.choose(pair, (&want, &want.not()), false, set, current) {
                    break;
                }
            }
        }
    }

    /// Each proposition (by name) is false if it can be.
    fn least_propositions(&mut self, pair: (&Formula, &Formula), current: &mut FiniteModel) {
        let enc = self.enc;
        let mut props: Vec<(&String, &Bool)> = enc.bools.iter().collect();
        props.sort_by(|x, y| x.0.cmp(y.0));
        for (name, v) in props {
            let is_true = current.propositions.get(name).copied().unwrap_or(false);
            let set = |m: &mut FiniteModel, on: bool| {
                m.propositions.insert(name.clone(), !on);
            };
            self.choose(pair, (&v.not(), v), !is_true, set, current);
        }
    }

    /// Each predicate tuple (predicates by name and arity, tuples in order) is false if it can be.
    fn least_predicates(&mut self, pair: (&Formula, &Formula), current: &mut FiniteModel) {
        let (enc, elems) = (self.enc, self.elems);
        let k = elems.len();
        let mut preds: Vec<(&(String, usize), &FuncDecl)> = enc.funcs.iter().collect();
        preds.sort_by(|x, y| x.0.cmp(y.0));
        for (key, decl) in preds {
            let arity = key.1;
            let Some(total) = k.checked_pow(arity as u32) else {
                return;
            };
            for code in 0..total {
                // Tuples in lexicographic order: the first position is the most significant.
                let mut tuple = vec![0; arity];
                let mut c = code;
                for slot in tuple.iter_mut().rev() {
                    *slot = c % k;
                    c /= k;
                }
                let args: Vec<&dyn Ast> = tuple.iter().map(|i| &elems[*i] as &dyn Ast).collect();
                let Some(atom) = decl.apply(&args).as_bool() else {
                    continue;
                };
                let is_true = current
                    .predicates
                    .get(key)
                    .is_some_and(|ext| ext.contains(&tuple));
                let set = |m: &mut FiniteModel, on: bool| {
                    // Only called for a tuple `current` holds, so its table is there.
                    if let Some(ext) = m.predicates.get_mut(key) {
                        if on {
                            ext.remove(&tuple);
                        } else {
                            ext.insert(tuple.clone());
                        }
                    }
                };
                self.choose(pair, (&atom.not(), &atom), !is_true, set, current);
            }
        }
    }
}
