//! Structural diff of φ₀ and φ₁: aligned trees with the changed places marked.

use super::logic::{BinOp, Formula, Term};
use super::regex::Regex;
use super::{Expr, Notation, print_formula, print_regex};

/// What changed at an aligned place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Identical subtrees (shown collapsed).
    Same,
    /// Same shape here; children may differ.
    Kept,
    /// A connective replaced by another.
    OperatorSwapped,
    /// φ₁ negates where φ₀ does not.
    NegationAdded,
    /// φ₀ negates where φ₁ does not.
    NegationRemoved,
    /// ∀ ↔ ∃.
    QuantifierChanged,
    /// A bound variable renamed.
    VariableChanged,
    /// A quantifier appears, disappears, or moves across a connective.
    ScopeChanged,
    /// The two operands of a connective swapped.
    OperandsSwapped,
    /// A different atom or symbol.
    AtomChanged,
    /// The same predicate with a constant where φ₀ has a variable, or the reverse.
    ConstantVariable,
    /// The same predicate with a different number or order of arguments.
    ArityChanged,
    /// A Kleene star (or +, ?) added.
    StarAdded,
    /// A Kleene star (or +, ?) removed.
    StarRemoved,
    /// A connective and one operand dropped (φ₁ keeps the other operand).
    OperatorDropped,
    /// A connective and an operand added around φ₀'s subtree.
    OperatorAdded,
    /// Different subtrees that do not align.
    Replaced,
}

impl Change {
    /// Short description shown beside the line and used as a label suggestion.
    pub fn describe(&self) -> &'static str {
        match self {
            Change::Same | Change::Kept => "",
            Change::OperatorSwapped => "operator swapped",
            Change::NegationAdded => "negation added",
            Change::NegationRemoved => "negation removed",
            Change::QuantifierChanged => "quantifier changed",
            Change::VariableChanged => "variable renamed",
            Change::ScopeChanged => "scope changed",
            Change::OperandsSwapped => "operands swapped",
            Change::AtomChanged => "symbol changed",
            Change::ConstantVariable => "constant ↔ variable",
            Change::ArityChanged => "arity changed",
            Change::StarAdded => "star added",
            Change::StarRemoved => "star removed",
            Change::OperatorDropped => "operator dropped",
            Change::OperatorAdded => "operator added",
            Change::Replaced => "subtree replaced",
        }
    }

    /// Whether the line marks a difference.
    pub fn is_change(&self) -> bool {
        !matches!(self, Change::Same | Change::Kept)
    }
}

/// One line of the aligned diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    /// Nesting depth.
    pub depth: usize,
    /// φ₀'s node (label or collapsed subtree), if any.
    pub left: Option<String>,
    /// φ₁'s node, if any.
    pub right: Option<String>,
    /// The change at this place.
    pub change: Change,
}

fn op(o: BinOp) -> &'static str {
    match o {
        BinOp::And => "∧",
        BinOp::Or => "∨",
        BinOp::Implies => "→",
        BinOp::Iff => "↔",
        BinOp::Xor => "⊕",
    }
}

fn label(f: &Formula) -> String {
    match f {
        Formula::Bin(o, ..) => op(*o).to_string(),
        Formula::Not(_) => "¬".into(),
        Formula::Quant(q, v, _) => format!(
            "{}{v}",
            if *q == super::Quantifier::Forall {
                "∀"
            } else {
                "∃"
            }
        ),
        atom => print_formula(atom, Notation::Unicode),
    }
}

fn whole(f: &Formula) -> String {
    print_formula(f, Notation::Unicode)
}

fn push(
    out: &mut Vec<DiffLine>,
    depth: usize,
    left: Option<String>,
    right: Option<String>,
    change: Change,
) {
    out.push(DiffLine {
        depth,
        left,
        right,
        change,
    });
}

