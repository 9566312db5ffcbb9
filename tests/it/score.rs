//! One scoring path: `autoeval score` for one sample and for JSON lines, and
//! `import --reverify` agreeing with `rescore` of the import.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::bin_in as bin;
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

fn score_one(home: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let o = bin(home).arg("score").args(args).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let v = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("{e}: {text} {}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), v)
}

#[test]
fn score_one_sample_gives_the_run_verdicts() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (code, v) = score_one(
        h,
        &[
            "--syntax",
            "pl",
            "--phi0",
            "(p1 ∧ ¬p2) ∨ p3",
            "--psi",
            "Either p1 holds and p2 does not, or p3 holds.",
            "--reply",
            "So the formula is (p1 & ~p2) | p3.",
        ],
    );
    assert_eq!(code, Some(0));
    assert_eq!(v["verdict"], "equivalent");
    assert_eq!(v["phi1"], "(p1 ∧ ¬p2) ∨ p3");
    assert_eq!(v["phi1_span"], serde_json::json!([18, 33]));
    assert_eq!(v["copy_span"], Value::Null);
    assert_eq!(v["kinds"], serde_json::json!([]));

    // ψ that writes the formula is a copy, whatever the reply.
    let psi = "It is p3 v (p1 ^ -p2).";
    let (code, v) = score_one(
        h,
        &[
            "--syntax",
            "pl",
            "--phi0",
            "(p1 ∧ ¬p2) ∨ p3",
            "--psi",
            psi,
            "--reply",
            "p3",
        ],
    );
    assert_eq!(code, Some(1));
    assert_eq!(v["verdict"], "copied");
    let span = v["copy_span"].as_array().unwrap();
    let (s, e) = (
        span[0].as_u64().unwrap() as usize,
        span[1].as_u64().unwrap() as usize,
    );
    assert_eq!(&psi[s..e], "v");
    assert_eq!(v["kinds"], serde_json::json!(["copied"]));
    assert!(v["reason"].as_str().unwrap().contains("formula position"));

    // Without ψ there is no copy check.
    let (_, v) = score_one(h, &["--syntax", "regex", "--phi0", "0*", "--reply", "`0*`"]);
    assert_eq!(v["verdict"], "equivalent");

    // A wrong answer: not-equivalent with a countermodel as the reason and its kinds.
    let (code, v) = score_one(
        h,
        &[
            "--syntax",
            "pl",
            "--phi0",
            "p1 ∧ p2",
            "--psi",
            "Both hold.",
            "--reply",
            "p1 ∨ p2",
        ],
    );
    assert_eq!(code, Some(1));
    assert_eq!(v["verdict"], "not-equivalent");
    assert!(!v["reason"].as_str().unwrap().is_empty());
    assert!(!v["kinds"].as_array().unwrap().is_empty(), "{v}");

    // Several different answers, none marked.
    let (_, v) = score_one(
        h,
        &[
            "--syntax",
            "pl",
            "--phi0",
            "p1 ∧ p2",
            "--reply",
            "p1 ∧ p2\np1 ∨ p2",
        ],
    );
    assert_eq!(v["verdict"], "unparseable");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .starts_with("off-format: several different answers"),
        "{v}"
    );
    assert_eq!(v["kinds"], serde_json::json!(["off-format"]));

    // Bad input is an error with exit 2, not a verdict.
    let o = bin(h)
        .args(["score", "--syntax", "pl", "--phi0", "p1 ∧", "--reply", "p1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("phi0 does not parse"));
}

#[test]
fn score_samples_answers_every_line_in_order() {
    let home = tempfile::tempdir().unwrap();
    let input = [
        r#"{"syntax": "pl", "phi0": "p1 ∧ p2", "psi": "p1 and p2", "reply": "p2 ∧ p1"}"#,
        "",
        r#"{"syntax": "regex", "phi0": "0*", "psi": "The regular expression `0*` matches zeros.", "reply": "0*"}"#,
        "not json",
        r#"{"phi0": "p1", "reply": "p1"}"#,
        r#"{"syntax": "fol", "phi0": "∀x1.pred1(x1)", "reply": "<formula>∀x1.pred1(x1)</formula>"}"#,
        r#"{"syntax": "pl", "phi0": "p1 ∧", "reply": "p1"}"#,
        r#"{"syntax": "regex", "phi0": "10", "psi": "Exactly the string 10.", "reply": "{\"regex\": \"10\"}"}"#,
    ]
    .join("\n");
    let o = common::cli::fed(bin(home.path()).args(["score", "--samples", "-"]), &input);
    assert_eq!(o.status.code(), Some(2), "bad lines make exit 2");
    let lines: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 8, "one output line per input line");
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["line"], i + 1);
    }
    assert_eq!(lines[0]["verdict"], "equivalent");
    assert!(lines[1]["error"].as_str().unwrap().contains("blank line"));
    assert_eq!(lines[2]["verdict"], "copied");
    assert!(lines[3]["error"].as_str().unwrap().contains("not a sample"));
    assert!(lines[4]["error"].as_str().unwrap().contains("no syntax"));
    assert_eq!(lines[5]["verdict"], "equivalent");
    assert!(
        lines[6]["error"]
            .as_str()
            .unwrap()
            .contains("phi0 does not parse")
    );
    assert_eq!(
        lines[7]["verdict"], "equivalent",
        "a literal named is not a copy"
    );
    for k in [
        "verdict",
        "phi1",
        "phi1_span",
        "copy_span",
        "reason",
        "notes",
        "kinds",
    ] {
        assert!(lines[0].get(k).is_some(), "field {k} missing: {}", lines[0]);
    }
    // --syntax fills in lines that name none.
    let mut child = bin(home.path())
        .args(["score", "--samples", "-", "--syntax", "pl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"phi0": "p1", "reply": "p1"}"#)
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"equivalent\""));
}

