//! The regex proof search: one edit or one moved star, then two (a moved star with
//! one more edit, and two moved stars, among them).
//!
//! A moved star (a repetition removed in one place and the same put on another) is
//! one slip and weighs one, as the perturbation that plants it does: it is two named
//! changes but competes with single edits, and with one more edit it is a pair. Of
//! pairs of equal weight, the one nearest φ₁ (symbol counts) wins before an added
//! operand is put last: the pair that writes φ₁'s symbols is the one made (`00*1*` →
//! `00**01`: a star removed and an added `0`, not `0*` → `0+` with `1*` → `1`, which
//! leaves a `0` out).

use super::{
    BUDGET_REGEX, MAX_CONFIRM, PAIR_CAP, focus_regex, named, near, pair_limit, rank, regex,
};
use crate::analysis::failure_kind::{FailureKind, kind_of_change};
use crate::syntax::Expr;
use crate::syntax::Regex;
use crate::syntax::diff::{Change, NamedChange};
use crate::verify::{self, Options};
use std::collections::{BTreeMap, HashSet};

/// What a moved star weighs: one slip, however many nodes it touches.
const MOVE_WEIGHT: usize = 1;

/// A moved star: the regex with the repetition removed, that removal named, and the
/// edit putting it back elsewhere.
type Move = (Regex, (Change, String), regex::Edit);

/// A screened candidate: its weight, its slips (a moved star is one), the changes it
/// names and the regex it makes.
struct Cand {
    weight: usize,
    slips: usize,
    changes: Vec<(Change, String)>,
    made: Regex,
}

/// A candidate's rank: lightest, fewest slips, then fewest added operands before
/// nearest φ₁ for one slip (an added operand is the catch-all, and one that merely
/// restores symbols a rewrite duplicated, `x*` written `x*x*`, must not win) and
/// nearest φ₁ first for two (one of two mistakes, bounded by the pair's weight: the
/// pair that writes φ₁'s symbols is the one made), then fewest kinds the structural
/// diff does not show and the lower classes ([`rank`]).
fn order(c: &Cand, kinds: &[FailureKind], counts: &BTreeMap<char, usize>) -> [usize; 6] {
    let (mut added, mut unseen, mut class) = (0, 0, 0);
    for (ch, _) in &c.changes {
        let r = rank(*ch, kinds);
        added += usize::from(r.0);
        unseen += usize::from(r.1);
        class += usize::from(r.2);
    }
    let near = near::regex_distance(&c.made, counts);
    if c.slips == 1 {
        [c.weight, c.slips, added, near, unseen, class]
    } else {
        [c.weight, c.slips, near, added, unseen, class]
    }
}

