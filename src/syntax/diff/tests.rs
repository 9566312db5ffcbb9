use super::*;
use crate::syntax::{SyntaxKind, parse};

fn named(a: &str, b: &str) -> Vec<String> {
    let k = if a.contains('*') || a.contains('|') {
        SyntaxKind::Regex
    } else {
        SyntaxKind::Fol
    };
    let lines = diff(&parse(a, k).unwrap(), &parse(b, k).unwrap());
    changes(&lines).into_iter().map(|c| c.text).collect()
}

fn d(a: &str, b: &str) -> Vec<&'static str> {
    let k = if a.contains('*') || a.contains('|') {
        SyntaxKind::Regex
    } else {
        SyntaxKind::Fol
    };
    summary(&diff(&parse(a, k).unwrap(), &parse(b, k).unwrap()))
}

#[test]
fn meaning_preserving_rewrites_show_no_change() {
    for (a, b) in [
        ("p ∧ q", "q ∧ p"),
        ("(p1 ∧ p2) ∧ p3", "p3 ∧ (p2 ∧ p1)"),
        ("¬¬p1 ∨ p2", "p2 ∨ p1"),
        ("∀x1.∃x2.R(x1,x2)", "∀y.∃z.R(y,z)"),
        (
            "∃x1.(¬study(x1) ∨ (fade(tim) ∧ ¬shiver(amos)))",
            "∃y.((¬shiver(amos) ∧ fade(tim)) ∨ ¬study(y))",
        ),
        ("p1 ⊕ (p2 ⊕ p3)", "(p3 ⊕ p1) ⊕ p2"),
        ("0|1*", "1*|0"),
    ] {
        assert!(named(a, b).is_empty(), "{a} vs {b}: {:?}", named(a, b));
    }
}

#[test]
fn names_each_change_where_it_happens() {
    // fol-english-qwen-1.5b #7: commuted operands, one dropped ¬.
    assert_eq!(
        named(
            "∃x1.(¬study(x1) ∨ (¬shiver(amos) ∧ fade(tim)))",
            "∃x1.((shiver(amos) ∧ fade(tim)) ∨ ¬study(x1))"
        ),
        ["negation removed on shiver(amos)"]
    );
    // The viewer's first screen: a disjunct dropped and the negation widened.
    assert_eq!(
        named(
            "fade(quentin) ∨ ¬warn(amos,nadia) ∨ dream(pearl)",
            "¬(warn(amos,nadia) ∨ dream(pearl))"
        ),
        [
            "negation widened from ¬warn(amos,nadia) to ¬(warn(amos,nadia) ∨ dream(pearl))",
            "operand dropped: fade(quentin)"
        ]
    );
    // Flattening hides a swap: one ∧ → ∨, not one operand dropped and two added.
    assert_eq!(
        named("p1 ∨ (p2 ∧ p3) ∨ p4", "p1 ∨ p2 ∨ p3 ∨ p4"),
        ["∧ → ∨ on p2 ∧ p3"]
    );
    assert_eq!(
        named("p1 ∨ p2 ∨ p3 ∨ p4", "p4 ∨ (p3 ∧ p2) ∨ p1"),
        ["∨ → ∧ grouping p3 ∧ p2"]
    );
    assert_eq!(
        named("p1 ∨ (p2 ∧ p3)", "p1 ∧ p2 ∧ p3"),
        ["∨ → ∧ on p1 ∨ (p2 ∧ p3)"]
    );
    // A negation around part of a chain that flattening merged into its parent.
    assert_eq!(
        named("p1 ∨ (p2 ∨ p3) ∨ p4", "p1 ∨ ¬(p3 ∨ p2) ∨ p4"),
        ["negation added on p3 ∨ p2"]
    );
    assert_eq!(named("p1 ∧ p2", "p1 ∧ p3"), ["symbol renamed p2 → p3"]);
    assert_eq!(
        named("warn(amos) ∧ p1", "p1 ∧ alert(amos)"),
        ["symbol renamed warn → alert"]
    );
    assert_eq!(named("p1 ∧ p4 ∧ p2", "p2 ∧ p1"), ["operand dropped: p4"]);
    assert_eq!(named("p1", "p1 ∨ p2"), ["operand added: p2"]);
    assert_eq!(named("∀x1.∃x2.R(x1,x2)", "∀y.∀z.R(y,z)"), ["∃x2 → ∀z"]);
    assert_eq!(
        named("∀x1.(P(x1) ∧ Q(amos))", "∀y.(Q(y) ∧ P(y))"),
        ["constant → variable: amos → y in Q(amos)"]
    );
    assert_eq!(named("0*1", "01"), ["star removed on 0"]);
    assert_eq!(named("0*1", "0*1*"), ["star added on 1"]);
    assert_eq!(
        named("p1 → p2", "p2 → p1"),
        ["operands of → swapped: p1 → p2 → p2 → p1"]
    );
}

#[test]
fn summary_lists_distinct_kinds() {
    assert!(d("p ∧ q", "p ∧ q").is_empty());
    assert_eq!(d("p ∧ q", "p ∨ q"), ["∧/∨ swapped"]);
    assert_eq!(
        d("¬p ∧ q", "p ∧ ¬q"),
        ["negation removed", "negation added"]
    );
    assert_eq!(d("p ∧ q", "¬(p ∧ q)"), ["negation added"]);
    assert_eq!(d("∀x.∃y.R(x,y)", "∃x.∃y.R(x,y)"), ["quantifier changed"]);
    assert_eq!(d("∀x.(P(x) ∧ Q)", "(∀x.P(x)) ∧ Q"), ["scope changed"]);
    assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(c1, x1)"), ["arguments changed"]);
    assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(x1)"), ["arguments changed"]);
    assert_eq!(d("∀x1.P(x1, c1)", "∀x1.P(x1, c2)"), ["symbol changed"]);
    assert_eq!(
        d("∀x1.∀x2.P(x1, x2)", "∀x2.P(x1, x2)"),
        ["quantifier dropped"]
    );
}
