//! Verifier correctness: known identities, non-identities, countermodels, perturbations, limits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::syntax::{Expr, Formula, SyntaxKind, parse, parse_formula};
use autoeval::verify::model::{FiniteModel, holds};
use autoeval::verify::{
    Countermodel, Options, Side, Verdict, verify, verify_batch, verify_text, z3_logic,
};
use std::time::{Duration, Instant};

fn check(a: &str, b: &str, syntax: SyntaxKind) -> Verdict {
    verify_text(a, b, syntax, &Options::default()).expect("φ parses")
}

/// A not-equivalent verdict's countermodel must separate the (closed) formulas.
fn assert_separates(a: &Formula, b: &Formula, v: &Verdict) {
    let Verdict::NotEquivalent { countermodel, .. } = v else {
        return;
    };
    let Some(m) = FiniteModel::from_countermodel(countermodel) else {
        return;
    };
    // Free variables are parameters shared by both sides: constants of the model.
    let free: Vec<String> = a
        .free_variables()
        .into_iter()
        .chain(b.free_variables())
        .collect();
    let free: Vec<&str> = free.iter().map(String::as_str).collect();
    let close = |f: &Formula| autoeval::verify::normalize::parameterize(f, &free);
    let (va, vb) = (holds(&m, &close(a)), holds(&m, &close(b)));
    assert_ne!(
        va, vb,
        "countermodel does not separate {a:?} and {b:?}: {countermodel:?}"
    );
    match countermodel {
        Countermodel::Assignment { left, right, .. }
        | Countermodel::FiniteModel { left, right, .. } => {
            assert_eq!((va, vb), (*left, *right), "reported values must match");
        }
        _ => {}
    }
}

#[test]
fn propositional_identities_and_non_identities() {
    for (a, b) in [
        ("¬(p ∧ q)", "¬p ∨ ¬q"),
        ("p ∧ (q ∨ r)", "(p ∧ q) ∨ (p ∧ r)"),
        ("¬¬p", "p"),
        ("p → q", "¬q → ¬p"),
        ("p ↔ q", "(p → q) ∧ (q → p)"),
        ("p ⊕ q", "¬(p ↔ q)"),
        ("p ∨ ¬p", "q ∨ ¬q"),
    ] {
        assert!(check(a, b, SyntaxKind::Pl).is_equivalent(), "{a} ≡ {b}");
    }
    for (a, b) in [
        ("p ∧ q", "p ∨ q"),
        ("p → q", "q → p"),
        ("¬(p ∧ q)", "¬p ∧ ¬q"),
        ("p ∨ q", "p ⊕ q"),
    ] {
        let v = check(a, b, SyntaxKind::Pl);
        assert_eq!(v.name(), "not-equivalent", "{a} vs {b}");
        assert!(matches!(
            v,
            Verdict::NotEquivalent {
                countermodel: Countermodel::Assignment { .. },
                ..
            }
        ));
        assert_separates(&parse_formula(a).unwrap(), &parse_formula(b).unwrap(), &v);
    }
}

