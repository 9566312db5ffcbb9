//! FOLIO-style printing (`∀x (P(x) → Q(x))`), the notation the paper's metrics expect.
//!
//! autoeval's own printing (`∀x1.(…)`) breaks the paper's parser: its quantifier hoisting
//! takes one character after `∀`, so `∀x1` fails. This printer gives every quantifier its
//! own single-letter variable (x, y, z, w, u, v, then further letters not used as
//! names), writes `Q v (body)`, brackets every nested binary subformula and separates
//! arguments with `, `.

use crate::syntax::{BinOp, Formula, Quantifier, Term};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

const POOL: &str = "xyzwuvstrqpnmkjihgfedcba";

/// Why a formula has no FOLIO-style printing.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotationError {
    /// More variables than single letters left.
    #[error("{0} variables: more than the single letters available")]
    TooManyVariables(usize),
}

struct Printer {
    free_letters: Vec<char>,
    free_vars: HashMap<String, char>,
    scope: Vec<(String, char)>,
    count: usize,
}

impl Printer {
    fn fresh(&mut self) -> Result<char, NotationError> {
        self.count += 1;
        if self.free_letters.is_empty() {
            return Err(NotationError::TooManyVariables(self.count));
        }
        Ok(self.free_letters.remove(0))
    }

    fn term(&mut self, t: &Term) -> Result<String, NotationError> {
        Ok(match t {
            Term::Const(c) => c.to_string(),
            Term::Var(v) => {
                if let Some((_, l)) = self.scope.iter().rev().find(|(n, _)| n == v.as_str()) {
                    l.to_string()
                } else if let Some(l) = self.free_vars.get(v.as_str()) {
                    l.to_string()
                } else {
                    let l = self.fresh()?;
                    self.free_vars.insert(v.to_string(), l);
                    l.to_string()
                }
            }
        })
    }

    fn print(&mut self, f: &Formula, nested: bool) -> Result<String, NotationError> {
        Ok(match f {
            Formula::Prop(p) => p.to_string(),
            Formula::Bool(b) => if *b { "⊤" } else { "⊥" }.to_string(),
            Formula::Pred(p, args) => {
                let args: Result<Vec<String>, _> = args.iter().map(|a| self.term(a)).collect();
                format!("{p}({})", args?.join(", "))
            }
            Formula::Not(a) => match a.as_ref() {
                Formula::Bin(..) => format!("¬({})", self.print(a, false)?),
                _ => format!("¬{}", self.print(a, false)?),
            },
            Formula::Bin(op, a, b) => {
                let sym = match op {
                    BinOp::And => "∧",
                    BinOp::Or => "∨",
                    BinOp::Implies => "→",
                    BinOp::Iff => "↔",
                    BinOp::Xor => "⊕",
                };
                let s = format!("{} {sym} {}", self.print(a, true)?, self.print(b, true)?);
                if nested { format!("({s})") } else { s }
            }
            Formula::Quant(q, v, body) => {
                let l = self.fresh()?;
                let qs = match q {
                    Quantifier::Forall => '∀',
                    Quantifier::Exists => '∃',
                };
                self.scope.push((v.to_string(), l));
                let inner = match body.as_ref() {
                    Formula::Quant(..) => self.print(body, false)?,
                    _ => format!("({})", self.print(body, false)?),
                };
                self.scope.pop();
                // Inside a connective the quantifier's reach is bracketed.
                if nested {
                    format!("({qs}{l} {inner})")
                } else {
                    format!("{qs}{l} {inner}")
                }
            }
        })
    }
}

/// `f` in FOLIO notation.
pub fn paper_notation(f: &Formula) -> Result<String, NotationError> {
    let mut names: BTreeSet<String> = f.constants();
    names.extend(f.propositions());
    names.extend(f.predicates().into_iter().map(|p| p.0));
    let free_letters = POOL
        .chars()
        .filter(|c| !names.contains(&c.to_string()))
        .collect();
    let mut p = Printer {
        free_letters,
        free_vars: HashMap::default(),
        scope: Vec::new(),
        count: 0,
    };
    p.print(f, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::paper_parse::parse_paper;
    use crate::syntax::parse_formula;

    fn n(s: &str) -> String {
        paper_notation(&parse_formula(s).expect("parses")).expect("prints")
    }

    #[test]
    fn prints_folio_style_that_the_papers_parser_reads() {
        assert_eq!(
            n("∀x1.(pred1(x1) → pred2(x1, p3))"),
            "∀x (pred1(x) → pred2(x, p3))"
        );
        assert_eq!(n("∀x1.∃x2.pred1(x1, x2)"), "∀x ∃y (pred1(x, y))");
        assert_eq!(
            n("¬(pred1(p1) ∧ pred2(p2)) ∨ ¬pred3(p1)"),
            "¬(pred1(p1) ∧ pred2(p2)) ∨ ¬pred3(p1)"
        );
        assert_eq!(
            n("(∀x1.pred1(x1)) ∧ (∀x1.pred2(x1))"),
            "(∀x (pred1(x))) ∧ (∀y (pred2(y)))"
        );
        for s in [
            "∀x1.(pred1(x1) → pred2(x1, p3))",
            "∀x1.∃x2.(pred1(x1, x2) ∧ ¬pred2(x2))",
            "(∀x1.pred1(x1)) ∧ (∀x1.pred2(x1))",
        ] {
            assert!(parse_paper(&n(s)).is_ok(), "{}", n(s));
        }
    }
}
