//! `autoeval correlate` through the binary: statistics equal to scipy.stats' (oracle values
//! in tests/data/correlate, made by scipy-oracle.py), predictive power by hand, score
//! files and their errors, the shipped Table 6, runs on a comparable subset, every format
//! and the figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cli::{bin_in as bin, ok, stderr};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

fn oracle() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/correlate/scipy-oracle.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Equal to scipy up to rounding: 1e-9 relative, or 1e-12 absolute (scipy's own p for
/// |ρ| within rounding of 1 is noise such as 1e-24 where the exact value is 0).
fn close(got: f64, want: f64, what: &str) {
    let d = (got - want).abs();
    assert!(
        d <= 1e-12 || d <= 1e-9 * want.abs(),
        "{what}: got {got:e}, scipy {want:e}"
    );
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn statistics_equal_scipy_on_every_oracle_case() {
    let home = tempfile::tempdir().unwrap();
    let o = oracle();
    let cases = o["cases"].as_array().unwrap();
    // One score file: case k's models m{k}-{i} score on x{k} and y{k}; only the pair
    // (x{k}, y{k}) shares models.
    let mut csv = String::from("model,benchmark,score\n");
    let mut args = vec!["correlate".to_string()];
    for (k, c) in cases.iter().enumerate() {
        for (i, (x, y)) in c["x"]
            .as_array()
            .unwrap()
            .iter()
            .zip(c["y"].as_array().unwrap())
            .enumerate()
        {
            writeln!(csv, "m{k}-{i},x{k:02},{}", f(x)).unwrap();
            writeln!(csv, "m{k}-{i},y{k:02},{}", f(y)).unwrap();
        }
        args.extend(["--x".to_string(), format!("x{k:02}")]);
    }
    let file = home.path().join("scores.csv");
    std::fs::write(&file, csv).unwrap();
    let out = ok(&bin(home.path())
        .args(&args)
        .arg("--scores")
        .arg(&file)
        .args(["--format", "json", "--bootstrap", "200"])
        .output()
        .unwrap());
    let rows: Value = serde_json::from_str(&out).unwrap();
    for (k, c) in cases.iter().enumerate() {
        let name = c["name"].as_str().unwrap();
        let row = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["x"] == format!("x{k:02}") && r["y"] == format!("y{k:02}"))
            .unwrap_or_else(|| panic!("{name}: no row"));
        assert_eq!(row["n"], c["x"].as_array().unwrap().len(), "{name}");
        let (p, s, t) = (&row["pearson"], &row["spearman"], &row["kendall"]);
        close(
            f(&p["r"]),
            f(&c["pearson"]["r"]),
            &format!("{name} pearson r"),
        );
        close(
            f(&p["p"]),
            f(&c["pearson"]["p"]),
            &format!("{name} pearson p"),
        );
        for i in 0..2 {
            close(
                f(&p["ci"][i]),
                f(&c["pearson"]["ci"][i]),
                &format!("{name} pearson ci"),
            );
        }
        close(
            f(&s["rho"]),
            f(&c["spearman"]["rho"]),
            &format!("{name} rho"),
        );
        close(
            f(&s["p"]),
            f(&c["spearman"]["p"]),
            &format!("{name} spearman p"),
        );
        close(
            f(&t["tau"]),
            f(&c["kendall"]["tau"]),
            &format!("{name} tau"),
        );
        close(
            f(&t["p"]),
            f(&c["kendall"]["p"]),
            &format!("{name} kendall p"),
        );
        // Models of other cases share no benchmark pair with this one.
        let other = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["x"] == format!("x{k:02}") && r["y"] != format!("y{k:02}"))
            .unwrap();
        assert_eq!(other["n"], 0);
        assert!(other["pearson"].is_null() && other["predictive_power"]["value"].is_null());
    }
}

