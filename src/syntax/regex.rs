//! Regular expressions: AST, parser and printer.
//!
//! Alphabet symbols are single letters or digits. Operators: concatenation,
//! `*`, `+`, `?`, bounded repetition `{n}`, `{n,}`, `{n,m}`, `|`, parentheses, and ε
//! (written `ε` or `()`). Whitespace is ignored, as are backslashes (the original
//! stripped them too).

use super::error::ParseError;

/// A regular expression. Concatenations and alternations are flat lists with ≥ 2 items.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Regex {
    /// The empty string ε.
    Epsilon,
    /// One alphabet symbol.
    Sym(char),
    /// Concatenation.
    Concat(Vec<Regex>),
    /// Alternation `|`.
    Alt(Vec<Regex>),
    /// Kleene star.
    Star(Box<Regex>),
    /// One or more.
    Plus(Box<Regex>),
    /// Zero or one.
    Opt(Box<Regex>),
    /// Bounded repetition: `{n}` (max = Some(n)), `{n,}` (None), `{n,m}` (Some(m)).
    Repeat(Box<Regex>, u32, Option<u32>),
}

/// Largest count a bounded repetition may write (`a{1000}`); automata also bound the
/// expanded size (see `verify::automata::MAX_POSITIONS`).
pub(crate) const MAX_REPEAT: u32 = 1000;

/// Deepest nesting we accept.
const MAX_NESTING: usize = 200;

impl Regex {
    /// Builds a concatenation, flattening and dropping singletons.
    pub fn concat(items: Vec<Regex>) -> Regex {
        let mut flat = Vec::with_capacity(items.len());
        for r in items {
            match r {
                Regex::Concat(xs) => flat.extend(xs),
                other => flat.push(other),
            }
        }
        match flat.len() {
            0 => Regex::Epsilon,
            1 => flat.pop().unwrap_or(Regex::Epsilon),
            _ => Regex::Concat(flat),
        }
    }

    /// Builds an alternation, flattening and dropping singletons.
    pub fn alt(items: Vec<Regex>) -> Regex {
        let mut flat = Vec::with_capacity(items.len());
        for r in items {
            match r {
                Regex::Alt(xs) => flat.extend(xs),
                other => flat.push(other),
            }
        }
        match flat.len() {
            0 => Regex::Epsilon,
            1 => flat.pop().unwrap_or(Regex::Epsilon),
            _ => Regex::Alt(flat),
        }
    }

    /// The symbols that occur, sorted.
    pub fn alphabet(&self) -> Vec<char> {
        let mut out = Vec::new();
        self.walk(&mut |r| {
            if let Regex::Sym(c) = r {
                out.push(*c);
            }
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Visits every node in pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Regex)) {
        f(self);
        match self {
            Regex::Epsilon | Regex::Sym(_) => {}
            Regex::Concat(xs) | Regex::Alt(xs) => xs.iter().for_each(|x| x.walk(f)),
            Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => x.walk(f),
        }
    }

    /// Number of nodes.
    pub fn size(&self) -> usize {
        let mut n = 0;
        self.walk(&mut |_| n += 1);
        n
    }
}

/// Parses a regular expression.
pub fn parse_regex(src: &str) -> Result<Regex, ParseError> {
    let toks: Vec<(usize, char)> = src
        .char_indices()
        .filter(|(_, c)| !c.is_whitespace() && *c != '\\')
        .collect();
    if toks.is_empty() {
        return Err(ParseError::new(0, "empty regular expression"));
    }
    let mut p = RegexParser {
        toks: &toks,
        pos: 0,
        end: src.len(),
        depth: 0,
    };
    let r = p.alternation()?;
    if let Some((at, c)) = p.peek() {
        return Err(if c == ')' {
            ParseError::new(at, "unbalanced ')'")
        } else {
            ParseError::new(at, format!("unexpected '{c}'"))
        });
    }
    Ok(r)
}

struct RegexParser<'a> {
    toks: &'a [(usize, char)],
    pos: usize,
    end: usize,
    depth: usize,
}

