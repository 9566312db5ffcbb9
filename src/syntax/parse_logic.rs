//! Recursive-descent parser for logic formulas.
//!
//! Precedence, tightest first: ¬, ∧, ∨/⊕ (left-assoc), → (right-assoc),
//! ↔ (left-assoc). A quantifier's scope extends as far right as possible, so
//! `∀x.P(x) ∧ Q` is `∀x.(P(x) ∧ Q)`. That is the standard reading; the `nltk`
//! reading (see [`super::reading`]) differs in three rules.

use super::error::ParseError;
use super::lexer::{Tok, Token, lex};
use super::logic::{BinOp, Formula, Name, Quantifier, Term, looks_like_variable};

/// The rules in which reading conventions differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Conventions {
    /// A quantifier's body is the next unary formula (NLTK), not everything to the right.
    pub narrow_quantifiers: bool,
    /// `→` groups to the left (NLTK), not to the right.
    pub left_implies: bool,
    /// `^` is ∧ (NLTK), not ⊕.
    pub caret_and: bool,
}

impl Conventions {
    /// The standard reading.
    pub(crate) const STANDARD: Conventions = Conventions {
        narrow_quantifiers: false,
        left_implies: false,
        caret_and: false,
    };
    /// NLTK's reading.
    pub const NLTK: Conventions = Conventions {
        narrow_quantifiers: true,
        left_implies: true,
        caret_and: true,
    };
}

/// Parses a formula in any supported notation (standard reading).
pub fn parse_formula(src: &str) -> Result<Formula, ParseError> {
    parse_formula_with(src, Conventions::STANDARD)
}

/// Parses a formula under the given reading conventions.
pub(crate) fn parse_formula_with(src: &str, conv: Conventions) -> Result<Formula, ParseError> {
    let tokens = lex(src)?;
    if tokens.is_empty() {
        return Err(ParseError::new(0, "empty formula"));
    }
    let mut p = Parser {
        toks: &tokens,
        src,
        pos: 0,
        end: src.len(),
        bound: Vec::new(),
        opens: Vec::new(),
        depth: 0,
        conv,
    };
    let f = p.formula()?;
    // The tree's own depth decides, not how the text nested it: `(a ∧ b) ∧ c` and
    // `a ∧ b ∧ c` are the same tree, and the printer writes the second.
    if tree_depth(&f) > MAX_TREE_DEPTH {
        return Err(ParseError::new(
            0,
            format!(
                "too large: the formula is more than {MAX_TREE_DEPTH} operators deep \
                 (split long chains with parentheses)"
            ),
        ));
    }
    if let Some(t) = p.peek() {
        return Err(match &t.tok {
            Tok::Close(c) => ParseError::new(t.start, format!("unbalanced '{c}'")),
            other => ParseError::new(t.start, format!("unexpected {}", describe(other))),
        });
    }
    Ok(f)
}

/// Depth of a formula's tree, counted without recursion (the tree may be deep).
pub fn tree_depth(f: &Formula) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(f, 1usize)];
    while let Some((g, d)) = stack.pop() {
        deepest = deepest.max(d);
        match g {
            Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => {}
            Formula::Not(a) | Formula::Quant(_, _, a) => stack.push((a, d + 1)),
            Formula::Bin(_, a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
        }
    }
    deepest
}

/// Deepest nesting of the parser's own recursion we accept; deeper input is refused
/// instead of overflowing the stack. Printing writes at most two levels (a parenthesis
/// and an operator) per level of the tree, so everything we print parses back.
pub(crate) const MAX_NESTING: usize = 2 * MAX_TREE_DEPTH + 8;

/// Deepest syntax tree we build. A chain `p1 ∧ p2 ∧ … ∧ pN` is a tree N deep; every
/// pass over formulas (printing, metrics, diff, verification, the viewer's layout)
/// recurses, so the parser refuses what those passes could not handle.
pub(crate) const MAX_TREE_DEPTH: usize = 200;

