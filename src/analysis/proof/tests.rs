use super::*;
use crate::syntax::{SyntaxKind, parse};

fn ex(a: &str, b: &str, s: SyntaxKind) -> Explanation {
    let (a, b) = (parse(a, s).unwrap(), parse(b, s).unwrap());
    let v = verify::verify(&a, &b, &Options::default());
    explain(&a, &b, v.is_equivalent(), &Options::default())
}

fn ids(e: &Explanation) -> Vec<&'static str> {
    e.changes.iter().map(|c| c.change.id()).collect()
}

#[test]
fn a_mutation_behind_de_morgan_is_named_alone() {
    use SyntaxKind::Pl;
    // p1 ∧ (p2 ∨ p3) with ∨ → ∧, then ¬(¬p1 ∨ ¬(p2 ∧ p3)) written for the conjunction.
    let e = ex("p1 ∧ (p2 ∨ p3)", "¬(¬p1 ∨ ¬(p2 ∧ p3))", Pl);
    assert!(e.proved, "{e:?}");
    assert_eq!(ids(&e), ["and-or-swapped"], "{e:?}");
    let e = ex("(p1 → p2) ∧ p3", "(¬p1 ∨ p2) ∧ ¬p3", Pl);
    assert_eq!(ids(&e), ["negation-added"], "{e:?}");
    assert_eq!(e.changes[0].text, "negation added on p3");
}

#[test]
fn equivalent_pairs_list_no_change_but_name_the_rewrite() {
    let e = ex("¬(p1 ∧ p2)", "¬p1 ∨ ¬p2", SyntaxKind::Pl);
    assert!(e.changes.is_empty());
    assert!(e.proved);
    assert!(!e.rewrites.is_empty(), "{e:?}");
}

#[test]
fn naming_cases_of_the_issue() {
    use SyntaxKind::{Fol, Pl, Regex};
    let e = ex("∀x1.∃x2.pred1(x1,x2)", "∃x2.∀x1.pred1(x1,x2)", Fol);
    assert_eq!(ids(&e), ["scope-changed"], "{e:?}");
    assert!(e.changes[0].text.contains("reordered"), "{e:?}");
    let e = ex("(01)*", "(01){2}", Regex);
    assert_eq!(ids(&e), ["repetition-changed"], "{e:?}");
    assert_eq!(e.changes[0].text, "repetition changed: (01)* → (01){2}");
    let e = ex("(01){2,3}", "(01){2,4}", Regex);
    assert_eq!(ids(&e), ["repetition-changed"], "{e:?}");
    let e = ex("0(10)*", "0(10*)", Regex);
    assert!(e.proved, "{e:?}");
    assert!(
        e.changes.iter().all(|c| matches!(
            c.change,
            Change::StarAdded | Change::StarRemoved | Change::RepeatChanged
        )),
        "{e:?}"
    );
    let e = ex("p1→(p2→p3)", "(p1→p2)→p3", Pl);
    assert_eq!(ids(&e), ["scope-changed"], "{e:?}");
}

#[test]
fn unexplained_pairs_fall_back_to_the_structural_diff() {
    let e = ex("p1 ∧ p2", "(p3 ↔ p4) ⊕ (p5 → ¬p6)", SyntaxKind::Pl);
    assert!(!e.proved);
    assert!(!e.changes.is_empty());
}
