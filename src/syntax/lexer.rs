//! Tokenizer for logic formulas in every notation we accept.

use super::error::ParseError;

/// Token kinds of the logic lexer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
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
    /// The constant true (`⊤`, `True`, `\top`) or false (`⊥`, `False`, `\bot`).
    Const(bool),
    /// `(`; the char records which (only parentheses group: brackets are not accepted).
    Open(char),
    /// `)`.
    Close(char),
    /// `,`
    Comma,
    /// `.` after quantified variables.
    Dot,
    /// `:` after quantified variables.
    Colon,
    /// A name, borrowed from the input.
    Ident(&'a str),
}

/// A token with its byte span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    /// What it is.
    pub tok: Tok<'a>,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

const WORDS: [(&str, Tok<'static>); 11] = [
    ("not", Tok::Not),
    ("and", Tok::And),
    ("or", Tok::Or),
    ("implies", Tok::Implies),
    ("iff", Tok::Iff),
    ("xor", Tok::Xor),
    ("all", Tok::Forall),
    ("forall", Tok::Forall),
    ("exists", Tok::Exists),
    ("true", Tok::Const(true)),
    ("false", Tok::Const(false)),
];

fn word_token(w: &str) -> Option<Tok<'static>> {
    // Exact `v` only: names that merely contain a v stay names.
    if w == "v" {
        return Some(Tok::Or);
    }
    if w.len() > 7 || w.len() < 2 {
        return None;
    }
    // The constants are also written capitalised, as in Python and Lean.
    match w {
        "True" => return Some(Tok::Const(true)),
        "False" => return Some(Tok::Const(false)),
        _ => {}
    }
    // Names are case-sensitive: operator words are all lower case or all upper case
    // (`and`, `AND`), so a predicate called `Not` or `Or` stays a name.
    let upper = w.bytes().all(|b| b.is_ascii_uppercase());
    WORDS
        .iter()
        .find(|(k, _)| *k == w || (upper && k.eq_ignore_ascii_case(w)))
        .map(|(_, t)| t.clone())
}

fn latex_token(cmd: &str) -> Option<Option<Tok<'static>>> {
    Some(Some(match cmd {
        "neg" | "lnot" | "sim" => Tok::Not,
        "land" | "wedge" => Tok::And,
        "lor" | "vee" => Tok::Or,
        "to" | "rightarrow" | "Rightarrow" | "implies" | "limplies" | "supset" => Tok::Implies,
        "leftrightarrow" | "Leftrightarrow" | "iff" | "equiv" | "lrarr" => Tok::Iff,
        "oplus" | "veebar" | "xor" => Tok::Xor,
        "forall" => Tok::Forall,
        "exists" => Tok::Exists,
        "top" => Tok::Const(true),
        "bot" | "perp" => Tok::Const(false),
        // Sizing and spacing commands carry no meaning for us.
        "left" | "right" | "big" | "Big" | "bigl" | "bigr" | "Bigl" | "Bigr" | "quad" => {
            return Some(None);
        }
        _ => return None,
    }))
}

fn emit<'a>(out: &mut Vec<Token<'a>>, start: usize, tok: Tok<'a>, n: usize) -> usize {
    out.push(Token {
        tok,
        start,
        end: start + n,
    });
    n
}

fn symbol_token(c: char) -> Option<Tok<'static>> {
    Some(match c {
        '¬' | '~' | '!' | '-' | '∼' | '￢' => Tok::Not,
        '∧' | '&' | '⋀' | '·' => Tok::And,
        '∨' | '|' | '⋁' => Tok::Or,
        '→' | '⇒' | '⟶' | '⟹' | '⊃' => Tok::Implies,
        '↔' | '⇔' | '⟷' | '⟺' | '≡' => Tok::Iff,
        '⊕' | '^' | '⊻' => Tok::Xor,
        '∀' => Tok::Forall,
        '∃' => Tok::Exists,
        '⊤' => Tok::Const(true),
        '⊥' => Tok::Const(false),
        '(' => Tok::Open(c),
        ')' => Tok::Close(c),
        ',' => Tok::Comma,
        '.' => Tok::Dot,
        ':' => Tok::Colon,
        _ => return None,
    })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\''
}

/// Length of the name starting at `rest`, with a braced subscript `_{10}` that ends it
/// (`name_{10}` is one name; the parser reads it as `name10`).
fn name_len(rest: &str, allow_quote: bool) -> usize {
    let n = plain_name_len(rest, allow_quote);
    let Some(after) = rest[..n]
        .ends_with('_')
        .then(|| rest[n..].strip_prefix('{'))
        .flatten()
    else {
        return n;
    };
    let inner = after.bytes().take_while(u8::is_ascii_alphanumeric).count();
    if inner > 0 && after.as_bytes().get(inner) == Some(&b'}') {
        n + inner + 2
    } else {
        n
    }
}

