//! The logic diff: chains flattened, operands matched as multisets, bound variables
//! matched by binder, and of several explanations of a place the cheapest kept.

mod atoms;
mod keys;
mod node;
mod operands;

use super::{BUDGET, Change, DiffLine, cost};
use crate::syntax::logic::{BinOp, Formula};
use keys::dice;
use node::{Node, Side, build, flatten, negated_operand, op_label, q_label, swap_change};

/// Ways to explain two differing nodes; each is tried and the cheapest kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    NegationRemoved,
    NegationAdded,
    /// φ₁ is one operand of φ₀'s connective (the others dropped).
    WithinLeft,
    /// φ₀ is one operand of φ₁'s connective (the others added).
    WithinRight,
    /// φ₀ is ¬(… ∘ ¬z ∘ …) and φ₁ is z: the other operands dropped, the two
    /// negations cancelling.
    DroppedUnderNegation,
    /// φ₁ is ¬(… ∘ ¬z ∘ …) and φ₀ is z.
    AddedUnderNegation,
    /// The connective swapped; φ₀'s operands of the new connective merge into it.
    SwapMergeLeft,
    /// The connective swapped; φ₁'s operands of the old connective split from it.
    SwapMergeRight,
    Paired,
    QuantifierDropped,
    QuantifierAdded,
    Replace,
}

