//! The copy check: an informalization that reproduces the formula makes the round trip trivial.
//!
//! The rule (calibrated on real replies of instruction-tuned models): naming an atom
//! the way the prompt asks (`pred2(x1, p12)`, `p3`) is not a copy; writing formula
//! notation is. ψ is `copied` when it contains, in order of checking:
//! 1. a logic operator symbol (`¬ ∧ ∨ → ↔ ⊕ ∀ ∃ ⇒ ⇔`, ASCII `->`, `<->`, `=>`, `<=>`,
//!    `&`, `|`, `~`) or a LaTeX operator command (`\land`, `\lor`, `\neg`, `\to`,
//!    `\forall`, …);
//! 2. for regexes, a run of three or more non-space characters made of φ's symbols and
//!    regex operators (`* + ? | ( )`) that contains an operator, such as `0*1` or `(01)*`;
//! 3. for regexes, ψ that is nothing but the regex (or any string of its symbols and
//!    operators), with or without surrounding quotes, backticks and punctuation: `001.`.
//!
//! English operator words (`p1 and not p2`) are a description, not a copy.

use crate::syntax::{Expr, Formula};

/// The offending byte span of ψ and a description, if ψ copies φ.
pub fn copy_check(psi: &str, phi: &Expr) -> Option<(usize, usize, String)> {
    match phi {
        Expr::Logic(f) => logic(psi, f),
        Expr::Regex(r) => regex(psi, &r.alphabet()),
    }
}

const LATEX_OPS: [&str; 16] = [
    "\\land",
    "\\lor",
    "\\neg",
    "\\lnot",
    "\\wedge",
    "\\vee",
    "\\to",
    "\\rightarrow",
    "\\leftrightarrow",
    "\\iff",
    "\\implies",
    "\\oplus",
    "\\forall",
    "\\exists",
    "\\Rightarrow",
    "\\Leftrightarrow",
];

fn logic(psi: &str, _f: &Formula) -> Option<(usize, usize, String)> {
    for (i, c) in psi.char_indices() {
        if "¬∧∨→↔⊕∀∃⇒⇔".contains(c) {
            return Some((i, i + c.len_utf8(), format!("operator symbol '{c}'")));
        }
    }
    for pat in ["<->", "<=>", "->", "=>", "&", "|", "~"] {
        if let Some(i) = psi.find(pat) {
            return Some((i, i + pat.len(), format!("operator symbol '{pat}'")));
        }
    }
    for pat in LATEX_OPS {
        let mut from = 0;
        while let Some(k) = psi[from..].find(pat) {
            let i = from + k;
            let end = i + pat.len();
            // `\to` must not match the start of `\top`.
            if !psi[end..].starts_with(|c: char| c.is_ascii_alphabetic()) {
                return Some((i, end, format!("LaTeX operator '{pat}'")));
            }
            from = end;
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
    if let Some(hit) = start.and_then(|s| flush(s, psi.len())) {
        return Some(hit);
    }
    literal_regex(psi, &is_re)
}

/// ψ that is only regex text, once quotes, backticks, `$` and punctuation around it go.
fn literal_regex(psi: &str, is_re: &impl Fn(char) -> bool) -> Option<(usize, usize, String)> {
    let wrap = |c: char| c.is_whitespace() || "`'\"“”‘’$.,;:!".contains(c);
    let core = psi.trim_matches(wrap);
    if core.is_empty() || !core.chars().all(|c| is_re(c) || c == 'ε') {
        return None;
    }
    let start = core.as_ptr() as usize - psi.as_ptr() as usize;
    Some((
        start,
        start + core.len(),
        format!("ψ is the regular expression itself: '{core}'"),
    ))
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
        // Naming an atom as the prompt asks is not a copy; English operator words aren't either.
        assert!(copy_check("so pred1(p3) holds", &f).is_none());
        assert!(copy_check("true when (p1 and not p2) is", &f).is_none());
        assert!(copy_check("p1 \\land p2", &f).is_some());
        assert!(copy_check("the \\top element", &f).is_none());
        let r = phi("(01)*0", SyntaxKind::Regex);
        assert!(copy_check("Repeat 0 then 1 any number of times, then a 0.", &r).is_none());
        assert!(
            copy_check("It matches (01)*0 exactly", &r)
                .expect("regex")
                .2
                .contains("(01)*0")
        );
        let lit = phi("001", SyntaxKind::Regex);
        for psi in ["001.", "`001`", " \"001\" ", "001"] {
            let (s, e, why) = copy_check(psi, &lit).expect("literal copy");
            assert_eq!(&psi[s..e], "001", "{psi}");
            assert!(why.contains("itself"));
        }
        assert!(copy_check("Exactly the string 001.", &lit).is_none());
    }
}
