//! AST for propositional and first-order logic.

use std::collections::BTreeSet;

/// Names are short; storing them inline avoids an allocation per atom.
pub(crate) type Name = compact_str::CompactString;

/// Binary connectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    /// Conjunction ∧.
    And,
    /// Disjunction ∨.
    Or,
    /// Implication →.
    Implies,
    /// Biconditional ↔.
    Iff,
    /// Exclusive or ⊕.
    Xor,
}

impl BinOp {
    /// Every connective, in declaration order (what a generator or an edit picks from).
    pub const ALL: [BinOp; 5] = [
        BinOp::And,
        BinOp::Or,
        BinOp::Implies,
        BinOp::Iff,
        BinOp::Xor,
    ];

    /// The connective's truth value on `x` and `y`, computing `y` only when `x` does
    /// not already decide it (evaluators over models share this).
    pub fn apply(self, x: bool, y: impl FnOnce() -> bool) -> bool {
        match self {
            BinOp::And => x && y(),
            BinOp::Or => x || y(),
            BinOp::Implies => !x || y(),
            BinOp::Iff => x == y(),
            BinOp::Xor => x != y(),
        }
    }
}

/// Quantifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantifier {
    /// Universal ∀.
    Forall,
    /// Existential ∃.
    Exists,
}

impl Quantifier {
    /// The dual quantifier (∀ ↔ ∃).
    pub fn dual(self) -> Self {
        match self {
            Quantifier::Forall => Quantifier::Exists,
            Quantifier::Exists => Quantifier::Forall,
        }
    }
}

/// A predicate argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A constant (object) such as `p3` or `vera`.
    Const(Name),
    /// A variable: bound by an enclosing quantifier, or free when named like one (`x`, `y2`).
    Var(Name),
}

impl Term {
    /// The name as written.
    pub fn name(&self) -> &str {
        match self {
            Term::Const(s) | Term::Var(s) => s,
        }
    }
}

/// A logic formula. Quantifiers bind one variable; `∀x y.F` parses as `∀x.∀y.F`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Formula {
    /// The constant true (`⊤`, `True`) or false (`⊥`, `False`).
    Bool(bool),
    /// A proposition (0-ary atom) such as `p1`.
    Prop(Name),
    /// A predicate applied to terms, `pred1(x1,p3)`.
    Pred(Name, Vec<Term>),
    /// Negation.
    Not(Box<Formula>),
    /// A binary connective.
    Bin(BinOp, Box<Formula>, Box<Formula>),
    /// A quantifier over one variable.
    Quant(Quantifier, Name, Box<Formula>),
}

impl Formula {
    /// `¬f`.
    pub fn negate(f: Formula) -> Formula {
        Formula::Not(Box::new(f))
    }

    /// `a op b`.
    pub fn bin(op: BinOp, a: Formula, b: Formula) -> Formula {
        Formula::Bin(op, Box::new(a), Box::new(b))
    }

    /// `Q v. body`.
    pub fn quant(q: Quantifier, v: impl Into<Name>, body: Formula) -> Formula {
        Formula::Quant(q, v.into(), Box::new(body))
    }

