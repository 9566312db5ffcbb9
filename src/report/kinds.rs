//! Failure kinds of stored samples. The kinds themselves and how they are found live
//! in [`crate::analysis::kinds`]; they are re-exported here for the report's users.

pub use crate::analysis::kinds::{
    FailureKind, UNPROVED, categories, classify, classify_pair, classify_parts,
    classify_parts_proved, kind_of_change, kinds_of_changes, kinds_of_diff, mask, unmask,
    verdict_kinds,
};
