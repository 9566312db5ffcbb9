//! FOLIO-style printing (`∀x (P(x) → Q(x))`), the notation the paper's metrics expect.
//!
//! autoeval's own printing (`∀x1.(…)`) breaks the paper's parser: its quantifier hoisting
//! takes one character after `∀`, so `∀x1` fails. This printer gives every quantifier its
//! own single-letter variable (x, y, z, w, u, v, then further letters not used as
//! names), writes `Q v (body)`, brackets every nested binary subformula and separates
//! arguments with `, `.

use crate::syntax::{BinOp, Formula, Quantifier, Term};

const POOL: &str = "xyzwuvstrqpnmkjihgfedcba";

/// Why a formula has no FOLIO-style printing.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotationError {
    /// More variables than single letters left.
    #[error("{0} variables: more than the single letters available")]
    TooManyVariables(usize),
}

/// Writes one formula into one buffer (no string per subformula: the printing runs
/// twice per stored sample).
struct Printer<'f> {
    free_letters: Vec<char>,
    /// Letters handed out so far (the next is `free_letters[count]`).
    count: usize,
    free_vars: Vec<(&'f str, char)>,
    scope: Vec<(&'f str, char)>,
    out: String,
}

impl<'f> Printer<'f> {
    fn fresh(&mut self) -> Result<char, NotationError> {
        self.count += 1;
        self.free_letters
            .get(self.count - 1)
            .copied()
            .ok_or(NotationError::TooManyVariables(self.count))
    }

    fn term(&mut self, t: &'f Term) -> Result<(), NotationError> {
        match t {
            Term::Const(c) => self.out.push_str(c),
            Term::Var(v) => {
                let l = if let Some(&(_, l)) = self.scope.iter().rev().find(|(n, _)| *n == v) {
                    l
                } else if let Some(&(_, l)) = self.free_vars.iter().find(|(n, _)| *n == v) {
                    l
                } else {
                    let l = self.fresh()?;
                    self.free_vars.push((v.as_str(), l));
                    l
                };
                self.out.push(l);
            }
        }
        Ok(())
    }

    fn print(&mut self, f: &'f Formula, nested: bool) -> Result<(), NotationError> {
        match f {
            Formula::Prop(p) => self.out.push_str(p),
            Formula::Bool(b) => self.out.push_str(if *b { "⊤" } else { "⊥" }),
            Formula::Pred(p, args) => {
                self.out.push_str(p);
                self.out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.term(a)?;
                }
                self.out.push(')');
            }
            Formula::Not(a) => {
                if let Formula::Bin(..) = a.as_ref() {
                    self.out.push_str("¬(");
                    self.print(a, false)?;
                    self.out.push(')');
                } else {
                    self.out.push('¬');
                    self.print(a, false)?;
                }
            }
            Formula::Bin(op, a, b) => {
                let sym = match op {
                    BinOp::And => " ∧ ",
                    BinOp::Or => " ∨ ",
                    BinOp::Implies => " → ",
                    BinOp::Iff => " ↔ ",
                    BinOp::Xor => " ⊕ ",
                };
                if nested {
                    self.out.push('(');
                }
                self.print(a, true)?;
                self.out.push_str(sym);
                self.print(b, true)?;
                if nested {
                    self.out.push(')');
                }
            }
            Formula::Quant(q, v, body) => {
                let l = self.fresh()?;
                // Inside a connective the quantifier's reach is bracketed.
                if nested {
                    self.out.push('(');
                }
                self.out.push(match q {
                    Quantifier::Forall => '∀',
                    Quantifier::Exists => '∃',
                });
                self.out.push(l);
                self.out.push(' ');
                self.scope.push((v.as_str(), l));
                if let Formula::Quant(..) = body.as_ref() {
                    self.print(body, false)?;
                } else {
                    self.out.push('(');
                    self.print(body, false)?;
                    self.out.push(')');
                }
                self.scope.pop();
                if nested {
                    self.out.push(')');
                }
            }
        }
        Ok(())
    }
}