fn align(a: &Formula, b: &Formula, depth: usize, out: &mut Vec<DiffLine>) {
    if a == b {
        push(out, depth, Some(whole(a)), Some(whole(b)), Change::Same);
        return;
    }
    // One side is the other plus a connective and an operand.
    let wraps = |outer: &Formula, inner: &Formula| matches!(outer, Formula::Bin(_, x, y) if **x == *inner || **y == *inner);
    let grown = if wraps(a, b) {
        Some(Change::OperatorDropped)
    } else if wraps(b, a) {
        Some(Change::OperatorAdded)
    } else {
        None
    };
    if let Some(change) = grown {
        push(out, depth, Some(whole(a)), Some(whole(b)), change);
        return;
    }
    match (a, b) {
        (Formula::Not(x), Formula::Not(y)) => {
            push(out, depth, Some("¬".into()), Some("¬".into()), Change::Kept);
            align(x, y, depth + 1, out);
        }
        (Formula::Not(x), y) if !matches!(y, Formula::Not(_)) => {
            push(out, depth, Some("¬".into()), None, Change::NegationRemoved);
            align(x, y, depth + 1, out);
        }
        (x, Formula::Not(y)) if !matches!(x, Formula::Not(_)) => {
            push(out, depth, None, Some("¬".into()), Change::NegationAdded);
            align(x, y, depth + 1, out);
        }
        (Formula::Bin(o1, a1, b1), Formula::Bin(o2, a2, b2)) => {
            if o1 == o2 && a1 == b2 && b1 == a2 {
                push(
                    out,
                    depth,
                    Some(whole(a)),
                    Some(whole(b)),
                    Change::OperandsSwapped,
                );
                return;
            }
            let change = if o1 == o2 {
                Change::Kept
            } else {
                Change::OperatorSwapped
            };
            push(
                out,
                depth,
                Some(op(*o1).into()),
                Some(op(*o2).into()),
                change,
            );
            align(a1, a2, depth + 1, out);
            align(b1, b2, depth + 1, out);
        }
        (Formula::Quant(q1, v1, x), Formula::Quant(q2, v2, y)) => {
            let change = if q1 != q2 {
                Change::QuantifierChanged
            } else if v1 != v2 {
                Change::VariableChanged
            } else {
                Change::Kept
            };
            push(out, depth, Some(label(a)), Some(label(b)), change);
            align(x, y, depth + 1, out);
        }
        (Formula::Quant(..), _) | (_, Formula::Quant(..)) => {
            push(
                out,
                depth,
                Some(whole(a)),
                Some(whole(b)),
                Change::ScopeChanged,
            );
        }
        (x, y) if x.is_atom() && y.is_atom() => {
            push(
                out,
                depth,
                Some(whole(x)),
                Some(whole(y)),
                atom_change(x, y),
            );
        }
        _ => push(out, depth, Some(whole(a)), Some(whole(b)), Change::Replaced),
    }
}

/// Names how two different atoms differ: a constant written as a variable (or the
/// reverse), the arguments' number or order, or another symbol altogether.
fn atom_change(a: &Formula, b: &Formula) -> Change {
    match (a, b) {
        (Formula::Pred(n1, xs), Formula::Pred(n2, ys)) if n1 == n2 => {
            if xs.len() != ys.len() {
                return Change::ArityChanged;
            }
            let mut sx: Vec<&Term> = xs.iter().collect();
            let mut sy: Vec<&Term> = ys.iter().collect();
            sx.sort();
            sy.sort();
            if sx == sy {
                return Change::ArityChanged;
            }
            let kind_flip = xs.iter().zip(ys).any(|(x, y)| {
                matches!(
                    (x, y),
                    (Term::Const(_), Term::Var(_)) | (Term::Var(_), Term::Const(_))
                )
            });
            if kind_flip {
                Change::ConstantVariable
            } else {
                Change::AtomChanged
            }
        }
        (Formula::Prop(n1), Formula::Pred(n2, _)) | (Formula::Pred(n1, _), Formula::Prop(n2))
            if n1 == n2 =>
        {
            Change::ArityChanged
        }
        _ => Change::AtomChanged,
    }
}

fn regex_label(r: &Regex) -> String {
    match r {
        Regex::Concat(_) => "·".into(),
        Regex::Alt(_) => "|".into(),
        Regex::Star(_) => "*".into(),
        Regex::Plus(_) => "+".into(),
        Regex::Opt(_) => "?".into(),
        other => print_regex(other, false),
    }
}

