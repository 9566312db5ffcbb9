//! Screening edits of one formula against φ₁ without building the candidates: the
//! screen (PL truth tables or FOL models), the formula's node values, and which of its
//! nodes an edit can change the answer at.

use super::logic::{self, Edit, Pool};
use super::{screen, screen_fol};
use crate::syntax::Formula;

/// The screen for a logic pair.
pub(super) enum LogicScreen {
    Pl(screen::PlScreen),
    Fol(screen_fol::FolScreen),
}

impl LogicScreen {
    /// Whether `f` takes φ₁'s value wherever the screen looks.
    pub(super) fn agrees(&self, f: &Formula) -> bool {
        match self {
            LogicScreen::Pl(s) => s.agrees(f),
            LogicScreen::Fol(s) => s.agrees(f),
        }
    }
}

/// The node values of the formula being edited, for screening an edit without
/// building the candidate.
enum Arena<'a> {
    Pl(screen::Arena),
    Fol(screen_fol::FolArena<'a>),
}

/// Screens the edits of one formula: its node values and the nodes where an edit can
/// change its value where it and φ₁ differ, made once for all its edits.
pub(super) struct Screener<'a> {
    f: &'a Formula,
    pool: &'a Pool,
    scr: &'a LogicScreen,
    arena: Option<Arena<'a>>,
    covering: Option<Vec<bool>>,
}

impl<'a> Screener<'a> {
    /// The screener of the edits of `f`.
    pub(super) fn new(f: &'a Formula, pool: &'a Pool, scr: &'a LogicScreen) -> Screener<'a> {
        let arena = match scr {
            LogicScreen::Pl(s) => s.arena(f).map(Arena::Pl),
            LogicScreen::Fol(s) => Some(Arena::Fol(s.arena(f))),
        };
        let covering = match (scr, &arena) {
            (LogicScreen::Pl(s), Some(Arena::Pl(ar))) => Some(s.covering(ar)),
            (LogicScreen::Fol(s), Some(Arena::Fol(ar))) => Some(s.covering(ar)),
            _ => None,
        };
        Screener {
            f,
            pool,
            scr,
            arena,
            covering,
        }
    }

    /// Whether edit `e` of the formula passes the screen (takes φ₁'s value wherever
    /// the screen looks); one that does not apply does not.
    pub(super) fn passes(&self, e: &Edit) -> bool {
        !self.ruled_out(e) && self.passes_rest(e)
    }

    /// The cheap part of [`Screener::passes`]: whether `e` fails it by the covering
    /// alone, or on the PL node tables (a few word operations an edit). For a search
    /// that meets most edits only to drop them, where keeping each one costs more.
    pub(super) fn ruled_out(&self, e: &Edit) -> bool {
        if self
            .covering
            .as_ref()
            .is_some_and(|c| c.get(e.at) == Some(&false))
        {
            return true;
        }
        match (self.scr, &self.arena) {
            (LogicScreen::Pl(s), Some(Arena::Pl(ar))) => !s.edit_agrees(ar, e),
            _ => false,
        }
    }

    /// The rest of [`Screener::passes`] for an edit not [`Screener::ruled_out`]: the
    /// FOL models, or the candidate built and screened whole.
    pub(super) fn passes_rest(&self, e: &Edit) -> bool {
        match (self.scr, &self.arena) {
            (LogicScreen::Pl(_), Some(Arena::Pl(_))) => true,
            (LogicScreen::Fol(s), Some(Arena::Fol(ar))) => s.edit_agrees(ar, e, self.pool),
            _ => logic::apply(self.f, e, self.pool).is_some_and(|g| self.scr.agrees(&g)),
        }
    }
}

/// Whether `e` is an added operand that alone says what φ₁ says (`degenerate`, per
/// pool operand): it explains nothing (`φ₀ ∧ φ₁`), so it is never a candidate.
pub(super) fn adds_degenerate(e: &Edit, degenerate: &[bool]) -> bool {
    matches!(e.op, logic::Op::Add(_, i) if degenerate.get(i) == Some(&true))
}

/// The edits of `f` weighing at most `max_weight` that pass the screen (PL edits are
/// screened on the node tables, without building the candidate; the caller builds
/// the candidates it looks at, and leaves out an edit that does not apply).
pub(super) fn survivors(
    f: &Formula,
    pool: &Pool,
    scr: &LogicScreen,
    degenerate: &[bool],
    max_weight: usize,
    budget: &mut usize,
    wanted: &dyn Fn(&Edit) -> bool,
) -> Vec<Edit> {
    let screener = Screener::new(f, pool, scr);
    let mut out = Vec::new();
    // The edits are screened as they are made, in their order; those left out before
    // the budget (an added operand that says φ₁ alone, one too heavy) do not count.
    // An edit the covering rules out is counted all the same, so the search (and its
    // answer) is the one that screened every edit.
    logic::each_edit(f, pool, &mut |e| {
        if adds_degenerate(&e, degenerate)
            || logic::weight(&e.op, pool) > max_weight
            || *budget == 0
            || !wanted(&e)
        {
            return;
        }
        *budget -= 1;
        if screener.passes(&e) {
            out.push(e);
        }
    });
    out
}