#[test]
fn predictive_power_follows_definition_5_1_with_the_letters_as_the_issue_gives_them() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("s.csv");
    // X: a 1, b 2, c 3, d 3.  Y: a 10, b 30, c 20, d 20.
    // Pairs with differing X (ordered by X): b>a, c>a, d>a, c>b, d>b (c,d tie in X).
    // Y follows in b>a, c>a, d>a; not in c>b, d>b → 3/5.
    std::fs::write(
        &file,
        "model,benchmark,score\na,X,1\nb,X,2\nc,X,3\nd,X,3\na,Y,10\nb,Y,30\nc,Y,20\nd,Y,20\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let out = ok(&bin(home.path())
            .args(["correlate", "--x", "X", "--format", "json", "--scores"])
            .arg(&file)
            .args(extra)
            .output()
            .unwrap());
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let v = run(&[]);
    let pp = &v[0]["predictive_power"];
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(
        (v[0]["x"].as_str(), v[0]["y"].as_str()),
        (Some("X"), Some("Y"))
    );
    assert_eq!(pp["pairs"], 5);
    close(f(&pp["value"]), 0.6, "predictive power");
    let ci = pp["ci"].as_array().unwrap();
    assert!(f(&ci[0]) <= 0.6 && 0.6 <= f(&ci[1]) && f(&ci[0]) >= 0.0 && f(&ci[1]) <= 1.0);
    // Seeded: the same interval every time; a tie in Y is "not greater" the other way too.
    assert_eq!(run(&[])[0]["predictive_power"], *pp);
    let y_as_x = ok(&bin(home.path())
        .args(["correlate", "--x", "Y", "--format", "json", "--scores"])
        .arg(&file)
        .output()
        .unwrap());
    let w: Value = serde_json::from_str(&y_as_x).unwrap();
    // Y order: b(30) > c,d(20) > a(10): pairs b>c, b>d, b>a, c>a, d>a = 5;
    // X follows in b>a, c>a, d>a, not b>c, b>d → 3/5.
    assert_eq!(w[0]["predictive_power"]["pairs"], 5);
    close(f(&w[0]["predictive_power"]["value"]), 0.6, "reverse");
}

#[test]
fn the_shipped_table6_and_a_users_file_combine_and_every_format_renders() {
    let home = tempfile::tempdir().unwrap();
    let mine = home.path().join("mine.csv");
    std::fs::write(
        &mine,
        "# my autoeval-like scores\nbenchmark,model,score,source\nautoeval-fol,GPT-4o,0.6,x\nautoeval-fol,GPT-3.5-turbo,0.3,x\nautoeval-fol,Llama3-8B-Instruct,0.2,x\nautoeval-fol,Mistral-7b-Instruct-v0.1,0.1,x\nautoeval-fol,Phi-3-medium-4k-instruct,0.35,x\nautoeval-fol,GPT-4o-mini,0.5,x\n",
    )
    .unwrap();
    let run = |fmt: &str| {
        ok(&bin(home.path())
            .args(["correlate", "--scores", "builtin:paper-table6", "--scores"])
            .arg(&mine)
            .args(["--format", fmt])
            .output()
            .unwrap())
    };
    let v: Value = serde_json::from_str(&run("json")).unwrap();
    let rows = v.as_array().unwrap();
    // X defaults to the autoeval- benchmark; GPT-4o-mini has no BBH score (`-`).
    assert_eq!(rows.len(), 2);
    let bbh = rows.iter().find(|r| r["y"] == "bbh").unwrap();
    let he = rows.iter().find(|r| r["y"] == "humaneval").unwrap();
    assert_eq!((bbh["n"].as_u64(), he["n"].as_u64()), (Some(5), Some(6)));
    for key in [
        "x",
        "y",
        "n",
        "pearson",
        "spearman",
        "kendall",
        "predictive_power",
    ] {
        assert!(bbh.get(key).is_some(), "{key}");
    }
    for key in ["value", "pairs", "ci"] {
        assert!(bbh["predictive_power"].get(key).is_some(), "{key}");
    }
    let text = run("text");
    assert!(
        text.contains("autoeval-fol") && text.contains("humaneval"),
        "{text}"
    );
    let csv = run("csv");
    assert!(csv.starts_with("x,y,n,pearson_r,pearson_p,"), "{csv}");
    assert_eq!(csv.lines().count(), 3);
    let tex = run("latex");
    assert!(
        tex.contains("\\begin{tabular}") && tex.contains("autoeval-fol & bbh & 5"),
        "{tex}"
    );
}