/// `f` in FOLIO notation.
pub fn paper_notation(f: &Formula) -> Result<String, NotationError> {
    // Single letters used as a constant, proposition or predicate name are not free.
    let mut taken = [false; 128];
    let mut take = |name: &str| {
        if let [b] = name.as_bytes()
            && b.is_ascii()
        {
            taken[*b as usize] = true;
        }
    };
    f.walk(&mut |g| match g {
        Formula::Prop(p) => take(p),
        Formula::Pred(p, args) => {
            take(p);
            for a in args {
                if let Term::Const(c) = a {
                    take(c);
                }
            }
        }
        _ => {}
    });
    let free_letters = POOL.chars().filter(|&c| !taken[c as usize]).collect();
    let mut p = Printer {
        free_letters,
        count: 0,
        free_vars: Vec::new(),
        scope: Vec::new(),
        out: String::with_capacity(128),
    };
    p.print(f, false)?;
    Ok(p.out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::paper_parse::parse_paper;
    use crate::syntax::parse_formula;

    fn n(s: &str) -> String {
        paper_notation(&parse_formula(s).expect("parses")).expect("prints")
    }

    /// The printer this one replaced (a string per subformula), kept to check that
    /// the buffer printer writes the same text.
    mod reference {
        use super::super::{NotationError, POOL};
        use crate::syntax::{BinOp, Formula, Quantifier, Term};
        use std::collections::{BTreeSet, HashMap};

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
                        if let Some((_, l)) = self.scope.iter().rev().find(|(n, _)| n == v.as_str())
                        {
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
                        let args: Result<Vec<String>, _> =
                            args.iter().map(|a| self.term(a)).collect();
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
                        if nested {
                            format!("({qs}{l} {inner})")
                        } else {
                            format!("{qs}{l} {inner}")
                        }
                    }
                })
            }
        }

        pub(super) fn paper_notation(f: &Formula) -> Result<String, NotationError> {
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
    }

    #[test]
    fn the_buffer_printer_writes_what_the_string_per_node_printer_wrote() {
        use crate::grammar::{DatasetKind, GenParams, generate_batch};
        let mut formulas = Vec::new();
        for kind in [DatasetKind::Fol, DatasetKind::FolEnglish, DatasetKind::Pl] {
            let params = GenParams {
                vocab: kind.vocab(),
                ..Default::default()
            };
            let cfg = kind.grammar().expect("grammar");
            for batch in 0..2 {
                let b = generate_batch(&cfg, &params, 7, batch, &mut |_| {}).expect("batch");
                for item in b.items {
                    if let crate::syntax::Expr::Logic(f) = item.expr {
                        formulas.push(f);
                    }
                }
            }
        }
        assert!(formulas.len() > 500, "{}", formulas.len());
        // Single-letter names, free variables, ⊤/⊥, and more variables than letters.
        let many = (1..=30).fold("pred1(x1)".to_string(), |s, i| format!("∀x{i}.({s})"));
        for s in [
            "x(a) ∧ ∀x1.(y(x1, b) → ∃x2.z(x2, x1, c))",
            "p(x1) ∧ ∀x1.p(x1)",
            "¬⊤ ∨ (⊥ ⊕ q1)",
            "∀x1.∀x2.∀x3.(¬(pred1(x1) ↔ pred2(x2, x3)))",
            &many,
        ] {
            formulas.push(parse_formula(s).expect("parses"));
        }
        // A constant named like the first letter takes it out of the pool.
        let q = Formula::Quant(
            Quantifier::Forall,
            "x1".into(),
            Box::new(Formula::Pred("q".into(), vec![Term::Var("x1".into())])),
        );
        let c = Formula::Pred("p".into(), vec![Term::Const("x".into())]);
        let f = Formula::bin(BinOp::And, c, q);
        assert_eq!(paper_notation(&f).as_deref(), Ok("p(x) ∧ (∀y (q(y)))"));
        formulas.push(f);
        for f in &formulas {
            assert_eq!(paper_notation(f), reference::paper_notation(f), "{f:?}");
        }
        assert!(paper_notation(&parse_formula(&many).expect("parses")).is_err());
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
