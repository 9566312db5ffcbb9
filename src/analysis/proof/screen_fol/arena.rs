//! Screening an edit without building the candidate: every node of the formula
//! edited keeps its values on every model at every assignment of the variables bound
//! around it, the edited node's new values are had from its children's (or the edited
//! node alone, evaluated), and they are combined up the path to the root, through
//! quantifiers too; a model where the root's new value differs from φ₁'s ends the check.

use super::FolScreen;
use crate::analysis::proof::fol_model::{Dense, Prog};
use crate::analysis::proof::logic::{Edit, Op, Pool, apply, local};
use crate::syntax::{Formula, Quantifier};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Most values an arena keeps (over its nodes, models and assignments); a formula
/// nested deeper is screened by building each candidate, as the values would cost
/// more than they save.
const MAX_VALUES: usize = 1 << 20;

/// The values of every node of one formula on every model, at every assignment of
/// the variables bound around the node (the outermost variable the most significant
/// digit), nodes in pre-order.
pub(crate) struct FolArena<'a> {
    nodes: Vec<&'a Formula>,
    parent: Vec<usize>,
    kids: Vec<[usize; 2]>,
    /// Quantifiers around the node.
    depth: Vec<usize>,
    /// The innermost quantifier around the node (`usize::MAX`: none).
    scope: Vec<usize>,
    /// The outermost quantified formula around the node, else the node itself.
    region: Vec<usize>,
    /// Per node, model `m`'s values at `off[depth][m]..off[depth][m + 1]`; empty when
    /// they would exceed [`MAX_VALUES`] (each candidate is then built).
    vals: Vec<Vec<bool>>,
    off: Vec<Vec<usize>>,
    /// Pool operands' values in a scope (operand, scope), computed when first asked.
    operands: RefCell<OperandValues>,
}

