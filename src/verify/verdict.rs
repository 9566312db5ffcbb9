//! The one verdict type shown everywhere, and countermodels.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which side of a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// φ (the original).
    Left,
    /// φ′ (the model's).
    Right,
}

/// One predicate's extension in a finite model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredicateTable {
    /// Predicate name.
    pub name: String,
    /// Arity.
    pub arity: usize,
    /// Tuples of domain elements (by name) for which it holds.
    pub true_tuples: Vec<Vec<String>>,
}

/// Why two expressions differ.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Countermodel {
    /// PL: values of the propositions that occur, and of both formulas.
    Assignment {
        /// Proposition values.
        values: BTreeMap<String, bool>,
        /// Value of φ.
        left: bool,
        /// Value of φ′.
        right: bool,
    },
    /// FOL: a finite structure under which exactly one formula holds.
    FiniteModel {
        /// Domain element names (`e1`, `e2`, …).
        domain: Vec<String>,
        /// Each constant's element.
        constants: BTreeMap<String, String>,
        /// Each predicate's extension.
        predicates: Vec<PredicateTable>,
        /// Propositions (0-ary atoms), if any.
        propositions: BTreeMap<String, bool>,
        /// Value of φ.
        left: bool,
        /// Value of φ′.
        right: bool,
    },
    /// FOL: Z3 found a model, but none with a small domain to show.
    NoSmallModel {
        /// Largest domain size searched.
        searched_up_to: usize,
    },
    /// Imported from the original tool, which keeps no countermodels.
    Imported {
        /// Where the verdict came from and how to get a countermodel.
        note: String,
    },
    /// Regex: the shortest string accepted by exactly one side.
    Witness {
        /// The string (may be empty).
        string: String,
        /// Which regex accepts it.
        accepted_by: Side,
    },
}

/// The outcome of checking φ₀ against φ₁.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// φ ≡ φ′.
    Equivalent {
        /// Semantic notes ("free variable x read as ∀x", "introduces p7").
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        notes: Vec<String>,
    },
    /// φ ≢ φ′, with a checked countermodel.
    NotEquivalent {
        /// Why.
        countermodel: Countermodel,
        /// Semantic notes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        notes: Vec<String>,
    },
    /// φ′ is not valid syntax.
    Unparseable {
        /// Byte position in the raw text.
        pos: usize,
        /// Short reason.
        reason: String,
    },
    /// The verifier gave up (timeout, resource limit, size limit).
    Unknown {
        /// Why.
        reason: String,
    },
    /// ψ reproduces the formula (set by the pipeline's copy check).
    Copied {
        /// Byte span in ψ.
        span: (usize, usize),
        /// What was copied.
        detail: String,
    },
    /// The model call failed (API error, refusal, empty answer).
    ModelError {
        /// What happened.
        message: String,
    },
}

impl Verdict {
    /// The kebab-case name users see and filter by.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// Whether this is a pass.
    pub fn is_equivalent(&self) -> bool {
        matches!(self, Verdict::Equivalent { .. })
    }

    /// Notes attached to a decided verdict.
    pub fn notes(&self) -> &[String] {
        match self {
            Verdict::Equivalent { notes } | Verdict::NotEquivalent { notes, .. } => notes,
            _ => &[],
        }
    }

    /// The verdict with `first` placed before its own notes (how φ′ was read comes
    /// before what the check found). Verdicts without notes are returned as they are.
    #[must_use]
    pub(crate) fn with_notes(mut self, first: Vec<String>) -> Verdict {
        if let Verdict::Equivalent { notes } | Verdict::NotEquivalent { notes, .. } = &mut self
            && !first.is_empty()
        {
            let own = std::mem::take(notes);
            *notes = first;
            notes.extend(own);
        }
        self
    }
}

/// A verdict without its payload: the one list of kinds, names and metric roles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum VerdictKind {
    /// φ ≡ φ′.
    Equivalent = 0,
    /// φ ≢ φ′.
    NotEquivalent = 1,
    /// φ′ is not valid syntax, or the reply is off-format.
    Unparseable = 2,
    /// The verifier gave up.
    Unknown = 3,
    /// ψ reproduces the formula.
    Copied = 4,
    /// The model call failed.
    ModelError = 5,
}

impl VerdictKind {
    /// Every kind in display order (the index is `kind as usize`).
    pub const ALL: [VerdictKind; 6] = [
        VerdictKind::Equivalent,
        VerdictKind::NotEquivalent,
        VerdictKind::Unparseable,
        VerdictKind::Unknown,
        VerdictKind::Copied,
        VerdictKind::ModelError,
    ];

    /// The kebab-case name users see and filter by.
    pub fn name(self) -> &'static str {
        match self {
            VerdictKind::Equivalent => "equivalent",
            VerdictKind::NotEquivalent => "not-equivalent",
            VerdictKind::Unparseable => "unparseable",
            VerdictKind::Unknown => "unknown",
            VerdictKind::Copied => "copied",
            VerdictKind::ModelError => "model-error",
        }
    }

    /// The kind named `name`, if any.
    pub(crate) fn from_name(name: &str) -> Option<VerdictKind> {
        VerdictKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A3: a pass.
    pub fn is_pass(self) -> bool {
        self == VerdictKind::Equivalent
    }

    /// A2's denominator: the deciding round reached an autoformalization answer
    /// (not a copy, not a failed call).
    pub fn answered(self) -> bool {
        !matches!(self, VerdictKind::Copied | VerdictKind::ModelError)
    }

    /// A2's numerator: answered, and φ₁ parsed.
    pub fn compliant(self) -> bool {
        self.answered() && self != VerdictKind::Unparseable
    }
}

impl Verdict {
    /// This verdict's kind.
    pub fn kind(&self) -> VerdictKind {
        match self {
            Verdict::Equivalent { .. } => VerdictKind::Equivalent,
            Verdict::NotEquivalent { .. } => VerdictKind::NotEquivalent,
            Verdict::Unparseable { .. } => VerdictKind::Unparseable,
            Verdict::Unknown { .. } => VerdictKind::Unknown,
            Verdict::Copied { .. } => VerdictKind::Copied,
            Verdict::ModelError { .. } => VerdictKind::ModelError,
        }
    }
}
