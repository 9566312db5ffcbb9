//! `autoeval labels export|stats`.

use crate::labels::{ADJUDICATED, append_record};
use crate::record::LabelRecord;
use crate::report::{By, load_run};
use anyhow::{Result, anyhow};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `autoeval labels`.
#[derive(Args, Debug)]
pub struct LabelsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: LabelsCommand,
}

/// Label subcommands.
#[derive(Subcommand, Debug)]
pub enum LabelsCommand {
    /// Write the current labels (newest per sample and annotator) as CSV or JSONL.
    Export {
        /// Run directory.
        run: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFormat::Csv)]
        format: ExportFormat,
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Append a label from a script (the viewer's `a` mode does this interactively).
    Add {
        /// Run directory.
        run: PathBuf,
        /// Sample id.
        id: String,
        /// Category ids (see the taxonomy); none says it was reviewed and nothing is
        /// wrong (`labels retract` takes a label back).
        categories: Vec<String>,
        /// Free-text note.
        #[arg(long, default_value = "")]
        note: String,
        /// Annotator (default: config, $AUTOEVAL_ANNOTATOR, $USER).
        #[arg(long)]
        annotator: Option<String>,
        /// Record that the sample was labelled blind (verdict, kinds, model and other
        /// labels unseen).
        #[arg(long)]
        blind: bool,
        /// `--format json` (or `--json`): the line recorded in labels.jsonl as one JSON
        /// object (`run`, `id`, `annotator`, `categories`, `note`, `time`, `blind`,
        /// `adjudicator`, `retract`).
        #[command(flatten)]
        output: super::output::FormatArg,
    },
    /// Take a label back: appends a retraction to labels.jsonl (the history stays), so the
    /// sample counts as unlabelled by that annotator again.
    Retract {
        /// Run directory.
        run: PathBuf,
        /// Sample id.
        id: String,
        /// Whose label (default: config, $AUTOEVAL_ANNOTATOR, $USER); `adjudicated`
        /// takes back a settled label.
        #[arg(long)]
        annotator: Option<String>,
        /// `--format json` (or `--json`): the line recorded in labels.jsonl as one JSON
        /// object (`run`, `id`, `annotator`, `categories`, `note`, `time`, `blind`,
        /// `adjudicator`, `retract`).
        #[command(flatten)]
        output: super::output::FormatArg,
    },
    /// List the samples where annotators named different categories, side by side.
    Disagreements {
        /// Run directory.
        run: PathBuf,
        /// Also list samples already adjudicated.
        #[arg(long)]
        all: bool,
        /// `--format json` (or `--json`): JSON instead of text.
        #[command(flatten)]
        output: super::output::FormatArg,
    },
    /// Settle a sample: record the adjudicated label (annotator `adjudicated`).
    Adjudicate {
        /// Run directory.
        run: PathBuf,
        /// Sample id.
        id: String,
        /// The settled category ids; none says nothing is wrong.
        categories: Vec<String>,
        /// Free-text note (why).
        #[arg(long, default_value = "")]
        note: String,
        /// Who settles it (default: config, $AUTOEVAL_ANNOTATOR, $USER).
        #[arg(long)]
        by: Option<String>,
        /// `--format json` (or `--json`): the line recorded in labels.jsonl as one JSON
        /// object (`run`, `id`, `annotator`, `categories`, `note`, `time`, `blind`,
        /// `adjudicator`, `retract`).
        #[command(flatten)]
        output: super::output::FormatArg,
    },
    /// Counts by category and complexity, agreement (α, Fleiss' κ, Cohen's κ), lucky
    /// passes, metric alignment.
    Stats {
        /// Run directories, or folders holding them: several are pooled (sample ids
        /// become RUN/ID).
        #[arg(required = true)]
        runs: Vec<PathBuf>,
        /// Category axis.
        #[arg(long, value_enum, default_value_t = By::Operators)]
        by: By,
        /// `--format json` (or `--json`): JSON instead of text.
        #[command(flatten)]
        output: super::output::FormatArg,
        /// Cohen's κ for this pair of annotators (`--pair alice,bob`) instead of the
        /// pair that shares the most samples.
        #[arg(long, value_name = "A,B")]
        pair: Option<String>,
        /// Bootstrap replicates for Krippendorff's α interval (0: none; at most 100000).
        #[arg(long, default_value_t = crate::labels::agreement::BOOTSTRAP as u32,
              value_parser = clap::value_parser!(u32).range(0..=100_000))]
        bootstrap: u32,
    },
}

pub use super::labels_export::ExportFormat;

