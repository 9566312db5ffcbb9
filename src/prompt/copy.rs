//! The copy check: an informalization that reproduces the formula makes the round trip trivial.
//!
//! The rule (calibrated on real replies of instruction-tuned models): naming an atom
//! the way the prompt asks (`pred2(x1, p12)`, `p3`) is not a copy; writing formula
//! notation is.
//!
//! **Logic.** An operator is whatever the logic parser reads as negation, a connective or
//! a quantifier — symbols (`¬ ∧ ∨ → ↔ ⊕ ∀ ∃ ⊃ ≡ ·` …), ASCII (`~ ! - & | ^ -> <-> =>`
//! …), LaTeX (`\land`, `\to` …) and the lone letter `v` — read from the lexer's own
//! table. It counts only in formula position: a binary operator next to (spaces aside)
//! a symbol of φ (a proposition, predicate, constant or variable, any case) or a
//! variable-like name (`x`, `x2`), a
//! parenthesis, or another operator in formula position; a prefix operator (¬, ∀, ∃)
//! followed by one. `p3 v p4`, `-p3`, `!p3`, `p1 ⊃ p2` are copies; `R&D`, `~5 items`,
//! `input -> output`, `---`, a Markdown bullet (`- Luke dreams.`) and the pipes of a
//! Markdown table are prose. Operator
//! words (`p1 and not p2`) are a description, not a copy.
//!
//! **Regex.** ψ is a copy when it writes φ, or a subexpression of φ, in regex notation:
//! a run of φ's symbols and regex characters that parses as a regex equal to φ or to a
//! part of it (a node, or consecutive items of a concatenation or alternation) and
//! holds an operator (`*`, `+`, `?`, `|`, `{…}`, grouping) or is wrapped in `^…$` or
//! `/…/`; bare, in backticks or in quotes. Naming a literal string without operators
//! or delimiters ("exactly the string 00", `` `10` ``) is a description.

use crate::syntax::lexer::{Tok, operator_prefix};
use crate::syntax::logic::looks_like_variable;
use crate::syntax::{Expr, Formula, Regex, parse_regex};

/// The offending byte span of ψ and a description, if ψ copies φ.
pub fn copy_check(psi: &str, phi: &Expr) -> Option<(usize, usize, String)> {
    match phi {
        Expr::Logic(f) => logic(psi, f),
        Expr::Regex(r) => regex(psi, r),
    }
}

/// One piece of ψ as the logic check sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece {
    /// An operator the lexer reads; `prefix` for ¬ and the quantifiers.
    Op { prefix: bool },
    /// A name that is one of φ's symbols.
    Symbol,
    /// `(` or `)`.
    Paren,
    /// Anything else: another word, punctuation, a Markdown table pipe.
    Other,
}

/// Every name φ uses (propositions, predicates, constants, variables), lower-cased.
fn names_of(f: &Formula) -> Vec<String> {
    let mut out: Vec<String> = f
        .propositions()
        .into_iter()
        .chain(f.predicates().into_iter().map(|(p, _)| p))
        .chain(f.constants())
        .map(|s| s.to_lowercase())
        .collect();
    f.walk(&mut |g| {
        if let Formula::Quant(_, v, _) = g {
            out.push(v.to_string().to_lowercase());
        }
    });
    out.sort();
    out.dedup();
    out
}

/// ψ cut into pieces with their byte spans (whitespace dropped).
fn pieces(psi: &str, names: &[String]) -> Vec<(Piece, usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in psi.split_inclusive('\n') {
        let t = line.trim();
        // A Markdown table row: its pipes (and a separator row's dashes) are layout.
        let table = t.len() >= 2 && t.starts_with('|') && t.ends_with('|');
        let mut i = 0;
        while i < line.len() {
            let rest = &line[i..];
            let Some(c) = rest.chars().next() else { break };
            let n = if c.is_whitespace() {
                c.len_utf8()
            } else if c.is_alphanumeric() || c == '_' {
                let n = name_len(rest);
                let kind = if &rest[..n] == "v" {
                    Piece::Op { prefix: false }
                } else {
                    name_piece(&rest[..n], names)
                };
                out.push((kind, at + i, at + i + n));
                n
            } else if c == '\\'
                && operator_prefix(rest).is_none()
                && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic())
            {
                // A LaTeX macro that is no operator names a symbol (`\dream(x_3)`).
                let n = 1 + name_len(&rest[1..]);
                out.push((name_piece(&rest[1..n], names), at + i, at + i + n));
                n
            } else if c == '(' || c == ')' {
                out.push((Piece::Paren, at + i, at + i + 1));
                1
            } else if (table && (c == '|' || c == '-' || c == ':'))
                || (line[..i].trim().is_empty()
                    && (rest.starts_with("- ") || rest.starts_with("* ")))
            {
                // Table layout, or a Markdown bullet (`- Luke dreams.`), not negation.
                out.push((Piece::Other, at + i, at + i + 1));
                1
            } else if let Some((tok, n)) = operator_prefix(rest) {
                let prefix = matches!(tok, Tok::Not | Tok::Forall | Tok::Exists);
                out.push((Piece::Op { prefix }, at + i, at + i + n));
                n
            } else {
                out.push((Piece::Other, at + i, at + i + c.len_utf8()));
                c.len_utf8()
            };
            i += n;
        }
        at += line.len();
    }
    out
}

