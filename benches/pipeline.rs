//! Pipeline figures (issue 4): HTTP throughput against a local server at 100 ms per
//! answer and 32 in flight; pipeline CPU per sample without the model; memory over a
//! ~100,000-sample offline run. Run with `cargo bench --bench pipeline`.
// A benchmark stops at the first thing that goes wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use autoeval::grammar::{DatasetKind, GenParams, generate_batch};
use autoeval::llm::ChatRequest;
use autoeval::llm::client::Limits;
use autoeval::llm::spec::{ModelOptions, build};
use autoeval::prompt::PromptSet;
use autoeval::run::pipeline::{Job, Pipeline};
use autoeval::syntax::SyntaxKind;
use common::{FakeModel, Reply, Server, openai_body, prompt_of};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn cpu_seconds() -> f64 {
    // utime + stime from /proc/self/stat, in clock ticks of 1/100 s.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let t = |i: usize| {
        fields
            .get(i)
            .and_then(|x| x.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (t(11) + t(12)) / 100.0
}

fn rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn throughput(rt: &tokio::runtime::Runtime) {
    let server = Server::start(|_, _| Reply {
        delay: Duration::from_millis(100),
        ..Reply::json(200, openai_body("ok"))
    });
    let opts = ModelOptions {
        base_url: Some(format!("{}/v1", server.base)),
        api_key_env: Some("AE_BENCH_NO_KEY".into()),
        limits: Limits {
            max_in_flight: 32,
            ..Limits::default()
        },
        ..ModelOptions::default()
    };
    let client = Arc::new(build("openai:bench", &opts).expect("client"));
    let n = 1600;
    let secs = rt.block_on(async {
        // Warm the connection pool first.
        let warm: Vec<_> = (0..32)
            .map(|_| {
                let c = client.clone();
                tokio::spawn(
                    async move { c.complete(&ChatRequest::plain("w", 0.0, 8)).await.is_ok() },
                )
            })
            .collect();
        for w in warm {
            let _ = w.await;
        }
        let t = Instant::now();
        let tasks: Vec<_> = (0..n)
            .map(|_| {
                let c = client.clone();
                tokio::spawn(
                    async move { c.complete(&ChatRequest::plain("x", 0.0, 8)).await.is_ok() },
                )
            })
            .collect();
        let mut ok = 0;
        for t in tasks {
            ok += usize::from(t.await.unwrap_or(false));
        }
        assert_eq!(ok, n);
        t.elapsed().as_secs_f64()
    });
    let rate = n as f64 / secs;
    println!(
        "HTTP throughput: {n} requests, 100 ms each, 32 in flight: {rate:.1} req/s = {:.1}% of the 320 req/s bound",
        rate / 3.2
    );

    // The whole pipeline against the same kind of server (two calls per sample).
    let model = FakeModel::new();
    let server = Server::start(move |_, r| Reply {
        delay: Duration::from_millis(100),
        ..Reply::json(200, openai_body(&model.answer(&prompt_of(r))))
    });
    let opts = ModelOptions {
        base_url: Some(format!("{}/v1", server.base)),
        ..opts
    };
    let client = Arc::new(build("openai:bench", &opts).expect("client"));
    let jobs = pl_jobs(0);
    let p = Arc::new(pipeline(client));
    let (secs, n) = rt.block_on(async {
        let t = Instant::now();
        let tasks: Vec<_> = jobs
            .iter()
            .take(640)
            .cloned()
            .map(|j| {
                let p = p.clone();
                tokio::spawn(async move { p.process(j).await })
            })
            .collect();
        let n = tasks.len();
        for t in tasks {
            let _ = t.await;
        }
        (t.elapsed().as_secs_f64(), n)
    });
    println!(
        "pipeline throughput: {n} samples (2 calls each): {:.1} samples/s = {:.1} req/s",
        n as f64 / secs,
        2.0 * n as f64 / secs
    );
}

fn pl_jobs(min_ops: usize) -> Vec<Job> {
    let cfg = DatasetKind::Pl.grammar().expect("grammar");
    let batch = generate_batch(&cfg, &GenParams::default(), 1, 0, &mut |_| {}).expect("batch");
    batch
        .items
        .iter()
        .filter(|i| i.bucket >= min_ops)
        .enumerate()
        .map(|(k, i)| Job {
            id: k.to_string(),
            idx: k,
            batch: None,
            phi0: i.expr.clone(),
            original: String::new(),
            num_operators: Some(i.bucket),
            depth: None,
        })
        .collect()
}

fn pipeline(client: Arc<autoeval::llm::Client>) -> Pipeline {
    Pipeline {
        client,
        prompts: Arc::new(PromptSet::builtin(0).expect("prompts")),
        syntax: SyntaxKind::Pl,
        rounds: 1,
        verify: autoeval::verify::Options::default(),
        reading: autoeval::syntax::Reading::Standard,
        bertscore: None,
        task: None,
    }
}

fn cpu_per_sample(rt: &tokio::runtime::Runtime) {
    let client = Arc::new(
        build(
            "perturb",
            &ModelOptions {
                perturb_rate: 0.3,
                ..ModelOptions::default()
            },
        )
        .expect("client"),
    );
    let p = Arc::new(pipeline(client));
    let jobs = pl_jobs(36);
    let rounds = 20;
    let c0 = cpu_seconds();
    let t = Instant::now();
    rt.block_on(async {
        for _ in 0..rounds {
            for j in &jobs {
                let _ = p.process(j.clone()).await;
            }
        }
    });
    let n = jobs.len() * rounds;
    println!(
        "pipeline CPU per sample at 36–39 operators (offline model, its own work included): {:.3} ms CPU, {:.3} ms wall ({n} samples)",
        (cpu_seconds() - c0) * 1000.0 / n as f64,
        t.elapsed().as_secs_f64() * 1000.0 / n as f64
    );
}

fn memory_over_long_run() {
    let exe = env!("CARGO_BIN_EXE_autoeval");
    let dir = std::env::temp_dir().join(format!("autoeval-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("tmp");
    let ds = dir.join("pl-100k.json");
    let st = std::process::Command::new(exe)
        .args([
            "generate",
            "--kind",
            "pl",
            "--batches",
            "51",
            "--quiet",
            "--out",
        ])
        .arg(&ds)
        .status()
        .expect("generate");
    assert!(st.success());
    let out = dir.join("run");
    let mut child = std::process::Command::new(exe)
        .args([
            "run",
            "--model",
            "perturb",
            "--concurrency",
            "32",
            "--quiet",
            "--dataset",
        ])
        .arg(&ds)
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run");
    let total =
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&ds).expect("read"))
            .map_or(0, |v| v["data"].as_array().map_or(0, Vec::len));
    let t = Instant::now();
    let mut marks = vec![];
    let mut peak = 0;
    let mut next_mark = 0.1;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let rss = rss_kb(child.id()).unwrap_or(0);
        peak = peak.max(rss);
        let done = std::fs::read(out.join("samples.jsonl")).map_or(0, |b| bytecount(&b));
        if total > 0 && done as f64 >= next_mark * total as f64 {
            marks.push(format!("{:>3.0}%: {} MB", next_mark * 100.0, rss / 1024));
            next_mark += 0.2;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "offline run of {total} samples in {:.1} s: RSS {} ; peak {} MB",
        t.elapsed().as_secs_f64(),
        marks.join(", "),
        peak / 1024
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn bytecount(b: &[u8]) -> usize {
    b.split(|&c| c == b'\n').count() - 1
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` would too. Only run when benching.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    throughput(&rt);
    cpu_per_sample(&rt);
    memory_over_long_run();
}
