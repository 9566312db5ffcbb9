//! `autoeval leaderboard`.

use crate::report::leaderboard::{Format, Rows, build, render};
use crate::report::report_dir;
use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval leaderboard`.
#[derive(Args, Debug)]
pub struct LeaderboardArgs {
    /// Run directories, or folders holding run directories (as `report` takes them).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// What the rows are (the other becomes the column groups).
    #[arg(long, value_enum, default_value_t = Rows::Model)]
    pub rows: Rows,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Pool a model's runs of different prompt conditions (shots, prompt set) into one
    /// row; by default each condition is a row of its own (`model · 2-shot`).
    #[arg(long)]
    pub pool: bool,
    /// Leave failure kinds not yet proved out (they are proved once per run and kept
    /// in its kinds cache; a first report of a large first-order run waits for them).
    #[arg(long)]
    pub no_kinds: bool,
}

/// Runs `autoeval leaderboard`.
pub fn run(args: LeaderboardArgs) -> Result<i32> {
    crate::run::kinds_cache::set_policy(
        !args.no_kinds,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let mut reports = Vec::new();
    for dir in super::report::expand_runs(&args.runs)? {
        // From each run's row index: memory stays that of one run's rows at a time.
        let (report, warnings) = match report_dir(&dir, None) {
            Ok(r) => r,
            Err(e) => bail!("{e}"),
        };
        for w in warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
        reports.push(report);
    }
    let text = render(&build(&reports, args.rows, args.pool), args.format);
    // Names come from files: never let them drive the terminal.
    let machine = !matches!(args.format, Format::Table);
    if machine && !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out!("{text}");
    } else {
        out!("{}", crate::base::sanitize::for_terminal(&text));
    }
    Ok(0)
}