impl RegexParser<'_> {
    fn peek(&self) -> Option<(usize, char)> {
        self.toks.get(self.pos).copied()
    }

    fn alternation(&mut self) -> Result<Regex, ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let at = self.peek().map_or(self.end, |t| t.0);
            return Err(ParseError::new(at, "regular expression nested too deeply"));
        }
        let mut branches = vec![self.concatenation()?];
        while let Some((_, '|')) = self.peek() {
            self.pos += 1;
            branches.push(self.concatenation()?);
        }
        self.depth -= 1;
        // Keep `a|ε` distinct from `a`: only flatten nested alternations.
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Regex::Epsilon)
        } else {
            Regex::alt(branches)
        })
    }

    fn concatenation(&mut self) -> Result<Regex, ParseError> {
        let mut items = Vec::new();
        while let Some((_, c)) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            items.push(self.postfix()?);
        }
        Ok(Regex::concat(items))
    }

    fn postfix(&mut self) -> Result<Regex, ParseError> {
        let mut r = self.atom()?;
        let mut chain = 0usize;
        while let Some((at, c)) = self.peek() {
            if matches!(c, '*' | '+' | '?' | '{') {
                chain += 1;
                if self.depth + chain > crate::syntax::parse_logic::MAX_TREE_DEPTH {
                    return Err(ParseError::new(
                        at,
                        "too large: too many repeated operators",
                    ));
                }
            }
            r = match c {
                '*' => Regex::Star(Box::new(r)),
                '+' => Regex::Plus(Box::new(r)),
                '?' => Regex::Opt(Box::new(r)),
                '{' => {
                    let (min, max) = self.bounds(at)?;
                    Regex::Repeat(Box::new(r), min, max)
                }
                _ => break,
            };
            self.pos += 1;
        }
        Ok(r)
    }

    /// A count inside `{…}`; the position is on its first digit.
    fn count(&mut self) -> Result<Option<u32>, ParseError> {
        let start = self.peek().map_or(self.end, |t| t.0);
        let mut n: u64 = 0;
        let mut digits = 0;
        while let Some((_, c)) = self.peek() {
            let Some(d) = c.to_digit(10) else { break };
            n = (n * 10 + u64::from(d)).min(u64::from(u32::MAX));
            digits += 1;
            self.pos += 1;
        }
        if digits == 0 {
            return Ok(None);
        }
        if n > u64::from(MAX_REPEAT) {
            return Err(ParseError::new(
                start,
                format!("too large: repetition count {n} is over the limit {MAX_REPEAT}"),
            ));
        }
        Ok(u32::try_from(n).ok())
    }

    /// `{n}`, `{n,}` or `{n,m}` starting at the `{` at `open`; leaves `pos` on the `}`.
    fn bounds(&mut self, open: usize) -> Result<(u32, Option<u32>), ParseError> {
        self.pos += 1;
        let Some(min) = self.count()? else {
            let at = self.peek().map_or(self.end, |t| t.0);
            return Err(ParseError::new(
                at,
                "expected a count after '{' (write a{2}, a{2,} or a{2,5})",
            ));
        };
        let max = if let Some((_, ',')) = self.peek() {
            self.pos += 1;
            self.count()?
        } else {
            Some(min)
        };
        match self.peek() {
            Some((_, '}')) => {}
            Some((at, c)) => {
                return Err(ParseError::new(
                    at,
                    format!("expected '}}' to close '{{', found '{c}'"),
                ));
            }
            None => return Err(ParseError::new(open, "unclosed '{'")),
        }
        if let Some(m) = max
            && m < min
        {
            return Err(ParseError::new(
                open,
                format!("repetition {{{min},{m}}}: the upper bound is below the lower"),
            ));
        }
        Ok((min, max))
    }

    fn atom(&mut self) -> Result<Regex, ParseError> {
        let Some((at, c)) = self.peek() else {
            return Err(ParseError::new(self.end, "expected a symbol"));
        };
        self.pos += 1;
        match c {
            '(' => {
                let inner = self.alternation()?;
                match self.peek() {
                    Some((_, ')')) => {
                        self.pos += 1;
                        Ok(inner)
                    }
                    _ => Err(ParseError::new(at, "unclosed '('")),
                }
            }
            'ε' => Ok(Regex::Epsilon),
            '*' | '+' | '?' | '{' => {
                Err(ParseError::new(at, format!("'{c}' with nothing before it")))
            }
            c if c.is_ascii_alphanumeric() => Ok(Regex::Sym(c)),
            c => Err(ParseError::new(at, format!("unexpected character '{c}'"))),
        }
    }
}

/// Prints a regex; `ascii` writes ε as `()`.
pub fn print_regex(r: &Regex, ascii: bool) -> String {
    let mut out = String::new();
    write_regex(r, ascii, &mut out);
    out
}

fn write_regex(r: &Regex, ascii: bool, out: &mut String) {
    match r {
        Regex::Epsilon => out.push_str(if ascii { "()" } else { "ε" }),
        Regex::Sym(c) => out.push(*c),
        Regex::Concat(xs) => {
            for x in xs {
                if matches!(x, Regex::Alt(_) | Regex::Concat(_)) {
                    out.push('(');
                    write_regex(x, ascii, out);
                    out.push(')');
                } else {
                    write_regex(x, ascii, out);
                }
            }
        }
        Regex::Alt(xs) => {
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                if matches!(x, Regex::Alt(_)) {
                    out.push('(');
                    write_regex(x, ascii, out);
                    out.push(')');
                } else {
                    write_regex(x, ascii, out);
                }
            }
        }
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => {
            if matches!(**x, Regex::Alt(_) | Regex::Concat(_)) {
                out.push('(');
                write_regex(x, ascii, out);
                out.push(')');
            } else {
                write_regex(x, ascii, out);
            }
            match r {
                Regex::Star(_) => out.push('*'),
                Regex::Plus(_) => out.push('+'),
                Regex::Repeat(_, min, Some(max)) if min == max => {
                    out.push_str(&format!("{{{min}}}"));
                }
                Regex::Repeat(_, min, Some(max)) => out.push_str(&format!("{{{min},{max}}}")),
                Regex::Repeat(_, min, None) => out.push_str(&format!("{{{min},}}")),
                _ => out.push('?'),
            }
        }
    }
}
