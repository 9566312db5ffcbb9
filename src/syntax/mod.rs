//! Formal syntax: ASTs, parsers for every notation, printers, extraction, metrics.

pub mod diff;
pub mod error;
pub mod extract;
pub mod lexer;
pub mod logic;
pub mod metrics;
pub mod parse_logic;
pub mod print_logic;
pub mod regex;

pub use error::ParseError;
pub use extract::{Context as ExtractContext, Extracted, extract_in, extract_with};
pub use logic::{BinOp, Formula, Quantifier, Term};
pub use metrics::{LogicMetrics, RegexMetrics, logic_metrics, operator_count, regex_metrics};
pub use parse_logic::parse_formula;
pub use print_logic::{Notation, print_formula, print_with_span};
pub use regex::{Regex, parse_regex, print_regex};

/// Which syntax a dataset or a check uses.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SyntaxKind {
    /// Propositional logic (also k-SAT).
    Pl,
    /// First-order logic.
    Fol,
    /// Regular expressions.
    Regex,
}

/// A parsed expression of either syntax.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A logic formula.
    Logic(Formula),
    /// A regular expression.
    Regex(Regex),
}

/// Parses `src` as the given syntax (PL and FOL share one parser).
pub fn parse(src: &str, kind: SyntaxKind) -> Result<Expr, ParseError> {
    match kind {
        SyntaxKind::Pl | SyntaxKind::Fol => parse_formula(src).map(Expr::Logic),
        SyntaxKind::Regex => parse_regex(src).map(Expr::Regex),
    }
}

/// Extracts and parses an expression from model output (see [`extract`] for the rule).
pub fn extract(raw: &str, kind: SyntaxKind) -> Result<Extracted<Expr>, ParseError> {
    extract_with(raw, kind == SyntaxKind::Regex, |s| parse(s, kind))
}

/// Extracts under the prompt's context: headers, echoes and candidates outside the
/// vocabulary are refused (see [`extract`] for the rule).
pub fn extract_for(
    raw: &str,
    kind: SyntaxKind,
    ctx: &ExtractContext,
) -> Result<Extracted<Expr>, ParseError> {
    extract_in(
        raw,
        kind == SyntaxKind::Regex,
        ctx,
        |s| parse(s, kind),
        Expr::symbols,
    )
}

impl Expr {
    /// The names a prompt's vocabulary lists for this expression: propositions,
    /// predicates and constants of a formula; the symbols of a regex.
    pub fn symbols(&self) -> Vec<String> {
        match self {
            Expr::Logic(f) => f
                .propositions()
                .into_iter()
                .chain(f.predicates().into_iter().map(|p| p.0))
                .chain(f.constants())
                .collect(),
            Expr::Regex(r) => r.alphabet().into_iter().map(String::from).collect(),
        }
    }

    /// Canonical Unicode text.
    pub fn to_unicode(&self) -> String {
        match self {
            Expr::Logic(f) => print_formula(f, Notation::Unicode),
            Expr::Regex(r) => print_regex(r, false),
        }
    }

    /// Text in the given notation (regexes ignore all but ASCII's ε).
    pub fn print(&self, n: Notation) -> String {
        match self {
            Expr::Logic(f) => print_formula(f, n),
            Expr::Regex(r) => print_regex(r, n == Notation::Ascii),
        }
    }
}
