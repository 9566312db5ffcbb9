//! Logic equivalence with Z3: φ ≡ φ′ iff ¬(φ ↔ φ′) is unsat, plus small countermodels.

pub(super) mod least_model;
#[cfg(test)]
mod propositional_tests;

use super::model::{FiniteModel, holds};
use super::small_model;
use super::verdict::{Countermodel, Verdict};
use crate::syntax::{BinOp, Formula, Quantifier, Term};
use least_model::canonical;
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, Params, SatResult, Solver, Sort, Tactic};

/// Translates formulas to Z3 terms on the current thread's context. Ordered maps: the
/// order of assertions steers Z3's search, so it must not change from process to process.
pub(super) struct Encoder {
    pub(super) universe: Sort,
    pub(super) bools: BTreeMap<String, Bool>,
    pub(super) consts: BTreeMap<String, Dynamic>,
    pub(super) funcs: BTreeMap<(String, usize), FuncDecl>,
    env: Vec<(String, Dynamic)>,
    fresh: usize,
    /// When set, quantifiers are expanded over these elements instead of encoded.
    pub(super) expand: Option<Vec<Dynamic>>,
}

impl Encoder {
    pub(super) fn new() -> Encoder {
        Encoder {
            universe: Sort::uninterpreted("U".into()),
            bools: BTreeMap::new(),
            consts: BTreeMap::new(),
            funcs: BTreeMap::new(),
            env: Vec::new(),
            fresh: 0,
            expand: None,
        }
    }

    fn term(&mut self, t: &Term) -> Dynamic {
        let name = t.name();
        if let Some((_, v)) = self.env.iter().rev().find(|(n, _)| n == name) {
            return v.clone();
        }
        let u = self.universe.clone();
        self.consts
            .entry(name.to_string())
            .or_insert_with(|| Dynamic::new_const(format!("c!{name}"), &u))
            .clone()
    }

    pub(super) fn encode(&mut self, f: &Formula) -> Bool {
        match f {
            Formula::Bool(b) => Bool::from_bool(*b),
            Formula::Prop(p) => self
                .bools
                .entry(p.to_string())
                .or_insert_with(|| Bool::new_const(format!("b!{p}")))
                .clone(),
            Formula::Pred(name, args) => {
                let terms: Vec<Dynamic> = args.iter().map(|a| self.term(a)).collect();
                let u = self.universe.clone();
                let decl = self
                    .funcs
                    .entry((name.to_string(), args.len()))
                    .or_insert_with(|| {
                        let dom: Vec<&Sort> = (0..args.len()).map(|_| &u).collect();
                        FuncDecl::new(format!("P!{name}!{}", args.len()), &dom, &Sort::bool())
                    });
                let refs: Vec<&dyn Ast> = terms.iter().map(|t| t as &dyn Ast).collect();
                decl.apply(&refs)
                    .as_bool()
                    .unwrap_or_else(|| Bool::from_bool(false))
            }
            Formula::Not(a) => self.encode(a).not(),
            Formula::Bin(op, a, b) => {
                let (x, y) = (self.encode(a), self.encode(b));
                match op {
                    BinOp::And => Bool::and(&[x, y]),
                    BinOp::Or => Bool::or(&[x, y]),
                    BinOp::Implies => x.implies(&y),
                    BinOp::Iff => x.iff(&y),
                    BinOp::Xor => x.xor(&y),
                }
            }
            Formula::Quant(q, v, body) if self.expand.is_some() => {
                let elems = self.expand.clone().unwrap_or_default();
                let parts: Vec<Bool> = elems
                    .iter()
                    .map(|e| {
                        self.env.push((v.to_string(), e.clone()));
                        let b = self.encode(body);
                        self.env.pop();
                        b
                    })
                    .collect();
                match q {
                    Quantifier::Forall => Bool::and(&parts),
                    Quantifier::Exists => Bool::or(&parts),
                }
            }
            Formula::Quant(q, v, body) => {
                self.fresh += 1;
                let var = Dynamic::new_const(format!("v!{v}!{}", self.fresh), &self.universe);
                self.env.push((v.to_string(), var.clone()));
                let b = self.encode(body);
                self.env.pop();
                match q {
                    Quantifier::Forall => z3::ast::forall_const(&[&var], &[], &b),
                    Quantifier::Exists => z3::ast::exists_const(&[&var], &[], &b),
                }
            }
        }
    }
}

