//! Reasoning-model figures (issue 32): splitting the reasoning from a 64 KiB reply, and
//! a 10,000-sample run against an in-process server that answers through inline
//! `<think>` blocks beside the same run against a plain server. Run with
//! `cargo bench --bench reasoning`.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::llm::client::Limits;
use autoeval::llm::reasoning::split;
use autoeval::llm::spec::{ModelOptions, build};
use autoeval::prompt::PromptSet;
use autoeval::run::pipeline::{Job, Pipeline};
use autoeval::syntax::SyntaxKind;
use common::providers::{self, Style};
use common::{FakeModel, Reply, Server, openai_body, prompt_of};
use std::sync::Arc;
use std::time::Instant;

fn split_64k() {
    let mut reasoning = String::new();
    while reasoning.len() < 64 * 1024 {
        reasoning.push_str("Consider p1 ∧ (p2 → ¬p3); a draft: ```p1 ∨ p2``` is wrong. ");
    }
    let no_open = format!("{reasoning}\n</think>\n\nAnswer: p1 ∧ (p2 → ¬p3)");
    let tagged = format!("<think>\n{no_open}");
    for (name, text) in [("with opening tag", &tagged), ("DeepSeek style", &no_open)] {
        let n = 20_000;
        let t = Instant::now();
        let mut total = 0;
        for _ in 0..n {
            let s = split(std::hint::black_box(text));
            total += s.answer.trim().len();
        }
        assert!(total > 0);
        println!(
            "split a {} KiB reply ({name}): {:.2} µs",
            text.len() / 1024,
            t.elapsed().as_secs_f64() * 1e6 / f64::from(n)
        );
    }
}

fn jobs(n: usize) -> Vec<Job> {
    let cfg = DatasetKind::Pl.grammar().expect("grammar");
    let batch = generate_batch(&cfg, &GenParams::default(), 1, 0, &mut |_| {}).expect("batch");
    (0..n)
        .map(|k| {
            let i = &batch.items[k % batch.items.len()];
            Job {
                id: k.to_string(),
                idx: k,
                batch: None,
                phi0: i.expr.clone(),
                original: String::new(),
                num_operators: Some(i.bucket),
                depth: None,
            }
        })
        .collect()
}

fn run(rt: &tokio::runtime::Runtime, server: &Server, jobs: &[Job]) -> f64 {
    let client = build(
        "openai:qwen3-8b",
        &ModelOptions {
            base_url: Some(format!("{}/v1", server.base)),
            api_key_env: Some("AE_BENCH_NO_KEY".into()),
            limits: Limits {
                max_in_flight: 32,
                ..Limits::default()
            },
            ..ModelOptions::default()
        },
    )
    .expect("client");
    let p = Arc::new(Pipeline {
        client: Arc::new(client),
        prompts: Arc::new(PromptSet::builtin(0).expect("prompts")),
        syntax: SyntaxKind::Pl,
        rounds: 1,
        verify: autoeval::verify::Options::default(),
        reading: autoeval::syntax::Reading::Standard,
        bertscore: None,
        task: None,
    });
    let t = Instant::now();
    let equivalent = rt.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        let mut queue = jobs.iter().cloned();
        let mut ok = 0;
        loop {
            while set.len() < 32 {
                let Some(j) = queue.next() else { break };
                let p = p.clone();
                set.spawn(async move { p.process(j).await });
            }
            let Some(r) = set.join_next().await else {
                break;
            };
            ok += usize::from(r.unwrap().verdict.is_equivalent());
        }
        ok
    });
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(
        equivalent,
        jobs.len(),
        "every sample equivalent: nothing leaked"
    );
    secs
}

fn main() {
    split_64k();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let n: usize = std::env::var("REASONING_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let jobs = jobs(n);
    let plain_model = FakeModel::new();
    let plain = Server::start(move |_, r| {
        Reply::json(200, openai_body(&plain_model.answer(&prompt_of(r))))
    });
    let think_model = FakeModel::new();
    let thinking = Server::start(move |_, r| {
        let p = prompt_of(r);
        Reply::json(
            200,
            providers::openai_reply(Style::Inline, &p, &think_model.answer(&p)),
        )
    });
    // Alternate, so drift on a shared machine hits both alike.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        a.push(run(&rt, &plain, &jobs));
        b.push(run(&rt, &thinking, &jobs));
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (pa, pb) = (med(&mut a), med(&mut b));
    println!(
        "{n} samples at 32 in flight: plain server {pa:.2} s (median of 3), inline-reasoning server {pb:.2} s: {:+.1} %",
        100.0 * (pb / pa - 1.0)
    );
}
