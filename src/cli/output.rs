//! Flags every printing command shares: `--format text|json` (with `--json` kept as the
//! older spelling) and the progress bar that `--quiet` or a non-terminal stderr hides.

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;

/// Text or JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum TextOrJson {
    /// For people.
    #[default]
    Text,
    /// One JSON document.
    Json,
}

/// `--format text|json`, and `--json` as another way to say `--format json`.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct FormatArg {
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// The same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl FormatArg {
    /// Whether JSON was asked for, either way.
    pub fn is_json(self) -> bool {
        self.json || self.format == TextOrJson::Json
    }
}

/// A bar over `total` items labelled `what`, drawn on stderr only when it is a terminal
/// and `quiet` is off (in a pipe or a log it would be noise).
pub(crate) fn bar(total: u64, what: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} {pos}/{len} [{bar:25}] {per_sec} · ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}
