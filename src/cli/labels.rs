//! `autoeval labels export|stats`.

use crate::labels::agreement::Estimate;
use crate::labels::{ADJUDICATED, append_record};
use crate::record::LabelRecord;
use crate::report::labels::{LabelStats, StatsOptions, stats_with};
use crate::report::{By, load_run};
use crate::run::store::read_labels;
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

/// A run with only its labelled samples (statistics need no others), read through the
/// row index so a large run is not loaded whole.
fn load_labelled(dir: &Path, labels: &[LabelRecord]) -> Result<crate::report::RunData> {
    let manifest = crate::run::store::read_manifest(dir).map_err(|e| anyhow!("{e}"))?;
    let ids: std::collections::HashSet<&str> = labels.iter().map(|l| l.id.as_str()).collect();
    let mut samples = Vec::new();
    let warnings = crate::report::open::for_each_sample_where(
        dir,
        |id| ids.contains(id),
        |s| {
            samples.push(s);
            Ok(())
        },
    )
    .map_err(|e| anyhow!("{e}"))?;
    for w in warnings.iter().take(5) {
        eprintln!("warning: {}", crate::base::sanitize::one_line(w));
    }
    Ok(crate::report::RunData {
        dir: dir.to_path_buf(),
        manifest,
        samples,
        judge: vec![],
        warnings,
    })
}

/// `--pair a,b`: two distinct annotators who have labels.
fn parse_pair(pair: Option<&str>, records: &[LabelRecord]) -> Result<Option<(String, String)>> {
    let Some(p) = pair else { return Ok(None) };
    let names: Vec<&str> = p.split(',').map(str::trim).collect();
    let [a, b] = names[..] else {
        return Err(anyhow!(
            "--pair takes two annotators separated by a comma (--pair alice,bob), not '{}'",
            crate::base::sanitize::one_line(p)
        ));
    };
    if a == b {
        return Err(anyhow!(
            "--pair needs two different annotators, not '{a}' twice"
        ));
    }
    let known: std::collections::BTreeSet<&str> = records
        .iter()
        .map(|r| r.annotator.as_str())
        .filter(|a| *a != ADJUDICATED)
        .collect();
    for n in [a, b] {
        if !known.contains(n) {
            return Err(anyhow!(
                "--pair: '{}' has no labels here; annotators: {}",
                crate::base::sanitize::one_line(n),
                crate::base::sanitize::one_line(&known.into_iter().collect::<Vec<_>>().join(", "))
            ));
        }
    }
    Ok(Some((a.to_string(), b.to_string())))
}

fn print_agreement(st: &LabelStats) -> Result<()> {
    let one = crate::base::sanitize::one_line;
    let ag = &st.agreement;
    if st.annotators.len() < 2 {
        outln!(
            "\nagreement: needs two annotators (labels so far by: {})",
            one(&st.annotators.join(", "))
        );
    } else {
        outln!(
            "\nagreement among {} annotators over {} samples labelled by two or more ({} disagree):",
            ag.annotators.len(),
            ag.shared,
            ag.disagreements
        );
        outln!(
            "  {:<24} {:<34} Fleiss' κ",
            "category",
            "Krippendorff's α [95% bootstrap]"
        );
        for (c, a) in &ag.alpha {
            let f = ag.fleiss.get(c).map(Estimate::show).unwrap_or_default();
            outln!("  {:<24} {:<34} {f}", one(c), a.show());
        }
        outln!(
            "  {:<24} {:<34} {}",
            "overall",
            ag.alpha_overall.show(),
            ag.fleiss_overall.show()
        );
    }
    if let Some(c) = &st.cohen {
        outln!(
            "\nCohen's κ between {} and {} over {} samples both labelled:",
            one(&c.a),
            one(&c.b),
            c.shared
        );
        for (cat, k) in &c.kappa {
            outln!("  {:<24} {}", one(cat), k.show());
        }
        outln!("  {:<24} {}", "overall", c.overall.show());
    }
    if let Some(adj) = &st.adjudication {
        let who: Vec<String> = adj
            .adjudicators
            .iter()
            .map(|(w, n)| format!("{} ({n})", one(w)))
            .collect();
        outln!(
            "\nadjudication: {} sample(s) settled by {}; disagreements {} before, {} after",
            adj.samples,
            who.join(", "),
            adj.disagreements_before,
            adj.disagreements_after
        );
        outln!(
            "  α overall before {}, after {}",
            st.agreement.alpha_overall.show(),
            adj.after.alpha_overall.show()
        );
        outln!(
            "  Fleiss' κ overall before {}, after {}",
            st.agreement.fleiss_overall.show(),
            adj.after.fleiss_overall.show()
        );
        for (a, e) in &adj.annotator_vs_adjudicated {
            outln!("  {:<22} vs adjudicated: κ {}", one(a), e.show());
        }
    }
    Ok(())
}

