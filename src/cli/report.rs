//! `autoeval report`.

use crate::report::render::{Format, render};
use crate::report::{By, load_run, report_run};
use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// One or more run directories.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Category field.
    #[arg(long, value_enum, default_value_t = By::Operators)]
    pub by: By,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Runs `autoeval report`.
pub fn run(args: ReportArgs) -> Result<i32> {
    let mut reports = Vec::new();
    for dir in &args.runs {
        let data = match load_run(dir) {
            Ok(d) => d,
            Err(e) => bail!("{e}"),
        };
        for w in data.warnings.iter().take(5) {
            eprintln!("warning: {}", crate::sanitize::one_line(w));
        }
        reports.push(report_run(&data, args.by));
    }
    let label = match args.by {
        By::Operators => "operators",
        By::Depth => "depth",
    };
    let text = render(&reports, args.format, label);
    // Run names, model names and ψ come from files: never let them drive the terminal.
    // Machine formats written to a file or pipe stay exact.
    let machine = matches!(args.format, Format::Json | Format::Csv);
    if machine && !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out!("{text}");
    } else {
        out!("{}", crate::sanitize::for_terminal(&text));
    }
    Ok(0)
}
