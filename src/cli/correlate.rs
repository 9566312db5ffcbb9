//! `autoeval correlate`: does a ∀uto∃∨∧L score predict other benchmarks (the paper's §A1)?

use crate::report::correlate::{self, Scores, Subset, parse_range};
use crate::report::correlate_render::{Format, render};
use crate::report::task_run::TextMetric;
use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// Most bootstrap resamples asked for.
const MAX_BOOTSTRAP: usize = 1_000_000;

/// Arguments of `autoeval correlate`.
#[derive(Args, Debug)]
pub struct CorrelateArgs {
    /// Run directories or folders of them: a ∀uto∃∨∧L run contributes `autoeval-<dataset>`
    /// (A3 on the subset below; runs of one model on one dataset are pooled), a task run
    /// (`run --task`) its task's accuracy (folio-i: the mean of --folio-i-metric).
    pub runs: Vec<PathBuf>,
    /// Score files with the header `model,benchmark,score` (more columns and `#` lines
    /// allowed); `builtin:paper-table6` is the paper's Table 6 (HumanEval, BBH). Repeatable.
    #[arg(long, value_name = "FILE.csv")]
    pub scores: Vec<PathBuf>,
    /// Predictor benchmark X (repeatable); default: every `autoeval-…` benchmark.
    #[arg(long = "x", value_name = "NAME")]
    pub x: Vec<String>,
    /// Draw Fig. 3 (scatter per pair, least-squares line, synthetic models as triangles) and
    /// Fig. 4 (predictive power) to FILE (.svg or .png); with several predictors, one
    /// figure each, FILE-PREDICTOR.svg.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Operator counts of logic runs that count, `LO-HI` or `all` (Appendix K.4: 0-6 for
    /// FOLIO; the paper used 0-30 for Multi-LogiEval).
    #[arg(long, default_value = "0-6", value_name = "LO-HI")]
    pub operators: String,
    /// Depths of regex runs that count, `LO-HI` or `all` (K.4: 0-7 for HumanEval).
    #[arg(long, default_value = "0-7", value_name = "LO-HI")]
    pub depth: String,
    /// Batches that count: `all` or a comma list such as `0,1,2`.
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub batches: String,
    /// One point per model and operator count (Fig. 17): ∀uto∃∨∧L logic runs' A3 per
    /// operator count against FOLIO task runs' accuracy (folio-i: --folio-i-metric) per operator
    /// count of the premise or conclusion.
    #[arg(long)]
    pub by_category: bool,
    /// The text score a folio-i run contributes (its mean over the run's samples):
    /// `bertscore-minilm` needs runs made with `--bertscore-model`; a run without it is
    /// left out with a warning.
    #[arg(long, value_enum, default_value_t = TextMetric::Meteor, value_name = "METRIC")]
    pub folio_i_metric: TextMetric,
    /// What a ∀uto∃∨∧L run contributes: `a3` on the --operators/--depth subset, or
    /// `breaking-point`, where a logistic fit of A3 over all its categories crosses 50 %
    /// (the subset does not apply; runs that do not break inside their data are left out).
    #[arg(long, value_enum, default_value_t = crate::report::correlate::XScore::A3, value_name = "SCORE")]
    pub x_score: crate::report::correlate::XScore,
    /// Bootstrap resamples of the models for the predictive power's interval.
    #[arg(long, default_value_t = 10_000)]
    pub bootstrap: usize,
}

fn parse_batches(s: &str) -> Result<Option<Vec<usize>>> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let mut v = Vec::new();
    for part in s.split(',') {
        match part.trim().parse::<usize>() {
            Ok(b) => v.push(b),
            Err(_) => bail!(
                "--batches {}: expected `all` or batch numbers separated by commas",
                crate::base::sanitize::one_line(s)
            ),
        }
    }
    Ok(Some(v))
}

/// Runs `autoeval correlate`.
pub fn run(args: CorrelateArgs) -> Result<i32> {
    if args.runs.is_empty() && args.scores.is_empty() {
        bail!("nothing to correlate: give run directories and/or --scores FILE.csv");
    }
    if args.bootstrap > MAX_BOOTSTRAP {
        bail!("--bootstrap {}: at most {MAX_BOOTSTRAP}", args.bootstrap);
    }
    let subset = Subset {
        operators: parse_range(&args.operators).map_err(|e| anyhow::anyhow!("--operators {e}"))?,
        depth: parse_range(&args.depth).map_err(|e| anyhow::anyhow!("--depth {e}"))?,
        batches: parse_batches(&args.batches)?,
        folio_i_metric: args.folio_i_metric,
        x_score: args.x_score,
    };
    let mut scores = Scores::default();
    if !args.runs.is_empty() {
        let dirs = super::report::expand_runs(&args.runs)?;
        scores.add_runs(&dirs, &subset, args.by_category)?;
    }
    for f in &args.scores {
        scores.add_file(f)?;
    }
    for w in &scores.warnings {
        eprintln!("warning: {}", crate::base::sanitize::one_line(w));
    }
    let xs = correlate::predictors(&scores, &args.x)?;
    correlate::check_limits(&scores, &xs)?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let pairs = correlate::correlate(&scores, &xs, args.bootstrap, threads);
    if let Some(path) = &args.plot {
        for f in crate::report::correlate_plot::plot(&pairs, &scores, path)? {
            eprintln!("wrote {}", f.display());
        }
    }
    let text = render(&pairs, &scores, args.format);
    // Names come from files: never let them drive the terminal.
    let machine = !matches!(args.format, Format::Text);
    if machine && !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out!("{text}");
    } else {
        out!("{}", crate::base::sanitize::for_terminal(&text));
    }
    Ok(0)
}
