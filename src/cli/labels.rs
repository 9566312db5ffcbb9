//! `autoeval labels export|stats`.

use crate::report::labels::{latest, stats};
use crate::report::{By, load_run};
use crate::run::store::read_labels;
use anyhow::{Result, anyhow};
use clap::{Args, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

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
        /// Category ids (see the taxonomy); none clears the sample's labels.
        categories: Vec<String>,
        /// Free-text note.
        #[arg(long, default_value = "")]
        note: String,
        /// Annotator (default: config, $AUTOEVAL_ANNOTATOR, $USER).
        #[arg(long)]
        annotator: Option<String>,
    },
    /// Counts by category and complexity, agreement (κ), lucky passes, metric alignment.
    Stats {
        /// Run directories, or folders holding them: several are pooled (sample ids
        /// become RUN/ID).
        #[arg(required = true)]
        runs: Vec<PathBuf>,
        /// Category axis.
        #[arg(long, value_enum, default_value_t = By::Operators)]
        by: By,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Export formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    /// One row per (sample, annotator).
    Csv,
    /// One JSON object per line.
    Jsonl,
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Runs `autoeval labels`.
pub fn run(args: LabelsArgs) -> Result<i32> {
    match args.command {
        LabelsCommand::Export { run, format, out } => {
            let data = load_run(&run).map_err(|e| anyhow!("{e}"))?;
            let labels = read_labels(&run).map_err(|e| anyhow!("{e}"))?;
            for w in &labels.warnings {
                eprintln!("warning: {w}");
            }
            let samples: std::collections::HashMap<&str, &crate::run::format::SampleRecord> =
                data.samples.iter().map(|s| (s.id.as_str(), s)).collect();
            let mut text = String::new();
            if matches!(format, ExportFormat::Csv) {
                text.push_str(
                    "id,annotator,time,categories,note,verdict,num_operators,depth,phi0,phi1\n",
                );
            }
            for l in latest(&labels.records).values() {
                let s = samples.get(l.id.as_str());
                let phi1 = s
                    .and_then(|s| s.rounds.first())
                    .and_then(|r| r.phi1.clone())
                    .unwrap_or_default();
                match format {
                    ExportFormat::Csv => {
                        let row = [
                            l.id.clone(),
                            l.annotator.clone(),
                            l.time.clone(),
                            l.categories.join(";"),
                            l.note.clone(),
                            s.map(|s| s.verdict.name().to_string()).unwrap_or_default(),
                            s.and_then(|s| s.num_operators)
                                .map(|v| v.to_string())
                                .unwrap_or_default(),
                            s.and_then(|s| s.depth)
                                .map(|v| v.to_string())
                                .unwrap_or_default(),
                            s.map(|s| s.phi0.clone()).unwrap_or_default(),
                            phi1,
                        ];
                        text.push_str(
                            &row.iter()
                                .map(|f| csv_field(f))
                                .collect::<Vec<_>>()
                                .join(","),
                        );
                        text.push('\n');
                    }
                    ExportFormat::Jsonl => {
                        let mut v = serde_json::to_value(l)?;
                        if let (Some(o), Some(s)) = (v.as_object_mut(), s) {
                            o.insert("verdict".into(), s.verdict.name().into());
                            o.insert(
                                "num_operators".into(),
                                serde_json::to_value(s.num_operators)?,
                            );
                            o.insert("phi0".into(), s.phi0.clone().into());
                            o.insert("phi1".into(), phi1.into());
                        }
                        text.push_str(&v.to_string());
                        text.push('\n');
                    }
                }
            }
            if let Some(p) = out {
                std::fs::write(&p, text).map_err(|e| anyhow!("{}: {e}", p.display()))?;
            } else {
                // CSV/JSONL into a pipe stays exact; on a terminal it is made safe.
                let stdout = std::io::stdout();
                if std::io::IsTerminal::is_terminal(&stdout) {
                    stdout
                        .lock()
                        .write_all(crate::sanitize::for_terminal(&text).as_bytes())?;
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
        } => {
            crate::run::store::read_manifest(&run).map_err(|e| anyhow!("{e}"))?;
            let data = load_run(&run).map_err(|e| anyhow!("{e}"))?;
            if !data.samples.iter().any(|s| s.id == id) {
                return Err(anyhow!(
                    "{} has no sample with id '{}': labels must name a sample of the run",
                    run.display(),
                    crate::sanitize::one_line(&id)
                ));
            }
            let tax = crate::labels::Taxonomy::builtin();
            for c in &categories {
                if !tax.categories.iter().any(|x| &x.id == c) {
                    let ids: Vec<&str> = tax.categories.iter().map(|x| x.id.as_str()).collect();
                    return Err(anyhow!(
                        "unknown category '{c}': use one of {}",
                        ids.join(", ")
                    ));
                }
            }
            let who = crate::labels::annotator(annotator.as_deref());
            crate::labels::append(&run, &id, &categories, &note, &who).map_err(|e| anyhow!(e))?;
            Ok(0)
        }
        LabelsCommand::Stats { runs, by, json } => {
            let dirs = crate::cli::report::expand_runs(&runs)?;
            let several = dirs.len() > 1;
            let mut pooled: Option<crate::report::RunData> = None;
            let mut records = Vec::new();
            for dir in &dirs {
                let mut data = load_run(dir).map_err(|e| anyhow!("{e}"))?;
                let mut labels = read_labels(dir).map_err(|e| anyhow!("{e}"))?.records;
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
            let st = stats(&data, &records, by == By::Depth);
            if json {
                outln!("{}", serde_json::to_string_pretty(&st)?);
                return Ok(0);
            }
            let fmt = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{v:.3}"));
            outln!(
                "{} labelled samples by {} annotator(s): {}",
                st.labelled,
                st.annotators.len(),
                crate::sanitize::one_line(&st.annotators.join(", "))
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
                    out!("{:w$}", crate::sanitize::one_line(c));
                    for b in &buckets {
                        out!(" {:>3}", m.get(b).copied().unwrap_or(0));
                    }
                    outln!("  {:>5}", m.values().sum::<usize>());
                }
            }
            if let Some((a1, a2)) = &st.pair {
                outln!(
                    "\nCohen's κ between {} and {} over {} samples both labelled:",
                    crate::sanitize::one_line(a1),
                    crate::sanitize::one_line(a2),
                    st.overlap
                );
                for (c, k) in &st.kappa {
                    outln!("  {:<24} {}", crate::sanitize::one_line(c), fmt(*k));
                }
            } else {
                outln!("\nagreement (κ) needs two annotators");
            }
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
                outln!("  {m:<20} {}", fmt(*r));
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
                    outln!(
                        "  {:<24} {:>4} {:>4} {:>4} {:>9} {:>7}",
                        crate::sanitize::one_line(c),
                        a.tp,
                        a.fp,
                        a.fn_,
                        fmt(a.precision()),
                        fmt(a.recall())
                    );
                }
            }
            Ok(0)
        }
    }
}
