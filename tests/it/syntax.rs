//! Parser, printer and metric behaviour across all notations.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::syntax::*;
use proptest::prelude::*;

fn uni(src: &str) -> String {
    match parse_formula(src) {
        Ok(f) => print_formula(&f, Notation::Unicode),
        Err(e) => panic!("{src:?} failed: {e}"),
    }
}

#[test]
fn every_notation_parses_to_the_same_tree() {
    let want = "(¬p1 ∧ (p2 ∨ p3)) → p4";
    for src in [
        "¬p1 ∧ (p2 ∨ p3) → p4",
        "~p1 & (p2 | p3) -> p4",
        "!p1 && (p2 || p3) => p4",
        "-p1 & (p2 | p3) -> p4",
        "not p1 and (p2 or p3) implies p4",
        "NOT p1 AND (p2 OR p3) -> p4",
        "\\neg p1 \\land (p2 \\lor p3) \\to p4",
        "\\lnot p1 \\wedge (p2 \\vee p3) \\rightarrow p4",
        "¬p1 ∧ (p2 v p3) → p4",
        "((¬p1) ∧ ((p2 ∨ p3))) → (p4)",
    ] {
        assert_eq!(uni(src), want, "notation {src:?}");
    }
    // Brackets are not parentheses in any notation we read: `[VOCABULARY]` is a
    // prompt header, never a proposition.
    for src in ["[¬p1 ∧ [p2 ∨ p3]] → p4", "[VOCABULARY]"] {
        let e = parse_formula(src).expect_err("brackets refused");
        assert!(e.reason.contains("'['"), "{src}: {}", e.reason);
    }
    assert_eq!(uni("p1 <-> p2 ^ p3"), "p1 ↔ (p2 ⊕ p3)");
    assert_eq!(uni("p1 \\leftrightarrow p2 \\oplus p3"), "p1 ↔ (p2 ⊕ p3)");
    assert_eq!(uni("p1 xor p2 iff p3"), "(p1 ⊕ p2) ↔ p3");
}

#[test]
fn quantifier_forms() {
    let want = "∀x1.∃x2.pred1(x1,x2)";
    for src in [
        "∀x1.∃x2.pred1(x1,x2)",
        "∀ x1.∃ x2.pred1(x1,x2)",
        "all x1.exists x2.pred1(x1,x2)",
        "forall x1. exists x2. pred1(x1, x2)",
        "\\forall x1 \\exists x2 pred1(x1,x2)",
        "∀x1 ∃x2 (pred1(x1,x2))",
        "∀x1: ∃x2: pred1(x1,x2)",
    ] {
        assert_eq!(uni(src), want, "{src:?}");
    }
    // One binder over several variables is sugar for nested binders.
    assert_eq!(uni("∀ x1 x2. pred1(x1,x2)"), "∀x1.∀x2.pred1(x1,x2)");
    assert_eq!(uni("all x1 x2.pred1(x1,x2)"), "∀x1.∀x2.pred1(x1,x2)");
    assert_eq!(uni("exists x1, x2. p(x1,x2)"), "∃x1.∃x2.p(x1,x2)");
    // Maximal scope, as in NLTK.
    assert_eq!(uni("∀x.P(x) ∧ Q(x)"), "∀x.(P(x) ∧ Q(x))");
    assert_eq!(uni("(∀x.P(x)) ∧ Q(a)"), "(∀x.P(x)) ∧ Q(a)");
}

#[test]
fn v_is_disjunction_only_as_a_standalone_token() {
    assert_eq!(uni("give(vera) v love(vince)"), "give(vera) ∨ love(vince)");
    assert_eq!(uni("(p1 v p2)v p3"), "p1 ∨ p2 ∨ p3");
    assert_eq!(uni("visit(eva,vlad)"), "visit(eva,vlad)");
    assert_eq!(uni("value v vote"), "value ∨ vote");
    let f = parse_formula("give(vera)").unwrap();
    assert_eq!(
        f,
        Formula::Pred("give".into(), vec![Term::Const("vera".into())])
    );
}

#[test]
fn terms_are_variables_when_bound_or_named_like_one() {
    let f = parse_formula("∀p9.P(p9, x, bob)").unwrap();
    let Formula::Quant(_, _, body) = f else {
        panic!()
    };
    assert_eq!(
        *body,
        Formula::Pred(
            "P".into(),
            vec![
                Term::Var("p9".into()),
                Term::Var("x".into()),
                Term::Const("bob".into())
            ]
        )
    );
}

#[test]
fn original_form_matches_the_old_datasets() {
    let f = parse_formula("∀ x1.∃ x2.(pred1(x1,p3) v ¬pred2(x2))").unwrap();
    assert_eq!(
        print_formula(&f, Notation::Original),
        "∀ x1.∃ x2.(pred1(x1,p3) v ¬pred2(x2))"
    );
    let g = parse_formula("∀x1.∀x2.P(x1,x2)").unwrap();
    assert_eq!(print_formula(&g, Notation::Original), "∀ x1 x2.P(x1,x2)");
    let k = parse_formula("(p1 v ¬p2 v p3) ∧ (p2 v p3 v p4)").unwrap();
    assert_eq!(
        print_formula(&k, Notation::Original),
        "((p1 v ¬p2 v p3) ∧ (p2 v p3 v p4))"
    );
    assert_eq!(
        print_formula(&k, Notation::Ascii),
        "(p1 | ~p2 | p3) & (p2 | p3 | p4)"
    );
}

