//! The logic diff: chains flattened, operands matched as multisets, bound variables
//! matched by binder, and of several explanations of a place the cheapest kept.

use super::{BUDGET, Change, DiffLine, cost};
use crate::syntax::logic::{BinOp, Formula, Quantifier, Term};
use crate::syntax::{Notation, print_formula};
use std::hash::{DefaultHasher, Hash, Hasher};

/// A formula with ∧/∨/⊕/↔ chains flattened and double negations dropped; each node
/// keeps the formula it stands for, to be printed as written.
enum Node<'a> {
    Atom(&'a Formula),
    Not(&'a Formula, Box<Node<'a>>),
    Chain(&'a Formula, BinOp, Vec<Node<'a>>),
    Imp(&'a Formula, Box<Node<'a>>, Box<Node<'a>>),
    Quant(&'a Formula, Quantifier, &'a str, Box<Node<'a>>),
}

fn build(f: &Formula) -> Node<'_> {
    if let Formula::Not(x) = f {
        if let Formula::Not(y) = &**x {
            return build(y);
        }
        return Node::Not(f, Box::new(build(x)));
    }
    if let Formula::Bin(op, x, y) = f {
        if *op == BinOp::Implies {
            return Node::Imp(f, Box::new(build(x)), Box::new(build(y)));
        }
        let mut items = Vec::new();
        for c in [build(x), build(y)] {
            match c {
                Node::Chain(_, o, xs) if o == *op => items.extend(xs),
                other => items.push(other),
            }
        }
        return Node::Chain(f, *op, items);
    }
    if let Formula::Quant(q, v, body) = f {
        return Node::Quant(f, *q, v, Box::new(build(body)));
    }
    Node::Atom(f)
}

impl<'a> Node<'a> {
    fn src(&self) -> &'a Formula {
        match self {
            Node::Atom(f)
            | Node::Not(f, _)
            | Node::Chain(f, ..)
            | Node::Imp(f, ..)
            | Node::Quant(f, ..) => f,
        }
    }

    fn text(&self) -> String {
        print_formula(self.src(), Notation::Unicode)
    }

    fn size(&self) -> usize {
        match self {
            Node::Atom(_) => 1,
            Node::Not(_, x) | Node::Quant(_, _, _, x) => 1 + x.size(),
            Node::Chain(_, _, xs) => 1 + xs.iter().map(Node::size).sum::<usize>(),
            Node::Imp(_, x, y) => 1 + x.size() + y.size(),
        }
    }

    /// The operands of a connective (a chain's, or an implication's two).
    fn operands(&self) -> Option<(BinOp, Vec<&Node<'a>>)> {
        match self {
            Node::Chain(_, op, xs) => Some((*op, xs.iter().collect())),
            Node::Imp(_, x, y) => Some((BinOp::Implies, vec![&**x, &**y])),
            _ => None,
        }
    }

    fn quantifier_prefix(&self) -> usize {
        match self {
            Node::Quant(_, _, _, body) => 1 + body.quantifier_prefix(),
            _ => 0,
        }
    }
}

/// A connective with a negated operand: the connective, its operands and the first
/// negated one's index.
fn negated_operand<'n, 'a>(n: &'n Node<'a>) -> Option<(BinOp, Vec<&'n Node<'a>>, usize)> {
    let (op, parts) = n.operands()?;
    let k = parts.iter().position(|p| matches!(p, Node::Not(..)))?;
    Some((op, parts, k))
}

fn op_label(o: BinOp) -> &'static str {
    match o {
        BinOp::And => "∧",
        BinOp::Or => "∨",
        BinOp::Implies => "→",
        BinOp::Iff => "↔",
        BinOp::Xor => "⊕",
    }
}

fn q_label(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Forall => "∀",
        Quantifier::Exists => "∃",
    }
}

fn swap_change(from: BinOp, to: BinOp) -> Change {
    let ao = |o: BinOp| matches!(o, BinOp::And | BinOp::Or);
    if ao(from) && ao(to) {
        Change::AndOrSwapped
    } else {
        Change::OperatorSwapped
    }
}