    /// True for propositions, predicate atoms and the constants ⊤ and ⊥.
    pub fn is_atom(&self) -> bool {
        matches!(
            self,
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..)
        )
    }

    /// Whether the formula has any quantifier or predicate (i.e. needs FOL).
    pub(crate) fn is_first_order(&self) -> bool {
        match self {
            Formula::Bool(_) | Formula::Prop(_) => false,
            Formula::Pred(..) | Formula::Quant(..) => true,
            Formula::Not(a) => a.is_first_order(),
            Formula::Bin(_, a, b) => a.is_first_order() || b.is_first_order(),
        }
    }

    /// Visits every subformula in pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Formula)) {
        f(self);
        match self {
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => {}
            Formula::Not(a) | Formula::Quant(_, _, a) => a.walk(f),
            Formula::Bin(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
        }
    }

    /// Distinct proposition names.
    pub fn propositions(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.walk(&mut |g| {
            if let Formula::Prop(p) = g {
                out.insert(p.to_string());
            }
        });
        out
    }

    /// Distinct (predicate name, arity) pairs.
    pub fn predicates(&self) -> BTreeSet<(String, usize)> {
        let mut out = BTreeSet::new();
        self.walk(&mut |g| {
            if let Formula::Pred(p, args) = g {
                out.insert((p.to_string(), args.len()));
            }
        });
        out
    }

    /// Distinct constants used as predicate arguments.
    pub fn constants(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.walk(&mut |g| {
            if let Formula::Pred(_, args) = g {
                for a in args {
                    if let Term::Const(c) = a {
                        out.insert(c.to_string());
                    }
                }
            }
        });
        out
    }

    /// Variables that occur free (not bound by an enclosing quantifier).
    pub fn free_variables(&self) -> BTreeSet<String> {
        fn go<'a>(f: &'a Formula, bound: &mut Vec<&'a str>, out: &mut BTreeSet<String>) {
            match f {
                Formula::Bool(_) | Formula::Prop(_) => {}
                Formula::Pred(_, args) => {
                    for a in args {
                        if let Term::Var(v) = a
                            && !bound.contains(&v.as_str())
                        {
                            out.insert(v.to_string());
                        }
                    }
                }
                Formula::Not(a) => go(a, bound, out),
                Formula::Bin(_, a, b) => {
                    go(a, bound, out);
                    go(b, bound, out);
                }
                Formula::Quant(_, v, body) => {
                    bound.push(v.as_str());
                    go(body, bound, out);
                    bound.pop();
                }
            }
        }
        let mut out = BTreeSet::new();
        go(self, &mut Vec::new(), &mut out);
        out
    }

    /// `self` with every predicate argument `t` replaced by `f(t, bound)`, where `bound`
    /// lists the variables bound at that place (innermost last): the one substitution
    /// walk, so a rule that must respect binding (only free occurrences) sees the scope.
    pub(crate) fn map_terms(&self, f: &mut impl FnMut(&Term, &[&str]) -> Term) -> Formula {
        fn go<'a>(
            g: &'a Formula,
            bound: &mut Vec<&'a str>,
            f: &mut impl FnMut(&Term, &[&str]) -> Term,
        ) -> Formula {
            match g {
                Formula::Bool(_) | Formula::Prop(_) => g.clone(),
                Formula::Pred(p, args) => {
                    Formula::Pred(p.clone(), args.iter().map(|t| f(t, bound)).collect())
                }
                Formula::Not(a) => Formula::negate(go(a, bound, f)),
                Formula::Bin(op, a, b) => {
                    let a = go(a, bound, f);
                    Formula::bin(*op, a, go(b, bound, f))
                }
                Formula::Quant(q, v, body) => {
                    bound.push(v.as_str());
                    let body = go(body, bound, f);
                    bound.pop();
                    Formula::quant(*q, v.clone(), body)
                }
            }
        }
        go(self, &mut Vec::new(), f)
    }

    /// Number of nodes in the tree.
    pub fn size(&self) -> usize {
        let mut n = 0;
        self.walk(&mut |_| n += 1);
        n
    }
}

/// Whether an unbound argument name reads as a variable (`x`, `y2`, `z10`, `u`, `w`).
///
/// Bound names are always variables; this rule only decides free names. `v` is
/// excluded because a standalone `v` is the original's disjunction.
pub(crate) fn looks_like_variable(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some('u' | 'w' | 'x' | 'y' | 'z') => chars.all(|d| d.is_ascii_digit()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pred(p: &str, args: Vec<Term>) -> Formula {
        Formula::Pred(p.into(), args)
    }

    #[test]
    fn map_terms_sees_the_binding_scope_of_each_argument() {
        let (x, c) = (Term::Var("x".into()), Term::Const("c".into()));
        // P(x) ∧ ∀x.(Q(x, c) → ∃y.R(y, x)): the first x is free, the others bound.
        let f = Formula::bin(
            BinOp::And,
            pred("P", vec![x.clone()]),
            Formula::quant(
                Quantifier::Forall,
                "x",
                Formula::bin(
                    BinOp::Implies,
                    pred("Q", vec![x.clone(), c]),
                    Formula::quant(
                        Quantifier::Exists,
                        "y",
                        pred("R", vec![Term::Var("y".into()), x]),
                    ),
                ),
            ),
        );
        let mut seen = Vec::new();
        let same = f.map_terms(&mut |t, bound| {
            seen.push(format!("{}@{}", t.name(), bound.join("")));
            t.clone()
        });
        assert_eq!(same, f);
        assert_eq!(seen, ["x@", "x@x", "c@x", "y@xy", "x@xy"]);
        // Only the free x becomes a constant.
        let g = f.map_terms(&mut |t, bound| match t {
            Term::Var(v) if v == "x" && !bound.contains(&"x") => Term::Const("k".into()),
            t => t.clone(),
        });
        assert_eq!(g.free_variables().len(), 0);
        assert_eq!(g.constants(), ["c", "k"].map(String::from).into());
        assert_eq!(g.size(), f.size());
    }
}
