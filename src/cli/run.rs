//! `autoeval run`.

pub use crate::launch::args::RunArgs;
pub use crate::launch::model::MAX_CONCURRENCY;
pub use crate::launch::spec::{PauseSwitch, build_spec};
use crate::llm::cache::ResponseCache;
use crate::record::SampleRecord;
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

/// Runs the spec on this runtime with a progress bar, prints the summary and returns
/// the exit code.
async fn drive(spec: RunSpec, quiet: bool, json: bool) -> Result<i32> {
    let out = spec.out.clone();
    let labels_task = spec
        .pipeline
        .task
        .as_ref()
        .is_some_and(|t| t.kind.labels().is_some());
    let cache = spec.pipeline.client.cache().cloned();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (cancel_rx, signal_code) = super::signals::stop_on_signal(
        "stopping: finished samples are kept; continue with --resume",
    );
    // Kept to tell a budget stop from a server that is gone once the run ends.
    let budget = spec.pipeline.client.budget().cloned();
    let task = tokio::spawn(execute(spec, tx, cancel_rx));
    let bar = progress_bar(quiet);
    let mut tally = Tally::default();
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
                tally.add(&rec);
                let rate = tally.done as f64 / started.elapsed().as_secs_f64().max(1e-3);
                bar.inc(1);
                bar.set_message(tally.progress(rate));
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
    let elapsed = started.elapsed().saturating_sub(indexing);
    if json {
        let mut v = tally.json(&out, outcome, elapsed, cache.as_deref());
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
    }
    // A label task's verdicts say whether the answer was right, not whether formulas
    // are equivalent: name them so.
    tally.print(&out, outcome, elapsed, labels_task);
    print_notes(&tally, cache.as_deref());
    Ok(match outcome {
        Outcome::Finished => 0,
        // The server refused the requests: nothing will change by asking again.
        Outcome::Refused => EXIT_SERVER_GONE,
        // Without a signal, a CLI run is cancelled by the budget (130, as the README's
        // `--max-cost` says: stopped cleanly, resumable) or by the consecutive-failure stop.
        Outcome::Cancelled => match signal_code.get() {
            0 if budget.as_ref().is_some_and(|b| b.exhausted()) => 130,
            0 => EXIT_SERVER_GONE,
            c => c,
        },
    })
}

/// The progress bar on stderr (hidden with `--quiet`).
fn progress_bar(quiet: bool) -> ProgressBar {
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
    bar
}

/// What the samples written this time add up to.
#[derive(Default)]
struct Tally {
    /// Samples written.
    done: usize,
    /// Of them, equivalent.
    pass: usize,
    /// Input plus output tokens.
    tokens: u64,
    /// Cost of the priced calls.
    cost: f64,
    /// Whether any sample was unpriced.
    unpriced: bool,
    /// Model calls.
    calls: usize,
    /// Calls stopped at `--max-tokens`.
    truncated: usize,
    /// Reasoning tokens reported.
    reasoning: u64,
    /// Whether any call reported reasoning tokens: "0" only when a provider said so.
    reasoning_reported: bool,
    /// Samples per verdict name.
    counts: std::collections::BTreeMap<&'static str, usize>,
}

impl Tally {
    /// Counts one finished sample.
    fn add(&mut self, rec: &SampleRecord) {
        self.done += 1;
        self.pass += usize::from(rec.verdict.is_equivalent());
        *self.counts.entry(rec.verdict.name()).or_default() += 1;
        self.tokens += rec.input_tokens + rec.output_tokens;
        self.calls += rec.calls().count();
        self.truncated += rec.calls().filter(|c| c.truncated).count();
        self.reasoning += rec.reasoning_tokens();
        self.reasoning_reported |= rec.calls().any(|c| c.reasoning_tokens.is_some());
        match rec.cost_usd {
            Some(c) => self.cost += c,
            None => self.unpriced = true,
        }
    }

    /// The progress bar's message at `rate` samples a second.
    fn progress(&self, rate: f64) -> String {
        format!(
            "pass {:.1}% · {} tok · ${:.4}{} · {rate:.1}/s",
            100.0 * self.pass as f64 / self.done as f64,
            self.tokens,
            self.cost,
            if self.unpriced { "+" } else { "" }
        )
    }

    /// The `--format json` summary.
    fn json(
        &self,
        out: &std::path::Path,
        outcome: Outcome,
        elapsed: std::time::Duration,
        cache: Option<&ResponseCache>,
    ) -> serde_json::Value {
        serde_json::json!({
            "out": out.display().to_string(),
            "status": status_name(outcome),
            "samples": self.done,
            "verdicts": self.counts,
            "equivalent": self.pass,
            "elapsed_s": elapsed.as_secs_f64(),
            "tokens": self.tokens,
            "calls": self.calls,
            "truncated": self.truncated,
            "reasoning_tokens": self.reasoning_reported.then_some(self.reasoning),
            "cost_usd": self.cost,
            "unpriced": self.unpriced,
            "cache": cache.map(|c| serde_json::json!({
                "reused": c.hits(),
                "stored": c.stores(),
                "path": c.path().display().to_string(),
            })),
        })
    }

    /// The one-line summary on stderr; `labels` names verdicts as right/wrong answers.
    fn print(
        &self,
        out: &std::path::Path,
        outcome: Outcome,
        elapsed: std::time::Duration,
        labels: bool,
    ) {
        let summary: Vec<String> = self
            .counts
            .iter()
            .map(|(k, v)| format!("{v} {}", if labels { answer_word(k) } else { k }))
            .collect();
        eprintln!(
            "{} {} samples this time ({}) in {:.1?} → {}",
            if outcome == Outcome::Refused {
                "stopped (requests refused) after"
            } else if outcome == Outcome::Cancelled {
                "cancelled after"
            } else {
                "finished"
            },
            self.done,
            if summary.is_empty() {
                "none".into()
            } else {
                summary.join(", ")
            },
            elapsed,
            out.display()
        );
    }
}

/// The run's status as the JSON summary names it.
fn status_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Refused => "refused",
        Outcome::Cancelled => "cancelled",
        Outcome::Finished => "finished",
    }
}

/// The lines after the summary: reasoning and truncation, the response cache, unpriced calls.
fn print_notes(t: &Tally, cache: Option<&ResponseCache>) {
    let (reasoning, truncated, calls) = (t.reasoning, t.truncated, t.calls);
    if reasoning > 0 || truncated > 0 {
        let shown = if t.reasoning_reported {
            format!("{reasoning} tokens (part of the {} tokens above)", t.tokens)
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
    if t.unpriced {
        eprintln!(
            "note: the model is not in the price table; cost excludes it (use --prices FILE)"
        );
    }
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
