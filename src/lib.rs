//! autoeval: generate, run, verify and inspect ∀uto∃∨∧L truth-maintenance evaluations.

pub mod rng;
pub mod syntax;
