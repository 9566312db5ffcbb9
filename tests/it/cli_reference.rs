//! docs/src/reference/cli.md is what `autoeval cli-reference` prints from the clap command tree: this
//! test fails when a flag, default or help text changed and the file was not regenerated.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin, ok};
use std::path::Path;

const REGENERATE: &str = "cargo run -- cli-reference > docs/src/reference/cli.md";

#[test]
fn checked_in_reference_is_current() {
    let now = ok(&bin().arg("cli-reference").output().unwrap());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/reference/cli.md");
    let Ok(was) = std::fs::read_to_string(&path) else {
        panic!("{} is missing; make it with: {REGENERATE}", path.display());
    };
    if was != now {
        let first = was
            .lines()
            .zip(now.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| was.lines().count().min(now.lines().count()));
        panic!(
            "docs/src/reference/cli.md is stale (first difference at line {}: checked in {:?}, generated {:?}); \
             regenerate it with: {REGENERATE}",
            first + 1,
            was.lines().nth(first).unwrap_or("(end of file)"),
            now.lines().nth(first).unwrap_or("(end of file)"),
        );
    }
}

#[test]
fn reference_covers_every_subcommand_and_flag() {
    let md = ok(&bin().arg("cli-reference").output().unwrap());
    // Every visible subcommand of `--help` has its section.
    let help = ok(&bin().arg("--help").output().unwrap());
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 15, "{help}");
    for c in &commands {
        assert!(
            md.contains(&format!("\n## autoeval {c}\n")),
            "no section for {c}"
        );
    }
    assert!(
        !md.contains("## autoeval cli-reference") && !md.contains("[`autoeval cli-reference`]"),
        "the hidden command is not documented"
    );
    // A flag with its default and accepted values, a nested subcommand, an env variable.
    assert!(md.contains("## autoeval metrics perturb\n"), "{md}");
    let export = md.split("\n## autoeval export\n").nth(1).unwrap();
    let export = export.split("\n## ").next().unwrap();
    assert!(export.contains("- `--format <FORMAT>`"), "{export}");
    assert!(
        export.contains("(required; one of `inspect`, `inspect-json`, `jsonl-flat`, `parquet`)"),
        "{export}"
    );
    assert!(md.contains("env `AUTOEVAL_BERTSCORE_MODEL`"), "{md}");
    assert!(
        md.contains("- `--depth <DEPTH>` — Levels of the derivation tree\n  (default `40`)"),
        "{md}"
    );
    // Every long flag `export --help` prints is in the reference.
    let help = ok(&bin().args(["export", "--help"]).output().unwrap());
    for flag in help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches([',', '.', ')']))
        .filter(|w| *w != "--help")
    {
        assert!(
            export.contains(&format!("`{flag}")) || export.contains(&format!(", {flag}")),
            "{flag} missing:\n{export}"
        );
    }
}