struct Parser<'a> {
    toks: &'a [Token<'a>],
    src: &'a str,
    pos: usize,
    end: usize,
    bound: Vec<Name>,
    opens: Vec<(char, usize)>,
    depth: usize,
    conv: Conventions,
}

/// A name as meant: a subscript written as such is part of it (`p_4`, `p_{4}` → `p4`).
/// Only a trailing subscript of letters or digits counts, so `is_tall` keeps its `_`.
pub(crate) fn plain_name(raw: &str) -> Name {
    if let Some(i) = raw.rfind("_{")
        && let Some(inner) = raw[i + 2..].strip_suffix('}')
        && i > 0
        && !inner.is_empty()
        && inner.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        let mut s = Name::from(&raw[..i]);
        s.push_str(inner);
        return s;
    }
    if let Some(i) = raw.rfind('_') {
        let digits = &raw[i + 1..];
        if i > 0 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let mut s = Name::from(&raw[..i]);
            s.push_str(digits);
            return s;
        }
    }
    Name::from(raw)
}

fn describe(t: &Tok<'_>) -> String {
    match t {
        Tok::Not => "'¬'".into(),
        Tok::And => "'∧'".into(),
        Tok::Or => "'∨'".into(),
        Tok::Implies => "'→'".into(),
        Tok::Iff => "'↔'".into(),
        Tok::Xor => "'⊕'".into(),
        Tok::Forall => "'∀'".into(),
        Tok::Exists => "'∃'".into(),
        Tok::Const(true) => "'⊤'".into(),
        Tok::Const(false) => "'⊥'".into(),
        Tok::Open(c) | Tok::Close(c) => format!("'{c}'"),
        Tok::Comma => "','".into(),
        Tok::Dot => "'.'".into(),
        Tok::Colon => "':'".into(),
        Tok::Ident(s) => format!("name '{s}'"),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Token<'a>> {
        self.toks.get(self.pos)
    }

    fn peek_tok(&self) -> Option<&'a Tok<'a>> {
        self.peek().map(|t| &t.tok)
    }

    /// Whether the next token is written `^`.
    fn is_caret(&self) -> bool {
        self.peek()
            .is_some_and(|t| self.src.get(t.start..t.end) == Some("^"))
    }

    /// A byte offset of the source as a character offset (for messages).
    fn chars(&self, byte: usize) -> usize {
        self.src.get(..byte).map_or(byte, |s| s.chars().count())
    }

    fn here(&self) -> usize {
        self.peek().map_or(self.end, |t| t.start)
    }

    fn bump(&mut self) -> Option<&'a Token<'a>> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ParseError::new(self.here(), "formula nested too deeply"));
        }
        Ok(())
    }

    fn formula(&mut self) -> Result<Formula, ParseError> {
        self.binary(1)
    }

    /// Precedence climbing: ↔ 1 (left), → 2 (right), ∨/⊕ 3 (left), ∧ 4 (left).
    fn binary(&mut self, min_prec: u8) -> Result<Formula, ParseError> {
        self.enter()?;
        let mut lhs = self.unary()?;
        let mut chain = 0usize;
        loop {
            let (op, prec, right) = match self.peek_tok() {
                Some(Tok::Iff) => (BinOp::Iff, 1, false),
                Some(Tok::Implies) => (BinOp::Implies, 2, !self.conv.left_implies),
                Some(Tok::Or) => (BinOp::Or, 3, false),
                Some(Tok::Xor) if self.conv.caret_and && self.is_caret() => (BinOp::And, 4, false),
                Some(Tok::Xor) => (BinOp::Xor, 3, false),
                Some(Tok::And) => (BinOp::And, 4, false),
                _ => break,
            };
            if prec < min_prec {
                break;
            }
            chain += 1;
            // A coarse guard while building; the exact limit is checked on the tree.
            if self.depth + chain > 2 * MAX_TREE_DEPTH {
                return Err(ParseError::new(
                    self.here(),
                    format!(
                        "too large: the formula is more than {MAX_TREE_DEPTH} operators deep \
                         (split long chains with parentheses)"
                    ),
                ));
            }
            self.pos += 1;
            let rhs = self.binary(if right { prec } else { prec + 1 })?;
            lhs = Formula::bin(op, lhs, rhs);
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Formula, ParseError> {
        match self.peek_tok() {
            Some(Tok::Not) => {
                self.pos += 1;
                self.enter()?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(Formula::negate(inner))
            }
            Some(Tok::Forall) => self.quantified(Quantifier::Forall),
            Some(Tok::Exists) => self.quantified(Quantifier::Exists),
            _ => self.primary(),
        }
    }

    /// A name token; the letter `v` (lexed as "or") counts when it is written `v`.
    fn variable_name(&self, t: &Token<'a>) -> Option<&'a str> {
        match t.tok {
            Tok::Ident(s) => Some(s),
            Tok::Or if self.src.get(t.start..t.end) == Some("v") => Some("v"),
            _ => None,
        }
    }

    fn name_at(&self, pos: usize) -> Option<&'a str> {
        self.toks.get(pos).and_then(|t| self.variable_name(t))
    }

    fn quantified(&mut self, q: Quantifier) -> Result<Formula, ParseError> {
        let qpos = self.here();
        self.pos += 1;
        // `∀(x)` is rare but harmless to accept.
        let paren = matches!(self.peek_tok(), Some(Tok::Open('(')))
            && self.name_at(self.pos + 1).is_some()
            && matches!(
                self.toks.get(self.pos + 2).map(|t| &t.tok),
                Some(Tok::Close(')'))
            );
        if paren {
            self.pos += 1;
        }
        let Some(first) = self.peek().and_then(|t| self.variable_name(t)) else {
            let sym = if q == Quantifier::Forall {
                '∀'
            } else {
                '∃'
            };
            return Err(ParseError::new(
                self.here(),
                format!(
                    "expected a variable after '{sym}' (from {})",
                    self.chars(qpos)
                ),
            ));
        };
        self.pos += 1;
        if paren {
            self.pos += 1;
        }
        let after_first = self.pos;
        let mut vars = vec![first];
        // A list of variables must end in '.' or ':'; otherwise only the first is one.
        loop {
            let next_is_open = matches!(
                self.toks.get(self.pos + 1).map(|t| &t.tok),
                Some(Tok::Open(_))
            );
            match (self.name_at(self.pos), self.peek_tok()) {
                (Some(s), _) if !next_is_open => {
                    vars.push(s);
                    self.pos += 1;
                }
                (None, Some(Tok::Comma)) if self.name_at(self.pos + 1).is_some() => {
                    self.pos += 1;
                }
                _ => break,
            }
        }
        if let Some(Tok::Dot | Tok::Colon) = self.peek_tok() {
            self.pos += 1;
        } else {
            vars.truncate(1);
            self.pos = after_first;
            if matches!(self.peek_tok(), Some(Tok::Comma)) {
                self.pos += 1;
            }
        }
        let n = vars.len();
        // `∀x1 … xN.` is N nested quantifiers: as deep as writing them one by one.
        if self.depth + n > MAX_NESTING {
            return Err(ParseError::new(qpos, "formula nested too deeply"));
        }
        let vars: Vec<Name> = vars.into_iter().map(plain_name).collect();
        self.bound.extend(vars.iter().cloned());
        // NLTK parses a quantifier's body at the quantifier's own precedence, above
        // every binary connective: the body is the next unary formula, dot or not.
        let body = if self.conv.narrow_quantifiers {
            self.enter().and_then(|()| {
                let b = self.unary();
                self.depth -= 1;
                b
            })
        } else {
            self.formula()
        };
        self.bound.truncate(self.bound.len() - n);
        let mut f = body?;
        for v in vars.into_iter().rev() {
            f = Formula::Quant(q, v, Box::new(f));
        }
        Ok(f)
    }

    fn primary(&mut self) -> Result<Formula, ParseError> {
        let Some(t) = self.bump() else {
            let reason = match self.opens.last() {
                Some((c, at)) => format!(
                    "unclosed '{c}' from {}: expected a formula",
                    self.chars(*at)
                ),
                None => "expected a formula".to_string(),
            };
            return Err(ParseError::new(self.end, reason));
        };
        match &t.tok {
            Tok::Open(c) => {
                self.opens.push((*c, t.start));
                let inner = self.formula()?;
                match self.bump() {
                    Some(Token {
                        tok: Tok::Close(d), ..
                    }) if *d == ')' => {
                        self.opens.pop();
                        Ok(inner)
                    }
                    Some(Token {
                        tok: Tok::Close(d),
                        start,
                        ..
                    }) => Err(ParseError::new(
                        *start,
                        format!("'{d}' does not match '{c}' at {}", self.chars(t.start)),
                    )),
                    Some(other) => Err(ParseError::new(
                        other.start,
                        format!("expected ')' for '{c}' at {}", self.chars(t.start)),
                    )),
                    None => Err(ParseError::new(t.start, format!("unclosed '{c}'"))),
                }
            }
            Tok::Ident(name) => {
                if matches!(self.peek_tok(), Some(Tok::Open('('))) {
                    self.pos += 1;
                    let args = self.arguments(t.start)?;
                    Ok(Formula::Pred(plain_name(name), args))
                } else {
                    Ok(Formula::Prop(plain_name(name)))
                }
            }
            // `True(x)` is a predicate that happens to be called True.
            Tok::Const(_) if matches!(self.peek_tok(), Some(Tok::Open('('))) => {
                self.pos += 1;
                let args = self.arguments(t.start)?;
                Ok(Formula::Pred(self.src[t.start..t.end].into(), args))
            }
            Tok::Const(b) => Ok(Formula::Bool(*b)),
            Tok::Close(c) => Err(ParseError::new(t.start, format!("unbalanced '{c}'"))),
            other => Err(ParseError::new(
                t.start,
                format!("expected a formula, found {}", describe(other)),
            )),
        }
    }

    fn term(&self, raw: &str) -> Term {
        let name = plain_name(raw);
        if self.bound.contains(&name) || looks_like_variable(&name) {
            Term::Var(name)
        } else {
            Term::Const(name)
        }
    }

    fn arguments(&mut self, pred_at: usize) -> Result<Vec<Term>, ParseError> {
        let mut args = Vec::new();
        loop {
            let Some(t) = self.bump() else {
                return Err(ParseError::new(
                    pred_at,
                    "unclosed '(' of predicate arguments",
                ));
            };
            // A lone `v` inside an argument list is a name, not "or"; `|` is not.
            let name = match (self.variable_name(t), &t.tok) {
                (Some(n), _) => n,
                (None, Tok::Close(')')) if args.is_empty() => {
                    return Err(ParseError::new(t.start, "predicate with no arguments"));
                }
                (None, other) => {
                    return Err(ParseError::new(
                        t.start,
                        format!("expected an argument name, found {}", describe(other)),
                    ));
                }
            };
            if matches!(self.peek_tok(), Some(Tok::Open('('))) {
                return Err(ParseError::new(
                    t.start,
                    "function terms like f(x) are not supported",
                ));
            }
            args.push(self.term(name));
            match self.bump() {
                Some(Token {
                    tok: Tok::Comma, ..
                }) => continue,
                Some(Token {
                    tok: Tok::Close(')'),
                    ..
                }) => return Ok(args),
                Some(other) => {
                    return Err(ParseError::new(
                        other.start,
                        format!(
                            "expected ',' or ')' in arguments, found {}",
                            describe(&other.tok)
                        ),
                    ));
                }
                None => {
                    return Err(ParseError::new(
                        pred_at,
                        "unclosed '(' of predicate arguments",
                    ));
                }
            }
        }
    }
}