/// Z3 contexts inside a check right now, by their raw pointer: what [`interrupt_all`]
/// reaches. A thread registers its context only while its check runs, and
/// unregisters under the same lock, so no pointer outlives its context.
static ACTIVE: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

/// Bumped by every [`interrupt_all`]: a pair whose checks began before the bump starts
/// no further check (its slices and restarts would otherwise carry on).
static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// The generation the current pair's verification began in.
    static STARTED_IN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Z3 resource limit of each check on this thread (see [`with_rlimit`]).
    static RLIMIT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with every Z3 check bounded by `rlimit` resource units (Z3's own count of
/// work, not wall time), each in a fresh context, so its answer depends neither on
/// machine load nor on what the thread checked before.
pub(crate) fn with_rlimit<R>(rlimit: u32, f: impl FnOnce() -> R) -> R {
    /// Restores the thread's limit even when `f` panics (a caught panic keeps the thread).
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            RLIMIT.set(self.0);
        }
    }
    let _restore = Restore(RLIMIT.replace(rlimit));
    f()
}

/// Registration of the current thread's context for the duration of one check.
struct Active(usize);

impl Active {
    fn enter() -> Active {
        let ptr = z3::Context::thread_local().get_z3_context().as_ptr() as usize;
        if let Ok(mut a) = ACTIVE.lock() {
            a.push(ptr);
        }
        Active(ptr)
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        if let Ok(mut a) = ACTIVE.lock()
            && let Some(i) = a.iter().position(|p| *p == self.0)
        {
            a.swap_remove(i);
        }
    }
}

/// Interrupts every Z3 check in progress (Z3's own cancel mechanism), so a cancelled
/// run stops at once instead of waiting for its verifier timeouts. An interrupted
/// check answers `unknown`; the run drops those samples unwritten.
// One of the two unsafe calls in the crate (the other: base::heap): the z3 crate does
// not expose Z3_interrupt.
#[allow(unsafe_code)]
pub(crate) fn interrupt_all() {
    GENERATION.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    if let Ok(a) = ACTIVE.lock() {
        for p in a.iter() {
            // SAFETY: the context is alive: its thread is inside a check and removes
            // the pointer (under this lock) before the check returns.
            if let Some(ctx) = std::ptr::NonNull::new(*p as *mut z3_sys::_Z3_context) {
                unsafe { z3_sys::Z3_interrupt(ctx) };
            }
        }
    }
}

/// `solver.check()`, registered for [`interrupt_all`].
pub(super) fn checked(solver: &Solver) -> SatResult {
    let _active = Active::enter();
    if STARTED_IN.get() != GENERATION.load(std::sync::atomic::Ordering::SeqCst) {
        return SatResult::Unknown;
    }
    solver.check()
}

fn solver_params(ms: u64) -> Params {
    let mut p = Params::new();
    p.set_u32("timeout", ms.clamp(1, u32::MAX as u64) as u32);
    let rlimit = RLIMIT.get();
    if rlimit > 0 {
        p.set_u32("rlimit", rlimit);
    }
    // Ctrl-C belongs to the run, not to Z3: Z3's own SIGINT handler would swallow it or
    // turn it into a verdict ("interrupted from keyboard").
    p.set_bool("ctrl_c", false);
    p
}

pub(super) fn solver_with_timeout(ms: u64) -> Solver {
    // `Solver::new()` builds Z3's combined solver, which costs ~5 ms per instance on
    // Z3 4.8; a solver from the `smt` tactic handles the same (quantified UF) problems
    // and starts in ~0.1 ms.
    let s = Tactic::new("smt").solver();
    s.set_params(&solver_params(ms));
    s
}

/// Largest expanded problem (AST nodes after expanding quantifiers) we hand to Z3.
pub(super) const MAX_EXPANDED: usize = 200_000;

pub(super) fn quantifier_depth(f: &Formula) -> u32 {
    match f {
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => 0,
        Formula::Not(a) => quantifier_depth(a),
        Formula::Bin(_, a, b) => quantifier_depth(a).max(quantifier_depth(b)),
        Formula::Quant(_, _, a) => 1 + quantifier_depth(a),
    }
}

