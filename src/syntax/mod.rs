//! Formal syntax: ASTs, parsers for every notation, printers, extraction, metrics.

pub mod diff;
pub mod error;
pub mod extract;
pub mod folio;
pub mod lexer;
pub mod logic;
pub mod metrics;
pub mod notation;
pub mod parse_logic;
pub mod print_logic;
pub mod reading;
pub mod regex;

pub use error::ParseError;
pub use extract::{Context as ExtractContext, Extracted, extract_in, extract_with};
pub use logic::{BinOp, Formula, Quantifier, Term};
pub use metrics::{LogicMetrics, RegexMetrics, logic_metrics, operator_count, regex_metrics};
pub use parse_logic::parse_formula;
pub use print_logic::{Notation, print_formula, print_with_span};
pub use reading::{Reading, parse_as, reading_note};
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

/// Extracts and parses an expression from model output (see [`mod@extract`] for the rule).
pub fn extract(raw: &str, kind: SyntaxKind) -> Result<Extracted<Expr>, ParseError> {
    extract_with(raw, kind == SyntaxKind::Regex, |s| parse(s, kind))
}

/// Extracts under the prompt's context: headers, echoes and candidates outside the
/// vocabulary are refused (see [`mod@extract`] for the rule). Standard reading; names are
/// read against the vocabulary ([`notation`]).
pub fn extract_for(
    raw: &str,
    kind: SyntaxKind,
    ctx: &ExtractContext,
) -> Result<Extracted<Expr>, ParseError> {
    extract_read(raw, kind, ctx, Reading::Standard).map(|x| Extracted {
        value: x.value.expr,
        start: x.start,
        end: x.end,
    })
}

/// An expression as read from a reply, with the notes on how it was read.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadExpr {
    /// The expression.
    pub expr: Expr,
    /// `recased: …`, `T read as ⊤ …`, `reading: …` notes, in that order.
    pub notes: Vec<String>,
}

/// [`extract_for`] under a reading convention: each candidate is parsed under
/// `reading` and its names read against the vocabulary; the notes say what was
/// recased and, when the taken text reads differently under the other convention
/// (or writes `^`), how each reads it.
pub(crate) fn extract_read(
    raw: &str,
    kind: SyntaxKind,
    ctx: &ExtractContext,
    reading: Reading,
) -> Result<Extracted<ReadExpr>, ParseError> {
    extract_read_among(raw, kind, ctx, reading, |a, b| a == b)
}

/// [`extract_read`] where `same` says which candidates are one answer written twice
/// (several candidates that are not the same, none marked, make the reply off-format).
pub(crate) fn extract_read_among(
    raw: &str,
    kind: SyntaxKind,
    ctx: &ExtractContext,
    reading: Reading,
    same: impl Fn(&Expr, &Expr) -> bool,
) -> Result<Extracted<ReadExpr>, ParseError> {
    let x = extract::extract_among(
        raw,
        kind == SyntaxKind::Regex,
        ctx,
        |s| parse_as(s, kind, reading).map(|e| notation::read_expr(e, &ctx.vocabulary)),
        |(e, _)| e.symbols(),
        |(a, _), (b, _)| same(a, b),
    )?;
    let (expr, mut notes) = x.value;
    if let Some(n) = raw
        .get(x.start..x.end)
        .and_then(|text| reading_note(text, kind, reading))
    {
        notes.push(n);
    }
    Ok(Extracted {
        value: ReadExpr { expr, notes },
        start: x.start,
        end: x.end,
    })
}

/// Reads φ′ as written by a user or model against the reference φ: parsed under
/// `reading`, names read against φ's symbols ([`notation`]), with the notes.
pub(crate) fn read_against(
    src: &str,
    reference: &Expr,
    kind: SyntaxKind,
    reading: Reading,
) -> Result<ReadExpr, ParseError> {
    let e = parse_as(src, kind, reading)?;
    let (expr, mut notes) = notation::read_expr(e, &reference.symbols());
    notes.extend(reading_note(src, kind, reading));
    Ok(ReadExpr { expr, notes })
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
