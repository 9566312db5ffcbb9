//! The run-directory format, re-exported from [`crate::record`] (where it lives, below
//! `analysis`) so that `run::format` paths keep working.

pub use crate::record::*;
