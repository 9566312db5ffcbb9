//! How two different atoms differ: a symbol renamed, a constant written as a
//! variable, the arguments changed.

use super::Ctx;
use super::node::Side;
use crate::syntax::diff::{Change, DiffLine};
use crate::syntax::logic::{Formula, Term};
use crate::syntax::{Notation, print_formula};

impl Ctx<'_> {
    /// Names how two different atoms differ.
    pub(super) fn atom_line(&self, fa: &Formula, fb: &Formula, depth: usize) -> DiffLine {
        let (l, r) = (
            print_formula(fa, Notation::Unicode),
            print_formula(fb, Notation::Unicode),
        );
        let (change, note) = self.atom_change(fa, fb, &l, &r);
        DiffLine::new(depth, Some(l.clone()), Some(r), change).named(note, l)
    }

    pub(super) fn atom_change(
        &self,
        fa: &Formula,
        fb: &Formula,
        l: &str,
        r: &str,
    ) -> (Change, String) {
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
}
