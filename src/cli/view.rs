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
    /// Who is labelling in this session (default: config, $AUTOEVAL_ANNOTATOR, $USER).
    #[arg(long, value_name = "NAME")]
    pub annotator: Option<String>,
}

/// The shipped sample runs: ./sample-runs, or the source tree's when the current
/// directory is inside that tree. Elsewhere None: opening the build tree's runs from
/// anywhere would write labels and rescores into that checkout unasked.
pub(crate) fn default_paths() -> Option<Vec<PathBuf>> {
    let local = PathBuf::from("sample-runs");
    if local.is_dir() {
        return Some(vec![local]);
    }
    let tree = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let here = std::env::current_dir().ok()?;
    let inside = match (here.canonicalize(), tree.canonicalize()) {
        (Ok(h), Ok(t)) => h.starts_with(t),
        _ => false,
    };
    inside.then(|| vec![tree.join("sample-runs")])
}

/// What `autoeval` alone says outside the source tree with no ./sample-runs.
fn nothing_to_open() -> String {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-runs");
    let mut text = "no runs to open: name run directories or folders of runs (`autoeval DIR`, \
                    `autoeval view DIR`), or start one with `autoeval run`"
        .to_string();
    if shipped.is_dir() {
        text.push_str(&format!(
            "; the shipped sample runs are in {} (copy them to label and rescore your own: \
             `cp -r {} . && autoeval sample-runs`)",
            shipped.display(),
            shipped.display()
        ));
    }
    text
}

/// `autoeval [PATH…]` without a subcommand: a word that is neither a path nor a
/// subcommand is most likely a mistyped subcommand, so both readings are named
/// instead of opening an empty viewer (`autoeval view` still watches paths made later).
pub fn run_bare(args: ViewArgs) -> Result<i32> {
    if let Some(p) = args
        .paths
        .iter()
        .find(|p| std::fs::symlink_metadata(p).is_err())
    {
        anyhow::bail!(
            "{}: no such file or directory, and not a subcommand (autoeval --help lists them); \
             autoeval PATH opens run directories in the viewer",
            p.display()
        );
    }
    run(args)
}

/// Runs the viewer.
pub fn run(args: ViewArgs) -> Result<i32> {
    let paths = if args.paths.is_empty() {
        match default_paths() {
            Some(p) => p,
            None => anyhow::bail!("{}", nothing_to_open()),
        }
    } else {
        args.paths
    };
    Ok(run_tui(
        ViewOptions {
            paths,
            theme: args.theme,
            config: args.config,
        },
        args.blind,
        args.sample,
        crate::labels::store::checked_name("--annotator", args.annotator)
            .map_err(|e| anyhow::anyhow!(e))?,
    )?)
}
