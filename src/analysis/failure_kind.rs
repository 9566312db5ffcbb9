//! The failure kinds and the change each stands for: below both the proof search
//! (which ranks edits by kind) and the classification that calls it.

use crate::syntax::diff::Change;

/// One kind of failure, as the verdict and the diff show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// ψ reproduced the formula.
    Copied,
    /// The reply held no formula (echo, template continuation, prose).
    OffFormat,
    /// A formula was there but not in the grammar (own notation).
    ForeignSyntax,
    /// No answer: the call stopped at the token limit while reasoning.
    Truncated,
    /// The model call failed.
    ModelError,
    /// The verifier gave up.
    VerifierUnknown,
    /// A negation added, removed or moved.
    NegationMisplaced,
    /// ∧ and ∨ confused.
    AndOrSwap,
    /// Another connective swapped (→, ↔, ⊕).
    ConnectiveSwapped,
    /// ∀ and ∃ confused.
    QuantifierChanged,
    /// A quantifier's scope changed, or the operands of a connective swapped.
    ScopeChanged,
    /// A different proposition, predicate or symbol.
    SymbolRenamed,
    /// A constant written as a variable, or the reverse.
    ConstantVariable,
    /// The number or order of a predicate's arguments changed.
    Arity,
    /// A connective and an operand dropped (a conjunct left out).
    OperandDropped,
    /// A connective and an operand added.
    OperandAdded,
    /// A Kleene star (or +, ?) added, removed or moved.
    StarMisplaced,
    /// Subtrees that do not align.
    Restructured,
    /// Not equivalent, but the diff finds no structural change (e.g. only a
    /// bound variable renamed in a way that captures).
    Other,
}

impl FailureKind {
    /// Every kind, in display order.
    pub const ALL: [FailureKind; 19] = [
        FailureKind::Copied,
        FailureKind::OffFormat,
        FailureKind::ForeignSyntax,
        FailureKind::Truncated,
        FailureKind::ModelError,
        FailureKind::VerifierUnknown,
        FailureKind::NegationMisplaced,
        FailureKind::AndOrSwap,
        FailureKind::ConnectiveSwapped,
        FailureKind::QuantifierChanged,
        FailureKind::ScopeChanged,
        FailureKind::SymbolRenamed,
        FailureKind::ConstantVariable,
        FailureKind::Arity,
        FailureKind::OperandDropped,
        FailureKind::OperandAdded,
        FailureKind::StarMisplaced,
        FailureKind::Restructured,
        FailureKind::Other,
    ];

    /// Stable machine name (used in filters, JSON and CSV).
    pub fn id(self) -> &'static str {
        match self {
            FailureKind::Copied => "copied",
            FailureKind::OffFormat => "off-format",
            FailureKind::ForeignSyntax => "foreign-syntax",
            FailureKind::Truncated => "truncated",
            FailureKind::ModelError => "model-error",
            FailureKind::VerifierUnknown => "verifier-unknown",
            FailureKind::NegationMisplaced => "negation-misplaced",
            FailureKind::AndOrSwap => "and-or-swap",
            FailureKind::ConnectiveSwapped => "connective-swapped",
            FailureKind::QuantifierChanged => "quantifier-changed",
            FailureKind::ScopeChanged => "scope-changed",
            FailureKind::SymbolRenamed => "symbol-renamed",
            FailureKind::ConstantVariable => "constant-variable",
            FailureKind::Arity => "arity",
            FailureKind::OperandDropped => "operand-dropped",
            FailureKind::OperandAdded => "operand-added",
            FailureKind::StarMisplaced => "star-misplaced",
            FailureKind::Restructured => "restructured",
            FailureKind::Other => "other",
        }
    }

    /// Human name.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Copied => "copied",
            FailureKind::OffFormat => "off-format",
            FailureKind::ForeignSyntax => "foreign syntax",
            FailureKind::Truncated => "no answer (token limit)",
            FailureKind::ModelError => "model error",
            FailureKind::VerifierUnknown => "verifier unknown",
            FailureKind::NegationMisplaced => "negation misplaced",
            FailureKind::AndOrSwap => "∧/∨ swap",
            FailureKind::ConnectiveSwapped => "connective swapped",
            FailureKind::QuantifierChanged => "quantifier changed",
            FailureKind::ScopeChanged => "scope / precedence",
            FailureKind::SymbolRenamed => "symbol renamed",
            FailureKind::ConstantVariable => "constant ↔ variable",
            FailureKind::Arity => "arity",
            FailureKind::OperandDropped => "operand dropped",
            FailureKind::OperandAdded => "operand added",
            FailureKind::StarMisplaced => "star misplaced",
            FailureKind::Restructured => "restructured",
            FailureKind::Other => "other",
        }
    }

    /// Parses a machine name.
    pub fn from_id(s: &str) -> Option<FailureKind> {
        FailureKind::ALL.into_iter().find(|k| k.id() == s)
    }

    /// The taxonomy category (built-in `taxonomy.toml` id) this kind stands for, if any.
    pub fn category(self) -> Option<&'static str> {
        Some(match self {
            FailureKind::Copied | FailureKind::OffFormat => "off-format",
            FailureKind::ForeignSyntax => "foreign-syntax",
            FailureKind::NegationMisplaced => "negation-misplaced",
            FailureKind::AndOrSwap => "and-or-swap",
            FailureKind::QuantifierChanged => "quantifier-swap",
            FailureKind::ScopeChanged => "parentheses-scope",
            FailureKind::SymbolRenamed => "symbols-renamed",
            FailureKind::ConstantVariable => "constant-variable",
            FailureKind::Arity => "arity",
            FailureKind::OperandDropped => "incomplete",
            FailureKind::StarMisplaced => "star-misplaced",
            FailureKind::ModelError
            | FailureKind::Truncated
            | FailureKind::VerifierUnknown
            | FailureKind::ConnectiveSwapped
            | FailureKind::OperandAdded
            | FailureKind::Restructured
            | FailureKind::Other => return None,
        })
    }
}

/// The failure kind a named change stands for (`None`: no difference).
pub fn kind_of_change(c: Change) -> Option<FailureKind> {
    Some(match c {
        Change::Same | Change::Kept => return None,
        Change::NegationAdded
        | Change::NegationRemoved
        | Change::NegationWidened
        | Change::NegationNarrowed => FailureKind::NegationMisplaced,
        Change::AndOrSwapped => FailureKind::AndOrSwap,
        Change::OperatorSwapped => FailureKind::ConnectiveSwapped,
        Change::QuantifierChanged | Change::QuantifierDropped | Change::QuantifierAdded => {
            FailureKind::QuantifierChanged
        }
        Change::ScopeChanged | Change::OperandsSwapped => FailureKind::ScopeChanged,
        Change::AtomChanged => FailureKind::SymbolRenamed,
        Change::ConstantVariable => FailureKind::ConstantVariable,
        Change::ArityChanged => FailureKind::Arity,
        Change::StarAdded | Change::StarRemoved | Change::RepeatChanged => {
            FailureKind::StarMisplaced
        }
        Change::OperatorDropped => FailureKind::OperandDropped,
        Change::OperatorAdded => FailureKind::OperandAdded,
        Change::Replaced => FailureKind::Restructured,
    })
}
