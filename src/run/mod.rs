//! Evaluation runs: the (A∘I)ⁿ pipeline, run directories, importers.

pub mod adaptive;
pub mod batch;
pub mod bertscore;
pub mod checksum;
pub mod driver;
pub mod format;
pub mod import;
pub mod index;
pub mod job;
pub mod judge;
pub mod liveness;
pub mod pipeline;
pub mod rescore;
pub(crate) mod resume_check;
pub(crate) mod row_kinds;
pub mod rows;
pub mod scan;
pub mod score;
pub mod scratch;
pub(crate) mod spend;
pub mod store;
pub mod task;
pub mod task_estimate;
pub mod task_mark;
pub(crate) mod task_sample;
pub(crate) mod texts;