#[test]
fn first_order_identities_and_non_identities() {
    for (a, b) in [
        ("∀x.(P(x) ∧ Q(x))", "∀x.P(x) ∧ ∀x.Q(x)"),
        ("¬∀x.P(x)", "∃x.¬P(x)"),
        ("¬∃x.P(x)", "∀x.¬P(x)"),
        ("∃x.(P(x) ∨ Q(x))", "∃x.P(x) ∨ ∃x.Q(x)"),
        ("∀x.Q(a)", "Q(a)"), // vacuous quantifier (domains are non-empty)
        ("∃x.∀y.R(x,y)", "∃z.∀w.R(z,w)"), // renaming bound variables
        ("∀x.∀y.R(x,y)", "∀y.∀x.R(x,y)"),
    ] {
        let v = check(a, b, SyntaxKind::Fol);
        assert!(v.is_equivalent(), "{a} ≡ {b}: {v:?}");
    }
    for (a, b) in [
        ("∀x.∃y.R(x,y)", "∃y.∀x.R(x,y)"),
        ("∀x.(P(x) ∨ Q(x))", "∀x.P(x) ∨ ∀x.Q(x)"),
        ("∃x.(P(x) ∧ Q(x))", "∃x.P(x) ∧ ∃x.Q(x)"),
        ("P(a)", "P(b)"),
        ("∀x.R(x,x)", "∀x.∀y.R(x,y)"),
    ] {
        let v = check(a, b, SyntaxKind::Fol);
        let Verdict::NotEquivalent { countermodel, .. } = &v else {
            panic!("{a} vs {b}: {v:?}")
        };
        let Countermodel::FiniteModel { domain, .. } = countermodel else {
            panic!("table expected: {countermodel:?}")
        };
        assert!(domain.len() <= 2, "smallest model first: {domain:?}");
        assert_separates(&parse_formula(a).unwrap(), &parse_formula(b).unwrap(), &v);
    }
}

#[test]
fn regex_identities_witnesses_and_sides() {
    for (a, b) in [
        ("(a*)*", "a*"),
        ("(ab)*a", "a(ba)*"),
        ("(a|b)*", "(a*b*)*"),
        ("a+", "aa*"),
        ("a?", "a|ε"),
    ] {
        assert!(check(a, b, SyntaxKind::Regex).is_equivalent(), "{a} ≡ {b}");
    }
    match check("a*b*", "(a|b)*", SyntaxKind::Regex) {
        Verdict::NotEquivalent {
            countermodel:
                Countermodel::Witness {
                    string,
                    accepted_by,
                },
            ..
        } => {
            assert_eq!(string, "ba");
            assert_eq!(accepted_by, Side::Right);
        }
        v => panic!("{v:?}"),
    }
    match check("0*", "0+", SyntaxKind::Regex) {
        Verdict::NotEquivalent {
            countermodel:
                Countermodel::Witness {
                    string,
                    accepted_by,
                },
            ..
        } => {
            assert_eq!(string, "");
            assert_eq!(accepted_by, Side::Left);
        }
        v => panic!("{v:?}"),
    }
    // Alphabets differ: compared over their union.
    assert_eq!(
        check("0*", "1*", SyntaxKind::Regex).name(),
        "not-equivalent"
    );
}

