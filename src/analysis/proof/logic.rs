//! Single edits to a logic formula, in the formula's own syntax: where (the node's
//! pre-order index), what (a local operation), and the name of the change it makes.

use crate::syntax::diff::Change;
use crate::syntax::{BinOp, Formula, Notation, Quantifier, Term, print_formula};

mod fol;

/// Names an edit may use: symbols of both sides and small operands of φ₁.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pool {
    /// Proposition names.
    pub props: Vec<String>,
    /// Predicate names with their arities.
    pub preds: Vec<(String, usize)>,
    /// Constants.
    pub consts: Vec<String>,
    /// Free variables of either side (read as shared parameters): a constant written
    /// as one is an edit to a term in no quantifier's scope.
    pub free: Vec<String>,
    /// Small subformulas of φ₁ an added operand may be.
    pub operands: Vec<Formula>,
    /// Their sizes (an added operand's weight), computed once.
    pub sizes: Vec<usize>,
}

impl Pool {
    /// The pool for explaining φ₁ from φ₀.
    pub fn new(a: &Formula, b: &Formula) -> Pool {
        let mut props: Vec<String> = a.propositions().into_iter().collect();
        props.extend(b.propositions());
        let mut preds: Vec<(String, usize)> = a.predicates().into_iter().collect();
        preds.extend(b.predicates());
        let mut consts: Vec<String> = a.constants().into_iter().collect();
        consts.extend(b.constants());
        let mut free: Vec<String> = a.free_variables().into_iter().collect();
        free.extend(b.free_variables());
        for v in [&mut props, &mut consts, &mut free] {
            v.sort();
            v.dedup();
        }
        preds.sort();
        preds.dedup();
        let operands = super::operands::operands(a, b);
        let sizes = operands.iter().map(Formula::size).collect();
        Pool {
            props,
            preds,
            consts,
            free,
            operands,
            sizes,
        }
    }
}

/// A local operation at one node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    /// `n` → `¬n`.
    Negate,
    /// `¬x` → `x`.
    Unnegate,
    /// The connective replaced.
    Connective(BinOp),
    /// `a → b` → `b → a`.
    SwapOperands,
    /// `a op b` → `a` (true) or `b` (false).
    Keep(bool),
    /// `a op (b op2 c)` → `(a op b) op2 c`.
    RegroupLeft,
    /// `(a op2 b) op c` → `a op2 (b op c)`.
    RegroupRight,
    /// `⊤` ↔ `⊥`.
    FlipBool,
    /// `¬a op b` → `¬(a op b)` (true), or `a op ¬b` → `¬(a op b)` (false).
    WidenNeg(bool),
    /// `¬(a op b)` → `¬a op b` (true) or `a op ¬b` (false).
    NarrowNeg(bool),
    /// In a chain, the connective between two neighbours replaced, binding them:
    /// `(a op b) op c` → `a op (b op2 c)` (true), `a op (b op c)` → `(a op2 b) op c`.
    ChainSwap(BinOp, bool),
    /// `n` → `n op X` with operand `X` from the pool.
    Add(BinOp, usize),
    /// A proposition renamed (pool index).
    RenameProp(usize),
    /// A predicate renamed (pool index, same arity).
    RenamePred(usize),
    /// Argument `i` replaced by a term.
    SetArg(usize, Term),
    /// Argument `i` dropped.
    DropArg(usize),
    /// A term inserted as argument `i`.
    InsertArg(usize, Term),
    /// Arguments `i` and `i + 1` swapped.
    SwapArgs(usize),
    /// ∀ ↔ ∃.
    FlipQuant,
    /// `Q v. body` → `body`.
    DropQuant,
    /// `Q v. R w. body` → `R w. Q v. body`.
    SwapQuants,
    /// `(Q v. a) op b` → `Q v. (a op b)` (true), or the same with the right operand.
    Widen(bool),
    /// `Q v. (a op b)` → `(Q v. a) op b` (true) or `a op (Q v. b)` (false).
    Narrow(bool),
}

/// One edit: the node's pre-order index and the operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Edit {
    /// Pre-order index of the node in the formula edited.
    pub at: usize,
    /// What is done there.
    pub op: Op,
}

fn text(f: &Formula) -> String {
    print_formula(f, Notation::Unicode)
}

fn sym(op: BinOp) -> &'static str {
    match op {
        BinOp::And => "∧",
        BinOp::Or => "∨",
        BinOp::Implies => "→",
        BinOp::Iff => "↔",
        BinOp::Xor => "⊕",
    }
}

fn qsym(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Forall => "∀",
        Quantifier::Exists => "∃",
    }
}

