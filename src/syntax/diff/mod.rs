//! Structural diff of φ₀ and φ₁: aligned trees with each change named at the
//! smallest place where it happens.
//!
//! ∧/∨/⊕/↔ chains (and regex alternations) are flattened and their operands matched
//! as multisets, exact matches first and then by similarity; double negations are
//! dropped and bound variables are matched by their binders, not their names. So a
//! meaning-preserving rewrite (commutation, regrouping, double negation, renaming of
//! bound variables) shows no change at all, and a real one is named where it is.

mod logic;
mod regex;

use super::Expr;

/// What changed at an aligned place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// Identical subtrees (shown collapsed).
    Same,
    /// Same shape here; children may differ.
    Kept,
    /// ∧ replaced by ∨ or the reverse.
    AndOrSwapped,
    /// Another connective replaced (→, ↔, ⊕ involved).
    OperatorSwapped,
    /// φ₁ negates where φ₀ does not.
    NegationAdded,
    /// φ₀ negates where φ₁ does not.
    NegationRemoved,
    /// A negation moved outward over more of the formula.
    NegationWidened,
    /// A negation moved inward over less of the formula.
    NegationNarrowed,
    /// ∀ ↔ ∃.
    QuantifierChanged,
    /// φ₀ quantifies where φ₁ does not.
    QuantifierDropped,
    /// φ₁ quantifies where φ₀ does not.
    QuantifierAdded,
    /// A quantifier moved across a connective.
    ScopeChanged,
    /// The two operands of an implication swapped.
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
    /// One repetition operator replaced by another (`*` ↔ `+` ↔ `?`).
    RepeatChanged,
    /// An operand (with its connective) dropped.
    OperatorDropped,
    /// An operand (with its connective) added.
    OperatorAdded,
    /// Different subtrees that nothing smaller explains.
    Replaced,
}

impl Change {
    /// Short description shown beside the line and used as a label suggestion.
    pub fn describe(&self) -> &'static str {
        match self {
            Change::Same | Change::Kept => "",
            Change::AndOrSwapped => "∧/∨ swapped",
            Change::OperatorSwapped => "operator swapped",
            Change::NegationAdded => "negation added",
            Change::NegationRemoved => "negation removed",
            Change::NegationWidened => "negation widened",
            Change::NegationNarrowed => "negation narrowed",
            Change::QuantifierChanged => "quantifier changed",
            Change::QuantifierDropped => "quantifier dropped",
            Change::QuantifierAdded => "quantifier added",
            Change::ScopeChanged => "scope changed",
            Change::OperandsSwapped => "operands swapped",
            Change::AtomChanged => "symbol changed",
            Change::ConstantVariable => "constant ↔ variable",
            Change::ArityChanged => "arguments changed",
            Change::StarAdded => "star added",
            Change::StarRemoved => "star removed",
            Change::RepeatChanged => "repetition changed",
            Change::OperatorDropped => "operand dropped",
            Change::OperatorAdded => "operand added",
            Change::Replaced => "subtree replaced",
        }
    }

    /// Stable machine name (JSON).
    pub fn id(&self) -> &'static str {
        match self {
            Change::Same => "same",
            Change::Kept => "kept",
            Change::AndOrSwapped => "and-or-swapped",
            Change::OperatorSwapped => "operator-swapped",
            Change::NegationAdded => "negation-added",
            Change::NegationRemoved => "negation-removed",
            Change::NegationWidened => "negation-widened",
            Change::NegationNarrowed => "negation-narrowed",
            Change::QuantifierChanged => "quantifier-changed",
            Change::QuantifierDropped => "quantifier-dropped",
            Change::QuantifierAdded => "quantifier-added",
            Change::ScopeChanged => "scope-changed",
            Change::OperandsSwapped => "operands-swapped",
            Change::AtomChanged => "symbol-renamed",
            Change::ConstantVariable => "constant-variable",
            Change::ArityChanged => "arguments-changed",
            Change::StarAdded => "star-added",
            Change::StarRemoved => "star-removed",
            Change::RepeatChanged => "repetition-changed",
            Change::OperatorDropped => "operand-dropped",
            Change::OperatorAdded => "operand-added",
            Change::Replaced => "restructured",
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
    /// The change named with its place ("negation removed on shiver(amos)"); empty
    /// for unchanged lines.
    pub note: String,
    /// The subformula the change is about (a negation's or quantifier's own text),
    /// used to merge a removed and an added negation into one moved negation.
    at: String,
    /// How much this line costs an explanation (a replaced subtree costs its size).
    weight: usize,
}

impl DiffLine {
    fn new(depth: usize, left: Option<String>, right: Option<String>, change: Change) -> Self {
        DiffLine {
            depth,
            left,
            right,
            change,
            note: String::new(),
            at: String::new(),
            weight: usize::from(change.is_change()),
        }
    }

    fn named(mut self, note: String, at: String) -> Self {
        self.note = note;
        self.at = at;
        self
    }

    fn weighing(mut self, weight: usize) -> Self {
        self.weight = weight;
        self
    }
}

