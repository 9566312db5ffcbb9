//! Complexity metrics of formulas and regexes.

use super::logic::{Formula, Term};
use super::regex::Regex;

/// Metrics of a logic formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct LogicMetrics {
    /// Operators by the original's rule: ∧ ∨ → ↔ ⊕ and ¬ count one each; ¬ on an atom does not.
    pub operators: usize,
    /// Tree height; an atom has height 0.
    pub tree_depth: usize,
    /// Atom occurrences (propositions and predicate atoms).
    pub terminals: usize,
    /// Quantifier occurrences.
    pub quantifiers: usize,
    /// Predicate-atom occurrences.
    pub predicates: usize,
    /// Distinct propositions, predicates and constants.
    pub distinct_symbols: usize,
}

/// The operator count with the original's rule (¬ on a terminal is part of the literal).
pub fn operator_count(f: &Formula) -> usize {
    let mut n = 0;
    f.walk(&mut |g| match g {
        Formula::Not(inner) if !inner.is_atom() => n += 1,
        Formula::Bin(..) => n += 1,
        _ => {}
    });
    n
}

/// Tree height (atoms 0).
pub fn tree_depth(f: &Formula) -> usize {
    match f {
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => 0,
        Formula::Not(a) | Formula::Quant(_, _, a) => 1 + tree_depth(a),
        Formula::Bin(_, a, b) => 1 + tree_depth(a).max(tree_depth(b)),
    }
}

/// All logic metrics at once.
pub fn logic_metrics(f: &Formula) -> LogicMetrics {
    let mut m = LogicMetrics {
        operators: operator_count(f),
        tree_depth: tree_depth(f),
        ..Default::default()
    };
    let mut names = std::collections::BTreeSet::new();
    f.walk(&mut |g| match g {
        Formula::Prop(p) => {
            m.terminals += 1;
            names.insert(p.as_str());
        }
        Formula::Pred(p, args) => {
            m.terminals += 1;
            m.predicates += 1;
            names.insert(p.as_str());
            for a in args {
                if let Term::Const(c) = a {
                    names.insert(c.as_str());
                }
            }
        }
        Formula::Quant(..) => m.quantifiers += 1,
        Formula::Bool(_) => m.terminals += 1,
        _ => {}
    });
    m.distinct_symbols = names.len();
    m
}

/// Metrics of a regex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RegexMetrics {
    /// Depth in the dataset grammar `S → (S)K | S Σ K | Σ K; K → * | ε`: one plus the
    /// fewest S-expansions deriving the regex (the generator's level). For regexes
    /// outside that grammar (`|`, `+`, `?`, ε), one plus the tree height.
    pub cfg_depth: usize,
    /// Whether the regex is derivable in the dataset grammar.
    pub in_grammar: bool,
    /// Symbol occurrences.
    pub symbols: usize,
    /// Star/plus/optional/bounded-repetition operators.
    pub stars: usize,
}

fn regex_height(r: &Regex) -> usize {
    match r {
        Regex::Epsilon | Regex::Sym(_) => 0,
        Regex::Concat(xs) | Regex::Alt(xs) => 1 + xs.iter().map(regex_height).max().unwrap_or(0),
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => {
            1 + regex_height(x)
        }
    }
}

/// Fewest S-expansions for `r` as a whole S, if derivable.
fn s_count(r: &Regex) -> Option<usize> {
    match r {
        Regex::Concat(xs) => {
            let (first, rest) = xs.split_first()?;
            let mut n = base_count(first)?;
            for x in rest {
                match x {
                    Regex::Sym(_) => n += 1,
                    Regex::Star(s) if matches!(**s, Regex::Sym(_)) => n += 1,
                    _ => return None,
                }
            }
            Some(n)
        }
        other => base_count(other),
    }
}

/// Count for a base factor `Σ K` or `(S) K`.
fn base_count(r: &Regex) -> Option<usize> {
    match r {
        Regex::Sym(_) => Some(1),
        Regex::Star(inner) => match &**inner {
            Regex::Sym(_) => Some(1),
            other => Some(1 + s_count(other)?),
        },
        _ => None,
    }
}

/// All regex metrics at once.
pub fn regex_metrics(r: &Regex) -> RegexMetrics {
    let mut m = RegexMetrics::default();
    r.walk(&mut |x| match x {
        Regex::Sym(_) => m.symbols += 1,
        Regex::Star(_) | Regex::Plus(_) | Regex::Opt(_) | Regex::Repeat(..) => m.stars += 1,
        _ => {}
    });
    match s_count(r) {
        Some(n) => {
            m.cfg_depth = n + 1;
            m.in_grammar = true;
        }
        None => m.cfg_depth = regex_height(r) + 1,
    }
    m
}
