//! `autoeval cache stats|prune`: the response cache shared by runs.

use crate::llm::cache::{self, ResponseCache};
use anyhow::{Result, anyhow};
use clap::{Args, Subcommand};
use std::path::Path;
use std::time::Duration;

/// Arguments of `autoeval cache`.
#[derive(Args, Debug)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
}

/// `cache` subcommands.
#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// Where the cache is, how many answers it holds, for which models, and its size.
    Stats {
        /// `--format json` (or `--json`): one JSON object instead of text.
        #[command(flatten)]
        output: super::output::FormatArg,
    },
    /// Remove answers: unused for some days, beyond a count (least recently used first), or all.
    Prune {
        /// Remove answers not used for this many days.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
        /// Keep at most this many answers (the most recently used).
        #[arg(long, value_name = "N")]
        max_entries: Option<u64>,
        /// Delete the whole cache (also a corrupt one).
        #[arg(long, conflicts_with_all = ["older_than", "max_entries"])]
        all: bool,
        /// `--format json` (or `--json`): what was removed as one JSON object (`path`,
        /// `all`, `removed`, `left`, `freed_bytes`).
        #[command(flatten)]
        output: super::output::FormatArg,
    },
}

fn when(secs: Option<i64>) -> String {
    secs.map_or_else(|| "-".into(), |s| crate::record::rfc3339(s.max(0) as u64))
}

/// `v` pretty-printed on stdout, made safe for a terminal (paths can hold anything).
fn print_json(v: &serde_json::Value) -> Result<()> {
    let mut v = v.clone();
    crate::base::sanitize::json_for_terminal(&mut v);
    outln!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

/// Runs `autoeval cache`.
pub fn run(args: CacheArgs) -> Result<i32> {
    let dir = cache::default_dir()
        .ok_or_else(|| anyhow!("no cache directory: set ${} or HOME", cache::DIR_ENV))?;
    match args.action {
        CacheAction::Prune {
            all: true, output, ..
        } => prune_all(&dir, output.is_json())?,
        CacheAction::Prune {
            older_than,
            max_entries,
            output,
            ..
        } => prune(&dir, older_than, max_entries, output.is_json())?,
        CacheAction::Stats { output } => stats(&dir, output.is_json())?,
    }
    Ok(0)
}

/// `cache prune --all`: emptied through SQLite when it opens, so a run using it keeps
/// what it stores next; a database that does not open (corrupt) is removed.
fn prune_all(dir: &Path, json: bool) -> Result<()> {
    let mut removed = None;
    let freed = match ResponseCache::open(dir) {
        Ok(c) => {
            removed = c.stats().ok().map(|s| s.entries);
            c.clear()
                .map_err(|e| anyhow!("emptying {}: {e}", c.path().display()))?
        }
        Err(cache::CacheError::NotRegular(p, what)) => {
            return Err(anyhow!("{p} is {what}; remove it yourself"));
        }
        Err(_) => cache::remove_all(dir)
            .map_err(|e| anyhow!("cannot remove the cache in {}: {e}", dir.display()))?,
    };
    if json {
        return print_json(&serde_json::json!({
            "path": dir.display().to_string(),
            "all": true,
            "removed": removed,
            "left": 0,
            "freed_bytes": freed,
        }));
    }
    outln!(
        "removed the response cache in {} ({freed} bytes)",
        dir.display()
    );
    Ok(())
}

/// `cache prune --older-than DAYS --max-entries N`.
fn prune(dir: &Path, older_than: Option<u64>, max_entries: Option<u64>, json: bool) -> Result<()> {
    if older_than.is_none() && max_entries.is_none() {
        return Err(anyhow!(
            "say what to prune: --older-than DAYS, --max-entries N, or --all"
        ));
    }
    let c = ResponseCache::open(dir)?;
    let age = older_than.map(|d| Duration::from_secs(d.saturating_mul(86_400)));
    let removed = c
        .prune(age, max_entries)
        .map_err(|e| anyhow!("pruning {}: {e}", c.path().display()))?;
    let left = c.stats().map_or(0, |s| s.entries);
    if json {
        return print_json(&serde_json::json!({
            "path": c.path().display().to_string(),
            "all": false,
            "removed": removed,
            "left": left,
            "freed_bytes": null,
        }));
    }
    outln!(
        "removed {removed} answers; {left} left in {}",
        c.path().display()
    );
    Ok(())
}

/// `cache stats`.
fn stats(dir: &Path, json: bool) -> Result<()> {
    let c = ResponseCache::open(dir)?;
    let s = c
        .stats()
        .map_err(|e| anyhow!("reading {}: {e}", c.path().display()))?;
    if json {
        let by_model: serde_json::Map<String, serde_json::Value> = s
            .by_model
            .iter()
            .map(|(m, n)| (m.clone(), serde_json::Value::from(*n)))
            .collect();
        let v = serde_json::json!({
            "path": c.path().display().to_string(),
            "answers": s.entries,
            "bytes": s.bytes,
            "oldest": s.oldest.map(|t| crate::record::rfc3339(t.max(0) as u64)),
            "newest": s.newest.map(|t| crate::record::rfc3339(t.max(0) as u64)),
            "by_model": by_model,
        });
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    outln!("cache: {}", c.path().display());
    outln!("answers: {}", s.entries);
    outln!(
        "size: {:.1} MiB ({} bytes)",
        s.bytes as f64 / 1048576.0,
        s.bytes
    );
    outln!("oldest: {}  newest: {}", when(s.oldest), when(s.newest));
    for (model, n) in &s.by_model {
        outln!("  {}: {n}", crate::base::sanitize::one_line(model));
    }
    Ok(())
}