/// An original run file in the shape of the original's `*_dataset_nlfs_<model>.json`:
/// a ψ that copies φ₀, a reply with several different formulas, an echoed example,
/// a failed call, and plain answers.
fn original_file(dir: &Path) -> std::path::PathBuf {
    let conv = |psi: &str, reply: &str| {
        serde_json::json!([
            {"role": "user", "content": "Describe the formula in English."},
            {"role": "assistant", "content": psi},
            "RESET",
            {"role": "user", "content": format!(
                "Write the formula for the description.\nExample:\nFormula: (p7 ∧ p8)\n{psi}")},
            {"role": "assistant", "content": reply}
        ])
    };
    let item = |idx: u64, fs: &str, psi: &str, reply: &str, eq: Option<bool>| {
        serde_json::json!({
            "idx": idx, "fs": fs, "num_operators": 1, "llm_fs": reply, "error": null,
            "conversations": conv(psi, reply),
            "verification": {"is_equivalent": eq, "has_error": if eq.is_none() { Value::from("syntax error") } else { Value::Null }},
        })
    };
    let data = serde_json::json!({
        "info": {"type": "dataset", "filter_field": "num_operators"},
        "data": [
            item(0, "(p1 ∧ p2)", "The formula is p1 ∧ p2.", "p1 ∧ p2", Some(true)),
            item(1, "(p1 ∨ ¬p2)", "Either p1 holds or p2 does not.", "p1 ∨ ¬p2\np1 ∧ p2\np2", Some(true)),
            item(2, "¬p3", "p3 does not hold.", "Formula: (p7 ∧ p8)\n¬p3", Some(true)),
            item(3, "(p4 → p5)", "If p4 then p5.", "So the formula is p4 → p5.", None),
            item(4, "(p4 ↔ p5)", "p4 exactly when p5.", "p4 ∨ p5", Some(false)),
            {"idx": 5, "fs": "p6", "num_operators": 0, "llm_fs": null, "error": "rate limited",
             "conversations": conv("p6 holds.", "")},
            item(6, "(p1 ∧ p6)", "Both p1 and p6: p1 & p6.", "p1 ∧ p6", Some(true)),
        ]
    });
    let file = dir.join("plogic_dataset_nlfs_mistral.json");
    std::fs::write(&file, serde_json::to_string_pretty(&data).unwrap()).unwrap();
    file
}

