//! `autoeval rescore`: re-apply extraction, the copy check and verification to a run.

use crate::report::Counts;
use crate::run::rescore::{RescoreOptions, RescoreSummary, rescore};
use crate::run::store;
use crate::verify;
use anyhow::{Result, anyhow, bail};
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `autoeval rescore`.
#[derive(Args, Debug)]
pub struct RescoreArgs {
    /// The run directory to rescore.
    pub run: PathBuf,
    /// New run directory (default: RUN-rescored).
    #[arg(long, conflicts_with = "in_place")]
    pub out: Option<PathBuf>,
    /// Rewrite RUN's samples.jsonl, keeping the old one as samples.jsonl.bak-TIME.
    #[arg(long)]
    pub in_place: bool,
    /// Verifier timeout per pair, in ms (default: the run's own).
    #[arg(long)]
    pub verify_timeout: Option<u64>,
    /// How replies without full parentheses are grouped: `standard` or `nltk` (the
    /// original's). Default: the reading the run recorded; the new run.json records it.
    #[arg(long, value_enum)]
    pub reading: Option<crate::syntax::Reading>,
    /// Directory of the all-MiniLM-L6-v2 files (as for `metrics pairs`): stores
    /// `bertscore_minilm` in every closeness record. Needs `--features bertscore`.
    #[arg(long, value_name = "DIR")]
    pub bertscore_model: Option<PathBuf>,
    /// No progress bar (it is drawn only when stderr is a terminal).
    #[arg(long)]
    pub quiet: bool,
    /// `--format json` (or `--json`): the summary as one JSON object (`run`, `out`,
    /// `samples`, `changed`, `changes`, `before`, `after`, `backup`, `needs_calls`).
    #[command(flatten)]
    pub output: super::output::FormatArg,
}

/// The bertscore-minilm scorer in `dir`, if given; refused in builds without the feature.
fn bertscore(dir: Option<&std::path::Path>) -> Result<Option<crate::run::bertscore::Bertscore>> {
    Ok(dir
        .map(crate::run::bertscore::Bertscore::load)
        .transpose()?)
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))
}

fn line(label: &str, c: &Counts) -> String {
    format!(
        "{label:<7} n={:<7} A2 compliance {:>6}   A3 accuracy {:>6}",
        c.n,
        pct(c.compliance()),
        pct(c.accuracy())
    )
}

/// Runs `autoeval rescore`; exit 0 when done.
pub fn run(args: RescoreArgs) -> Result<i32> {
    let manifest = store::read_manifest(&args.run)?;
    if let Some(task) = manifest.task() {
        anyhow::bail!(
            "{}: a reference-task run ({}) has no formulas to rescore: its answers are read \
             when it runs, and `report` reads them from the samples",
            args.run.display(),
            task.name()
        );
    }
    // A bad model directory is refused before anything is written.
    let bertscore = bertscore(args.bertscore_model.as_deref())?;
    let out = out_dir(&args)?;
    if !args.in_place && out == args.run {
        bail!("--out is the run itself: use --in-place to rewrite it");
    }
    let timeout = args.verify_timeout.unwrap_or(manifest.verifier_timeout_ms);
    let opts = RescoreOptions {
        run: args.run.clone(),
        out: out.clone(),
        in_place: args.in_place,
        verify: verify::Options {
            timeout: std::time::Duration::from_millis(timeout.max(1)),
            ..verify::Options::default()
        },
        reading: args.reading,
        bertscore,
        progress: super::output::bar(0, "rescoring", args.quiet),
    };
    let s = rescore(&opts).map_err(|e| anyhow!(e));
    opts.progress.finish_and_clear();
    let s = s?;
    // Index the new samples now, so the next `view` or `report` reads rather than parses.
    crate::run::index::load_or_build(&out, false);
    for w in s.warnings.iter().take(10) {
        eprintln!("warning: {}", crate::base::sanitize::one_line(w));
    }
    if args.output.is_json() {
        print_json(&args, &out, &s)?;
        return Ok(0);
    }
    print_text(&args, &out, &s)?;
    Ok(0)
}

/// Where the rescored run goes: the run itself (`--in-place`), `--out`, else
/// RUN-rescored beside it.
fn out_dir(args: &RescoreArgs) -> Result<PathBuf> {
    Ok(match (&args.out, args.in_place) {
        (_, true) => args.run.clone(),
        (Some(o), false) => o.clone(),
        (None, false) => {
            let name = args
                .run
                .file_name()
                .ok_or_else(|| anyhow!("{} has no directory name", args.run.display()))?;
            args.run
                .with_file_name(format!("{}-rescored", name.to_string_lossy()))
        }
    })
}

/// The `--format json` summary.
fn print_json(args: &RescoreArgs, out: &Path, s: &RescoreSummary) -> Result<()> {
    let mut v = serde_json::json!({
        "run": args.run.display().to_string(),
        "out": out.display().to_string(),
        "samples": s.samples,
        "changed": s.changed(),
        "changes": s.changes.iter().map(|((a, b), n)| serde_json::json!({
            "old": a.name(),
            "new": b.name(),
            "samples": n,
        })).collect::<Vec<_>>(),
        "before": s.before,
        "after": s.after,
        "backup": s.backup.as_ref().map(|b| b.display().to_string()),
        "needs_calls": s.needs_calls.iter().map(|(id, why)| serde_json::json!({
            "id": id,
            "why": why,
        })).collect::<Vec<_>>(),
        "warnings": s.warnings.len(),
    });
    crate::base::sanitize::json_for_terminal(&mut v);
    outln!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

/// The text summary: the verdict changes, the metrics before and after, what needs calls.
fn print_text(args: &RescoreArgs, out: &Path, s: &RescoreSummary) -> Result<()> {
    outln!(
        "rescored {} samples of {} into {}: {} changed",
        s.samples,
        args.run.display(),
        out.display(),
        s.changed()
    );
    outln!("{:<16} {:<16} {:>8}", "old", "new", "samples");
    for ((a, b), n) in &s.changes {
        let mark = if a == b { "" } else { "  ← changed" };
        outln!("{:<16} {:<16} {n:>8}{mark}", a.name(), b.name());
    }
    outln!("{}", line("before", &s.before));
    outln!("{}", line("after", &s.after));
    if let Some(b) = &s.backup {
        outln!("the old samples are in {}", b.display());
    }
    if !s.needs_calls.is_empty() {
        outln!(
            "{} sample(s) need model replies that were never asked for and were left out; \
             `autoeval run --resume --out {}` (with the run's dataset and model) asks for them:",
            s.needs_calls.len(),
            out.display()
        );
        for (id, why) in s.needs_calls.iter().take(10) {
            outln!(
                "  {}: {}",
                crate::base::sanitize::one_line(id),
                crate::base::sanitize::one_line(why)
            );
        }
    }
    Ok(())
}
