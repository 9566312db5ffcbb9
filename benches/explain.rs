//! Proof search figures (issue 33): `verify --explain --pairs` on 10,000 PL
//! not-equivalent pairs end to end (process start included); the explanation of FOL
//! not-equivalent pairs per pair (median, p90, worst); the worst explanation among
//! the shipped samples (what the Diff tab computes when it first shows one).
//!
//! Issue 45's ratio: `verify --explain --pairs` against `verify --pairs` (the verdicts
//! alone) on the same not-equivalent pairs, the one-mutation PL pairs above and pairs
//! with rewrites (one planted mutation, then one or two meaning-preserving rewrites):
//! 10,000 PL pairs and 1,000 FOL pairs. Wall and CPU time (the children's user +
//! system time) are both given, with the load average: on a shared machine the CPU
//! time is the figure to compare.
//!
//! `cargo bench --bench explain` (release). AUTOEVAL_EXPLAIN=pl|fol|regex|shipped|rewrites
//! runs one part; AUTOEVAL_EXPLAIN_BIN=path times another build's binary on the same
//! pairs; AUTOEVAL_EXPLAIN_KEEP=dir keeps the pair files there.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::analysis::proof::{explain, explain_with};
use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::syntax::{Expr, Notation, SyntaxKind, parse};
use autoeval::verify::{Options, Verdict, verify};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Not-equivalent pairs (φ, a perturbation of φ) from generated batches of `kind`.
fn not_equivalent(kind: DatasetKind, want: usize) -> Vec<(Expr, Expr)> {
    let kinds: &[PerturbKind] = if kind == DatasetKind::Regex {
        &PerturbKind::REGEX
    } else {
        &PerturbKind::LOGIC
    };
    let cfg = kind.grammar().expect("grammar");
    let params = GenParams {
        vocab: kind.vocab(),
        ..Default::default()
    };
    let opts = Options::default();
    let mut rng = Rng::new(33);
    let mut out = Vec::new();
    for batch in 0..200u64 {
        let b = generate_batch(&cfg, &params, 33, batch, &mut |_| {}).expect("batch");
        for item in &b.items {
            let k = kinds[rng.below(kinds.len())];
            let Some(p) = perturb(&item.expr, k, &mut rng) else {
                continue;
            };
            if verify(&item.expr, &p, &opts).name() == "not-equivalent" {
                out.push((item.expr.clone(), p));
                if out.len() == want {
                    return out;
                }
            }
        }
    }
    out
}

