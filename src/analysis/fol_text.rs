//! The paper's text front end (AlignmentFOL `fol_parser.py`): the `msplit` tokeniser and
//! quantifier hoisting, ported character for character so that FOLIO strings tokenise and
//! parse exactly as the paper's code sees them.

/// The characters `msplit` puts spaces around, in the order it does so.
const SPACED: [char; 12] = ['⊕', '∨', '∧', '→', '↔', '∀', '∃', '¬', '(', ')', ',', '='];

/// Characters a symbol may not start with (`sym_reg = [^⊕∨∧→↔∀∃¬(),>&=]+`, matched at the start).
const NOT_SYMBOL_START: [char; 13] = [
    '⊕', '∨', '∧', '→', '↔', '∀', '∃', '¬', '(', ')', ',', '>', '&',
];

/// Python's `str.isspace`, which `str.split()` splits on (Rust's set lacks U+001C–U+001F).
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Whether `sym_reg.match(tok)` succeeds: the first character may start a symbol.
pub(crate) fn starts_symbol(tok: &str) -> bool {
    tok.chars()
        .next()
        .is_some_and(|c| !NOT_SYMBOL_START.contains(&c) && c != '=')
}

/// `msplit(s)[0]`: the paper's FOL token list (operators split off, `'` deleted, runs of
/// multi-character symbols capitalised and joined, `dc universe` → `DcUniverse`).
pub(crate) fn msplit(s: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if SPACED.contains(&c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    let raw = spaced
        .split(py_space)
        .filter(|t| !t.is_empty())
        .map(|t| t.replace('\'', ""))
        .filter(|t| !t.is_empty());
    let mut out = Vec::new();
    let mut run = String::new();
    let mut in_run = false;
    for e in raw {
        if e.chars().count() > 1 && starts_symbol(&e) {
            let mut cs = e.chars();
            if let Some(first) = cs.next() {
                // Python's `str.upper` of one character; Rust's agrees on the cases FOLIO has.
                run.extend(first.to_uppercase());
                run.push_str(cs.as_str());
            }
            in_run = true;
        } else {
            if in_run {
                out.push(std::mem::take(&mut run));
                in_run = false;
            }
            out.push(e);
        }
    }
    if in_run {
        out.push(run);
    }
    out
}

/// Python's `\w` for one character (Unicode word characters).
fn py_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `reorder_quantifiers`: every `[∃∀]\w` match, last first, is deleted once (its first
/// occurrence, which may be another copy) and put at the front followed by a space.
pub(crate) fn reorder_quantifiers(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut matches: Vec<String> = Vec::new();
    let mut i = 0;
    while i + 1 < chars.len() {
        if (chars[i] == '∀' || chars[i] == '∃') && py_word(chars[i + 1]) {
            matches.push([chars[i], chars[i + 1]].iter().collect());
            i += 2;
        } else {
            i += 1;
        }
    }
    let mut out = s.to_string();
    for m in matches.iter().rev() {
        out = format!("{m} {}", out.replacen(m.as_str(), "", 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msplit_matches_the_papers_examples() {
        assert_eq!(
            msplit("∀x (DrinkRegularly(x, coffee) → IsDependentOn(x, caffeine))"),
            [
                "∀",
                "x",
                "(",
                "DrinkRegularly",
                "(",
                "x",
                ",",
                "Coffee",
                ")",
                "→",
                "IsDependentOn",
                "(",
                "x",
                ",",
                "Caffeine",
                ")",
                ")"
            ]
        );
        assert_eq!(
            msplit("Fan(dc universe, x1)"),
            ["Fan", "(", "DcUniverse", ",", "X1", ")"]
        );
        assert_eq!(
            msplit("Year(l-2021) ∧ x1.p"),
            ["Year", "(", "L-2021", ")", "∧", "X1.p"]
        );
        assert_eq!(msplit("Is(x, 'a')"), ["Is", "(", "x", ",", "a", ")"]);
    }

    #[test]
    fn hoisting_moves_quantifiers_to_the_front() {
        assert_eq!(reorder_quantifiers("¬∃x (P(x))"), "∃x ¬ (P(x))");
        assert_eq!(reorder_quantifiers("∀x ∃y R(x,y)"), "∀x ∃y   R(x,y)");
        // Two copies of `∀x`: the second deletion removes the hoisted copy, as in Python.
        assert_eq!(
            reorder_quantifiers("∀x A(x) ∧ ∀x B(x)"),
            "∀x   A(x) ∧ ∀x B(x)"
        );
    }
}
