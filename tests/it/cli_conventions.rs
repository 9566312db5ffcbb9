//! CLI conventions through the binary: shell completions and manual pages generated from
//! the clap command tree, `--format json` on every command that prints a result (with
//! `--json` kept as the older spelling), `--quiet` on the commands that print progress.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok};
use serde_json::Value;

#[test]
fn completions_for_every_shell_name_the_subcommands_and_their_flags() {
    let home = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let text = ok(&bin(home.path())
            .args(["completions", shell])
            .output()
            .unwrap());
        for word in ["export", "leaderboard", "samples-per-log", "completions"] {
            assert!(text.contains(word), "{shell}: {word}");
        }
    }
    let o = bin(home.path())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_prints_roff_and_writes_a_page_per_command() {
    let home = tempfile::tempdir().unwrap();
    let page = ok(&bin(home.path()).arg("man").output().unwrap());
    assert!(page.contains(".TH autoeval 1"), "{page}");
    assert!(page.contains("leaderboard"), "subcommands listed");
    let dir = home.path().join("man1");
    ok(&bin(home.path())
        .args(["man", "--out"])
        .arg(&dir)
        .output()
        .unwrap());
    for name in [
        "autoeval",
        "autoeval-export",
        "autoeval-labels-stats",
        "autoeval-cache-stats",
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.1"))).unwrap();
        assert!(text.contains(".TH"), "{name}");
    }
    let export = std::fs::read_to_string(dir.join("autoeval-export.1")).unwrap();
    assert!(export.contains("samples\\-per\\-log"), "{export}");
    assert!(
        !dir.join("autoeval-cli-reference.1").exists(),
        "hidden commands get no page"
    );
}

#[test]
fn format_json_and_json_say_the_same_and_refuse_to_disagree() {
    let home = tempfile::tempdir().unwrap();
    let a = ok(&bin(home.path())
        .args(["verify", "p & q", "q & p", "--format", "json"])
        .output()
        .unwrap());
    let b = ok(&bin(home.path())
        .args(["verify", "p & q", "q & p", "--json"])
        .output()
        .unwrap());
    // The same object but for the time it took.
    let strip = |t: &str| {
        let mut v: Value = serde_json::from_str(t).unwrap();
        v.as_object_mut().unwrap().remove("elapsed_ms");
        v
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(strip(&a)["verdict"], "equivalent");
    let o = bin(home.path())
        .args(["verify", "p", "p", "--json", "--format", "text"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "--json and --format text disagree"
    );
    // `cache stats` speaks JSON too.
    let s = ok(&bin(home.path())
        .args(["cache", "stats", "--format", "json"])
        .output()
        .unwrap());
    let v: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["answers"], 0);
    assert!(v["path"].is_string() && v["by_model"].is_object(), "{v}");
    let runs = common::fixtures::runs();
    let c = ok(&bin(home.path())
        .args(["compare", "--format", "json"])
        .arg(runs.join("pl-small"))
        .arg(runs.join("pl-small"))
        .output()
        .unwrap());
    assert!(serde_json::from_str::<Value>(&c).is_ok(), "{c}");
}

#[test]
fn quiet_silences_the_commands_that_print_progress() {
    let home = tempfile::tempdir().unwrap();
    let runs = common::fixtures::runs();
    let run = home.path().join("pl-small");
    std::fs::create_dir_all(&run).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(runs.join("pl-small").join(f), run.join(f)).unwrap();
    }
    let o = bin(home.path())
        .args(["export", "--format", "parquet", "--quiet", "--out"])
        .arg(home.path().join("q"))
        .arg(&run)
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(
        common::cli::stderr(&o),
        "",
        "nothing but errors with --quiet"
    );
    for cmd in ["rescore", "import", "export", "run", "generate"] {
        let help = ok(&bin(home.path()).args([cmd, "--help"]).output().unwrap());
        assert!(help.contains("--quiet"), "{cmd}");
    }
}
