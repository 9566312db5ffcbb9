//! The first-order steps of [`super::local`] and [`super::describe`]: predicates,
//! arguments and quantifiers.

use super::{Op, Pool, qsym, text};
use crate::syntax::diff::Change;
use crate::syntax::{Formula, Term};

/// The node a predicate or quantifier `op` turns `f` into, if it applies.
pub(super) fn local(f: &Formula, op: &Op, pool: &Pool) -> Option<Formula> {
    Some(match (op, f) {
        (Op::RenamePred(i), Formula::Pred(_, args)) => {
            Formula::Pred(pool.preds.get(*i)?.0.as_str().into(), args.clone())
        }
        (Op::SetArg(i, t), Formula::Pred(p, args)) => {
            let mut args = args.clone();
            *args.get_mut(*i)? = t.clone();
            Formula::Pred(p.clone(), args)
        }
        (Op::DropArg(i), Formula::Pred(p, args)) if *i < args.len() => {
            let mut args = args.clone();
            args.remove(*i);
            Formula::Pred(p.clone(), args)
        }
        (Op::InsertArg(i, t), Formula::Pred(p, args)) if *i <= args.len() => {
            let mut args = args.clone();
            args.insert(*i, t.clone());
            Formula::Pred(p.clone(), args)
        }
        (Op::SwapArgs(i), Formula::Pred(p, args)) if i + 1 < args.len() => {
            let mut args = args.clone();
            args.swap(*i, i + 1);
            Formula::Pred(p.clone(), args)
        }
        (Op::FlipQuant, Formula::Quant(q, v, body)) => {
            Formula::Quant(q.dual(), v.clone(), body.clone())
        }
        (Op::DropQuant, Formula::Quant(_, _, body)) => (**body).clone(),
        (Op::SwapQuants, Formula::Quant(q, v, body)) => match &**body {
            Formula::Quant(r, w, inner) => {
                Formula::quant(*r, w.clone(), Formula::Quant(*q, v.clone(), inner.clone()))
            }
            _ => return None,
        },
        (Op::Widen(left), Formula::Bin(o, a, b)) => {
            let (quant, other) = if *left { (a, b) } else { (b, a) };
            let Formula::Quant(q, v, body) = &**quant else {
                return None;
            };
            let inner = if *left {
                Formula::Bin(*o, body.clone(), other.clone())
            } else {
                Formula::Bin(*o, other.clone(), body.clone())
            };
            Formula::quant(*q, v.clone(), inner)
        }
        (Op::Narrow(left), Formula::Quant(q, v, body)) => {
            let Formula::Bin(o, a, b) = &**body else {
                return None;
            };
            if *left {
                Formula::bin(*o, Formula::Quant(*q, v.clone(), a.clone()), (**b).clone())
            } else {
                Formula::bin(*o, (**a).clone(), Formula::Quant(*q, v.clone(), b.clone()))
            }
        }
        _ => return None,
    })
}

/// The named change a predicate or quantifier `op` makes on the node `g` (printed `t`).
pub(super) fn describe(g: &Formula, t: &str, op: &Op, pool: &Pool) -> Option<(Change, String)> {
    Some(match (op, g) {
        (Op::RenamePred(_) | Op::SetArg(..), Formula::Pred(_, args)) => {
            let after = super::local(g, op, pool)?;
            let change = match op {
                Op::SetArg(i, t2)
                    if matches!(
                        (args.get(*i), t2),
                        (Some(Term::Const(_)), Term::Var(_)) | (Some(Term::Var(_)), Term::Const(_))
                    ) =>
                {
                    Change::ConstantVariable
                }
                _ => Change::AtomChanged,
            };
            let what = if change == Change::ConstantVariable {
                "constant ↔ variable"
            } else {
                "symbol renamed"
            };
            (change, format!("{what}: {t} → {}", text(&after)))
        }
        (Op::DropArg(_) | Op::InsertArg(..) | Op::SwapArgs(_), _) => {
            let after = super::local(g, op, pool)?;
            (
                Change::ArityChanged,
                format!("arguments changed: {t} → {}", text(&after)),
            )
        }
        (Op::FlipQuant, Formula::Quant(q, v, _)) => (
            Change::QuantifierChanged,
            format!(
                "quantifier changed: {}{v} → {}{v}",
                qsym(*q),
                qsym(q.dual())
            ),
        ),
        (Op::DropQuant, Formula::Quant(q, v, _)) => (
            Change::QuantifierDropped,
            format!("quantifier dropped: {}{v}", qsym(*q)),
        ),
        (Op::SwapQuants, Formula::Quant(q, v, body)) => {
            let Formula::Quant(r, w, _) = &**body else {
                return None;
            };
            (
                Change::ScopeChanged,
                format!(
                    "quantifiers reordered: {}{v}.{}{w} → {}{w}.{}{v}",
                    qsym(*q),
                    qsym(*r),
                    qsym(*r),
                    qsym(*q)
                ),
            )
        }
        (Op::Widen(_) | Op::Narrow(_), _) => {
            let after = super::local(g, op, pool)?;
            (
                Change::ScopeChanged,
                format!("quantifier scope changed: {t} → {}", text(&after)),
            )
        }
        _ => return None,
    })
}