/// A countermodel with exactly `k` elements, searched with quantifiers expanded over
/// the elements (a quantifier-free problem). `None`: none exists, or no time or room.
fn expanded_model(a: &Formula, b: &Formula, k: usize, deadline: Instant) -> Option<Verdict> {
    let qd = quantifier_depth(a).max(quantifier_depth(b));
    let blowup = k.checked_pow(qd)?;
    if (a.size() + b.size()).checked_mul(blowup)? > MAX_EXPANDED {
        return None;
    }
    let ms = remaining(deadline)?;
    // Our own search settles most small domains exactly as the solver would, then
    // with the least model at once.
    match small_model::least(a, b, k) {
        Some(small_model::Found::Model(fm)) => return Some(rechecked(a, b, fm, false)),
        Some(small_model::Found::None) => return None,
        None => {}
    }
    expanded_model_z3(a, b, k, deadline, ms)
}

/// What [`expanded_model`] settles without Z3 for `k` elements.
enum Early {
    /// A countermodel (the verdict), found by our own search.
    Found(Verdict),
    /// No countermodel with `k` elements, or no time or room to look: the next domain.
    Next,
    /// Only the solver can tell.
    Solver,
}

/// The part of [`expanded_model`] before the solver: the same tests in the same order.
fn expanded_model_early(a: &Formula, b: &Formula, k: usize, deadline: Instant) -> Early {
    let qd = quantifier_depth(a).max(quantifier_depth(b));
    let fits = k
        .checked_pow(qd)
        .and_then(|blowup| (a.size() + b.size()).checked_mul(blowup))
        .is_some_and(|n| n <= MAX_EXPANDED);
    if !fits || remaining(deadline).is_none() {
        return Early::Next;
    }
    match small_model::least(a, b, k) {
        Some(small_model::Found::Model(fm)) => Early::Found(rechecked(a, b, fm, false)),
        Some(small_model::Found::None) => Early::Next,
        None => Early::Solver,
    }
}

/// The solver's part of [`expanded_model`], with `ms` milliseconds left.
fn expanded_model_z3(
    a: &Formula,
    b: &Formula,
    k: usize,
    deadline: Instant,
    ms: u64,
) -> Option<Verdict> {
    let mut enc = Encoder::new();
    let elems: Vec<Dynamic> = (0..k)
        .map(|i| Dynamic::new_const(format!("e!{}", i + 1), &enc.universe))
        .collect();
    enc.expand = Some(elems.clone());
    let differ = enc.encode(a).iff(enc.encode(b)).not();
    let solver = solver_with_timeout(ms);
    solver.assert(&differ);
    if k > 1 {
        solver.assert(Dynamic::distinct(&elems));
    }
    for c in enc.consts.values() {
        let options: Vec<Bool> = elems.iter().map(|e| c.eq(e.clone())).collect();
        solver.assert(Bool::or(&options));
    }
    if checked(&solver) != SatResult::Sat {
        return None;
    }
    let model = solver.get_model()?;
    let fm = read_model(&enc, &model, &elems)?;
    Some(rechecked(a, b, canonical(a, b, fm, deadline, false), false))
}

pub(super) fn remaining(deadline: Instant) -> Option<u64> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .as_millis() as u64;
    (left > 0).then_some(left)
}

/// Domains searched with expanded quantifiers before the unbounded check.
const EARLY_DOMAINS: usize = 2;

/// Decides `a ≡ b` (both closed) with Z3 before `deadline`.
///
/// Propositional pairs (most often a large ground pair `decide` abstracted, past the
/// truth table's reach) go first to our own search for the least countermodel: it is
/// exhaustive, so a finished search is the answer, with the model `canonical` would
/// pick. Only a search out of budget asks the solver.
///
/// For first-order pairs, countermodels with 1 and 2 elements are searched first with
/// quantifiers expanded: most non-equivalent pairs have one, and that search is a
/// quantifier-free problem Z3 settles quickly where the unbounded check may time out.
/// When the unbounded check gives up, larger domains are tried the same way.
pub fn check(a: &Formula, b: &Formula, deadline: Instant, max_domain: usize) -> Verdict {
    let first_order = a.is_first_order() || b.is_first_order();
    let early = if first_order {
        EARLY_DOMAINS.min(max_domain)
    } else {
        0
    };
    if !first_order {
        // The solver's Sat would end in `canonical`, whose first step is this same
        // search; its Unsat is what a search finding nothing shows. No context either.
        match small_model::least(a, b, 0) {
            Some(small_model::Found::Model(fm)) => return rechecked(a, b, fm, true),
            Some(small_model::Found::None) => return Verdict::Equivalent { notes: vec![] },
            None => {}
        }
    }
    if RLIMIT.get() > 0 {
        // The small domains our own search settles need no solver, so no context:
        // making a fresh one costs more than most checks (about a millisecond).
        let mut from = 1;
        while from <= early {
            match expanded_model_early(a, b, from, deadline) {
                Early::Found(v) => return v,
                Early::Next => from += 1,
                Early::Solver => break,
            }
        }
        // A fresh context: Z3's search order follows its term ids, which depend on
        // every term the thread's context made before.
        return z3::with_z3_config(&z3::Config::new(), || {
            check_here(a, b, deadline, max_domain, from)
        });
    }
    check_here(a, b, deadline, max_domain, 0)
}

