//! `autoeval generate`.

use crate::grammar::generator::GenParams;
use crate::grammar::{Cfg, DatasetKind, Metric, VocabParams};
pub use crate::launch::generate::{Generated, generate_to_file};
use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `autoeval generate` (defaults: the paper's Table 1).
#[derive(Args, Debug, Clone)]
pub struct GenerateArgs {
    /// Built-in dataset kind.
    #[arg(
        long,
        value_enum,
        conflicts_with_all = ["grammar", "from_folio"],
        required_unless_present_any = ["grammar", "from_folio"]
    )]
    pub kind: Option<DatasetKind>,
    /// Read φ₀s from a FOLIO JSON-lines file (`premises-FOL`, `conclusion-FOL`) instead
    /// of generating them; generator flags do not apply.
    #[arg(long, value_name = "FILE", conflicts_with = "grammar")]
    pub from_folio: Option<PathBuf>,
    /// A user grammar file (see docs/src/guide/generating.md, "Grammar files").
    #[arg(long, value_name = "FILE")]
    pub grammar: Option<PathBuf>,
    /// Random seed; the same seed and parameters give byte-identical output.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Levels of the derivation tree.
    #[arg(long, default_value_t = 40)]
    pub depth: usize,
    /// Branching factor n: nodes expanded per level and children kept per node.
    #[arg(long, default_value_t = 200)]
    pub branching: usize,
    /// Samples per bucket (category).
    #[arg(long, default_value_t = 50)]
    pub per_category: usize,
    /// Number of batches (each with its own vocabulary and random stream).
    #[arg(long, default_value_t = 1)]
    pub batches: usize,
    /// Output file (JSON).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Bucketing metric (default: operators for logic, depth for regex).
    #[arg(long, value_enum)]
    pub metric: Option<Metric>,
    /// Number of propositions (PL, k-SAT).
    #[arg(long, default_value_t = 12)]
    pub num_propositions: usize,
    /// Number of objects (FOL).
    #[arg(long, default_value_t = 12)]
    pub num_objects: usize,
    /// Number of predicates (FOL).
    #[arg(long, default_value_t = 8)]
    pub num_predicates: usize,
    /// Smallest predicate arity.
    #[arg(long, default_value_t = 1)]
    pub min_arity: usize,
    /// Largest predicate arity.
    #[arg(long, default_value_t = 2)]
    pub max_arity: usize,
    /// Probability that an object argument becomes an in-scope variable.
    #[arg(long, default_value_t = 0.25)]
    pub free_variable_prob: f64,
    /// Regex alphabet size.
    #[arg(long, default_value_t = 2)]
    pub alphabet_size: usize,
    /// Use English verbs and names (implied by --kind fol-english).
    #[arg(long)]
    pub english: bool,
    /// Redraws per sample to avoid duplicates.
    #[arg(long, default_value_t = 100)]
    pub max_tries: usize,
    /// Suppress the summary and progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// `--format json` (or `--json`): the summary as one JSON object on stdout (`out`,
    /// `name`, `samples`, `batches`, `buckets`, `leaves`, `oversized`, `unfilled`; from
    /// FOLIO: `out`, `name`, `samples`, `duplicates`, `left_out`).
    #[command(flatten)]
    pub output: super::output::FormatArg,
}

impl GenerateArgs {
    /// The generator parameters these arguments describe.
    pub fn params(&self) -> GenParams {
        GenParams {
            depth: self.depth,
            branching: self.branching,
            per_category: self.per_category,
            max_tries: self.max_tries,
            metric: self.metric,
            vocab: VocabParams {
                num_propositions: self.num_propositions,
                num_objects: self.num_objects,
                num_predicates: self.num_predicates,
                min_arity: self.min_arity,
                max_arity: self.max_arity,
                free_variable_prob: self.free_variable_prob,
                alphabet_size: self.alphabet_size,
                english: self.english || self.kind == Some(DatasetKind::FolEnglish),
            },
        }
    }

    /// Loads the grammar the arguments name.
    pub fn grammar(&self) -> Result<(Cfg, String)> {
        match (&self.kind, &self.grammar) {
            (Some(k), _) => Ok((
                k.grammar().context("built-in grammar")?,
                k.name().to_string(),
            )),
            (None, Some(path)) => {
                let text =
                    crate::base::fsread::read_to_string(path, crate::base::fsread::MAX_SMALL)
                        .with_context(|| format!("cannot read grammar file {}", path.display()))?;
                let cfg =
                    Cfg::parse(&text).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))?;
                let name = path
                    .file_stem()
                    .map_or_else(|| "custom".into(), |s| s.to_string_lossy().into_owned());
                Ok((cfg, name))
            }
            (None, None) => bail!("give --kind or --grammar FILE"),
        }
    }
}

