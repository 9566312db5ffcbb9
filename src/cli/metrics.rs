//! `autoeval metrics`: the closeness metrics of the FOL-metrics paper (seed 004) and
//! autoeval's own, on pairs of formulas.

pub use super::metrics_input::PairSyntax;
use super::metrics_input::{MAX_LINE, read_pair};
use crate::analysis::pair_metrics::{PairMetrics, pair_metrics};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// Arguments of `autoeval metrics`.
#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// What to compute.
    #[command(subcommand)]
    pub command: MetricsCommand,
}

/// `metrics` subcommands.
#[derive(Subcommand, Debug)]
pub enum MetricsCommand {
    /// Score pairs: one JSON line per input line, in order, with every metric.
    Pairs(PairsArgs),
    /// The paper's sensitivity table: seven perturbations of FOLIO premises, mean score per metric.
    Perturb(PerturbArgs),
    /// How well each stored closeness metric predicts the verifier's verdict on runs.
    Align(super::metrics_align::AlignArgs),
}

pub use super::metrics_perturb::PerturbArgs;

/// Arguments of `autoeval metrics pairs`.
#[derive(Args, Debug)]
pub struct PairsArgs {
    /// Input: TSV lines `φ<TAB>φ′` or JSON lines `{"a": φ, "b": φ′, "syntax": "fol"}`
    /// (φ the reference, φ′ the candidate); `-` reads stdin. A blank or malformed line
    /// gets `{"line", "error"}` in its place.
    pub file: PathBuf,
    /// Syntax for TSV lines and JSON lines without `syntax`.
    #[arg(long, value_enum, default_value = "fol")]
    pub syntax: PairSyntax,
    /// Directory of the all-MiniLM-L6-v2 files (config.json, model.safetensors, vocab.txt
    /// or tokenizer.json): adds `bertscore_minilm` to every line. Needs `--features bertscore`.
    #[arg(long, value_name = "DIR", env = "AUTOEVAL_BERTSCORE_MODEL")]
    pub bertscore_model: Option<PathBuf>,
}

/// Lines scored per parallel batch (bounds memory on long inputs).
const BATCH: usize = 4096;

#[derive(serde::Serialize)]
struct Scored<'a> {
    line: usize,
    #[serde(flatten)]
    metrics: &'a PairMetrics,
    /// Only with `--bertscore-model` (feature `bertscore`).
    #[serde(skip_serializing_if = "Option::is_none")]
    bertscore_minilm: Option<f64>,
}

#[derive(serde::Serialize)]
struct Failed<'a> {
    line: usize,
    error: &'a str,
}

fn score_batch(
    batch: &[(usize, String)],
    default: PairSyntax,
) -> Vec<(usize, Result<PairMetrics, String>)> {
    let work = |chunk: &[(usize, String)]| -> Vec<(usize, Result<PairMetrics, String>)> {
        chunk
            .iter()
            .map(|(n, text)| {
                (
                    *n,
                    read_pair(text, default).map(|(a, b, k)| pair_metrics(&a, &b, k)),
                )
            })
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let size = batch.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = batch
            .chunks(size)
            .map(|c| s.spawn(move || work(c)))
            .collect();
        handles
            .into_iter()
            .zip(batch.chunks(size))
            .flat_map(|(h, c)| {
                h.join().unwrap_or_else(|_| {
                    c.iter()
                        .map(|(n, _)| (*n, Err("internal error while scoring".to_string())))
                        .collect()
                })
            })
            .collect()
    })
}

fn pairs(args: PairsArgs) -> Result<i32> {
    let input: Box<dyn Read> = if args.file.as_os_str() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            // Regular files only: a FIFO would block and a device never end.
            crate::base::fsread::open(&args.file, crate::base::fsread::STREAM)
                .with_context(|| format!("cannot open {}", args.file.display()))?,
        )
    };
    let name = if args.file.as_os_str() == "-" {
        "stdin".to_string()
    } else {
        args.file.display().to_string()
    };
    let bert = super::metrics_bertscore::BertColumn::load(args.bertscore_model.as_deref())?;
    let mut reader = BufReader::new(input);
    let (mut failed, mut n, mut batch) = (0usize, 0usize, Vec::new());
    let flush = |batch: &mut Vec<(usize, String)>, failed: &mut usize| -> Result<()> {
        let berts = bert.scores(batch, args.syntax)?;
        for ((line, r), bertscore_minilm) in score_batch(batch, args.syntax).into_iter().zip(berts)
        {
            match r {
                Ok(m) => outln!(
                    "{}",
                    serde_json::to_string(&Scored {
                        line,
                        metrics: &m,
                        bertscore_minilm
                    })?
                ),
                Err(e) => {
                    *failed += 1;
                    eprintln!("{name}:{line}: {}", crate::base::sanitize::one_line(&e));
                    let error = format!("line {line}: {e}");
                    outln!(
                        "{}",
                        serde_json::to_string(&Failed {
                            line,
                            error: &error
                        })?
                    );
                }
            }
        }
        batch.clear();
        Ok(())
    };
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Read at most one byte past the bound so a huge line cannot exhaust memory.
        let got = (&mut reader)
            .take((MAX_LINE + 2) as u64)
            .read_until(b'\n', &mut buf)?;
        if got == 0 {
            break;
        }
        n += 1;
        let too_long = !buf.ends_with(b"\n") && got > MAX_LINE;
        if too_long {
            // Skip the rest of this line, in bounded memory.
            crate::base::fsread::skip_line(&mut reader)?;
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end_matches(['\n', '\r']);
        let text = if too_long {
            "x".repeat(MAX_LINE + 1)
        } else {
            text.to_string()
        };
        batch.push((n, text));
        if batch.len() >= BATCH {
            flush(&mut batch, &mut failed)?;
        }
    }
    flush(&mut batch, &mut failed)?;
    if failed > 0 {
        eprintln!("{failed} line(s) of {name} could not be scored (error lines printed in place)");
        return Ok(1);
    }
    Ok(0)
}

/// Runs `autoeval metrics`.
pub fn run(args: MetricsArgs) -> Result<i32> {
    match args.command {
        MetricsCommand::Pairs(a) => pairs(a),
        MetricsCommand::Perturb(a) => super::metrics_perturb::run(a),
        MetricsCommand::Align(a) => super::metrics_align::run(a),
    }
}
