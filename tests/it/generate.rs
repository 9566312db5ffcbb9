//! `autoeval generate` end to end, and generator properties.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use autoeval::dataset::Dataset;
use autoeval::grammar::{Cfg, DatasetKind, GenParams, generate_batch};
use autoeval::syntax::{Expr, logic_metrics};
use common::cli::bin;
use std::path::Path;

fn gen_file(dir: &Path, name: &str, args: &[&str]) -> (std::process::Output, std::path::PathBuf) {
    let out = dir.join(name);
    let o = bin()
        .arg("generate")
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    (o, out)
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ["ksat", "pl", "fol", "fol-english", "regex"] {
        let args = [
            "--kind",
            kind,
            "--seed",
            "7",
            "--depth",
            "12",
            "--branching",
            "40",
            "--per-category",
            "5",
        ];
        let (a, pa) = gen_file(dir.path(), &format!("{kind}-a.json"), &args);
        common::cli::ok(&a);
        let (_, pb) = gen_file(dir.path(), &format!("{kind}-b.json"), &args);
        let mut other = args;
        other[3] = "8";
        let (_, pc) = gen_file(dir.path(), &format!("{kind}-c.json"), &other);
        let (a, b, c) = (
            std::fs::read(pa).unwrap(),
            std::fs::read(pb).unwrap(),
            std::fs::read(pc).unwrap(),
        );
        assert_eq!(a, b, "{kind}: same seed must give the same bytes");
        assert_ne!(a, c, "{kind}: another seed must differ");
    }
}

#[test]
fn batch_zero_of_many_equals_a_single_batch() {
    let cfg = DatasetKind::Pl.grammar().unwrap();
    let p = GenParams {
        depth: 10,
        branching: 30,
        per_category: 4,
        ..Default::default()
    };
    let a = generate_batch(&cfg, &p, 3, 0, &mut |_| {}).unwrap();
    let b = generate_batch(&cfg, &p, 3, 0, &mut |_| {}).unwrap();
    let c = generate_batch(&cfg, &p, 3, 1, &mut |_| {}).unwrap();
    let texts = |x: &autoeval::grammar::Batch| {
        x.items
            .iter()
            .map(|i| i.expr.to_unicode())
            .collect::<Vec<_>>()
    };
    assert_eq!(texts(&a), texts(&b));
    assert_ne!(texts(&a), texts(&c));
}

#[test]
fn buckets_are_balanced_and_metrics_agree_with_the_formula() {
    for kind in [
        DatasetKind::Ksat,
        DatasetKind::Pl,
        DatasetKind::Fol,
        DatasetKind::FolEnglish,
    ] {
        let cfg = kind.grammar().unwrap();
        let p = GenParams {
            depth: 16,
            branching: 60,
            per_category: 6,
            vocab: kind.vocab(),
            ..Default::default()
        };
        let batch = generate_batch(&cfg, &p, 11, 0, &mut |_| {}).unwrap();
        assert!(batch.buckets.len() > 5, "{kind:?}");
        for r in &batch.buckets {
            let n = batch.items.iter().filter(|i| i.bucket == r.bucket).count();
            assert_eq!(n, r.got, "{kind:?} bucket {}", r.bucket);
            // Buckets fall short only when they lack distinct formulas, and then say so.
            if r.got < r.wanted {
                assert!(r.bucket <= 1, "{kind:?} bucket {} short: {r:?}", r.bucket);
            }
        }
        let mut seen = std::collections::HashSet::new();
        for it in &batch.items {
            let Expr::Logic(f) = &it.expr else {
                panic!("logic")
            };
            assert_eq!(
                logic_metrics(f).operators,
                it.bucket,
                "{kind:?}: {}",
                it.expr.to_unicode()
            );
            assert!(
                f.free_variables().is_empty(),
                "variables are only placed in scope"
            );
            assert!(
                seen.insert(it.expr.clone()),
                "duplicate {}",
                it.expr.to_unicode()
            );
        }
    }
}

#[test]
fn regex_buckets_by_depth_and_records_dfa_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let (o, path) = gen_file(
        dir.path(),
        "re.json",
        &[
            "--kind",
            "regex",
            "--depth",
            "10",
            "--branching",
            "30",
            "--per-category",
            "5",
        ],
    );
    assert!(o.status.success());
    let ds = Dataset::load(&path).unwrap();
    assert_eq!(ds.syntax, autoeval::syntax::SyntaxKind::Regex);
    assert_eq!(ds.filter_field(), "depth");
    for (item, e) in ds.file.data.iter().zip(&ds.exprs) {
        let Expr::Regex(r) = e else { panic!() };
        let m = autoeval::syntax::regex_metrics(r);
        assert!(m.in_grammar, "{}", item.fs);
        assert!(
            m.cfg_depth <= item.depth.unwrap(),
            "{} {:?}",
            item.fs,
            item.depth
        );
        assert!(item.num_nodes.unwrap() >= 1);
    }
}

