//! A2 and A3 of reference-task runs, through the binary and the viewer's keys: A2 is
//! "gave a usable answer" — a marked answer read (a reply with no answer is not
//! compliant, though its verdict is `unknown`), a non-empty informalization for
//! `folio-i` (an empty one is `unparseable`) — and A3 the task's accuracy (none for
//! `folio-i`); `leaderboard`, `report` and the viewer's `i` summary agree.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use common::cli::{bin, ok};
use common::{Reply, Server, openai_body, prompt_of, samples};
use serde_json::Value;
use std::path::Path;

/// A server for folio-r-fol and folio-i: every third reply has no answer (folio-r-fol)
/// or copies the formula (folio-i); the others answer `True` or give a sentence.
fn server() -> Server {
    Server::start(|i, r| {
        let p = prompt_of(r);
        let formula = p
            .rsplit("[FORMULA]")
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let text = match (p.contains("[CONCLUSION]"), i % 3) {
            (true, 0) => "I am not sure what follows from these premises.".to_string(),
            (true, _) => "Reasoning Steps: the first premise gives it.\nAnswer: True".into(),
            (false, 0) => formula,
            (false, _) => "Every cat that sleeps dreams.".into(),
        };
        Reply::json(200, openai_body(&text))
    })
}

fn run_task(base: &str, out: &Path, task: &str) {
    ok(&bin()
        .args(["run", "--task", task, "--model", "openai:fake", "--quiet"])
        .args(["--limit", "12", "--concurrency", "1", "--no-cache"])
        .arg("--base-url")
        .arg(format!("{base}/v1"))
        .arg("--out")
        .arg(out)
        .env("OPENAI_API_KEY", "sk-never-written-5")
        .output()
        .unwrap());
}

fn json(args: &[&str], path: &Path) -> Value {
    serde_json::from_str(&ok(&bin().args(args).arg(path).output().unwrap())).unwrap()
}

fn cell<'a>(lb: &'a Value, model: &str, dataset: &str) -> &'a Value {
    lb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["model"] == model && c["dataset"] == dataset)
        .unwrap_or_else(|| panic!("no {model} {dataset} cell in {lb}"))
}

