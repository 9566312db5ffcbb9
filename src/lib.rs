//! autoeval: generate, run, verify and inspect ∀uto∃∨∧L truth-maintenance evaluations.

pub mod analysis;
pub mod cli;
pub mod config_dir;
pub mod dataset;
pub mod dataset_folio;
pub mod fsread;
pub mod grammar;
pub mod labels;
pub mod llm;
pub mod perturb;
pub mod prompt;
pub mod report;
pub mod rng;
pub mod run;
pub mod sanitize;
pub mod syntax;
pub mod tui;
pub mod verify;

// Parsing and generation allocate many small nodes; mimalloc is markedly faster than
// glibc malloc for that pattern, and declaring it here covers every binary and bench.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
