//! `autoeval judge`.

use crate::launch::model::ModelArgs;
use crate::prompt::PromptSet;
use crate::run::judge::judge_run;
use anyhow::{Result, anyhow};
use clap::Args;
use indicatif::ProgressBar;
use std::path::PathBuf;
use std::sync::Arc;

/// Arguments of `autoeval judge`.
#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// The run directory to judge.
    pub run: PathBuf,
    /// Model options (the judge).
    #[command(flatten)]
    pub model: ModelArgs,
    /// Prompt-set directory (its judge.txt).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Only the first N samples that have a parsed φ₁.
    #[arg(long)]
    pub limit: Option<usize>,
    /// `--format json` (or `--json`): the summary as one JSON object on stdout (`run`,
    /// `judge`, `judged`, `yes`, `no`, `unparseable`, `already_judged`, `file`).
    #[command(flatten)]
    pub output: super::output::FormatArg,
}

/// Runs `autoeval judge`.
pub fn run(args: JudgeArgs) -> Result<i32> {
    crate::run::store::read_manifest(&args.run).map_err(|e| anyhow!("{e}"))?;
    let prompts = match &args.prompts {
        Some(d) => PromptSet::load(d, 0)?,
        None => PromptSet::builtin(0)?,
    };
    let client = Arc::new(args.model.client()?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let bar = ProgressBar::new_spinner();
    let (mut yes, mut no, mut bad) = (0, 0, 0);
    let (done, skipped) = rt.block_on(judge_run(
        &args.run,
        client,
        Arc::new(prompts),
        args.model.concurrency,
        args.limit,
        |r| {
            match r.answer {
                crate::llm::judge::JudgeAnswer::Yes => yes += 1,
                crate::llm::judge::JudgeAnswer::No => no += 1,
                crate::llm::judge::JudgeAnswer::Unparseable => bad += 1,
            }
            bar.set_message(format!(
                "{} judged: {yes} yes, {no} no, {bad} unparseable",
                yes + no + bad
            ));
            bar.tick();
        },
    ))?;
    bar.finish_and_clear();
    let file = args.run.join("judge.jsonl");
    if args.output.is_json() {
        let mut v = serde_json::json!({
            "run": args.run.display().to_string(),
            "judge": args.model.model,
            "judged": done,
            "yes": yes,
            "no": no,
            "unparseable": bad,
            "already_judged": skipped,
            "file": file.display().to_string(),
        });
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    eprintln!(
        "judged {done} samples ({yes} yes, {no} no, {bad} unparseable); {skipped} already judged by this model → {}",
        file.display()
    );
    Ok(0)
}
