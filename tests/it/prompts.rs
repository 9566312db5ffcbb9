//! `autoeval prompts --export`: never overwrites edited templates without `--force`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::bin_in as bin;

#[test]
fn export_refuses_to_overwrite_edited_templates_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("prompts");
    let out = bin(tmp.path())
        .args(["prompts", "--export"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Exporting again over unchanged files is fine.
    let again = bin(tmp.path())
        .args(["prompts", "--export"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    let judge = dir.join("judge.txt");
    let edited = "my own judge prompt {formula} {formula2}\n";
    std::fs::write(&judge, edited).unwrap();
    let refused = bin(tmp.path())
        .args(["prompts", "--export"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("judge.txt") && err.contains("--force"),
        "{err}"
    );
    assert!(
        !err.contains("informalize-logic.txt"),
        "only the edited file is listed: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(&judge).unwrap(),
        edited,
        "nothing lost"
    );
    let forced = bin(tmp.path())
        .args(["prompts", "--force", "--export"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(forced.status.success(), "{forced:?}");
    assert!(String::from_utf8_lossy(&forced.stderr).contains("overwrote judge.txt"));
    assert_ne!(std::fs::read_to_string(&judge).unwrap(), edited);
}