/// Checks that the run has the sample and the taxonomy the categories.
fn check_label(run: &Path, id: &str, categories: &[String]) -> Result<()> {
    crate::run::store::read_manifest(run).map_err(|e| anyhow!("{e}"))?;
    let data = load_run(run).map_err(|e| anyhow!("{e}"))?;
    if !data.samples.iter().any(|s| s.id == id) {
        return Err(anyhow!(
            "{} has no sample with id '{}': labels must name a sample of the run",
            run.display(),
            crate::base::sanitize::one_line(id)
        ));
    }
    let tax = crate::labels::Taxonomy::builtin();
    for c in categories {
        if tax.by_id(c).is_none() {
            let ids: Vec<&str> = tax.categories.iter().map(|x| x.id.as_str()).collect();
            return Err(anyhow!(
                "unknown category '{}': use one of {}",
                crate::base::sanitize::one_line(c),
                ids.join(", ")
            ));
        }
    }
    Ok(())
}

/// Who records a label: the name given, else as [`crate::labels::annotator`] finds one;
/// a label that would go in as `anonymous` because nobody is named says so on stderr.
fn named_or_warn(given: Option<&str>) -> String {
    crate::labels::store::named_annotator(given).unwrap_or_else(|| {
        eprintln!("warning: {}", crate::labels::store::NO_ANNOTATOR);
        crate::labels::store::ANONYMOUS.to_string()
    })
}

fn record(
    id: String,
    categories: Vec<String>,
    note: String,
    annotator: String,
    blind: bool,
    adjudicator: Option<String>,
) -> LabelRecord {
    LabelRecord {
        id,
        categories,
        note,
        annotator,
        time: String::new(),
        blind,
        adjudicator,
        retract: false,
    }
}

/// Runs `autoeval labels`.
pub fn run(args: LabelsArgs) -> Result<i32> {
    match args.command {
        LabelsCommand::Export { run, format, out } => export(&run, format, out.as_deref()),
        LabelsCommand::Add {
            run,
            id,
            categories,
            note,
            annotator,
            blind,
            output,
        } => {
            check_label(&run, &id, &categories)?;
            let named = crate::labels::store::checked_name("--annotator", annotator)
                .map_err(|e| anyhow!(e))?;
            let who = named_or_warn(named.as_deref());
            if who == ADJUDICATED {
                return Err(anyhow!(
                    "'{ADJUDICATED}' is reserved for settled labels: use `autoeval labels adjudicate`"
                ));
            }
            append_record(
                &run,
                record(id.clone(), categories, note, who.clone(), blind, None),
            )
            .map_err(|e| anyhow!(e))?;
            if output.is_json() {
                super::labels_edit::print_recorded(&run, &id, &who)?;
            }
            Ok(0)
        }
        LabelsCommand::Retract {
            run,
            id,
            annotator,
            output,
        } => {
            let who = crate::labels::annotator(
                crate::labels::store::checked_name("--annotator", annotator)
                    .map_err(|e| anyhow!(e))?
                    .as_deref(),
            );
            super::labels_edit::retract(&run, &id, &who, output.is_json())
        }
        LabelsCommand::Adjudicate {
            run,
            id,
            categories,
            note,
            by,
            output,
        } => {
            check_label(&run, &id, &categories)?;
            let named = crate::labels::store::checked_name("--by", by).map_err(|e| anyhow!(e))?;
            let who = named_or_warn(named.as_deref());
            crate::labels::adjudicate(&run, &id, &categories, &note, &who)
                .map_err(|e| anyhow!(e))?;
            if output.is_json() {
                super::labels_edit::print_recorded(&run, &id, ADJUDICATED)?;
            }
            Ok(0)
        }
        LabelsCommand::Disagreements { run, all, output } => {
            super::labels_export::disagreements(&run, all, output.is_json())
        }
        LabelsCommand::Stats {
            runs,
            by,
            output,
            pair,
            bootstrap,
        } => super::labels_stats::stats(&runs, by, output.is_json(), pair.as_deref(), bootstrap),
    }
}

/// `autoeval labels export`: to `out`, else to stdout (made safe on a terminal).
fn export(run: &Path, format: ExportFormat, out: Option<&Path>) -> Result<i32> {
    let text = super::labels_export::export(run, format)?;
    if let Some(p) = out {
        // The check every output takes: a FIFO nobody reads or a directory is
        // refused at once, a link to a file is replaced, never written through.
        crate::base::fswrite::save(p, text.as_bytes())
            .map_err(|e| anyhow!("{}: {e}", p.display()))?;
    } else {
        // CSV/JSONL into a pipe stays exact; on a terminal it is made safe.
        let stdout = std::io::stdout();
        if std::io::IsTerminal::is_terminal(&stdout) {
            stdout
                .lock()
                .write_all(crate::base::sanitize::for_terminal(&text).as_bytes())?;
        } else {
            stdout.lock().write_all(text.as_bytes())?;
        }
    }
    Ok(0)
}