pub(super) fn search(
    a: &Regex,
    b: &Regex,
    structural: &[NamedChange],
    opts: &Options,
) -> Option<Vec<NamedChange>> {
    let pool = regex::Pool::new(a, b);
    let scr = regex::RegexScreen::new(a, b, &pool);
    let kinds: Vec<FailureKind> = structural
        .iter()
        .filter_map(|c| kind_of_change(c.change))
        .collect();
    let target = Expr::Regex(b.clone());
    // At most MAX_CONFIRM a level are asked; the witness of one refuted refutes later
    // candidates without asking again (as for logic).
    let learned = std::cell::RefCell::new(regex::Learned::default());
    let confirm = |g: &Regex, calls: &mut usize| -> Option<bool> {
        if learned.borrow().refutes(g) {
            return Some(false);
        }
        if *calls == 0 {
            return None;
        }
        *calls -= 1;
        Some(
            match verify::verify(&Expr::Regex(g.clone()), &target, opts) {
                verify::Verdict::NotEquivalent { countermodel, .. } => {
                    if let verify::Countermodel::Witness {
                        string,
                        accepted_by,
                    } = countermodel
                    {
                        let accepted = accepted_by == verify::Side::Right;
                        learned.borrow_mut().learn(&string, accepted, &pool.syms);
                    }
                    false
                }
                v => v.is_equivalent(),
            },
        )
    };
    let degenerate: Vec<bool> = pool.operands.iter().map(|x| scr.agrees(x)).collect();
    let pass = |r: &Regex, e: &regex::Edit| {
        if let regex::Op::Alt(j) = e.op
            && degenerate.get(j) == Some(&true)
        {
            return None;
        }
        let g = regex::apply(r, e, &pool)?;
        scr.agrees(&g).then_some(g)
    };
    let counts = near::regex_counts(b);
    let best = |mut cands: Vec<Cand>| {
        cands.sort_by_cached_key(|c| order(c, &kinds, &counts));
        let mut calls = MAX_CONFIRM;
        for c in cands {
            match confirm(&c.made, &mut calls) {
                Some(true) => return Some((c.weight, c.changes)),
                Some(false) => {}
                None => return None,
            }
        }
        None
    };
    let moved = moves(a, &pool);
    // The edits where the diff points are screened first: past the screen's work
    // limit no candidate passes, and on a large φ₀ the limit is reached.
    let kept = focus_regex::Kept::new(b);
    let by_focus = |r: &Regex| {
        let levels = kept.levels(r);
        let mut es = regex::edits(r, &pool);
        es.sort_by_key(|e| levels.get(e.at).copied().unwrap_or(2));
        es
    };
    let proved_one = best(singles(a, &moved, &pool, &kept, &by_focus, &pass));
    let Some(limit) = pair_limit(proved_one.as_ref()) else {
        return proved_one.map(|(_, c)| c.into_iter().map(named).collect());
    };
    scr.renew();
    let mut pairs = edit_pairs(a, &pool, &kept, &kinds, limit, &pass, &by_focus);
    moved_pairs(&moved, &kept, limit, &pool, &pass, &mut pairs);
    moved_moves(&moved, &kept, limit, &pool, &pass, &mut pairs);
    best(pairs)
        .or(proved_one)
        .map(|(_, c)| c.into_iter().map(named).collect())
}

/// The one-slip candidates: each single edit of `a` (where the diff points first) and
/// each moved star that passes the screen. Those making a part φ₁ holds are screened
/// first (edits, then moves), then the other edits and moves: on a large φ₀ with
/// nested stars the screen's work limit is reached before every edit is seen.
fn singles(
    a: &Regex,
    moved: &[Move],
    pool: &regex::Pool,
    kept: &focus_regex::Kept,
    by_focus: &impl Fn(&Regex) -> Vec<regex::Edit>,
    pass: &impl Fn(&Regex, &regex::Edit) -> Option<Regex>,
) -> Vec<Cand> {
    let pointed: HashSet<regex::Edit> = kept.pointed(a, pool).into_iter().collect();
    let edits = by_focus(a);
    let lands = |r: &Regex, w: &regex::Edit| {
        regex::node(r, w.at)
            .and_then(|x| regex::local(x, &w.op, pool))
            .is_some_and(|y| kept.holds(&y))
    };
    // Each candidate keeps its place in the plain order (edits, then moves), where
    // equal ranks are settled as before: the screening order changes what is seen
    // within the work limit, not which of two equal candidates wins.
    let n = edits.len();
    let mut plan: Vec<(u8, usize)> = (0..n + moved.len())
        .map(|i| {
            let first = match (edits.get(i), moved.get(i.wrapping_sub(n))) {
                (Some(e), _) => u8::from(!pointed.contains(e)) * 2,
                (None, Some((r1, _, w))) => 1 + u8::from(!lands(r1, w)) * 2,
                (None, None) => 4,
            };
            (first, i)
        })
        .collect();
    plan.sort_by_key(|(first, _)| *first);
    let mut one: Vec<(usize, Cand)> = Vec::new();
    for (_, i) in plan {
        if let Some(e) = edits.get(i) {
            if let Some(made) = pass(a, e)
                && let Some(d) = regex::describe(a, e, pool)
            {
                let weight = regex::weight(&e.op, pool);
                let changes = vec![d];
                one.push((
                    i,
                    Cand {
                        weight,
                        slips: 1,
                        changes,
                        made,
                    },
                ));
            }
        } else if let Some((r1, du, w)) = moved.get(i - n)
            && let Some(made) = pass(r1, w)
            && let Some(dw) = regex::describe(r1, w, pool)
        {
            let changes = vec![du.clone(), dw];
            one.push((
                i,
                Cand {
                    weight: MOVE_WEIGHT,
                    slips: 1,
                    changes,
                    made,
                },
            ));
        }
    }
    one.sort_by_key(|(i, _)| *i);
    one.into_iter().map(|(_, c)| c).collect()
}