#[test]
fn bad_score_files_are_refused_with_the_file_line_and_fix() {
    let home = tempfile::tempdir().unwrap();
    let cases = [
        (
            "model,bench,score\na,b,1\n",
            "must name the columns model,benchmark,score",
        ),
        (
            "model,benchmark,score\na,X,1\nb,X,abc\n",
            "line 3: score `abc` is not a number",
        ),
        (
            "model,benchmark,score\na,X,1\na,X,2\n",
            "two scores for model `a` on `X`",
        ),
        ("model,benchmark,score\na,X,inf\n", "not a number"),
        (
            "model,benchmark,score\n,X,1\n",
            "line 2: the model and benchmark must not be empty",
        ),
    ];
    for (text, want) in cases {
        let p = home.path().join("bad.csv");
        std::fs::write(&p, text).unwrap();
        let o = bin(home.path())
            .args(["correlate", "--x", "X", "--scores"])
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{text}");
        assert!(stderr(&o).contains(want), "{text}: {}", stderr(&o));
    }
    // More models than correlate handles: refused before any work.
    let mut many = String::from("model,benchmark,score\n");
    for i in 0..2001 {
        writeln!(many, "m{i},X,{i}").unwrap();
    }
    let p = home.path().join("many.csv");
    std::fs::write(&p, many).unwrap();
    let o = bin(home.path())
        .args(["correlate", "--x", "X", "--scores"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(stderr(&o).contains("2001 models: correlate handles at most 2000"));
    let p = home.path().join("latin1.csv");
    std::fs::write(&p, b"model,benchmark,score\ncaf\xe9,X,1\n").unwrap();
    let o = bin(home.path())
        .args(["correlate", "--x", "X", "--scores"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
    let o = bin(home.path())
        .args([
            "correlate",
            "--scores",
            "builtin:paper-table6",
            "--x",
            "nope",
        ])
        .output()
        .unwrap();
    assert!(stderr(&o).contains("--x nope: no such benchmark (benchmarks: bbh, humaneval)"));
    let o = bin(home.path())
        .args(["correlate", "--scores", "builtin:paper-table6"])
        .output()
        .unwrap();
    assert!(stderr(&o).contains("no predictor"), "{}", stderr(&o));
}

fn offline(home: &Path, out: &Path, kind: &str, rate: &str) {
    ok(&bin(home)
        .args([
            "run",
            "--kind",
            kind,
            "--per-category",
            "2",
            "--limit",
            "40",
        ])
        .args(["--model", "perturb", "--perturb-rate", rate, "--seed", "3"])
        .args(["--quiet", "--out"])
        .arg(out)
        .output()
        .unwrap());
}

/// A3 over the samples with at most `max_ops` operators, read from samples.jsonl.
fn a3_upto(dir: &Path, max_ops: u64) -> f64 {
    let text = std::fs::read_to_string(dir.join("samples.jsonl")).unwrap();
    let (mut n, mut k) = (0.0, 0.0);
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["num_operators"].as_u64().unwrap() <= max_ops {
            n += 1.0;
            k += f64::from(u8::from(v["verdict"]["verdict"] == "equivalent"));
        }
    }
    k / n
}

#[test]
fn runs_contribute_their_a3_on_the_comparable_subset_and_the_figure_is_drawn() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    let rates = ["0.1", "0.4", "0.8"];
    for r in rates {
        offline(home.path(), &runs.join(format!("fol-{r}")), "fol", r);
        offline(home.path(), &runs.join(format!("pl-{r}")), "pl", r);
    }
    let out = ok(&bin(home.path())
        .args(["correlate", "--format", "json", "--x", "autoeval-fol"])
        .arg(&runs)
        .output()
        .unwrap());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["y"], "autoeval-pl");
    assert_eq!(v[0]["n"], 3);
    for m in v[0]["models"].as_array().unwrap() {
        let model = m["model"].as_str().unwrap();
        let r = rates
            .iter()
            .find(|r| model.ends_with(*r))
            .unwrap_or_else(|| panic!("{model}"));
        close(
            f(&m["x"]),
            a3_upto(&runs.join(format!("fol-{r}")), 6),
            model,
        );
        close(f(&m["y"]), a3_upto(&runs.join(format!("pl-{r}")), 6), model);
    }
    // --operators all counts every sample.
    let all: Value = serde_json::from_str(&ok(&bin(home.path())
        .args(["correlate", "--format", "json", "--operators", "all"])
        .arg(&runs)
        .output()
        .unwrap()))
    .unwrap();
    let m0 = &all[0]["models"][0];
    let r = rates
        .iter()
        .find(|r| m0["model"].as_str().unwrap().contains(*r))
        .unwrap();
    close(
        f(&m0["x"]),
        a3_upto(&runs.join(format!("fol-{r}")), 1000),
        "all",
    );
    // The text names the subset; the figure is written with the corner note.
    let text = ok(&bin(home.path())
        .arg("correlate")
        .arg(&runs)
        .output()
        .unwrap());
    assert!(
        text.contains("autoeval-fol: A3 on operators 0–6, all batches"),
        "{text}"
    );
    let svg = home.path().join("fig.svg");
    ok(&bin(home.path())
        .args(["correlate", "--x", "autoeval-fol", "--plot"])
        .arg(&svg)
        .arg(&runs)
        .output()
        .unwrap());
    let s = std::fs::read_to_string(&svg).unwrap();
    // The corner note is Pearson's r (the table's ρ is Spearman's).
    assert!(s.contains("r = ") && s.contains("p = ") && s.contains("Predictive power"));
    assert!(!s.contains("ρ = "), "Pearson's r labelled ρ");
    assert!(s.contains("operators 0–6"));
    // The runs' models are the offline perturbation model's: marked as synthetic, with
    // the least-squares line named in the legend.
    assert!(
        s.contains("(synthetic)") && s.contains("line: least squares"),
        "{s}"
    );
    assert!(
        s.contains("<polygon"),
        "synthetic models are drawn as triangles"
    );
    // Every predictor: one figure each beside FILE, none of them taller than the cap.
    let o = bin(home.path())
        .args(["correlate", "--plot"])
        .arg(home.path().join("all.png"))
        .arg(&runs)
        .output()
        .unwrap();
    let said = common::cli::ok_stderr(&o);
    assert!(!home.path().join("all.png").exists(), "{said}");
    for x in ["autoeval-fol", "autoeval-pl"] {
        let f = home.path().join(format!("all-{x}.png"));
        assert!(said.contains(&f.display().to_string()), "{said}");
        let png = std::fs::read(&f).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
        let (w, h) = (be(16), be(20));
        assert_eq!(w, 1200, "{x}");
        assert!(h <= 2100, "{x}: {w}×{h} px");
    }
    let figures = std::fs::read_dir(home.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("all")
        })
        .count();
    assert_eq!(figures, 2);
    let o = bin(home.path())
        .args(["correlate", "--plot", "fig.gif"])
        .arg(&runs)
        .output()
        .unwrap();
    assert!(stderr(&o).contains("must end in .svg or .png"));
    let o = bin(home.path())
        .args(["correlate", "--operators", "7-2"])
        .arg(&runs)
        .output()
        .unwrap();
    assert!(stderr(&o).contains("--operators `7-2`: the low end is above the high end"));
}
