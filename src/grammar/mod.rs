//! Grammars, vocabularies and the Algorithm 1 dataset generator.

pub mod builtin;
pub mod cfg;
pub mod generator;
pub mod vocab;

pub use builtin::DatasetKind;
pub use cfg::{Cfg, GrammarError, Metric};
pub use generator::{Batch, GenParams, Progress, generate_batch};
pub use vocab::{VocabParams, Vocabulary};