/// Length of the name at the start of `rest`: letters, digits and `_`, with a LaTeX
/// subscript group (`p_{10}`).
fn name_len(rest: &str) -> usize {
    let mut n = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(k, _)| k);
    if rest[..n].ends_with('_')
        && let Some(group) = rest[n..].strip_prefix('{')
        && let Some(close) = group.find('}')
        && group[..close].chars().all(char::is_alphanumeric)
    {
        n += close + 2;
    }
    n
}

/// A name as a piece: a symbol of φ (subscripts read as the plain name: `p_4`, `x_{1}`
/// are `p4`, `x1`; any case) or a variable-like name, else prose.
fn name_piece(w: &str, names: &[String]) -> Piece {
    // Most words are plain already: read in place, copied only to drop `_{}`.
    let plain: std::borrow::Cow<str> = if w.chars().all(char::is_alphanumeric) {
        w.into()
    } else {
        w.chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .into()
    };
    if looks_like_variable(&plain) || names.iter().any(|s| s.eq_ignore_ascii_case(&plain)) {
        Piece::Symbol
    } else {
        Piece::Other
    }
}

fn logic(psi: &str, f: &Formula) -> Option<(usize, usize, String)> {
    let names = names_of(f);
    let ps = pieces(psi, &names);
    // An operator is in formula position when a symbol or parenthesis anchors it,
    // directly or through a chain of adjacent operators (`¬¬p1`, `∧ ¬p2`).
    let anchored = |k: usize, step: isize| -> bool {
        let mut j = k as isize + step;
        while let Some((p, _, _)) = usize::try_from(j).ok().and_then(|j| ps.get(j)) {
            match p {
                Piece::Symbol | Piece::Paren => return true,
                Piece::Op { .. } => j += step,
                Piece::Other => return false,
            }
        }
        false
    };
    for (k, (p, s, e)) in ps.iter().enumerate() {
        let Piece::Op { prefix } = p else { continue };
        let hit = if *prefix {
            anchored(k, 1)
        } else {
            anchored(k, 1) || anchored(k, -1)
        };
        if hit {
            let op = &psi[*s..*e];
            return Some((*s, *e, format!("operator '{op}' in formula position")));
        }
    }
    None
}

/// φ and its parts: every node, and consecutive items of a concatenation or alternation.
fn parts(r: &Regex) -> Vec<Regex> {
    let mut out = Vec::new();
    r.walk(&mut |n| {
        out.push(n.clone());
        if let Regex::Concat(xs) | Regex::Alt(xs) = n {
            for i in 0..xs.len() {
                for j in i + 2..xs.len() {
                    let run = xs[i..j].to_vec();
                    out.push(if matches!(n, Regex::Concat(_)) {
                        Regex::concat(run)
                    } else {
                        Regex::alt(run)
                    });
                }
            }
        }
    });
    out
}

/// The regex `core` reads as, also once unbalanced outer parentheses go (a part of φ cut
/// out of it with one parenthesis too many: `(0*01)*1)`).
fn parse_balanced(core: &str) -> Option<Regex> {
    if let Ok(r) = parse_regex(core) {
        return Some(r);
    }
    let mut t = core;
    loop {
        let (open, close) = (t.matches('(').count(), t.matches(')').count());
        t = if close > open && t.ends_with(')') {
            &t[..t.len() - 1]
        } else if open > close && t.starts_with('(') {
            &t[1..]
        } else {
            return None;
        };
        if let Ok(r) = parse_regex(t) {
            return Some(r);
        }
    }
}