#[test]
fn user_grammar_files_work_and_bad_ones_say_where() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("imp.cfg");
    std::fs::write(
        &g,
        "# implications\nS -> ( S -> S ) | ( S '<->' S ) | $prop\n",
    )
    .unwrap();
    let flags = [
        "--grammar",
        g.to_str().unwrap(),
        "--depth",
        "8",
        "--branching",
        "20",
        "--per-category",
        "3",
    ];
    let (o, path) = gen_file(dir.path(), "imp.json", &flags);
    // '->' bare is the rule arrow, so the first alternative is malformed at column 10.
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("imp.cfg:2:10"), "{err}");
    assert!(!path.exists());

    std::fs::write(&g, "S -> ( S '->' S ) | ( S '<->' S ) | $prop\n").unwrap();
    let (o, path) = gen_file(dir.path(), "imp.json", &flags);
    common::cli::ok(&o);
    let ds = Dataset::load(&path).unwrap();
    assert!(ds.file.data.iter().any(|i| i.fs.contains("->")));
    assert!(ds.skipped.is_empty());
}

#[test]
fn bad_parameters_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (
            vec!["--kind", "pl", "--depth", "0"],
            "--depth must be at least 1",
        ),
        (
            vec!["--kind", "pl", "--per-category", "0"],
            "--per-category must be at least 1",
        ),
        (
            vec!["--kind", "fol", "--min-arity", "3", "--max-arity", "2"],
            "min ≤ max",
        ),
        (
            vec!["--kind", "pl", "--batches", "0"],
            "--batches must be at least 1",
        ),
        (
            vec!["--grammar", "/nonexistent.cfg"],
            "cannot read grammar file",
        ),
    ] {
        let (o, _) = gen_file(dir.path(), "x.json", &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let g = dir.path().join("loop.cfg");
    std::fs::write(&g, "S -> ( S and S )\n").unwrap();
    let (o, _) = gen_file(dir.path(), "x.json", &["--grammar", g.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no terminating derivation"));
}

#[test]
fn a_grammar_without_leaves_at_some_nodes_terminates() {
    // T can never finish, so nodes holding T yield no leaves; the walk budget must stop it.
    let cfg = Cfg::parse("S -> S and S | ( T ) | $prop | not $prop\nT -> T or T | ( T )\n");
    let cfg = match cfg {
        Err(e) => panic!("{e}"),
        Ok(c) => c,
    };
    let p = GenParams {
        depth: 20,
        branching: 50,
        per_category: 3,
        ..Default::default()
    };
    let b = generate_batch(&cfg, &p, 1, 0, &mut |_| {}).unwrap();
    assert!(!b.items.is_empty());
}

#[test]
fn reads_the_original_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dataset.json");
    std::fs::write(
        &path,
        r#"{"info": {"type": "dataset", "grammar": "[s -> q]", "seed": 1, "max_depth": 40, "n": 200,
             "sample_count": 50, "filter_field": "num_operators", "variable_info": {}, "predicate_info": {}},
            "metadata": {"num_operators": {"total": 3, "1": 2, "0": 1}},
            "data": [
              {"idx": 0, "fs": "∀ x1 x2.pred1(x1,vera)", "depth": 4, "num_operators": 0, "num_propositions": 2, "num_quantifiers": 2, "num_predicates": 1},
              {"idx": 1, "fs": "(give(vera,vince) v ¬love(eva))", "depth": 3, "num_operators": 1, "num_propositions": 0, "num_quantifiers": 0, "num_predicates": 2,
               "llm_fs": "x", "verification": {"is_equivalent": true, "has_error": null}},
              {"idx": 2, "fs": "((p1 v p2) ∧ ", "depth": 3, "num_operators": 1}
            ],
            "num_operators": {"0": [0], "1": [1, 2]}}"#,
    )
    .unwrap();
    let ds = Dataset::load(&path).unwrap();
    assert_eq!(ds.syntax, autoeval::syntax::SyntaxKind::Fol);
    assert_eq!(ds.exprs.len(), 2);
    assert_eq!(ds.exprs[1].to_unicode(), "give(vera,vince) ∨ ¬love(eva)");
    assert!(ds.file.data[1].extra.contains_key("verification"));
    assert_eq!(ds.skipped.len(), 1);
    assert!(ds.skipped[0].contains("sample 2"), "{:?}", ds.skipped);

    std::fs::write(&path, "{\"info\": {}, \"data\": [ {\"idx\": 0 } ]}").unwrap();
    let err = Dataset::load(&path).unwrap_err().to_string();
    assert!(err.contains("dataset.json:1:"), "{err}");
}
