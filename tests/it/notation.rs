//! Notation (issue 21 item 3) through the CLI: constants, subscripts, recasing, bounded
//! repetition, and the two reading conventions (checked against NLTK's own parses).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use autoeval::syntax::{
    Expr, Formula, Reading, Regex, SyntaxKind, parse, parse_as, parse_formula, parse_regex,
    print_regex, reading_note,
};
use common::cli::bin_in as bin;
use common::{Reply, Server, openai_body, prompt_of};
use std::path::Path;
use std::process::Output;

fn verify(args: &[&str]) -> (i32, String) {
    let home = tempfile::tempdir().unwrap();
    let o: Output = bin(home.path()).arg("verify").args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

#[test]
fn constants_are_true_and_false_in_every_checker() {
    // The issue's example: `True` was a proposition, so this was not-equivalent.
    let (code, text) = verify(&["p2", "p2 ∧ True"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("φ′ = p2 ∧ ⊤"), "{text}");
    // Every spelling; a formula of constants alone is a formula.
    for t in ["⊤", "True", "true", "TRUE", "\\top", "T"] {
        let (code, text) = verify(&["⊤", t]);
        assert_eq!(code, 0, "{t}: {text}");
    }
    for f in ["⊥", "False", "false", "\\bot", "F"] {
        let (code, text) = verify(&["⊥", f]);
        assert_eq!(code, 0, "{f}: {text}");
        assert_eq!(verify(&["⊤", f]).0, 1, "{f}");
    }
    // Truth tables (PL), the normalizer and Z3 (quantified) all read them.
    assert_eq!(verify(&["p ∨ ¬p", "⊤"]).0, 0);
    assert_eq!(verify(&["p ∧ ⊥", "False"]).0, 0);
    assert_eq!(verify(&["p", "p ∧ ⊥"]).0, 1);
    assert_eq!(verify(&["∀x.(P(x) ∨ ⊤)", "true"]).0, 0);
    assert_eq!(verify(&["∃x.(P(x) ∧ ⊥)", "⊥"]).0, 0);
    assert_eq!(verify(&["∀x.∃y.(R(x,y) → ⊥)", "∀x.∃y.¬R(x,y)"]).0, 0);
    assert_eq!(verify(&["∀x.∃y.(R(x,y) → ⊥)", "∀x.∀y.¬R(x,y)"]).0, 1);
    assert_eq!(verify(&["∀x.∃y.(R(x,y) ∨ ⊥)", "⊤"]).0, 1);
    // T is a name when the reference uses it.
    let (code, text) = verify(&["p2 ∧ T", "p2"]);
    assert_eq!(code, 1, "{text}");
    let (code, text) = verify(&["p2", "p2 ∧ T"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("T read as ⊤"), "{text}");
    // `True(x)` is a predicate called True.
    assert!(matches!(parse_formula("True(x)"), Ok(Formula::Pred(..))));
}

#[test]
fn constants_print_and_read_back_in_every_notation() {
    use autoeval::syntax::{Notation, print_formula};
    let f = parse_formula("(p1 → ⊤) ∧ ¬⊥ ∧ ∀x.(P(x) ∨ False)").unwrap();
    for n in [Notation::Unicode, Notation::Ascii, Notation::Original] {
        let text = print_formula(&f, n);
        assert_eq!(parse_formula(&text).unwrap(), f, "{n:?}: {text}");
    }
    assert_eq!(
        print_formula(&f, Notation::Ascii),
        "(p1 -> true) & ~false & all x.(P(x) | false)"
    );
}

#[test]
fn subscripts_are_part_of_the_name_everywhere() {
    // fol5-qwen-0.5b ids 76 and 20: correct answers once scored "introduces p_4".
    let (code, text) = verify(&["∃x1.∀x2.pred4(p4)", "∃x1. ∀x2. pred4(p_4)"]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = verify(&[
        "∃x1.(pred2(p7,x1) ∨ ¬pred5(x1))",
        "∃x1. pred2(p7, x_1) ∨ ¬pred5(x_1)",
    ]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = verify(&["p10 ∧ q4", "p_{10} ∧ q_4"]);
    assert_eq!(code, 0, "{text}");
    // A name with an underscore inside keeps it.
    assert_eq!(
        parse_formula("is_tall(bob)").unwrap(),
        Formula::Pred(
            "is_tall".into(),
            vec![autoeval::syntax::Term::Const("bob".into())]
        )
    );
    assert!(parse_formula("p_{").is_err());
}

#[test]
fn names_are_recased_only_to_one_vocabulary_symbol() {
    // fol-english-qwen-1.5b id 3: off-format before, because of case alone.
    let (code, text) = verify(&[
        "∀x1.∀x2.(dream(luke) ∨ ¬dream(x1))",
        "∀x1. ∀x2. (Dream(Luke) ∨ ¬Dream(x1))",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("recased: Dream→dream, Luke→luke"), "{text}");
    // Two symbols equal up to case: nothing is recased, names stay case-sensitive.
    let (code, text) = verify(&["dream(luke) ∧ Dream(luke)", "DREAM(luke) ∧ Dream(luke)"]);
    assert_eq!(code, 1, "{text}");
    assert!(!text.contains("recased"), "{text}");
}

#[test]
fn bounded_repetition_in_parser_printers_and_automata() {
    // The issue's example, once unparseable.
    let (code, text) = verify(&["--syntax", "regex", "00", "0{2}"]);
    assert_eq!(code, 0, "{text}");
    for (a, b) in [
        ("000*", "0{2,}"),
        ("ε|0|00", "0{0,2}"),
        ("(01)(01)(01)?", "(01){2,3}"),
        ("1(0|1)(0|1)", "1(0|1){2}"),
        ("ε", "0{0}"),
        ("0*", "0{0,}"),
        ("(0{2}){3}", "0{6}"),
    ] {
        let (code, text) = verify(&["--syntax", "regex", a, b]);
        assert_eq!(code, 0, "{a} vs {b}: {text}");
    }
    let (code, text) = verify(&["--syntax", "regex", "0{2,3}", "0{2,4}", "--json"]);
    assert_eq!(code, 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(v["countermodel"]["string"], "0000");
    // Printers write the counts back.
    for src in ["0{2}", "(01){2,}", "(0|1){1,3}", "0*{2}", "0{2}{3}"] {
        let r = parse_regex(src).unwrap();
        assert_eq!(parse_regex(&print_regex(&r, false)).unwrap(), r, "{src}");
        assert_eq!(parse_regex(&print_regex(&r, true)).unwrap(), r, "{src}");
    }
    assert!(matches!(
        parse_regex("0{2,5}").unwrap(),
        Regex::Repeat(_, 2, Some(5))
    ));
    // Clear errors: bad bounds, too large a count, too large an expansion.
    for (bad, want) in [
        ("0{3,2}", "upper bound is below the lower"),
        ("0{", "expected a count"),
        ("0{2", "unclosed"),
        ("0{a}", "expected a count"),
        ("{2}", "nothing before it"),
        ("0{5000}", "over the limit 1000"),
    ] {
        let e = parse_regex(bad).unwrap_err();
        assert!(e.reason.contains(want), "{bad}: {}", e.reason);
    }
    let (code, text) = verify(&["--syntax", "regex", "0", "(0{1000}){1000}"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("bounded repetitions") && text.contains("limit 2000"),
        "{text}"
    );
}

/// NLTK's parse of each line's text, fully parenthesised in our syntax, from the
/// oracle file (made with NLTK 3.10.4's logic parser behind the original's conversion).
fn oracle() -> Vec<(String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nltk-reading.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            (s("text"), s("nltk"), s("source"))
        })
        .collect()
}

#[test]
fn the_nltk_reading_groups_as_nltk_does() {
    let lines = oracle();
    assert!(lines.len() >= 400, "{}", lines.len());
    let mut differ = 0;
    for (text, nltk, source) in &lines {
        let want = parse(nltk, SyntaxKind::Fol).unwrap();
        let got = parse_as(text, SyntaxKind::Fol, Reading::Nltk)
            .unwrap_or_else(|e| panic!("{source}: {text:?} does not parse: {e}"));
        assert_eq!(got, want, "{source}: {text}");
        let standard = parse(text, SyntaxKind::Fol).unwrap();
        if standard == want {
            assert_eq!(
                reading_note(text, SyntaxKind::Fol, Reading::Standard),
                None,
                "{text}"
            );
        } else {
            differ += 1;
            // Every such text gets a note naming both readings.
            let note = reading_note(text, SyntaxKind::Fol, Reading::Standard)
                .unwrap_or_else(|| panic!("{source}: no reading note for {text}"));
            assert!(note.starts_with("reading: read as "), "{note}");
            assert!(note.contains("the nltk reading gives"), "{note}");
        }
    }
    // The conventions really differ on real replies (the test could fail either way).
    assert!(differ >= 20, "only {differ} texts read differently");
}

#[test]
fn verify_takes_the_reading_and_notes_the_other() {
    // fol5-qwen-1.5b id 58: equivalent under our reading, not under the original's.
    let phi0 = "∃x1.∃x2.∃x3.(¬pred5(p3) ∧ pred5(x2))";
    let reply = "∃x1 ∃x2 ∃x3 ¬pred5(p3) ∧ pred5(x2)";
    let (code, text) = verify(&[phi0, reply]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("reading: read as ∃x1.∃x2.∃x3.(¬pred5(p3) ∧ pred5(x2)) (standard reading)")
            && text.contains("the nltk reading gives (∃x1.∃x2.∃x3.¬pred5(p3)) ∧ pred5(x2)")
            && text.contains("quantifier scope"),
        "{text}"
    );
    let (code, text) = verify(&["--reading", "nltk", phi0, reply]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("(nltk reading)"), "{text}");
    // → chains group left under nltk.
    assert_eq!(verify(&["(p1 → p2) → p3", "p1 → p2 → p3"]).0, 1);
    assert_eq!(
        verify(&["--reading", "nltk", "(p1 → p2) → p3", "p1 → p2 → p3"]).0,
        0
    );
    // `^` is ⊕ by default and ∧ under nltk; either way the record says so.
    let (code, text) = verify(&["p1 ⊕ p2", "p1 ^ p2", "--json"]);
    assert_eq!(code, 0, "{text}");
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let notes = v["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("'^' (⊕ or ∧)")),
        "{v}"
    );
    assert_eq!(verify(&["--reading", "nltk", "p1 ∧ p2", "p1 ^ p2"]).0, 0);
    // --pairs too.
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("pairs.tsv");
    std::fs::write(
        &pairs,
        format!("{phi0}\t{reply}\n(p1 → p2) → p3\tp1 → p2 → p3\n"),
    )
    .unwrap();
    let o = bin(dir.path())
        .args(["verify", "--reading", "nltk", "--pairs"])
        .arg(&pairs)
        .output()
        .unwrap();
    let out: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(out[0]["verdict"], "not-equivalent");
    assert_eq!(out[1]["verdict"], "equivalent");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn sample(dir: &Path, idx: u64) -> serde_json::Value {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .rfind(|s| s["idx"] == idx)
        .unwrap()
}

#[test]
fn rescore_and_report_on_the_shipped_runs() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let home = tempfile::tempdir().unwrap();
    let dir = home.path();
    for run in ["fol5-qwen-1.5b", "fol5-qwen-0.5b", "fol-english-qwen-1.5b"] {
        copy_dir(&shipped.join(run), &dir.join(run));
    }
    let rescore = |run: &str, out: &str, extra: &[&str]| {
        let o = bin(dir)
            .arg("rescore")
            .arg(dir.join(run))
            .arg("--out")
            .arg(dir.join(out))
            .args(extra)
            .output()
            .unwrap();
        common::cli::ok(&o);
        dir.join(out)
    };
    // Default reading: the subscripted and recased answers now pass.
    let r05 = rescore("fol5-qwen-0.5b", "r05", &[]);
    assert_eq!(sample(&r05, 76)["verdict"]["verdict"], "equivalent");
    assert_eq!(sample(&r05, 20)["verdict"]["verdict"], "equivalent");
    let en = rescore("fol-english-qwen-1.5b", "en", &[]);
    let s3 = sample(&en, 3);
    assert_eq!(s3["verdict"]["verdict"], "equivalent");
    assert_eq!(s3["verdict"]["notes"][0], "recased: Dream→dream, Luke→luke");
    // ids 58 and 83 pass under our reading, with a note, and fail under the original's.
    let std15 = rescore("fol5-qwen-1.5b", "std15", &[]);
    let nltk15 = rescore("fol5-qwen-1.5b", "nltk15", &["--reading", "nltk"]);
    for id in [58, 83] {
        let s = sample(&std15, id);
        assert_eq!(s["verdict"]["verdict"], "equivalent", "{id}");
        assert!(
            s["verdict"]["notes"][0]
                .as_str()
                .unwrap()
                .starts_with("reading: "),
            "{s}"
        );
        assert_eq!(
            sample(&nltk15, id)["verdict"]["verdict"],
            "not-equivalent",
            "{id}"
        );
    }
    let manifest = |d: &Path| -> serde_json::Value { common::manifest(d) };
    assert_eq!(manifest(&std15)["reading"], "standard");
    assert_eq!(manifest(&nltk15)["reading"], "nltk");
    // A rescore of the nltk run keeps its reading unless told otherwise.
    let again = rescore("nltk15", "again", &[]);
    assert_eq!(manifest(&again)["reading"], "nltk");
    assert_eq!(sample(&again, 58)["verdict"]["verdict"], "not-equivalent");
    // `report` counts the samples with a reading note, per run.
    let o = bin(dir)
        .arg("report")
        .arg(&std15)
        .arg(&nltk15)
        .args(["--format", "json"])
        .output()
        .unwrap();
    common::cli::ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let counted = |i: usize| v["runs"][i]["reading_notes"].as_u64().unwrap();
    let by_hand = std::fs::read_to_string(std15.join("samples.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"reading: "))
        .count() as u64;
    assert!(by_hand >= 2, "{by_hand}");
    assert_eq!(counted(0), by_hand);
    assert_eq!(v["runs"][1]["reading"], "nltk");
    let o = bin(dir).arg("report").arg(&std15).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Reading conventions") && text.contains(&format!(" {by_hand}")),
        "{text}"
    );
}

#[test]
fn run_reads_replies_under_the_reading_it_records() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds.json");
    common::write_dataset(
        &ds,
        serde_json::json!([{"idx": 0, "fs": "(p1 → p2) → p3", "num_operators": 2}]),
    );
    let server = Server::start(|_, r| {
        let answer = if prompt_of(r).contains("[NL DESCRIPTION]") {
            "Formula: p1 → p2 → p3"
        } else {
            "If p1 implies p2, then p3."
        };
        Reply::json(200, openai_body(answer))
    });
    let run = |reading: &str| {
        let out = dir.path().join(reading);
        let o = bin(dir.path())
            .args([
                "run",
                "--model",
                "openai:fake",
                "--quiet",
                "--reading",
                reading,
            ])
            .arg("--dataset")
            .arg(&ds)
            .arg("--base-url")
            .arg(format!("{}/v1", server.base))
            .arg("--out")
            .arg(&out)
            .env("OPENAI_API_KEY", "sk-unused")
            .output()
            .unwrap();
        common::cli::ok(&o);
        out
    };
    let std_run = run("standard");
    let s = sample(&std_run, 0);
    assert_eq!(s["verdict"]["verdict"], "not-equivalent", "{s}");
    assert!(
        s["verdict"]["notes"][0]
            .as_str()
            .unwrap()
            .contains("the nltk reading gives (p1 → p2) → p3"),
        "{s}"
    );
    let nltk_run = run("nltk");
    assert_eq!(sample(&nltk_run, 0)["verdict"]["verdict"], "equivalent");
    let m: serde_json::Value = common::manifest(&nltk_run);
    assert_eq!(m["reading"], "nltk");
    // Resuming under another reading would mix conventions in one run.
    let o = bin(dir.path())
        .args(["run", "--model", "openai:fake", "--quiet", "--resume"])
        .args(["--reading", "standard", "--dataset"])
        .arg(&ds)
        .arg("--base-url")
        .arg(format!("{}/v1", server.base))
        .arg("--out")
        .arg(&nltk_run)
        .env("OPENAI_API_KEY", "sk-unused")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("reading"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn regexes_ignore_the_reading() {
    assert_eq!(
        parse_as("0{2}|1", SyntaxKind::Regex, Reading::Nltk).unwrap(),
        Expr::Regex(parse_regex("0{2}|1").unwrap())
    );
    assert_eq!(
        reading_note("0^1", SyntaxKind::Regex, Reading::Standard),
        None
    );
}

#[test]
fn import_reverify_takes_the_reading() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dataset_nlfs_gpt-4o_verified.json");
    // The original verified both as equivalent: under NLTK's reading `→` groups left
    // and `^` is ∧; under ours neither reply matches its φ₀.
    std::fs::write(
        &file,
        r#"{"info": {"type": "dataset", "filter_field": "num_operators"}, "verified": true,
           "data": [
             {"idx": 0, "fs": "((p1 → p2) → p3)", "num_operators": 2, "llm_fs": "p1 → p2 → p3", "error": null,
              "verification": {"is_equivalent": true, "has_error": null, "time": "0:00:00"}},
             {"idx": 1, "fs": "(p1 ∧ p2)", "num_operators": 1, "llm_fs": "p1 ^ p2", "error": null,
              "verification": {"is_equivalent": true, "has_error": null, "time": "0:00:00"}}
           ]}"#,
    )
    .unwrap();
    let import = |reading: &str| {
        let out = dir.path().join(reading);
        let o = bin(dir.path())
            .arg("import")
            .arg(&file)
            .args(["--reverify", "--reading", reading, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        common::cli::ok(&o);
        out
    };
    let nltk = import("nltk");
    for id in [0, 1] {
        let s = sample(&nltk, id);
        assert_eq!(s["verdict"]["verdict"], "equivalent", "{s}");
        assert!(
            s["verdict"]["notes"][0]
                .as_str()
                .unwrap()
                .starts_with("reading: "),
            "{s}"
        );
    }
    let m: serde_json::Value = common::manifest(&nltk);
    assert_eq!(m["reading"], "nltk");
    let standard = import("standard");
    assert_eq!(sample(&standard, 0)["verdict"]["verdict"], "not-equivalent");
    assert_eq!(sample(&standard, 1)["verdict"]["verdict"], "not-equivalent");
}
