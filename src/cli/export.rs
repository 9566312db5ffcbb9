//! `autoeval export`: runs in formats other tools open.

use crate::report::open::Pick;
use crate::report::open::inspect::Part;
use crate::report::open::inspect_eval::Log;
use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Samples per `.eval` log by default: each log's `summaries.json` (what Inspect's
/// viewer loads whole into the browser, about 1.1 KB a sample) stays near 55 MB, a tenth
/// of the ~512 MB a browser's JavaScript string can hold (a million samples in one log,
/// 1.1 GB, crashed the viewer's page).
pub const SAMPLES_PER_LOG: u64 = 50_000;

/// Arguments of `autoeval export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Run directories, or folders holding run directories.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: OpenFormat,
    /// Directory to write into (created if missing): Inspect logs in it; flat rows in its
    /// data/ folder (one file per run) with the dataset card README.md beside data/.
    #[arg(long)]
    pub out: PathBuf,
    /// Leave failure kinds not yet proved out (they are proved once per run and kept
    /// in its kinds cache; a first report of a large first-order run waits for them).
    #[arg(long)]
    pub no_kinds: bool,
    /// With --format inspect: at most N samples per `.eval` log; a larger run (and a run
    /// whose dataset has batches, one log per batch) becomes several logs of one eval set.
    #[arg(long, value_name = "N", default_value_t = SAMPLES_PER_LOG,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub samples_per_log: u64,
    /// No progress bar (it is drawn only when stderr is a terminal).
    #[arg(long)]
    pub quiet: bool,
    /// What was written as one JSON object on stdout (`out`, `format`, `samples`,
    /// `runs` with each run's `files`, `card`, `eval_set`, `empty`); `--format` here
    /// names the file format, so only `--json` says it.
    #[arg(long)]
    pub json: bool,
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

/// Writes the dataset card at the root of a flat export, unless a README.md that is
/// not one of ours is there already; whether it was written.
fn write_card(out: &Path, data_files: &str, parquet: bool) -> Result<bool> {
    let path = out.join("README.md");
    if let Ok(old) = std::fs::read_to_string(&path)
        && !old.contains(crate::report::open::flat::CARD_MARK)
    {
        eprintln!(
            "warning: {} exists and is not an autoeval dataset card: left as it is (HF datasets will infer types)",
            crate::base::sanitize::one_line(&path.display().to_string())
        );
        return Ok(false);
    }
    crate::base::fswrite::save(
        &path,
        crate::report::open::flat::dataset_card(data_files, parquet).as_bytes(),
    )
    .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(true)
}

/// Says when a run has no current row index: one is built now (its first read), and
/// where it goes (beside the run, or the cache directory for a folder that cannot be
/// written).
fn say_index(dir: &std::path::Path) {
    if crate::run::index::current(dir).is_some() {
        return;
    }
    let shown = |p: &std::path::Path| {
        crate::base::sanitize::one_line(&p.display().to_string()).into_owned()
    };
    eprintln!("indexing {} (first read of this run)…", shown(dir));
    match crate::run::index::build(dir) {
        Some(p) => eprintln!("row index written to {}", shown(&p)),
        None => eprintln!(
            "the row index could not be written (the folder is read-only and no cache directory is usable): read without one"
        ),
    }
}

/// Writes `dir/name` through a temporary file renamed at the end (an interrupted export
/// leaves no half file; a device or FIFO of that name is written in place, never
/// replaced). A write that kept no sample is discarded. Returns the samples written.
fn write_one(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut BufWriter<crate::base::fswrite::Output>) -> Result<(usize, Vec<String>)>,
) -> Result<(usize, Vec<String>)> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.partial"));
    let file = crate::base::fswrite::Output::create(&path, tmp)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let (n, warnings) = match write(&mut w).and_then(|r| {
        w.flush()?;
        Ok(r)
    }) {
        Ok(r) => r,
        Err(e) => {
            w.into_parts().0.discard();
            return Err(e);
        }
    };
    let file = w
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if n == 0 {
        file.discard();
    } else {
        file.commit()
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    Ok((n, warnings))
}