#[test]
fn a2_is_a_usable_answer_and_leaderboard_report_and_viewer_agree() {
    let s = server();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    run_task(&s.base, &runs.join("fol"), "folio-r-fol");
    run_task(&s.base, &runs.join("inf"), "folio-i");
    // A second model so the viewer shows its leaderboard.
    ok(&bin()
        .args([
            "run",
            "--task",
            "folio-r-fol",
            "--model",
            "perturb",
            "--limit",
            "12",
        ])
        .args(["--quiet", "--out"])
        .arg(runs.join("offline"))
        .output()
        .unwrap());

    // What the records say: replies with no answer, empty texts.
    let fol = samples(&runs.join("fol"));
    let answered = fol
        .iter()
        .filter(|r| r["task"]["answer"].is_string())
        .count();
    let right = fol.iter().filter(|r| r["task"]["correct"] == true).count();
    assert!(answered > 0 && answered < 12, "{answered}");
    assert!(
        fol.iter()
            .filter(|r| r["task"]["answer"].is_null())
            .all(|r| r["verdict"]["verdict"] == "unknown")
    );
    let inf = samples(&runs.join("inf"));
    let texts = inf
        .iter()
        .filter(|r| r["verdict"]["verdict"] == "unknown")
        .count();
    let copies = inf
        .iter()
        .filter(|r| r["verdict"]["verdict"] == "copied")
        .count();
    assert!(
        texts > 0 && copies > 0 && texts + copies == 12,
        "{texts} {copies}"
    );

    // leaderboard: A2 = usable answers / samples, A3 = the task's accuracy (none for folio-i).
    let lb = json(&["leaderboard", "--format", "json"], &runs);
    let c = cell(&lb, "openai:fake", "folio-r-fol");
    let a2 = c["a2"].as_f64().unwrap();
    assert!((a2 - answered as f64 / 12.0).abs() < 1e-12, "{c}");
    assert!(
        (c["a3"].as_f64().unwrap() - right as f64 / 12.0).abs() < 1e-12,
        "{c}"
    );
    let ci = cell(&lb, "openai:fake", "folio-i");
    assert!(
        (ci["a2"].as_f64().unwrap() - texts as f64 / 12.0).abs() < 1e-12,
        "{ci}"
    );
    assert!(ci["a3"].is_null() && ci["a3_ci"].is_null(), "{ci}");

    // report: the same A2, and its accuracy is the leaderboard's A3.
    let rep = json(&["report", "--format", "json"], &runs.join("fol"));
    let r = &rep["runs"][0];
    assert_eq!(r["a2"], c["a2"], "{r}");
    assert_eq!(r["a2_ci"], c["a2_ci"], "{r}");
    assert_eq!(r["accuracy"], c["a3"], "{r}");
    let rep = json(&["report", "--format", "json"], &runs.join("inf"));
    assert_eq!(rep["runs"][0]["a2"], ci["a2"]);
    let text = ok(&bin().arg("report").arg(runs.join("fol")).output().unwrap());
    assert!(
        text.contains(&format!(
            "A2 {:.1}% ({answered}/12 gave a marked answer",
            100.0 * a2
        )),
        "{text}"
    );
    let csv = ok(&bin()
        .args(["report", "--format", "csv"])
        .arg(runs.join("fol"))
        .output()
        .unwrap());
    assert!(csv.lines().next().unwrap().ends_with(",a2"), "{csv}");
    assert!(
        csv.lines().nth(1).unwrap().ends_with(&format!(",{a2:.6}")),
        "{csv}"
    );
    let table = ok(&bin().arg("leaderboard").arg(&runs).output().unwrap());

    // The flat export counts each sample as the leaderboard does: `compliant` true
    // exactly for the usable answers, no `passed` for folio-i (scored by text).
    let flat = tmp.path().join("flat");
    ok(&bin()
        .args(["export", "--format", "jsonl-flat", "--out"])
        .arg(&flat)
        .arg(runs.join("fol"))
        .arg(runs.join("inf"))
        .output()
        .unwrap());
    let rows = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(flat.join(format!("data/{name}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let fol_rows = rows("fol");
    let count = |rows: &[Value], k: &str| rows.iter().filter(|r| r[k] == true).count();
    assert_eq!(fol_rows.len(), 12);
    assert_eq!(count(&fol_rows, "compliant"), answered, "{fol_rows:?}");
    assert_eq!(count(&fol_rows, "passed"), right);
    let inf_rows = rows("inf");
    assert_eq!(count(&inf_rows, "compliant"), texts, "{inf_rows:?}");
    assert!(
        inf_rows.iter().all(|r| r["passed"].is_null()),
        "{inf_rows:?}"
    );

    // The viewer's `i`: the run's A2 and A3, and the leaderboard's figures.
    let (mut app, _) = autoeval::tui::build_app(&screens::options(vec![
        runs.join("fol"),
        runs.join("inf"),
        runs.join("offline"),
    ]));
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    // The run list's accuracy column: the task's accuracy, `–` for folio-i (not 0 %).
    let main = screens::screen(&mut app, &t, 160, 48);
    let fake: Vec<&str> = main.lines().filter(|l| l.contains(" fake ")).collect();
    assert_eq!(fake.len(), 2, "{main}");
    let acc = format!("{:>5} {:5.1}%", 12, 100.0 * right as f64 / 12.0);
    assert!(
        fake.iter().any(|l| l.contains(&acc)) && fake.iter().any(|l| l.contains("   12     –")),
        "{main}"
    );
    // The chart: folio-i's A3 row is blank (no `_` for zero), its A2 row drawn.
    let chart_row = |tag: &str| {
        main.lines()
            .find(|l| l.contains("inf ") && l.contains(&format!(" {tag} ")))
            .map_or_else(
                || panic!("no inf {tag} row:\n{main}"),
                |l| l.rsplit(&format!(" {tag} ")).next().unwrap().to_string(),
            )
    };
    assert!(!chart_row("A3").contains('_'), "{main}");
    assert!(
        chart_row("A2").chars().any(|c| c != ' ' && c != '│'),
        "{main}"
    );
    app.press("i").unwrap();
    let mut all = String::new();
    for _ in 0..4 {
        all.push_str(&screens::screen(&mut app, &t, 160, 48));
        app.press("pagedown").unwrap();
    }
    assert!(
        all.contains(&format!(
            "12 samples · A2 compliance {:.1}% · A3 accuracy {:.1}%",
            100.0 * a2,
            100.0 * right as f64 / 12.0
        )),
        "{all}"
    );
    let band = |c: &Value, k: &str| {
        let ci = c[format!("{k}_ci")].as_array().unwrap().clone();
        format!(
            "{:.1} [{:.1}–{:.1}]",
            100.0 * c[k].as_f64().unwrap(),
            100.0 * ci[0].as_f64().unwrap(),
            100.0 * ci[1].as_f64().unwrap()
        )
    };
    for want in [band(c, "a2"), band(c, "a3"), band(ci, "a2")] {
        assert!(all.contains(&want), "viewer lacks {want}:\n{all}");
        assert!(table.contains(&want), "leaderboard lacks {want}:\n{table}");
    }
}