fn regex(psi: &str, phi: &Regex) -> Option<(usize, usize, String)> {
    let alphabet = phi.alphabet();
    let is_re = |c: char| alphabet.contains(&c) || "*+?|(){},^$/ε".contains(c);
    let mut whole = None;
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in psi.char_indices().chain(std::iter::once((psi.len(), ' '))) {
        match (is_re(c) && i < psi.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    for (s, e) in runs {
        let run = psi[s..e].trim_matches(',');
        // A run glued to another letter or digit is a piece of a longer token (`(1*2)`
        // with 2 outside φ's alphabet), not regex text of its own.
        let glued = psi[..s]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
            || psi[e..].chars().next().is_some_and(char::is_alphanumeric);
        if run.is_empty() || glued {
            continue;
        }
        let s = s + (psi[s..e].len() - psi[s..e].trim_start_matches(',').len());
        let (core, delimited) =
            if let Some(x) = run.strip_prefix('^').and_then(|x| x.strip_suffix('$')) {
                (x, true)
            } else if let Some(x) = run.strip_prefix('/').and_then(|x| x.strip_suffix('/')) {
                (x, true)
            } else {
                (run, false)
            };
        // A group around one symbol is a list label (`(1)`), not notation.
        let has_op = core.contains(['*', '+', '?', '|', '{'])
            || (core.contains('(') && core.chars().filter(|c| alphabet.contains(c)).count() > 1);
        if core.is_empty() || !(has_op || delimited) {
            continue;
        }
        let Some(r) = parse_balanced(core) else {
            continue;
        };
        let parts = whole.get_or_insert_with(|| parts(phi));
        if parts.contains(&r) {
            let what = if r == *phi { "φ" } else { "part of φ" };
            return Some((
                s,
                s + run.len(),
                format!("regular-expression text '{run}' writes {what}"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{SyntaxKind, parse};

    fn phi(s: &str, k: SyntaxKind) -> Expr {
        parse(s, k).expect("parses")
    }

    fn copied_span<'a>(psi: &'a str, f: &Expr) -> Option<&'a str> {
        copy_check(psi, f).map(|(s, e, _)| &psi[s..e])
    }

    #[test]
    fn logic_operators_in_formula_position_are_copies() {
        let f = phi("(p1 ∧ ¬p2) ∨ pred1(p3) ∨ p4", SyntaxKind::Fol);
        for (psi, op) in [
            ("It says p1 ∧ not p2", "∧"),
            ("p3 v p4 holds", "v"),
            ("p3 ^ p4", "^"),
            ("p1 ⊃ p2", "⊃"),
            ("p1 ≡ p2", "≡"),
            ("p1 · p2", "·"),
            ("either -p3 or p4", "-"),
            ("!p3 is the case", "!"),
            ("~p2 or p1", "~"),
            ("P1 & P2", "&"),
            ("p1 \\land p2", "\\land"),
            ("(p1 -> p2)", "->"),
            ("¬(pred1 holds)", "¬"),
            ("¬¬p1", "¬"),
            ("p1 <-> p4", "<->"),
            ("∀x1. pred1(x1)", "∀"),
            ("\\( \\neg p_4 \\) is true", "\\neg"),
            ("\\[ \\forall x_1, \\neg \\pred1(x_{1}) \\]", "\\forall"),
            ("p_{3} \\lor p_1", "\\lor"),
        ] {
            assert_eq!(copied_span(psi, &f), Some(op), "{psi}");
        }
    }

    #[test]
    fn operators_in_prose_are_not_copies() {
        let f = phi("(p1 ∧ ¬p2) ∨ pred1(p3)", SyntaxKind::Fol);
        for psi in [
            "Either p1 holds and p2 does not, or pred1 holds for p3.",
            "so pred1(p3) holds",
            "true when (p1 and not p2) is",
            "R&D approves p1",
            "about ~5 items satisfy p2",
            "input -> output, as with p1",
            "the \\top element",
            "p1 holds -- or p2 does not",
            "| atom | meaning |\n|---|---|\n| p1 | rain |\n| p2 | wind |",
            "It's p3!",
            "the symbol `¬` alone",
            "a well-known result",
            "connectives like ∧, ∨, and ¬.",
            "the universal quantifier (\\(\\forall\\)) binds x",
            "denoted by the symbol \\( \\neg \\).",
            "The formula states that:\n- Luke dreams.\n  - pred1(p3) is true.\n* p2 holds",
        ] {
            assert_eq!(copied_span(psi, &f), None, "{psi}");
        }
    }

    #[test]
    fn regex_notation_of_phi_or_a_part_is_a_copy() {
        let r = phi("(01)*0", SyntaxKind::Regex);
        for (psi, span) in [
            ("It matches (01)*0 exactly", "(01)*0"),
            ("Repeat `(01)*` then a 0.", "(01)*"),
            ("Strings like \"(01)*0\".", "(01)*0"),
            ("It is /(01)*0/", "/(01)*0/"),
        ] {
            assert_eq!(copied_span(psi, &r), Some(span), "{psi}");
        }
        assert_eq!(
            copied_span("Repeat 0 then 1 any number of times, then a 0.", &r),
            None
        );
        let star = phi("0*", SyntaxKind::Regex);
        let psi = "The regular expression `0*` matches any string of zeros.";
        assert_eq!(copied_span(psi, &star), Some("0*"));
        let lit = phi("10", SyntaxKind::Regex);
        assert_eq!(copied_span("Matches ^10$ only", &lit), Some("^10$"));
        for psi in [
            "The regular expression `10` matches the string \"10\".",
            "Exactly the string 10.",
            "10",
            "1*",
            "The first character is a digit (1).",
        ] {
            assert_eq!(copied_span(psi, &lit), None, "{psi}");
        }
        // Regex text that is not φ or a part of it is wrong, not copied.
        let alt = phi("(0|1)*1", SyntaxKind::Regex);
        assert_eq!(copied_span("like 1* but longer", &alt), None);
        assert_eq!(copied_span("any of `0|1`, then 1", &alt), Some("0|1"));
        // A part written with one parenthesis too many is still that part.
        let nested = phi("((0*01)*1)*", SyntaxKind::Regex);
        assert_eq!(
            copied_span("The pattern `(0*01)*1)` repeats", &nested),
            Some("(0*01)*1)")
        );
    }
}
