//! Reading a candidate's names against the prompt's vocabulary.
//!
//! - A name that is not in the vocabulary but matches exactly one of its symbols up to
//!   case is read as that symbol (`Dream` → `dream`), with the note
//!   `recased: Dream→dream`. Names stay case-sensitive otherwise: with `dream` and
//!   `Dream` both listed, `DREAM` is left as written.
//! - `T` and `F` as propositions are the constants ⊤ and ⊥ unless the vocabulary
//!   lists them (or a symbol equal to them up to case).

use super::Expr;
use super::logic::{Formula, Name, Term};

/// The prefix of the note that lists recased names.
pub(crate) const RECASED_PREFIX: &str = "recased:";

/// Whether `name` is in `vocabulary`, ignoring case (the off-format vocabulary test).
pub(crate) fn in_vocabulary(name: &str, vocabulary: &[String]) -> bool {
    vocabulary
        .iter()
        .any(|v| v == name || v.to_lowercase() == name.to_lowercase())
}

/// The vocabulary symbol `name` stands for: itself when listed, else the one symbol
/// equal to it up to case, else `None` (unknown or ambiguous).
fn resolve<'v>(name: &str, vocabulary: &'v [String]) -> Option<&'v str> {
    if let Some(v) = vocabulary.iter().find(|v| *v == name) {
        return Some(v);
    }
    let lower = name.to_lowercase();
    let mut hits = vocabulary.iter().filter(|v| v.to_lowercase() == lower);
    match (hits.next(), hits.next()) {
        (Some(v), None) => Some(v),
        _ => None,
    }
}

struct Pass<'v> {
    vocabulary: &'v [String],
    recased: Vec<(String, String)>,
    constants: Vec<String>,
}

impl Pass<'_> {
    fn name(&mut self, n: &Name) -> Name {
        match resolve(n, self.vocabulary) {
            Some(v) if v != n.as_str() => {
                if !self.recased.iter().any(|(a, _)| a == n.as_str()) {
                    self.recased.push((n.to_string(), v.to_string()));
                }
                Name::from(v)
            }
            _ => n.clone(),
        }
    }

    fn formula(&mut self, f: &Formula) -> Formula {
        match f {
            Formula::Bool(_) => f.clone(),
            Formula::Prop(p) => {
                if (p == "T" || p == "F") && resolve(p, self.vocabulary).is_none() {
                    if !self.constants.iter().any(|c| c == p.as_str()) {
                        self.constants.push(p.to_string());
                    }
                    return Formula::Bool(p == "T");
                }
                Formula::Prop(self.name(p))
            }
            Formula::Pred(p, args) => {
                let p = self.name(p);
                let args = args
                    .iter()
                    .map(|t| match t {
                        Term::Const(c) => Term::Const(self.name(c)),
                        Term::Var(_) => t.clone(),
                    })
                    .collect();
                Formula::Pred(p, args)
            }
            Formula::Not(a) => Formula::negate(self.formula(a)),
            Formula::Bin(op, a, b) => {
                let a = self.formula(a);
                Formula::bin(*op, a, self.formula(b))
            }
            Formula::Quant(q, v, body) => Formula::quant(*q, v.clone(), self.formula(body)),
        }
    }
}

/// `f` read against `vocabulary` (see the module), with the notes that say what changed.
/// An empty vocabulary recases nothing (and reads `T`, `F` as constants).
pub(crate) fn read_formula(f: &Formula, vocabulary: &[String]) -> (Formula, Vec<String>) {
    let mut pass = Pass {
        vocabulary,
        recased: Vec::new(),
        constants: Vec::new(),
    };
    let out = pass.formula(f);
    let mut notes = Vec::new();
    if !pass.recased.is_empty() {
        let list: Vec<String> = pass
            .recased
            .iter()
            .map(|(a, b)| format!("{a}→{b}"))
            .collect();
        notes.push(format!("{RECASED_PREFIX} {}", list.join(", ")));
    }
    for c in &pass.constants {
        notes.push(format!(
            "{c} read as {} (not in the vocabulary)",
            if c == "T" { "⊤" } else { "⊥" }
        ));
    }
    (out, notes)
}

/// [`read_formula`] for either syntax (regex symbols are left as they are).
pub(crate) fn read_expr(e: Expr, vocabulary: &[String]) -> (Expr, Vec<String>) {
    match e {
        Expr::Logic(f) => {
            let (g, notes) = read_formula(&f, vocabulary);
            (Expr::Logic(g), notes)
        }
        r @ Expr::Regex(_) => (r, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Notation, parse_formula, print_formula};

    fn read(src: &str, vocab: &[&str]) -> (String, Vec<String>) {
        let vocab: Vec<String> = vocab.iter().map(|s| (*s).to_string()).collect();
        let (f, notes) = read_formula(&parse_formula(src).expect("parses"), &vocab);
        (print_formula(&f, Notation::Unicode), notes)
    }

    #[test]
    fn recases_only_unambiguous_names() {
        let (f, notes) = read("Dream(Luke) ∨ ¬Dream(x1)", &["dream", "luke"]);
        assert_eq!(f, "dream(luke) ∨ ¬dream(x1)");
        assert_eq!(notes, vec!["recased: Dream→dream, Luke→luke"]);
        let (f, notes) = read("DREAM(luke)", &["dream", "Dream", "luke"]);
        assert_eq!(f, "DREAM(luke)");
        assert!(notes.is_empty());
        let (f, _) = read("Dream(luke)", &["dream", "Dream", "luke"]);
        assert_eq!(f, "Dream(luke)");
    }

    #[test]
    fn t_and_f_are_constants_unless_listed() {
        assert_eq!(read("p2 ∧ T", &["p2"]).0, "p2 ∧ ⊤");
        assert_eq!(read("F ∨ p2", &["p2"]).0, "⊥ ∨ p2");
        assert_eq!(read("p2 ∧ T", &["p2", "T"]).0, "p2 ∧ T");
        assert_eq!(read("T(x) ∧ p2", &["p2"]).0, "T(x) ∧ p2");
    }

    #[test]
    fn vocabulary_test_ignores_case() {
        let v = vec!["dream".to_string()];
        assert!(in_vocabulary("Dream", &v));
        assert!(!in_vocabulary("sleep", &v));
    }
}