#[test]
fn semantic_decisions_are_noted() {
    // Open formulas: φ ≡ φ′ iff the universal closure of φ ↔ φ′ is valid.
    let v = check("∀x.P(x)", "P(x)", SyntaxKind::Fol);
    assert_eq!(v.name(), "not-equivalent", "{v:?}");
    assert!(
        v.notes()
            .iter()
            .any(|n| n.contains("free variable x read as parameter")),
        "{v:?}"
    );
    match &v {
        Verdict::NotEquivalent {
            countermodel: Countermodel::FiniteModel { constants, .. },
            ..
        } => assert!(
            constants.contains_key("x"),
            "the assignment of x is shown: {v:?}"
        ),
        other => panic!("{other:?}"),
    }
    let v = check("P(x) ∧ Q(y)", "P(y) ∧ Q(x)", SyntaxKind::Fol);
    assert_eq!(v.name(), "not-equivalent", "{v:?}");
    assert!(check("P(x) ∧ Q(y)", "Q(y) ∧ P(x)", SyntaxKind::Fol).is_equivalent());
    assert!(check("P(x) → ∃y.P(y)", "∀z.(P(z) ∨ ¬P(z))", SyntaxKind::Fol).is_equivalent());
    assert!(check("∀x.P(x)", "∀y.P(y)", SyntaxKind::Fol).is_equivalent());
    let v = check("p1 ∨ ¬p1", "p7 ∨ ¬p7", SyntaxKind::Pl);
    assert!(v.is_equivalent());
    assert!(v.notes().iter().any(|n| n == "introduces p7"), "{v:?}");
    let v = check("P(a)", "P(a,b)", SyntaxKind::Fol);
    match v {
        Verdict::Unparseable { reason, .. } => {
            assert!(reason.contains("arities 1 and 2"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match check("p1", "p1 ∧ (p2", SyntaxKind::Pl) {
        Verdict::Unparseable { pos, reason } => {
            assert_eq!((pos, reason.as_str()), ("p1 ∧ ".len(), "unclosed '('"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn truth_table_agrees_with_z3_on_10000_pairs() {
    let mut rng = Rng::new(2026);
    let cfg = DatasetKind::Pl.grammar().unwrap();
    let params = GenParams {
        depth: 14,
        branching: 40,
        per_category: 40,
        vocab: autoeval::grammar::VocabParams {
            num_propositions: 5,
            ..Default::default()
        },
        ..Default::default()
    };
    let batch = generate_batch(&cfg, &params, 5, 0, &mut |_| {}).unwrap();
    let formulas: Vec<Formula> = batch
        .items
        .iter()
        .filter_map(|i| match &i.expr {
            Expr::Logic(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    assert!(formulas.len() > 200);
    let (mut pairs, mut equivalent) = (0, 0);
    let kinds = PerturbKind::LOGIC;
    while pairs < 10_000 {
        let a = &formulas[rng.below(formulas.len())];
        let b = if rng.chance(0.3) {
            formulas[rng.below(formulas.len())].clone()
        } else {
            let k = kinds[rng.below(kinds.len())];
            match perturb(&Expr::Logic(a.clone()), k, &mut rng) {
                Some(Expr::Logic(f)) => f,
                _ => continue,
            }
        };
        let table = autoeval::verify::truth_table::compare(a, &b).expect("propositional");
        let z3 = z3_logic::check(a, &b, Instant::now() + Duration::from_secs(5), 4);
        let tt_equiv = table == autoeval::verify::truth_table::TableResult::Equivalent;
        assert_eq!(
            tt_equiv,
            z3.is_equivalent(),
            "disagree on {a:?} vs {b:?}: {z3:?}"
        );
        if let autoeval::verify::truth_table::TableResult::Differ(values, l, r) = table {
            let props = values.into_iter().filter_map(|(k, v)| match k {
                autoeval::verify::truth_table::Atom::Prop(p) => Some((p, v)),
                _ => None,
            });
            let m = FiniteModel {
                propositions: props.collect(),
                ..Default::default()
            };
            assert_eq!((holds(&m, a), holds(&m, &b)), (l, r));
            assert_ne!(l, r);
        }
        assert_separates(a, &b, &z3);
        equivalent += usize::from(tt_equiv);
        pairs += 1;
    }
    assert!(
        equivalent > 2_000 && equivalent < 8_000,
        "a mix of both: {equivalent} equivalent"
    );
}

#[test]
fn every_perturbation_keeps_its_promise() {
    let mut rng = Rng::new(4);
    for kind in [DatasetKind::Pl, DatasetKind::Fol, DatasetKind::FolEnglish] {
        let cfg = kind.grammar().unwrap();
        let params = GenParams {
            depth: 14,
            branching: 40,
            per_category: 6,
            vocab: kind.vocab(),
            ..Default::default()
        };
        let batch = generate_batch(&cfg, &params, 9, 0, &mut |_| {}).unwrap();
        for k in PerturbKind::LOGIC {
            let (mut applied, mut broke) = (0, 0);
            for item in batch.items.iter().take(120) {
                let Some(p) = perturb(&item.expr, k, &mut rng) else {
                    continue;
                };
                let v = verify(&item.expr, &p, &Options::default());
                applied += 1;
                if k.preserves_equivalence() {
                    assert!(
                        v.is_equivalent(),
                        "{k:?} must preserve: {} vs {} → {v:?}",
                        item.expr.to_unicode(),
                        p.to_unicode()
                    );
                } else {
                    // Breaking kinds may hit an instance that stays equivalent (e.g. dropping
                    // an operator of p ∧ p); the verifier decides, and must explain either way.
                    assert!(
                        matches!(v.name(), "equivalent" | "not-equivalent"),
                        "{k:?}: {v:?}"
                    );
                    if let (Expr::Logic(a), Expr::Logic(b)) = (&item.expr, &p) {
                        assert_separates(a, b, &v);
                    }
                    broke += usize::from(!v.is_equivalent());
                }
            }
            if applied > 0 && !k.preserves_equivalence() {
                assert!(
                    broke * 2 >= applied,
                    "{kind:?} {k:?}: only {broke}/{applied} changed meaning"
                );
            }
        }
    }
    let cfg = DatasetKind::Regex.grammar().unwrap();
    let params = GenParams {
        depth: 12,
        branching: 30,
        per_category: 10,
        ..Default::default()
    };
    let batch = generate_batch(&cfg, &params, 9, 0, &mut |_| {}).unwrap();
    for k in PerturbKind::REGEX {
        let mut applied = 0;
        for item in &batch.items {
            let Some(p) = perturb(&item.expr, k, &mut rng) else {
                continue;
            };
            let v = verify(&item.expr, &p, &Options::default());
            assert!(
                matches!(v.name(), "equivalent" | "not-equivalent"),
                "{k:?}: {v:?}"
            );
            if let (
                Verdict::NotEquivalent {
                    countermodel:
                        Countermodel::Witness {
                            string,
                            accepted_by,
                        },
                    ..
                },
                Expr::Regex(a),
                Expr::Regex(b),
            ) = (&v, &item.expr, &p)
            {
                let mut al = a.alphabet();
                al.extend(b.alphabet());
                let da = autoeval::verify::automata::Dfa::build(a, &al).unwrap();
                let db = autoeval::verify::automata::Dfa::build(b, &al).unwrap();
                assert_eq!(da.accepts(string), *accepted_by == Side::Left);
                assert_eq!(db.accepts(string), *accepted_by == Side::Right);
            }
            applied += 1;
        }
        assert!(applied > 10, "{k:?} applied {applied} times");
    }
}

#[test]
fn hard_pairs_time_out_to_unknown() {
    // A strict order without a maximal element has only infinite models, so Z3 can
    // neither refute φ nor find a finite countermodel to φ ≡ ⊥: it must time out.
    let a = "(∀x.∃y.R(x,y)) ∧ (∀x.¬R(x,x)) ∧ (∀x.∀y.∀z.((R(x,y) ∧ R(y,z)) → R(x,z)))";
    let opts = Options {
        timeout: Duration::from_millis(300),
        ..Options::default()
    };
    let start = Instant::now();
    let v = verify_text(a, "p ∧ ¬p", SyntaxKind::Fol, &opts).unwrap();
    let took = start.elapsed();
    match &v {
        Verdict::Unknown { reason } => assert!(reason.contains("timeout"), "{reason}"),
        other => panic!("expected unknown, got {other:?}"),
    }
    assert!(
        took < Duration::from_secs(2),
        "the 300 ms limit must hold, took {took:?}"
    );
    // Oversized input is refused, not attempted (the parser already refuses chains
    // deeper than 1,000; this one parses and is over the verifier's node limit).
    let big = (0..150)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join(" ∧ ");
    let opts = Options {
        max_nodes: 100,
        ..Options::default()
    };
    match verify_text(&big, &big, SyntaxKind::Pl, &opts).unwrap() {
        Verdict::Unknown { reason } => assert!(reason.contains("too large"), "{reason}"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn batch_api_matches_single_checks() {
    let pairs: Vec<(Expr, Expr)> = [
        ("p ∧ q", "q ∧ p"),
        ("p", "¬p"),
        ("∀x.P(x)", "∃x.P(x)"),
        ("¬∃x.P(x)", "∀x.¬P(x)"),
    ]
    .iter()
    .map(|(a, b)| {
        (
            parse(a, SyntaxKind::Fol).unwrap(),
            parse(b, SyntaxKind::Fol).unwrap(),
        )
    })
    .collect();
    let got: Vec<&str> = verify_batch(&pairs, &Options::default())
        .iter()
        .map(autoeval::verify::Verdict::name)
        .collect();
    assert_eq!(
        got,
        [
            "equivalent",
            "not-equivalent",
            "not-equivalent",
            "equivalent"
        ]
    );
}

#[test]
fn cli_exit_codes() {
    let run = |args: &[&str]| {
        common::cli::bin()
            .arg("verify")
            .args(args)
            .output()
            .expect("runs")
    };
    assert_eq!(run(&["p ∧ q", "q ∧ p"]).status.code(), Some(0));
    let o = run(&["∀x.∃y.R(x,y)", "∃y.∀x.R(x,y)"]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    // True atoms by default; every table with --tables.
    assert!(
        text.contains("not-equivalent") && text.contains("true atoms") && text.contains("R(e"),
        "{text}"
    );
    assert!(!text.contains("R(row,col)"), "{text}");
    let o = run(&["∀x.∃y.R(x,y)", "∃y.∀x.R(x,y)", "--tables"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("R(row,col)"));
    assert_eq!(run(&["p", "p ∧"]).status.code(), Some(2));
    assert_eq!(run(&["(p", "p"]).status.code(), Some(2));
    let o = run(&["a*b*", "(a|b)*", "--syntax", "regex", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "not-equivalent");
    assert_eq!(v["countermodel"]["string"], "ba");
    assert_eq!(v["countermodel"]["accepted_by"], "right");
}

/// Hard FOL pairs: ground formulas of 37+ operators with arity-3 predicates, three
/// constants turned into nested-quantifier variables, one perturbation each.
fn hard_fol(n: usize) -> Vec<(Expr, Expr, PerturbKind)> {
    let mut vocab = DatasetKind::Fol.vocab();
    vocab.max_arity = 3;
    let params = GenParams {
        vocab,
        ..Default::default()
    };
    let cfg = DatasetKind::Fol.grammar().unwrap();
    let mut rng = Rng::new(29);
    let mut out = Vec::new();
    for batch in 0..40u64 {
        let b = generate_batch(&cfg, &params, 31, batch, &mut |_| {}).unwrap();
        for item in b.items.iter().filter(|i| i.bucket >= 37) {
            let Expr::Logic(f) = &item.expr else { continue };
            if f.constants().len() < 3 {
                continue;
            }
            let e = Expr::Logic(autoeval::perturb::quantify_constants(f, 3, &mut rng));
            let kind = PerturbKind::LOGIC[rng.below(PerturbKind::LOGIC.len())];
            if let Some(p) = perturb(&e, kind, &mut rng) {
                out.push((e, p, kind));
                if out.len() == n {
                    return out;
                }
            }
        }
    }
    out
}

#[test]
fn hard_fol_pairs_are_decided_and_meaning_preserving_rewrites_are_proved() {
    let pairs = hard_fol(120);
    assert_eq!(pairs.len(), 120);
    let batch: Vec<(Expr, Expr)> = pairs
        .iter()
        .map(|(a, b, _)| (a.clone(), b.clone()))
        .collect();
    let verdicts = verify_batch(&batch, &Options::default());
    let mut unknown = 0;
    for ((a, b, kind), v) in pairs.iter().zip(&verdicts) {
        match v.name() {
            "unknown" => unknown += 1,
            // A rewrite that keeps the meaning must never be called not-equivalent.
            "not-equivalent" => assert!(
                !kind.preserves_equivalence(),
                "{kind:?} judged not-equivalent: {} vs {}",
                a.to_unicode(),
                b.to_unicode()
            ),
            _ => {}
        }
        if let (Expr::Logic(fa), Expr::Logic(fb)) = (a, b) {
            assert_separates(fa, fb, v);
        }
    }
    // Before small-domain search, normalisation and congruence, 7% of such pairs came
    // out unknown at 5 s; now a handful in a thousand do.
    assert!(unknown <= 2, "{unknown} of 120 hard pairs unknown");
}
