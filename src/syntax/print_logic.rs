//! Printers for logic formulas: canonical Unicode, ASCII, and the original's form.

use super::logic::{BinOp, Formula, Quantifier};

/// Output notations. For every notation `parse(print(f)) == f`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Notation {
    /// ¬ ∧ ∨ → ↔ ⊕ ∀ ∃ with minimal parentheses.
    Unicode,
    /// `~ & | -> <-> ^ all exists true false`.
    Ascii,
    /// The original AutoEval form: `v` for ∨, every binary parenthesised, `∀ x1 x2.`.
    Original,
}

struct Sym {
    not: &'static str,
    and: &'static str,
    or: &'static str,
    implies: &'static str,
    iff: &'static str,
    xor: &'static str,
    forall: &'static str,
    exists: &'static str,
    top: &'static str,
    bottom: &'static str,
}

const UNICODE: Sym = Sym {
    not: "¬",
    and: " ∧ ",
    or: " ∨ ",
    implies: " → ",
    iff: " ↔ ",
    xor: " ⊕ ",
    forall: "∀",
    exists: "∃",
    top: "⊤",
    bottom: "⊥",
};
const ASCII: Sym = Sym {
    not: "~",
    and: " & ",
    or: " | ",
    implies: " -> ",
    iff: " <-> ",
    xor: " ^ ",
    forall: "all ",
    exists: "exists ",
    top: "true",
    bottom: "false",
};
const ORIGINAL: Sym = Sym {
    not: "¬",
    and: " ∧ ",
    or: " v ",
    implies: " -> ",
    iff: " <-> ",
    xor: " ⊕ ",
    forall: "∀ ",
    exists: "∃ ",
    top: "⊤",
    bottom: "⊥",
};

/// Prints `f` in the given notation.
pub fn print_formula(f: &Formula, notation: Notation) -> String {
    let mut out = String::with_capacity(64);
    let p = Printer {
        sym: match notation {
            Notation::Unicode => &UNICODE,
            Notation::Ascii => &ASCII,
            Notation::Original => &ORIGINAL,
        },
        original: notation == Notation::Original,
        target: None,
        span: std::cell::Cell::new(None),
    };
    p.write(f, true, true, &mut out);
    out
}

/// Prints `f` in Unicode and returns where `target` (a subformula of `f`, by address)
/// landed in the text, as a byte range, for highlighting it in place.
pub fn print_with_span(f: &Formula, target: &Formula) -> (String, Option<(usize, usize)>) {
    let mut out = String::with_capacity(64);
    let p = Printer {
        sym: &UNICODE,
        original: false,
        target: Some(std::ptr::from_ref::<Formula>(target)),
        span: std::cell::Cell::new(None),
    };
    p.write(f, true, true, &mut out);
    (out, p.span.get())
}

struct Printer {
    sym: &'static Sym,
    original: bool,
    /// The node whose text span is wanted, if any.
    target: Option<*const Formula>,
    span: std::cell::Cell<Option<(usize, usize)>>,
}