fn pl() {
    let pairs = not_equivalent(DatasetKind::Pl, 10_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_pairs(dir.path(), "pl-one-mutation.tsv", &pairs);
    report("Pl (one mutation)", &file);
}

/// Not-equivalent pairs of `kind`: φ, then one mutation, then one or two rewrites
/// (the meaning-preserving perturbations), as a model's reply rewrites its mistake.
fn rewritten(kind: DatasetKind, want: usize) -> Vec<(Expr, Expr)> {
    let mutations: Vec<PerturbKind> = PerturbKind::LOGIC
        .iter()
        .copied()
        .filter(|k| !k.preserves_equivalence())
        .collect();
    let rewrites: Vec<PerturbKind> = PerturbKind::LOGIC
        .iter()
        .copied()
        .filter(|k| k.preserves_equivalence())
        .collect();
    let cfg = kind.grammar().expect("grammar");
    let params = GenParams {
        vocab: kind.vocab(),
        ..Default::default()
    };
    let opts = Options::default();
    let mut rng = Rng::new(45);
    let mut out = Vec::new();
    for batch in 0..400u64 {
        let b = generate_batch(&cfg, &params, 45, batch, &mut |_| {}).expect("batch");
        for item in &b.items {
            let m = mutations[rng.below(mutations.len())];
            let Some(mut p) = perturb(&item.expr, m, &mut rng) else {
                continue;
            };
            for _ in 0..=rng.below(2) {
                let r = rewrites[rng.below(rewrites.len())];
                p = perturb(&p, r, &mut rng).unwrap_or(p);
            }
            if verify(&item.expr, &p, &opts).name() == "not-equivalent" {
                out.push((item.expr.clone(), p));
                if out.len() == want {
                    return out;
                }
            }
        }
    }
    out
}

/// Writes `pairs` as `φ<TAB>φ′` lines into `dir` (AUTOEVAL_EXPLAIN_KEEP: a folder the
/// file is copied to as well, to compare two builds' outputs on the same pairs).
fn write_pairs(dir: &Path, name: &str, pairs: &[(Expr, Expr)]) -> PathBuf {
    let file = dir.join(name);
    let text: String = pairs
        .iter()
        .map(|(a, b)| {
            format!(
                "{}\t{}\n",
                a.print(Notation::Unicode),
                b.print(Notation::Unicode)
            )
        })
        .collect();
    std::fs::write(&file, &text).expect("write");
    if let Ok(keep) = std::env::var("AUTOEVAL_EXPLAIN_KEEP") {
        std::fs::write(Path::new(&keep).join(name), &text).expect("keep");
    }
    file
}

/// CPU time (user + system) of the waited-for children so far, from /proc/self/stat
/// (cutime, cstime in clock ticks, 100 a second on Linux): on a shared machine the wall
/// time measures the load as much as the work.
fn children_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // cutime and cstime are fields 16 and 17 of the line, 13 and 14 after the name.
    let ticks = f.get(13).copied().unwrap_or(0) + f.get(14).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// Medians of three runs of `autoeval verify [--explain] --pairs file` (wall, CPU), and
/// its output.
fn timed_pairs(file: &Path, explain: bool) -> (Duration, Duration, String) {
    let mut times = Vec::new();
    let mut cpus = Vec::new();
    let mut out = String::new();
    for _ in 0..3 {
        // AUTOEVAL_EXPLAIN_BIN: another build's binary on the same pairs (before/after).
        let bin = std::env::var("AUTOEVAL_EXPLAIN_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_autoeval").to_owned());
        let mut cmd = Command::new(bin);
        cmd.arg("verify");
        if explain {
            cmd.arg("--explain");
        }
        let c = children_cpu();
        let t = Instant::now();
        let o = cmd.arg("--pairs").arg(file).output().expect("runs");
        times.push(t.elapsed());
        cpus.push(children_cpu().saturating_sub(c));
        out = String::from_utf8_lossy(&o.stdout).into_owned();
    }
    times.sort();
    cpus.sort();
    (times[1], cpus[1], out)
}

/// Explanation time against verdict-only time on the pairs in `file`, wall and CPU.
fn report(what: &str, file: &Path) {
    let (verdicts, vcpu, _) = timed_pairs(file, false);
    let (explained, ecpu, out) = timed_pairs(file, true);
    let n = out.lines().count();
    let proved = out
        .lines()
        .filter(|l| l.contains("\"proved\":true"))
        .count();
    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    println!(
        "{what}, {n} not-equivalent pairs: verify --explain --pairs {explained:.2?} wall, {ecpu:.2?} CPU ({:.0} pairs/s wall, {:.0} pairs/CPU-s, {proved} proved); verify --pairs {verdicts:.2?} wall, {vcpu:.2?} CPU ({:.0} pairs/s wall, {:.0} pairs/CPU-s): explanations cost {:.1}x the verdicts wall, {:.1}x CPU (medians of 3, end to end, {})",
        rate(explained),
        rate(ecpu),
        rate(verdicts),
        rate(vcpu),
        explained.as_secs_f64() / verdicts.as_secs_f64(),
        ecpu.as_secs_f64() / vcpu.as_secs_f64(),
        load()
    );
}

/// The load average when the figure was taken (the machine may be shared).
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "load unknown".into(),
        |l| {
            format!(
                "load {}",
                l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
            )
        },
    )
}

/// Explanation time against verdict-only time on the same pairs with rewrites.
fn rewrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (kind, n, name) in [
        (DatasetKind::Pl, 10_000, "pl-rewrites.tsv"),
        (DatasetKind::Fol, 1_000, "fol-rewrites.tsv"),
    ] {
        let pairs = rewritten(kind, n);
        let file = write_pairs(dir.path(), name, &pairs);
        report(&format!("{kind:?} with rewrites"), &file);
    }
}

