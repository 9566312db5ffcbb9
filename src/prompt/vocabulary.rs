//! The `[VOCABULARY]` block: operators and the symbols that occur in φ.

use crate::syntax::{BinOp, Expr, Formula, Regex, SyntaxKind, Term};

/// Describes the vocabulary of `e` for a prompt.
pub fn describe(e: &Expr, syntax: SyntaxKind) -> String {
    match e {
        Expr::Logic(f) => logic(f, syntax),
        Expr::Regex(r) => regex(r),
    }
}

fn logic(f: &Formula, syntax: SyntaxKind) -> String {
    let mut ops = vec!["¬ (not)", "∧ (and)", "∨ (or)"];
    let (mut imp, mut iff, mut xor, mut quant) = (false, false, false, false);
    let mut vars: Vec<String> = Vec::new();
    f.walk(&mut |g| match g {
        Formula::Bin(BinOp::Implies, ..) => imp = true,
        Formula::Bin(BinOp::Iff, ..) => iff = true,
        Formula::Bin(BinOp::Xor, ..) => xor = true,
        Formula::Quant(_, v, _) => {
            quant = true;
            if !vars.contains(&v.to_string()) {
                vars.push(v.to_string());
            }
        }
        Formula::Pred(_, args) => {
            for a in args {
                if let Term::Var(v) = a
                    && !vars.contains(&v.to_string())
                {
                    vars.push(v.to_string());
                }
            }
        }
        _ => {}
    });
    if imp {
        ops.push("→ (implies)");
    }
    if iff {
        ops.push("↔ (if and only if)");
    }
    if xor {
        ops.push("⊕ (exclusive or)");
    }
    if quant || syntax == SyntaxKind::Fol {
        ops.push("∀x. (for every object x)");
        ops.push("∃x. (there exists an object x)");
    }
    let mut out = format!("Operators: {}\n", ops.join(", "));
    let props: Vec<String> = f.propositions().into_iter().collect();
    if !props.is_empty() {
        out.push_str(&format!("Propositions: {}\n", props.join(", ")));
    }
    let consts: Vec<String> = f.constants().into_iter().collect();
    if !consts.is_empty() {
        out.push_str(&format!("Objects: {}\n", consts.join(", ")));
    }
    let preds: Vec<String> = f
        .predicates()
        .into_iter()
        .map(|(p, n)| {
            let args: Vec<String> = (0..n).map(|i| format!("?p{i}")).collect();
            format!("{p}({})", args.join(", "))
        })
        .collect();
    if !preds.is_empty() {
        out.push_str(&format!("Predicates: {}\n", preds.join(", ")));
    }
    if !vars.is_empty() {
        out.push_str(&format!("Variables: {}\n", vars.join(", ")));
    }
    out.trim_end().to_string()
}

fn regex(r: &Regex) -> String {
    let symbols: Vec<String> = r
        .alphabet()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let mut ops = vec![
        "concatenation (writing one after another)",
        "* (zero or more repetitions)",
        "( ) (grouping)",
    ];
    let (mut alt, mut plus, mut opt, mut rep) = (false, false, false, false);
    r.walk(&mut |x| match x {
        Regex::Alt(_) => alt = true,
        Regex::Plus(_) => plus = true,
        Regex::Opt(_) => opt = true,
        Regex::Repeat(..) => rep = true,
        _ => {}
    });
    if alt {
        ops.push("| (either)");
    }
    if plus {
        ops.push("+ (one or more repetitions)");
    }
    if opt {
        ops.push("? (optional)");
    }
    if rep {
        ops.push("{n} {n,} {n,m} (n, at least n, n to m repetitions)");
    }
    format!(
        "Symbols: {}\nOperators: {}",
        symbols.join(", "),
        ops.join(", ")
    )
}
