//! A plain English rendering of formulas and regexes (for the offline model).
//!
//! Words only, no parentheses or operator symbols, so it never trips the copy check.

use crate::syntax::{BinOp, Expr, Formula, Quantifier, Regex, Term};

/// English for an expression.
pub(crate) fn verbalize(e: &Expr) -> String {
    match e {
        Expr::Logic(f) => {
            let mut s = logic(f);
            s.push('.');
            capitalize(s)
        }
        Expr::Regex(r) => capitalize(format!("the strings made of {}.", regex(r))),
    }
}

fn capitalize(s: String) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => s,
    }
}

fn term(t: &Term) -> String {
    match t {
        Term::Const(c) => c.to_string(),
        Term::Var(v) => format!("object {v}"),
    }
}

fn logic(f: &Formula) -> String {
    match f {
        Formula::Bool(true) => "true".to_string(),
        Formula::Bool(false) => "false".to_string(),
        Formula::Prop(p) => p.to_string(),
        Formula::Pred(p, args) => {
            let a: Vec<String> = args.iter().map(term).collect();
            if a.len() == 1 {
                format!("{p} holds for {}", a[0])
            } else {
                format!("{p} holds for {}, in that order", a.join(" and "))
            }
        }
        Formula::Not(a) => match &**a {
            Formula::Prop(p) => format!("{p} is false"),
            other => format!("it is not the case that {}", logic(other)),
        },
        Formula::Bin(op, a, b) => {
            let (x, y) = (logic(a), logic(b));
            match op {
                BinOp::And => format!("both {x}, and {y}"),
                BinOp::Or => format!("either {x}, or {y}"),
                BinOp::Implies => format!("if {x}, then {y}"),
                BinOp::Iff => format!("{x}, exactly when {y}"),
                BinOp::Xor => format!("exactly one of the following: {x}; {y}"),
            }
        }
        Formula::Quant(q, v, body) => match q {
            Quantifier::Forall => format!("for every object {v}, {}", logic(body)),
            Quantifier::Exists => format!("there is an object {v} such that {}", logic(body)),
        },
    }
}

fn regex(r: &Regex) -> String {
    match r {
        Regex::Epsilon => "nothing".into(),
        Regex::Sym(c) => format!("the symbol {c}"),
        Regex::Concat(xs) => xs.iter().map(regex).collect::<Vec<_>>().join(", then "),
        Regex::Alt(xs) => format!(
            "either {}",
            xs.iter().map(regex).collect::<Vec<_>>().join(", or ")
        ),
        Regex::Star(x) => format!("zero or more repetitions of {}", group(x)),
        Regex::Plus(x) => format!("one or more repetitions of {}", group(x)),
        Regex::Opt(x) => format!("optionally {}", group(x)),
        Regex::Repeat(x, min, Some(max)) if min == max => {
            format!("exactly {min} repetitions of {}", group(x))
        }
        Regex::Repeat(x, min, Some(max)) => {
            format!("between {min} and {max} repetitions of {}", group(x))
        }
        Regex::Repeat(x, min, None) => format!("{min} or more repetitions of {}", group(x)),
    }
}

fn group(r: &Regex) -> String {
    match r {
        Regex::Concat(_) | Regex::Alt(_) => format!("the sequence: {} — end of sequence", regex(r)),
        other => regex(other),
    }
}
