//! `autoeval run --dry-run` and the batch runs (`--batch-api`, `--batch-file-out`,
//! `--batch-file-in`); their flags are [`ScaleArgs`], defined with the run's others.

use crate::dataset::Dataset;
use crate::launch::args::RunArgs;
pub use crate::launch::args::ScaleArgs;
pub use crate::launch::spec::equip;
use crate::llm::Client;
use crate::llm::budget::worst_input_tokens;
use crate::llm::cache;
use crate::prompt::PromptSet;
use anyhow::{Result, bail};
use std::collections::{HashMap, HashSet};

/// The dataset a dry run looks at, without creating the run directory.
fn dataset(args: &RunArgs) -> Result<Dataset> {
    if let Some(path) = &args.dataset {
        return Ok(Dataset::open(path)?);
    }
    let existing = args.out.join("dataset.json");
    if args.resume && existing.exists() {
        return Ok(Dataset::open(&existing)?);
    }
    let Some(kind) = args.kind else {
        bail!("give --dataset FILE or --kind");
    };
    let tmp = std::env::temp_dir().join(format!("autoeval-dry-run-{}.json", std::process::id()));
    let made = crate::launch::spec::generate_kind(args, kind, &tmp)
        .map_err(anyhow::Error::from)
        .and_then(|()| Ok(Dataset::open(&tmp)?));
    let _ = std::fs::remove_file(&tmp);
    made
}

/// Ids a resumed run would skip.
fn finished(args: &RunArgs) -> HashSet<String> {
    if !args.resume {
        return HashSet::new();
    }
    let Ok(loaded) = crate::run::store::read_samples(&args.out) else {
        return HashSet::new();
    };
    let mut latest = HashMap::new();
    for r in loaded.records {
        let failed = r.verdict.kind() == crate::verify::VerdictKind::ModelError;
        latest.insert(r.id, failed);
    }
    latest
        .into_iter()
        .filter(|(_, failed)| !(args.retry_errors && *failed))
        .map(|(id, _)| id)
        .collect()
}

pub(crate) use crate::run::task_estimate::estimate_tokens;

/// Tokens and calls of a planned run.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    /// Samples to do.
    pub samples: u64,
    /// Round-1 calls (informalize + autoformalize).
    pub calls: u64,
    /// Estimated round-1 prompt tokens.
    pub input: u64,
    /// Estimated round-1 answer tokens.
    pub output: u64,
    /// Worst-case round-1 prompt tokens (every byte a token).
    pub worst_input: u64,
    /// Round-1 informalization prompts already in the response cache.
    pub cached: u64,
}

/// Estimates round 1 of a run: the real informalization prompts, and autoformalization
/// prompts around a stand-in ψ three times as long as φ₀ (the answers' usual size).
pub(crate) fn plan(
    items: &[crate::dataset::Item],
    syntax: crate::syntax::SyntaxKind,
    prompts: &PromptSet,
    client: &Client,
) -> Plan {
    let mut p = Plan::default();
    let info = client.info();
    for item in items {
        let Ok(phi0) = crate::syntax::parse(&item.fs, syntax) else {
            continue;
        };
        let formula = phi0.to_unicode();
        let inf = prompts.informalize(&phi0, syntax);
        let psi = "w".repeat(formula.chars().count() * 3);
        let auto = prompts.autoformalize(&psi, &phi0, syntax);
        p.samples += 1;
        p.calls += 2;
        p.input += estimate_tokens(&inf.text) + estimate_tokens(&auto.text);
        p.output += estimate_tokens(&psi) + estimate_tokens(&formula) + 10;
        p.worst_input += worst_input_tokens(inf.text.len()) + worst_input_tokens(auto.text.len());
        if let Some(c) = client.cache() {
            let req = client.request(inf.text);
            p.cached += u64::from(c.get(&cache::key(&info, &req)).is_some());
        }
    }
    p
}

/// Estimates a reference-task run: one call per sample with its real prompt
/// (`run::task_estimate`, which the viewer's form uses too).
fn plan_task(
    items: &[crate::dataset::Item],
    task: &crate::run::task::TaskSet,
    prompts: &PromptSet,
    client: &Client,
) -> Plan {
    let mut p = Plan::default();
    let info = client.info();
    for item in items {
        let Some(c) = crate::run::task_estimate::call(task, prompts, item) else {
            continue;
        };
        p.samples += 1;
        p.calls += 1;
        p.input += c.input;
        p.output += c.output;
        p.worst_input += worst_input_tokens(c.prompt.text.len());
        if let Some(cache) = client.cache() {
            let req = client.request(c.prompt.text);
            p.cached += u64::from(cache.get(&cache::key(&info, &req)).is_some());
        }
    }
    p
}

