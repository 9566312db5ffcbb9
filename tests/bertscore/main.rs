//! The `bertscore` feature's tests (candle), a binary of their own so the main test
//! binary never needs the feature: `cargo test --features bertscore --test bertscore`.
#![cfg(feature = "bertscore")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A test reads as one scenario from setup to the last check; split, it reads worse.
#![allow(clippy::too_many_lines)]

#[path = "../it/common/mod.rs"]
mod common;

mod minilm;
mod task;