/// One named change: what happened and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedChange {
    /// The kind of change.
    pub change: Change,
    /// The change with its place, e.g. "negation removed on shiver(amos)".
    pub text: String,
}

/// Aligned diff of two expressions of the same syntax.
pub fn diff(a: &Expr, b: &Expr) -> Vec<DiffLine> {
    diff_with(a, b, true)
}

/// The named changes from `a` to `b`: [`changes`] of their [`diff`], without printing
/// the unchanged lines that naming never reads.
pub(crate) fn named_changes(a: &Expr, b: &Expr) -> Vec<NamedChange> {
    changes(&diff_with(a, b, false))
}

fn diff_with(a: &Expr, b: &Expr, texts: bool) -> Vec<DiffLine> {
    match (a, b) {
        (Expr::Logic(x), Expr::Logic(y)) => logic::diff(x, y, texts),
        (Expr::Regex(x), Expr::Regex(y)) => regex::diff(x, y),
        _ => {
            let (l, r) = (a.to_unicode(), b.to_unicode());
            let note = format!("restructured: {l} → {r}");
            vec![DiffLine::new(0, Some(l), Some(r), Change::Replaced).named(note, String::new())]
        }
    }
}

/// The changes of a diff, named, in order. A negation removed in one place and added
/// around it (or inside it) is one moved negation; a quantifier dropped in one place
/// and added around or inside it is one changed scope.
pub fn changes(lines: &[DiffLine]) -> Vec<NamedChange> {
    pairing(lines)
        .into_iter()
        .map(|(i, partner)| {
            let l = &lines[i];
            let Some(j) = partner else {
                return NamedChange {
                    change: l.change,
                    text: l.note.clone(),
                };
            };
            let inner = &lines[j].at;
            let (change, text) = match l.change {
                Change::NegationAdded => (
                    Change::NegationWidened,
                    format!("negation widened from {inner} to {}", l.at),
                ),
                Change::NegationRemoved => (
                    Change::NegationNarrowed,
                    format!("negation narrowed from {} to {inner}", l.at),
                ),
                _ => (Change::ScopeChanged, format!("scope of {} changed", l.at)),
            };
            NamedChange { change, text }
        })
        .collect()
}

/// Each changed line, in order, with the later line inside it that it merges with: a
/// negation added and one removed (a moved negation), a quantifier dropped and the
/// same quantifier added (a changed scope).
fn pairing(lines: &[DiffLine]) -> Vec<(usize, Option<usize>)> {
    let mut used = vec![false; lines.len()];
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if used[i] || !l.change.is_change() {
            continue;
        }
        used[i] = true;
        let (want, same_quantifier) = match l.change {
            Change::NegationAdded => (Change::NegationRemoved, false),
            Change::NegationRemoved => (Change::NegationAdded, false),
            Change::QuantifierDropped => (Change::QuantifierAdded, true),
            Change::QuantifierAdded => (Change::QuantifierDropped, true),
            _ => {
                out.push((i, None));
                continue;
            }
        };
        let partner = lines
            .iter()
            .enumerate()
            .skip(i + 1)
            .take_while(|(_, m)| m.depth > l.depth)
            .find(|(j, m)| {
                !used[*j]
                    && m.change == want
                    && (!same_quantifier || m.at.chars().next() == l.at.chars().next())
            })
            .map(|(j, _)| j);
        if let Some(j) = partner {
            used[j] = true;
        }
        out.push((i, partner));
    }
    out
}

/// How much an alignment's changes cost: the explanation with the least is kept. A
/// merged pair costs 1, a replaced subtree its size.
fn cost(lines: &[DiffLine]) -> usize {
    pairing(lines)
        .into_iter()
        .map(|(i, partner)| {
            if partner.is_some() {
                1
            } else {
                lines[i].weight
            }
        })
        .sum()
}

/// Each line's mark, named as [`changes`] names it: a moved negation or quantifier is
/// named on its outer line (`negation widened`) and its inner line says it is the
/// other end of that change; unchanged lines get an empty mark.
pub fn line_marks(lines: &[DiffLine]) -> Vec<String> {
    let mut marks = vec![String::new(); lines.len()];
    for (i, partner) in pairing(lines) {
        let Some(j) = partner else {
            marks[i] = lines[i].change.describe().to_string();
            continue;
        };
        let merged = match lines[i].change {
            Change::NegationAdded => Change::NegationWidened,
            Change::NegationRemoved => Change::NegationNarrowed,
            _ => Change::ScopeChanged,
        };
        marks[i] = merged.describe().to_string();
        marks[j] = format!("{} (inner end)", merged.describe());
    }
    marks
}

/// The distinct kinds of change, in the order they appear.
pub fn summary(lines: &[DiffLine]) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = Vec::new();
    for c in changes(lines) {
        let d = c.change.describe();
        if !kinds.contains(&d) {
            kinds.push(d);
        }
    }
    kinds
}

/// Alignment work allowed per diff before alternatives stop being compared (bounds
/// hostile input; real formulas need a few hundred steps).
const BUDGET: usize = 20_000;

#[cfg(test)]
mod tests;