/// How much an edit writes: the nodes of an added operand, one for any other edit
/// (a dropped operand is one slip however large it was). Explanations are ranked by
/// their summed weight first, so `φ₀ ∨ (a large part of φ₁)` does not beat two
/// one-node changes.
pub(crate) fn weight(op: &Op, pool: &Pool) -> usize {
    match op {
        Op::Add(_, i) => pool.sizes.get(*i).copied().unwrap_or(1),
        _ => 1,
    }
}

/// Every edit of `f`, in pre-order of the nodes.
pub(crate) fn edits(f: &Formula, pool: &Pool) -> Vec<Edit> {
    // Two adds per operand at every node, and a dozen other edits at most.
    let mut out = Vec::with_capacity(f.size() * (2 * pool.operands.len() + 12));
    each_edit(f, pool, &mut |e| out.push(e));
    out
}

/// [`edits`] handed to `out` one at a time, in the same order (a screen that rules
/// most of them out never stores them).
pub(crate) fn each_edit(f: &Formula, pool: &Pool, out: &mut impl FnMut(Edit)) {
    visit(f, pool, &mut Vec::new(), &mut 0, out);
}

/// The edits of the binary node `a op b` itself.
fn bin_edits(op: &BinOp, a: &Formula, b: &Formula, push: &mut impl FnMut(Op)) {
    for o in BinOp::ALL {
        if o != *op {
            push(Op::Connective(o));
            if matches!(a, Formula::Bin(o1, ..) if o1 == op) {
                push(Op::ChainSwap(o, true));
            }
            if matches!(b, Formula::Bin(o1, ..) if o1 == op) {
                push(Op::ChainSwap(o, false));
            }
        }
    }
    if matches!(*a, Formula::Not(_)) {
        push(Op::WidenNeg(true));
    }
    if matches!(*b, Formula::Not(_)) {
        push(Op::WidenNeg(false));
    }
    if *op == BinOp::Implies {
        push(Op::SwapOperands);
    }
    push(Op::Keep(true));
    push(Op::Keep(false));
    // Regrouping a chain of one associative connective keeps the meaning: no
    // mistake (left out, it cannot pad a pair as a second change).
    let assoc = |o: &BinOp| o == op && *op != BinOp::Implies;
    if matches!(b, Formula::Bin(o, ..) if !assoc(o)) {
        push(Op::RegroupLeft);
    }
    if matches!(a, Formula::Bin(o, ..) if !assoc(o)) {
        push(Op::RegroupRight);
    }
    // (Qv.x) ∧ y → Qv.(x ∧ y) with v not in y is miniscoping: no mistake.
    let keeps = matches!(op, BinOp::And | BinOp::Or);
    let free_in = |g: &Formula, v: &str| g.free_variables().contains(v);
    if let Formula::Quant(_, v, _) = a
        && (!keeps || free_in(b, v))
    {
        push(Op::Widen(true));
    }
    if let Formula::Quant(_, v, _) = b
        && (!keeps || free_in(a, v))
    {
        push(Op::Widen(false));
    }
}

/// The edits of `f` and below; `scope` lists the bound variables.
fn visit(
    f: &Formula,
    pool: &Pool,
    scope: &mut Vec<String>,
    n: &mut usize,
    out: &mut impl FnMut(Edit),
) {
    let at = *n;
    *n += 1;
    let mut push = |op| out(Edit { at, op });
    match f {
        Formula::Not(_) => push(Op::Unnegate),
        _ => push(Op::Negate),
    }
    match f {
        Formula::Bool(_) => push(Op::FlipBool),
        Formula::Prop(p) => {
            for (i, q) in pool.props.iter().enumerate() {
                if q != p.as_str() {
                    push(Op::RenameProp(i));
                }
            }
        }
        Formula::Pred(p, args) => term_edits(p, args, pool, scope, &mut push),
        Formula::Not(x) => {
            if matches!(**x, Formula::Bin(..)) {
                push(Op::NarrowNeg(true));
                push(Op::NarrowNeg(false));
            }
        }
        Formula::Bin(op, a, b) => bin_edits(op, a, b, &mut push),
        // Edits that keep the meaning (a quantifier over a variable its body does not
        // use, two alike quantifiers swapped, miniscoping) are no mistake: left out,
        // they neither explain nor spend the budget.
        Formula::Quant(q, v, body) => {
            let used = |g: &Formula| g.free_variables().contains(v.as_str());
            if used(body) {
                push(Op::FlipQuant);
                push(Op::DropQuant);
            }
            if let Formula::Quant(r, w, inner) = &**body
                && r != q
                && used(inner)
                && inner.free_variables().contains(w.as_str())
            {
                push(Op::SwapQuants);
            }
            if let Formula::Bin(o, x, y) = &**body {
                let keeps = matches!(o, BinOp::And | BinOp::Or);
                if !keeps || used(y) {
                    push(Op::Narrow(true));
                }
                if !keeps || used(x) {
                    push(Op::Narrow(false));
                }
            }
        }
    }
    for i in 0..pool.operands.len() {
        push(Op::Add(BinOp::And, i));
        push(Op::Add(BinOp::Or, i));
    }
    match f {
        Formula::Not(a) => visit(a, pool, scope, n, out),
        Formula::Bin(_, a, b) => {
            visit(a, pool, scope, n, out);
            visit(b, pool, scope, n, out);
        }
        Formula::Quant(_, v, body) => {
            scope.push(v.to_string());
            visit(body, pool, scope, n, out);
            scope.pop();
        }
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => {}
    }
}