#[test]
fn operator_count_follows_the_original_rule() {
    // (formula, hand-worked count)
    for (src, n) in [
        ("p1", 0),
        ("¬p1", 0),  // negated literal
        ("¬¬p1", 1), // outer ¬ is on a non-terminal
        ("(¬p1)", 0),
        ("¬(p1 ∧ p2)", 2),
        ("(p1 ∧ ¬p2) ∨ p3", 2),
        ("(p1 v ¬p2 v p3) ∧ (p2 v p3 v ¬p4)", 5),
        ("∀x1.∃x2.(¬pred1(x1,p3) ∧ pred2(x2))", 1),
        ("¬∀x.P(x)", 1),
        ("p1 → p2 ↔ p3 ⊕ p4", 3),
    ] {
        let f = parse_formula(src).unwrap();
        assert_eq!(operator_count(&f), n, "{src}");
    }
    let m = logic_metrics(&parse_formula("∀x1.(pred1(x1,p3) ∨ ¬p2)").unwrap());
    assert_eq!(
        (m.quantifiers, m.predicates, m.terminals, m.tree_depth),
        (1, 1, 2, 3)
    );
    assert_eq!(m.distinct_symbols, 3);
}

#[test]
fn errors_name_position_and_reason() {
    let e = parse_formula("(p1 ∧ p2) ∨ p3) ∧ p4").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("unbalanced ')' at {}", "(p1 ∧ p2) ∨ p3".len())
    );
    let e = parse_formula("(p1 ∧ p2").unwrap_err();
    assert_eq!((e.pos, e.reason.as_str()), (0, "unclosed '('"));
    let e = parse_formula("p1 ∧").unwrap_err();
    assert!(e.reason.starts_with("expected a formula"), "{e}");
    assert_eq!(e.pos, "p1 ∧".len());
    let e = parse_formula("p1 = p2").unwrap_err();
    assert_eq!(e.to_string(), "unexpected character '=' at 3");
    let e = parse_formula("∀. P(x)").unwrap_err();
    assert!(e.reason.contains("expected a variable"), "{e}");
    let e = parse_formula("P(f(x))").unwrap_err();
    assert!(e.reason.contains("function terms"), "{e}");
    assert_eq!(parse_formula("").unwrap_err().reason, "empty formula");
    let e = parse_regex("(01*").unwrap_err();
    assert_eq!(e.to_string(), "unclosed '(' at 0");
    let e = parse_regex("01)").unwrap_err();
    assert_eq!(e.to_string(), "unbalanced ')' at 2");
    let e = parse_regex("*0").unwrap_err();
    assert_eq!(e.pos, 0);
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let src = format!("{}p1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(
        parse_formula(&src)
            .unwrap_err()
            .reason
            .contains("too deeply")
    );
    let src = format!("{}p1", "¬".repeat(100_000));
    assert!(parse_formula(&src).is_err());
    let src = format!("{}0{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(parse_regex(&src).is_err());
}

#[test]
fn regex_syntax_and_metrics() {
    for (src, want) in [
        ("(0)*1", "0*1"),
        ("((01)*0)*", "((01)*0)*"),
        ("a|b*", "a|b*"),
        ("(a|b)c", "(a|b)c"),
        ("a+b?", "a+b?"),
        ("a()", "aε"),
        ("a|", "a|ε"),
        (" 0 1 ", "01"),
        ("(a*)*", "a**"),
    ] {
        let r = parse_regex(src).unwrap();
        assert_eq!(print_regex(&r, false), want, "{src}");
    }
    // Depth in the dataset grammar: one plus the S-expansions.
    for (src, d) in [
        ("0", 2),
        ("0*", 2),
        ("01", 3),
        ("(01)*", 4),
        ("(0)*1", 3),
        ("((01)*0)*1", 7),
    ] {
        let m = regex_metrics(&parse_regex(src).unwrap());
        assert!(m.in_grammar, "{src}");
        assert_eq!(m.cfg_depth, d, "{src}");
    }
    assert!(!regex_metrics(&parse_regex("a|b").unwrap()).in_grammar);
}

