//! The ground floor: small helpers every layer above may use, importing nothing of
//! the crate but each other.

pub mod clock;
pub mod config_dir;
pub mod fsread;
pub mod fswrite;
pub mod heap;
pub mod rng;
pub mod sanitize;
pub mod text_width;