fn verdicts(run: &Path) -> Vec<(String, String, Option<String>)> {
    let text = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let mut v: Vec<_> = text
        .lines()
        .map(|l| {
            let r: Value = serde_json::from_str(l).unwrap();
            (
                r["id"].as_str().unwrap().to_string(),
                r["verdict"]["verdict"].as_str().unwrap().to_string(),
                r["rounds"][0]["phi1"].as_str().map(str::to_string),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn import_reverify_equals_rescore_of_the_import() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let file = original_file(h);
    let imported = h.join("imported");
    let o = bin(h)
        .arg("import")
        .arg(&file)
        .arg("--out")
        .arg(&imported)
        .arg("--reverify")
        .output()
        .unwrap();
    common::cli::ok(&o);
    let ours = verdicts(&imported);
    let by_id = |id: &str| ours.iter().find(|x| x.0 == id).unwrap().1.clone();
    // The copy check, the several-answers rule and the echo check apply on import too.
    assert_eq!(by_id("0"), "copied");
    assert_eq!(by_id("1"), "unparseable");
    assert_eq!(by_id("2"), "equivalent");
    assert_eq!(by_id("3"), "equivalent");
    assert_eq!(by_id("4"), "not-equivalent");
    assert_eq!(by_id("5"), "model-error");
    assert_eq!(by_id("6"), "copied");

    let rescored = h.join("rescored");
    let o = bin(h)
        .arg("rescore")
        .arg(&imported)
        .arg("--out")
        .arg(&rescored)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        verdicts(&rescored),
        ours,
        "rescore of the import changed it: {out}"
    );
    // The copied sample keeps the stored reply.
    let text = std::fs::read_to_string(rescored.join("samples.jsonl")).unwrap();
    assert!(text.contains("\"output\":\"p1 ∧ p2\""), "{text}");
}

/// Peak resident memory (VmHWM, KiB) of a child, read until it exits.
fn peak_rss_kib(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb);
        }
        if let Some(st) = child.try_wait().unwrap() {
            return (st, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn score_samples_memory_does_not_grow_with_the_input() {
    let home = tempfile::tempdir().unwrap();
    // `lines` lines of 256 KiB each (the reasoning is kept apart, never scored).
    let write = |name: &str, lines: usize| {
        let input = home.path().join(name);
        let pad = "r".repeat(256 << 10);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for i in 0..lines {
            let line = serde_json::json!({
                "syntax": "pl", "phi0": "p ∧ q", "psi": "both p and q",
                "reply": if i % 2 == 0 { "p ∧ q" } else { "q ∧ p" }, "reasoning": pad,
            });
            writeln!(f, "{line}").unwrap();
        }
        input
    };
    let peak_of = |input: &std::path::Path| {
        let child = bin(home.path())
            .args(["score", "--samples"])
            .arg(input)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (st, peak) = peak_rss_kib(child);
        assert!(st.success(), "{st:?}");
        assert!(peak > 0);
        peak
    };
    // Scoring reads a bounded window of lines at a time (the worker batches): on 288 MiB
    // of input the peak stays far below the input (about 80 MiB measured, most of it
    // the window and the binary's own pages; 96 MiB of input peaks at about the same).
    // A sampled peak moves by ±15 MiB between runs, so the bound is the input's share,
    // not a tight figure.
    let big = peak_of(&write("big.jsonl", 1152));
    eprintln!("score --samples: peak RSS {} MiB on 288 MiB", big >> 10);
    assert!(
        big < 120 << 10,
        "peak RSS {} MiB for a 288 MiB input",
        big >> 10
    );
}