/// [`check`] on the current context. `solver_from`, when not 0: the early domains
/// below it hold no countermodel, and at it our own search already gave up.
fn check_here(
    a: &Formula,
    b: &Formula,
    deadline: Instant,
    max_domain: usize,
    solver_from: usize,
) -> Verdict {
    STARTED_IN.set(GENERATION.load(std::sync::atomic::Ordering::SeqCst));
    let first_order = a.is_first_order() || b.is_first_order();
    let early = if first_order {
        EARLY_DOMAINS.min(max_domain)
    } else {
        0
    };
    for k in solver_from.max(1)..=early {
        let found = if k == solver_from {
            remaining(deadline).and_then(|ms| expanded_model_z3(a, b, k, deadline, ms))
        } else {
            expanded_model(a, b, k, deadline)
        };
        if let Some(v) = found {
            return v;
        }
    }
    let mut enc = Encoder::new();
    let (za, zb) = (enc.encode(a), enc.encode(b));
    if first_order && both_directions_valid(&za, &zb, deadline) {
        return Verdict::Equivalent { notes: vec![] };
    }
    let differ = za.iff(&zb).not();
    let Some(ms) = remaining(deadline) else {
        return timeout_verdict();
    };
    let solver = solver_with_timeout(ms);
    solver.assert(&differ);
    // Keep a share of the time for larger finite countermodels if the solver gets lost.
    let unbounded_until = if first_order && max_domain > early {
        Instant::now() + deadline.saturating_duration_since(Instant::now()) * 3 / 5
    } else {
        deadline
    };
    match check_with_restarts(&solver, unbounded_until) {
        SatResult::Unsat => Verdict::Equivalent { notes: vec![] },
        SatResult::Unknown => {
            let reason = unknown_reason(solver.get_reason_unknown());
            // The unbounded check gave up; a larger finite countermodel may still exist.
            for k in early + 1..=max_domain {
                if let Some(v) = expanded_model(a, b, k, deadline) {
                    return v;
                }
            }
            Verdict::Unknown { reason }
        }
        SatResult::Sat => {
            if !first_order {
                let model = solver.get_model();
                let mut fm = FiniteModel::default();
                for (name, v) in &enc.bools {
                    let val = model
                        .as_ref()
                        .and_then(|m| m.eval(v, true))
                        .and_then(|x| x.as_bool());
                    fm.propositions.insert(name.clone(), val.unwrap_or(false));
                }
                // `check` already ran our search on this pair and it ran out of budget.
                return rechecked(a, b, canonical(a, b, fm, deadline, false), true);
            }
            for k in early + 1..=max_domain {
                let Some(ms) = remaining(deadline) else { break };
                solver.set_params(&solver_params(ms));
                solver.push();
                let found = bounded_model(&enc, &solver, k);
                solver.pop(1);
                if let Some(fm) = found {
                    return rechecked(a, b, canonical(a, b, fm, deadline, true), false);
                }
            }
            Verdict::NotEquivalent {
                countermodel: Countermodel::NoSmallModel {
                    searched_up_to: max_domain,
                },
                notes: vec![],
            }
        }
    }
}

/// φ → φ′ and φ′ → φ proved separately, each in a quarter of the remaining time: two
/// smaller problems, one of which is often trivial, where the combined ¬(φ ↔ φ′) can
/// defeat the solver. Anything but two proofs leaves the decision to the combined check.
fn both_directions_valid(za: &Bool, zb: &Bool, deadline: Instant) -> bool {
    for (x, y) in [(za, zb), (zb, za)] {
        let Some(left) = remaining(deadline) else {
            return false;
        };
        let until = Instant::now() + std::time::Duration::from_millis(left / 4);
        let s = solver_with_timeout(left / 4);
        s.assert(Bool::and(&[x.clone(), y.not()]));
        if check_with_restarts(&s, until) != SatResult::Unsat {
            return false;
        }
    }
    true
}