/// `generate --from-folio`: FOLIO's formulas as a dataset file.
fn from_folio(path: &std::path::Path, args: &GenerateArgs) -> Result<i32> {
    // Streamed line by line: memory follows the formulas kept, not the file.
    let f = crate::base::fsread::open(path, crate::base::fsread::MAX_DATASET)
        .with_context(|| format!("cannot read FOLIO file {}", path.display()))?;
    let d = crate::dataset::folio::folio_dataset_from(
        std::io::BufReader::with_capacity(1 << 20, f),
        &path.display().to_string(),
    )
    .with_context(|| format!("cannot read FOLIO file {}", path.display()))?;
    for e in &d.errors {
        eprintln!("{e}");
    }
    if d.file.data.is_empty() {
        bail!(
            "{}: no FOLIO formula could be read (expected JSON lines with `premises-FOL`)",
            crate::base::sanitize::one_line(&path.display().to_string())
        );
    }
    crate::dataset::write(&args.out, &d.file)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if args.output.is_json() {
        print_json(serde_json::json!({
            "out": args.out.display().to_string(),
            "name": "folio",
            "samples": d.file.data.len(),
            "duplicates": d.duplicates,
            "left_out": d.errors.len(),
        }))?;
    } else if !args.quiet {
        eprintln!(
            "wrote {} FOLIO formulas to {} ({} repeated formula{} kept once, {} left out above)",
            d.file.data.len(),
            args.out.display(),
            d.duplicates,
            if d.duplicates == 1 { "" } else { "s" },
            d.errors.len()
        );
    }
    Ok(0)
}

/// `v` pretty-printed on stdout, made safe for a terminal (a grammar's name is a file name).
fn print_json(mut v: serde_json::Value) -> Result<()> {
    crate::base::sanitize::json_for_terminal(&mut v);
    outln!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

/// Runs `autoeval generate`.
pub fn run(args: GenerateArgs) -> Result<i32> {
    if let Some(path) = &args.from_folio {
        return from_folio(path, &args);
    }
    let (cfg, name) = args.grammar()?;
    let params = args.params();
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new((args.depth * args.batches.max(1)) as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} levels {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("generating {name}"));
    let g = generate_to_file(
        &cfg,
        &params,
        args.seed,
        args.batches,
        &args.out,
        &name,
        args.kind,
        &bar,
    )?;
    bar.finish_and_clear();
    if args.output.is_json() {
        print_json(serde_json::json!({
            "out": args.out.display().to_string(),
            "name": name,
            "samples": g.items,
            "batches": args.batches,
            "buckets": g.buckets,
            "leaves": g.leaves,
            "oversized": g.oversized,
            "unfilled": g.short.iter().map(|(batch, bucket, got, wanted, leaves)| serde_json::json!({
                "batch": batch,
                "bucket": bucket,
                "samples": got,
                "wanted": wanted,
                "leaves": leaves,
            })).collect::<Vec<_>>(),
        }))?;
    } else if !args.quiet {
        eprintln!(
            "wrote {} samples ({} batch{}, {} buckets, {} leaves explored) to {}",
            g.items,
            args.batches,
            if args.batches == 1 { "" } else { "es" },
            g.buckets,
            g.leaves,
            args.out.display()
        );
        if g.oversized > 0 {
            eprintln!(
                "note: {} draw(s) skipped for being over {} symbols or {} of text",
                g.oversized,
                crate::grammar::generator::MAX_FORM,
                crate::base::fsread::human_bytes(
                    crate::grammar::generator::MAX_SAMPLE_BYTES as u64
                )
            );
        }
        if !g.short.is_empty() {
            eprintln!(
                "{} bucket(s) could not be filled (too few distinct formulas):",
                g.short.len()
            );
            for (bi, bucket, got, wanted, leaves) in g.short.iter().take(12) {
                eprintln!(
                    "  batch {bi} bucket {bucket}: {got}/{wanted} ({leaves} distinct leaves)"
                );
            }
            if g.short.len() > 12 {
                eprintln!(
                    "  … and {} more (listed in info.unfilled_buckets)",
                    g.short.len() - 12
                );
            }
        }
    }
    Ok(0)
}
