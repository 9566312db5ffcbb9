//! End-to-end figures for honest numbers, measured as a user runs them (process start
//! included): `verify --pairs` throughput on PL and FOL, the unknown share on a hard
//! FOL set at the 5 s timeout, and `rescore` of a 100,000-sample run.
//!
//! `cargo bench --bench numbers` (set `NUMBERS_SKIP_RESCORE=1` to skip the 100k run;
//! `NUMBERS_KEEP_PL=FILE` writes the PL pairs file there and stops).
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A bench's `main` is its list of figures, in the order they print.
#![allow(clippy::too_many_lines)]

use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::syntax::{Expr, Formula, Notation};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_autoeval"))
}

fn quantifier_nesting(f: &Formula) -> usize {
    match f {
        Formula::Bool(_) | Formula::Prop(_) | Formula::Pred(..) => 0,
        Formula::Not(a) => quantifier_nesting(a),
        Formula::Bin(_, a, b) => quantifier_nesting(a).max(quantifier_nesting(b)),
        Formula::Quant(_, _, a) => 1 + quantifier_nesting(a),
    }
}

/// Lines `φ<TAB>φ′` of items from generated batches and a perturbation of each.
fn pair_lines(
    kind: DatasetKind,
    params: GenParams,
    want: usize,
    keep: impl Fn(&Expr, usize) -> bool,
) -> Vec<String> {
    let cfg = kind.grammar().expect("grammar");
    let mut rng = Rng::new(7);
    let mut out = Vec::new();
    for batch in 0..50u64 {
        let b = generate_batch(&cfg, &params, 11, batch, &mut |_| {}).expect("batch");
        for item in b.items.iter().filter(|i| keep(&i.expr, i.bucket)) {
            let k = PerturbKind::LOGIC[rng.below(PerturbKind::LOGIC.len())];
            if let Some(p) = perturb(&item.expr, k, &mut rng) {
                out.push(format!(
                    "{}\t{}",
                    item.expr.print(Notation::Unicode),
                    p.print(Notation::Unicode)
                ));
                if out.len() == want {
                    return out;
                }
            }
        }
    }
    out
}

/// Pairs from ground FOL formulas (arity ≤ 3, ≥ 40 operators) with three constants
/// turned into nested-quantifier variables, each with one perturbation.
fn hard_fol_pairs(want: usize) -> Vec<String> {
    let mut vocab = DatasetKind::Fol.vocab();
    vocab.max_arity = 3;
    let params = GenParams {
        vocab,
        ..Default::default()
    };
    let cfg = DatasetKind::Fol.grammar().expect("grammar");
    let mut rng = Rng::new(13);
    let mut out = Vec::new();
    for batch in 0..200u64 {
        let b = generate_batch(&cfg, &params, 17, batch, &mut |_| {}).expect("batch");
        for item in b.items.iter().filter(|i| i.bucket >= 37) {
            let Expr::Logic(f) = &item.expr else { continue };
            if f.constants().len() < 3 {
                continue;
            }
            let g = autoeval::perturb::quantify_constants(f, 3, &mut rng);
            debug_assert!(quantifier_nesting(&g) >= 3);
            let e = Expr::Logic(g);
            let kind = PerturbKind::LOGIC[rng.below(PerturbKind::LOGIC.len())];
            if let Some(p) = perturb(&e, kind, &mut rng) {
                out.push(format!(
                    "{}\t{}",
                    e.print(Notation::Unicode),
                    p.print(Notation::Unicode)
                ));
                if let Some(path) = std::env::var_os("NUMBERS_KINDS") {
                    use std::io::Write as _;
                    if let Ok(mut f) = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                    {
                        let _ = writeln!(f, "{}", kind.name());
                    }
                }
                if out.len() == want {
                    return out;
                }
            }
        }
    }
    out
}

/// Runs `verify --pairs FILE` three times; the median wall time and the last output.
fn run_pairs(file: &Path, extra: &[&str]) -> (Duration, String) {
    let mut times = Vec::new();
    let mut last = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let o = bin()
            .args(["verify", "--pairs"])
            .arg(file)
            .args(extra)
            .output()
            .expect("runs");
        times.push(t.elapsed());
        last = String::from_utf8_lossy(&o.stdout).into_owned();
    }
    times.sort();
    (times[1], last)
}

