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
    /// `~ & | -> <-> ^ all exists`.
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
    };
    p.write(f, true, true, &mut out);
    out
}

struct Printer {
    sym: &'static Sym,
    original: bool,
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
    fn write(&self, f: &Formula, tail: bool, top: bool, out: &mut String) {
        match f {
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
                if !tail {
                    out.push('(');
                    self.quant_chain(f, out);
                    out.push(')');
                } else {
                    self.quant_chain(f, out);
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
        let Formula::Bin(op, a, b) = f else {
            self.write(f, tail, false, out);
            return;
        };
        // Left-nested chains of an associative, left-binding op print flat.
        match &**a {
            Formula::Bin(aop, ..)
                if aop == op && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) =>
            {
                self.bin_body(a, false, out)
            }
            _ => self.write(a, false, false, out),
        }
        out.push_str(self.op(*op));
        self.write(b, tail, false, out);
    }

    fn quant_chain(&self, f: &Formula, out: &mut String) {
        let mut cur = f;
        while let Formula::Quant(q, v, body) = cur {
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
    }
}
