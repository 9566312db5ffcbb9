//! `autoeval generate --from-folio`: FOLIO's formulas as a dataset, through the binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
use crate::common::cli;

use autoeval::syntax::{SyntaxKind, parse};
use serde_json::Value;
use std::path::Path;

const FOLIO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/folio/folio-v0.0-train.jsonl"
);

#[test]
fn folio_becomes_a_dataset_with_per_line_errors() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("folio.json");
    let o = cli::bin_in(home.path())
        .args(["generate", "--from-folio", FOLIO, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // FOLIO's malformed formulas (`c++`, `a+`, `^`) are named by file and line.
    for at in [
        ":44: premises-FOL[",
        ":453: premises-FOL[",
        ":524: premises-FOL[",
    ] {
        assert!(
            err.contains(&format!("folio-v0.0-train.jsonl{at}")),
            "{at}: {err}"
        );
    }
    assert!(err.contains("'+'") && err.contains("'^'"), "{err}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(file["info"]["syntax"], "fol");
    let data = file["data"].as_array().unwrap();
    assert!(data.len() > 500, "{} formulas", data.len());
    let folio: std::collections::HashSet<&str> =
        data.iter().map(|d| d["folio"].as_str().unwrap()).collect();
    assert_eq!(folio.len(), data.len(), "each FOLIO formula once");
    for d in data {
        let fs = d["fs"].as_str().unwrap();
        parse(fs, SyntaxKind::Fol).unwrap_or_else(|e| panic!("{fs}: {e:?}"));
        assert!(d["num_operators"].is_u64() && d["folio_line"].is_u64());
    }
    // The metadata counts every item, as for generated files.
    let total: u64 = file["metadata"]["num_operators"]["total"].as_u64().unwrap();
    assert_eq!(total as usize, data.len());
}

/// `generate --from-folio` of `src` into `home/d.json`, which must exit 0: its
/// standard error and the dataset written.
fn from_folio(home: &Path, src: &Path) -> (String, Value) {
    let out = home.join("d.json");
    let o = cli::bin_in(home)
        .args(["generate", "--from-folio"])
        .arg(src)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = cli::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let file = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (err, file)
}

#[test]
fn hostile_folio_lines_are_reported_and_nothing_readable_is_an_error() {
    let home = tempfile::tempdir().unwrap();
    let src = home.path().join("f.jsonl");
    std::fs::write(
        &src,
        "{\"story_id\": 1, \"premises-FOL\": [\"∀x (Likes(x, dc-universe) → Fan(x))\", \"A(x) ∧ (B(x)\"]}\nnot json\n{\"story_id\": 2}\n{\"conclusion-FOL\": \"x = y ∨ P(x)\"}\n",
    )
    .unwrap();
    let (err, file) = from_folio(home.path(), &src);
    assert!(err.contains("f.jsonl:1: premises-FOL[1]"), "{err}");
    assert!(err.contains("f.jsonl:2: not a JSON object"), "{err}");
    assert!(err.contains("f.jsonl:3: no `premises-FOL`"), "{err}");
    let data = file["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert!(
        data[0]["fs_unicode"]
            .as_str()
            .unwrap()
            .contains("dc_universe")
    );
    assert_eq!(file["info"]["renamed"]["dc-universe"], "dc_universe");
    assert!(data[1]["fs_unicode"].as_str().unwrap().contains("Equal"));
    // Nothing readable: an error, and no file.
    std::fs::write(&src, "not json\n").unwrap();
    let none = home.path().join("none.json");
    let o = cli::bin_in(home.path())
        .args(["generate", "--from-folio"])
        .arg(&src)
        .arg("--out")
        .arg(&none)
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no FOLIO formula"));
    assert!(!none.exists());
}

#[test]
fn a_bad_byte_costs_its_line_and_errors_quote_a_bounded_snippet() {
    let home = tempfile::tempdir().unwrap();
    let src = home.path().join("f.jsonl");
    // Line 2 has a byte that is not UTF-8; line 3 a 2 MB formula that does not parse.
    let huge = format!("A(x) ∧ ({}", "B(x) ∧ ".repeat(300_000));
    let mut bytes = Vec::new();
    bytes.extend_from_slice("{\"premises-FOL\": [\"∀x (P(x) → Q(x))\"]}\n".as_bytes());
    bytes.extend_from_slice(b"{\"premises-FOL\": [\"R(a) \xff\"]}\n");
    bytes.extend_from_slice(
        serde_json::json!({"premises-FOL": [huge]})
            .to_string()
            .as_bytes(),
    );
    bytes.extend_from_slice("\n{\"conclusion-FOL\": \"S(b)\"}\n".as_bytes());
    std::fs::write(&src, bytes).unwrap();
    let (err, file) = from_folio(home.path(), &src);
    assert!(err.contains("f.jsonl:2: not valid UTF-8"), "{err}");
    assert!(err.contains("f.jsonl:3: premises-FOL[0]"), "{err}");
    assert!(err.len() < 4096, "stderr of {} bytes", err.len());
    let lines: Vec<u64> = file["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["folio_line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 4], "the lines around the bad ones are kept");
}
