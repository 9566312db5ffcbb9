//! Closeness-metric figures (issue 23): every stored metric (autoeval's BLEU/ROUGE-L/tree,
//! bleu_fol, rouge_l_fol, meteor, le, smatch, smatch_paper) on 100,000 generated FOL samples,
//! single pass on 2 threads; and `smatch_paper`'s optimal alignment on the 489 oracle
//! pairs, per pair, beside smatchpp's ILP time measured on the same pairs offline.
//!
//! `cargo bench --bench metrics` (`METRICS_SAMPLES=N` changes the 100,000;
//! `SMATCHPP_ILP_SECONDS` the ILP total to compare with, default the measured 22.85 s;
//! `METRICS_PROFILE=N` times each metric alone on the first N pairs, one thread;
//! `METRICS_DUMP=FILE` writes the pairs' FOLIO printings as `metrics pairs` TSV and stops;
//! `METRICS_SCORES=FILE` writes each pair's `smatch` and `smatch_paper` with optimality;
//! `METRICS_NO_ORACLE` skips the oracle-pair comparison).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A bench's `main` is its list of figures, in the order they print.
#![allow(clippy::too_many_lines)]

use autoeval::analysis::bleu_fol::{bleu_fol, rouge_l_fol};
use autoeval::analysis::closeness::{closeness, closeness_paper};
use autoeval::analysis::le::le;
use autoeval::analysis::paper_notation::paper_notation;
use autoeval::analysis::smatch::smatch;
use autoeval::analysis::smatch_paper::smatch_paper;
use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::syntax::{Expr, Formula};
use std::time::{Duration, Instant};

fn samples(want: usize) -> Vec<(Expr, Expr)> {
    let params = GenParams {
        vocab: DatasetKind::Fol.vocab(),
        ..Default::default()
    };
    let cfg = DatasetKind::Fol.grammar().expect("grammar");
    let mut rng = Rng::new(23);
    let mut out = Vec::with_capacity(want);
    for batch in 0.. {
        let b = generate_batch(&cfg, &params, 23, batch, &mut |_| {}).expect("batch");
        for item in b.items {
            // A run's φ₁: a third identical, the rest one perturbation away.
            let phi1 = if rng.below(3) == 0 {
                item.expr.clone()
            } else {
                let k = PerturbKind::LOGIC[rng.below(PerturbKind::LOGIC.len())];
                perturb(&item.expr, k, &mut rng).unwrap_or_else(|| item.expr.clone())
            };
            out.push((item.expr, phi1));
            if out.len() == want {
                return out;
            }
        }
    }
    out
}

fn logic(e: &Expr) -> &Formula {
    match e {
        Expr::Logic(f) => f,
        Expr::Regex(_) => panic!("FOL samples are logic"),
    }
}

/// Times `f` on every pair; prints the total and the slowest pair.
fn profile(name: &str, pairs: &[(Expr, Expr)], mut f: impl FnMut(&Expr, &Expr)) {
    let t = Instant::now();
    let mut worst = (Duration::ZERO, 0);
    for (i, (a, b)) in pairs.iter().enumerate() {
        let s = Instant::now();
        f(a, b);
        let d = s.elapsed();
        if d > worst.0 {
            worst = (d, i);
        }
    }
    let total = t.elapsed();
    println!(
        "  {name:<28} {:>8.3} s  {:>8.1} µs/pair  slowest {:.1?} (pair {})",
        total.as_secs_f64(),
        total.as_secs_f64() * 1e6 / pairs.len() as f64,
        worst.0,
        worst.1
    );
}

/// Times a smatch search on every pair; splits the time by whether it proved optimality.
fn profile_search(name: &str, pairs: &[(Expr, Expr)], mut f: impl FnMut(usize) -> Option<bool>) {
    let (mut proved, mut open) = ((0usize, Duration::ZERO), (0usize, Duration::ZERO));
    for i in 0..pairs.len() {
        let s = Instant::now();
        let optimal = f(i);
        let d = s.elapsed();
        let slot = if optimal == Some(false) {
            &mut open
        } else {
            &mut proved
        };
        slot.0 += 1;
        slot.1 += d;
    }
    println!(
        "  {name:<28} proved optimal {} ({:.3} s), budget ran out {} ({:.3} s)",
        proved.0,
        proved.1.as_secs_f64(),
        open.0,
        open.1.as_secs_f64()
    );
}

