//! What is computed per sample from formulas alone.

pub mod kinds;
