//! The input of `autoeval metrics pairs`: one pair per line, TSV or JSON, and its syntax.

use crate::syntax::SyntaxKind;

/// Logic syntaxes the metrics apply to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairSyntax {
    /// First-order logic.
    Fol,
    /// Propositional logic.
    Pl,
}

impl From<PairSyntax> for SyntaxKind {
    fn from(s: PairSyntax) -> Self {
        match s {
            PairSyntax::Fol => SyntaxKind::Fol,
            PairSyntax::Pl => SyntaxKind::Pl,
        }
    }
}

/// Longest input line accepted (bytes).
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// A JSON input line; other fields (ids, gold labels, notes) are allowed and ignored,
/// so files made for other tools can be scored as they are.
#[derive(serde::Deserialize)]
struct PairIn {
    a: String,
    b: String,
    #[serde(default)]
    syntax: Option<PairSyntax>,
}

/// One input line as (reference, candidate, syntax), or why not.
pub(crate) fn read_pair(
    text: &str,
    default: PairSyntax,
) -> Result<(String, String, SyntaxKind), String> {
    if text.len() > MAX_LINE {
        return Err(format!(
            "line is {} bytes, above the {MAX_LINE}-byte bound",
            text.len()
        ));
    }
    if text.trim().is_empty() {
        return Err("blank line: expected `φ<TAB>φ′` or a JSON object {\"a\", \"b\"}".into());
    }
    if text.trim_start().starts_with('{') {
        let p: PairIn = serde_json::from_str(text)
            .map_err(|e| format!("not a JSON object {{\"a\", \"b\", \"syntax\"}}: {e}"))?;
        return Ok((p.a, p.b, p.syntax.unwrap_or(default).into()));
    }
    let (a, b) = text
        .split_once('\t')
        .ok_or("expected `φ<TAB>φ′` or a JSON object {\"a\", \"b\"}")?;
    if b.contains('\t') {
        return Err("more than one TAB: expected exactly two columns".into());
    }
    Ok((a.to_string(), b.to_string(), default.into()))
}
