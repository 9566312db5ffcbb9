//! `--resume` knows a dataset by its content, not its path, and records another
//! `--base-url` in run.json instead of silently overwriting it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{ok, ok_stderr};
use common::{fake_server, manifest, run_cmd, samples};
use std::path::Path;

fn generate(path: &Path) {
    common::cli::generate("pl", "1", path);
}

fn offline(dataset: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    common::cli::perturb_dataset(dataset, out, extra)
        .output()
        .unwrap()
}

#[test]
fn a_moved_copy_resumes_and_an_edited_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.json");
    generate(&a);
    let out = tmp.path().join("run");
    ok(&offline(&a, &out, &["--limit", "2"]));
    let hash = manifest(&out)["dataset"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(hash.len(), 64);
    // The same bytes under another path: the same dataset.
    let moved = tmp.path().join("elsewhere").join("b.json");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::copy(&a, &moved).unwrap();
    ok(&offline(&moved, &out, &["--limit", "4", "--resume"]));
    assert_eq!(samples(&out).len(), 4);
    assert_eq!(manifest(&out)["dataset"]["sha256"], hash.as_str());
    // The same path, one formula edited (same number of items): refused.
    let text = std::fs::read_to_string(&a).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fs = v["data"][5]["fs"].as_str().unwrap().to_string();
    v["data"][5]["fs"] = format!("¬({fs})").into();
    std::fs::write(&a, serde_json::to_string(&v).unwrap()).unwrap();
    let o = offline(&a, &out, &["--limit", "6", "--resume"]);
    let err = common::cli::refused(&o, "dataset content (SHA-256");
    assert!(err.contains(&hash), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(samples(&out).len(), 4, "nothing written");
}

#[test]
fn another_base_url_on_resume_is_recorded() {
    let (one, two) = (fake_server(0), fake_server(0));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    ok(&run_cmd(&one.base, &out, &["--limit", "2"])
        .output()
        .unwrap());
    assert!(manifest(&out).get("endpoints").is_none());
    let err = ok_stderr(
        &run_cmd(&two.base, &out, &["--limit", "4", "--resume"])
            .output()
            .unwrap(),
    );
    assert!(err.contains("resumed against another --base-url"), "{err}");
    let m = manifest(&out);
    let urls: Vec<&str> = m["endpoints"]
        .as_array()
        .unwrap_or_else(|| panic!("no endpoints in {m}"))
        .iter()
        .map(|e| e["base_url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [format!("{}/v1", one.base), format!("{}/v1", two.base)]
    );
    assert_eq!(m["model"]["base_url"], format!("{}/v1", two.base));
    // The same endpoint again adds nothing.
    let err = ok_stderr(
        &run_cmd(&two.base, &out, &["--limit", "5", "--resume"])
            .output()
            .unwrap(),
    );
    assert!(!err.contains("another --base-url"), "{err}");
    assert_eq!(manifest(&out)["endpoints"].as_array().unwrap().len(), 2);
}