fn usd(x: Option<f64>) -> String {
    x.map_or_else(|| "unpriced".into(), |c| format!("${c:.4}"))
}

/// `run --dry-run`: what the run would send and cost; writes nothing.
pub(crate) fn dry_run(args: &RunArgs) -> Result<i32> {
    if args.rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    let prompts = match &args.prompts {
        Some(dir) => PromptSet::load(dir, args.shots)?,
        None => PromptSet::builtin(args.shots)?,
    };
    let client = equip(args, args.model.client_with(true)?)?;
    let (mut ds, task) = match args.task {
        Some(t) => {
            let (ds, _, set) = crate::launch::spec::load_task(args, t)?;
            (ds, Some(set))
        }
        None => (dataset(args)?, None),
    };
    let limit_note = crate::dataset::limit::apply(&mut ds, args.limit, args.seed);
    if let Some(n) = &limit_note {
        outln!("{}", n.line());
    }
    let done = finished(args);
    let todo: Vec<crate::dataset::Item> = ds
        .file
        .data
        .iter()
        .take(args.limit.unwrap_or(usize::MAX))
        .filter(|i| !done.contains(&i.idx.to_string()))
        .cloned()
        .collect();
    let p = match &task {
        Some(t) => plan_task(&todo, t, &prompts, &client),
        None => plan(&todo, ds.syntax, &prompts, &client),
    };
    print_dry_run(args, &client, p, done.len(), task.is_some())?;
    Ok(0)
}

/// The dry run's report of plan `p` (`done` samples finished before; `task`: a
/// reference-task run).
fn print_dry_run(args: &RunArgs, client: &Client, p: Plan, done: usize, task: bool) -> Result<()> {
    let m = client.params().max_tokens;
    // The profile's reasoning estimate per call is billed as output too.
    let reasoning_per_call = u64::from(client.params().reasoning_estimate.unwrap_or(0));
    let reasoning_out = p.calls * reasoning_per_call;
    let mut p = p;
    p.output += reasoning_out;
    let info = client.info();
    let prices = client.prices();
    let rounds = args.rounds as u64;
    let cost = |i: u64, o: u64| {
        if info.synthetic {
            (Some(0.0), Some(0.0))
        } else {
            (
                prices.cost(&info.name, i, o),
                prices.batch_cost(&info.name, i, o),
            )
        }
    };
    let worst_out = p.calls * u64::from(m);
    let (live1, batch1) = cost(p.input, p.output);
    let (live_n, batch_n) = cost(p.input * rounds, p.output * rounds);
    let (live_w, batch_w) = cost(p.worst_input * rounds, worst_out * rounds);
    outln!(
        "dry run: {} samples to do ({} finished before), {} round{}, {}:{}",
        p.samples,
        done,
        rounds,
        if rounds == 1 { "" } else { "s" },
        info.provider,
        info.name
    );
    outln!(
        "calls: {} in round 1 (fewer when ψ copies φ₀); at most {} over {} round{}",
        p.calls,
        p.calls * rounds,
        rounds,
        if rounds == 1 { "" } else { "s" }
    );
    if let Some(c) = client.cache() {
        outln!(
            "response cache {}: {} of {} {} already answered (free)",
            c.path().display(),
            p.cached,
            p.samples,
            if task {
                "task prompts"
            } else {
                "round-1 informalizations"
            }
        );
    }
    outln!(
        "estimated tokens, round 1: {} in, {} out{}",
        p.input,
        p.output,
        if reasoning_out > 0 {
            format!(
                " (of which {reasoning_out} reasoning: the profile's estimate of {reasoning_per_call} per call)"
            )
        } else {
            String::new()
        }
    );
    outln!(
        "estimated cost, round 1: {} live, {} batch",
        usd(live1),
        usd(batch1)
    );
    if rounds > 1 {
        outln!(
            "estimated cost, all {rounds} rounds if every sample passes: {} live, {} batch",
            usd(live_n),
            usd(batch_n)
        );
    }
    outln!(
        "worst case (every prompt byte a token, every answer at --max-tokens {m}, all rounds): {} in, {} out: {} live, {} batch",
        p.worst_input * rounds,
        worst_out * rounds,
        usd(live_w),
        usd(batch_w)
    );
    print_reasoning(client, reasoning_out, reasoning_per_call)?;
    if let Some(limit) = args.scale.max_cost {
        outln!("--max-cost ${limit:.4}: the run stops before its spend would pass it");
    }
    if live1.is_none() && !info.synthetic {
        outln!(
            "note: {} is not in the price table; add it with --prices FILE",
            info.name
        );
    }
    Ok(())
}

