//! Why a two-mutation pair was missed (issue 47's fresh test, AUTOEVAL_FRESH_DIAG):
//! the pairs of edits that make the planted φ₁ (before its rewrite), where the first
//! of them stands in the search's order, the budget spent before it, whether both
//! edits are pointed at, whether the screen passes the pair and what the verifier
//! says of it under the confirmation budget. A diagnosis, not part of the search.

use super::{
    BUDGET_FOL, BUDGET_PL, CONFIRM_TIMEOUT, Change, Expr, Formula, LogicScreen, Options,
    Structural, decide, focus, logic, logic_screen, rank, survivors,
};

/// Index path of the lowest node containing every difference between `x` and `y`
/// (pre-order index in `x`), or None if equal.
fn diff_at(x: &Formula, y: &Formula, base: usize) -> Option<Vec<usize>> {
    if x == y {
        return None;
    }
    match (x, y) {
        (Formula::Not(a), Formula::Not(b)) => {
            let mut p = diff_at(a, b, base + 1)?;
            p.insert(0, base);
            Some(p)
        }
        (Formula::Quant(q, v, a), Formula::Quant(r, w, b)) if q == r && v == w => {
            let mut p = diff_at(a, b, base + 1)?;
            p.insert(0, base);
            Some(p)
        }
        (Formula::Bin(o, a1, a2), Formula::Bin(p, b1, b2)) if o == p => {
            let l = diff_at(a1, b1, base + 1);
            let r = diff_at(a2, b2, base + 1 + a1.size());
            match (l, r) {
                (Some(mut l), None) => {
                    l.insert(0, base);
                    Some(l)
                }
                (None, Some(mut r)) => {
                    r.insert(0, base);
                    Some(r)
                }
                _ => Some(vec![base]),
            }
        }
        _ => Some(vec![base]),
    }
}

/// Edits `e` of `f` with apply(f, e) == target (at ancestors of the difference).
fn single(f: &Formula, target: &Formula, pool: &logic::Pool) -> Vec<logic::Edit> {
    let Some(path) = diff_at(f, target, 0) else {
        return vec![];
    };
    let mut out = vec![];
    logic::each_edit(f, pool, &mut |e| {
        if path.contains(&e.at) && logic::apply(f, &e, pool).as_ref() == Some(target) {
            out.push(e);
        }
    });
    out
}

/// The pairs of edits that make `p` from `a` (noting in `s` when one edit does).
fn right_pairs(
    a: &Formula,
    p: &Formula,
    pool: &logic::Pool,
    s: &mut String,
) -> Vec<(logic::Edit, logic::Edit)> {
    // The right pairs.
    let mut right = vec![];
    for e1 in logic::edits(a, pool) {
        let Some(f1) = logic::apply(a, &e1, pool) else {
            continue;
        };
        if &f1 == p {
            *s += " | planted is ONE edit";
        }
        for e2 in single(&f1, p, pool) {
            right.push((e1.clone(), e2));
        }
    }
    right
}

/// The diagnosis of φ₀ = `a` against φ₁ = `b`, which is `planted` rewritten (logic
/// pairs only), on one line.
#[doc(hidden)]
pub fn diagnose(a: &Expr, planted: &Expr, b: &Expr) -> String {
    let (Expr::Logic(a), Expr::Logic(p), Expr::Logic(b)) = (a, planted, b) else {
        return "regex: n/a".into();
    };
    let opts = Options {
        timeout: CONFIRM_TIMEOUT,
        ..Options::default()
    };
    let pool = logic::Pool::new(a, b);
    let mut s = format!("size {} pool_ops {}", a.size(), pool.operands.len());
    let scr = logic_screen(a, b, &pool, None, &opts);
    let budget_two = match scr {
        LogicScreen::Pl(_) => BUDGET_PL,
        LogicScreen::Fol(_) => BUDGET_FOL,
    };
    let degenerate: Vec<bool> = pool.operands.iter().map(|x| scr.agrees(x)).collect();
    let right = right_pairs(a, p, &pool, &mut s);
    if right.is_empty() {
        s += " | right pair NOT representable";
        return s;
    }
    s += &format!(" | right pairs {}", right.len());
    let kinds = Structural::new(&Expr::Logic(a.clone()), &Expr::Logic(b.clone()))
        .kinds()
        .to_vec();
    let kept = focus::Kept::new(b);
    let focus = kept.levels(a);
    let pointed = kept.pointed(a, &pool);
    s += &format!(" pointed {}", pointed.len());
    let mut firsts: Vec<(usize, logic::Edit, (Change, String))> = logic::edits(a, &pool)
        .into_iter()
        .map(|e| (logic::weight(&e.op, &pool), e))
        .filter_map(|(w, e)| Some((w, logic::describe(a, &e, &pool)?, e)))
        .map(|(w, d, e)| (w, e, d))
        .collect();
    firsts.sort_by_key(|(w, e, d)| {
        let r = rank(d.0, &kinds);
        (r.0, focus.get(e.at).copied().unwrap_or(2), *w, r.1, r.2)
    });
    let mut spent = 0usize;
    let mut npairs = 0usize;
    let mut reported = 0;
    for (idx, (_w1, e1, d1)) in firsts.iter().enumerate() {
        let Some(f1) = logic::apply(a, e1, &pool) else {
            continue;
        };
        let mut big = usize::MAX;
        let before = big;
        let surv = survivors(&f1, &pool, &scr, &degenerate, usize::MAX, &mut big, &|_| {
            true
        });
        let cost = before - big;
        for (r1, r2) in &right {
            if r1 == e1 && reported < 2 {
                reported += 1;
                let passes = surv.contains(r2);
                let Some(g) = logic::apply(&f1, r2, &pool) else {
                    continue;
                };
                let d2 = logic::describe(&f1, r2, &pool)
                    .map(|d| d.1)
                    .unwrap_or_default();
                let p2 = kept.pointed(&f1, &pool);
                s += &format!(
                    " | e1 pointed {} e2 pointed {} (of {})",
                    pointed.contains(e1),
                    p2.contains(r2),
                    p2.len()
                );
                let v = decide(&Expr::Logic(g.clone()), &Expr::Logic(b.clone()), &opts);
                s += &format!(
                    " | first#{idx}/{} focus {} [{}] + [{}]: budget before {spent}/{budget_two} pairs before {npairs}, screen {}, z3 {}",
                    firsts.len(),
                    focus.get(e1.at).copied().unwrap_or(9),
                    d1.1,
                    d2,
                    if passes { "pass" } else { "REJECT" },
                    v.name()
                );
            }
        }
        spent += cost;
        npairs += surv.len();
    }
    s
}