impl Printer {
    fn op(&self, op: BinOp) -> &'static str {
        match op {
            BinOp::And => self.sym.and,
            BinOp::Or => self.sym.or,
            BinOp::Implies => self.sym.implies,
            BinOp::Iff => self.sym.iff,
            BinOp::Xor => self.sym.xor,
        }
    }

    fn quant(&self, q: Quantifier) -> &'static str {
        match q {
            Quantifier::Forall => self.sym.forall,
            Quantifier::Exists => self.sym.exists,
        }
    }

    /// `tail`: nothing follows this text inside the enclosing group, so an
    /// unparenthesised quantifier cannot swallow what comes after it.
    /// `top`: the formula is the whole output (only matters for the original form).
    /// Records `f`'s span if it is the target (the innermost record wins: no parentheses).
    fn mark(&self, f: &Formula, start: usize, out: &str) {
        if self.target == Some(std::ptr::from_ref::<Formula>(f)) && self.span.get().is_none() {
            self.span.set(Some((start, out.len())));
        }
    }

    fn write(&self, f: &Formula, tail: bool, top: bool, out: &mut String) {
        let start = out.len();
        self.write_inner(f, tail, top, out);
        self.mark(f, start, out);
    }

    fn write_inner(&self, f: &Formula, tail: bool, top: bool, out: &mut String) {
        match f {
            Formula::Bool(true) => out.push_str(self.sym.top),
            Formula::Bool(false) => out.push_str(self.sym.bottom),
            Formula::Prop(p) => out.push_str(p),
            Formula::Pred(name, args) => {
                out.push_str(name);
                out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(a.name());
                }
                out.push(')');
            }
            Formula::Not(inner) => {
                out.push_str(self.sym.not);
                if matches!(**inner, Formula::Bin(..)) {
                    self.paren_bin(inner, out);
                } else {
                    self.write(inner, tail, false, out);
                }
            }
            Formula::Bin(..) => {
                if self.original || !top {
                    self.paren_bin(f, out);
                } else {
                    self.bin_body(f, tail, out);
                }
            }
            Formula::Quant(..) => {
                if tail {
                    self.quant_chain(f, out);
                } else {
                    out.push('(');
                    self.quant_chain(f, out);
                    out.push(')');
                }
            }
        }
    }

    fn paren_bin(&self, f: &Formula, out: &mut String) {
        out.push('(');
        self.bin_body(f, true, out);
        out.push(')');
    }

    fn bin_body(&self, f: &Formula, tail: bool, out: &mut String) {
        let start = out.len();
        self.bin_body_inner(f, tail, out);
        self.mark(f, start, out);
    }

    fn bin_body_inner(&self, f: &Formula, tail: bool, out: &mut String) {
        let Formula::Bin(op, a, b) = f else {
            self.write(f, tail, false, out);
            return;
        };
        // Left-nested chains of an associative, left-binding op print flat.
        match &**a {
            Formula::Bin(aop, ..)
                if aop == op && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) =>
            {
                self.bin_body(a, false, out);
            }
            _ => self.write(a, false, false, out),
        }
        out.push_str(self.op(*op));
        self.write(b, tail, false, out);
    }

    fn quant_chain(&self, f: &Formula, out: &mut String) {
        let mut cur = f;
        // Inner quantifiers of a chain are printed here, not through `write`.
        let mut starts: Vec<(&Formula, usize)> = Vec::new();
        while let Formula::Quant(q, v, body) = cur {
            starts.push((cur, out.len()));
            out.push_str(self.quant(*q));
            out.push_str(v);
            // The original collapses `∀ x1.∀ x2.` into `∀ x1 x2.`.
            let mut next = &**body;
            if self.original {
                while let Formula::Quant(q2, v2, b2) = next {
                    if q2 != q {
                        break;
                    }
                    out.push(' ');
                    out.push_str(v2);
                    next = b2;
                }
            }
            out.push('.');
            cur = next;
            if !matches!(cur, Formula::Quant(..)) {
                break;
            }
        }
        match cur {
            Formula::Bin(..) => self.paren_bin(cur, out),
            other => self.write(other, true, false, out),
        }
        for (g, start) in starts.into_iter().rev() {
            self.mark(g, start, out);
        }
    }
}

#[cfg(test)]
mod span_tests {
    use super::*;
    use crate::syntax::parse_formula;

    /// The span of every subformula is exactly its own text inside the whole.
    #[test]
    fn spans_cover_each_subformula() {
        let f = parse_formula("∀x.∃y.(P(x) ∧ ¬(q ∨ R(x,y))) ∧ (p1 → p2 ∧ p3)").unwrap();
        fn all<'a>(f: &'a Formula, out: &mut Vec<&'a Formula>) {
            out.push(f);
            match f {
                Formula::Not(a) | Formula::Quant(_, _, a) => all(a, out),
                Formula::Bin(_, a, b) => {
                    all(a, out);
                    all(b, out);
                }
                _ => {}
            }
        }
        let mut subs = Vec::new();
        all(&f, &mut subs);
        for g in subs {
            let (text, span) = print_with_span(&f, g);
            assert_eq!(text, print_formula(&f, Notation::Unicode));
            let (a, b) = span.unwrap_or_else(|| panic!("no span for {g:?}"));
            let got = &text[a..b];
            let want = print_formula(g, Notation::Unicode);
            let bare = want.trim_start_matches('(').trim_end_matches(')');
            assert!(
                got == want || got.trim_start_matches('(').trim_end_matches(')') == bare,
                "{got:?} vs {want:?}"
            );
        }
    }
}
