//! `autoeval run`.

use super::model_args::ModelArgs;
use crate::dataset::Dataset;
use crate::grammar::{DatasetKind, GenParams};
use crate::prompt::PromptSet;
use crate::run::driver::{Event, Outcome, RunSpec, dataset_info, execute};
use crate::run::pipeline::Pipeline;
use crate::verify;
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most samples in flight a run accepts (a server answers far fewer at once).
pub const MAX_CONCURRENCY: usize = 4096;

/// Arguments of `autoeval run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Dataset file (ours or the original's).
    #[arg(long, conflicts_with = "kind", required_unless_present = "kind")]
    pub dataset: Option<PathBuf>,
    /// Generate a dataset of this kind first (saved as dataset.json in the run).
    #[arg(long, value_enum)]
    pub kind: Option<DatasetKind>,
    /// Seed for --kind.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Samples per category for --kind.
    #[arg(long, default_value_t = 50)]
    pub per_category: usize,
    /// Batches for --kind.
    #[arg(long, default_value_t = 1)]
    pub batches: usize,
    /// Model options.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Rounds n of (A∘I)ⁿ.
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// 0 (zero-shot) or 2 (two examples).
    #[arg(long, default_value_t = 0)]
    pub shots: usize,
    /// Prompt-set directory (see `autoeval prompts --export`).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Verifier timeout per pair, in ms.
    #[arg(long, default_value_t = 5000)]
    pub verify_timeout: u64,
    /// How replies without full parentheses are grouped: `standard` or `nltk` (the
    /// original's); recorded in run.json.
    #[arg(long, value_enum, default_value_t = crate::syntax::Reading::Standard)]
    pub reading: crate::syntax::Reading,
    /// Only the first N samples.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Output run directory.
    #[arg(long)]
    pub out: PathBuf,
    /// Continue a run directory, skipping finished samples.
    #[arg(long)]
    pub resume: bool,
    /// With --resume: accept other dataset, rounds, shots, prompt set or syntax.
    #[arg(long, requires = "resume")]
    pub force: bool,
    /// With --resume: run again the samples whose latest record is a model error
    /// (the new line supersedes the old one for every reader).
    #[arg(long, requires = "resume")]
    pub retry_errors: bool,
    /// Stop (cancelled, resumable) after N samples in a row could not reach the server; 0 never stops.
    #[arg(long, default_value_t = 5)]
    pub max_consecutive_failures: usize,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Response cache, budget and dry run.
    #[command(flatten)]
    pub scale: super::run_scale::ScaleArgs,
}