/// The unbounded check in three slices of the remaining time, each with its own random
/// seed: on quantified problems Z3's search is sensitive to the seed, and a slice that
/// gets lost is cut short instead of spending the whole budget.
fn check_with_restarts(solver: &Solver, deadline: Instant) -> SatResult {
    let mut result = SatResult::Unknown;
    for slice in 0..3u32 {
        let Some(left) = remaining(deadline) else {
            break;
        };
        let ms = if slice == 2 {
            left
        } else {
            (left / (3 - u64::from(slice))).max(1)
        };
        let mut p = solver_params(ms);
        p.set_u32("random_seed", slice);
        solver.set_params(&p);
        result = checked(solver);
        if result != SatResult::Unknown {
            break;
        }
        let reason = solver.get_reason_unknown().unwrap_or_default();
        // Only a timeout (or a spent resource limit) is worth a restart; "incomplete"
        // answers come back the same.
        if !matches!(reason.as_str(), "timeout" | "canceled") && !reason.contains("resource") {
            break;
        }
    }
    result
}

fn timeout_verdict() -> Verdict {
    Verdict::Unknown {
        reason: "timeout before the solver could decide".into(),
    }
}

fn unknown_reason(r: Option<String>) -> String {
    match r.as_deref() {
        Some("timeout" | "canceled") => "timeout: Z3 could not decide within the time limit".into(),
        Some(other) => format!("Z3 gave up: {other}"),
        None => "Z3 gave up".into(),
    }
}

/// A model with exactly `k` elements in which φ and φ′ differ, read off as tables.
/// `solver` already holds ¬(φ ↔ φ′); the caller scopes the domain axioms with push/pop.
fn bounded_model(enc: &Encoder, solver: &Solver, k: usize) -> Option<FiniteModel> {
    let elems: Vec<Dynamic> = (0..k)
        .map(|i| Dynamic::new_const(format!("e!{}", i + 1), &enc.universe))
        .collect();
    if k > 1 {
        solver.assert(Dynamic::distinct(&elems));
    }
    let z = Dynamic::new_const("z!dom", &enc.universe);
    let covers: Vec<Bool> = elems.iter().map(|e| z.eq(e.clone())).collect();
    solver.assert(z3::ast::forall_const(&[&z], &[], &Bool::or(&covers)));
    if checked(solver) != SatResult::Sat {
        return None;
    }
    let model = solver.get_model()?;
    read_model(enc, &model, &elems)
}

/// Reads a finite structure over `elems` off a Z3 model.
pub(super) fn read_model(
    enc: &Encoder,
    model: &z3::Model,
    elems: &[Dynamic],
) -> Option<FiniteModel> {
    let k = elems.len();
    let truth = |b: &Bool| {
        model
            .eval(b, true)
            .and_then(|x| x.as_bool())
            .unwrap_or(false)
    };
    let mut fm = FiniteModel {
        size: k,
        ..Default::default()
    };
    for (name, c) in &enc.consts {
        let idx = elems
            .iter()
            .position(|e| truth(&c.eq(e.clone())))
            .unwrap_or(0);
        fm.constants.insert(name.clone(), idx);
    }
    for (name, b) in &enc.bools {
        fm.propositions.insert(name.clone(), truth(b));
    }
    for ((name, arity), decl) in &enc.funcs {
        let mut ext = HashSet::new();
        let total = k.checked_pow(*arity as u32)?;
        for mut code in 0..total {
            let mut tuple = Vec::with_capacity(*arity);
            for _ in 0..*arity {
                tuple.push(code % k);
                code /= k;
            }
            let args: Vec<&dyn Ast> = tuple.iter().map(|i| &elems[*i] as &dyn Ast).collect();
            if decl.apply(&args).as_bool().is_some_and(|b| truth(&b)) {
                ext.insert(tuple);
            }
        }
        fm.predicates.insert((name.clone(), *arity), ext);
    }
    Some(fm)
}

/// Shows a countermodel only after our own evaluator confirms it separates φ and φ′.
fn rechecked(a: &Formula, b: &Formula, fm: FiniteModel, propositional: bool) -> Verdict {
    let (va, vb) = (holds(&fm, a), holds(&fm, b));
    if va == vb {
        return Verdict::Unknown {
            reason: "internal error: the solver's countermodel failed our re-check (please report)"
                .into(),
        };
    }
    let countermodel = if propositional {
        Countermodel::Assignment {
            values: fm.propositions.into_iter().collect(),
            left: va,
            right: vb,
        }
    } else {
        fm.to_countermodel(va, vb)
    };
    Verdict::NotEquivalent {
        countermodel,
        notes: vec![],
    }
}
