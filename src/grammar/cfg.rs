//! Context-free grammars and their small text format.
//!
//! ```text
//! # comment
//! @syntax logic          # logic (default) or regex
//! @metric operators      # operators (default for logic) or depth (default for regex)
//! @start S               # default: the first left-hand side
//! S -> ( S and S ) | ( not S ) | not $prop | $prop
//!    | ( S or S )        # a line starting with '|' continues the previous rule
//! ```
//! A bare token that appears on some left-hand side is a nonterminal; every other
//! token is a literal terminal. `'…'` quotes a literal (to write `|`, `#`, `->` or a
//! nonterminal's name as text); `ε` or `''` alone is the empty alternative.
//! Terminal classes are bound to the vocabulary when a formula is built:
//! `$prop` (proposition), `$atom` (predicate atom with arguments), `$var` (a fresh
//! bound variable), `$sym` (alphabet symbol).

use crate::syntax::SyntaxKind;
use std::collections::HashMap;

/// Vocabulary-bound terminal classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TermClass {
    /// A proposition such as `p3`.
    Prop,
    /// A predicate atom such as `pred2(p1,x1)`.
    Atom,
    /// A fresh quantified variable.
    Var,
    /// An alphabet symbol.
    Sym,
}

impl TermClass {
    /// The token that names the class in grammar files.
    pub fn token(self) -> &'static str {
        match self {
            TermClass::Prop => "$prop",
            TermClass::Atom => "$atom",
            TermClass::Var => "$var",
            TermClass::Sym => "$sym",
        }
    }
}

/// A grammar symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symbol {
    /// Nonterminal by index.
    Nt(u16),
    /// Literal terminal by index into [`Cfg::literals`].
    Lit(u16),
    /// Vocabulary class.
    Class(TermClass),
}

/// One production `lhs -> rhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Production {
    /// Left-hand side nonterminal.
    pub lhs: u16,
    /// Right-hand side symbols (empty for ε).
    pub rhs: Vec<Symbol>,
}

impl Production {
    /// Whether the right-hand side contains a nonterminal.
    pub(crate) fn has_nonterminal(&self) -> bool {
        self.rhs.iter().any(|s| matches!(s, Symbol::Nt(_)))
    }
}

/// What the generator buckets by.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Operator count (the original's rule).
    Operators,
    /// Generation depth (level of the derivation tree).
    Depth,
}

impl Metric {
    /// The original's `filter_field` name.
    pub fn field(self) -> &'static str {
        match self {
            Metric::Operators => "num_operators",
            Metric::Depth => "depth",
        }
    }
}

/// A context-free grammar.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Nonterminal names.
    pub nonterminals: Vec<String>,
    /// Literal terminal texts.
    pub literals: Vec<String>,
    /// All productions.
    pub productions: Vec<Production>,
    /// Production indices per nonterminal.
    pub by_lhs: Vec<Vec<usize>>,
    /// Start nonterminal.
    pub start: u16,
    /// Logic or regex.
    pub syntax: SyntaxKind,
    /// Default bucketing metric.
    pub metric: Metric,
    /// The source text, kept for dataset manifests.
    pub source: String,
}

/// A grammar-file error with 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {msg}")]
pub struct GrammarError {
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based, in characters).
    pub col: usize,
    /// What is wrong and how to fix it.
    pub msg: String,
}

/// Longest literal token (or nonterminal name), in bytes: real operators and keywords
/// are a few characters, and every literal is copied into every sample that uses it.
pub(crate) const MAX_LITERAL: usize = 256;
/// Most symbols on one right-hand side.
pub(crate) const MAX_RHS: usize = 1024;

fn gerr(line: usize, col: usize, msg: impl Into<String>) -> GrammarError {
    GrammarError {
        line,
        col,
        msg: msg.into(),
    }
}

#[derive(Debug)]
enum RawTok {
    Bare(String),
    Quoted(String),
    Bar,
    Arrow,
}

