//! The arguments of a run, as `autoeval run` takes them and the viewer's form fills
//! them in: one clap definition for both.

use crate::grammar::DatasetKind;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Dataset file (ours or the original's).
    #[arg(long, conflicts_with_all = ["kind", "task"], required_unless_present_any = ["kind", "task"])]
    pub dataset: Option<PathBuf>,
    /// Generate a dataset of this kind first (saved as dataset.json in the run).
    #[arg(long, value_enum, conflicts_with = "task")]
    pub kind: Option<DatasetKind>,
    /// Run a reference task instead of a dataset (the paper's §A1): FOLIO reasoning on
    /// English or FOL premises, FOLIO premise autoformalization or informalization, or
    /// Multi-LogiEval yes/no questions (depths 1–5).
    #[arg(long, value_enum)]
    pub task: Option<crate::dataset::task_kind::TaskKind>,
    /// The task's data: a FOLIO JSON-lines file, or Multi-LogiEval's folder with
    /// d1_Data … d5_Data [default: the shipped copy, FOLIO validation].
    #[arg(long, value_name = "PATH", requires = "task")]
    pub task_data: Option<PathBuf>,
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
    pub model: super::model::ModelArgs,
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
    /// Directory of the all-MiniLM-L6-v2 files (as for `metrics pairs`): stores
    /// `bertscore_minilm` in every closeness record, and in folio-i's text scores (F1).
    /// Needs `--features bertscore`.
    #[arg(long, value_name = "DIR")]
    pub bertscore_model: Option<PathBuf>,
    /// Only the first N samples.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Adaptive run: a coarse spread over every category, then rounds placed where they
    /// most narrow the breaking point's interval (c-optimal design), until --budget samples
    /// or --target-width; each round's choice goes to design.jsonl. With --batch-api,
    /// each round's calls go out as batches of their own.
    #[arg(long, requires = "budget", conflicts_with_all = ["task", "limit", "batch_file_out", "batch_file_in", "dry_run"])]
    pub adaptive: bool,
    /// With --adaptive: samples at most, over every round.
    #[arg(long, value_name = "N", requires = "adaptive")]
    pub budget: Option<usize>,
    /// With --adaptive: the A3 level whose crossing is sought [default: 0.5].
    #[arg(long, value_name = "L", requires = "adaptive")]
    pub level: Option<f64>,
    /// With --adaptive: stop once the breaking point's 95% interval is narrower than W.
    #[arg(long, value_name = "W", requires = "adaptive")]
    pub target_width: Option<f64>,
    /// Output run directory (not needed with --dry-run, which writes nothing).
    #[arg(
        long,
        required_unless_present = "dry_run",
        default_value = "-",
        hide_default_value = true
    )]
    pub out: PathBuf,
    /// Continue a run directory, skipping finished samples.
    #[arg(long)]
    pub resume: bool,
    /// With --resume: accept other request settings (temperature, --max-tokens,
    /// reasoning effort, thinking, extra body) after samples finished under the old
    /// ones (before any finished, corrected settings need no flag). It never skips the
    /// dataset, rounds, shots, prompt set or syntax checks.
    #[arg(long, requires = "resume")]
    pub force: bool,
    /// With --resume: accept another dataset, rounds, shots, prompt set, syntax or
    /// reading too (one run then holds two experiments).
    #[arg(long, requires = "resume")]
    pub force_experiment: bool,
    /// With --resume: run again the samples whose latest record is a model error
    /// (the new line supersedes the old one for every reader).
    #[arg(long, requires = "resume")]
    pub retry_errors: bool,
    /// With --resume: run again the samples that stopped at the token limit before
    /// answering (`truncated`); give a larger --max-tokens with it.
    #[arg(long, requires = "resume")]
    pub retry_truncated: bool,
    /// Stop (cancelled, resumable) after N samples in a row could not reach the server; 0 never stops.
    #[arg(long, default_value_t = 5)]
    pub max_consecutive_failures: usize,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Response cache, budget and dry run.
    #[command(flatten)]
    pub scale: ScaleArgs,
}