/// Median, p90 and worst of `times`, with the worst pair.
fn spread(what: &str, mut times: Vec<(Duration, String)>) {
    times.sort_by_key(|t| t.0);
    let n = times.len();
    if n == 0 {
        println!("{what}: no pairs");
        return;
    }
    let mean = times.iter().map(|t| t.0).sum::<Duration>() / u32::try_from(n).unwrap_or(1);
    println!(
        "{what}: {n} pairs, mean {mean:.2?}, median {:.2?}, p90 {:.2?}, p99 {:.2?}, worst {:.2?} ({})",
        times[n / 2].0,
        times[n * 9 / 10].0,
        times[n * 99 / 100].0,
        times[n - 1].0,
        times[n - 1].1
    );
}

/// The explanation of FOL not-equivalent pairs given the verdict's countermodel, as
/// `verify --explain`, `score` and the row index call it (the verdict is not timed).
fn fol() {
    let pairs = not_equivalent(DatasetKind::Fol, 1_000);
    let opts = Options::default();
    let times = pairs
        .iter()
        .map(|(a, b)| {
            let v = verify(a, b, &opts);
            let cm = match &v {
                Verdict::NotEquivalent { countermodel, .. } => Some(countermodel),
                _ => None,
            };
            let t = Instant::now();
            let ex = explain_with(a, b, false, cm, &opts);
            std::hint::black_box(&ex);
            (
                t.elapsed(),
                format!("{}  vs  {}", a.to_unicode(), b.to_unicode()),
            )
        })
        .collect();
    spread("explanation of a FOL not-equivalent pair", times);
}

/// The explanation of regex not-equivalent pairs (what `run` and the row index pay
/// for each not-equivalent regex sample).
fn regex() {
    let pairs = not_equivalent(DatasetKind::Regex, 300);
    let opts = Options::default();
    let times = pairs
        .iter()
        .map(|(a, b)| {
            let t = Instant::now();
            std::hint::black_box(explain(a, b, false, &opts));
            (
                t.elapsed(),
                format!("{}  vs  {}", a.to_unicode(), b.to_unicode()),
            )
        })
        .collect();
    spread("explanation of a regex not-equivalent pair", times);
}

/// Every round of every shipped sample with a φ₁: the explanation the Diff tab asks for.
fn shipped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let opts = Options::default();
    let mut times = Vec::new();
    for dir in std::fs::read_dir(&root).expect("sample-runs") {
        let file = dir.expect("entry").path().join("samples.jsonl");
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines() {
            let Ok(s) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Ok(syntax) = serde_json::from_value::<SyntaxKind>(s["syntax"].clone()) else {
                continue;
            };
            let Some(Ok(a)) = s["phi0"].as_str().map(|t| parse(t, syntax)) else {
                continue;
            };
            for r in s["rounds"].as_array().into_iter().flatten() {
                let Some(Ok(b)) = r["phi1"].as_str().map(|t| parse(t, syntax)) else {
                    continue;
                };
                let equivalent = match r["verdict"]["verdict"].as_str() {
                    Some("equivalent") => true,
                    Some("not-equivalent") => false,
                    _ => continue,
                };
                let t = Instant::now();
                std::hint::black_box(explain(&a, &b, equivalent, &opts));
                times.push((
                    t.elapsed(),
                    format!(
                        "{}: {}  vs  {}",
                        file.display(),
                        a.to_unicode(),
                        b.to_unicode()
                    ),
                ));
            }
        }
    }
    spread(
        "explanation of a shipped sample's round (sample-runs/)",
        times,
    );
}

fn main() {
    let only = std::env::var("AUTOEVAL_EXPLAIN").unwrap_or_default();
    if only.is_empty() || only == "pl" {
        pl();
    }
    if only.is_empty() || only == "fol" {
        fol();
    }
    if only.is_empty() || only == "regex" {
        regex();
    }
    if only.is_empty() || only == "shipped" {
        shipped();
    }
    if only.is_empty() || only == "rewrites" {
        rewrites();
    }
}
