//! `autoeval prompts`.

use crate::prompt::PromptSet;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval prompts`.
#[derive(Args, Debug)]
pub struct PromptsArgs {
    /// Write the built-in prompt set to this directory for editing.
    #[arg(long)]
    pub export: PathBuf,
}

/// Runs `autoeval prompts`.
pub fn run(args: PromptsArgs) -> Result<i32> {
    PromptSet::export(&args.export)?;
    let set = PromptSet::load(&args.export, 0)?;
    eprintln!(
        "wrote the built-in prompts to {} (hash {}); edit them and pass --prompts {}",
        args.export.display(),
        &set.hash[..8],
        args.export.display()
    );
    Ok(0)
}
