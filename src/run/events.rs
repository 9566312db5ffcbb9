//! What a running pipeline reports, and how a run fails: the types the driver and
//! the resume checks share (apart from both, so neither imports the other).

use super::store;
use crate::record::SampleRecord;

/// What a running pipeline reports.
#[derive(Debug)]
pub enum Event {
    /// The run started: samples to do now, and already finished ones skipped.
    Started {
        /// Samples this invocation will process.
        todo: usize,
        /// Samples already in `samples.jsonl`.
        done_before: usize,
    },
    /// A sample finished and was written.
    Sample(Box<SampleRecord>),
    /// Something worth telling the user (torn line skipped, task crash, …).
    Warning(String),
}

/// Run errors (before or while writing).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Store problem.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// Refused to start.
    #[error("{0}")]
    Refused(String),
}