fn main() {
    let n: usize = std::env::var("METRICS_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let t = Instant::now();
    let pairs = samples(n);
    eprintln!("generated {} FOL pairs in {:.1?}", pairs.len(), t.elapsed());
    if let Ok(path) = std::env::var("METRICS_DUMP") {
        // The pairs in the FOLIO printing as `metrics pairs` TSV, to compare builds.
        let lines: String = pairs
            .iter()
            .filter_map(|(a, b)| {
                Some(format!(
                    "{}\t{}\n",
                    paper_notation(logic(a)).ok()?,
                    paper_notation(logic(b)).ok()?
                ))
            })
            .collect();
        std::fs::write(&path, lines).unwrap();
        eprintln!("wrote {path}");
        return;
    }
    if let Ok(path) = std::env::var("METRICS_SCORES") {
        // Both smatch scores and their optimality per pair, to compare two builds' values.
        let lines: String = pairs
            .iter()
            .map(|(a, b)| {
                let s = smatch(logic(b), logic(a)).ok();
                let p = match (paper_notation(logic(a)), paper_notation(logic(b))) {
                    (Ok(r), Ok(c)) => smatch_paper(&c, &r).ok(),
                    _ => None,
                };
                let f = |x: Option<(f64, bool)>| {
                    x.map_or_else(|| "-\t-".to_string(), |(v, o)| format!("{v:.6}\t{o}"))
                };
                format!("{}\t{}\n", f(s), f(p))
            })
            .collect();
        std::fs::write(&path, lines).unwrap();
        eprintln!("wrote {path}");
        return;
    }
    if let Some(p) = std::env::var("METRICS_PROFILE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        let sub = &pairs[..p.min(pairs.len())];
        println!("each metric alone on {} pairs, one thread:", sub.len());
        profile("closeness (cheap three)", sub, |a, b| {
            std::hint::black_box(closeness(a, b));
        });
        let texts: Vec<(String, String)> = sub
            .iter()
            .map(|(a, b)| {
                (
                    paper_notation(logic(a)).unwrap_or_default(),
                    paper_notation(logic(b)).unwrap_or_default(),
                )
            })
            .collect();
        profile("paper_notation ×2", sub, |a, b| {
            std::hint::black_box((paper_notation(logic(a)).ok(), paper_notation(logic(b)).ok()));
        });
        let mut i = 0;
        profile("bleu_fol + rouge_l_fol", sub, |_, _| {
            let (r, c) = &texts[i];
            std::hint::black_box((bleu_fol(c, r), rouge_l_fol(c, r)));
            i += 1;
        });
        let mut i = 0;
        profile("meteor", sub, |_, _| {
            let (r, c) = &texts[i];
            std::hint::black_box(autoeval::analysis::meteor::meteor(r, c).ok());
            i += 1;
        });
        let mut i = 0;
        profile("le (with 2 paper parses)", sub, |_, _| {
            let (r, c) = &texts[i];
            std::hint::black_box(le(c, r).ok());
            i += 1;
        });
        let mut i = 0;
        profile("smatch_paper (2 parses)", sub, |_, _| {
            let (r, c) = &texts[i];
            std::hint::black_box(smatch_paper(c, r).ok());
            i += 1;
        });
        profile("smatch", sub, |a, b| {
            std::hint::black_box(smatch(logic(b), logic(a)).ok());
        });
        profile_search("smatch_paper split", sub, |i| {
            let (r, c) = &texts[i];
            smatch_paper(c, r).ok().map(|s| s.1)
        });
        profile_search("smatch split", sub, |i| {
            smatch(logic(&sub[i].1), logic(&sub[i].0)).ok().map(|s| s.1)
        });
        profile("closeness_paper (all)", sub, |a, b| {
            std::hint::black_box(closeness_paper(a, b));
        });
    }
    let t = Instant::now();
    let threads = 2;
    let chunk = pairs.len().div_ceil(threads);
    let (with_le, with_sp) = std::thread::scope(|s| {
        let hs: Vec<_> = pairs
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    let mut counts = (0usize, 0usize);
                    for (a, b) in c {
                        let m = closeness_paper(a, b);
                        counts.0 += usize::from(m.le.is_some());
                        counts.1 += usize::from(m.smatch_paper.is_some());
                    }
                    counts
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap())
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    let secs = t.elapsed().as_secs_f64();
    println!(
        "all metrics on {} FOL samples, {threads} threads: {secs:.1} s ({:.0} samples/s); le defined on {with_le}, smatch_paper on {with_sp}",
        pairs.len(),
        pairs.len() as f64 / secs
    );

    if std::env::var_os("METRICS_NO_ORACLE").is_some() {
        return;
    }
    let data = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/metrics-oracle.jsonl"),
    )
    .unwrap();
    let rows: Vec<(String, String)> = data
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["a"].as_str().unwrap().to_string(),
                v["b"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let t = Instant::now();
    let mut proved = 0;
    for (a, b) in &rows {
        if let Ok((_, optimal)) = smatch_paper(b, a) {
            proved += usize::from(optimal);
        }
    }
    let ours = t.elapsed().as_secs_f64();
    let ilp: f64 = std::env::var("SMATCHPP_ILP_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(22.85);
    println!(
        "smatch_paper optimal alignment on {} oracle pairs: {:.3} ms/pair ({proved} proved optimal); smatchpp ILP {:.1} ms/pair; {:.0}x",
        rows.len(),
        ours * 1000.0 / rows.len() as f64,
        ilp * 1000.0 / rows.len() as f64,
        ilp / ours
    );
}