/// A run's samples as logs: one per dataset batch when it has several, each cut into
/// pieces of at most `per` samples; one (empty) part for a run with no sample.
fn split(picks: &[Pick], per: usize) -> Vec<(Part, Vec<Pick>)> {
    let mut batches: std::collections::BTreeMap<u16, Vec<Pick>> = Default::default();
    for p in picks {
        batches.entry(p.batch).or_default().push(*p);
    }
    let several = batches.len() > 1;
    let mut out: Vec<(Part, Vec<Pick>)> = Vec::new();
    for (b, list) in batches {
        for chunk in list.chunks(per.max(1)) {
            let part = Part {
                batch: several.then_some(b),
                ..Part::default()
            };
            out.push((part, chunk.to_vec()));
        }
    }
    if out.is_empty() {
        out.push((Part::default(), Vec::new()));
    }
    let count = out.len();
    for (i, (p, _)) in out.iter_mut().enumerate() {
        p.index = i;
        p.count = count;
    }
    out
}

/// Runs `autoeval export`: exit 0, or 1 when a run kept no sample (its file is not
/// written; the other runs are).
pub fn run(args: ExportArgs) -> Result<i32> {
    crate::run::kinds_cache::set_policy(
        !args.no_kinds,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let dirs = super::report::expand_runs(&args.runs)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| anyhow!("{}: cannot create: {e}", args.out.display()))?;
    // Flat rows go under data/ with the card at the root, as on the Hugging Face Hub:
    // `pd.read_parquet(out/data)` then reads only data files.
    let flat = matches!(args.format, OpenFormat::JsonlFlat | OpenFormat::Parquet);
    let target = if flat {
        args.out.join("data")
    } else {
        args.out.clone()
    };
    std::fs::create_dir_all(&target)
        .map_err(|e| anyhow!("{}: cannot create: {e}", target.display()))?;
    // Every log of one export is one eval set (Inspect lists a log folder's set
    // together): its id comes from the runs exported.
    let set = crate::report::open::inspect_sample::hash(
        &dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .max(1);
    let mut ex = Exporter {
        args: &args,
        target,
        taken: std::collections::HashSet::new(),
        set,
        set_tasks: Vec::new(),
        report: Vec::new(),
        empty: Vec::new(),
    };
    for dir in dirs {
        ex.export_run(dir)?;
    }
    let Exporter {
        set_tasks,
        report,
        empty,
        ..
    } = ex;
    let (card, eval_set) = write_extras(&args, set, set_tasks)?;
    if args.json {
        let samples: u64 = report.iter().filter_map(|r| r["samples"].as_u64()).sum();
        let mut v = serde_json::json!({
            "out": args.out.display().to_string(),
            "format": args.format.to_possible_value().map(|p| p.get_name().to_string()),
            "samples": samples,
            "runs": report,
            "card": card.map(|p| p.display().to_string()),
            "eval_set": eval_set.map(|p| p.display().to_string()),
            "empty": empty,
        });
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
    }
    if empty.is_empty() {
        Ok(0)
    } else {
        eprintln!(
            "error: {} run(s) kept no sample: {}",
            empty.len(),
            empty.join(", ")
        );
        Ok(1)
    }
}

/// One export across its runs: where files go and what it has written so far.
struct Exporter<'a> {
    /// The command's arguments.
    args: &'a ExportArgs,
    /// The folder the data files go to (`out/data` for flat rows).
    target: PathBuf,
    /// File names taken: two runs may share an id (the same folder name under two
    /// parents), each still gets a file of its own.
    taken: std::collections::HashSet<String>,
    /// The eval set id shared by every Inspect log of this export.
    set: u64,
    /// The eval set's tasks, one per Inspect log written.
    set_tasks: Vec<serde_json::Value>,
    /// Per run, what was written (the `--json` summary's `runs`).
    report: Vec<serde_json::Value>,
    /// Runs that kept no sample.
    empty: Vec<String>,
}