fn term_edits(p: &str, args: &[Term], pool: &Pool, scope: &[String], push: &mut impl FnMut(Op)) {
    for (i, (q, k)) in pool.preds.iter().enumerate() {
        if *k == args.len() && q != p {
            push(Op::RenamePred(i));
        }
    }
    let terms: Vec<Term> = scope
        .iter()
        .rev()
        .map(|v| Term::Var(v.as_str().into()))
        .chain(
            pool.free
                .iter()
                .filter(|v| !scope.contains(v))
                .map(|v| Term::Var(v.as_str().into())),
        )
        .chain(pool.consts.iter().map(|c| Term::Const(c.as_str().into())))
        .collect();
    for (i, t) in args.iter().enumerate() {
        for u in &terms {
            if u != t {
                push(Op::SetArg(i, u.clone()));
            }
        }
        push(Op::DropArg(i));
        if i + 1 < args.len() && args[i] != args[i + 1] {
            push(Op::SwapArgs(i));
        }
    }
    if pool
        .preds
        .iter()
        .any(|(q, k)| q == p && *k == args.len() + 1)
    {
        for i in 0..=args.len() {
            for u in &terms {
                push(Op::InsertArg(i, u.clone()));
            }
        }
    }
}

/// The node `op` turns `f` into, if it applies.
pub(crate) fn local(f: &Formula, op: &Op, pool: &Pool) -> Option<Formula> {
    Some(match (op, f) {
        (Op::Negate, _) => Formula::negate(f.clone()),
        (Op::Unnegate, Formula::Not(x)) => (**x).clone(),
        (Op::Connective(o), Formula::Bin(_, a, b)) => Formula::Bin(*o, a.clone(), b.clone()),
        (Op::SwapOperands, Formula::Bin(o, a, b)) => Formula::Bin(*o, b.clone(), a.clone()),
        (Op::Keep(left), Formula::Bin(_, a, b)) => (**if *left { a } else { b }).clone(),
        (Op::RegroupLeft, Formula::Bin(o, a, b)) => match &**b {
            Formula::Bin(o2, b1, b2) => Formula::Bin(
                *o2,
                Box::new(Formula::Bin(*o, a.clone(), b1.clone())),
                b2.clone(),
            ),
            _ => return None,
        },
        (Op::RegroupRight, Formula::Bin(o, a, b)) => match &**a {
            Formula::Bin(o2, a1, a2) => Formula::Bin(
                *o2,
                a1.clone(),
                Box::new(Formula::Bin(*o, a2.clone(), b.clone())),
            ),
            _ => return None,
        },
        (Op::FlipBool, Formula::Bool(b)) => Formula::Bool(!b),
        (Op::WidenNeg(left), Formula::Bin(o, a, b)) => match (left, &**a, &**b) {
            (true, Formula::Not(x), _) => Formula::negate(Formula::Bin(*o, x.clone(), b.clone())),
            (false, _, Formula::Not(y)) => Formula::negate(Formula::Bin(*o, a.clone(), y.clone())),
            _ => return None,
        },
        (Op::NarrowNeg(left), Formula::Not(x)) => match &**x {
            Formula::Bin(o, a, b) if *left => {
                Formula::Bin(*o, Box::new(Formula::Not(a.clone())), b.clone())
            }
            Formula::Bin(o, a, b) => Formula::Bin(*o, a.clone(), Box::new(Formula::Not(b.clone()))),
            _ => return None,
        },
        (Op::ChainSwap(o2, left), Formula::Bin(o, a, b)) => match (left, &**a, &**b) {
            (true, Formula::Bin(o1, a1, a2), _) if o1 == o => Formula::Bin(
                *o,
                a1.clone(),
                Box::new(Formula::Bin(*o2, a2.clone(), b.clone())),
            ),
            (false, _, Formula::Bin(o1, b1, b2)) if o1 == o => Formula::Bin(
                *o,
                Box::new(Formula::Bin(*o2, a.clone(), b1.clone())),
                b2.clone(),
            ),
            _ => return None,
        },
        (Op::Add(o, i), _) => Formula::bin(*o, f.clone(), pool.operands.get(*i)?.clone()),
        (Op::RenameProp(i), Formula::Prop(_)) => Formula::Prop(pool.props.get(*i)?.as_str().into()),
        _ => return fol::local(f, op, pool),
    })
}