/// The screened pairs of two edits lighter than `limit`: pairs of pointed edits
/// first, then every pair not tried yet, within the budget.
fn edit_pairs(
    a: &Regex,
    pool: &regex::Pool,
    kept: &focus_regex::Kept,
    kinds: &[FailureKind],
    limit: usize,
    pass: &impl Fn(&Regex, &regex::Edit) -> Option<Regex>,
    by_focus: &impl Fn(&Regex) -> Vec<regex::Edit>,
) -> Vec<Cand> {
    let levels = kept.levels(a);
    let mut firsts: Vec<(usize, (Change, String), regex::Edit)> = regex::edits(a, pool)
        .into_iter()
        .map(|e| (regex::weight(&e.op, pool), e))
        .filter(|(w, _)| *w < limit)
        .filter_map(|(w, e)| Some((w, regex::describe(a, &e, pool)?, e)))
        .collect();
    firsts.sort_by_key(|(_, d, e)| (rank(d.0, kinds), levels.get(e.at).copied().unwrap_or(2)));
    // Every screened pair within the budget, then the best-ranked confirmed (as for
    // logic): pairs of pointed edits first, then every pair.
    let mut budget = BUDGET_REGEX;
    let mut pairs = Vec::new();
    let pointed: HashSet<regex::Edit> = kept.pointed(a, pool).into_iter().collect();
    let mut tried: Vec<Option<HashSet<regex::Edit>>> = vec![None; firsts.len()];
    for ((w1, d1, e1), slot) in firsts.iter().zip(tried.iter_mut()) {
        if budget == 0 || pairs.len() >= PAIR_CAP {
            break;
        }
        if !pointed.contains(e1) {
            continue;
        }
        let Some(r1) = regex::apply(a, e1, pool) else {
            continue;
        };
        let second: HashSet<regex::Edit> = kept.pointed(&r1, pool).into_iter().collect();
        let seconds: Vec<regex::Edit> = regex::edits(&r1, pool)
            .into_iter()
            .filter(|e| second.contains(e))
            .collect();
        pair_up(
            a,
            &r1,
            (*w1, d1, e1),
            seconds,
            limit,
            &mut budget,
            &mut pairs,
            pass,
            pool,
        );
        *slot = Some(second);
    }
    let cap = pairs.len() + PAIR_CAP;
    for ((w1, d1, e1), tried) in firsts.iter().zip(&tried) {
        if budget == 0 || pairs.len() >= cap {
            break;
        }
        let Some(r1) = regex::apply(a, e1, pool) else {
            continue;
        };
        let seconds: Vec<regex::Edit> = by_focus(&r1)
            .into_iter()
            .filter(|e| !tried.as_ref().is_some_and(|t| t.contains(e)))
            .collect();
        pair_up(
            a,
            &r1,
            (*w1, d1, e1),
            seconds,
            limit,
            &mut budget,
            &mut pairs,
            pass,
            pool,
        );
    }
    pairs
}

