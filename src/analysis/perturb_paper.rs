//! The paper's seven perturbations of a raw FOLIO string (AlignmentFOL
//! `notebooks/get_perturbations.ipynb`), rule for rule. Where the notebook iterates a
//! Python `set` (Operator, Variable), the order here is first occurrence: the notebook's
//! order depends on the hash seed.

use regex::Regex;
use std::sync::LazyLock;

/// The paper's perturbations (Table 1/2 rows), identity first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PaperPerturbation {
    /// Identity (the "Match" row).
    Match,
    /// Every ∀ → ∃ if any ∀, else every ∃ → ∀.
    Quantifier,
    /// Atoms negated, existing negations dropped.
    Negation,
    /// ∧ ↔ ∨.
    AndOr,
    /// ⊕ ↔ ∨.
    OrXor,
    /// The distinct atoms, arguments renamed, joined by ∨.
    Operator,
    /// `¬Name(` → `NotName(`.
    Predicate,
    /// Every identifier except `x`, `y` → `A`, `B`, ….
    Variable,
}

impl PaperPerturbation {
    /// All, in the paper's table order.
    pub const ALL: [PaperPerturbation; 8] = [
        Self::Match,
        Self::Quantifier,
        Self::Negation,
        Self::AndOr,
        Self::OrXor,
        Self::Operator,
        Self::Predicate,
        Self::Variable,
    ];

    /// The row name as the paper prints it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Match => "Match",
            Self::Quantifier => "Quantifier",
            Self::Negation => "Negation",
            Self::AndOr => "AndOr",
            Self::OrXor => "OrXor",
            Self::Operator => "Operator",
            Self::Predicate => "Predicate",
            Self::Variable => "Variable",
        }
    }
}

fn re(p: &str) -> Regex {
    // The patterns are constants, checked by the tests below.
    Regex::new(p).unwrap_or_else(|_| Regex::new("$^").unwrap_or_else(|_| unreachable!()))
}

static ATOM: LazyLock<Regex> = LazyLock::new(|| re(r"\b[A-Za-z][A-Za-z0-9]*\([^()]*\)"));
static NEG_PRED: LazyLock<Regex> = LazyLock::new(|| re(r"¬\b[A-Za-z][A-Za-z0-9]*\("));
static IDENT: LazyLock<Regex> = LazyLock::new(|| re(r"\b[a-zA-Z_]\w*\b"));

fn swap(s: &str, a: &str, b: &str) -> String {
    if s.contains(a) && s.contains(b) {
        s.replace(a, ";").replace(b, a).replace(';', b)
    } else if s.contains(a) {
        s.replace(a, b)
    } else if s.contains(b) {
        s.replace(b, a)
    } else {
        s.to_string()
    }
}

/// Applies one perturbation; `Err` when the notebook raises (Variable with > 26 names).
pub fn apply(p: PaperPerturbation, s: &str) -> Result<String, String> {
    Ok(match p {
        PaperPerturbation::Match => s.to_string(),
        PaperPerturbation::Quantifier => {
            if s.contains('∀') {
                s.replace('∀', "∃")
            } else {
                s.replace('∃', "∀")
            }
        }
        PaperPerturbation::Negation => {
            let t = s.replace('¬', "!");
            let t = ATOM.replace_all(&t, "¬$0");
            t.replace("!¬", "").replace("!(¬", "(").replace('!', "")
        }
        PaperPerturbation::AndOr => swap(s, "∧", "∨"),
        PaperPerturbation::OrXor => swap(s, "⊕", "∨"),
        PaperPerturbation::Operator => {
            let mut seen: Vec<String> = Vec::new();
            for m in ATOM.find_iter(s) {
                let text = m.as_str();
                let inner = text.rsplit('(').next().unwrap_or("");
                let inner = inner.split(')').next().unwrap_or("");
                let n = inner.split(',').count();
                let base = if n > 3 { 110u32 } else { 120 };
                let args: Vec<String> = (0..n as u32)
                    .map(|i| char::from_u32(base + i).map_or_else(String::new, |c| c.to_string()))
                    .collect();
                let name = text.split('(').next().unwrap_or("");
                let g = format!("{name}({})", args.join(", "));
                if !seen.contains(&g) {
                    seen.push(g);
                }
            }
            if seen.is_empty() {
                s.to_string()
            } else {
                seen.join("∨ ")
            }
        }
        PaperPerturbation::Predicate => NEG_PRED
            .replace_all(s, |c: &regex::Captures| {
                format!("Not{}", &c[0]['¬'.len_utf8()..])
            })
            .into_owned(),
        PaperPerturbation::Variable => {
            let mut names: Vec<&str> = Vec::new();
            for m in IDENT.find_iter(s) {
                let t = m.as_str();
                if t != "x" && t != "y" && !names.contains(&t) {
                    names.push(t);
                }
            }
            if names.len() > 26 {
                return Err(format!(
                    "{} identifiers: the notebook raises above 26",
                    names.len()
                ));
            }
            IDENT
                .replace_all(s, |c: &regex::Captures| {
                    names.iter().position(|n| *n == &c[0]).map_or_else(
                        || c[0].to_string(),
                        |i| char::from(b'A' + i as u8).to_string(),
                    )
                })
                .into_owned()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaperPerturbation as P;

    #[test]
    fn rules_match_the_notebook() {
        let s = "∀x (Drinks(x) → ¬Dependent(x, caffeine))";
        assert_eq!(
            apply(P::Quantifier, s).unwrap(),
            "∃x (Drinks(x) → ¬Dependent(x, caffeine))"
        );
        assert_eq!(
            apply(P::Negation, s).unwrap(),
            "∀x (¬Drinks(x) → Dependent(x, caffeine))"
        );
        assert_eq!(
            apply(P::Negation, "¬(A(x) ∧ B(x))").unwrap(),
            "(A(x) ∧ ¬B(x))"
        );
        assert_eq!(
            apply(P::AndOr, "A(x) ∧ B(x) ∨ C(x)").unwrap(),
            "A(x) ∨ B(x) ∧ C(x)"
        );
        assert_eq!(apply(P::OrXor, "A(x) ⊕ B(x)").unwrap(), "A(x) ∨ B(x)");
        assert_eq!(apply(P::Operator, s).unwrap(), "Drinks(x)∨ Dependent(x, y)");
        assert_eq!(
            apply(P::Predicate, s).unwrap(),
            "∀x (Drinks(x) → NotDependent(x, caffeine))"
        );
        assert_eq!(apply(P::Variable, s).unwrap(), "∀x (A(x) → ¬B(x, C))");
        assert_eq!(apply(P::Operator, "p ∧ q").unwrap(), "p ∧ q");
        let many: Vec<String> = (0..27).map(|i| format!("P{i}(a)")).collect();
        assert!(apply(P::Variable, &many.join(" ∧ ")).is_err());
    }
}