fn load_dataset(args: &RunArgs) -> Result<(Dataset, String, PathBuf)> {
    if let Some(path) = &args.dataset {
        let ds = Dataset::open(path)?;
        let kind = ds.kind_name();
        return Ok((ds, kind, path.clone()));
    }
    let kind = args
        .kind
        .ok_or_else(|| anyhow!("give --dataset FILE or --kind"))?;
    let path = args.out.join("dataset.json");
    if args.resume && path.exists() {
        return Ok((Dataset::open(&path)?, kind.name().to_string(), path));
    }
    let cfg = kind.grammar()?;
    let params = GenParams {
        per_category: args.per_category,
        vocab: kind.vocab(),
        ..GenParams::default()
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    super::generate::generate_to_file(
        &cfg,
        &params,
        args.seed,
        args.batches,
        &path,
        kind.name(),
        Some(kind),
        &ProgressBar::hidden(),
    )?;
    Ok((Dataset::open(&path)?, kind.name().to_string(), path))
}

/// How a run is steered from outside: a pause switch shared with the viewer. A run
/// with one pauses itself when the server is gone (the viewer's choice); without one it
/// stops as `cancelled` (the CLI's).
pub type PauseSwitch = tokio::sync::watch::Sender<bool>;

/// Builds the run from its arguments: the one path from settings to a [`RunSpec`], used
/// by `autoeval run` and by the viewer's form (which fills in the same arguments).
/// `command` is recorded in the manifest as the re-runnable command line.
pub fn build_spec(
    args: &RunArgs,
    command: Vec<String>,
    pause: Option<&PauseSwitch>,
) -> Result<RunSpec> {
    if args.rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    let prompts = match &args.prompts {
        Some(dir) => PromptSet::load(dir, args.shots)?,
        None => PromptSet::builtin(args.shots)?,
    };
    let client = super::run_scale::equip(args, args.model.client()?)?;
    if args.out.join("run.json").exists() && !args.resume {
        bail!(
            "{} already holds a run: add --resume to continue it, or choose another --out",
            args.out.display()
        );
    }
    let (ds, kind, path) = load_dataset(args)?;
    let pipeline = Arc::new(Pipeline {
        client: Arc::new(client),
        prompts: Arc::new(prompts),
        syntax: ds.syntax,
        rounds: args.rounds,
        temperature: args.model.temperature,
        max_tokens: args.model.max_tokens,
        verify: verify::Options {
            timeout: Duration::from_millis(args.verify_timeout.max(1)),
            ..verify::Options::default()
        },
        reading: args.reading,
    });
    Ok(RunSpec {
        out: args.out.clone(),
        dataset_info: dataset_info(&ds, &kind, Some(&path)),
        dataset: ds,
        pipeline,
        concurrency: args.model.concurrency,
        resume: args.resume,
        command,
        limit: args.limit,
        pause: pause.map(PauseSwitch::subscribe),
        pause_switch: pause.cloned(),
        force: args.force,
        retry_errors: args.retry_errors,
        max_consecutive_failures: args.max_consecutive_failures,
    })
}

/// The command line as the manifest records it: `autoeval …`, never the path the
/// binary was started from (a build machine's directories are no one else's business).
pub fn recorded_command(args: impl Iterator<Item = String>) -> Vec<String> {
    std::iter::once("autoeval".to_string())
        .chain(args.skip(1))
        .collect()
}

/// Exit code of a run stopped because the server could not be reached
/// (`--max-consecutive-failures`): EX_TEMPFAIL, "try again later".
pub const EXIT_SERVER_GONE: i32 = 75;

/// Runs `autoeval run`; exit 0 when finished, 130/143/129 when stopped by a signal,
/// [`EXIT_SERVER_GONE`] when the server could not be reached.
pub fn run(args: RunArgs) -> Result<i32> {
    if args.scale.dry_run {
        return super::run_scale::dry_run(&args);
    }
    if args.scale.batch() {
        return super::run_scale::run_batch(args);
    }
    let spec = build_spec(&args, recorded_command(std::env::args()), None)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(drive(spec, args.quiet))
}

async fn drive(spec: RunSpec, quiet: bool) -> Result<i32> {
    let out = spec.out.clone();
    let cache = spec.pipeline.client.cache().cloned();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
    // Ctrl-C, SIGTERM and SIGHUP all stop the run the same way; the exit code says which.
    let signal_code = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(0));
    let code = signal_code.clone();
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            // Without SIGTERM/SIGHUP handlers, Ctrl-C still works.
            if tokio::signal::ctrl_c().await.is_ok() {
                code.store(130, std::sync::atomic::Ordering::SeqCst);
                let _ = cancel_tx.send(true);
            }
            return;
        };
        let exit = tokio::select! {
            r = tokio::signal::ctrl_c() => if r.is_ok() { 130 } else { return },
            _ = term.recv() => 143,
            _ = hup.recv() => 129,
        };
        code.store(exit, std::sync::atomic::Ordering::SeqCst);
        eprintln!("\nstopping: finished samples are kept; continue with --resume");
        let _ = cancel_tx.send(true);
    });
    // Kept to tell a budget stop from a server that is gone once the run ends.
    let budget = spec.pipeline.client.budget().cloned();
    let task = tokio::spawn(execute(spec, tx, cancel_rx));
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{pos}/{len} [{bar:25}] {msg} · ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let (mut done, mut pass, mut tokens, mut cost, mut unpriced) =
        (0usize, 0usize, 0u64, 0.0f64, false);
    let mut counts: std::collections::BTreeMap<&'static str, usize> = Default::default();
    let started = Instant::now();
    while let Some(ev) = rx.recv().await {
        match ev {
            Event::Started { todo, done_before } => {
                bar.set_length(todo as u64);
                if done_before > 0 {
                    bar.suspend(|| eprintln!("resuming: {done_before} samples already finished"));
                }
            }
            Event::Sample(rec) => {
                done += 1;
                pass += usize::from(rec.verdict.is_equivalent());
                *counts.entry(rec.verdict.name()).or_default() += 1;
                tokens += rec.input_tokens + rec.output_tokens;
                match rec.cost_usd {
                    Some(c) => cost += c,
                    None => unpriced = true,
                }
                let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-3);
                bar.inc(1);
                bar.set_message(format!(
                    "pass {:.1}% · {} tok · ${cost:.4}{} · {rate:.1}/s",
                    100.0 * pass as f64 / done as f64,
                    tokens,
                    if unpriced { "+" } else { "" }
                ));
            }
            // Warnings quote datasets and server errors: never let them drive the terminal.
            Event::Warning(w) => {
                bar.suspend(|| eprintln!("warning: {}", crate::sanitize::for_terminal(&w)));
            }
        }
    }
    bar.finish_and_clear();
    let outcome = task.await.map_err(|e| anyhow!("run task failed: {e}"))??;
    // Index what was written (about a second per 100,000 samples), so the first
    // `report` or `view` afterwards reads compact rows instead of parsing the run.
    let indexing = Instant::now();
    crate::run::index::load_or_build(&out, false);
    let indexing = indexing.elapsed();
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    eprintln!(
        "{} {done} samples this time ({}) in {:.1?} → {}",
        if outcome == Outcome::Cancelled {
            "cancelled after"
        } else {
            "finished"
        },
        if summary.is_empty() {
            "none".into()
        } else {
            summary.join(", ")
        },
        started.elapsed().saturating_sub(indexing),
        out.display()
    );
    if let Some(c) = cache {
        eprintln!(
            "response cache: {} answers reused (no request, no cost), {} stored ({})",
            c.hits(),
            c.stores(),
            c.path().display()
        );
    }
    if unpriced {
        eprintln!(
            "note: the model is not in the price table; cost excludes it (use --prices FILE)"
        );
    }
    Ok(match outcome {
        Outcome::Finished => 0,
        // Without a signal, a CLI run is cancelled by the budget (130, as the README's
        // `--max-cost` says: stopped cleanly, resumable) or by the consecutive-failure stop.
        Outcome::Cancelled => match signal_code.load(std::sync::atomic::Ordering::SeqCst) {
            0 if budget.as_ref().is_some_and(|b| b.exhausted()) => 130,
            0 => EXIT_SERVER_GONE,
            c => c,
        },
    })
}