/// Length of the plain name starting at `rest` (ASCII fast path, Unicode letters allowed).
fn plain_name_len(rest: &str, allow_quote: bool) -> usize {
    let bytes = rest.as_bytes();
    let mut n = 0;
    while n < bytes.len() {
        let b = bytes[n];
        if b < 0x80 {
            if is_name_byte(b) && (allow_quote || b != b'\'') {
                n += 1;
            } else {
                break;
            }
        } else {
            match rest[n..].chars().next() {
                Some(ch) if ch.is_alphanumeric() => n += ch.len_utf8(),
                _ => break,
            }
        }
    }
    n
}

/// Splits `src` into tokens; errors name the byte offset.
pub(crate) fn lex(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let bytes = src.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 2);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let at = |k: usize| bytes.get(i + k).copied().unwrap_or(0);
        if b < 0x80 {
            let step = match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                    i += 1;
                    continue;
                }
                b'<' if (at(1) == b'-' || at(1) == b'=') && at(2) == b'>' => {
                    emit(&mut out, i, Tok::Iff, 3)
                }
                b'-' | b'=' if at(1) == b'>' => emit(&mut out, i, Tok::Implies, 2),
                b'&' if at(1) == b'&' => emit(&mut out, i, Tok::And, 2),
                b'|' if at(1) == b'|' => emit(&mut out, i, Tok::Or, 2),
                b'\\' => {
                    let rest = &src[i..];
                    let n = 1 + rest[1..]
                        .bytes()
                        .position(|c| !c.is_ascii_alphabetic())
                        .unwrap_or(rest.len() - 1);
                    let cmd = &rest[1..n];
                    if cmd.is_empty() {
                        // `\,` `\;` `\ ` `\!` are LaTeX spacing; `\(` `\)` math delimiters.
                        match at(1) {
                            b',' | b';' | b' ' | b'!' | b':' | b'(' | b')' => 2,
                            _ => return Err(ParseError::new(i, "stray '\\'")),
                        }
                    } else {
                        match latex_token(cmd) {
                            Some(Some(tok)) => emit(&mut out, i, tok, n),
                            Some(None) => n,
                            None => {
                                return Err(ParseError::new(
                                    i,
                                    format!("unknown LaTeX command '\\{cmd}'"),
                                ));
                            }
                        }
                    }
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let rest = &src[i..];
                    let n = name_len(rest, true);
                    let word = &rest[..n];
                    let tok = word_token(word).unwrap_or(Tok::Ident(word));
                    emit(&mut out, i, tok, n)
                }
                c if c.is_ascii_digit() => {
                    // Names may start with digits only in odd model output; keep them as names.
                    let rest = &src[i..];
                    let n = name_len(rest, false);
                    emit(&mut out, i, Tok::Ident(&rest[..n]), n)
                }
                c => match symbol_token(c as char) {
                    Some(tok) => emit(&mut out, i, tok, 1),
                    None => {
                        return Err(ParseError::new(
                            i,
                            format!("unexpected character '{}'", c as char),
                        ));
                    }
                },
            };
            i += step;
            continue;
        }
        let rest = &src[i..];
        let Some(c) = rest.chars().next() else { break };
        let len = c.len_utf8();
        let step = if c.is_whitespace() {
            len
        } else if let Some(tok) = symbol_token(c) {
            emit(&mut out, i, tok, len)
        } else if c.is_alphabetic() {
            let n = name_len(rest, true);
            let word = &rest[..n];
            emit(&mut out, i, word_token(word).unwrap_or(Tok::Ident(word)), n)
        } else {
            return Err(ParseError::new(i, format!("unexpected character '{c}'")));
        };
        i += step;
    }
    Ok(out)
}

/// The logic operator (negation, a connective or a quantifier, in any symbol, ASCII or
/// LaTeX notation this lexer reads; operator words aside) at the start of `s`, with its
/// byte length. The copy check reads operators through this, so the two never differ.
pub(crate) fn operator_prefix(s: &str) -> Option<(Tok<'static>, usize)> {
    let first = s.chars().next()?;
    if first.is_alphanumeric() || first == '_' || first.is_whitespace() {
        return None;
    }
    let mut end = if first == '\\' {
        1 + s[1..].bytes().take_while(u8::is_ascii_alphabetic).count()
    } else {
        s.char_indices().nth(3).map_or(s.len(), |(i, _)| i)
    };
    // Longest prefix the lexer reads as an operator token starting here (`<->` before `<`).
    while end > 0 {
        if let Ok(toks) = lex(&s[..end])
            && let Some(t) = toks.first()
            && t.start == 0
        {
            let op = match t.tok {
                Tok::Not => Tok::Not,
                Tok::And => Tok::And,
                Tok::Or => Tok::Or,
                Tok::Implies => Tok::Implies,
                Tok::Iff => Tok::Iff,
                Tok::Xor => Tok::Xor,
                Tok::Forall => Tok::Forall,
                Tok::Exists => Tok::Exists,
                _ => return None,
            };
            return Some((op, t.end));
        }
        end = s[..end].char_indices().last().map_or(0, |(i, _)| i);
    }
    None
}
