//! Starting runs: the arguments of `autoeval run` (one clap definition that the CLI
//! and the viewer's run form both parse with), the path from them to a run, and
//! dataset generation into a file. Sits above `run` and below `tui` and `cli`.

pub mod args;
pub mod generate;
pub mod model;
pub mod spec;

/// A failure from a layer below or a refused setting, as boxed by [`LaunchError`].
type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a run could not be set up or a dataset not generated: the message the user sees,
/// with its causes as they were.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A setting refused, or a step that failed, said as is (its causes after it).
    #[error(transparent)]
    Other(Cause),
    /// A step that failed: what it was doing, then why.
    #[error("{what}")]
    Context {
        /// What was being done (`cannot write PATH`).
        what: String,
        /// Why it failed.
        #[source]
        source: Cause,
    },
}

impl LaunchError {
    /// A refusal or a lower layer's error (any error type, or a message) as it is.
    pub(crate) fn other(e: impl Into<Cause>) -> Self {
        Self::Other(e.into())
    }

    /// `source` with what was being done when it happened.
    pub(crate) fn context(what: String, source: impl Into<Cause>) -> Self {
        Self::Context {
            what,
            source: source.into(),
        }
    }
}
