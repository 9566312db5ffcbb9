//! `autoeval report`'s 95 % intervals through the binary: Wilson intervals for A2, A3
//! and judge precision/recall per bucket and overall against statsmodels' values
//! (tests/data/intervals/make.py), in JSON, CSV and text; the batch bootstrap; the plot band.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn oracle() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/intervals/wilson95.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Asserts that `ci` is statsmodels' Wilson interval of k in n (or null for n = 0).
fn wilson_is(ci: &Value, k: u64, n: u64, what: &str) {
    if n == 0 {
        assert!(ci.is_null(), "{what}: {ci}");
        return;
    }
    let want = &oracle()[n.to_string()][usize::try_from(k).unwrap()];
    for i in 0..2 {
        let (g, w) = (ci[i].as_f64().unwrap(), want[i].as_f64().unwrap());
        assert!(
            (g - w).abs() < 1e-9,
            "{what}: {k}/{n}: got {ci}, want {want}"
        );
    }
}

fn judged_copy(dir: &Path) -> PathBuf {
    let d = dir.join("pl-small");
    common::fixtures::copy_to("pl-small", &d);
    ok(&bin(dir)
        .args(["judge", "--model", "perturb"])
        .arg(&d)
        .output()
        .unwrap());
    d
}

#[test]
fn wilson_intervals_per_bucket_overall_and_for_the_judge_in_json_csv_and_text() {
    let home = tempfile::tempdir().unwrap();
    let d = judged_copy(home.path());
    let v: Value = serde_json::from_str(&ok(&bin(home.path())
        .args(["report", "--format", "json"])
        .arg(&d)
        .output()
        .unwrap()))
    .unwrap();
    let r = &v["runs"][0];
    let iv = &r["intervals"];
    assert_eq!(iv["level"], 0.95);
    let t = &r["total"];
    let n = |c: &Value, f: &str| c[f].as_u64().unwrap();
    wilson_is(
        &iv["total"]["a3"],
        n(t, "accurate"),
        n(t, "n"),
        "A3 overall",
    );
    wilson_is(
        &iv["total"]["a2"],
        n(t, "compliant"),
        n(t, "answered"),
        "A2 overall",
    );
    let buckets = r["by_category"].as_object().unwrap();
    assert!(buckets.len() > 5);
    for (k, c) in buckets {
        wilson_is(&iv["by_category"][k]["a3"], n(c, "accurate"), n(c, "n"), k);
        wilson_is(
            &iv["by_category"][k]["a2"],
            n(c, "compliant"),
            n(c, "answered"),
            k,
        );
    }
    let j = &r["judges"][0];
    let (tp, fp, fn_) = (n(j, "tp"), n(j, "fp"), n(j, "fn_"));
    assert!(tp + fp > 0 && tp + fn_ > 0, "{j}");
    wilson_is(&iv["judges"][0]["precision"], tp, tp + fp, "precision");
    wilson_is(&iv["judges"][0]["recall"], tp, tp + fn_, "recall");
    assert!(iv["batch_bootstrap"].is_null(), "one batch: no bootstrap");
    // CSV: the same bounds, per bucket and on the whole-run row with the judge.
    let csv_text = ok(&bin(home.path())
        .args(["report", "--format", "csv"])
        .arg(&d)
        .output()
        .unwrap());
    let mut rd = csv::Reader::from_reader(csv_text.as_bytes());
    let h: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    let all = rows.iter().find(|x| &x[col("category")] == "all").unwrap();
    let lo: f64 = all[col("accuracy_low")].parse().unwrap();
    assert!((lo - iv["total"]["a3"][0].as_f64().unwrap()).abs() < 1e-4);
    let plo: f64 = all[col("judge_precision_low")].parse().unwrap();
    assert!((plo - iv["judges"][0]["precision"][0].as_f64().unwrap()).abs() < 1e-4);
    assert!(!all[col("judge")].is_empty());
    let b3 = rows.iter().find(|x| &x[col("category")] == "3").unwrap();
    let hi: f64 = b3[col("accuracy_high")].parse().unwrap();
    assert!((hi - iv["by_category"]["3"]["a3"][1].as_f64().unwrap()).abs() < 1e-4);
    // Text: the interval beside each share.
    let text = ok(&bin(home.path()).arg("report").arg(&d).output().unwrap());
    assert!(
        text.contains("A3 95% CI") && text.contains("pl-small A3 95% CI"),
        "{text}"
    );
    assert!(text.contains("precision 95% CI"), "{text}");
    let [a, b] = [0, 1].map(|i| 100.0 * iv["total"]["a3"][i].as_f64().unwrap());
    assert!(text.contains(&format!("{a:.1}–{b:.1}")), "{text}");
    assert!(text.contains("Wilson score interval"), "{text}");
}

#[test]
fn several_batches_get_a_bootstrap_interval_and_the_plot_draws_bands() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("run");
    ok(&bin(home.path())
        .args([
            "run",
            "--kind",
            "pl",
            "--per-category",
            "2",
            "--batches",
            "4",
        ])
        .args([
            "--model",
            "perturb",
            "--perturb-rate",
            "0.5",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap());
    let v: Value = serde_json::from_str(&ok(&bin(home.path())
        .args(["report", "--format", "json"])
        .arg(&out)
        .output()
        .unwrap()))
    .unwrap();
    let r = &v["runs"][0];
    let b = &r["intervals"]["batch_bootstrap"];
    assert_eq!(b["batches"], 4);
    let [lo, hi] = [0, 1].map(|i| b["total"]["a3"][i].as_f64().unwrap());
    let accs: Vec<f64> = r["batch_accuracy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let (min, max) = accs
        .iter()
        .fold((1.0_f64, 0.0_f64), |(a, b), x| (a.min(*x), b.max(*x)));
    let a3 = r["total"]["accurate"].as_f64().unwrap() / r["total"]["n"].as_f64().unwrap();
    assert!(
        min - 1e-9 <= lo && lo <= a3 && a3 <= hi && hi <= max + 1e-9,
        "{min} ≤ {lo} ≤ {a3} ≤ {hi} ≤ {max}"
    );
    assert!(!b["by_category"].as_object().unwrap().is_empty());
    let svg = home.path().join("fig.svg");
    ok(&bin(home.path())
        .arg("report")
        .arg(&out)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap());
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("bars: Wilson 95% CI"));
    // Intervals are bars side by side, not filled bands that pile up into one block.
    assert_eq!(s.matches("<polygon").count(), 0);
}
