//! Without the cargo feature `bertscore`, `--bertscore-model` (`metrics pairs`, `run`,
//! `rescore`) is refused with the rebuild command instead of silently storing or
//! printing no `bertscore_minilm`.
#![cfg(not(feature = "bertscore"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common;
use crate::common::cli;

#[test]
fn bertscore_model_without_the_feature_names_the_rebuild() {
    let home = tempfile::tempdir().unwrap();
    let pairs = home.path().join("pairs.tsv");
    std::fs::write(&pairs, "P(a)\tP(b)\n").unwrap();
    let out = cli::bin_in(home.path())
        .env_remove("AUTOEVAL_BERTSCORE_MODEL")
        .args(["metrics", "pairs"])
        .arg(&pairs)
        .args(["--bertscore-model", "/some/minilm"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "nothing is scored");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--features bertscore") && err.contains("/some/minilm"),
        "{err}"
    );
}

#[test]
fn run_and_rescore_refuse_bertscore_model_without_the_feature_before_writing() {
    let home = tempfile::tempdir().unwrap();
    let out_dir = home.path().join("run");
    let src = common::fixtures::run("fol-small");
    for args in [
        vec!["run", "--kind", "fol", "--model", "perturb", "--quiet"],
        vec!["run", "--task", "folio-i", "--model", "perturb", "--quiet"],
        vec!["rescore", src.to_str().unwrap()],
    ] {
        let out = cli::bin_in(home.path())
            .env_remove("AUTOEVAL_BERTSCORE_MODEL")
            .args(&args)
            .arg("--out")
            .arg(&out_dir)
            .args(["--bertscore-model", "/some/minilm"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains("--features bertscore") && err.contains("/some/minilm"),
            "{args:?}: {err}"
        );
        assert!(!out_dir.join("samples.jsonl").exists(), "{args:?}");
    }
}
