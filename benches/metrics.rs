//! Closeness-metric figures (issue 23): every stored metric (autoeval's BLEU/ROUGE-L/tree,
//! bleu_fol, rouge_l_fol, le, smatch, smatch_paper) on 100,000 generated FOL samples,
//! single pass on 2 threads; and `smatch_paper`'s optimal alignment on the 489 oracle
//! pairs, per pair, beside smatchpp's ILP time measured on the same pairs offline.
//!
//! `cargo bench --bench metrics` (`METRICS_SAMPLES=N` changes the 100,000;
//! `SMATCHPP_ILP_SECONDS` the ILP total to compare with, default the measured 22.85 s).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::analysis::closeness::closeness;
use autoeval::analysis::smatch_paper::smatch_paper;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::rng::Rng;
use autoeval::syntax::Expr;
use std::time::Instant;

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

fn main() {
    let n: usize = std::env::var("METRICS_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let t = Instant::now();
    let pairs = samples(n);
    eprintln!("generated {} FOL pairs in {:.1?}", pairs.len(), t.elapsed());
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
                        let m = closeness(a, b);
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
