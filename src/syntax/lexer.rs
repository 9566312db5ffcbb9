//! Tokenizer for logic formulas in every notation we accept.

use super::error::ParseError;

/// Token kinds of the logic lexer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Negation in any notation.
    Not,
    /// Conjunction.
    And,
    /// Disjunction (including a standalone `v`).
    Or,
    /// Implication.
    Implies,
    /// Biconditional.
    Iff,
    /// Exclusive or.
    Xor,
    /// Universal quantifier.
    Forall,
    /// Existential quantifier.
    Exists,
    /// `(` or `[`; the char records which.
    Open(char),
    /// `)` or `]`.
    Close(char),
    /// `,`
    Comma,
    /// `.` after quantified variables.
    Dot,
    /// `:` after quantified variables.
    Colon,
    /// A name.
    Ident(String),
}

/// A token with its byte span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

fn word_token(w: &str) -> Option<Tok> {
    // Exact `v` only: names that merely contain a v stay names.
    if w == "v" {
        return Some(Tok::Or);
    }
    Some(match w.to_ascii_lowercase().as_str() {
        "not" => Tok::Not,
        "and" => Tok::And,
        "or" => Tok::Or,
        "implies" => Tok::Implies,
        "iff" => Tok::Iff,
        "xor" => Tok::Xor,
        "all" | "forall" => Tok::Forall,
        "exists" | "exist" => Tok::Exists,
        _ => return None,
    })
}

fn latex_token(cmd: &str) -> Option<Option<Tok>> {
    Some(Some(match cmd {
        "neg" | "lnot" | "sim" => Tok::Not,
        "land" | "wedge" => Tok::And,
        "lor" | "vee" => Tok::Or,
        "to" | "rightarrow" | "Rightarrow" | "implies" | "limplies" | "supset" => Tok::Implies,
        "leftrightarrow" | "Leftrightarrow" | "iff" | "equiv" | "lrarr" => Tok::Iff,
        "oplus" | "veebar" | "xor" => Tok::Xor,
        "forall" => Tok::Forall,
        "exists" => Tok::Exists,
        // Sizing and spacing commands carry no meaning for us.
        "left" | "right" | "big" | "Big" | "bigl" | "bigr" | "Bigl" | "Bigr" | "quad" => {
            return Some(None);
        }
        _ => return None,
    }))
}

/// Splits `src` into tokens; errors name the byte offset.
pub fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let rest = &src[i..];
        let Some(c) = rest.chars().next() else { break };
        let len = c.len_utf8();
        if c.is_whitespace() {
            i += len;
            continue;
        }
        let mut push = |tok: Tok, n: usize| {
            out.push(Token {
                tok,
                start: i,
                end: i + n,
            });
            n
        };
        let two = rest.get(..2).unwrap_or("");
        let three = rest.get(..3).unwrap_or("");
        let step = if three == "<->" || three == "<=>" {
            push(Tok::Iff, 3)
        } else if two == "->" || two == "=>" {
            push(Tok::Implies, 2)
        } else if two == "&&" {
            push(Tok::And, 2)
        } else if two == "||" {
            push(Tok::Or, 2)
        } else if c.is_alphabetic() || c == '_' {
            let n = rest
                .char_indices()
                .find(|(_, ch)| !(ch.is_alphanumeric() || *ch == '_' || *ch == '\''))
                .map(|(k, _)| k)
                .unwrap_or(rest.len());
            let word = &rest[..n];
            let tok = word_token(word).unwrap_or_else(|| Tok::Ident(word.to_string()));
            push(tok, n)
        } else if c.is_ascii_digit() {
            // Names may start with digits only in odd model output; keep them as names.
            let n = rest
                .char_indices()
                .find(|(_, ch)| !(ch.is_alphanumeric() || *ch == '_'))
                .map(|(k, _)| k)
                .unwrap_or(rest.len());
            push(Tok::Ident(rest[..n].to_string()), n)
        } else if c == '\\' {
            let n = 1 + rest[1..]
                .char_indices()
                .find(|(_, ch)| !ch.is_ascii_alphabetic())
                .map(|(k, _)| k)
                .unwrap_or(rest.len() - 1);
            let cmd = &rest[1..n];
            if cmd.is_empty() {
                // `\,` `\;` `\ ` `\!` are LaTeX spacing.
                let next = rest[1..].chars().next();
                match next {
                    Some(',' | ';' | ' ' | '!' | ':') => 2,
                    Some('(' | ')') => 2, // \( \) math delimiters
                    _ => return Err(ParseError::new(i, "stray '\\'")),
                }
            } else {
                match latex_token(cmd) {
                    Some(Some(tok)) => push(tok, n),
                    Some(None) => n,
                    None => {
                        return Err(ParseError::new(
                            i,
                            format!("unknown LaTeX command '\\{cmd}'"),
                        ));
                    }
                }
            }
        } else {
            let tok = match c {
                '¬' | '~' | '!' | '-' | '∼' | '￢' => Tok::Not,
                '∧' | '&' | '⋀' | '·' => Tok::And,
                '∨' | '|' | '⋁' => Tok::Or,
                '→' | '⇒' | '⟶' | '⟹' | '⊃' => Tok::Implies,
                '↔' | '⇔' | '⟷' | '⟺' | '≡' => Tok::Iff,
                '⊕' | '^' | '⊻' => Tok::Xor,
                '∀' => Tok::Forall,
                '∃' => Tok::Exists,
                '(' | '[' => Tok::Open(c),
                ')' | ']' => Tok::Close(c),
                ',' => Tok::Comma,
                '.' => Tok::Dot,
                ':' => Tok::Colon,
                _ => {
                    return Err(ParseError::new(i, format!("unexpected character '{c}'")));
                }
            };
            push(tok, len)
        };
        i += step;
    }
    Ok(out)
}
