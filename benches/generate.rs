//! Generator and parser throughput (issue 2 targets).
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::syntax::{Notation, parse_formula, print_formula};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn batches(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate_batch_paper_params");
    g.sample_size(20);
    for kind in DatasetKind::ALL {
        let cfg = kind.grammar().expect("grammar");
        let p = GenParams {
            vocab: kind.vocab(),
            ..Default::default()
        };
        g.bench_function(kind.name(), |b| {
            b.iter(|| generate_batch(&cfg, &p, black_box(1), 0, &mut |_| {}).expect("batch"));
        });
    }
    g.finish();
}

fn parse_print(c: &mut Criterion) {
    // A 40-operator PL formula from a generated dataset.
    let cfg = DatasetKind::Pl.grammar().expect("grammar");
    let batch = generate_batch(&cfg, &GenParams::default(), 1, 0, &mut |_| {}).expect("batch");
    let item = batch.items.iter().max_by_key(|i| i.bucket).expect("items");
    let text = print_formula(
        match &item.expr {
            autoeval::syntax::Expr::Logic(f) => f,
            _ => unreachable!("PL"),
        },
        Notation::Original,
    );
    eprintln!("parse+print input ({} operators): {text}", item.bucket);
    c.bench_function("parse_print_40_operators", |b| {
        b.iter(|| {
            let f = parse_formula(black_box(&text)).expect("parses");
            print_formula(&f, Notation::Unicode)
        });
    });
}

criterion_group!(benches, batches, parse_print);
criterion_main!(benches);
