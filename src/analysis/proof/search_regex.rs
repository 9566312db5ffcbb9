//! The regex proof search: one edit, then two, then a moved star with one more edit.

use super::{
    BUDGET_REGEX, MAX_CONFIRM, PAIR_CAP, named, near, nearest, pair_limit, pair_rank, rank, regex,
};
use crate::analysis::failure_kind::{FailureKind, kind_of_change};
use crate::syntax::Expr;
use crate::syntax::Regex;
use crate::syntax::diff::{Change, NamedChange};
use crate::verify::{self, Options};

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
    let confirm =
        |g: &Regex| verify::verify(&Expr::Regex(g.clone()), &target, opts).is_equivalent();
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
    let mut one: Vec<(usize, (Change, String), Regex)> = regex::edits(a, &pool)
        .into_iter()
        .filter_map(|e| {
            let g = pass(a, &e)?;
            Some((
                regex::weight(&e.op, &pool),
                regex::describe(a, &e, &pool)?,
                g,
            ))
        })
        .collect();
    let counts = near::regex_counts(b);
    one.sort_by_cached_key(|(w, d, g)| {
        (
            *w,
            nearest(rank(d.0, &kinds), near::regex_distance(g, &counts)),
        )
    });
    let proved_one = one
        .iter()
        .take(MAX_CONFIRM)
        .find(|(_, _, g)| confirm(g))
        .map(|(w, d, _)| (*w, named(d.clone())));
    let Some(limit) = pair_limit(proved_one.as_ref()) else {
        return proved_one.map(|(_, c)| vec![c]);
    };
    let mut firsts: Vec<(usize, (Change, String), regex::Edit)> = regex::edits(a, &pool)
        .into_iter()
        .map(|e| (regex::weight(&e.op, &pool), e))
        .filter(|(w, _)| *w < limit)
        .filter_map(|(w, e)| Some((w, regex::describe(a, &e, &pool)?, e)))
        .collect();
    firsts.sort_by_key(|(_, d, _)| rank(d.0, &kinds));
    // Every screened pair within the budget, then the best-ranked confirmed (as for logic).
    let mut budget = BUDGET_REGEX;
    let mut pairs = Vec::new();
    for (w1, d1, e1) in firsts {
        if budget == 0 || pairs.len() >= PAIR_CAP {
            break;
        }
        let Some(r1) = regex::apply(a, &e1, &pool) else {
            continue;
        };
        for e2 in regex::edits(&r1, &pool) {
            if budget == 0 {
                break;
            }
            let w = w1 + regex::weight(&e2.op, &pool);
            if w > limit {
                continue;
            }
            budget -= 1;
            if let Some(g) = pass(&r1, &e2)
                && let Some(d2) = regex::describe(&r1, &e2, &pool)
            {
                pairs.push((w, d1.clone(), d2, g));
            }
        }
    }
    pairs.sort_by_cached_key(|(w, d1, d2, g)| {
        (
            *w,
            nearest(
                pair_rank(d1.0, d2.0, &kinds),
                near::regex_distance(g, &counts),
            ),
        )
    });
    let proved_two = pairs
        .into_iter()
        .take(MAX_CONFIRM)
        .find(|(_, _, _, g)| confirm(g))
        .map(|(_, d1, d2, _)| vec![named(d1), named(d2)]);
    if let Some(found) = proved_two.or_else(|| proved_one.map(|(_, c)| vec![c])) {
        return Some(found);
    }
    // A moved star is two edits that are one slip; with one more edit it explains a
    // two-mistake regex the two-edit search cannot reach.
    let mut budget = BUDGET_REGEX;
    let mut triples = Vec::new();
    for (u, w) in moves(a, &pool) {
        if budget == 0 || triples.len() >= PAIR_CAP {
            break;
        }
        let Some(r1) = regex::apply(a, &u, &pool) else {
            continue;
        };
        let Some(r2) = regex::apply(&r1, &w, &pool) else {
            continue;
        };
        let (Some(du), Some(dw)) = (
            regex::describe(a, &u, &pool),
            regex::describe(&r1, &w, &pool),
        ) else {
            continue;
        };
        for e3 in regex::edits(&r2, &pool) {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if let Some(g) = pass(&r2, &e3)
                && let Some(d3) = regex::describe(&r2, &e3, &pool)
            {
                let w3 = 2 + regex::weight(&e3.op, &pool);
                triples.push((w3, du.clone(), dw.clone(), d3, g));
            }
        }
    }
    triples.sort_by_cached_key(|(w, _, _, d3, g)| {
        (
            *w,
            nearest(rank(d3.0, &kinds), near::regex_distance(g, &counts)),
        )
    });
    triples
        .into_iter()
        .take(MAX_CONFIRM)
        .find(|(.., g)| confirm(g))
        .map(|(_, du, dw, d3, _)| vec![named(du), named(dw), named(d3)])
}

/// Every star (or other repetition) of `r` moved to another place: the repetition
/// removed, then the same repetition put on a symbol, concatenation or alternation
/// of the result (as a model moves it), as the two edits that do it.
fn moves(r: &Regex, pool: &regex::Pool) -> Vec<(regex::Edit, regex::Edit)> {
    let mut sites = Vec::new();
    let mut at = 0;
    r.walk(&mut |x| {
        let kind = match x {
            Regex::Star(_) => Some(0),
            Regex::Plus(_) => Some(1),
            Regex::Opt(_) => Some(2),
            Regex::Repeat(_, n, m) => pool
                .bounds
                .iter()
                .position(|b| *b == (*n, *m))
                .map(|i| 3 + i),
            _ => None,
        };
        if let Some(k) = kind {
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
        let Some(removed) = regex::apply(r, &unwrap, pool) else {
            continue;
        };
        let mut j = 0;
        removed.walk(&mut |x| {
            if j != i && matches!(x, Regex::Sym(_) | Regex::Concat(_) | Regex::Alt(_)) {
                out.push((
                    unwrap.clone(),
                    regex::Edit {
                        at: j,
                        op: regex::Op::Wrap(k),
                    },
                ));
            }
            j += 1;
        });
    }
    out
}
