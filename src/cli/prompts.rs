//! `autoeval prompts`.

use crate::prompt::{FILES, PromptSet};
use anyhow::{Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `autoeval prompts`.
#[derive(Args, Debug)]
pub struct PromptsArgs {
    /// Write the built-in prompt set to this directory for editing.
    #[arg(long)]
    pub export: PathBuf,
    /// Overwrite templates in the directory that differ from the built-in ones.
    #[arg(long)]
    pub force: bool,
    /// `--format json` (or `--json`): what was written as one JSON object on stdout
    /// (`dir`, `hash`, `files`, `overwritten`).
    #[command(flatten)]
    pub output: super::output::FormatArg,
}

/// The template files in `dir` whose text differs from the built-in one (files that
/// are missing do not count: writing them loses nothing).
fn edited(dir: &Path) -> Vec<String> {
    FILES
        .iter()
        .filter(|(name, text)| {
            let p = dir.join(name);
            // A file we cannot read as text may hold edits too: never overwrite it silently.
            p.exists() && std::fs::read_to_string(&p).map_or(true, |t| t != *text)
        })
        .map(|(name, _)| (*name).to_string())
        .collect()
}

/// Runs `autoeval prompts`.
pub fn run(args: PromptsArgs) -> Result<i32> {
    let differ = edited(&args.export);
    if !differ.is_empty() && !args.force {
        bail!(
            "{}: these templates differ from the built-in ones and would be overwritten: {}; \
             keep them (pass --prompts {} to use them), export elsewhere, or pass --force to overwrite",
            args.export.display(),
            differ.join(", "),
            args.export.display()
        );
    }
    PromptSet::export(&args.export)?;
    let set = PromptSet::load(&args.export, 0)?;
    if args.output.is_json() {
        let mut v = serde_json::json!({
            "dir": args.export.display().to_string(),
            "hash": set.hash,
            "files": FILES.iter().map(|(name, _)| args.export.join(name).display().to_string()).collect::<Vec<_>>(),
            "overwritten": differ,
        });
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    if !differ.is_empty() {
        eprintln!("overwrote {} (--force)", differ.join(", "));
    }
    eprintln!(
        "wrote the built-in prompts to {} (hash {}); edit them and pass --prompts {}",
        args.export.display(),
        &set.hash[..8],
        args.export.display()
    );
    Ok(0)
}