/// Runs `autoeval labels`.
pub fn run(args: LabelsArgs) -> Result<i32> {
    match args.command {
        LabelsCommand::Export { run, format, out } => {
            let text = super::labels_export::export(&run, format)?;
            if let Some(p) = out {
                // The check every output takes: a FIFO nobody reads or a directory is
                // refused at once, a link to a file is replaced, never written through.
                crate::base::fswrite::save(&p, text.as_bytes())
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
        } => {
            let dirs = crate::cli::report::expand_runs(&runs)?;
            let several = dirs.len() > 1;
            let mut pooled: Option<crate::report::RunData> = None;
            let mut records = Vec::new();
            for dir in &dirs {
                let mut labels = read_labels(dir).map_err(|e| anyhow!("{e}"))?.records;
                let mut data = load_labelled(dir, &labels)?;
                if several {
                    // Ids are unique within a run only.
                    let name = data.manifest.id.clone();
                    for s in &mut data.samples {
                        s.id = format!("{name}/{}", s.id);
                    }
                    for l in &mut labels {
                        l.id = format!("{name}/{}", l.id);
                    }
                }
                records.extend(labels);
                match pooled.as_mut() {
                    None => pooled = Some(data),
                    Some(p) => p.samples.extend(data.samples),
                }
            }
            let Some(data) = pooled else {
                return Err(anyhow!("no run directories given"));
            };
            let pair = parse_pair(pair.as_deref(), &records)?;
            let opts = StatsOptions {
                pair,
                bootstrap: bootstrap as usize,
            };
            let st = stats_with(&data, &records, by == By::Depth, &opts);
            let ranking = super::labels_ranks::load(&dirs)?;
            if output.is_json() {
                let mut v = serde_json::to_value(&st)?;
                if let (Some(r), Some(m)) = (&ranking, v.as_object_mut()) {
                    m.insert("ranking".into(), serde_json::to_value(r)?);
                }
                outln!("{}", serde_json::to_string_pretty(&v)?);
                return Ok(0);
            }
            outln!(
                "{} labelled samples by {} annotator(s): {}{}",
                st.labelled,
                st.annotators.len(),
                crate::base::sanitize::one_line(&st.annotators.join(", ")),
                if st.blind > 0 {
                    format!(" ({} label(s) made blind)", st.blind)
                } else {
                    String::new()
                }
            );
            let buckets: std::collections::BTreeSet<usize> =
                st.counts.values().flat_map(|m| m.keys().copied()).collect();
            if !st.counts.is_empty() {
                outln!(
                    "\ncounts by category × {}",
                    if by == By::Depth {
                        "depth"
                    } else {
                        "operators"
                    }
                );
                let w = st
                    .counts
                    .keys()
                    .map(std::string::String::len)
                    .max()
                    .unwrap_or(8);
                out!("{:w$}", "");
                for b in &buckets {
                    out!(" {b:>3}");
                }
                outln!("  total");
                for (c, m) in &st.counts {
                    out!("{:w$}", crate::base::sanitize::one_line(c));
                    for b in &buckets {
                        out!(" {:>3}", m.get(b).copied().unwrap_or(0));
                    }
                    outln!("  {:>5}", m.values().sum::<usize>());
                }
            }
            print_agreement(&st)?;
            if let Some((k, n, p, lo, hi)) = st.lucky {
                outln!(
                    "\nlucky passes: {k} of {n} labelled passing samples = {:.1}% (95% Wilson interval {:.1}%–{:.1}%)",
                    100.0 * p,
                    100.0 * lo,
                    100.0 * hi
                );
            } else {
                outln!("\nlucky passes: no passing sample is labelled yet");
            }
            outln!(
                "\nagreement of each metric with the human judgement (Spearman ρ; human: no failure category = good):"
            );
            for (m, r) in &st.rank_correlation {
                let v = r.map_or_else(
                    || {
                        format!(
                            "– ({})",
                            st.rank_correlation_reason
                                .get(m)
                                .map_or("undefined", String::as_str)
                        )
                    },
                    |v| format!("{v:.3}"),
                );
                outln!("  {m:<20} {v}");
            }
            if !st.automatic.is_empty() {
                outln!(
                    "\nautomatic failure kinds (from the diff) against the hand labels, per category:"
                );
                outln!(
                    "  {:<24} {:>4} {:>4} {:>4} {:>9} {:>7}",
                    "category",
                    "both",
                    "auto",
                    "hand",
                    "precision",
                    "recall"
                );
                for (c, a) in &st.automatic {
                    let f = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{v:.3}"));
                    outln!(
                        "  {:<24} {:>4} {:>4} {:>4} {:>9} {:>7}",
                        crate::base::sanitize::one_line(c),
                        a.tp,
                        a.fp,
                        a.fn_,
                        f(a.precision()),
                        f(a.recall())
                    );
                }
                outln!(
                    "  (– precision: the diff never named the category; – recall: no annotator did)"
                );
            }
            if let Some(r) = &ranking {
                super::labels_ranks::print(r)?;
            }
            Ok(0)
        }
    }
}
