//! `autoeval export`: runs in formats other tools open.

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// Arguments of `autoeval export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Run directories, or folders holding run directories.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: OpenFormat,
    /// Directory to write into (created if missing): one file per run.
    #[arg(long)]
    pub out: PathBuf,
    /// Leave failure kinds not yet proved out (they are proved once per run and kept
    /// in its kinds cache; a first report of a large first-order run waits for them).
    #[arg(long)]
    pub no_kinds: bool,
}

/// Formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OpenFormat {
    /// Inspect `.eval` logs (zip, any size), for `inspect view`, its VS Code extension and `read_eval_log`.
    Inspect,
    /// Inspect eval logs as one JSON file (small runs: Inspect's viewer lists no samples past 100 MB).
    InspectJson,
    /// One flat JSON object per sample under a fixed schema, with a dataset card (README.md), for DuckDB, pandas, HF datasets.
    JsonlFlat,
    /// The flat rows as Parquet (typed columns), for DuckDB, pyarrow, pandas, HF datasets.
    Parquet,
}

/// A run id as a file name.
fn safe_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Writes the dataset card beside flat exports, unless a README.md that is not one of
/// ours is there already.
fn write_card(out: &std::path::Path, data_files: &str) -> Result<()> {
    let path = out.join("README.md");
    if let Ok(old) = std::fs::read_to_string(&path)
        && !old.contains(crate::report::open::flat::CARD_MARK)
    {
        eprintln!(
            "warning: {} exists and is not an autoeval dataset card: left as it is (HF datasets will infer types)",
            crate::sanitize::one_line(&path.display().to_string())
        );
        return Ok(());
    }
    crate::fswrite::save(
        &path,
        crate::report::open::flat::dataset_card(data_files).as_bytes(),
    )
    .map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// Says when a run has no current row index: one is built now (its first read), and
/// where it goes (beside the run, or the cache directory for a folder that cannot be
/// written).
fn say_index(dir: &std::path::Path) {
    if crate::run::index::current(dir).is_some() {
        return;
    }
    let shown =
        |p: &std::path::Path| crate::sanitize::one_line(&p.display().to_string()).into_owned();
    eprintln!("indexing {} (first read of this run)…", shown(dir));
    match crate::run::index::build(dir) {
        Some(p) => eprintln!("row index written to {}", shown(&p)),
        None => eprintln!(
            "the row index could not be written (the folder is read-only and no cache directory is usable): read without one"
        ),
    }
}

/// Runs `autoeval export`.
pub fn run(args: ExportArgs) -> Result<i32> {
    crate::run::kinds_cache::set_policy(
        !args.no_kinds,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let dirs = super::report::expand_runs(&args.runs)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| anyhow!("{}: cannot create: {e}", args.out.display()))?;
    // Two runs may share an id (the same folder name under two parents): each still
    // gets a file of its own.
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for dir in dirs {
        let m = crate::run::store::read_manifest(&dir).map_err(|e| anyhow!("{e}"))?;
        let name = match args.format {
            OpenFormat::Inspect => crate::report::open::inspect::file_name(&m, "eval"),
            OpenFormat::InspectJson => crate::report::open::inspect::file_name(&m, "json"),
            OpenFormat::JsonlFlat => format!("{}.jsonl", safe_name(&m.id)),
            OpenFormat::Parquet => format!("{}.parquet", safe_name(&m.id)),
        };
        let name = unique_name(&name, &dir, &mut taken);
        say_index(&dir);
        let path = args.out.join(&name);
        // Written beside the target and renamed: an interrupted export leaves no half file.
        // A device or FIFO of that name is written in place, never replaced.
        let tmp = args.out.join(format!(".{name}.partial"));
        let file = crate::fswrite::Output::create(&path, tmp)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let result = match args.format {
            OpenFormat::Inspect => {
                let scratch = args.out.join(format!(".{name}.summaries.partial"));
                crate::report::open::inspect_eval::write_eval(&dir, &mut w, &scratch)
            }
            OpenFormat::InspectJson => crate::report::open::inspect::write_json(&dir, &mut w),
            OpenFormat::JsonlFlat => crate::report::open::flat::write(&dir, &mut w),
            OpenFormat::Parquet => crate::report::open::parquet_out::write(&dir, &mut w),
        };
        let (n, warnings) = match result.and_then(|r| {
            w.flush()?;
            Ok(r)
        }) {
            Ok(r) => r,
            Err(e) => {
                w.into_parts().0.discard();
                return Err(anyhow!("{}: {e}", dir.display()));
            }
        };
        w.into_inner()
            .map_err(std::io::IntoInnerError::into_error)
            .and_then(crate::fswrite::Output::commit)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        for w in warnings.iter().take(5) {
            eprintln!("warning: {}", crate::sanitize::one_line(w));
        }
        eprintln!(
            "{}: {n} samples → {}",
            crate::sanitize::one_line(&m.id),
            crate::sanitize::one_line(&path.display().to_string())
        );
    }
    match args.format {
        OpenFormat::JsonlFlat => write_card(&args.out, "*.jsonl")?,
        OpenFormat::Parquet => write_card(&args.out, "*.parquet")?,
        OpenFormat::Inspect | OpenFormat::InspectJson => {}
    }
    Ok(0)
}

/// `name`, or when an earlier run of this export took it, `name` with the run's parent
/// folder (then a number) put before its extension.
fn unique_name(
    name: &str,
    dir: &std::path::Path,
    taken: &mut std::collections::HashSet<String>,
) -> String {
    let (stem, ext) = name
        .rfind('.')
        .map_or((name, ""), |i| (&name[..i], &name[i..]));
    let parent: String = dir
        .parent()
        .and_then(std::path::Path::file_name)
        .map(|p| p.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    let candidates = std::iter::once(name.to_string())
        .chain(std::iter::once(format!("{stem}-{parent}{ext}")))
        .chain((2..).map(|k| format!("{stem}-{parent}-{k}{ext}")));
    for c in candidates {
        if taken.insert(c.clone()) {
            return c;
        }
    }
    name.to_string()
}