impl FolArena<'_> {
    /// Node `i`'s values on model `m`.
    fn of(&self, i: usize, m: usize) -> &[bool] {
        let (Some(v), Some(o)) = (
            self.vals.get(i),
            self.depth.get(i).and_then(|d| self.off.get(*d)),
        ) else {
            return &[];
        };
        match (o.get(m), o.get(m + 1)) {
            (Some(&s), Some(&e)) => v.get(s..e).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The variables bound around node `i`, outermost first.
    fn bound(&self, i: usize) -> Vec<&str> {
        let mut out = Vec::new();
        let mut q = self.scope.get(i).copied().unwrap_or(usize::MAX);
        while let Some(Formula::Quant(_, v, _)) = self.nodes.get(q) {
            out.push(v.as_str());
            q = self.scope.get(q).copied().unwrap_or(usize::MAX);
        }
        out.reverse();
        out
    }

    fn tables(&self) -> bool {
        !self.vals.is_empty()
    }
}

/// Pool operands' values by (operand, scope).
type OperandValues = HashMap<(usize, usize), Rc<Vec<bool>>>;

/// How an edited node's new values are had.
enum New {
    /// From the arena's tables alone.
    Tables,
    /// The node combined with a pool operand's values in its scope.
    Operand(Rc<Vec<bool>>),
    /// The edited node alone, compiled and evaluated at every assignment.
    Built(Prog),
}

impl FolScreen {
    /// The node values of `f`.
    pub fn arena<'a>(&self, f: &'a Formula) -> FolArena<'a> {
        fn go<'a>(
            f: &'a Formula,
            parent: usize,
            scope: usize,
            depth: usize,
            region: Option<usize>,
            ar: &mut FolArena<'a>,
        ) {
            let at = ar.nodes.len();
            ar.nodes.push(f);
            ar.parent.push(parent);
            ar.kids.push([usize::MAX; 2]);
            ar.depth.push(depth);
            ar.scope.push(scope);
            ar.region.push(region.unwrap_or(at));
            match f {
                Formula::Not(a) => {
                    ar.kids[at][0] = ar.nodes.len();
                    go(a, at, scope, depth, region, ar);
                }
                Formula::Bin(_, a, b) => {
                    ar.kids[at][0] = ar.nodes.len();
                    go(a, at, scope, depth, region, ar);
                    ar.kids[at][1] = ar.nodes.len();
                    go(b, at, scope, depth, region, ar);
                }
                Formula::Quant(_, _, a) => {
                    ar.kids[at][0] = ar.nodes.len();
                    go(a, at, at, depth + 1, Some(region.unwrap_or(at)), ar);
                }
                Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => {}
            }
        }
        let mut ar = FolArena {
            nodes: Vec::new(),
            parent: Vec::new(),
            kids: Vec::new(),
            depth: Vec::new(),
            scope: Vec::new(),
            region: Vec::new(),
            vals: Vec::new(),
            off: Vec::new(),
            operands: RefCell::new(HashMap::new()),
        };
        go(f, usize::MAX, usize::MAX, 0, None, &mut ar);
        let deepest = ar.depth.iter().copied().max().unwrap_or(0);
        let mut total = Some(0usize);
        for d in 0..=deepest + 1 {
            let mut o = vec![0];
            let mut at = Some(0usize);
            for m in &self.models {
                at = at
                    .zip(m.size.checked_pow(u32::try_from(d).unwrap_or(u32::MAX)))
                    .and_then(|(a, n)| a.checked_add(n));
                o.push(at.unwrap_or(usize::MAX));
            }
            let per = at.unwrap_or(usize::MAX);
            let nodes = ar.depth.iter().filter(|x| **x == d).count();
            total = total
                .zip(per.checked_mul(nodes))
                .and_then(|(t, n)| t.checked_add(n));
            ar.off.push(o);
        }
        if total.is_some_and(|t| t <= MAX_VALUES) {
            ar.vals = self.node_values(&ar);
        }
        ar
    }

    /// Every node's values, children before parents.
    fn node_values(&self, ar: &FolArena<'_>) -> Vec<Vec<bool>> {
        let mut vals: Vec<Vec<bool>> = vec![Vec::new(); ar.nodes.len()];
        for i in (0..ar.nodes.len()).rev() {
            let [k0, k1] = ar.kids[i];
            let (d, o) = (ar.depth[i], &ar.off[ar.depth[i]]);
            let v = match ar.nodes[i] {
                Formula::Not(_) => vals[k0].iter().map(|x| !x).collect(),
                Formula::Bin(op, ..) => vals[k0]
                    .iter()
                    .zip(&vals[k1])
                    .map(|(x, y)| op.apply(*x, || *y))
                    .collect(),
                Formula::Quant(q, ..) => {
                    let body = &vals[k0];
                    let inner = &ar.off[d + 1];
                    let mut v = Vec::with_capacity(o.last().copied().unwrap_or(0));
                    for (m, model) in self.models.iter().enumerate() {
                        let s = body.get(inner[m]..inner[m + 1]).unwrap_or(&[]);
                        quantify(*q, s, model.size, &mut v);
                    }
                    v
                }
                atom => {
                    let p = self.syms.compile(atom, &ar.bound(i));
                    let mut v = Vec::with_capacity(o.last().copied().unwrap_or(0));
                    for m in &self.models {
                        p.table(m, d, &mut v);
                    }
                    v
                }
            };
            vals[i] = v;
        }
        vals
    }

    /// Pool operand `i`'s values in node `at`'s scope (None: no such operand).
    fn operand(
        &self,
        ar: &FolArena<'_>,
        i: usize,
        at: usize,
        pool: &Pool,
    ) -> Option<Rc<Vec<bool>>> {
        let scope = *ar.scope.get(at)?;
        if let Some(v) = ar.operands.borrow().get(&(i, scope)) {
            return Some(Rc::clone(v));
        }
        let p = self.syms.compile(pool.operands.get(i)?, &ar.bound(at));
        let d = *ar.depth.get(at)?;
        let mut v = Vec::new();
        for m in &self.models {
            p.table(m, d, &mut v);
        }
        let v = Rc::new(v);
        ar.operands.borrow_mut().insert((i, scope), Rc::clone(&v));
        Some(v)
    }

    /// Whether the edit of the arena's formula takes φ₁'s value on every model: the
    /// same answer as evaluating the edited formula, one model at a time. The first
    /// model (where φ₀ and φ₁ differ, when any does: most candidates fail there) is
    /// checked alone, then the others in stretches, a pass over all their values per
    /// node on the path to the root rather than a pass per model.
    pub fn edit_agrees(&self, ar: &FolArena<'_>, e: &Edit, pool: &Pool) -> bool {
        let Some(&node) = ar.nodes.get(e.at) else {
            return false;
        };
        if !ar.tables() {
            return ar
                .nodes
                .first()
                .and_then(|f| apply(f, e, pool))
                .is_some_and(|g| self.agrees(&g));
        }
        let new = match (&e.op, node) {
            (Op::Negate, _)
            | (Op::Unnegate, Formula::Not(_))
            | (Op::Connective(_) | Op::SwapOperands | Op::Keep(_), Formula::Bin(..))
            | (Op::FlipQuant, Formula::Quant(..)) => New::Tables,
            (Op::Add(_, i), _) => match self.operand(ar, *i, e.at, pool) {
                Some(v) => New::Operand(v),
                None => return false,
            },
            _ => match local(node, &e.op, pool) {
                Some(g) => New::Built(self.syms.compile(&g, &ar.bound(e.at))),
                None => return false,
            },
        };
        let mut bufs = (Vec::new(), Vec::new());
        // Stretches doubling in length: an edit that fails early is not evaluated on
        // every model, one that passes is in a few passes.
        let (n, mut start, mut len) = (self.models.len(), 0, 1);
        while start < n {
            let end = (start + len).min(n);
            if !self.agree_on(ar, e, node, &new, start..end, &mut bufs) {
                return false;
            }
            (start, len) = (end, len * 2);
        }
        true
    }

    /// Whether the edit takes φ₁'s value on the models in `models` (a range: their
    /// values are one stretch of every node's), all computed together.
    fn agree_on(
        &self,
        ar: &FolArena<'_>,
        e: &Edit,
        node: &Formula,
        new: &New,
        models: std::ops::Range<usize>,
        (cur, next): &mut (Vec<bool>, Vec<bool>),
    ) -> bool {
        if models.is_empty() {
            return true;
        }
        let Some(sizes) = self.models.get(models.clone()) else {
            return false;
        };
        let mut d = ar.depth[e.at];
        // Node `i`'s values (at depth `d`) on these models.
        let part = |i: usize, d: usize| -> &[bool] {
            let (Some(v), Some(o)) = (ar.vals.get(i), ar.off.get(d)) else {
                return &[];
            };
            match (o.get(models.start), o.get(models.end)) {
                (Some(&s), Some(&e)) => v.get(s..e).unwrap_or(&[]),
                _ => &[],
            }
        };
        let [k0, k1] = ar.kids[e.at];
        cur.clear();
        match (new, &e.op, node) {
            (New::Operand(v), Op::Add(o, _), _) => {
                let xs = match (ar.off[d].get(models.start), ar.off[d].get(models.end)) {
                    (Some(&s), Some(&e)) => v.get(s..e).unwrap_or(&[]),
                    _ => &[],
                };
                cur.extend(
                    part(e.at, d)
                        .iter()
                        .zip(xs)
                        .map(|(x, y)| o.apply(*x, || *y)),
                );
            }
            (New::Built(p), ..) => {
                for m in sizes {
                    p.table(m, d, cur);
                }
            }
            (_, Op::Negate, _) => cur.extend(part(e.at, d).iter().map(|x| !x)),
            (_, Op::Unnegate | Op::Keep(true), _) => cur.extend_from_slice(part(k0, d)),
            (_, Op::Keep(false), _) => cur.extend_from_slice(part(k1, d)),
            (_, Op::Connective(o), _) => cur.extend(
                part(k0, d)
                    .iter()
                    .zip(part(k1, d))
                    .map(|(x, y)| o.apply(*x, || *y)),
            ),
            (_, Op::SwapOperands, Formula::Bin(o, ..)) => cur.extend(
                part(k1, d)
                    .iter()
                    .zip(part(k0, d))
                    .map(|(x, y)| o.apply(*x, || *y)),
            ),
            (_, Op::FlipQuant, Formula::Quant(q, ..)) => {
                quantify_each(q.dual(), part(k0, d + 1), sizes, d + 1, cur);
            }
            _ => return false,
        }
        let mut at = e.at;
        while let Some(&p) = ar.parent.get(at) {
            match ar.nodes.get(p) {
                Some(Formula::Not(_)) => cur.iter_mut().for_each(|x| *x = !*x),
                Some(Formula::Bin(op, ..)) => {
                    let [a, b] = ar.kids[p];
                    if a == at {
                        for (x, y) in cur.iter_mut().zip(part(b, d)) {
                            *x = op.apply(*x, || *y);
                        }
                    } else {
                        for (x, y) in cur.iter_mut().zip(part(a, d)) {
                            *x = op.apply(*y, || *x);
                        }
                    }
                }
                Some(Formula::Quant(q, ..)) => {
                    next.clear();
                    quantify_each(*q, cur, sizes, d, next);
                    std::mem::swap(cur, next);
                    d = d.saturating_sub(1);
                }
                _ => break,
            }
            at = p;
        }
        self.target.get(models).is_some_and(|t| t == cur.as_slice())
    }

    /// Per node of the arena's formula, whether an edit there can change the formula's
    /// value on every model where it and φ₁ differ (as [`super::screen::PlScreen::covering`]):
    /// a node inside a quantifier's scope changes only its region, so the region's
    /// sensitivity decides.
    pub fn covering(&self, ar: &FolArena<'_>) -> Vec<bool> {
        if !ar.tables() {
            return vec![true; ar.nodes.len()];
        }
        // A node in no quantifier's scope has one value per model.
        let up = |mut at: usize, mut cur: bool, m: usize| {
            while let Some(&p) = ar.parent.get(at) {
                cur = match ar.nodes.get(p) {
                    Some(Formula::Not(_)) => !cur,
                    Some(Formula::Bin(op, ..)) => {
                        let [a, b] = ar.kids[p];
                        if a == at {
                            op.apply(cur, || ar.of(b, m).first() == Some(&true))
                        } else {
                            op.apply(ar.of(a, m).first() == Some(&true), || cur)
                        }
                    }
                    _ => break,
                };
                at = p;
            }
            cur
        };
        let regions: Vec<bool> = (0..ar.nodes.len())
            .map(|i| {
                ar.region[i] != i
                    || (0..self.models.len()).all(|m| {
                        ar.of(0, m).first() == self.target.get(m)
                            || up(i, true, m) != up(i, false, m)
                    })
            })
            .collect();
        ar.region.iter().map(|r| regions[*r]).collect()
    }
}

