//! Changes proved by the verifier: the smallest set of edits to φ₀ (one, then two)
//! whose result is equivalent to φ₁, whatever equivalent rewriting φ₁ went through.
//!
//! Candidates are screened cheaply (PL truth tables as bitsets, FOL on small random
//! models, regexes on a set of strings) and the survivor is confirmed by the
//! verifier. When no explanation of at most two edits is proved within the budget,
//! the structural diff's changes stand, marked unproved. Equivalent pairs list no
//! change; where their structure differs, the places are named as rewrites.

mod diag;
#[doc(hidden)]
pub use diag::diagnose;
mod focus;
mod focus_regex;
mod fol_model;
mod keys;
mod logic;
mod near;
mod operands;
mod order;
mod regex;
mod screen;
mod screen_fol;
mod screening;
mod search_regex;
mod tables;

use crate::analysis::failure_kind::{FailureKind, kind_of_change};
use crate::syntax::diff::{Change, NamedChange, diff, named_changes};
use crate::syntax::{Expr, Formula};
use crate::verify::{self, Options};
use screening::{LogicScreen, Screener, survivors};
use std::cell::OnceCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::time::Duration;

/// What changed from φ₀ to φ₁, and whether the verifier proved it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explanation {
    /// The named changes (empty for an equivalent pair).
    pub changes: Vec<NamedChange>,
    /// Whether the changes were proved: applied to φ₀ they give a formula the
    /// verifier finds equivalent to φ₁. False: the structural diff's guess.
    pub proved: bool,
    /// For an equivalent pair, where φ₁ is written differently (never a change).
    pub rewrites: Vec<String>,
}

/// Largest φ₀ (in nodes) searched; larger ones keep the structural diff.
const MAX_SIZE: usize = 120;
/// Candidates screened for two-edit explanations, per syntax (the cheap screens allow more).
const BUDGET_PL: usize = 400_000;
const BUDGET_FOL: usize = 10_000;
const BUDGET_REGEX: usize = 30_000;
/// Screened survivors confirmed by the verifier at most (per level).
const MAX_CONFIRM: usize = 3;
/// Two-edit candidates that passed the screen, gathered (first edits in rank order)
/// before the best-ranked are confirmed: enough that a better pair behind a worse
/// first edit is seen, few enough that the search stops early when it can.
const PAIR_CAP: usize = 24;
/// Z3 work allowed to one confirmation, in Z3's resource units (a survivor of the
/// screen is almost always equivalent; one the solver cannot settle within this stays
/// unproved). A count of work, not a time limit, so the explanation of a pair is the
/// same on a loaded machine as on an idle one.
const CONFIRM_RLIMIT: u32 = 3_000_000;
/// Wall-clock safety net of one confirmation; the resource limit ends it long before.
const CONFIRM_TIMEOUT: Duration = Duration::from_secs(20);

/// The verifier's verdict under the confirmation budget.
fn decide(a: &Expr, b: &Expr, opts: &Options) -> verify::Verdict {
    verify::z3_logic::with_rlimit(CONFIRM_RLIMIT, || verify::verify(a, b, opts))
}

/// The explanation of a pair whose verdict is `equivalent` (true) or `not-equivalent`.
pub fn explain(a: &Expr, b: &Expr, equivalent: bool, opts: &Options) -> Explanation {
    explain_with(a, b, equivalent, None, opts)
}

