//! `bertscore_minilm` (cargo feature `bertscore`): the tokenizer against the Python
//! tokenizer's ids on every FOLIO string, and the score through `metrics pairs
//! --bertscore-model` against the Python bert-score package on a tiny deterministic
//! model built here (and, when `AUTOEVAL_TEST_MINILM_DIR` names the real
//! all-MiniLM-L6-v2 files, on the real weights). Expected values: tests/data/bertscore/,
//! made by its build_oracle.py.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common::cli;

use autoeval::analysis::bertscore_minilm::BertScoreMiniLm;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::tiny_bert;
use tiny_bert::{INTER, tiny_model};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bertscore")
        .join(name)
}

fn jsonl(name: &str) -> Vec<Value> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The isolated binary, without a MiniLM directory from the developer's shell.
fn bin(home: &Path) -> Command {
    let mut c = cli::bin_in(home);
    c.env_remove("AUTOEVAL_BERTSCORE_MODEL");
    c
}

/// Runs `metrics pairs - EXTRA…` on `input`: stdout lines parsed, exit code, stderr.
fn pairs(home: &Path, input: &str, extra: &[&str]) -> (Vec<Value>, i32, String) {
    let out = cli::fed(bin(home).args(["metrics", "pairs", "-"]).args(extra), input);
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        lines,
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Scores the oracle's pairs through the binary with the model in `dir`; returns the
/// largest difference from bert-score's F1.
fn max_diff_through_cli(dir: &Path, oracle: &[Value]) -> f64 {
    let home = tempfile::tempdir().unwrap();
    let input: String = oracle
        .iter()
        .map(|r| serde_json::json!({"a": r["a"], "b": r["b"]}).to_string() + "\n")
        .collect();
    let (got, _, err) = pairs(
        home.path(),
        &input,
        &["--bertscore-model", dir.to_str().unwrap()],
    );
    assert_eq!(got.len(), oracle.len(), "{err}");
    let mut max = 0f64;
    for (i, (want, have)) in oracle.iter().zip(&got).enumerate() {
        let w = want["bertscore_minilm"].as_f64().unwrap();
        let h = have["bertscore_minilm"]
            .as_f64()
            .unwrap_or_else(|| panic!("line {}: no bertscore_minilm in {have}", i + 1));
        assert!(
            (w - h).abs() <= 1e-4,
            "line {}: {} ⟂ {}: bert-score {w}, autoeval {h}",
            i + 1,
            want["a"],
            want["b"]
        );
        max = max.max((w - h).abs());
    }
    max
}

#[test]
fn tokenizer_ids_equal_the_python_tokenizers_on_every_folio_string() {
    let dir = tempfile::tempdir().unwrap();
    tiny_model(dir.path());
    let model = BertScoreMiniLm::load(dir.path()).unwrap();
    let rows = jsonl("folio-token-ids.jsonl");
    assert!(rows.len() > 5000, "{} strings", rows.len());
    let mut wrong = Vec::new();
    for r in &rows {
        let s = r["s"].as_str().unwrap();
        let want: Vec<u32> = r["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        if model.token_ids(s) != want {
            wrong.push(format!(
                "{s:?}: want {want:?}, got {:?}",
                model.token_ids(s)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        rows.len(),
        wrong[..wrong.len().min(10)].join("\n")
    );
}

#[test]
fn tiny_model_scores_equal_bert_score_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    tiny_model(dir.path());
    let oracle = jsonl("tiny-oracle.jsonl");
    assert!(oracle.len() >= 300);
    let max = max_diff_through_cli(dir.path(), &oracle);
    eprintln!(
        "tiny model: max |autoeval − bert-score| = {max:.2e} over {} pairs",
        oracle.len()
    );
}

#[test]
fn real_minilm_scores_equal_bert_score_when_the_model_is_there() {
    let Some(dir) = std::env::var_os("AUTOEVAL_TEST_MINILM_DIR") else {
        eprintln!(
            "SKIPPED: set AUTOEVAL_TEST_MINILM_DIR to the unpacked all-MiniLM-L6-v2 directory \
             to check bertscore_minilm against bert-score on the real weights"
        );
        return;
    };
    let oracle = jsonl("minilm-oracle.jsonl");
    let max = max_diff_through_cli(Path::new(&dir), &oracle);
    eprintln!(
        "all-MiniLM-L6-v2: max |autoeval − bert-score| = {max:.2e} over {} pairs",
        oracle.len()
    );
}

#[test]
fn the_field_is_absent_without_a_model_and_edge_pairs_score_as_bert_score_does() {
    let home = tempfile::tempdir().unwrap();
    let (got, code, _) = pairs(home.path(), "P(a)\tP(b)\n", &[]);
    assert_eq!(code, 0);
    assert!(got[0].get("bertscore_minilm").is_none(), "{}", got[0]);
    let dir = tempfile::tempdir().unwrap();
    tiny_model(dir.path());
    let d = dir.path().to_str().unwrap();
    // Identical strings score 1; an empty side scores 0 (bert-score's rule); a line
    // that is not a pair keeps its error line and has no score.
    let input = "P(a) ∧ Q(b)\tP(a) ∧ Q(b)\n{\"a\": \"P(a)\", \"b\": \"\"}\nnot a pair\n";
    let (got, code, _) = pairs(home.path(), input, &["--bertscore-model", d]);
    assert_eq!(code, 1);
    assert!((got[0]["bertscore_minilm"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    assert_eq!(got[1]["bertscore_minilm"].as_f64(), Some(0.0));
    assert!(got[2].get("error").is_some() && got[2].get("bertscore_minilm").is_none());
    // The environment variable names the directory too.
    let out = bin(home.path())
        .args(["metrics", "pairs", "-"])
        .env("AUTOEVAL_BERTSCORE_MODEL", d)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = out;
    out.stdin
        .take()
        .unwrap()
        .write_all(b"P(a)\tP(a)\n")
        .unwrap();
    let out = out.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"bertscore_minilm\":"));
}

#[test]
fn the_pip_packages_layout_with_tokenizer_json_only_loads() {
    let dir = tempfile::tempdir().unwrap();
    tiny_model(dir.path());
    let vocab = std::fs::read_to_string(dir.path().join("vocab.txt")).unwrap();
    let map: serde_json::Map<String, Value> = vocab
        .lines()
        .enumerate()
        .map(|(i, t)| (t.to_string(), Value::from(i)))
        .collect();
    let tj = serde_json::json!({"model": {"type": "WordPiece", "continuing_subword_prefix": "##", "vocab": map}});
    std::fs::write(dir.path().join("tokenizer.json"), tj.to_string()).unwrap();
    let with_txt = BertScoreMiniLm::load(dir.path()).unwrap();
    std::fs::remove_file(dir.path().join("vocab.txt")).unwrap();
    let with_json = BertScoreMiniLm::load(dir.path()).unwrap();
    let s = "∀x (Café(x) → ¬Tired(x)) [SEP]";
    assert_eq!(with_txt.token_ids(s), with_json.token_ids(s));
    let pairs = [("P(a) ∧ Q(b)", "Q(b) ∧ P(a)")];
    assert_eq!(with_txt.f1(&pairs).unwrap(), with_json.f1(&pairs).unwrap());
}

/// Runs with `--bertscore-model DIR` on one pair: exit code and stderr.
fn refused(dir: &Path) -> (i32, String) {
    let home = tempfile::tempdir().unwrap();
    let (got, code, err) = pairs(
        home.path(),
        "P(a)\tP(b)\n",
        &["--bertscore-model", dir.to_str().unwrap()],
    );
    assert!(
        got.is_empty(),
        "nothing is scored with a broken model: {got:?}"
    );
    (code, err)
}

#[test]
fn a_missing_or_malformed_model_directory_is_refused_with_the_file_named() {
    let root = tempfile::tempdir().unwrap();
    let (code, err) = refused(&root.path().join("nope"));
    assert_ne!(code, 0);
    assert!(err.contains("does not exist"), "{err}");

    let fresh = |name: &str| {
        let d = root.path().join(name);
        std::fs::create_dir(&d).unwrap();
        tiny_model(&d);
        d
    };
    let d = fresh("no-weights");
    std::fs::remove_file(d.join("model.safetensors")).unwrap();
    let (code, err) = refused(&d);
    assert_ne!(code, 0);
    assert!(
        err.contains("model.safetensors") && err.contains("config.json"),
        "{err}"
    );

    let d = fresh("truncated");
    let w = std::fs::read(d.join("model.safetensors")).unwrap();
    std::fs::write(d.join("model.safetensors"), &w[..w.len() / 2]).unwrap();
    let (_, err) = refused(&d);
    assert!(err.contains("not a readable safetensors file"), "{err}");

    let d = fresh("garbage");
    std::fs::write(d.join("model.safetensors"), [0xffu8; 64]).unwrap();
    let (_, err) = refused(&d);
    assert!(err.contains("not a readable safetensors file"), "{err}");

    let d = fresh("bad-config");
    std::fs::write(
        d.join("config.json"),
        r#"{"model_type": "bert", "vocab_size": 30522, "hidden_size": 9, "num_hidden_layers": 2,
            "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 512}"#,
    )
    .unwrap();
    let (_, err) = refused(&d);
    assert!(
        err.contains("config.json") && err.contains("not a multiple"),
        "{err}"
    );

    let d = fresh("wrong-shape");
    let mut c: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("config.json")).unwrap()).unwrap();
    c["intermediate_size"] = 32.into();
    std::fs::write(d.join("config.json"), c.to_string()).unwrap();
    let (_, err) = refused(&d);
    assert!(
        err.contains("encoder.layer.0.intermediate.dense.weight") && err.contains("[16, 8]"),
        "{err}"
    );

    let d = fresh("other-arch");
    c["intermediate_size"] = INTER.into();
    c["model_type"] = "roberta".into();
    std::fs::write(d.join("config.json"), c.to_string()).unwrap();
    let (_, err) = refused(&d);
    assert!(err.contains("roberta"), "{err}");

    let d = fresh("bad-vocab");
    std::fs::write(d.join("vocab.txt"), "a\nb\n").unwrap();
    let (_, err) = refused(&d);
    assert!(err.contains("vocab.txt") && err.contains("[UNK]"), "{err}");

    let d = fresh("cased");
    std::fs::write(
        d.join("tokenizer_config.json"),
        r#"{"do_lower_case": false}"#,
    )
    .unwrap();
    let (_, err) = refused(&d);
    assert!(err.contains("uncased"), "{err}");
}

/// Runs the binary with `args` in an isolated home; asserts success, returns stdout.
fn run_ok(home: &Path, args: &[&str]) -> String {
    let out = bin(home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("AUTOEVAL_CACHE_DIR", home.join("cache"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Asserts that every closeness record of the run in `run` holds `bertscore_minilm`
/// equal to `metrics pairs` on the FOLIO printings of its φ₀ and φ₁; returns the values.
fn stored_equal_metrics_pairs(home: &Path, model: &Path, run: &Path) -> Vec<f64> {
    use autoeval::analysis::paper_notation::paper_notation;
    use autoeval::syntax::{Expr, SyntaxKind, parse};
    let folio = |s: &str| match parse(s, SyntaxKind::Fol).unwrap() {
        Expr::Logic(f) => paper_notation(&f).unwrap(),
        Expr::Regex(_) => unreachable!(),
    };
    let (mut input, mut want) = (String::new(), Vec::new());
    for l in std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(l).unwrap();
        if v["closeness"].is_null() {
            continue;
        }
        let b = v["closeness"]["bertscore_minilm"]
            .as_f64()
            .unwrap_or_else(|| panic!("no bertscore_minilm: {l}"));
        let phi1 = v["rounds"][0]["phi1"].as_str().unwrap();
        input += &format!("{}\t{}\n", folio(v["phi0"].as_str().unwrap()), folio(phi1));
        want.push(b);
    }
    assert!(want.len() >= 3);
    let (got, code, err) = pairs(
        home,
        &input,
        &["--bertscore-model", model.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        let g = g["bertscore_minilm"].as_f64().unwrap();
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
    want
}

#[test]
fn run_with_a_model_stores_bertscore_minilm_in_every_closeness_record() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let model = root.path().join("model");
    std::fs::create_dir_all(&model).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    tiny_model(&model);
    let run = root.path().join("run");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let args = |out: &Path| {
        vec![
            "run".to_string(),
            "--kind".into(),
            "fol".into(),
            "--per-category".into(),
            "2".into(),
            "--model".into(),
            "perturb".into(),
            "--quiet".into(),
            "--out".into(),
            s(out),
        ]
    };
    let mut with_model = args(&run);
    with_model.extend(["--bertscore-model".to_string(), s(&model)]);
    let refs: Vec<&str> = with_model.iter().map(String::as_str).collect();
    run_ok(&home, &refs);
    let want = stored_equal_metrics_pairs(&home, &model, &run);
    assert!(want.len() >= 5, "{want:?}");
    // Without the flag the field is absent.
    let plain = root.path().join("plain");
    let args = args(&plain);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&home, &refs);
    let text = std::fs::read_to_string(plain.join("samples.jsonl")).unwrap();
    assert!(text.contains("\"closeness\"") && !text.contains("bertscore_minilm"));
    // A directory that is not a model stops the run before it starts, naming the file.
    let out = bin(&home)
        .args([
            "run", "--kind", "fol", "--model", "perturb", "--quiet", "--out",
        ])
        .arg(root.path().join("never"))
        .arg("--bertscore-model")
        .arg(root.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("config.json"), "{err}");
    assert!(!root.path().join("never").join("samples.jsonl").exists());
}

#[test]
fn rescore_with_a_model_stores_bertscore_minilm_equal_to_metrics_pairs_on_the_folio_printings() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let model = root.path().join("model");
    std::fs::create_dir_all(&model).unwrap();
    tiny_model(&model);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/fol-small");
    let run = root.path().join("run");
    std::fs::create_dir_all(&home).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    run_ok(
        &home,
        &[
            "rescore",
            &s(&src),
            "--out",
            &s(&run),
            "--bertscore-model",
            &s(&model),
        ],
    );
    let want = stored_equal_metrics_pairs(&home, &model, &run);
    // `report --json` averages it; a rescore without the model keeps the stored value.
    let report: Value =
        serde_json::from_str(&run_ok(&home, &["report", "--format", "json", &s(&run)])).unwrap();
    let n = report["runs"][0]["closeness_metrics"]["bertscore_minilm"]["n"].as_u64();
    assert_eq!(n, Some(want.len() as u64), "{report}");
    let again = root.path().join("again");
    run_ok(&home, &["rescore", &s(&run), "--out", &s(&again)]);
    let kept = std::fs::read_to_string(again.join("samples.jsonl")).unwrap();
    let kept: Vec<f64> = kept
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["closeness"]["bertscore_minilm"].as_f64()
        })
        .collect();
    assert_eq!(kept, want);
}

#[test]
fn metrics_perturb_fills_the_bs_column_with_a_model() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    tiny_model(dir.path());
    let f = home.path().join("mini.jsonl");
    std::fs::write(
        &f,
        "{\"story_id\": 1, \"premises-FOL\": [\"∀x (Eel(x) → Fish(x))\", \"Tall(bob) ∧ ¬Red(bob)\"]}\n",
    )
    .unwrap();
    let out = bin(home.path())
        .args(["metrics", "perturb", "--json", "--bertscore-model"])
        .arg(dir.path())
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["metrics"][5], "bertscore_minilm");
    let rows = v["rows"].as_array().unwrap();
    // Identity scores 1; every row has a BS mean in [0, 1], as `metrics pairs` scores.
    assert!((rows[0]["means"][5].as_f64().unwrap() - 1.0).abs() < 1e-6);
    for r in rows {
        let bs = r["means"][5].as_f64().unwrap();
        // f32 embeddings: identity can land a few 1e-8 above 1.
        assert!((0.0..=1.0 + 1e-6).contains(&bs), "{r}");
    }
    // Negation changes both records: its mean is that of `metrics pairs` on the pairs.
    let neg = rows
        .iter()
        .find(|r| r["perturbation"] == "Negation")
        .unwrap();
    assert!(neg["means"][5].as_f64().unwrap() < 1.0, "{neg}");
}
