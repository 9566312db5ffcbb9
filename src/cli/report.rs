//! `autoeval report`.

use crate::report::render::{Format, render};
use crate::report::{By, report_dir};
use crate::run::store;
use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Run directories, or folders holding run directories (as `view` takes them).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Category field [default: depth for regex runs, operators otherwise]: operators,
    /// depth, a count read from φ₀ (and, or, not, quantifiers, predicates, terminals,
    /// tree_depth, distinct_symbols) or a field the run's dataset stores per item
    /// (dfa_states, dfa_edges, density, num_propositions, …).
    #[arg(long, value_name = "FIELD")]
    pub by: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also draw the figures (A3 and A2 by complexity, failure kinds) to FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// The A3 level whose crossing is the breaking point (0 < L < 1).
    #[arg(long, value_name = "L", default_value_t = crate::analysis::breaking::DEFAULT_LEVEL)]
    pub level: f64,
    /// CSV and JSON exactly as stored even on a terminal or pipe (by default only a
    /// file gets them exact; text formats are always made safe to show).
    #[arg(long)]
    pub raw: bool,
    /// Leave failure kinds not yet proved out (they are proved once per run and kept
    /// in its kinds cache; a first report of a large first-order run waits for them).
    #[arg(long)]
    pub no_kinds: bool,
}

/// Whether standard output is a regular file (`> report.csv`): the only place where
/// bytes from run files can go unescaped without a terminal at the end.
fn stdout_is_file() -> bool {
    use std::os::fd::AsFd;
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata())
        .is_ok_and(|m| m.is_file())
}

/// The run directories named on the command line, folders expanded; warns about skipped entries.
pub(crate) fn expand_runs(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for p in paths {
        if !p.exists() {
            bail!("{}: no such file or directory", p.display());
        }
        let (runs, skipped) = store::discover_runs(p);
        if runs.is_empty() {
            bail!(
                "{}: not a run directory and holds none (a run has run.json or samples.jsonl)",
                p.display()
            );
        }
        // One line for a folder's other entries (README.md, figures/, …), not one each.
        if !skipped.is_empty() {
            let names: Vec<String> = skipped
                .iter()
                .take(5)
                .map(|s| {
                    s.file_name().map_or_else(
                        || s.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    )
                })
                .collect();
            eprintln!(
                "warning: {}: {} {}, skipped ({}{})",
                crate::base::sanitize::one_line(&p.display().to_string()),
                skipped.len(),
                if skipped.len() == 1 {
                    "entry is not a run directory"
                } else {
                    "entries are not run directories"
                },
                crate::base::sanitize::one_line(&names.join(", ")),
                if skipped.len() > 5 { ", …" } else { "" }
            );
        }
        dirs.extend(runs);
    }
    Ok(dirs)
}

/// Refuses a level the logistic curve cannot cross (0 and 1 are its asymptotes).
pub(crate) fn check_level(level: f64) -> Result<()> {
    if !(level > 0.0 && level < 1.0) {
        bail!("--level {level} must lie strictly between 0 and 1 (an A3 share, e.g. 0.5)");
    }
    Ok(())
}

/// Runs `autoeval report`.
pub fn run(args: ReportArgs) -> Result<i32> {
    check_level(args.level)?;
    crate::run::kinds_cache::set_policy(
        !args.no_kinds,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    // Operators and depth come from the row index; other fields from the full records.
    let (by, field): (Option<By>, Option<&str>) = match args.by.as_deref().map(str::trim) {
        None => (None, None),
        Some("operators" | "ops" | "num_operators") => (Some(By::Operators), None),
        Some("depth") => (Some(By::Depth), None),
        Some(other) => (None, Some(other)),
    };
    let mut reports = Vec::new();
    let mut tasks = Vec::new();
    for dir in expand_runs(&args.runs)? {
        // A reference-task run (`run --task`) has its own scores.
        if let Ok(m) = store::read_manifest(&dir)
            && let Some(kind) = m.task()
        {
            let (r, warnings) = crate::report::task_run::task_report(&dir, &m, kind, by)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            for w in warnings.iter().take(5) {
                eprintln!("warning: {}", crate::base::sanitize::one_line(w));
            }
            tasks.push(r);
            continue;
        }
        // One run at a time from its row index: memory stays that of one run's rows.
        let (report, warnings) = match field {
            Some(name) => {
                let run = crate::report::load_run(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
                let f = crate::report::category::Field::resolve(name, &dir, &run.manifest)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
                (crate::report::report_run_field(&run, &f), run.warnings)
            }
            None => match report_dir(&dir, by) {
                Ok(r) => r,
                Err(e) => bail!("{e}"),
            },
        };
        for w in warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
        let mut report = report;
        if args.level != crate::analysis::breaking::DEFAULT_LEVEL {
            report.breaking.at_level(args.level);
        }
        reports.push(report);
    }
    if !tasks.is_empty() {
        return task_output(&args, &reports, &tasks);
    }
    if let Some(path) = &args.plot {
        crate::report::plot::plot(&reports, path)?;
        eprintln!(
            "wrote {}",
            crate::base::sanitize::one_line(&path.display().to_string())
        );
    }
    let text = if args.raw && args.format == Format::Csv {
        crate::report::render::render_csv_raw(&reports)
    } else {
        render(&reports, args.format)
    };
    // Run names, model names and ψ come from files: never let them drive the terminal.
    // Machine formats written to a file stay exact; CSV into a pipe (`| head`) ends on
    // a terminal as often as not, so it is escaped like the text formats unless --raw.
    let exact = match args.format {
        Format::Json => args.raw || !std::io::IsTerminal::is_terminal(&std::io::stdout()),
        Format::Csv => args.raw || stdout_is_file(),
        Format::Table | Format::Markdown => false,
    };
    if exact {
        out!("{text}");
    } else {
        out!("{}", crate::base::sanitize::for_terminal(&text));
    }
    Ok(0)
}

/// The output of a report that names task runs: their scores (and the ∀uto∃∨∧L runs'
/// report beside them in JSON, or before them as text).
fn task_output(
    args: &ReportArgs,
    reports: &[crate::report::RunReport],
    tasks: &[crate::report::task_run::TaskRunReport],
) -> Result<i32> {
    use crate::report::task_run::{render_csv, render_text};
    if args.plot.is_some() {
        bail!(
            "--plot draws ∀uto∃∨∧L runs' figures; report task runs without it (or use `correlate --plot`)"
        );
    }
    let text = match args.format {
        Format::Json => {
            // Every run in one list: task runs carry `task`, `accuracy`, `confusion`.
            let mut runs: Vec<serde_json::Value> = reports
                .iter()
                .filter_map(|r| serde_json::to_value(r).ok())
                .collect();
            runs.extend(tasks.iter().filter_map(|t| serde_json::to_value(t).ok()));
            serde_json::to_string_pretty(&serde_json::json!({ "runs": runs })).unwrap_or_default()
        }
        Format::Csv if !reports.is_empty() => bail!(
            "CSV holds one kind of run: report the task runs and the ∀uto∃∨∧L runs in two calls"
        ),
        Format::Csv => render_csv(tasks),
        Format::Table | Format::Markdown => {
            let md = args.format == Format::Markdown;
            let mut out = if reports.is_empty() {
                String::new()
            } else {
                render(reports, args.format)
            };
            out += &render_text(tasks, md);
            out
        }
    };
    let exact = args.raw
        || (args.format == Format::Json && !std::io::IsTerminal::is_terminal(&std::io::stdout()));
    if exact {
        out!("{text}");
    } else {
        out!("{}", crate::base::sanitize::for_terminal(&text));
    }
    Ok(0)
}
