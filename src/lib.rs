//! autoeval: generate, run, verify and inspect ∀uto∃∨∧L truth-maintenance evaluations.
//!
//! # Code map
//!
//! One library crate; the `autoeval` binary is a thin `main` over [`cli`]. Modules, in
//! layer order (lowest first; an import points down a layer or across its own, never
//! round in a circle, and files in one folder never import each other round a circle):
//!
//! | layer | module | its job |
//! |---|---|---|
//! | 0 | [`syntax`], [`base`] | formula and regex ASTs, every notation's parser and printer, the structural diff; in `base`: terminal-safe text (`sanitize`), seeded randomness (`rng`), bounded reads of regular files (`fsread`), outputs that never replace a special file (`fswrite`), the config directory (`config_dir`), RFC 3339 times (`clock`), display widths of text (`text_width`) |
//! | 1 | [`grammar`], [`verify`], [`prompt`], [`perturb`] | CFGs and Algorithm 1; φ ≡ φ′ with Z3 / truth tables / automata and countermodels; prompt templates and the copy rule; the paper's perturbations |
//! | 2 | [`llm`], [`dataset`], [`record`] | model clients (retries, budgets, batches, cache, prices, request profiles); dataset files, FOLIO's and the reference tasks'; `--limit` spread over the range; the run-directory records |
//! | 3 | [`analysis`] | what formulas alone give per sample: closeness metrics, failure kinds, the A2/A3 counts |
//! | 4 | [`run`] | the pipeline on tokio; the run directory (append-only, resumable, followed while it grows); rescore, import, batch |
//! | 5 | [`labels`], [`report`] | hand labels, the taxonomy, agreement; tables, intervals, plots, exports |
//! | 6 | [`launch`] | the arguments of `run` (shared by the CLI and the viewer's form) and the path from them to a run |
//! | 7 | [`tui`] | the viewer: `app` (`App { model, layers, panes, jobs, keymap, status }`, the one inbox, `update(Msg)`), `model` (runs, listing, derived views; no terminal types), `layer` (one enum variant per overlay, carrying its data), `ui` (drawing reads `&App`, one file per pane or layer) |
//! | 8 | [`cli`] | clap types and subcommand entry points |
//!
//! `cargo test --test it layers::` checks this table against the code: every module is
//! in it, no import points up a layer, modules never import each other round in a
//! circle, and sibling files never import each other round a circle (of any length).
//!
//! # Invariants
//!
//! - A run directory is the only state: `samples.jsonl` is appended one finished sample
//!   per line; resume skips ids already there; the newest line per id wins.
//! - Everything read from outside (run files, model replies, config, servers) is bounded
//!   in size and depth and sanitised before it reaches a terminal; no secret is stored.
//! - One verdict enum, one scoring path (`run::score`), used by run, rescore, import and
//!   the viewer alike.
//! - The viewer changes only in `App::update`; drawing never loads data or blocks.

pub mod analysis;
pub mod base;
pub mod cli;
pub mod dataset;
pub mod grammar;
pub mod labels;
pub mod launch;
pub mod llm;
pub mod perturb;
pub mod prompt;
pub mod record;
pub mod report;
pub mod run;
pub mod syntax;
pub mod tui;
pub mod verify;

// Parsing and generation allocate many small nodes; mimalloc is markedly faster than
// glibc malloc for that pattern, and declaring it here covers every binary and bench.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
