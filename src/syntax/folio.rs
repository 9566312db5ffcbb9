//! FOLIO's FOL notation (`premises-FOL`, `conclusion-FOL`: `∀x (Drinks(x) → Dependent(x))`)
//! read into autoeval formulas.
//!
//! FOLIO names may contain `-`, `.` and `'` (`Rated(x, l-2021)`, `John's`), which
//! autoeval's notation reads as operators; they become `_` (`l_2021`), and a name that
//! would then collide with another one of the file, or read as an operator word (`all`,
//! `v`), gets a `_` added. Equality `a = b` becomes the predicate `Equal(a, b)`
//! (uninterpreted: the verifier does not know it is equality). Operators group by
//! autoeval's precedence (¬, ∧, ∨/⊕, →, ↔), not the paper parser's left-to-right reading.

use super::{Expr, Formula, SyntaxKind, parse};
use std::collections::HashMap;

/// Longest FOLIO formula read, in characters (FOLIO's longest is a few hundred).
pub(crate) const MAX_FOLIO_CHARS: usize = 4_000;

/// Why a FOLIO formula cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum FolioError {
    /// Longer than [`MAX_FOLIO_CHARS`].
    #[error("{0} characters: longer than the {MAX_FOLIO_CHARS}-character bound")]
    TooLong(usize),
    /// A character FOLIO's notation does not have (`+`, `^`, …).
    #[error("character {0:?} at column {1} is not FOLIO notation")]
    BadChar(char, usize),
    /// `=` without a name on each side.
    #[error("`=` at column {0} needs a term on each side")]
    BadEquality(usize),
    /// The formula does not parse (unbalanced brackets, a missing operand, …).
    #[error("{0}")]
    Parse(String),
    /// Empty.
    #[error("empty formula")]
    Empty,
}

/// The renaming of FOLIO names that autoeval's notation cannot hold, shared by every
/// formula of one file so that a constant keeps one name across premises.
#[derive(Debug, Default)]
pub(crate) struct FolioNames {
    to_safe: HashMap<String, String>,
    taken: HashMap<String, String>,
}

/// Words autoeval's lexer reads as operators or constants.
const WORDS: [&str; 12] = [
    "v", "not", "and", "or", "implies", "iff", "xor", "all", "forall", "exists", "true", "false",
];

impl FolioNames {
    /// The autoeval name for a FOLIO name.
    fn safe(&mut self, name: &str) -> String {
        if let Some(s) = self.to_safe.get(name) {
            return s.clone();
        }
        let mut s: String = name
            .chars()
            .map(|c| {
                if matches!(c, '-' | '.' | '\'') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        let lower = s.to_ascii_lowercase();
        let upper = s.bytes().all(|b| b.is_ascii_uppercase());
        if WORDS.contains(&s.as_str()) || (upper && WORDS.contains(&lower.as_str())) {
            s.push('_');
        }
        // autoeval reads a trailing `_digits` as a subscript (`l_2021` is `l2021`), so
        // collisions are checked on that reading.
        while let Some(owner) = self.taken.get(super::parse_logic::plain_name(&s).as_str())
            && owner != name
        {
            s.push('_');
        }
        self.taken
            .insert(super::parse_logic::plain_name(&s).to_string(), name.into());
        self.to_safe.insert(name.to_string(), s.clone());
        s
    }

    /// The renamed names, FOLIO name first (only those that changed).
    pub fn renamed(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .to_safe
            .iter()
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.clone(), b.clone()))
            .collect();
        v.sort();
        v
    }
}

enum Piece {
    Name(String),
    Sym(char),
    Eq(usize),
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads one FOLIO formula.
pub(crate) fn parse_folio(src: &str, names: &mut FolioNames) -> Result<Formula, FolioError> {
    let n = src.chars().count();
    if n > MAX_FOLIO_CHARS {
        return Err(FolioError::TooLong(n));
    }
    let chars: Vec<char> = src.chars().collect();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_name_char(c) {
            let start = i;
            i += 1;
            // `-` and `.` join names only between name characters; `'` also ends one.
            while i < chars.len() {
                let d = chars[i];
                let next_ok = chars.get(i + 1).is_some_and(|&e| is_name_char(e));
                if is_name_char(d) || d == '\'' || (matches!(d, '-' | '.') && next_ok) {
                    i += 1;
                } else {
                    break;
                }
            }
            pieces.push(Piece::Name(chars[start..i].iter().collect()));
            continue;
        }
        match c {
            c if c.is_whitespace() => {}
            '¬' | '∧' | '∨' | '⊕' | '→' | '↔' | '∀' | '∃' | '(' | ')' | ',' => {
                pieces.push(Piece::Sym(c));
            }
            '=' => pieces.push(Piece::Eq(i + 1)),
            _ => return Err(FolioError::BadChar(c, i + 1)),
        }
        i += 1;
    }
    if pieces.is_empty() {
        return Err(FolioError::Empty);
    }
    let mut out = String::with_capacity(src.len() + 16);
    let mut k = 0;
    while k < pieces.len() {
        match &pieces[k] {
            Piece::Name(a) => {
                if let Some(Piece::Eq(col)) = pieces.get(k + 1) {
                    let Some(Piece::Name(b)) = pieces.get(k + 2) else {
                        return Err(FolioError::BadEquality(*col));
                    };
                    let (a, b) = (names.safe(a), names.safe(b));
                    out.push_str(&format!(" Equal({a}, {b}) "));
                    k += 3;
                    continue;
                }
                out.push(' ');
                out.push_str(&names.safe(a));
            }
            Piece::Sym(c) => {
                out.push(' ');
                out.push(*c);
            }
            Piece::Eq(col) => return Err(FolioError::BadEquality(*col)),
        }
        k += 1;
    }
    match parse(&out, SyntaxKind::Fol) {
        Ok(Expr::Logic(f)) => Ok(f),
        Ok(Expr::Regex(_)) => Err(FolioError::Parse("not a formula".into())),
        Err(e) => Err(FolioError::Parse(e.reason)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<String, FolioError> {
        parse_folio(s, &mut FolioNames::default()).map(|f| Expr::Logic(f).to_unicode())
    }

    #[test]
    fn reads_folio_names_and_refuses_malformed_formulas() {
        let f = read("∀x (Drinks(x) → Dependent(x))").unwrap();
        assert!(f.contains("Drinks") && f.contains('→'), "{f}");
        let g = read("Rated(dc-universe, l.2021) ∧ ¬Owns(john's, x)").unwrap();
        assert!(g.contains("dc_universe") && g.contains("john_s"), "{g}");
        assert!(read("x = y ∧ ¬x = z").unwrap().contains("Equal"));
        assert_eq!(read("A(x) + B(x)"), Err(FolioError::BadChar('+', 6)));
        assert!(matches!(read("(A(x) ∧ B(x)"), Err(FolioError::Parse(_))));
        assert!(matches!(read("= y"), Err(FolioError::BadEquality(1))));
        assert_eq!(read("  "), Err(FolioError::Empty));
        // One file, one name per FOLIO name; a collision after renaming gets a `_`.
        let mut names = FolioNames::default();
        let a = parse_folio("P(a-b) ∧ P(a_b)", &mut names).unwrap();
        let t = Expr::Logic(a).to_unicode();
        assert!(t.contains("a_b") && t.contains("a_b_"), "{t}");
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
                .collect()
        };
        assert_eq!(names.renamed(), pairs(&[("a-b", "a_b"), ("a_b", "a_b_")]));
    }
}
