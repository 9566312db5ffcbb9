//! Reading conventions: how a formula without full parentheses is grouped.
//!
//! Two conventions read the same text:
//! - `standard` (the default): a quantifier's scope runs as far right as possible,
//!   `→` groups to the right (`a → b → c` is `a → (b → c)`), `^` is ⊕ (xor).
//! - `nltk` (the original's, through NLTK's logic parser): a quantifier binds as
//!   tightly as `¬`, with or without a dot (`∀x.P(x) ∧ Q` is `(∀x.P(x)) ∧ Q`), every
//!   binary connective groups to the left (`a → b → c` is `(a → b) → c`), `^` is ∧.
//!
//! Both share everything else: precedence ¬, ∧, ∨/⊕, →, ↔, the notation table and
//! the rule for variables and constants. When a reply reads differently under the two
//! conventions, or writes `^`, [`reading_note`] says how it was read and how the other
//! convention reads it, so a reader can see which verdicts hang on the convention.

use super::Expr;
use super::SyntaxKind;
use super::parse_logic::{Conventions, parse_formula_with};
use super::print_logic::{Notation, print_formula};

/// The prefix of every note [`reading_note`] writes (`report` counts samples by it).
pub(crate) const NOTE_PREFIX: &str = "reading:";

/// A reading convention for logic formulas (regexes read the same under both).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Reading {
    /// Widest quantifier scope, right-grouped `→`, `^` as ⊕.
    #[default]
    Standard,
    /// NLTK's: narrowest quantifier scope, left-grouped connectives, `^` as ∧.
    Nltk,
}

impl Reading {
    /// The name used on the command line and in `run.json`.
    pub fn name(self) -> &'static str {
        match self {
            Reading::Standard => "standard",
            Reading::Nltk => "nltk",
        }
    }

    /// The other convention.
    pub fn other(self) -> Reading {
        match self {
            Reading::Standard => Reading::Nltk,
            Reading::Nltk => Reading::Standard,
        }
    }

    pub(crate) fn conventions(self) -> Conventions {
        match self {
            Reading::Standard => Conventions::STANDARD,
            Reading::Nltk => Conventions::NLTK,
        }
    }
}

impl std::fmt::Display for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// When `text` (a formula as written) reads differently under the other convention,
/// or writes `^`, a note: how it was read under `reading`, how the other reads it,
/// and which rules make the difference. `None` for regexes and for text that reads
/// the same (or does not parse) under both.
pub fn reading_note(text: &str, kind: SyntaxKind, reading: Reading) -> Option<String> {
    if kind == SyntaxKind::Regex || !may_differ(text) {
        return None;
    }
    let mine = parse_formula_with(text, reading.conventions()).ok()?;
    let other = parse_formula_with(text, reading.other().conventions()).ok()?;
    if mine == other {
        return None;
    }
    // Which rules matter: flip one at a time from this reading's conventions.
    let base = reading.conventions();
    let flips = [
        (
            Conventions {
                narrow_quantifiers: !base.narrow_quantifiers,
                ..base
            },
            "quantifier scope",
        ),
        (
            Conventions {
                left_implies: !base.left_implies,
                ..base
            },
            "→ grouping",
        ),
        (
            Conventions {
                caret_and: !base.caret_and,
                ..base
            },
            "'^' (⊕ or ∧)",
        ),
    ];
    let rules: Vec<&str> = flips
        .iter()
        .filter(|(c, _)| parse_formula_with(text, *c).is_ok_and(|f| f != mine))
        .map(|(_, what)| *what)
        .collect();
    let print = |f| print_formula(f, Notation::Unicode);
    Some(format!(
        "{NOTE_PREFIX} read as {} ({} reading); the {} reading gives {}{}",
        print(&mine),
        reading.name(),
        reading.other().name(),
        print(&other),
        if rules.is_empty() {
            String::new()
        } else {
            format!(" (differs in {})", rules.join(", "))
        }
    ))
}

/// Whether the conventions can group `text` differently at all: it writes `^`, two or
/// more `→`, or a quantifier and a binary connective. Most replies can't, and skip
/// the second parse.
fn may_differ(text: &str) -> bool {
    use super::lexer::{Tok, lex};
    let Ok(toks) = lex(text) else { return false };
    let (mut implies, mut quant, mut binary) = (0, false, false);
    for t in &toks {
        match t.tok {
            Tok::Xor if text.get(t.start..t.end) == Some("^") => return true,
            Tok::Implies => {
                implies += 1;
                binary = true;
            }
            Tok::And | Tok::Or | Tok::Iff | Tok::Xor => binary = true,
            Tok::Forall | Tok::Exists => quant = true,
            _ => {}
        }
    }
    implies >= 2 || (quant && binary)
}

/// Whether an expression's reading note, if any, was written by [`reading_note`].
pub(crate) fn is_reading_note(note: &str) -> bool {
    note.starts_with(NOTE_PREFIX)
}

/// Parses `src` as `kind` under `reading` (regexes ignore the reading).
pub fn parse_as(src: &str, kind: SyntaxKind, reading: Reading) -> Result<Expr, super::ParseError> {
    match kind {
        SyntaxKind::Pl | SyntaxKind::Fol => {
            parse_formula_with(src, reading.conventions()).map(Expr::Logic)
        }
        SyntaxKind::Regex => super::parse_regex(src).map(Expr::Regex),
    }
}
