//! Evaluation runs: the (A∘I)ⁿ pipeline, run directories, importers.

pub mod format;
pub mod store;
