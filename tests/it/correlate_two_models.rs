//! Issue 48, item 8: `correlate` over exactly two models gives no statistic, as its
//! legend says (two points make one line: r = ±1 and a predictive power of 0 or 1 say
//! nothing), in every format; three models do get them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok};
use serde_json::Value;

fn scores(dir: &std::path::Path, models: usize) -> std::path::PathBuf {
    let mut csv = String::from("model,benchmark,score\n");
    for (i, (x, y)) in [(0.2, 0.3), (0.6, 0.7), (0.4, 0.1)]
        .iter()
        .take(models)
        .enumerate()
    {
        csv.push_str(&format!("m{i},X,{x}\nm{i},Y,{y}\n"));
    }
    let p = dir.join(format!("scores{models}.csv"));
    std::fs::write(&p, csv).unwrap();
    p
}

fn correlate(home: &std::path::Path, file: &std::path::Path, format: &str) -> String {
    ok(&bin(home)
        .args(["correlate", "--x", "X", "--format", format, "--scores"])
        .arg(file)
        .output()
        .unwrap())
}

#[test]
fn two_models_get_no_statistic_in_any_format() {
    let home = tempfile::tempdir().unwrap();
    let two = scores(home.path(), 2);
    let v: Value = serde_json::from_str(&correlate(home.path(), &two, "json")).unwrap();
    let row = &v[0];
    assert_eq!(row["n"], 2, "{row}");
    for k in ["pearson", "spearman", "kendall"] {
        assert!(row[k].is_null(), "{k} given for two models: {row}");
    }
    assert!(row["predictive_power"]["value"].is_null(), "{row}");
    assert!(
        row["predictive_power"]["ci"].is_null(),
        "{}",
        row["predictive_power"]
    );

    let text = correlate(home.path(), &two, "text");
    assert!(text.contains("fewer than 3 models"), "{text}");
    // The row's cells are dashes, not the ±1 two points always give.
    let line = text.lines().find(|l| l.contains('Y')).unwrap();
    assert!(!line.contains("1.00"), "{text}");

    let csv = correlate(home.path(), &two, "csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cells: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&cells[..3], ["X", "Y", "2"], "{csv}");
    // Every statistic's cell is empty; only the counts (n, pairs) are given.
    for (h, c) in header.iter().zip(&cells).skip(3) {
        assert!(
            *h == "pairs" || c.is_empty(),
            "{h} = {c} for two models\n{csv}"
        );
    }

    // Three models: the statistics are there.
    let three = scores(home.path(), 3);
    let v: Value = serde_json::from_str(&correlate(home.path(), &three, "json")).unwrap();
    assert_eq!(v[0]["n"], 3);
    assert!(v[0]["pearson"]["r"].is_number(), "{}", v[0]);
}