fn tokenize(line: &str, lno: usize) -> Result<Vec<(usize, RawTok)>, GrammarError> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            break;
        } else if c == '\'' {
            let start = i;
            i += 1;
            let mut s = String::new();
            while i < chars.len() && chars[i] != '\'' {
                s.push(chars[i]);
                i += 1;
            }
            if i >= chars.len() {
                return Err(gerr(lno, start + 1, "unterminated quote: close it with '"));
            }
            i += 1;
            out.push((start + 1, RawTok::Quoted(s)));
        } else if c == '|' {
            out.push((i + 1, RawTok::Bar));
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'>') || c == '→' {
            out.push((i + 1, RawTok::Arrow));
            i += if c == '→' { 1 } else { 2 };
        } else {
            let start = i;
            let mut s = String::new();
            while i < chars.len()
                && !chars[i].is_whitespace()
                && chars[i] != '\''
                && chars[i] != '#'
            {
                if chars[i] == '|' || (chars[i] == '-' && chars.get(i + 1) == Some(&'>')) {
                    break;
                }
                s.push(chars[i]);
                i += 1;
            }
            out.push((start + 1, RawTok::Bare(s)));
        }
    }
    Ok(out)
}

struct RawRule {
    lhs: String,
    line: usize,
    alts: Vec<Vec<(usize, usize, RawTok)>>, // (line, col, tok)
}

/// The `@` directives of a grammar file.
struct Directives {
    syntax: SyntaxKind,
    metric: Option<Metric>,
    /// The `@start` name with its line and column.
    start: Option<(String, usize, usize)>,
}

impl Directives {
    /// Reads one directive line (`dir` is the text after `@`).
    fn read(&mut self, dir: &str, indent: usize, lno: usize) -> Result<(), GrammarError> {
        let body = dir.split('#').next().unwrap_or("").trim();
        let mut parts = body.split_whitespace();
        let key = parts.next().unwrap_or("");
        let val = parts.next().unwrap_or("");
        let vcol = indent + 1 + dir.find(val).unwrap_or(0) + 1;
        match key {
            "syntax" => {
                self.syntax = match val {
                    "logic" | "pl" | "fol" => SyntaxKind::Pl,
                    "regex" => SyntaxKind::Regex,
                    _ => {
                        return Err(gerr(
                            lno,
                            vcol,
                            format!("unknown @syntax '{val}': use logic or regex"),
                        ));
                    }
                }
            }
            "metric" => {
                self.metric = Some(match val {
                    "operators" | "num_operators" => Metric::Operators,
                    "depth" => Metric::Depth,
                    _ => {
                        return Err(gerr(
                            lno,
                            vcol,
                            format!("unknown @metric '{val}': use operators or depth"),
                        ));
                    }
                });
            }
            "start" => {
                if val.is_empty() {
                    return Err(gerr(lno, indent + 1, "@start needs a nonterminal name"));
                }
                self.start = Some((val.to_string(), lno, vcol));
            }
            _ => {
                return Err(gerr(
                    lno,
                    indent + 2,
                    format!("unknown directive '@{key}': use @syntax, @metric or @start"),
                ));
            }
        }
        Ok(())
    }
}

/// Reads a rule line (`Name -> …`) or a continuation line (`| …`) into `rules`.
fn read_rule_line(
    rules: &mut Vec<RawRule>,
    line: &str,
    lno: usize,
    indent: usize,
) -> Result<(), GrammarError> {
    let toks = tokenize(line, lno)?;
    let mut iter = toks.into_iter().peekable();
    let first = iter.peek().map(|(c, t)| (*c, matches!(t, RawTok::Bar)));
    match first {
        Some((_, true)) => {
            let Some(rule) = rules.last_mut() else {
                return Err(gerr(
                    lno,
                    indent + 1,
                    "a continuation line '|' needs a rule above it",
                ));
            };
            iter.next();
            rule.alts.push(Vec::new());
        }
        Some((col, false)) => {
            let lhs = match iter.next() {
                Some((_, RawTok::Bare(s))) if !s.starts_with('$') => s,
                _ => return Err(gerr(lno, col, "expected a rule 'Name -> …'")),
            };
            match iter.next() {
                Some((_, RawTok::Arrow)) => {}
                Some((c, _)) => {
                    return Err(gerr(lno, c, "expected '->' after the rule name"));
                }
                None => {
                    return Err(gerr(
                        lno,
                        line.chars().count() + 1,
                        "expected '->' after the rule name",
                    ));
                }
            }
            rules.push(RawRule {
                lhs,
                line: lno,
                alts: vec![Vec::new()],
            });
        }
        None => return Ok(()),
    }
    let Some(rule) = rules.last_mut() else {
        return Ok(());
    };
    for (col, tok) in iter {
        match tok {
            RawTok::Bar => rule.alts.push(Vec::new()),
            RawTok::Arrow => {
                return Err(gerr(
                    lno,
                    col,
                    "unexpected '->': quote it as '->' to use it as text",
                ));
            }
            t => push_symbol(rule, lno, col, t)?,
        }
    }
    Ok(())
}

