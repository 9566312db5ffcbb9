//! `autoeval leaderboard` through the binary: runs folded per (model, dataset), Wilson
//! intervals against statsmodels' values, judge F1 in its model's row, every format,
//! `--rows dataset`, folders.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use common::cli::{bin_in as bin, ok};
use serde_json::Value;
use std::path::Path;

fn offline(home: &Path, out: &Path, kind: &str, rate: &str, seed: &str) {
    common::cli::perturbed_run(home, out, kind, ("1", "12"), rate, seed);
}

fn wilson(k: u64, n: u64) -> [f64; 2] {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/intervals/wilson95.json");
    let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    let w = &v[n.to_string()][usize::try_from(k).unwrap()];
    [w[0].as_f64().unwrap(), w[1].as_f64().unwrap()]
}

#[test]
fn leaderboard_folds_runs_per_model_and_dataset_in_every_format() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    offline(home.path(), &runs.join("a-pl"), "pl", "0.3", "1");
    offline(home.path(), &runs.join("a-pl-again"), "pl", "0.3", "2");
    offline(home.path(), &runs.join("a-fol"), "fol", "0.3", "1");
    offline(home.path(), &runs.join("b_pl"), "pl", "0.6", "1");
    std::fs::write(runs.join("notes.txt"), "not a run").unwrap();
    // perturb-0.3 judges model b's run: its F1 lands in perturb-0.3's pl cell.
    ok(&bin(home.path())
        .args(["judge", "--model", "perturb", "--perturb-rate", "0.3"])
        .arg(runs.join("b_pl"))
        .output()
        .unwrap());
    let lb: Value = serde_json::from_str(&ok(&bin(home.path())
        .args(["leaderboard", "--format", "json"])
        .arg(&runs)
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(lb["rows"], "model");
    assert_eq!(lb["column_keys"], serde_json::json!(["fol", "pl"]));
    let cells = lb["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3, "{lb}");
    let cell = |m: &str, d: &str| {
        cells
            .iter()
            .find(|c| c["model"] == m && c["dataset"] == d)
            .unwrap()
    };
    let a_pl = cell("perturb:perturb-0.3", "pl");
    assert_eq!(a_pl["runs"].as_array().unwrap().len(), 2, "two runs pooled");
    // The pooled counts are the sum of the two runs' report totals.
    let rep: Value = serde_json::from_str(&ok(&bin(home.path())
        .args(["report", "--format", "json"])
        .arg(runs.join("a-pl"))
        .arg(runs.join("a-pl-again"))
        .output()
        .unwrap()))
    .unwrap();
    let sum = |f: &str| -> u64 {
        rep["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["total"][f].as_u64().unwrap())
            .sum()
    };
    let (n, acc) = (sum("n"), sum("accurate"));
    assert_eq!(a_pl["counts"]["n"].as_u64(), Some(n));
    assert_eq!(a_pl["counts"]["accurate"].as_u64(), Some(acc));
    let want = wilson(acc, n);
    for i in 0..2 {
        assert!((a_pl["a3_ci"][i].as_f64().unwrap() - want[i]).abs() < 1e-9);
    }
    assert!((a_pl["a3"].as_f64().unwrap() - acc as f64 / n as f64).abs() < 1e-12);
    assert!(a_pl["judge_f1"].is_number(), "{a_pl}");
    assert!(cell("perturb:perturb-0.6", "pl")["judge"].is_null());
    // Rows ranked by pooled A3: the lighter perturbation first.
    assert_eq!(lb["row_keys"][0], "perturb:perturb-0.3");

    // Wide enough for the column groups side by side.
    let text = ok(&bin(home.path())
        .arg("leaderboard")
        .env("COLUMNS", "1000")
        .arg(&runs)
        .output()
        .unwrap());
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("model") && first.contains("fol A3 %") && first.contains("pl judge F1"),
        "{text}"
    );
    let [l, h] = want.map(|x| 100.0 * x);
    assert!(text.contains(&format!("[{l:.1}–{h:.1}]")), "{text}");
    assert!(text.contains('·'), "model b has no fol runs: {text}");

    let md = ok(&bin(home.path())
        .args(["leaderboard", "--format", "markdown"])
        .arg(&runs)
        .output()
        .unwrap());
    assert!(md.lines().nth(1).unwrap().starts_with("|---"), "{md}");
    assert_eq!(md.lines().count(), 4);

    let csv_text = ok(&bin(home.path())
        .args(["leaderboard", "--format", "csv"])
        .arg(&runs)
        .output()
        .unwrap());
    let mut rd = csv::Reader::from_reader(csv_text.as_bytes());
    let h: Vec<&str> = rd.headers().unwrap().iter().take(3).collect();
    assert_eq!(h, ["model", "dataset", "runs"]);
    assert_eq!(rd.records().count(), 3);

    let tex = ok(&bin(home.path())
        .args(["leaderboard", "--format", "latex"])
        .arg(&runs)
        .output()
        .unwrap());
    for want in [
        "\\begin{tabular}{lrrrrrrrrrr}",
        "\\toprule",
        "\\multicolumn{5}{c}{fol} & \\multicolumn{5}{c}{pl}",
        "\\cmidrule(lr){2-6}\\cmidrule(lr){7-11}",
        "judge $F_1$",
        "\\midrule",
        "\\bottomrule",
        "\\end{tabular}",
    ] {
        assert!(tex.contains(want), "{want} in {tex}");
    }
    assert!(!tex.contains('–'), "en dashes become --: {tex}");

    let swapped: Value = serde_json::from_str(&ok(&bin(home.path())
        .args(["leaderboard", "--rows", "dataset", "--format", "json"])
        .arg(&runs)
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(
        swapped["column_keys"],
        serde_json::json!(["perturb:perturb-0.3", "perturb:perturb-0.6"])
    );
    assert_eq!(swapped["row_keys"].as_array().unwrap().len(), 2);
    let bad = bin(home.path())
        .arg("leaderboard")
        .arg(home.path().join("nowhere"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no such file or directory"));
}

fn sample_run(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-runs")
        .join(name)
}

#[test]
fn zero_and_two_shot_runs_are_rows_of_their_own_unless_pooled() {
    let runs = [sample_run("pl-qwen-0.5b"), sample_run("pl-2shot-qwen-0.5b")];
    let json = |extra: &[&str]| -> Value {
        serde_json::from_str(&ok(&common::cli::bin()
            .args(["leaderboard", "--no-kinds", "--format", "json"])
            .args(extra)
            .args(&runs)
            .output()
            .unwrap()))
        .unwrap()
    };
    let apart = json(&[]);
    let m = "openai:qwen2.5-coder-0.5b-instruct";
    assert_eq!(
        apart["row_keys"],
        serde_json::json!([format!("{m} · 0-shot"), format!("{m} · 2-shot")]),
        "{apart}"
    );
    assert_eq!(apart["conditions"], serde_json::json!(["0-shot", "2-shot"]));
    assert_eq!(apart["pooled"], false);
    let cells = apart["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{apart}");
    for (c, shots) in cells.iter().zip([0, 2]) {
        assert_eq!(c["counts"]["n"], 105, "{c}");
        assert_eq!(c["shots"], serde_json::json!([shots]));
        assert_eq!(c["condition"], format!("{shots}-shot"));
        assert_eq!(c["runs"].as_array().unwrap().len(), 1);
    }
    let pooled = json(&["--pool"]);
    assert_eq!(pooled["row_keys"], serde_json::json!([m]));
    assert_eq!(pooled["pooled"], true);
    let cells = pooled["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{pooled}");
    assert_eq!(cells[0]["counts"]["n"], 210);
    assert_eq!(cells[0]["shots"], serde_json::json!([0, 2]));
    assert_eq!(cells[0]["condition"], "0+2-shot");
    // The table says which it did.
    let text = ok(&common::cli::bin()
        .args(["leaderboard", "--no-kinds"])
        .args(&runs)
        .output()
        .unwrap());
    assert!(text.contains(&format!("{m} · 2-shot")), "{text}");
    assert!(text.contains("--pool merges them"), "{text}");
    let text = ok(&common::cli::bin()
        .args(["leaderboard", "--no-kinds", "--pool"])
        .args(&runs)
        .output()
        .unwrap());
    assert!(
        text.contains("prompt conditions pooled (--pool): 0-shot, 2-shot"),
        "{text}"
    );
    // The viewer's `i` leaderboard keeps them apart the same way.
    let (mut app, _) = autoeval::tui::build_app(&screens::options(runs.to_vec()));
    app.press("i").unwrap();
    let lb = app.summary().unwrap().leaderboard.clone().unwrap();
    assert_eq!(
        serde_json::to_value(&lb.row_keys).unwrap(),
        apart["row_keys"]
    );
}

#[test]
fn the_table_fits_120_columns_whatever_the_runs() {
    let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    for cols in ["120", "100", "80", "60", "50"] {
        let text = ok(&common::cli::bin()
            .args(["leaderboard", "--no-kinds"])
            .env("COLUMNS", cols)
            .arg(&all)
            .output()
            .unwrap());
        let limit: usize = cols.parse().unwrap();
        for l in text.lines() {
            assert!(
                unicode_width::UnicodeWidthStr::width(l) <= limit,
                "{} columns at COLUMNS={cols}: {l}\n{text}",
                unicode_width::UnicodeWidthStr::width(l)
            );
        }
        // Grouped by model: every model and condition named, every dataset under it.
        assert!(
            text.contains("openai:qwen2.5-coder-1.5b-instruct · 2-shot\n  pl "),
            "{text}"
        );
        assert!(text.contains("  fol-english "), "{text}");
        assert!(text.contains("Breaking points"), "{text}");
        // Intervals while the grouped lines fit, left out (and said so) below.
        let narrow = limit < 80;
        assert_eq!(text.contains("[95% CI]"), !narrow, "{text}");
        assert_eq!(
            text.contains("CIs left out at this width"),
            narrow,
            "{text}"
        );
        // A row per dataset: the column groups are models with their condition, named
        // whole (on a line of their own when too wide), so 0-shot and 2-shot stay apart.
        let by_dataset = ok(&common::cli::bin()
            .args(["leaderboard", "--no-kinds", "--rows", "dataset"])
            .env("COLUMNS", cols)
            .arg(&all)
            .output()
            .unwrap());
        for l in by_dataset.lines() {
            assert!(
                unicode_width::UnicodeWidthStr::width(l) <= limit,
                "{} columns at COLUMNS={cols}, --rows dataset: {l}\n{by_dataset}",
                unicode_width::UnicodeWidthStr::width(l)
            );
        }
        for name in [
            "  openai:qwen2.5-coder-0.5b-instruct · 0-shot",
            "  openai:qwen2.5-coder-0.5b-instruct · 2-shot",
        ] {
            assert!(by_dataset.contains(name), "{name}\n{by_dataset}");
        }
    }
    // Without COLUMNS and not on a terminal, 120.
    let text = ok(&common::cli::bin()
        .args(["leaderboard", "--no-kinds"])
        .env_remove("COLUMNS")
        .arg(&all)
        .output()
        .unwrap());
    assert!(
        text.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 120),
        "{text}"
    );
}