/// [`quantify`] over the values at depth `d` of several models one after another
/// (model `m` has `size^d` of them), appended to `out`.
fn quantify_each(q: Quantifier, vals: &[bool], models: &[Dense], d: usize, out: &mut Vec<bool>) {
    let mut rest = vals;
    for m in models {
        let n = m
            .size
            .checked_pow(u32::try_from(d).unwrap_or(u32::MAX))
            .unwrap_or(usize::MAX)
            .min(rest.len());
        let (here, after) = rest.split_at(n);
        quantify(q, here, m.size, out);
        rest = after;
    }
}

/// Each group of `n` values (one per element of the quantified variable) folded by
/// the quantifier, appended to `out`.
fn quantify(q: Quantifier, vals: &[bool], n: usize, out: &mut Vec<bool>) {
    let all = q == Quantifier::Forall;
    out.extend(vals.chunks(n.max(1)).map(|c| {
        if all {
            c.iter().all(|x| *x)
        } else {
            c.iter().any(|x| *x)
        }
    }));
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::proof::logic::edits;
    use crate::syntax::{Expr, SyntaxKind, parse};

    fn fol(t: &str) -> Formula {
        match parse(t, SyntaxKind::Fol) {
            Ok(Expr::Logic(f)) => f,
            other => panic!("{t}: {other:?}"),
        }
    }

    /// Every edit of φ₀ (and of one edited φ₀, as the two-edit search sees) is
    /// screened exactly as evaluating the built candidate by name on every model
    /// would (the reference semantics), and so is every candidate compiled whole.
    fn edits_agree_with_the_reference(
        s: &FolScreen,
        a: &Formula,
        pool: &Pool,
        counts: &mut (usize, usize, usize),
    ) {
        let mut formulas = vec![a.clone()];
        for e in edits(a, pool).iter().step_by(7) {
            formulas.extend(apply(a, e, pool));
        }
        for f in &formulas {
            let ar = s.arena(f);
            let covering = s.covering(&ar);
            for e in edits(f, pool) {
                let built = apply(f, &e, pool);
                let slow = built.as_ref().is_some_and(|g| s.agrees_by_name(g));
                assert_eq!(s.edit_agrees(&ar, &e, pool), slow, "{f:?} {e:?}");
                assert_eq!(built.is_some_and(|g| s.agrees(&g)), slow, "{f:?} {e:?}");
                // An edit the distinguishing models prune never agrees.
                assert!(covering[e.at] || !slow, "pruned {f:?} {e:?}");
                counts.2 += usize::from(!covering[e.at]);
                counts.0 += 1;
                counts.1 += usize::from(slow);
            }
        }
    }

    #[test]
    fn edit_values_agree_with_the_built_candidate() {
        let pairs = [
            (
                "∀x1.(P(x1) → ∃x2.R(x1,x2)) ∧ ¬Q(c1)",
                "∀x1.(P(x1) ∧ ∃x2.R(x2,x1)) ∨ Q(c1)",
            ),
            (
                "(¬pred3(p10) ∧ pred1(p3,p7)) ∨ ¬(¬pred7(p5,p2) ∨ pred6(p5,p2))",
                "(¬pred3(p10) ∨ pred1(p3,p7)) ∨ (pred7(p5,p2) ∧ ¬pred6(p5,p2))",
            ),
            (
                "∃x1.∀x2.(P(x1) ↔ R(x2,c1)) ⊕ Q(c2)",
                "¬∀x2.∃x1.(P(x1) ↔ R(x2,c1))",
            ),
            ("P(x1) → (Q(c1) ∧ ∀x2.R(x1,x2))", "Q(c1) ∨ ¬P(x1)"),
            // Shadowed and reused variables, a constant named like a bound variable's
            // scope, and a quantifier prefix (every edit inside a scope).
            (
                "∀x1.∃x2.∀x3.(pred2(x1,x3) ∨ ∃x1.pred3(x1,x2,p1))",
                "∀x1.∃x2.∀x3.(pred2(x3,x1) ∨ ∀x1.pred3(x2,x1,p1))",
            ),
            (
                "∃x1.∀x2.∀x3.∃x4.((pred1(x1) ∧ pred5(x2,x4)) → ¬pred1(x3))",
                "∃x1.∀x2.∀x3.∃x4.((pred1(x1) ∨ pred5(x4,x2)) → pred1(x3))",
            ),
        ];
        let mut counts = (0, 0, 0);
        for (a, b) in pairs {
            let (a, b) = (fol(a), fol(b));
            let pool = Pool::new(&a, &b);
            let s = FolScreen::new(&a, &b, &pool, || None);
            edits_agree_with_the_reference(&s, &a, &pool, &mut counts);
        }
        let (checked, passed, pruned) = counts;
        assert!(
            checked > 2_000 && passed > 0 && pruned > checked / 10,
            "{checked} edits, {passed} passed, {pruned} pruned"
        );
    }

    /// The screen on models from a countermodel (no random model tells the sides
    /// apart): names and arities only the countermodel has are evaluated by name too.
    #[test]
    fn countermodel_models_agree_with_the_reference() {
        use crate::verify::model::FiniteModel;
        use std::collections::{HashMap, HashSet};
        // Equivalent sides: no probe differs, so the countermodel is asked for.
        let (a, b) = (
            fol("∀x1.(P(x1) → Q(x1,c1))"),
            fol("∀x1.(¬Q(x1,c1) → ¬P(x1))"),
        );
        let pool = Pool::new(&a, &b);
        let mut asked = false;
        let s = FolScreen::new(&a, &b, &pool, || {
            asked = true;
            Some(FiniteModel {
                size: 3,
                constants: HashMap::from([("c1".into(), 2), ("x1".into(), 1)]),
                predicates: HashMap::from([
                    (("P".into(), 1), HashSet::from([vec![0], vec![2]])),
                    (("Q".into(), 2), HashSet::from([vec![0, 2], vec![1, 1]])),
                    (("Q".into(), 0), HashSet::from([vec![]])),
                ]),
                propositions: HashMap::new(),
            })
        });
        assert!(asked);
        let mut counts = (0, 0, 0);
        edits_agree_with_the_reference(&s, &a, &pool, &mut counts);
        assert!(counts.0 > 100, "{counts:?}");
    }
}