/// Adds a symbol token to the rule's last alternative, within the size limits.
fn push_symbol(rule: &mut RawRule, lno: usize, col: usize, t: RawTok) -> Result<(), GrammarError> {
    if let RawTok::Bare(s) | RawTok::Quoted(s) = &t
        && s.len() > MAX_LITERAL
    {
        return Err(gerr(
            lno,
            col,
            format!(
                "a token of {} bytes; the limit is {MAX_LITERAL} (every sample that uses a literal copies it)",
                s.len()
            ),
        ));
    }
    if let Some(alt) = rule.alts.last_mut() {
        if alt.len() >= MAX_RHS {
            return Err(gerr(
                lno,
                col,
                format!(
                    "an alternative of more than {MAX_RHS} symbols, the limit; split it into rules"
                ),
            ));
        }
        alt.push((lno, col, t));
    }
    Ok(())
}

/// The nonterminals in order of first definition, with their indices.
fn index_nonterminals(
    rules: &[RawRule],
) -> Result<(Vec<String>, HashMap<String, u16>), GrammarError> {
    let mut nonterminals: Vec<String> = Vec::new();
    let mut nt_index: HashMap<String, u16> = HashMap::new();
    for r in rules {
        if !nt_index.contains_key(&r.lhs) {
            if nonterminals.len() >= u16::MAX as usize {
                return Err(gerr(r.line, 1, "too many nonterminals"));
            }
            nt_index.insert(r.lhs.clone(), nonterminals.len() as u16);
            nonterminals.push(r.lhs.clone());
        }
    }
    Ok((nonterminals, nt_index))
}

/// Interns literals in order of first use.
#[derive(Default)]
struct Literals {
    list: Vec<String>,
    index: HashMap<String, u16>,
}

impl Literals {
    fn id(&mut self, s: &str) -> u16 {
        if let Some(id) = self.index.get(s) {
            return *id;
        }
        let id = self.list.len() as u16;
        self.index.insert(s.to_string(), id);
        self.list.push(s.to_string());
        id
    }
}

/// The symbol a token of an alternative of `alt_len` tokens stands for (None: ε or
/// an empty literal, which add nothing).
fn symbol(
    (lno, col, t): &(usize, usize, RawTok),
    alt_len: usize,
    nt_index: &HashMap<String, u16>,
    literals: &mut Literals,
) -> Result<Option<Symbol>, GrammarError> {
    Ok(Some(match t {
        RawTok::Bare(s) if s == "ε" => {
            if alt_len > 1 {
                return Err(gerr(*lno, *col, "ε must stand alone in its alternative"));
            }
            return Ok(None);
        }
        RawTok::Bare(s) if s.starts_with('$') => Symbol::Class(match s.as_str() {
            "$prop" => TermClass::Prop,
            "$atom" => TermClass::Atom,
            "$var" => TermClass::Var,
            "$sym" => TermClass::Sym,
            _ => {
                return Err(gerr(
                    *lno,
                    *col,
                    format!("unknown terminal class '{s}': use $prop, $atom, $var or $sym"),
                ));
            }
        }),
        RawTok::Bare(s) if nt_index.contains_key(s) => Symbol::Nt(nt_index[s]),
        RawTok::Bare(s) | RawTok::Quoted(s) => {
            if s.is_empty() {
                return Ok(None);
            }
            Symbol::Lit(literals.id(s))
        }
        _ => return Ok(None),
    }))
}

