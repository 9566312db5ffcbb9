//! `autoeval run`.

pub use crate::launch::args::RunArgs;
pub use crate::launch::model::MAX_CONCURRENCY;
pub use crate::launch::spec::{PauseSwitch, build_spec};
use crate::run::driver::{Event, Outcome, RunSpec, execute};
use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;

/// `autoeval run`: the run's arguments (shared with the viewer's form) and how the
/// summary is printed.
#[derive(clap::Args, Debug)]
pub struct RunCommand {
    /// The run.
    #[command(flatten)]
    pub args: RunArgs,
    /// `--format json` (or `--json`): the final summary as one JSON object on stdout
    /// (`out`, `status`, `samples`, `verdicts`, `equivalent`, `elapsed_s`, `tokens`,
    /// `calls`, `truncated`, `reasoning_tokens`, `cost_usd`, `unpriced`, `cache`);
    /// progress and warnings stay on stderr.
    #[command(flatten)]
    pub output: super::output::FormatArg,
}

/// The command line as the manifest records it: `autoeval …`, never the path the
/// binary was started from (a build machine's directories are no one else's business).
pub(crate) fn recorded_command(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = vec!["autoeval".to_string()];
    let mut extra_next = false;
    for a in args.skip(1) {
        let a = if extra_next {
            public_extra_body(&a)
        } else if let Some(v) = a.strip_prefix("--extra-body=") {
            format!("--extra-body={}", public_extra_body(v))
        } else {
            public_arg(a)
        };
        extra_next = a == "--extra-body";
        out.push(a);
    }
    out
}

/// An `--extra-body` value as recorded: credentials redacted (the run refuses a value
/// that is not a JSON object, so anything else is recorded as given).
fn public_extra_body(v: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(v) {
        Ok(serde_json::Value::Object(m)) => {
            serde_json::Value::Object(crate::llm::extra_body::redacted(&m)).to_string()
        }
        _ => v.to_string(),
    }
}

/// An argument as recorded: a URL (`--base-url`, alone or after `=`) loses its user
/// name, password and query, which can hold secrets.
fn public_arg(a: String) -> String {
    let (flag, value) = match a.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (Some(f), v),
        _ => (None, a.as_str()),
    };
    if !value.contains("://") {
        return a;
    }
    let clean = crate::llm::cache::public_base(value);
    match flag {
        Some(f) => format!("{f}={clean}"),
        None => clean,
    }
}

pub(crate) use crate::run::driver::EXIT_SERVER_GONE;

/// Runs `autoeval run`; exit 0 when finished, 130/143/129 when stopped by a signal,
/// `EXIT_SERVER_GONE` when the server could not be reached.
pub fn run(cmd: RunCommand) -> Result<i32> {
    let RunCommand { args, output } = cmd;
    let json = output.is_json();
    if args.scale.dry_run {
        if json {
            bail!("--format json prints a run's summary; --dry-run prints its estimate as text");
        }
        return super::run_scale::dry_run(&args);
    }
    if args.scale.batch() {
        return super::run_scale::run_batch(args, json);
    }
    let spec = build_spec(&args, recorded_command(std::env::args()), None)?;
    if let Some(note) = &spec.limit_note {
        eprintln!("{note}");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(drive(spec, args.quiet, json))
}

async fn drive(spec: RunSpec, quiet: bool, json: bool) -> Result<i32> {
    let out = spec.out.clone();
    let labels_task = spec
        .pipeline
        .task
        .as_ref()
        .is_some_and(|t| t.kind.labels().is_some());
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
    let (mut calls, mut truncated, mut reasoning) = (0usize, 0usize, 0u64);
    // Whether any call reported reasoning tokens: "0" only when a provider said so.
    let mut reasoning_reported = false;
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
                calls += rec.calls().count();
                truncated += rec.calls().filter(|c| c.truncated).count();
                reasoning += rec.reasoning_tokens();
                reasoning_reported |= rec.calls().any(|c| c.reasoning_tokens.is_some());
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
                bar.suspend(|| eprintln!("warning: {}", crate::base::sanitize::for_terminal(&w)));
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
    // A label task's verdicts say whether the answer was right, not whether formulas
    // are equivalent: name them so.
    let labels = labels_task;
    let status = match outcome {
        Outcome::Refused => "refused",
        Outcome::Cancelled => "cancelled",
        Outcome::Finished => "finished",
    };
    let elapsed = started.elapsed().saturating_sub(indexing);
    if json {
        let mut v = serde_json::json!({
            "out": out.display().to_string(),
            "status": status,
            "samples": done,
            "verdicts": counts,
            "equivalent": pass,
            "elapsed_s": elapsed.as_secs_f64(),
            "tokens": tokens,
            "calls": calls,
            "truncated": truncated,
            "reasoning_tokens": reasoning_reported.then_some(reasoning),
            "cost_usd": cost,
            "unpriced": unpriced,
            "cache": cache.as_ref().map(|c| serde_json::json!({
                "reused": c.hits(),
                "stored": c.stores(),
                "path": c.path().display().to_string(),
            })),
        });
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
    }
    let summary: Vec<String> = counts
        .iter()
        .map(|(k, v)| format!("{v} {}", if labels { answer_word(k) } else { k }))
        .collect();
    eprintln!(
        "{} {done} samples this time ({}) in {:.1?} → {}",
        if outcome == Outcome::Refused {
            "stopped (requests refused) after"
        } else if outcome == Outcome::Cancelled {
            "cancelled after"
        } else {
            "finished"
        },
        if summary.is_empty() {
            "none".into()
        } else {
            summary.join(", ")
        },
        elapsed,
        out.display()
    );
    if reasoning > 0 || truncated > 0 {
        let shown = if reasoning_reported {
            format!("{reasoning} tokens (part of the {tokens} tokens above)")
        } else {
            "tokens not reported by the provider".to_string()
        };
        eprintln!("reasoning: {shown}; truncated: {truncated} of {calls} calls");
    }
    if truncated * 20 > calls {
        eprintln!(
            "warning: {truncated} of {calls} calls ({:.0}%) stopped at --max-tokens while reasoning; their \
             samples are `unparseable` with no answer. Give a larger --max-tokens and continue with \
             --resume --retry-truncated",
            100.0 * truncated as f64 / calls.max(1) as f64
        );
    }
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
        // The server refused the requests: nothing will change by asking again.
        Outcome::Refused => EXIT_SERVER_GONE,
        // Without a signal, a CLI run is cancelled by the budget (130, as the README's
        // `--max-cost` says: stopped cleanly, resumable) or by the consecutive-failure stop.
        Outcome::Cancelled => match signal_code.load(std::sync::atomic::Ordering::SeqCst) {
            0 if budget.as_ref().is_some_and(|b| b.exhausted()) => 130,
            0 => EXIT_SERVER_GONE,
            c => c,
        },
    })
}

/// A verdict of a label task (FOLIO, Multi-LogiEval reasoning) as what it says of the answer.
fn answer_word(verdict: &str) -> &str {
    match verdict {
        "equivalent" => "right",
        "not-equivalent" => "wrong",
        "unknown" => "without an answer",
        other => other,
    }
}