fn tally(out: &str) -> (usize, usize, usize) {
    let (mut n, mut unknown, mut neq) = (0, 0, 0);
    for l in out.lines() {
        n += 1;
        unknown += usize::from(l.contains("\"verdict\":\"unknown\""));
        neq += usize::from(l.contains("\"verdict\":\"not-equivalent\""));
    }
    (n, unknown, neq)
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");

    let pl = pair_lines(
        DatasetKind::Pl,
        GenParams {
            vocab: DatasetKind::Pl.vocab(),
            ..Default::default()
        },
        10_000,
        |_, ops| ops <= 40,
    );
    let f = dir.path().join("pl.tsv");
    std::fs::write(&f, pl.join("\n") + "\n").expect("write");
    if let Some(keep) = std::env::var_os("NUMBERS_KEEP_PL") {
        // The PL pairs file, for profiling and byte-for-byte output comparisons.
        let _ = std::fs::copy(&f, keep);
        return;
    }
    let (t, out) = run_pairs(&f, &[]);
    let (n, unknown, neq) = tally(&out);
    println!(
        "verify --pairs, {n} PL pairs (≤40 operators): {:.0} pairs/s end to end ({t:.2?}), {neq} not-equivalent, {unknown} unknown",
        n as f64 / t.as_secs_f64()
    );
    let (t, out) = run_pairs(&f, &["--explain"]);
    let (n, _, _) = tally(&out);
    let named = out.lines().filter(|l| l.contains("\"kinds\":[\"")).count();
    println!(
        "verify --explain --pairs, {n} PL pairs: {:.0} pairs/s end to end ({t:.2?}), {named} with failure kinds",
        n as f64 / t.as_secs_f64()
    );

    let fol = pair_lines(
        DatasetKind::Fol,
        GenParams {
            vocab: DatasetKind::Fol.vocab(),
            ..Default::default()
        },
        2_000,
        |_, _| true,
    );
    let f = dir.path().join("fol.tsv");
    std::fs::write(&f, fol.join("\n") + "\n").expect("write");
    let (t, out) = run_pairs(&f, &[]);
    let (n, unknown, neq) = tally(&out);
    println!(
        "verify --pairs, {n} FOL pairs (one generated batch and perturbations): {:.0} pairs/s end to end ({t:.2?}), {neq} not-equivalent, {unknown} unknown ({:.2}%)",
        n as f64 / t.as_secs_f64(),
        100.0 * unknown as f64 / n.max(1) as f64
    );

    // The hard set: arity up to 3, 40+ operators, at least 3 nested quantifiers. The
    // generator's large formulas are ground, so three of each formula's constants become
    // variables bound by a random prefix of nested quantifiers, then one perturbation.
    let hard = hard_fol_pairs(2_000);
    let f = dir.path().join("hard.tsv");
    std::fs::write(&f, hard.join("\n") + "\n").expect("write");
    if let Some(keep) = std::env::var_os("NUMBERS_KEEP") {
        let _ = std::fs::copy(&f, keep);
        return;
    }
    let t = Instant::now();
    let o = bin()
        .args(["verify", "--pairs"])
        .arg(&f)
        .args(["--timeout", "5000"])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let (n, unknown, neq) = tally(&out);
    println!(
        "hard FOL set ({n} pairs: arity ≤3, ≥3 nested quantifiers, ≥40 operators) at 5 s: {unknown} unknown ({:.2}%), {neq} not-equivalent, {:.1?} wall",
        100.0 * unknown as f64 / n.max(1) as f64,
        t.elapsed()
    );

    if std::env::var_os("NUMBERS_SKIP_RESCORE").is_none() {
        let run = dir.path().join("big");
        let t = Instant::now();
        let o = bin()
            .args(["run", "--kind", "pl", "--seed", "5", "--per-category", "50"])
            .args([
                "--batches",
                "50",
                "--model",
                "perturb",
                "--concurrency",
                "64",
            ])
            .args(["--quiet", "--out"])
            .arg(&run)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let lines =
            std::fs::read_to_string(run.join("samples.jsonl")).map_or(0, |s| s.lines().count());
        println!("made a {lines}-sample run in {:.1?}", t.elapsed());
        let t = Instant::now();
        let o = bin()
            .arg("rescore")
            .arg(&run)
            .arg("--out")
            .arg(dir.path().join("big-rescored"))
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&o.stdout);
        println!(
            "rescore of {lines} samples: {:.2?} end to end; {}",
            t.elapsed(),
            text.lines().next().unwrap_or("")
        );
    }
}