/// Every alternative of every rule as a production, with the literals they use.
fn productions(
    rules: &[RawRule],
    nt_index: &HashMap<String, u16>,
) -> Result<(Vec<String>, Vec<Production>), GrammarError> {
    let mut literals = Literals::default();
    let mut productions = Vec::new();
    for r in rules {
        let lhs = nt_index[&r.lhs];
        for alt in &r.alts {
            let mut rhs = Vec::new();
            for tok in alt {
                if let Some(sym) = symbol(tok, alt.len(), nt_index, &mut literals)? {
                    rhs.push(sym);
                }
            }
            productions.push(Production { lhs, rhs });
        }
    }
    Ok((literals.list, productions))
}

impl Cfg {
    /// Parses a grammar file's text.
    pub fn parse(text: &str) -> Result<Cfg, GrammarError> {
        let mut dirs = Directives {
            syntax: SyntaxKind::Pl,
            metric: None,
            start: None,
        };
        let mut rules: Vec<RawRule> = Vec::new();
        for (idx, line) in text.lines().enumerate() {
            let lno = idx + 1;
            let trimmed = line.trim_start();
            let indent = line.chars().count() - trimmed.chars().count();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if let Some(dir) = trimmed.strip_prefix('@') {
                dirs.read(dir, indent, lno)?;
            } else {
                read_rule_line(&mut rules, line, lno, indent)?;
            }
        }
        if rules.is_empty() {
            return Err(gerr(
                1,
                1,
                "the grammar has no rules: add one like 'S -> ( S and S ) | $prop'",
            ));
        }
        let (nonterminals, nt_index) = index_nonterminals(&rules)?;
        let (literals, productions) = productions(&rules, &nt_index)?;
        let start = match dirs.start {
            Some((name, lno, col)) => *nt_index.get(&name).ok_or_else(|| {
                gerr(
                    lno,
                    col,
                    format!("@start '{name}' is not defined by any rule"),
                )
            })?,
            None => 0,
        };
        let mut by_lhs = vec![Vec::new(); nonterminals.len()];
        for (i, p) in productions.iter().enumerate() {
            by_lhs[p.lhs as usize].push(i);
        }
        let syntax = dirs.syntax;
        let metric = dirs.metric.unwrap_or(if syntax == SyntaxKind::Regex {
            Metric::Depth
        } else {
            Metric::Operators
        });
        let cfg = Cfg {
            nonterminals,
            literals,
            productions,
            by_lhs,
            start,
            syntax,
            metric,
            source: text.to_string(),
        };
        cfg.check_terminates(&rules)?;
        Ok(cfg)
    }

    /// Refuses grammars whose start symbol derives no finite string.
    fn check_terminates(&self, rules: &[RawRule]) -> Result<(), GrammarError> {
        let mut productive = vec![false; self.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &self.productions {
                if !productive[p.lhs as usize]
                    && p.rhs.iter().all(|s| match s {
                        Symbol::Nt(n) => productive[*n as usize],
                        _ => true,
                    })
                {
                    productive[p.lhs as usize] = true;
                    changed = true;
                }
            }
        }
        if !productive[self.start as usize] {
            let name = &self.nonterminals[self.start as usize];
            let line = rules.iter().find(|r| &r.lhs == name).map_or(1, |r| r.line);
            return Err(gerr(
                line,
                1,
                format!(
                    "'{name}' has no terminating derivation: every alternative needs '{name}' again; add an alternative made of terminals only"
                ),
            ));
        }
        Ok(())
    }

    /// Text of a literal.
    pub fn literal(&self, id: u16) -> &str {
        &self.literals[id as usize]
    }

    /// Which terminal classes occur anywhere in the grammar.
    pub fn uses(&self, class: TermClass) -> bool {
        self.productions
            .iter()
            .any(|p| p.rhs.contains(&Symbol::Class(class)))
    }
}

#[cfg(test)]
#[path = "cfg_tests.rs"]
mod tests;