/// The screened moved stars with one more edit (two slips), within `limit` and a
/// budget of their own, appended to `pairs`. Moves that put the star on a part φ₁
/// holds are screened first, and of each move's next edits those making a part φ₁
/// holds; the pairs found keep the plain order (moves, then edits, as made), where
/// equal ranks are settled.
fn moved_pairs(
    moved: &[Move],
    kept: &focus_regex::Kept,
    limit: usize,
    pool: &regex::Pool,
    pass: &impl Fn(&Regex, &regex::Edit) -> Option<Regex>,
    pairs: &mut Vec<Cand>,
) {
    let lands = |r: &Regex, w: &regex::Edit| {
        regex::node(r, w.at)
            .and_then(|x| regex::local(x, &w.op, pool))
            .is_some_and(|y| kept.holds(&y))
    };
    let mut plan: Vec<usize> = (0..moved.len()).collect();
    plan.sort_by_key(|&i| moved.get(i).is_none_or(|(r1, _, w)| !lands(r1, w)));
    let mut budget = BUDGET_REGEX;
    let mut found: Vec<((usize, usize), Cand)> = Vec::new();
    for i in plan {
        if budget == 0 || found.len() >= PAIR_CAP {
            break;
        }
        let Some((r1, du, w)) = moved.get(i) else {
            continue;
        };
        let (Some(r2), Some(dw)) = (regex::apply(r1, w, pool), regex::describe(r1, w, pool)) else {
            continue;
        };
        let pointed: HashSet<regex::Edit> = kept.pointed(&r2, pool).into_iter().collect();
        let mut edits: Vec<(usize, regex::Edit)> =
            regex::edits(&r2, pool).into_iter().enumerate().collect();
        edits.sort_by_key(|(_, e)| !pointed.contains(e));
        for (j, e3) in edits {
            if budget == 0 {
                break;
            }
            let weight = MOVE_WEIGHT + regex::weight(&e3.op, pool);
            if weight > limit {
                continue;
            }
            budget -= 1;
            if let Some(made) = pass(&r2, &e3)
                && let Some(d3) = regex::describe(&r2, &e3, pool)
            {
                let changes = vec![du.clone(), dw.clone(), d3];
                found.push((
                    (i, j),
                    Cand {
                        weight,
                        slips: 2,
                        changes,
                        made,
                    },
                ));
            }
        }
    }
    found.sort_by_key(|(k, _)| *k);
    pairs.extend(found.into_iter().map(|(_, c)| c));
}

/// The screened pairs of two moved stars (two slips, as a model that moves two stars
/// makes: four edits to the pair search), within `limit` and a budget of their own,
/// appended to `pairs`. Moves that put the star on a part φ₁ holds starred come first,
/// first moves and second moves alike: the diff points at where each star went.
fn moved_moves(
    moved: &[Move],
    kept: &focus_regex::Kept,
    limit: usize,
    pool: &regex::Pool,
    pass: &impl Fn(&Regex, &regex::Edit) -> Option<Regex>,
    pairs: &mut Vec<Cand>,
) {
    let weight = 2 * MOVE_WEIGHT;
    if weight > limit {
        return;
    }
    // Whether the wrap `w` of `r` makes a part φ₁ holds.
    let lands = |r: &Regex, w: &regex::Edit| {
        regex::node(r, w.at)
            .and_then(|x| regex::local(x, &w.op, pool))
            .is_some_and(|y| kept.holds(&y))
    };
    let mut firsts: Vec<(bool, &Move)> = moved.iter().map(|m| (!lands(&m.0, &m.2), m)).collect();
    firsts.sort_by_key(|(away, _)| *away);
    let mut budget = BUDGET_REGEX;
    let mut found = 0;
    for (_, (r1, du, w)) in firsts {
        if budget == 0 || found >= PAIR_CAP {
            break;
        }
        let (Some(r2), Some(dw)) = (regex::apply(r1, w, pool), regex::describe(r1, w, pool)) else {
            continue;
        };
        let mut seconds: Vec<(bool, Move)> = moves(&r2, pool)
            .into_iter()
            .map(|m| (!lands(&m.0, &m.2), m))
            .collect();
        seconds.sort_by_key(|(away, _)| *away);
        for (_, (r3, du2, w2)) in seconds {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if let Some(made) = pass(&r3, &w2)
                && let Some(dw2) = regex::describe(&r3, &w2, pool)
            {
                found += 1;
                pairs.push(Cand {
                    weight,
                    slips: 2,
                    changes: vec![du.clone(), dw.clone(), du2, dw2],
                    made,
                });
            }
        }
    }
}