/// `xs` with the operands of every `op` chain among them spliced in (what a chain
/// becomes when the connective around it turns into `op`).
fn flatten<'n, 'a>(xs: &[&'n Node<'a>], op: BinOp) -> Vec<&'n Node<'a>> {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        match x {
            Node::Chain(_, o, cs) if *o == op => out.extend(cs.iter()),
            other => out.push(*other),
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

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
}

/// Aligned diff of two formulas.
pub(super) fn diff(a: &Formula, b: &Formula) -> Vec<DiffLine> {
    let (na, nb) = (build(a), build(b));
    let mut ctx = Ctx {
        left: Vec::new(),
        right: Vec::new(),
        next: 0,
        budget: BUDGET,
    };
    let mut out = Vec::new();
    ctx.align(&na, &nb, 0, &mut out);
    out
}

impl<'a> Ctx<'a> {
    fn stack(&self, side: Side) -> &[(&'a str, Option<u32>)] {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    fn hash_term(&self, t: &Term, side: Side, inner: &[&'a str], h: &mut DefaultHasher) {
        match t {
            Term::Var(v) => {
                if let Some(i) = inner.iter().rposition(|x| *x == v.as_str()) {
                    (0u8, i).hash(h);
                } else if let Some((_, id)) = self
                    .stack(side)
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == v.as_str())
                {
                    match id {
                        Some(id) => (1u8, *id).hash(h),
                        // A binder with no partner: its variable matches the same name
                        // used free on the other side (a dropped quantifier).
                        None => (2u8, v.as_str()).hash(h),
                    }
                } else {
                    (2u8, v.as_str()).hash(h);
                }
            }
            Term::Const(c) => (3u8, c.as_str()).hash(h),
        }
    }

    fn hash_node(&self, n: &Node<'a>, side: Side, inner: &mut Vec<&'a str>, h: &mut DefaultHasher) {
        match n {
            Node::Atom(f) => {
                if let Formula::Pred(p, args) = f {
                    (5u8, p.as_str(), args.len()).hash(h);
                    for t in args {
                        self.hash_term(t, side, inner, h);
                    }
                } else if let Formula::Prop(p) = f {
                    (6u8, p.as_str()).hash(h);
                } else {
                    (7u8, print_formula(f, Notation::Unicode)).hash(h);
                }
            }
            Node::Not(_, x) => {
                1u8.hash(h);
                self.hash_node(x, side, inner, h);
            }
            Node::Chain(_, op, xs) => {
                let mut keys: Vec<u64> = xs
                    .iter()
                    .map(|x| {
                        let mut hx = DefaultHasher::new();
                        self.hash_node(x, side, inner, &mut hx);
                        hx.finish()
                    })
                    .collect();
                keys.sort_unstable();
                (2u8, *op, keys).hash(h);
            }
            Node::Imp(_, x, y) => {
                3u8.hash(h);
                self.hash_node(x, side, inner, h);
                self.hash_node(y, side, inner, h);
            }
            Node::Quant(_, q, v, body) => {
                (4u8, *q).hash(h);
                inner.push(v);
                self.hash_node(body, side, inner, h);
                inner.pop();
            }
        }
    }

    /// A key equal for two nodes exactly when they are the same up to commutation,
    /// regrouping, double negation and renaming of bound variables.
    fn key(&self, n: &Node<'a>, side: Side) -> u64 {
        let mut h = DefaultHasher::new();
        self.hash_node(n, side, &mut Vec::new(), &mut h);
        h.finish()
    }

    /// What a node is made of (symbols, atoms, connectives), for similarity.
    fn features(&self, n: &Node<'a>, side: Side, inner: &mut Vec<&'a str>, out: &mut Vec<u64>) {
        let one = |x: &dyn Fn(&mut DefaultHasher)| {
            let mut h = DefaultHasher::new();
            x(&mut h);
            h.finish()
        };
        match n {
            Node::Atom(f) => {
                let mut h = DefaultHasher::new();
                self.hash_node(n, side, inner, &mut h);
                out.push(one(&|x| (0u8, h.finish()).hash(x)));
                if let Formula::Pred(p, args) = f {
                    out.push(one(&|x| (1u8, p.as_str(), args.len()).hash(x)));
                    for t in args {
                        if let Term::Const(c) = t {
                            out.push(one(&|x| (2u8, c.as_str()).hash(x)));
                        }
                    }
                }
            }
            Node::Not(_, x) => {
                out.push(one(&|h| 3u8.hash(h)));
                self.features(x, side, inner, out);
            }
            Node::Chain(_, op, xs) => {
                out.push(one(&|h| (4u8, *op).hash(h)));
                for x in xs {
                    self.features(x, side, inner, out);
                }
            }
            Node::Imp(_, x, y) => {
                out.push(one(&|h| (4u8, BinOp::Implies).hash(h)));
                self.features(x, side, inner, out);
                self.features(y, side, inner, out);
            }
            Node::Quant(_, q, v, body) => {
                out.push(one(&|h| (5u8, *q).hash(h)));
                inner.push(v);
                self.features(body, side, inner, out);
                inner.pop();
            }
        }
    }

    fn feature_bag(&self, n: &Node<'a>, side: Side) -> Vec<u64> {
        let mut out = Vec::new();
        self.features(n, side, &mut Vec::new(), &mut out);
        out.sort_unstable();
        out
    }

    fn same(&self, a: &Node<'a>, b: &Node<'a>) -> bool {
        self.key(a, Side::Left) == self.key(b, Side::Right)
    }

    fn align(&mut self, a: &Node<'a>, b: &Node<'a>, depth: usize, out: &mut Vec<DiffLine>) {
        self.budget = self.budget.saturating_sub(1);
        if self.same(a, b) {
            out.push(DiffLine::new(
                depth,
                Some(a.text()),
                Some(b.text()),
                Change::Same,
            ));
            return;
        }
        let mut plans: Vec<Plan> = Vec::with_capacity(4);
        match (a, b) {
            (Node::Not(_, x), Node::Not(_, y)) => {
                out.push(DiffLine::new(
                    depth,
                    Some("¬".into()),
                    Some("¬".into()),
                    Change::Kept,
                ));
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
                out.push(DiffLine::new(
                    depth,
                    Some(op_label(*o1).into()),
                    Some(op_label(*o2).into()),
                    Change::Kept,
                ));
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
                out.push(self.atom_line(fa, fb, depth));
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
                let left = plan == Plan::DroppedUnderNegation;
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
                let label = Some(format!("¬{}", op_label(op)));
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
                            DiffLine::new(
                                depth + 1,
                                Some(t.clone()),
                                None,
                                Change::OperatorDropped,
                            )
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
            Plan::WithinLeft => {
                let Some((op, xs)) = a.operands() else { return };
                out.push(DiffLine::new(
                    depth,
                    Some(op_label(op).into()),
                    None,
                    Change::Kept,
                ));
                self.match_operands(&xs, &[b], op, depth + 1, out);
            }
            Plan::WithinRight => {
                let Some((op, ys)) = b.operands() else { return };
                out.push(DiffLine::new(
                    depth,
                    None,
                    Some(op_label(op).into()),
                    Change::Kept,
                ));
                self.match_operands(&[a], &ys, op, depth + 1, out);
            }
            Plan::SwapMergeLeft | Plan::SwapMergeRight => {
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
                if plan == Plan::SwapMergeLeft {
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

    /// Two implications operand by operand, or two quantifiers with their variables
    /// paired.
    fn paired(&mut self, a: &Node<'a>, b: &Node<'a>, depth: usize, out: &mut Vec<DiffLine>) {
        match (a, b) {
            (Node::Imp(_, a1, b1), Node::Imp(_, a2, b2)) => {
                out.push(DiffLine::new(
                    depth,
                    Some("→".into()),
                    Some("→".into()),
                    Change::Kept,
                ));
                self.align(a1, a2, depth + 1, out);
                self.align(b1, b2, depth + 1, out);
            }
            (Node::Quant(_, q1, v1, x), Node::Quant(_, q2, v2, y)) => {
                let (l, r) = (
                    format!("{}{v1}", q_label(*q1)),
                    format!("{}{v2}", q_label(*q2)),
                );
                let line = if q1 == q2 {
                    DiffLine::new(depth, Some(l), Some(r), Change::Kept)
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

    /// Names how two different atoms differ.
    fn atom_line(&self, fa: &Formula, fb: &Formula, depth: usize) -> DiffLine {
        let (l, r) = (
            print_formula(fa, Notation::Unicode),
            print_formula(fb, Notation::Unicode),
        );
        let (change, note) = self.atom_change(fa, fb, &l, &r);
        DiffLine::new(depth, Some(l.clone()), Some(r), change).named(note, l)
    }

    fn term_key(&self, t: &Term, side: Side) -> u64 {
        let mut h = DefaultHasher::new();
        self.hash_term(t, side, &[], &mut h);
        h.finish()
    }

    fn atom_change(&self, fa: &Formula, fb: &Formula, l: &str, r: &str) -> (Change, String) {
        let renamed = || (Change::AtomChanged, format!("symbol renamed {l} → {r}"));
        let args_changed = || {
            (
                Change::ArityChanged,
                format!("arguments changed: {l} → {r}"),
            )
        };
        match (fa, fb) {
            (Formula::Pred(n1, xs), Formula::Pred(n2, ys)) if n1 == n2 => {
                if xs.len() != ys.len() {
                    return args_changed();
                }
                let kx: Vec<u64> = xs.iter().map(|t| self.term_key(t, Side::Left)).collect();
                let ky: Vec<u64> = ys.iter().map(|t| self.term_key(t, Side::Right)).collect();
                let differing: Vec<usize> = (0..xs.len()).filter(|&i| kx[i] != ky[i]).collect();
                let (mut sx, mut sy) = (kx.clone(), ky.clone());
                sx.sort_unstable();
                sy.sort_unstable();
                if sx == sy {
                    return args_changed();
                }
                if let Some(&i) = differing.iter().find(|&&i| {
                    matches!(
                        (&xs[i], &ys[i]),
                        (Term::Const(_), Term::Var(_)) | (Term::Var(_), Term::Const(_))
                    )
                }) {
                    let dir = if matches!(xs[i], Term::Const(_)) {
                        "constant → variable"
                    } else {
                        "variable → constant"
                    };
                    let text = format!("{dir}: {} → {} in {l}", xs[i].name(), ys[i].name());
                    return (Change::ConstantVariable, text);
                }
                if differing
                    .iter()
                    .all(|&i| matches!((&xs[i], &ys[i]), (Term::Const(_), Term::Const(_))))
                {
                    let pairs: Vec<String> = differing
                        .iter()
                        .map(|&i| format!("{} → {}", xs[i].name(), ys[i].name()))
                        .collect();
                    return (
                        Change::AtomChanged,
                        format!("symbol renamed {}", pairs.join(", ")),
                    );
                }
                args_changed()
            }
            (Formula::Pred(n1, xs), Formula::Pred(n2, ys)) if xs.len() == ys.len() => {
                let same_args = xs
                    .iter()
                    .zip(ys)
                    .all(|(x, y)| self.term_key(x, Side::Left) == self.term_key(y, Side::Right));
                if same_args {
                    (Change::AtomChanged, format!("symbol renamed {n1} → {n2}"))
                } else {
                    renamed()
                }
            }
            (Formula::Prop(n1), Formula::Pred(n2, _))
            | (Formula::Pred(n1, _), Formula::Prop(n2))
                if n1 == n2 =>
            {
                args_changed()
            }
            _ => renamed(),
        }
    }

    /// Matches the operands of two connectives as multisets: exact matches, then
    /// operands whose connective swapped or was dropped so that they merge into this
    /// chain, then pairs by similarity, then leftover atoms as renamings; what is left
    /// is dropped or added.
    fn match_operands(
        &mut self,
        xs: &[&Node<'a>],
        ys: &[&Node<'a>],
        op: BinOp,
        depth: usize,
        out: &mut Vec<DiffLine>,
    ) {
        // An implication's operands keep their order.
        if op == BinOp::Implies && xs.len() == 2 && ys.len() == 2 {
            for (x, y) in xs.iter().zip(ys) {
                self.align(x, y, depth, out);
            }
            return;
        }
        let kx: Vec<u64> = xs.iter().map(|x| self.key(x, Side::Left)).collect();
        let ky: Vec<u64> = ys.iter().map(|y| self.key(y, Side::Right)).collect();
        let mut for_x: Vec<Option<usize>> = vec![None; xs.len()];
        let mut used_y = vec![false; ys.len()];
        for (i, k) in kx.iter().enumerate() {
            if let Some(j) = (0..ys.len()).find(|&j| !used_y[j] && ky[j] == *k) {
                for_x[i] = Some(j);
                used_y[j] = true;
            }
        }
        let mut merged_x: Vec<Option<Merge>> = (0..xs.len()).map(|_| None).collect();
        let mut merged_y: Vec<Option<Merge>> = (0..ys.len()).map(|_| None).collect();
        if op != BinOp::Implies {
            let left_n = for_x.iter().filter(|m| m.is_none()).count();
            let right_n = used_y.iter().filter(|u| !**u).count();
            if left_n < right_n {
                let mut used_x: Vec<bool> = for_x.iter().map(Option::is_some).collect();
                for i in 0..xs.len() {
                    if !used_x[i] {
                        merged_x[i] = self.merge(xs[i], Side::Left, op, ys, &mut used_y);
                        used_x[i] |= merged_x[i].is_some();
                    }
                }
            } else if right_n < left_n {
                let mut used_x: Vec<bool> = for_x.iter().map(Option::is_some).collect();
                for j in 0..ys.len() {
                    if !used_y[j] {
                        merged_y[j] = self.merge(ys[j], Side::Right, op, xs, &mut used_x);
                        if merged_y[j].is_some() {
                            used_y[j] = true;
                        }
                    }
                }
                for (i, u) in used_x.iter().enumerate() {
                    if *u && for_x[i].is_none() && !merged_x[i].is_some() {
                        // Taken by a merge on φ₁'s side: mark as handled.
                        merged_x[i] = Some(Merge::Taken);
                    }
                }
            }
        }
        // Pairs by similarity among what is left.
        let free_x: Vec<usize> = (0..xs.len())
            .filter(|&i| for_x[i].is_none() && merged_x[i].is_none())
            .collect();
        let free_y: Vec<usize> = (0..ys.len()).filter(|&j| !used_y[j]).collect();
        if !free_x.is_empty() && !free_y.is_empty() {
            let bx: Vec<Vec<u64>> = free_x
                .iter()
                .map(|&i| self.feature_bag(xs[i], Side::Left))
                .collect();
            let by: Vec<Vec<u64>> = free_y
                .iter()
                .map(|&j| self.feature_bag(ys[j], Side::Right))
                .collect();
            let mut cands: Vec<(u64, usize, usize)> = Vec::new();
            for (p, fx) in bx.iter().enumerate() {
                for (q, fy) in by.iter().enumerate() {
                    let s = dice(fx, fy);
                    if s > 0 {
                        cands.push((s, p, q));
                    }
                }
            }
            cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
            for (_, p, q) in cands {
                let (i, j) = (free_x[p], free_y[q]);
                if for_x[i].is_none() && !used_y[j] {
                    for_x[i] = Some(j);
                    used_y[j] = true;
                }
            }
            // Leftover atoms pair up as renamings, then anything with anything.
            for atoms_only in [true, false] {
                for &i in &free_x {
                    if for_x[i].is_some() || (atoms_only && !matches!(xs[i], Node::Atom(_))) {
                        continue;
                    }
                    if let Some(&j) = free_y
                        .iter()
                        .find(|&&j| !used_y[j] && (!atoms_only || matches!(ys[j], Node::Atom(_))))
                    {
                        for_x[i] = Some(j);
                        used_y[j] = true;
                    }
                }
            }
        }
        for i in 0..xs.len() {
            match (&merged_x[i], for_x[i]) {
                (Some(Merge::Taken), _) => {}
                (Some(m), _) => emit_merge(xs[i], Side::Left, m, ys, depth, out),
                (None, Some(j)) => self.align(xs[i], ys[j], depth, out),
                (None, None) => {
                    let t = xs[i].text();
                    out.push(
                        DiffLine::new(depth, Some(t.clone()), None, Change::OperatorDropped)
                            .named(format!("operand dropped: {t}"), t),
                    );
                }
            }
        }
        for j in 0..ys.len() {
            if let Some(m) = &merged_y[j] {
                emit_merge(ys[j], Side::Right, m, xs, depth, out);
            } else if !used_y[j] {
                let t = ys[j].text();
                out.push(
                    DiffLine::new(depth, None, Some(t.clone()), Change::OperatorAdded)
                        .named(format!("operand added: {t}"), t),
                );
            }
        }
    }

    /// Whether `n` (an operand on `side` with no exact partner) explains several
    /// operands of the other side at once: its connective swapped to `op` so that its
    /// operands merge into the chain (a single swap splits a chain in two groups,
    /// each an operand or a chain of the old connective on the other side), or all
    /// its operands but one chain of `op` dropped so that chain merges. The partners
    /// are taken from the other side's operands not yet `taken`.
    fn merge(
        &self,
        n: &Node<'a>,
        side: Side,
        op: BinOp,
        others: &[&Node<'a>],
        taken: &mut [bool],
    ) -> Option<Merge> {
        let (own, parts) = n.operands()?;
        if own == op {
            return None;
        }
        let other_side = if side == Side::Left {
            Side::Right
        } else {
            Side::Left
        };
        let okeys: Vec<u64> = others.iter().map(|o| self.key(o, other_side)).collect();
        let pkeys: Vec<u64> = parts.iter().map(|p| self.key(p, side)).collect();
        let mut used = taken.to_vec();
        // One exact partner for each item, or none.
        let claim = |items: &[&Node<'a>], used: &mut Vec<bool>| -> Option<Vec<(String, usize)>> {
            let mut got: Vec<(String, usize)> = Vec::new();
            let mut trial = used.clone();
            for it in items {
                let k = self.key(it, side);
                let j = (0..okeys.len()).find(|&j| !trial[j] && okeys[j] == k)?;
                trial[j] = true;
                got.push((it.text(), j));
            }
            *used = trial;
            Some(got)
        };
        // The swap: groups of this side's operands that are a chain of `own` there.
        let mut assigned = vec![false; parts.len()];
        let mut pairs: Vec<(String, usize)> = Vec::new();
        let mut groups = 0;
        for j in 0..others.len() {
            if used[j] {
                continue;
            }
            let Node::Chain(_, o, items) = others[j] else {
                continue;
            };
            if *o != own {
                continue;
            }
            let mut pick: Vec<usize> = Vec::new();
            for it in items {
                let k = self.key(it, other_side);
                match (0..parts.len())
                    .find(|&i| !assigned[i] && !pick.contains(&i) && pkeys[i] == k)
                {
                    Some(i) => pick.push(i),
                    None => break,
                }
            }
            if pick.len() == items.len() {
                let texts: Vec<String> = pick.iter().map(|&i| parts[i].text()).collect();
                pairs.push((texts.join(&format!(" {} ", op_label(own))), j));
                for i in pick {
                    assigned[i] = true;
                }
                used[j] = true;
                groups += 1;
            }
        }
        let mut swapped = true;
        for (i, part) in parts.iter().enumerate() {
            if assigned[i] {
                continue;
            }
            let spliced: Vec<&Node<'a>> = match part {
                Node::Chain(_, o, cs) if *o == op => cs.iter().collect(),
                other => vec![*other],
            };
            match claim(&spliced, &mut used) {
                Some(got) => {
                    pairs.extend(got);
                    groups += 1;
                }
                None => {
                    swapped = false;
                    break;
                }
            }
        }
        if swapped && groups >= 2 {
            taken.copy_from_slice(&used);
            return Some(Merge::Swapped { own, op, pairs });
        }
        // The drop: one operand, a chain of `op`, is all that is left of `n`.
        for (k, part) in parts.iter().enumerate() {
            if let Node::Chain(_, o, cs) = part
                && *o == op
            {
                let cs: Vec<&Node<'a>> = cs.iter().collect();
                let mut used = taken.to_vec();
                if let Some(pairs) = claim(&cs, &mut used) {
                    taken.copy_from_slice(&used);
                    let dropped = (0..parts.len())
                        .filter(|&i| i != k)
                        .map(|i| parts[i].text())
                        .collect();
                    return Some(Merge::Dropped {
                        own,
                        pairs,
                        dropped,
                    });
                }
            }
        }
        None
    }
}

fn emit_merge(
    n: &Node<'_>,
    side: Side,
    m: &Merge,
    others: &[&Node<'_>],
    depth: usize,
    out: &mut Vec<DiffLine>,
) {
    let text = n.text();
    let pair_lines = |out: &mut Vec<DiffLine>, pairs: &[(String, usize)]| {
        for (own, j) in pairs {
            let (l, r) = match side {
                Side::Left => (own.clone(), others[*j].text()),
                Side::Right => (others[*j].text(), own.clone()),
            };
            out.push(DiffLine::new(depth + 1, Some(l), Some(r), Change::Same));
        }
    };
    match m {
        Merge::Taken => {}
        Merge::Swapped { own, op, pairs } => {
            let (from, to) = match side {
                Side::Left => (*own, *op),
                Side::Right => (*op, *own),
            };
            let note = match side {
                Side::Left => format!("{} → {} on {text}", op_label(from), op_label(to)),
                Side::Right => format!("{} → {} grouping {text}", op_label(from), op_label(to)),
            };
            out.push(
                DiffLine::new(
                    depth,
                    Some(op_label(from).into()),
                    Some(op_label(to).into()),
                    swap_change(from, to),
                )
                .named(note, text),
            );
            pair_lines(out, pairs);
        }
        Merge::Dropped {
            own,
            pairs,
            dropped,
        } => {
            let label = Some(op_label(*own).to_string());
            let (l, r) = match side {
                Side::Left => (label, None),
                Side::Right => (None, label),
            };
            out.push(DiffLine::new(depth, l, r, Change::Kept));
            pair_lines(out, pairs);
            for t in dropped {
                out.push(match side {
                    Side::Left => {
                        DiffLine::new(depth + 1, Some(t.clone()), None, Change::OperatorDropped)
                            .named(format!("operand dropped: {t}"), t.clone())
                    }
                    Side::Right => {
                        DiffLine::new(depth + 1, None, Some(t.clone()), Change::OperatorAdded)
                            .named(format!("operand added: {t}"), t.clone())
                    }
                });
            }
        }
    }
}

/// How an unmatched operand explains several operands of the other side.
enum Merge {
    /// Its connective `own` became the surrounding `op`; `pairs` are its operands (or
    /// groups of them) with their partners on the other side.
    Swapped {
        own: BinOp,
        op: BinOp,
        pairs: Vec<(String, usize)>,
    },
    /// Its connective `own` and the `dropped` operands went; the kept chain's operands
    /// pair with partners on the other side.
    Dropped {
        own: BinOp,
        pairs: Vec<(String, usize)>,
        dropped: Vec<String>,
    },
    /// An operand of this side consumed by a merge on the other side.
    Taken,
}

/// Dice similarity of two sorted feature bags, in thousandths.
fn dice(a: &[u64], b: &[u64]) -> u64 {
    let (mut i, mut j, mut common) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let total = (a.len() + b.len()) as u64;
    if total == 0 { 0 } else { 2000 * common / total }
}