/// [`explain`] given the countermodel the verifier already found for a
/// not-equivalent pair (a sample's record keeps it): the first-order screen then
/// starts from it instead of asking the verifier again when no random model tells φ₀
/// from φ₁. Any structure is safe here: the screen only rules candidates out, and the
/// verifier confirms the survivor.
pub fn explain_with(
    a: &Expr,
    b: &Expr,
    equivalent: bool,
    countermodel: Option<&verify::Countermodel>,
    opts: &Options,
) -> Explanation {
    if equivalent {
        return Explanation {
            changes: vec![],
            proved: true,
            rewrites: rewrites(a, b),
        };
    }
    let structural = Structural::new(a, b);
    let opts = Options {
        timeout: CONFIRM_TIMEOUT,
        ..opts.clone()
    };
    let found = match (a, b) {
        (Expr::Logic(x), Expr::Logic(y)) if x.size() <= MAX_SIZE => {
            search_logic(x, y, &structural, countermodel, &opts)
        }
        (Expr::Regex(x), Expr::Regex(y)) if x.size() <= MAX_SIZE => {
            search_regex::search(x, y, structural.changes(), &opts)
        }
        _ => None,
    };
    match found {
        Some(changes) => Explanation {
            changes,
            proved: true,
            rewrites: vec![],
        },
        None => Explanation {
            changes: structural.into_changes(),
            proved: false,
            rewrites: vec![],
        },
    }
}

/// The structural diff's changes and their kinds, computed when first asked: a
/// search whose first candidate is alone in its rank never needs them.
struct Structural<'a> {
    a: &'a Expr,
    b: &'a Expr,
    changes: OnceCell<Vec<NamedChange>>,
    kinds: OnceCell<Vec<FailureKind>>,
}

impl<'a> Structural<'a> {
    fn new(a: &'a Expr, b: &'a Expr) -> Structural<'a> {
        Structural {
            a,
            b,
            changes: OnceCell::new(),
            kinds: OnceCell::new(),
        }
    }

    fn changes(&self) -> &[NamedChange] {
        self.changes.get_or_init(|| named_changes(self.a, self.b))
    }

    /// The kinds of the changes (what [`rank`] compares a candidate's kind with).
    fn kinds(&self) -> &[FailureKind] {
        self.kinds.get_or_init(|| {
            self.changes()
                .iter()
                .filter_map(|c| kind_of_change(c.change))
                .collect()
        })
    }

    /// The kinds to rank candidates making these changes by: none when every
    /// candidate's change is of the same kind (whether the diff shows it is then the
    /// same for all, and so is their order), so the diff is not computed for them.
    fn kinds_for(&self, mut changes: impl Iterator<Item = Change>) -> &[FailureKind] {
        let Some(first) = changes.next().map(kind_of_change) else {
            return &[];
        };
        if changes.all(|c| kind_of_change(c) == first) {
            &[]
        } else {
            self.kinds()
        }
    }

    fn into_changes(self) -> Vec<NamedChange> {
        match self.changes.into_inner() {
            Some(c) => c,
            None => named_changes(self.a, self.b),
        }
    }
}

/// Where an equivalent φ₁ is written differently: the outermost differing places.
fn rewrites(a: &Expr, b: &Expr) -> Vec<String> {
    let lines = diff(a, b);
    let mut out = Vec::new();
    let mut inside: Option<usize> = None;
    for l in &lines {
        if inside.is_some_and(|d| l.depth > d) {
            continue;
        }
        inside = None;
        if l.change.is_change() {
            let (x, y) = (
                l.left.as_deref().unwrap_or("—"),
                l.right.as_deref().unwrap_or("—"),
            );
            out.push(format!("{x} rewritten as {y}"));
            inside = Some(l.depth);
        }
    }
    out
}

/// Rank of a proved candidate: an added operand last (it can absorb anything); then
/// ones whose kind the structural diff also shows; then a dropped operand (a star or
/// a renamed symbol that merely duplicates a neighbour, `0*0*`, `p2 ∧ p2`, is a
/// drop), a single swapped ∧/∨, negation, renamed symbol or repetition, and last
/// other swapped connectives, regroupings and scope changes.
fn rank(change: Change, structural: &[FailureKind]) -> (bool, bool, u8) {
    let class = match change {
        Change::OperatorAdded => 3,
        Change::OperatorDropped => 0,
        // A swap between concatenation and alternation, or to → / ↔, rewrites more of
        // the meaning than a star or a negation that proves as well.
        Change::ScopeChanged | Change::OperandsSwapped | Change::OperatorSwapped => 2,
        _ => 1,
    };
    let k = kind_of_change(change);
    (
        class == 3,
        !k.is_some_and(|k| structural.contains(&k)),
        class,
    )
}

