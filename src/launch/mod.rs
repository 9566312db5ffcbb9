//! Starting runs: the arguments of `autoeval run` (one clap definition that the CLI
//! and the viewer's run form both parse with), the path from them to a run, and
//! dataset generation into a file. Sits above `run` and below `tui` and `cli`.

pub mod args;
pub mod generate;
pub mod model;
pub mod spec;