impl Exporter<'_> {
    /// Exports one run and records what was written.
    fn export_run(&mut self, dir: PathBuf) -> Result<()> {
        let quiet = self.args.quiet;
        let m = crate::run::store::read_manifest(&dir).map_err(|e| anyhow!("{e}"))?;
        if !quiet {
            say_index(&dir);
        }
        let (picks, mut warnings) =
            crate::report::open::picks(&dir, true, |_| true).map_err(|e| anyhow!("{e}"))?;
        let id = crate::base::sanitize::one_line(&m.id).into_owned();
        let bar = super::output::bar(picks.len() as u64, &id, quiet);
        let written = self.write_files(&dir, &m, &picks, &bar, &mut warnings)?;
        bar.finish_and_clear();
        for w in warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
        let target = &self.target;
        let total: usize = written.iter().map(|(n, _)| n).sum();
        self.report.push(serde_json::json!({
            "run": dir.display().to_string(),
            "id": id,
            "samples": total,
            "skipped": warnings.len(),
            "files": written.iter().filter(|(n, _)| *n > 0).map(|(n, name)| serde_json::json!({
                "path": target.join(name).display().to_string(),
                "samples": n,
            })).collect::<Vec<_>>(),
        }));
        if total == 0 {
            eprintln!(
                "{id}: no sample kept ({} line(s) skipped): nothing written",
                warnings.len()
            );
            self.empty.push(id);
            return Ok(());
        }
        if !quiet {
            for (n, name) in &written {
                eprintln!(
                    "{id}: {n} samples → {}",
                    crate::base::sanitize::one_line(&target.join(name).display().to_string())
                );
            }
        }
        Ok(())
    }

    /// Writes one run's file(s) in the format asked for: (samples, file name) each.
    fn write_files(
        &mut self,
        dir: &Path,
        m: &crate::record::Manifest,
        picks: &[Pick],
        bar: &indicatif::ProgressBar,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<(usize, String)>> {
        let target = &self.target;
        let fail = |e: anyhow::Error| anyhow!("{}: {e:#}", dir.display());
        let mut written: Vec<(usize, String)> = Vec::new();
        match self.args.format {
            OpenFormat::Inspect => {
                let per = usize::try_from(self.args.samples_per_log).unwrap_or(usize::MAX);
                for (mut part, list) in split(picks, per) {
                    part.set = self.set;
                    let name = crate::report::open::inspect::part_file_name(m, part, "eval");
                    let name = unique_name(&name, dir, &mut self.taken);
                    let scratch = target.join(format!(".{name}.summaries.partial"));
                    let log = Log {
                        picks: &list,
                        part,
                        bar,
                    };
                    let (n, w) = write_one(target, &name, |w| {
                        Ok(crate::report::open::inspect_eval::write_eval(
                            dir, &log, w, &scratch,
                        )?)
                    })
                    .map_err(fail)?;
                    warnings.extend(w);
                    if n > 0 {
                        let k = self.set_tasks.len();
                        self.set_tasks
                            .push(crate::report::open::inspect::eval_set_task(m, part, k));
                    }
                    written.push((n, name));
                }
            }
            OpenFormat::InspectJson => {
                let name = crate::report::open::inspect::file_name(m, "json");
                let name = unique_name(&name, dir, &mut self.taken);
                let (n, w) = write_one(target, &name, |w| {
                    Ok(crate::report::open::inspect::write_json(dir, w)?)
                })
                .map_err(fail)?;
                bar.inc(n as u64);
                warnings.extend(w);
                written.push((n, name));
            }
            OpenFormat::JsonlFlat | OpenFormat::Parquet => {
                let parquet = self.args.format == OpenFormat::Parquet;
                let ext = if parquet { "parquet" } else { "jsonl" };
                let name =
                    unique_name(&format!("{}.{ext}", safe_name(&m.id)), dir, &mut self.taken);
                let (n, w) = write_one(target, &name, |w| {
                    Ok(if parquet {
                        crate::report::open::parquet_out::write(dir, picks, w, bar)?
                    } else {
                        crate::report::open::flat::write(dir, picks, w, bar)?
                    })
                })
                .map_err(fail)?;
                warnings.extend(w);
                written.push((n, name));
            }
        }
        Ok(written)
    }
}

/// The files beside the data: the dataset card (flat rows) or `eval-set.json` (Inspect
/// logs). Returns their paths when written.
fn write_extras(
    args: &ExportArgs,
    set: u64,
    set_tasks: Vec<serde_json::Value>,
) -> Result<(Option<PathBuf>, Option<PathBuf>)> {
    let mut card = None;
    let mut eval_set = None;
    match args.format {
        OpenFormat::JsonlFlat => {
            card =
                write_card(&args.out, "data/*.jsonl", false)?.then(|| args.out.join("README.md"));
        }
        OpenFormat::Parquet => {
            card =
                write_card(&args.out, "data/*.parquet", true)?.then(|| args.out.join("README.md"));
        }
        OpenFormat::Inspect if !set_tasks.is_empty() => {
            let path = args.out.join("eval-set.json");
            eval_set = Some(path.clone());
            let body = crate::report::open::inspect::eval_set(set, set_tasks);
            crate::base::fswrite::write(
                &path,
                &args.out.join(".eval-set.json.partial"),
                &serde_json::to_vec_pretty(&body)?,
            )
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        }
        OpenFormat::Inspect | OpenFormat::InspectJson => {}
    }
    Ok((card, eval_set))
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
