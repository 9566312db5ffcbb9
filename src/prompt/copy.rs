//! The copy check: an informalization that reproduces the formula makes the round trip trivial.
//!
//! ψ is `copied` when it contains, in order of checking:
//! 1. a logic operator symbol (`¬ ∧ ∨ → ↔ ⊕ ∀ ∃`, or ASCII `->`, `<->`, `&`, `|`, `~`);
//! 2. predicate-call syntax for a predicate of φ (`pred1(`);
//! 3. a parenthesised span that parses as a formula with an operator and uses only φ's names;
//! 4. for regexes, a run of three or more non-space characters made of φ's symbols and
//!    regex operators (`* + ? | ( )`) that contains an operator, such as `0*1` or `(01)*`.

use crate::syntax::{Expr, Formula, parse_formula};

/// The offending byte span of ψ and a description, if ψ copies φ.
pub fn copy_check(psi: &str, phi: &Expr) -> Option<(usize, usize, String)> {
    match phi {
        Expr::Logic(f) => logic(psi, f),
        Expr::Regex(r) => regex(psi, &r.alphabet()),
    }
}

fn logic(psi: &str, f: &Formula) -> Option<(usize, usize, String)> {
    for (i, c) in psi.char_indices() {
        if "¬∧∨→↔⊕∀∃".contains(c) {
            return Some((i, i + c.len_utf8(), format!("operator symbol '{c}'")));
        }
    }
    for pat in ["<->", "->", "&", "|", "~"] {
        if let Some(i) = psi.find(pat) {
            return Some((i, i + pat.len(), format!("operator symbol '{pat}'")));
        }
    }
    for (name, _) in f.predicates() {
        let pat = format!("{name}(");
        let mut from = 0;
        while let Some(k) = psi[from..].find(&pat) {
            let i = from + k;
            let boundary = psi[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric() && c != '_');
            if boundary {
                return Some((i, i + pat.len(), format!("predicate-call syntax '{pat}'")));
            }
            from = i + pat.len();
        }
    }
    let names: Vec<String> = f
        .propositions()
        .into_iter()
        .chain(f.predicates().into_iter().map(|p| p.0))
        .chain(f.constants())
        .collect();
    let bytes = psi.as_bytes();
    let mut stack = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => stack.push(i),
            b')' => {
                if let Some(open) = stack.pop() {
                    let inner = &psi[open + 1..i];
                    if let Ok(g) = parse_formula(inner)
                        && crate::syntax::operator_count(&g) > 0
                        && g.propositions().iter().all(|p| names.contains(p))
                        && g.predicates().iter().all(|p| names.contains(&p.0))
                    {
                        return Some((open, i + 1, format!("formula text '{}'", &psi[open..=i])));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn regex(psi: &str, alphabet: &[char]) -> Option<(usize, usize, String)> {
    let is_re = |c: char| alphabet.contains(&c) || "*+?|()".contains(c);
    let mut start = None;
    let flush = |s: usize, e: usize| -> Option<(usize, usize, String)> {
        let run = &psi[s..e];
        (run.chars().count() >= 3
            && run.chars().any(|c| "*+?|".contains(c))
            && run.chars().any(|c| alphabet.contains(&c)))
        .then(|| (s, e, format!("regular-expression text '{run}'")))
    };
    for (i, c) in psi.char_indices() {
        match (is_re(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if let Some(hit) = flush(s, i) {
                    return Some(hit);
                }
                start = None;
            }
            _ => {}
        }
    }
    start.and_then(|s| flush(s, psi.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{SyntaxKind, parse};

    fn phi(s: &str, k: SyntaxKind) -> Expr {
        parse(s, k).expect("parses")
    }

    #[test]
    fn flags_copies_and_spares_prose() {
        let f = phi("(p1 ∧ ¬p2) ∨ pred1(p3)", SyntaxKind::Fol);
        assert!(
            copy_check(
                "Either p1 holds and p2 does not, or pred1 holds for p3.",
                &f
            )
            .is_none()
        );
        let (s, e, why) = copy_check("It says p1 ∧ not p2", &f).expect("copied");
        assert_eq!(&"It says p1 ∧ not p2"[s..e], "∧");
        assert!(why.contains("operator"));
        assert!(
            copy_check("so pred1(p3) holds", &f)
                .expect("call")
                .2
                .contains("predicate-call")
        );
        assert!(
            copy_check("true when (p1 and not p2) is", &f)
                .expect("text")
                .2
                .contains("formula text")
        );
        let r = phi("(01)*0", SyntaxKind::Regex);
        assert!(copy_check("Repeat 0 then 1 any number of times, then a 0.", &r).is_none());
        assert!(
            copy_check("It matches (01)*0 exactly", &r)
                .expect("regex")
                .2
                .contains("(01)*0")
        );
    }
}
