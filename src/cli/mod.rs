//! Command-line interface: argument types and subcommand entry points.

/// `println!` to stdout that returns an error instead of panicking when the reader has
/// gone (`autoeval report … | head`); `main` turns that error into a quiet exit.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($t)*)?
    }};
}

/// `print!` counterpart of [`outln!`].
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($t)*)?
    }};
}

pub mod cache;
pub mod compare;
mod compare_delta;
pub mod correlate;
pub mod export;
pub mod generate;
pub mod import;
pub mod judge;
pub mod labels;
mod labels_edit;
pub mod labels_export;
pub mod labels_ranks;
mod labels_stats;
pub mod leaderboard;
pub mod metrics;
pub mod metrics_align;
mod metrics_bertscore;
mod metrics_input;
pub mod metrics_perturb;
pub(crate) mod metrics_plot;
pub mod output;
pub mod prompts;
pub mod reference;
pub mod report;
pub mod rescore;
pub mod run;
pub mod run_scale;
pub mod score;
pub mod shell;
mod signals;
pub mod verify;
pub mod view;

use clap::{Parser, Subcommand};

/// autoeval: does a language model keep the truth from formula to English and back?
#[derive(Parser, Debug)]
#[command(
    name = "autoeval",
    version,
    about,
    long_about = None,
    // `autoeval DIR` and `autoeval --theme light` are `autoeval view …`.
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    /// Subcommand; none opens the viewer (on the paths given, else ./sample-runs).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Without a subcommand: the viewer's arguments.
    #[command(flatten)]
    pub view: view::ViewArgs,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Browse runs in the terminal viewer (the default without a subcommand).
    View(view::ViewArgs),
    /// Generate a dataset from a built-in or user grammar (Algorithm 1).
    Generate(generate::GenerateArgs),
    /// Run the informalize → autoformalize → verify loop over a dataset.
    Run(Box<run::RunCommand>),
    /// Ask a model to judge φ₀ ≡ φ₁ for every sample of a run (A4).
    Judge(judge::JudgeArgs),
    /// Tables of compliance, accuracy and judge agreement for runs.
    Report(report::ReportArgs),
    /// One table of many runs: a row per model, a column group per dataset (A2, A3, copy, judge F1).
    Leaderboard(leaderboard::LeaderboardArgs),
    /// Pass/fail matrix of runs that answered the same φ₀, with McNemar's test per pair.
    Compare(compare::CompareArgs),
    /// Does a ∀uto∃∨∧L score predict other benchmarks? Pearson, Spearman, Kendall and predictive power across models.
    Correlate(correlate::CorrelateArgs),
    /// Re-apply extraction, the copy check and verification to a run's stored replies.
    Rescore(rescore::RescoreArgs),
    /// Convert the original AutoEval's files into a run directory.
    Import(import::ImportArgs),
    /// Write runs as Inspect eval logs or flat JSONL for other tools.
    Export(export::ExportArgs),
    /// Export hand labels or summarise them (κ, lucky passes, metric alignment).
    Labels(labels::LabelsArgs),
    /// Export the built-in prompt templates for editing.
    Prompts(prompts::PromptsArgs),
    /// Score one sample (φ₀, ψ, reply) or JSON lines of samples, as `run` scores replies.
    Score(score::ScoreArgs),
    /// Closeness metrics of the FOL-metrics paper and autoeval's own, on pairs of formulas.
    Metrics(metrics::MetricsArgs),
    /// Check whether two formulas (or regexes) are equivalent; exit 0 yes, 1 no, 2 unknown/unparseable.
    Verify(verify::VerifyArgs),
    /// Inspect or prune the response cache shared by runs.
    Cache(cache::CacheArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(shell::CompletionsArgs),
    /// Print the manual page autoeval(1) as roff, or write one page per command with --out.
    Man(shell::ManArgs),
    /// Print the CLI reference (docs/src/reference/cli.md) as Markdown, generated from this command tree.
    #[command(hide = true)]
    CliReference(reference::CliReferenceArgs),
}

/// Runs the CLI and returns the process exit code.
pub fn main() -> i32 {
    // Only a speed-up: a refused setting changes nothing else.
    let _ = crate::base::heap::keep_c_heap();
    let cli = Cli::parse();
    // `run` stops on signals itself (finished samples kept) and the viewer owns the
    // terminal; every other command leaves no scratch file when interrupted.
    if !matches!(cli.command, None | Some(Command::View(_) | Command::Run(_))) {
        crate::base::fswrite::scratch::remove_on_signals();
    }
    let result = match cli.command {
        None => view::run_bare(cli.view),
        Some(Command::View(args)) => view::run(args),
        Some(Command::Generate(args)) => generate::run(args),
        Some(Command::Verify(args)) => verify::run(args),
        Some(Command::Run(args)) => run::run(*args),
        Some(Command::Judge(args)) => judge::run(args),
        Some(Command::Report(args)) => report::run(args),
        Some(Command::Compare(args)) => compare::run(args),
        Some(Command::Leaderboard(args)) => leaderboard::run(args),
        Some(Command::Correlate(args)) => correlate::run(args),
        Some(Command::Prompts(args)) => prompts::run(args),
        Some(Command::Import(args)) => import::run(args),
        Some(Command::Rescore(args)) => rescore::run(args),
        Some(Command::Labels(args)) => labels::run(args),
        Some(Command::Export(args)) => export::run(args),
        Some(Command::Score(args)) => score::run(args),
        Some(Command::Cache(args)) => cache::run(args),
        Some(Command::Completions(args)) => shell::completions(args),
        Some(Command::Man(args)) => shell::man(args),
        Some(Command::Metrics(args)) => metrics::run(args),
        Some(Command::CliReference(args)) => reference::run(&args),
    };
    // Threads still building a row index (a viewer quit while loading) leave no files.
    crate::run::scratch::remove_all();
    match result {
        Ok(code) => code,
        // The reader of our output went away (`| head`): stop quietly, as Unix tools do.
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            // Errors quote files (grammars, templates, run files): every one is made
            // safe for the terminal here, whatever path it came by.
            eprintln!(
                "error: {}",
                crate::base::sanitize::for_terminal(&format!("{e:#}"))
            );
            2
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let pipe = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(pipe)
            // A plot's write error is transparent: its io error is not in the chain.
            || matches!(
                c.downcast_ref::<crate::report::plot::PlotError>(),
                Some(crate::report::plot::PlotError::Io(io)) if pipe(io)
            )
    })
}
