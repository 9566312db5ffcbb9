//! The verifier's shortcut for a reply that repeats φ₀ (issue 45): the same verdict,
//! notes included, as the full path gives an equal formula written differently.

use autoeval::syntax::{Expr, Formula};
use autoeval::verify::{Options, verify};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// φ against itself answers as φ against ¬¬φ (which takes the normal forms or the
    /// truth table): the same verdict and the same notes (free variables read as
    /// parameters), or the same refusal (a predicate used with two arities).
    #[test]
    fn same_formula_as_rewritten(f in crate::syntax::formula_strategy()) {
        let opts = Options::default();
        let a = Expr::Logic(f.clone());
        let same = verify(&a, &Expr::Logic(f.clone()), &opts);
        let rewritten = verify(&a, &Expr::Logic(Formula::negate(Formula::negate(f))), &opts);
        prop_assert_eq!(same, rewritten);
    }
}

/// An open φ repeated: equivalent, with the note on its free variables, through the
/// command users run.
#[test]
fn score_repeated_open_formula_keeps_its_notes() {
    let out = crate::common::cli::bin()
        .args([
            "score",
            "--syntax",
            "fol",
            "--phi0",
            "∀x.pred1(x, y)",
            "--reply",
            "∀x.pred1(x, y)",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["verdict"], "equivalent");
    let notes = v["notes"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().is_some_and(|s| s.contains("free variable y"))),
        "{v}"
    );
}