/// The dry run's line on reasoning tokens: in the estimate, or only in the worst case.
fn print_reasoning(client: &Client, reasoning_out: u64, reasoning_per_call: u64) -> Result<()> {
    let params = client.params();
    let m = params.max_tokens;
    let reasons = params.thinking == Some(crate::llm::request::OnOff::On)
        || params.reasoning == crate::llm::request::ReasoningStyle::Openai;
    if reasoning_out > 0 {
        outln!(
            "reasoning: {} reasons; its tokens are billed as output and are in the estimate above \
             ({reasoning_per_call} per call, the profile's estimate) and in the worst case (reasoning \
             and answer together stay within --max-tokens {m})",
            params.profile
        );
    } else if reasons {
        outln!(
            "reasoning: {} asks for it; its tokens are billed as output and are not in the estimate above, \
             only in the worst case (reasoning and answer together stay within --max-tokens {m})",
            params.profile
        );
    }
    Ok(())
}

pub use crate::llm::spec::FILES_BASE;

/// The batch endpoint for `--model` (same base URL and key rules as live calls).
fn batch_api(args: &RunArgs) -> Result<crate::llm::batch_api::BatchApi> {
    let m = &args.model;
    crate::llm::batch_api::BatchApi::for_model(
        &m.model,
        &m.base_url,
        m.api_key_env.as_deref(),
        m.request_timeout,
    )
    .map_err(anyhow::Error::msg)
}

/// `run --batch-api`, `--batch-file-out` or `--batch-file-in`.
pub(crate) fn run_batch(mut args: RunArgs, json: bool) -> Result<i32> {
    use crate::run::batch::{BatchSpec, Mode};
    if !args.scale.batch_api && args.model.base_url.is_empty() {
        // Batch files contact no server, so no key is needed; the manifest says so.
        args.model.base_url = vec![FILES_BASE.into()];
    }
    let s = &args.scale;
    if !(s.batch_poll.is_finite() && s.batch_poll > 0.0) {
        bail!("--batch-poll must be a positive number of seconds");
    }
    let mode = if s.batch_api {
        Mode::Api(batch_api(&args)?)
    } else {
        let model = crate::llm::spec::ModelSpec::parse(&args.model.model);
        if model.is_ok_and(|m| m.provider.is_offline()) {
            bail!("batch files are for a model served elsewhere (openai:<name>), not perturb");
        }
        Mode::Files {
            input: s.batch_file_in.clone(),
            out_dir: s.batch_file_out.clone(),
        }
    };
    let spec = crate::launch::spec::build_spec(&args, std::env::args().collect(), None)?;
    let out = spec.out.clone();
    let batch = BatchSpec::new(mode, s.batch_max_requests, s.batch_max_bytes, s.batch_poll)
        .map_err(anyhow::Error::msg)?;
    let quiet = args.quiet;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (cancel_rx, signal_code) = super::signals::stop_on_signal(
            "stopping: cancelling open batches at the provider; continue with --resume",
        );
        // What this pass billed comes from the spend ledger: answers read from a result
        // file are billed when they are read, often a pass before their sample is written.
        let ledger = || crate::run::spend::read(&out).ok().flatten();
        let before = ledger();
        let task = tokio::spawn(crate::run::batch::execute(spec, batch, tx, cancel_rx));
        let (done, pass) = follow(&mut rx, quiet).await;
        let outcome = task
            .await
            .map_err(|e| anyhow::anyhow!("run task failed: {e}"))??;
        crate::run::index::load_or_build(&out, false);
        if json {
            let mut v = batch_json(
                &out,
                done,
                pass,
                &outcome,
                before.as_ref(),
                ledger().as_ref(),
            );
            crate::base::sanitize::json_for_terminal(&mut v);
            outln!("{}", serde_json::to_string_pretty(&v)?);
        }
        eprintln!(
            "{done} samples written this time ({pass} equivalent; {} this time) → {}",
            billed_since(before.as_ref(), ledger().as_ref()),
            out.display()
        );
        let signal = signal_code.get();
        exit_code(outcome, signal, json)
    })
}