/// Rank of a proved pair of edits: fewest added operands, then fewest kinds the
/// structural diff does not show, then the lower classes (as [`rank`] for one edit).
fn pair_rank(a: Change, b: Change, structural: &[FailureKind]) -> (u8, u8, u8) {
    let (x, y) = (rank(a, structural), rank(b, structural));
    (
        u8::from(x.0) + u8::from(y.0),
        u8::from(x.1) + u8::from(y.1),
        x.2 + y.2,
    )
}

fn named(c: (Change, String)) -> NamedChange {
    NamedChange {
        change: c.0,
        text: c.1,
    }
}

/// The weight two edits reach at least; a proved single edit weighing this much or
/// less is not beaten by a pair (of equal weights the fewer edits win).
const PAIR_FLOOR: usize = 2;

/// The weight a pair must stay within to beat the proved single edit `one` (any
/// weight when there is none), or None when no pair can.
fn pair_limit<T>(one: Option<&(usize, T)>) -> Option<usize> {
    match one {
        Some((w, _)) if *w <= PAIR_FLOOR => None,
        Some((w, _)) => Some(w - 1),
        None => Some(usize::MAX),
    }
}

/// A screened pair of edits: its weight, the changes it names, the formula made and
/// the formula its first edit alone made.
type Pair = (
    usize,
    (Change, String),
    (Change, String),
    Formula,
    Rc<Formula>,
);

/// The pair of the first edit (its weight and change) that made `f1` and `e2`.
fn push_pair(
    pairs: &mut Vec<Pair>,
    pool: &logic::Pool,
    (w1, d1): (usize, &(Change, String)),
    f1: &Rc<Formula>,
    e2: &logic::Edit,
) {
    if let (Some(g), Some(d2)) = (logic::apply(f1, e2, pool), logic::describe(f1, e2, pool)) {
        let w = w1 + logic::weight(&e2.op, pool);
        pairs.push((w, d1.clone(), d2, g, Rc::clone(f1)));
    }
}

/// The screen for `a` against `b`: the PL truth table, else FOL models.
fn logic_screen(
    a: &Formula,
    b: &Formula,
    pool: &logic::Pool,
    known: Option<&verify::Countermodel>,
    opts: &Options,
) -> LogicScreen {
    match screen::PlScreen::new(a, b, pool) {
        Some(s) => LogicScreen::Pl(s),
        None => LogicScreen::Fol(screen_fol::FolScreen::new(a, b, pool, || {
            // No random model tells φ₀ from φ₁: the verifier's countermodel does (the
            // one it found for the verdict, else asked for now).
            if let Some(c) = known.and_then(verify::model::FiniteModel::from_countermodel) {
                return Some(c);
            }
            match decide(&Expr::Logic(a.clone()), &Expr::Logic(b.clone()), opts) {
                verify::Verdict::NotEquivalent { countermodel, .. } => {
                    verify::model::FiniteModel::from_countermodel(&countermodel)
                }
                _ => None,
            }
        })),
    }
}