/// The screened pairs of the first edit `e1` (which made `r1` from `a`) with each of
/// `seconds`, within the weight `limit` and the budget.
#[allow(clippy::too_many_arguments)]
fn pair_up(
    a: &Regex,
    r1: &Regex,
    (w1, d1, e1): (usize, &(Change, String), &regex::Edit),
    seconds: Vec<regex::Edit>,
    limit: usize,
    budget: &mut usize,
    pairs: &mut Vec<Cand>,
    pass: &impl Fn(&Regex, &regex::Edit) -> Option<Regex>,
    pool: &regex::Pool,
) {
    // The repetition a first edit removed: put back elsewhere, it was moved.
    let removed = (e1.op == regex::Op::Unwrap)
        .then(|| repetition(regex::node(a, e1.at)?, pool))
        .flatten();
    for e2 in seconds {
        if *budget == 0 {
            break;
        }
        let is_move = removed.is_some_and(|k| e2.op == regex::Op::Wrap(k));
        let w = if is_move {
            MOVE_WEIGHT
        } else {
            w1 + regex::weight(&e2.op, pool)
        };
        if w > limit {
            continue;
        }
        *budget -= 1;
        if let Some(made) = pass(r1, &e2)
            && let Some(d2) = regex::describe(r1, &e2, pool)
        {
            pairs.push(Cand {
                weight: w,
                slips: if is_move { 1 } else { 2 },
                changes: vec![d1.clone(), d2],
                made,
            });
        }
    }
}

/// The repetition `x` is, as [`regex::Op::Wrap`] puts it back: 0 `*`, 1 `+`, 2 `?`,
/// 3 + i the pool's bound i.
fn repetition(x: &Regex, pool: &regex::Pool) -> Option<usize> {
    match x {
        Regex::Star(_) => Some(0),
        Regex::Plus(_) => Some(1),
        Regex::Opt(_) => Some(2),
        Regex::Repeat(_, n, m) => pool
            .bounds
            .iter()
            .position(|b| *b == (*n, *m))
            .map(|i| 3 + i),
        _ => None,
    }
}

/// Every star (or other repetition) of `r` moved to another place: the repetition
/// removed (giving the regex returned, and named), then the same repetition put on a
/// symbol, concatenation or alternation of the result (as a model moves it).
fn moves(r: &Regex, pool: &regex::Pool) -> Vec<Move> {
    let mut sites = Vec::new();
    let mut at = 0;
    r.walk(&mut |x| {
        if let Some(k) = repetition(x, pool) {
            sites.push((at, k));
        }
        at += 1;
    });
    let mut out = Vec::new();
    for (i, k) in sites {
        let unwrap = regex::Edit {
            at: i,
            op: regex::Op::Unwrap,
        };
        let (Some(removed), Some(du)) = (
            regex::apply(r, &unwrap, pool),
            regex::describe(r, &unwrap, pool),
        ) else {
            continue;
        };
        let mut j = 0;
        let mut wraps = Vec::new();
        removed.walk(&mut |x| {
            if j != i && matches!(x, Regex::Sym(_) | Regex::Concat(_) | Regex::Alt(_)) {
                wraps.push(regex::Edit {
                    at: j,
                    op: regex::Op::Wrap(k),
                });
            }
            j += 1;
        });
        out.extend(wraps.into_iter().map(|w| (removed.clone(), du.clone(), w)));
    }
    out
}
