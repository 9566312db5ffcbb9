//! `autoeval completions SHELL` and `autoeval man`: shell completions and roff manual
//! pages generated from the clap command tree, so neither can drift from `--help`.

use anyhow::{Result, anyhow};
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::path::PathBuf;

/// Arguments of `autoeval completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Arguments of `autoeval man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write one page per command into DIR (autoeval.1, autoeval-run.1, …) instead of
    /// printing autoeval(1) on stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints the completion script for `args.shell` on stdout.
pub fn completions(args: CompletionsArgs) -> Result<i32> {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "autoeval", &mut buf);
    out!("{}", String::from_utf8_lossy(&buf));
    Ok(0)
}

/// Prints autoeval(1), or writes a page per command into `--out`.
pub fn man(args: ManArgs) -> Result<i32> {
    let mut cmd = super::Cli::command();
    cmd.build();
    let Some(dir) = args.out else {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut buf)?;
        out!("{}", String::from_utf8_lossy(&buf));
        return Ok(0);
    };
    std::fs::create_dir_all(&dir).map_err(|e| anyhow!("{}: cannot create: {e}", dir.display()))?;
    let mut pages = Vec::new();
    collect(&cmd, "autoeval", &mut pages);
    for (name, page) in &pages {
        let path = dir.join(format!("{name}.1"));
        let mut buf = Vec::new();
        clap_mangen::Man::new(page.clone()).render(&mut buf)?;
        // Never replaces a device, FIFO or symbolic link of that name (`fswrite`).
        let tmp = dir.join(format!(".{name}.1.partial"));
        crate::base::fswrite::write(&path, &tmp, &buf)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    eprintln!("{} manual pages → {}", pages.len(), dir.display());
    Ok(0)
}

/// Every visible command with its page name (`autoeval-labels-stats`), depth first.
fn collect(c: &clap::Command, name: &str, out: &mut Vec<(String, clap::Command)>) {
    out.push((name.to_string(), c.clone()));
    for sub in c.get_subcommands() {
        if !sub.is_hide_set() && sub.get_name() != "help" {
            collect(sub, &format!("{name}-{}", sub.get_name()), out);
        }
    }
}