/// Follows a batch pass's events until it ends: samples written and how many were
/// equivalent; statuses and warnings go to standard error.
async fn follow(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<crate::run::driver::Event>,
    quiet: bool,
) -> (usize, usize) {
    use crate::run::batch::STATUS_PREFIX;
    let (mut done, mut pass) = (0usize, 0usize);
    while let Some(ev) = rx.recv().await {
        match ev {
            crate::run::driver::Event::Started { todo, done_before } => {
                if !quiet {
                    eprintln!("{todo} samples to do ({done_before} finished before)");
                }
            }
            crate::run::driver::Event::Sample(rec) => {
                done += 1;
                pass += usize::from(rec.verdict.is_equivalent());
            }
            crate::run::driver::Event::Warning(w) => {
                let w = crate::base::sanitize::for_terminal(&w);
                match w.strip_prefix(STATUS_PREFIX) {
                    Some(status) if !quiet => eprintln!("batch: {status}"),
                    Some(_) => {}
                    None => eprintln!("warning: {w}"),
                }
            }
        }
    }
    (done, pass)
}

/// The exit code of a batch pass that ended with `outcome` (`signal`: the exit code of
/// the signal that stopped it, 0 for none); a pass waiting for answers says what to do.
fn exit_code(outcome: crate::run::batch::BatchOutcome, signal: i32, json: bool) -> Result<i32> {
    use crate::run::batch::BatchOutcome;
    Ok(match outcome {
        BatchOutcome::Finished => 0,
        BatchOutcome::Cancelled => match signal {
            0 => 130,
            c => c,
        },
        BatchOutcome::Unreachable => crate::run::driver::EXIT_SERVER_GONE,
        BatchOutcome::Waiting { pending, files } => {
            if files.is_empty() {
                eprintln!(
                    "{pending} requests still need answers: write them with --batch-file-out DIR"
                );
            } else {
                for f in files.iter().filter(|_| !json) {
                    outln!("{}", f.display());
                }
                eprintln!(
                    "{pending} requests written to {} file(s); answer them (e.g. `vllm run-batch -i FILE -o RESULTS --model …`) \
                     and continue with --resume --batch-file-in RESULTS",
                    files.len()
                );
            }
            0
        }
    })
}

/// The summary of a batch pass as `--format json` prints it.
fn batch_json(
    out: &std::path::Path,
    done: usize,
    pass: usize,
    outcome: &crate::run::batch::BatchOutcome,
    before: Option<&crate::run::spend::Ledgered>,
    after: Option<&crate::run::spend::Ledgered>,
) -> serde_json::Value {
    use crate::run::batch::BatchOutcome;
    let (usd0, un0) = before.map_or((0.0, 0), |l| (l.usd, l.unpriced));
    let (usd1, un1) = after.map_or((0.0, 0), |l| (l.usd, l.unpriced));
    let (status, pending, files) = match outcome {
        BatchOutcome::Finished => ("finished", 0, &[][..]),
        BatchOutcome::Cancelled => ("cancelled", 0, &[][..]),
        BatchOutcome::Unreachable => ("unreachable", 0, &[][..]),
        BatchOutcome::Waiting { pending, files } => ("waiting", *pending, files.as_slice()),
    };
    serde_json::json!({
        "out": out.display().to_string(),
        "status": status,
        "samples": done,
        "equivalent": pass,
        "billed_usd": (usd1 - usd0).max(0.0),
        "unpriced_calls": un1.saturating_sub(un0),
        "pending": pending,
        "request_files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
    })
}

/// What the ledger gained between two reads: the spend at batch prices, and how many
/// calls could not be priced (model not in the price table).
fn billed_since(
    before: Option<&crate::run::spend::Ledgered>,
    after: Option<&crate::run::spend::Ledgered>,
) -> String {
    let (usd0, un0) = before.map_or((0.0, 0), |l| (l.usd, l.unpriced));
    let (usd1, un1) = after.map_or((0.0, 0), |l| (l.usd, l.unpriced));
    let usd = (usd1 - usd0).max(0.0);
    match un1.saturating_sub(un0) {
        0 => format!("${usd:.4} billed at batch prices"),
        n => format!(
            "${usd:.4} billed at batch prices, {n} calls unpriced (not in the price table; --prices FILE)"
        ),
    }
}