fn align_regex(a: &Regex, b: &Regex, depth: usize, out: &mut Vec<DiffLine>) {
    let whole = |r: &Regex| print_regex(r, false);
    if a == b {
        push(out, depth, Some(whole(a)), Some(whole(b)), Change::Same);
        return;
    }
    let starred = |r: &Regex| matches!(r, Regex::Star(_) | Regex::Plus(_) | Regex::Opt(_));
    match (a, b) {
        (Regex::Star(x), Regex::Star(y))
        | (Regex::Plus(x), Regex::Plus(y))
        | (Regex::Opt(x), Regex::Opt(y)) => {
            push(
                out,
                depth,
                Some(regex_label(a)),
                Some(regex_label(b)),
                Change::Kept,
            );
            align_regex(x, y, depth + 1, out);
        }
        (Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x), y) if !starred(y) => {
            push(out, depth, Some(regex_label(a)), None, Change::StarRemoved);
            align_regex(x, y, depth + 1, out);
        }
        (x, Regex::Star(y) | Regex::Plus(y) | Regex::Opt(y)) if !starred(x) => {
            push(out, depth, None, Some(regex_label(b)), Change::StarAdded);
            align_regex(x, y, depth + 1, out);
        }
        (Regex::Concat(xs), Regex::Concat(ys)) | (Regex::Alt(xs), Regex::Alt(ys))
            if xs.len() == ys.len() =>
        {
            push(
                out,
                depth,
                Some(regex_label(a)),
                Some(regex_label(b)),
                Change::Kept,
            );
            for (x, y) in xs.iter().zip(ys) {
                align_regex(x, y, depth + 1, out);
            }
        }
        (Regex::Sym(_) | Regex::Epsilon, Regex::Sym(_) | Regex::Epsilon) => {
            push(
                out,
                depth,
                Some(whole(a)),
                Some(whole(b)),
                Change::AtomChanged,
            );
        }
        _ => push(out, depth, Some(whole(a)), Some(whole(b)), Change::Replaced),
    }
}

/// Aligned diff of two expressions of the same syntax.
pub fn diff(a: &Expr, b: &Expr) -> Vec<DiffLine> {
    let mut out = Vec::new();
    match (a, b) {
        (Expr::Logic(x), Expr::Logic(y)) => align(x, y, 0, &mut out),
        (Expr::Regex(x), Expr::Regex(y)) => align_regex(x, y, 0, &mut out),
        _ => push(
            &mut out,
            0,
            Some(a.to_unicode()),
            Some(b.to_unicode()),
            Change::Replaced,
        ),
    }
    out
}

/// The distinct kinds of change, with "negation moved" when one is added and another removed.
pub fn summary(lines: &[DiffLine]) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = Vec::new();
    let added = lines.iter().any(|l| l.change == Change::NegationAdded);
    let removed = lines.iter().any(|l| l.change == Change::NegationRemoved);
    for l in lines.iter().filter(|l| l.change.is_change()) {
        let d = if added
            && removed
            && matches!(l.change, Change::NegationAdded | Change::NegationRemoved)
        {
            "negation moved"
        } else {
            l.change.describe()
        };
        if !kinds.contains(&d) {
            kinds.push(d);
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{SyntaxKind, parse};

    fn d(a: &str, b: &str) -> Vec<&'static str> {
        let k = if a.contains('*') {
            SyntaxKind::Regex
        } else {
            SyntaxKind::Fol
        };
        summary(&diff(&parse(a, k).unwrap(), &parse(b, k).unwrap()))
    }

    #[test]
    fn names_the_changes() {
        assert!(d("p ∧ q", "p ∧ q").is_empty());
        assert_eq!(d("p ∧ q", "p ∨ q"), ["operator swapped"]);
        assert_eq!(d("¬p ∧ q", "p ∧ ¬q"), ["negation moved"]);
        assert_eq!(d("p ∧ q", "¬(p ∧ q)"), ["negation added"]);
        assert_eq!(d("∀x.∃y.R(x,y)", "∃x.∃y.R(x,y)"), ["quantifier changed"]);
        assert_eq!(d("∀x.(P(x) ∧ Q)", "(∀x.P(x)) ∧ Q"), ["scope changed"]);
        assert_eq!(d("p ∧ q", "q ∧ p"), ["operands swapped"]);
        assert_eq!(d("p1 ∨ p2", "p1 ∨ p3"), ["symbol changed"]);
        assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(x1, x2)"), ["constant ↔ variable"]);
        assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(c1, x1)"), ["arity changed"]);
        assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(x1)"), ["arity changed"]);
        assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(x1, c2)"), ["symbol changed"]);
        assert_eq!(d("¬p1 ∧ p4", "¬p1"), ["operator dropped"]);
        assert_eq!(d("p1", "p1 ∨ p2"), ["operator added"]);
        assert_eq!(d("0*1", "01"), ["star removed"]);
        assert_eq!(d("0*1", "0*1*"), ["star added"]);
    }
}
