//! `autoeval view` (and `autoeval` with no arguments).

use crate::tui::{ViewOptions, run_on as run_tui};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval view`.
#[derive(Args, Debug, Default)]
pub struct ViewArgs {
    /// Run directories, folders of runs, or the original's files (default: sample-runs/).
    pub paths: Vec<PathBuf>,
    /// Theme: default, light, high-contrast, colorblind, or a .toml file.
    #[arg(long)]
    pub theme: Option<String>,
    /// Config file (default ~/.config/autoeval/config.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Blind labelling: a sample's verdict, judge, closeness, failure kinds, diff and
    /// countermodel stay hidden until you label it; samples in your own seeded order.
    #[arg(long)]
    pub blind: bool,
    /// Open on this sample: its id, or RUN/ID when several runs hold it (RUN: the run's
    /// name, folder, or place in the run list).
    #[arg(long, value_name = "ID")]
    pub sample: Option<String>,
}

/// The shipped sample runs: ./sample-runs, else the source tree's.
pub(crate) fn default_paths() -> Vec<PathBuf> {
    let local = PathBuf::from("sample-runs");
    if local.is_dir() {
        return vec![local];
    }
    vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-runs")]
}

/// Runs the viewer.
pub fn run(args: ViewArgs) -> Result<i32> {
    let paths = if args.paths.is_empty() {
        default_paths()
    } else {
        args.paths
    };
    run_tui(
        ViewOptions {
            paths,
            theme: args.theme,
            config: args.config,
        },
        args.blind,
        args.sample,
    )
}