/// Cache, budget and dry-run flags of `autoeval run`.
#[derive(Args, Debug, Clone, Default)]
pub struct ScaleArgs {
    /// Answer repeated requests from the response cache (default: on at --temperature 0).
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: bool,
    /// Never use the response cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Stop (cancelled, resumable) before the run's spend would pass this many USD.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Print the calls, estimated tokens and cost (and the worst case), then exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Send the calls through the provider's batch API (about half price), stage by stage.
    #[arg(long, conflicts_with_all = ["batch_file_out", "batch_file_in"])]
    pub batch_api: bool,
    /// Write the next stage's requests as OpenAI batch JSONL (for `vllm run-batch`) into DIR and stop.
    #[arg(long, value_name = "DIR")]
    pub batch_file_out: Option<std::path::PathBuf>,
    /// Read a batch output file (`vllm run-batch` or OpenAI format) and continue the run.
    #[arg(long, value_name = "FILE", requires = "resume")]
    pub batch_file_in: Option<std::path::PathBuf>,
    /// Most requests per batch or request file (default: the provider's limit).
    #[arg(long, value_name = "N")]
    pub batch_max_requests: Option<usize>,
    /// Most bytes per batch or request file (default: the provider's limit).
    #[arg(long, value_name = "BYTES")]
    pub batch_max_bytes: Option<usize>,
    /// Seconds between batch status checks.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub batch_poll: f64,
}

impl ScaleArgs {
    /// Whether the run goes through batches or batch files.
    pub fn batch(&self) -> bool {
        self.batch_api || self.batch_file_out.is_some() || self.batch_file_in.is_some()
    }

    /// Whether the cache is on: asked for, or by default when sampling is deterministic.
    pub(crate) fn cache_on(&self, deterministic: bool) -> bool {
        self.cache || (!self.no_cache && deterministic)
    }
}

/// The form's own parser: the arguments of `autoeval run`, and nothing else of the CLI.
#[derive(clap::Parser, Debug)]
#[command(name = "autoeval")]
struct FormCommand {
    #[command(subcommand)]
    command: FormRun,
}

/// The one subcommand the form can make.
#[derive(clap::Subcommand, Debug)]
enum FormRun {
    /// `autoeval run`.
    Run(RunArgs),
}

/// Parses the command line a form makes (`autoeval run …`) as `autoeval run` would;
/// an error is clap's message up to its usage, on one line (so a missing flag is named).
pub(crate) fn parse_form(argv: &[String]) -> Result<RunArgs, String> {
    match <FormCommand as clap::Parser>::try_parse_from(argv) {
        Ok(FormCommand {
            command: FormRun::Run(args),
        }) => Ok(args),
        Err(e) => {
            let text = e.render().to_string();
            let words: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                .map(str::trim)
                .collect();
            Err(if words.is_empty() {
                "invalid settings".to_string()
            } else {
                words.join(" ")
            })
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn argv(words: &str) -> Vec<String> {
        words.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_form_parses_a_run_exactly_as_the_cli_does() {
        let line = argv(
            "autoeval run --kind pl --seed 3 --model perturb --rounds 2 --concurrency 4 \
             --out runs/x --resume --retry-errors",
        );
        let form = parse_form(&line).unwrap();
        let Ok(crate::cli::Cli {
            command: Some(crate::cli::Command::Run(run)),
            ..
        }) = <crate::cli::Cli as clap::Parser>::try_parse_from(&line)
        else {
            panic!("the CLI did not parse a run");
        };
        let cli = &run.args;
        assert_eq!(format!("{form:?}"), format!("{cli:?}"));
        assert_eq!((form.seed, form.rounds, form.model.concurrency), (3, 2, 4));
        assert!(form.resume && form.retry_errors && form.kind.is_some());
    }

    #[test]
    fn the_form_reports_a_bad_setting_in_one_line() {
        let e = parse_form(&argv(
            "autoeval run --kind pl --model perturb --out x --rounds two",
        ))
        .unwrap_err();
        assert!(e.contains("--rounds") && !e.contains('\n'), "{e}");
        let e = parse_form(&argv(
            "autoeval run --kind pl --model perturb --out x --retry-errors",
        ))
        .unwrap_err();
        assert!(e.contains("--resume") && !e.contains('\n'), "{e:?}");
        assert!(parse_form(&argv("autoeval report x")).is_err());
    }
}
