//! Issue 47 through the user's path: `autoeval score` reads every reply shape the issue
//! lists as the answer a careful reader takes (a rejected, superseded or merely
//! mentioned formula never wins), and `verify --explain` names both changes of a
//! two-mistake reply or says it could not prove them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::bin_in as bin;
use serde_json::Value;

fn phi1(syntax: &str, phi0: &str, reply: &str) -> Value {
    let home = tempfile::tempdir().unwrap();
    let o = bin(home.path())
        .args([
            "score",
            "--syntax",
            syntax,
            "--phi0",
            phi0,
            "--psi",
            "A description.",
        ])
        .args(["--reply", reply])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let v: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("{e}: {text} {}", String::from_utf8_lossy(&o.stderr)));
    v["phi1"].clone()
}

#[test]
fn score_reads_every_shape_of_the_issue() {
    let re = "(01)*1";
    for reply in [
        "The regular expression is (01)*1. A tempting but wrong alternative would be (01)+1 …",
        "```\n(01)+1   # first attempt\n(01)*1   # corrected\n```",
        "The regular expression is (01)+1. Wait, actually … so it is (01)*1.",
        "Candidate 1: (01)+1\nCandidate 2: (01)*1\nI choose candidate 2, i.e. (01)*1.",
        "Reading the description again, `(01)*1` is what I would submit.",
        "Therefore the answer is $\\boxed{(01)*1}$.",
        "The first part is (01)*. The complete regular expression is (01)*1.",
    ] {
        assert_eq!(phi1("regex", re, reply), re, "{reply}");
    }
    let pl = "¬(p6 ∨ p7) ∧ p2";
    for reply in [
        "The formula is ¬(p6 ∨ p7) ∧ p2, not (p6 ∨ p7) ∧ p2.",
        "The formula is (p6 ∨ p7) ∧ p2. Wait, actually … so it is ¬(p6 ∨ p7) ∧ p2.",
        "The first part is ¬(p6 ∨ p7). The complete formula is ¬(p6 ∨ p7) ∧ p2.",
        "Option A: (p6 ∨ p7) ∧ p2\nOption B: ¬(p6 ∨ p7) ∧ p2\nThe second one is correct.",
        "So I settle on `¬(p6 ∨ p7) ∧ p2` for this one.",
    ] {
        assert_eq!(phi1("pl", pl, reply), pl, "{reply}");
    }
    // The only formula is rejected: no answer.
    assert_eq!(
        phi1(
            "pl",
            pl,
            "A tempting answer would be (p6 ∨ p7) ∧ p2, but I am not sure."
        ),
        Value::Null
    );
}

#[test]
fn explain_names_both_changes_of_a_two_mistake_reply() {
    let home = tempfile::tempdir().unwrap();
    // An operand dropped and a quantifier flipped, the common case in real replies.
    let o = bin(home.path())
        .args(["verify", "--explain", "--json"])
        .args([
            "∀x1.(likes(x1,vera) ∧ hates(x1,vera))",
            "∃x1.likes(x1,vera)",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "not-equivalent", "{v}");
    let proved = v["proved"].as_bool().unwrap();
    let kinds: Vec<&str> = v["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(proved, "{v}");
    assert!(
        kinds.contains(&"quantifier-changed") && kinds.contains(&"operand-dropped"),
        "{v}"
    );
}
