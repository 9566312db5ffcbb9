use super::*;

#[test]
fn parses_rules_and_continuations() {
    let g = Cfg::parse("# pl\nS -> ( S and S ) | not $prop\n  | $prop\n").expect("grammar");
    assert_eq!(g.nonterminals, vec!["S"]);
    assert_eq!(g.productions.len(), 3);
    assert_eq!(g.metric, Metric::Operators);
    assert_eq!(g.literals, vec!["(", "and", ")", "not"]);
}

#[test]
fn quoted_and_empty() {
    let g = Cfg::parse("@syntax regex\nS -> S '|' S | $sym K\nK -> '*' | ε").expect("grammar");
    assert!(g.literals.contains(&"|".to_string()));
    assert!(g.productions.iter().any(|p| p.rhs.is_empty()));
    assert_eq!(g.metric, Metric::Depth);
}

#[test]
fn errors_have_line_and_column() {
    let e = Cfg::parse("S -> $prop\nT => x").unwrap_err();
    assert_eq!((e.line, e.col), (2, 3));
    let e = Cfg::parse("S -> $bogus").unwrap_err();
    assert_eq!((e.line, e.col), (1, 6));
    let e = Cfg::parse("S -> 'open").unwrap_err();
    assert_eq!((e.line, e.col), (1, 6));
    let e = Cfg::parse("@start T\nS -> $prop").unwrap_err();
    assert_eq!((e.line, e.col), (1, 8));
    let e = Cfg::parse("S -> ( S and S )").unwrap_err();
    assert!(e.msg.contains("no terminating derivation"), "{e}");
    assert!(
        Cfg::parse("# only a comment")
            .unwrap_err()
            .msg
            .contains("no rules")
    );
}