/// The screened pairs of two edits of `a` lighter than `limit`: pointed pairs first,
/// then every pair, within the screen's budget.
fn logic_pairs(
    a: &Formula,
    b: &Formula,
    pool: &logic::Pool,
    scr: &LogicScreen,
    degenerate: &[bool],
    kinds: &[FailureKind],
    limit: usize,
) -> Vec<Pair> {
    // Two edits: every first edit followed by every second edit that passes the screen
    // (within the budget and the weight a pair must stay within to beat a proved single
    // edit), then the best-ranked pairs confirmed: the first pair found is not the best
    // named one.
    let mut firsts: Vec<(usize, logic::Edit, (Change, String))> = logic::edits(a, pool)
        .into_iter()
        .map(|e| (logic::weight(&e.op, pool), e))
        .filter(|(w, _)| *w < limit)
        .filter_map(|(w, e)| Some((w, logic::describe(a, &e, pool)?, e)))
        .map(|(w, d, e)| (w, e, d))
        .collect();
    // Where the structural diff points first (within the rank's first part, so added
    // operands still come last): the budget is spent on the nodes φ₁ changed.
    let kept = focus::Kept::new(b);
    let focus = kept.levels(a);
    firsts.sort_by_key(|(w, e, d)| {
        let r = rank(d.0, kinds);
        (r.0, focus.get(e.at).copied().unwrap_or(2), *w, r.1, r.2)
    });
    let mut budget = match scr {
        LogicScreen::Pl(_) => BUDGET_PL,
        LogicScreen::Fol(_) => BUDGET_FOL,
    };
    let mut pairs = Vec::new();
    // Pairs of pointed edits first (the second pointed at once the first is made):
    // where two mistakes lie in a large φ₀, found without screening every pair.
    let pointed: HashSet<logic::Edit> = kept.pointed(a, pool).into_iter().collect();
    let mut tried: Vec<Option<HashSet<logic::Edit>>> = vec![None; firsts.len()];
    for ((w1, e1, d1), slot) in firsts.iter().zip(tried.iter_mut()) {
        if budget == 0 || pairs.len() >= PAIR_CAP {
            break;
        }
        if !pointed.contains(e1) {
            continue;
        }
        let Some(f1) = logic::apply(a, e1, pool).map(Rc::new) else {
            continue;
        };
        let second: HashSet<logic::Edit> = kept.pointed(&f1, pool).into_iter().collect();
        let wanted = |e: &logic::Edit| second.contains(e);
        for e2 in survivors(&f1, pool, scr, degenerate, limit - w1, &mut budget, &wanted) {
            push_pair(&mut pairs, pool, (*w1, d1), &f1, &e2);
        }
        *slot = Some(second);
    }
    // Then every pair, in the order of the first edits (the pointed pairs left out,
    // and not counted: the pairs gathered are those the search found without them).
    let cap = pairs.len() + PAIR_CAP;
    for ((w1, e1, d1), tried) in firsts.iter().zip(&tried) {
        if budget == 0 || pairs.len() >= cap {
            break;
        }
        let Some(f1) = logic::apply(a, e1, pool).map(Rc::new) else {
            continue;
        };
        let wanted = |e: &logic::Edit| !tried.as_ref().is_some_and(|t| t.contains(e));
        for e2 in survivors(&f1, pool, scr, degenerate, limit - w1, &mut budget, &wanted) {
            push_pair(&mut pairs, pool, (*w1, d1), &f1, &e2);
        }
    }
    pairs
}