/// `f` with the edit applied, if it applies.
pub(crate) fn apply(f: &Formula, e: &Edit, pool: &Pool) -> Option<Formula> {
    fn go(f: &Formula, e: &Edit, pool: &Pool, n: &mut usize) -> Option<Option<Formula>> {
        // None: not inside this subtree; Some(None): inside but does not apply.
        let here = *n;
        *n += 1;
        if here == e.at {
            return Some(local(f, &e.op, pool));
        }
        let size = f.size();
        if e.at >= here + size {
            *n = here + size;
            return None;
        }
        Some(Some(match f {
            Formula::Not(a) => Formula::negate(go(a, e, pool, n)??),
            Formula::Bin(o, a, b) => match go(a, e, pool, n) {
                Some(x) => Formula::Bin(*o, Box::new(x?), b.clone()),
                None => Formula::Bin(*o, a.clone(), Box::new(go(b, e, pool, n)??)),
            },
            Formula::Quant(q, v, body) => Formula::quant(*q, v.clone(), go(body, e, pool, n)??),
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => return Some(None),
        }))
    }
    go(f, e, pool, &mut 0)?
}

/// The node at pre-order index `at`.
pub(crate) fn node(f: &Formula, at: usize) -> Option<&Formula> {
    let mut n = 0;
    let mut found = None;
    f.walk(&mut |g| {
        if n == at {
            found = Some(g);
        }
        n += 1;
    });
    found
}

/// The named change an edit of `f` makes, in `f`'s own syntax.
pub(crate) fn describe(f: &Formula, e: &Edit, pool: &Pool) -> Option<(Change, String)> {
    let g = node(f, e.at)?;
    let t = text(g);
    Some(match (&e.op, g) {
        (Op::Negate, _) => (Change::NegationAdded, format!("negation added on {t}")),
        (Op::Unnegate, Formula::Not(x)) => (
            Change::NegationRemoved,
            format!("negation removed on {}", text(x)),
        ),
        (Op::Connective(o), Formula::Bin(op, ..)) => {
            let c = if matches!((op, o), (BinOp::And, BinOp::Or) | (BinOp::Or, BinOp::And)) {
                Change::AndOrSwapped
            } else {
                Change::OperatorSwapped
            };
            (c, format!("{} → {} in {t}", sym(*op), sym(*o)))
        }
        (Op::SwapOperands, _) => (Change::OperandsSwapped, format!("operands swapped in {t}")),
        (Op::FlipBool, _) => {
            let after = local(g, &e.op, pool)?;
            (
                Change::AtomChanged,
                format!("symbol renamed {t} → {}", text(&after)),
            )
        }
        (Op::WidenNeg(_), _) => {
            let after = local(g, &e.op, pool)?;
            (
                Change::NegationWidened,
                format!("negation widened: {t} → {}", text(&after)),
            )
        }
        (Op::NarrowNeg(_), _) => {
            let after = local(g, &e.op, pool)?;
            (
                Change::NegationNarrowed,
                format!("negation narrowed: {t} → {}", text(&after)),
            )
        }
        (Op::ChainSwap(o2, _), Formula::Bin(op, ..)) => {
            let after = local(g, &e.op, pool)?;
            let c = if matches!((op, o2), (BinOp::And, BinOp::Or) | (BinOp::Or, BinOp::And)) {
                Change::AndOrSwapped
            } else {
                Change::OperatorSwapped
            };
            (
                c,
                format!("{} → {} in {t}: {}", sym(*op), sym(*o2), text(&after)),
            )
        }
        (Op::Keep(left), Formula::Bin(_, a, b)) => {
            let gone = if *left { b } else { a };
            (
                Change::OperatorDropped,
                format!("operand dropped: {} from {t}", text(gone)),
            )
        }
        (Op::RegroupLeft | Op::RegroupRight, _) => {
            let after = local(g, &e.op, pool)?;
            (
                Change::ScopeChanged,
                format!("grouping changed: {t} → {}", text(&after)),
            )
        }
        (Op::Add(o, i), _) => {
            let x = pool.operands.get(*i)?;
            (
                Change::OperatorAdded,
                format!("operand added: {t} {} {}", sym(*o), text(x)),
            )
        }
        (Op::RenameProp(i), _) => (
            Change::AtomChanged,
            format!("symbol renamed {t} → {}", pool.props.get(*i)?),
        ),
        _ => return fol::describe(g, &t, &e.op, pool),
    })
}
