//! `autoeval import`.

use crate::run::import::import_as;
use crate::syntax::Reading;
use crate::verify;
use anyhow::{Result, anyhow};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The original's file: dataset.json, `dataset_nlfs_<model>.json` or …_verified.json.
    pub file: PathBuf,
    /// Run directory to create.
    #[arg(long)]
    pub out: PathBuf,
    /// Re-check every pair with our verifiers and list disagreements with the stored verdicts.
    #[arg(long)]
    pub reverify: bool,
    /// Verifier timeout per pair, in ms.
    #[arg(long, default_value_t = 5000)]
    pub verify_timeout: u64,
    /// How replies without full parentheses are grouped: `standard` or `nltk` (the
    /// original's); recorded in run.json.
    #[arg(long, value_enum, default_value_t = Reading::Standard)]
    pub reading: Reading,
    /// No progress bar (it is drawn only when stderr is a terminal).
    #[arg(long)]
    pub quiet: bool,
    /// `--format json` (or `--json`): the summary as one JSON object on stdout (`file`,
    /// `out`, `samples`, `judged`, `skipped`; with --reverify `table` and `disagreements`).
    #[command(flatten)]
    pub output: super::output::FormatArg,
}

/// Runs `autoeval import`.
pub fn run(args: ImportArgs) -> Result<i32> {
    let opts = verify::Options {
        timeout: std::time::Duration::from_millis(args.verify_timeout.max(1)),
        ..verify::Options::default()
    };
    let bar = super::output::bar(0, "importing", args.quiet);
    let s = import_as(
        &args.file,
        &args.out,
        args.reverify,
        &opts,
        args.reading,
        &bar,
    );
    bar.finish_and_clear();
    let s = s.map_err(|e| anyhow!(e))?;
    for w in s.skipped.iter().take(10) {
        eprintln!("skipped: {w}");
    }
    if args.output.is_json() {
        let mut v = serde_json::json!({
            "file": args.file.display().to_string(),
            "out": args.out.display().to_string(),
            "samples": s.samples,
            "judged": s.judged,
            "skipped": s.skipped,
        });
        if args.reverify {
            v["table"] = s
                .table
                .iter()
                .map(|((stored, ours), n)| {
                    serde_json::json!({"stored": stored.name(), "ours": ours.name(), "samples": n})
                })
                .collect();
            v["disagreements"] = s
                .disagreements
                .iter()
                .map(|d| {
                    serde_json::json!({
                        "id": d.id,
                        "stored": d.stored,
                        "ours": d.ours,
                        "kind": d.kind,
                        "phi0": d.phi0,
                        "phi1": d.llm_fs.trim(),
                    })
                })
                .collect();
        }
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    eprintln!(
        "imported {} samples and {} judge answers into {}{}",
        s.samples,
        s.judged,
        args.out.display(),
        if s.skipped.is_empty() {
            String::new()
        } else {
            format!(" ({} skipped)", s.skipped.len())
        }
    );
    if args.reverify {
        let safe = crate::base::sanitize::one_line;
        outln!(
            "{} disagreement(s) between the stored verdicts and ours",
            s.disagreements.len()
        );
        outln!("{:<16} {:<16} {:>7}  ", "stored", "ours", "samples");
        for ((stored, ours), n) in &s.table {
            let mark = if stored == ours { "" } else { "  ← disagree" };
            outln!("{:<16} {:<16} {n:>7}{mark}", stored.name(), ours.name());
        }
        for d in &s.disagreements {
            outln!(
                "  sample {}: stored {}, ours {} — φ₀ = {}, φ₁ = {}",
                safe(&d.id),
                d.stored,
                d.ours,
                safe(&d.phi0),
                safe(d.llm_fs.trim())
            );
        }
    }
    Ok(0)
}