/// Alignment state: which bound variables of φ₀ and φ₁ correspond.
struct Ctx<'a> {
    /// φ₀'s binders in scope, innermost last, with the pair id of their φ₁ partner.
    left: Vec<(&'a str, Option<u32>)>,
    right: Vec<(&'a str, Option<u32>)>,
    next: u32,
    budget: usize,
    /// Whether unchanged lines carry their texts (the viewer shows them; naming the
    /// changes reads only the changed lines, so it skips printing the rest).
    texts: bool,
}

/// Aligned diff of two formulas; `texts: false` leaves the sides of unchanged lines
/// empty.
pub(super) fn diff(a: &Formula, b: &Formula, texts: bool) -> Vec<DiffLine> {
    let (na, nb) = (build(a), build(b));
    let mut ctx = Ctx {
        left: Vec::new(),
        right: Vec::new(),
        next: 0,
        budget: BUDGET,
        texts,
    };
    let mut out = Vec::new();
    ctx.align(&na, &nb, 0, &mut out);
    out
}

impl<'a> Ctx<'a> {
    fn align(&mut self, a: &Node<'a>, b: &Node<'a>, depth: usize, out: &mut Vec<DiffLine>) {
        self.budget = self.budget.saturating_sub(1);
        if self.same(a, b) {
            out.push(self.same_line(depth, a, b));
            return;
        }
        let mut plans: Vec<Plan> = Vec::with_capacity(4);
        match (a, b) {
            (Node::Not(_, x), Node::Not(_, y)) => {
                out.push(self.kept(depth, Some("¬"), Some("¬")));
                self.align(x, y, depth + 1, out);
                return;
            }
            (Node::Not(_, x), _) => {
                plans.push(Plan::NegationRemoved);
                if negated_operand(x).is_some() {
                    plans.push(Plan::DroppedUnderNegation);
                }
                if b.operands().is_some() {
                    plans.push(Plan::WithinRight);
                }
            }
            (_, Node::Not(_, y)) => {
                plans.push(Plan::NegationAdded);
                if negated_operand(y).is_some() {
                    plans.push(Plan::AddedUnderNegation);
                }
                if a.operands().is_some() {
                    plans.push(Plan::WithinLeft);
                }
            }
            (Node::Chain(_, o1, xs), Node::Chain(_, o2, ys)) if o1 == o2 => {
                out.push(self.kept(depth, Some(op_label(*o1)), Some(op_label(*o2))));
                let (xs, ys): (Vec<_>, Vec<_>) = (xs.iter().collect(), ys.iter().collect());
                self.match_operands(&xs, &ys, *o1, depth + 1, out);
                return;
            }
            (Node::Imp(_, a1, b1), Node::Imp(_, a2, b2)) => {
                if self.same(a1, b2) && self.same(b1, a2) {
                    let note = format!("operands of → swapped: {} → {}", a.text(), b.text());
                    out.push(
                        DiffLine::new(
                            depth,
                            Some(a.text()),
                            Some(b.text()),
                            Change::OperandsSwapped,
                        )
                        .named(note, a.text()),
                    );
                    return;
                }
                plans.push(Plan::Paired);
                plans.push(Plan::WithinLeft);
                plans.push(Plan::WithinRight);
            }
            (Node::Chain(..) | Node::Imp(..), Node::Chain(..) | Node::Imp(..)) => {
                plans.push(Plan::SwapMergeLeft);
                if let Some((o1, _)) = a.operands()
                    && let Some((_, ys)) = b.operands()
                    && ys
                        .iter()
                        .any(|y| matches!(y, Node::Chain(_, o, _) if *o == o1))
                {
                    plans.push(Plan::SwapMergeRight);
                }
                plans.push(Plan::WithinLeft);
                plans.push(Plan::WithinRight);
            }
            (Node::Quant(..), Node::Quant(..)) => {
                plans.push(Plan::Paired);
                if a.quantifier_prefix() != b.quantifier_prefix() {
                    plans.push(Plan::QuantifierDropped);
                    plans.push(Plan::QuantifierAdded);
                }
            }
            (Node::Quant(..), _) => {
                plans.push(Plan::QuantifierDropped);
                if b.operands().is_some() {
                    plans.push(Plan::WithinRight);
                }
            }
            (_, Node::Quant(..)) => {
                plans.push(Plan::QuantifierAdded);
                if a.operands().is_some() {
                    plans.push(Plan::WithinLeft);
                }
            }
            (Node::Atom(fa), Node::Atom(fb)) => {
                out.push(self.atom_line(fa.f, fb.f, depth));
                return;
            }
            (Node::Chain(..) | Node::Imp(..), _) => plans.push(Plan::WithinLeft),
            (_, Node::Chain(..) | Node::Imp(..)) => plans.push(Plan::WithinRight),
        }
        plans.push(Plan::Replace);
        self.best(&plans, a, b, depth, out);
    }

    /// Runs each plan and keeps the cheapest (the first of equals); once the budget is
    /// spent, only the first plan runs.
    fn best(
        &mut self,
        plans: &[Plan],
        a: &Node<'a>,
        b: &Node<'a>,
        depth: usize,
        out: &mut Vec<DiffLine>,
    ) {
        if self.budget == 0 {
            self.run(plans[0], a, b, depth, out);
            return;
        }
        let mut best: Option<(usize, Vec<DiffLine>)> = None;
        for p in plans {
            let mut lines = Vec::new();
            self.run(*p, a, b, depth, &mut lines);
            let c = cost(&lines);
            if best.as_ref().is_none_or(|(bc, _)| c < *bc) {
                best = Some((c, lines));
            }
        }
        if let Some((_, lines)) = best {
            out.extend(lines);
        }
    }

    fn run(
        &mut self,
        plan: Plan,
        a: &Node<'a>,
        b: &Node<'a>,
        depth: usize,
        out: &mut Vec<DiffLine>,
    ) {
        match plan {
            Plan::NegationRemoved => {
                let Node::Not(_, x) = a else { return };
                let note = format!("negation removed on {}", x.text());
                out.push(
                    DiffLine::new(depth, Some("¬".into()), None, Change::NegationRemoved)
                        .named(note, a.text()),
                );
                self.align(x, b, depth + 1, out);
            }
            Plan::NegationAdded => {
                let Node::Not(_, y) = b else { return };
                let note = format!("negation added on {}", y.text());
                out.push(
                    DiffLine::new(depth, None, Some("¬".into()), Change::NegationAdded)
                        .named(note, b.text()),
                );
                self.align(a, y, depth + 1, out);
            }
            Plan::DroppedUnderNegation | Plan::AddedUnderNegation => {
                self.under_negation(plan == Plan::DroppedUnderNegation, a, b, depth, out);
            }
            Plan::WithinLeft => {
                let Some((op, xs)) = a.operands() else { return };
                out.push(self.kept(depth, Some(op_label(op)), None));
                self.match_operands(&xs, &[b], op, depth + 1, out);
            }
            Plan::WithinRight => {
                let Some((op, ys)) = b.operands() else { return };
                out.push(self.kept(depth, None, Some(op_label(op))));
                self.match_operands(&[a], &ys, op, depth + 1, out);
            }
            Plan::SwapMergeLeft | Plan::SwapMergeRight => {
                self.swap_merge(plan == Plan::SwapMergeLeft, a, b, depth, out);
            }
            Plan::Paired => self.paired(a, b, depth, out),
            Plan::QuantifierDropped => {
                let Node::Quant(_, q, v, x) = a else { return };
                let label = format!("{}{v}", q_label(*q));
                out.push(
                    DiffLine::new(depth, Some(label.clone()), None, Change::QuantifierDropped)
                        .named(format!("quantifier dropped: {label}"), label),
                );
                self.left.push((v, None));
                self.align(x, b, depth + 1, out);
                self.left.pop();
            }
            Plan::QuantifierAdded => {
                let Node::Quant(_, q, v, y) = b else { return };
                let label = format!("{}{v}", q_label(*q));
                out.push(
                    DiffLine::new(depth, None, Some(label.clone()), Change::QuantifierAdded)
                        .named(format!("quantifier added: {label}"), label),
                );
                self.right.push((v, None));
                self.align(a, y, depth + 1, out);
                self.right.pop();
            }
            Plan::Replace => {
                let (l, r) = (a.text(), b.text());
                let note = format!("restructured: {l} → {r}");
                out.push(
                    DiffLine::new(depth, Some(l.clone()), Some(r), Change::Replaced)
                        .named(note, l)
                        .weighing(a.size() + b.size()),
                );
            }
        }
    }

    /// One side is a negated ∧/∨ the other side matches one operand of: that operand
    /// is aligned, the rest dropped (`left`: the negation is on the left) or added.
    fn under_negation(
        &mut self,
        left: bool,
        a: &Node<'a>,
        b: &Node<'a>,
        depth: usize,
        out: &mut Vec<DiffLine>,
    ) {
        let (neg, other) = if left { (a, b) } else { (b, a) };
        let Node::Not(_, inner) = neg else { return };
        let Some((op, parts, first)) = negated_operand(inner) else {
            return;
        };
        // The negated operand most like the other side keeps its place.
        let (neg_side, other_side) = if left {
            (Side::Left, Side::Right)
        } else {
            (Side::Right, Side::Left)
        };
        let target = self.key(other, other_side);
        let bag = self.feature_bag(other, other_side);
        let k = parts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match p {
                Node::Not(_, z) => {
                    let score = if self.key(z, neg_side) == target {
                        u64::MAX
                    } else {
                        dice(&self.feature_bag(z, neg_side), &bag)
                    };
                    Some((score, std::cmp::Reverse(i)))
                }
                _ => None,
            })
            .max()
            .map_or(first, |(_, std::cmp::Reverse(i))| i);
        let label = self.texts.then(|| format!("¬{}", op_label(op)));
        let (l, r) = if left { (label, None) } else { (None, label) };
        out.push(DiffLine::new(depth, l, r, Change::Kept));
        for (i, part) in parts.iter().enumerate() {
            let t = part.text();
            if i == k {
                let Node::Not(_, z) = part else { continue };
                if left {
                    self.align(z, other, depth + 1, out);
                } else {
                    self.align(other, z, depth + 1, out);
                }
            } else if left {
                out.push(
                    DiffLine::new(depth + 1, Some(t.clone()), None, Change::OperatorDropped)
                        .named(format!("operand dropped: {t}"), t),
                );
            } else {
                out.push(
                    DiffLine::new(depth + 1, None, Some(t.clone()), Change::OperatorAdded)
                        .named(format!("operand added: {t}"), t),
                );
            }
        }
    }

    /// The operator swapped, the operands matched under the new operator flattened into
    /// the left side's (`merge_left`) or the right side's.
    fn swap_merge(
        &mut self,
        merge_left: bool,
        a: &Node<'a>,
        b: &Node<'a>,
        depth: usize,
        out: &mut Vec<DiffLine>,
    ) {
        let (Some((o1, xs)), Some((o2, ys))) = (a.operands(), b.operands()) else {
            return;
        };
        let note = format!("{} → {} on {}", op_label(o1), op_label(o2), a.text());
        out.push(
            DiffLine::new(
                depth,
                Some(op_label(o1).into()),
                Some(op_label(o2).into()),
                swap_change(o1, o2),
            )
            .named(note, a.text()),
        );
        if merge_left {
            let xs = if o2 == BinOp::Implies {
                xs
            } else {
                flatten(&xs, o2)
            };
            self.match_operands(&xs, &ys, o2, depth + 1, out);
        } else {
            let ys = if o1 == BinOp::Implies {
                ys
            } else {
                flatten(&ys, o1)
            };
            self.match_operands(&xs, &ys, o1, depth + 1, out);
        }
    }

    /// The line of two identical subtrees.
    fn same_line(&self, depth: usize, a: &Node<'a>, b: &Node<'a>) -> DiffLine {
        if self.texts {
            DiffLine::new(depth, Some(a.text()), Some(b.text()), Change::Same)
        } else {
            DiffLine::new(depth, None, None, Change::Same)
        }
    }

    /// The line of a connective kept on one or both sides.
    fn kept(&self, depth: usize, l: Option<&str>, r: Option<&str>) -> DiffLine {
        if self.texts {
            DiffLine::new(
                depth,
                l.map(str::to_owned),
                r.map(str::to_owned),
                Change::Kept,
            )
        } else {
            DiffLine::new(depth, None, None, Change::Kept)
        }
    }

    /// Two implications operand by operand, or two quantifiers with their variables
    /// paired.
    fn paired(&mut self, a: &Node<'a>, b: &Node<'a>, depth: usize, out: &mut Vec<DiffLine>) {
        match (a, b) {
            (Node::Imp(_, a1, b1), Node::Imp(_, a2, b2)) => {
                out.push(self.kept(depth, Some("→"), Some("→")));
                self.align(a1, a2, depth + 1, out);
                self.align(b1, b2, depth + 1, out);
            }
            (Node::Quant(_, q1, v1, x), Node::Quant(_, q2, v2, y)) => {
                let (l, r) = (
                    format!("{}{v1}", q_label(*q1)),
                    format!("{}{v2}", q_label(*q2)),
                );
                let line = if q1 == q2 {
                    let (l, r) = if self.texts {
                        (Some(l), Some(r))
                    } else {
                        (None, None)
                    };
                    DiffLine::new(depth, l, r, Change::Kept)
                } else {
                    let note = format!("{l} → {r}");
                    DiffLine::new(depth, Some(l.clone()), Some(r), Change::QuantifierChanged)
                        .named(note, l)
                };
                out.push(line);
                let id = self.next;
                self.next += 1;
                self.left.push((v1, Some(id)));
                self.right.push((v2, Some(id)));
                self.align(x, y, depth + 1, out);
                self.left.pop();
                self.right.pop();
            }
            _ => {}
        }
    }
}
