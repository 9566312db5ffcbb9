//! Verifier throughput (issue 3 targets): PL at 40 operators, FOL batch, regex.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::base::rng::Rng;
use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::perturb::{PerturbKind, perturb};
use autoeval::syntax::Expr;
use autoeval::verify::{Options, verify, verify_batch};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Instant;

/// φ from a dataset paired with an equivalent rewrite or a breaking perturbation.
fn pairs(
    kind: DatasetKind,
    depth: usize,
    filter: impl Fn(&autoeval::grammar::generator::GenItem) -> bool,
) -> Vec<(Expr, Expr)> {
    let cfg = kind.grammar().expect("grammar");
    let params = GenParams {
        depth,
        vocab: kind.vocab(),
        ..Default::default()
    };
    let batch = generate_batch(&cfg, &params, 1, 0, &mut |_| {}).expect("batch");
    let kinds: Vec<PerturbKind> = if kind == DatasetKind::Regex {
        PerturbKind::REGEX.to_vec()
    } else {
        PerturbKind::LOGIC.to_vec()
    };
    let mut rng = Rng::new(3);
    let mut out = Vec::new();
    for item in batch.items.iter().filter(|i| filter(i)) {
        let k = kinds[rng.below(kinds.len())];
        if let Some(p) = perturb(&item.expr, k, &mut rng) {
            out.push((item.expr.clone(), p));
        }
    }
    out
}

fn report_unknown(name: &str, pairs: &[(Expr, Expr)]) {
    let opts = Options::default();
    let start = Instant::now();
    let verdicts = verify_batch(pairs, &opts);
    let unknown = verdicts.iter().filter(|v| v.name() == "unknown").count();
    let neq = verdicts
        .iter()
        .filter(|v| v.name() == "not-equivalent")
        .count();
    eprintln!(
        "{name}: {} pairs, {neq} not-equivalent, {unknown} unknown ({:.2}%), batch wall {:.2?} on all cores",
        pairs.len(),
        100.0 * unknown as f64 / pairs.len().max(1) as f64,
        start.elapsed()
    );
}

fn bench(c: &mut Criterion) {
    let opts = Options::default();
    let pl = pairs(DatasetKind::Pl, 40, |i| i.bucket >= 38);
    let fol = pairs(DatasetKind::Fol, 40, |_| true);
    let re = pairs(DatasetKind::Regex, 20, |_| true);
    report_unknown("pl@≥38 ops", &pl);
    report_unknown("fol batch", &fol);
    report_unknown("regex depth≤20", &re);
    let mut g = c.benchmark_group("verify_pair");
    for (name, set) in [
        ("pl_40_operators", &pl),
        ("fol_batch", &fol),
        ("regex_depth_20", &re),
    ] {
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % set.len();
                let (a, p) = &set[i];
                verify(black_box(a), black_box(p), &opts)
            });
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