fn search_logic(
    a: &Formula,
    b: &Formula,
    structural: &Structural,
    known: Option<&verify::Countermodel>,
    opts: &Options,
) -> Option<Vec<NamedChange>> {
    let pool = logic::Pool::new(a, b);
    let scr = logic_screen(a, b, &pool, known, opts);
    let target = Expr::Logic(b.clone());
    // The PL screen's complete truth table is the proof itself; otherwise the verifier
    // is asked, at most MAX_CONFIRM times a level, and the countermodel of a candidate
    // it refutes refutes later ones without asking again (a countermodel is a structure,
    // and a candidate's value on it is computed as the verifier reads the formula).
    let exact = matches!(&scr, LogicScreen::Pl(s) if s.exact());
    let learned = std::cell::RefCell::new(screen_fol::Learned::new(a, b, &pool));
    // None once the verifier may not be asked again: no later candidate is proved.
    let confirm = |g: &Formula, calls: &mut usize| {
        if exact {
            return Some(true);
        }
        if *calls == 0 {
            return None;
        }
        if learned.borrow().refutes(g) {
            return Some(false);
        }
        *calls -= 1;
        Some(match decide(&Expr::Logic(g.clone()), &target, opts) {
            verify::Verdict::NotEquivalent { countermodel, .. } => {
                learned.borrow_mut().learn(&countermodel, b, &pool);
                false
            }
            v => v.is_equivalent(),
        })
    };
    // An added operand that alone says what φ₁ says explains nothing (`φ₀ ∧ φ₁`).
    let degenerate: Vec<bool> = pool.operands.iter().map(|x| scr.agrees(x)).collect();
    let lits = OnceCell::new();
    let lits = || lits.get_or_init(|| near::logic_literals(b));
    let is_add = |e: &logic::Edit| matches!(e.op, logic::Op::Add(..));
    // Every single edit, screened in full only when its group of equal weight is
    // reached: the answer is the one that screened them all (the screen has no budget
    // here and leaves the order of the survivors as it was), but a group after the
    // proved one (most often every added operand) is never screened on FOL models.
    // The cheap part of the screen drops most edits as they are made: a PL formula
    // has tens of thousands, and keeping them all cost more than screening them.
    let screener = Screener::new(a, &pool, &scr);
    // Handed over in the order they are confirmed in (every other edit weighs 1, the
    // least, and comes before an added operand of the same weight), so the stable
    // sort by that order finds them sorted in one pass.
    let mut one = Vec::new();
    let mut adds: std::collections::BTreeMap<usize, Vec<logic::Edit>> = Default::default();
    logic::each_edit(a, &pool, &mut |e| {
        if screener.ruled_out(&e) {
            return;
        }
        if !is_add(&e) {
            one.push(e);
        } else if !screening::adds_degenerate(&e, &degenerate) {
            adds.entry(logic::weight(&e.op, &pool)).or_default().push(e);
        }
    });
    one.extend(adds.into_values().flatten());
    // Lightest edit first, then the rank: an added operand weighs what it writes (the
    // rank's first part: only an added operand's change is OperatorAdded).
    let mut calls = MAX_CONFIRM;
    let proved_one = order::first_in_order(
        one,
        |e| (logic::weight(&e.op, &pool), is_add(e)),
        |e| {
            if !screener.passes_rest(&e) {
                return None;
            }
            let g = logic::apply(a, &e, &pool)?;
            let d = logic::describe(a, &e, &pool)?;
            Some((logic::weight(&e.op, &pool), g, d))
        },
        |(_, g, _)| near::logic_distance(g, lits()),
        |same| {
            let ks = structural.kinds_for(same.iter().map(|(_, _, d)| d.0));
            same.iter()
                .map(|(_, _, d)| {
                    let r = rank(d.0, ks);
                    (r.1, r.2)
                })
                .collect()
        },
        |(_, g, _)| confirm(g, &mut calls),
    )
    .map(|(w, _, d)| (w, named(d)));
    let Some(limit) = pair_limit(proved_one.as_ref()) else {
        return proved_one.map(|(_, c)| vec![c]);
    };
    let kinds = structural.kinds();
    let pairs = logic_pairs(a, b, &pool, &scr, &degenerate, kinds, limit);
    // Ordered as a stable sort by weight then rank: equal ranks keep the order found,
    // so the answer is deterministic.
    let added = |c: Change| u8::from(c == Change::OperatorAdded);
    let mut calls = MAX_CONFIRM;
    let pair = order::first_in_order(
        pairs,
        |(w, d1, d2, ..)| (*w, added(d1.0) + added(d2.0)),
        Some,
        |(_, _, _, g, _)| near::logic_distance(g, lits()),
        |same| {
            same.iter()
                .map(|(_, d1, d2, ..)| {
                    let r = pair_rank(d1.0, d2.0, kinds);
                    (r.1, r.2)
                })
                .collect()
        },
        |(_, _, _, g, _)| confirm(g, &mut calls),
    );
    match pair {
        // The first edit alone already says what φ₁ says: the second pads it (an
        // operand added that φ₀ holds there), and the single edit is the explanation.
        // Asked once more: the single-edit level may have run out of confirmations.
        Some((_, d1, _, _, f1))
            if scr.agrees(&f1)
                && (exact
                    || decide(&Expr::Logic((*f1).clone()), &target, opts).is_equivalent()) =>
        {
            Some(vec![named(d1)])
        }
        Some((_, d1, d2, ..)) => Some(vec![named(d1), named(d2)]),
        None => proved_one.map(|(_, c)| vec![c]),
    }
}

#[cfg(test)]
mod tests;