pub(crate) fn formula_strategy() -> impl Strategy<Value = Formula> {
    let atom = prop_oneof![
        (1u8..6).prop_map(|i| Formula::Prop(format!("p{i}").into())),
        any::<bool>().prop_map(Formula::Bool),
        (
            1u8..4,
            prop::collection::vec(
                prop_oneof![Just("a"), Just("bob"), Just("x"), Just("y1")],
                1..3
            )
        )
            .prop_map(|(i, args)| Formula::Pred(
                format!("pred{i}").into(),
                args.into_iter()
                    .map(|a| if a.starts_with(['x', 'y']) {
                        Term::Var(a.into())
                    } else {
                        Term::Const(a.into())
                    })
                    .collect()
            )),
    ];
    atom.prop_recursive(6, 40, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(Formula::negate),
            (0u8..5, inner.clone(), inner.clone()).prop_map(|(o, a, b)| {
                let op = BinOp::ALL[o as usize];
                Formula::bin(op, a, b)
            }),
            (
                any::<bool>(),
                prop_oneof![Just("x"), Just("y1"), Just("z")],
                inner
            )
                .prop_map(|(u, v, b)| {
                    Formula::quant(
                        if u {
                            Quantifier::Forall
                        } else {
                            Quantifier::Exists
                        },
                        v,
                        b,
                    )
                }),
        ]
    })
}

fn regex_strategy() -> impl Strategy<Value = Regex> {
    let leaf = prop_oneof![
        Just(Regex::Epsilon),
        (0u8..3).prop_map(|i| Regex::Sym((b'0' + i) as char))
    ];
    leaf.prop_recursive(5, 30, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Regex::concat),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Regex::alt),
            inner.clone().prop_map(|r| Regex::Star(Box::new(r))),
            inner.clone().prop_map(|r| Regex::Plus(Box::new(r))),
            inner.clone().prop_map(|r| Regex::Opt(Box::new(r))),
            (inner, 0u32..4, prop::option::of(0u32..3)).prop_map(|(r, min, extra)| Regex::Repeat(
                Box::new(r),
                min,
                extra.map(|e| min + e)
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn logic_round_trips_in_every_notation(f in formula_strategy()) {
        for n in [Notation::Unicode, Notation::Ascii, Notation::Original] {
            let text = print_formula(&f, n);
            let back = parse_formula(&text);
            prop_assert_eq!(back.as_ref(), Ok(&f), "{:?}: {}", n, text);
        }
    }

    #[test]
    fn regex_round_trips(r in regex_strategy()) {
        for ascii in [false, true] {
            let text = print_regex(&r, ascii);
            prop_assert_eq!(parse_regex(&text), Ok(r.clone()), "{}", text);
        }
    }

    #[test]
    fn parsers_never_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = parse_formula(&s);
        let _ = parse_regex(&s);
        let _ = extract(&s, SyntaxKind::Fol);
        let _ = extract(&s, SyntaxKind::Regex);
    }

    #[test]
    fn parsers_never_panic_on_formula_like_noise(s in "[()¬∧∨→↔⊕∀∃⊤⊥ .,:a-zA-Z0-9v~&|<>\\-\\\\*+?ε`${}_^]{0,80}") {
        let _ = parse_formula(&s);
        let _ = parse_regex(&s);
        let _ = extract(&s, SyntaxKind::Pl);
    }
}

#[test]
fn parser_corners_bar_v_and_case() {
    // `|` inside an argument list is not the name `v`.
    assert!(parse_formula("P(|)").is_err());
    assert_eq!(
        print_formula(&parse_formula("P(v)").unwrap(), Notation::Unicode),
        "P(v)"
    );
    // `v` can be bound like any variable.
    let f = parse_formula("∀v.P(v)").unwrap();
    assert_eq!(print_formula(&f, Notation::Unicode), "∀v.P(v)");
    assert!(f.free_variables().is_empty());
    assert!(
        parse_formula("∃u v. R(u, v)")
            .unwrap()
            .free_variables()
            .is_empty()
    );
    // Operator words are lower or upper case; `Not` is a name.
    let f = parse_formula("Not(x) ∧ q").unwrap();
    assert_eq!(print_formula(&f, Notation::Unicode), "Not(x) ∧ q");
    assert_eq!(
        print_formula(&parse_formula("NOT p AND q").unwrap(), Notation::Unicode),
        "¬p ∧ q"
    );
    assert_eq!(
        print_formula(&parse_formula("Or ∨ And").unwrap(), Notation::Unicode),
        "Or ∨ And"
    );
}

#[test]
fn parse_errors_give_character_offsets_and_a_caret() {
    let src = "¬¬p ∧ )";
    let e = parse_formula(src).unwrap_err();
    assert_eq!(e.char_pos(src), 6, "byte {} is character 6", e.pos);
    assert_eq!(e.caret(src), "¬¬p ∧ )\n      ^");
}

/// Inputs the fuzzers found crashing (`tests/data/fuzz-regressions/<target>-<what>`),
/// each replayed through what its target checks.
#[test]
fn fuzz_regressions_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        n += 1;
        if name.starts_with("parse_formula") {
            // A formula that parses prints to text that parses back to it.
            if let Ok(f) = parse_formula(text) {
                for nt in [Notation::Unicode, Notation::Ascii, Notation::Original] {
                    let printed = print_formula(&f, nt);
                    assert_eq!(parse_formula(&printed).as_ref(), Ok(&f), "{name} in {nt:?}");
                }
            }
        }
    }
    assert!(n >= 1);
}
