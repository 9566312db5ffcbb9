//! From run arguments to a [`RunSpec`]: the one path `autoeval run` and the viewer's
//! form share.

use super::LaunchError;
use super::args::RunArgs;
use crate::dataset::Dataset;
use crate::grammar::{DatasetKind, GenParams};
use crate::llm::Client;
use crate::llm::budget::Budget;
use crate::llm::cache::{self, ResponseCache};
use crate::prompt::PromptSet;
use crate::run::driver::{RunSpec, dataset_info};
use crate::run::pipeline::Pipeline;
use crate::verify;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The run's dataset, its kind name and its path: the file given, or for `--kind` the
/// one generated into the run directory (reused on `--resume`).
fn load_dataset(args: &RunArgs) -> Result<(Dataset, String, PathBuf), LaunchError> {
    if let Some(path) = &args.dataset {
        let ds = Dataset::open(path).map_err(LaunchError::other)?;
        let kind = ds.kind_name();
        return Ok((ds, kind, path.clone()));
    }
    let kind = args
        .kind
        .ok_or_else(|| LaunchError::other("give --dataset FILE or --kind"))?;
    let path = args.out.join("dataset.json");
    if args.resume && path.exists() {
        let ds = Dataset::open(&path).map_err(LaunchError::other)?;
        return Ok((ds, kind.name().to_string(), path));
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| LaunchError::context(format!("cannot create {}", args.out.display()), e))?;
    generate_kind(args, kind, &path)?;
    let ds = Dataset::open(&path).map_err(LaunchError::other)?;
    Ok((ds, kind.name().to_string(), path))
}

/// Writes the dataset that `--kind`, `--seed`, `--per-category` and `--batches` ask for
/// to `path` (a run's `dataset.json`, or a dry run's scratch file).
pub(crate) fn generate_kind(
    args: &RunArgs,
    kind: DatasetKind,
    path: &Path,
) -> Result<(), LaunchError> {
    let params = GenParams {
        per_category: args.per_category,
        vocab: kind.vocab(),
        ..GenParams::default()
    };
    super::generate::generate_to_file(
        &kind.grammar().map_err(LaunchError::other)?,
        &params,
        args.seed,
        args.batches,
        path,
        kind.name(),
        Some(kind),
        &ProgressBar::hidden(),
    )?;
    Ok(())
}

/// A reference task's samples as the run's dataset, its data's path, and the samples
/// themselves (`--task`); warnings about the data go to standard error.
pub(crate) fn load_task(
    args: &RunArgs,
    t: crate::dataset::task_kind::TaskKind,
) -> Result<(Dataset, PathBuf, Arc<crate::run::task::TaskSet>), LaunchError> {
    if args.rounds != 1 {
        return Err(LaunchError::other(
            "--rounds is for datasets: a reference task's sample is one call (drop --rounds)",
        ));
    }
    // Said plainly rather than loading a model that scores nothing: only folio-i's
    // texts are scored by BERTScore-MiniLM.
    let by_text = match t.scoring() {
        crate::analysis::counts::TaskScoring::Text => true,
        crate::analysis::counts::TaskScoring::Answer
        | crate::analysis::counts::TaskScoring::Formula => false,
    };
    if !by_text && args.bertscore_model.is_some() {
        return Err(LaunchError::other(format!(
            "--bertscore-model: {} is scored by its answers, not by text metrics; BERTScore-MiniLM \
             scores folio-i's texts and dataset runs' closeness records (drop --bertscore-model)",
            t.name()
        )));
    }
    let source = args
        .task_data
        .clone()
        .unwrap_or_else(|| t.default_source(&crate::run::task::data_root()));
    let loaded = crate::run::task::load(t, &source, args.shots).map_err(|e| {
        LaunchError::other(format!("{e}; give the task's data with --task-data PATH"))
    })?;
    for w in loaded.warnings.iter().take(5) {
        eprintln!("warning: {}", crate::base::sanitize::one_line(w));
    }
    if loaded.warnings.len() > 5 {
        eprintln!("warning: … and {} more", loaded.warnings.len() - 5);
    }
    Ok((loaded.dataset, source, Arc::new(loaded.set)))
}

/// How a run is steered from outside: a pause switch shared with the viewer. A run
/// with one pauses itself when the server is gone (the viewer's choice); without one it
/// stops as `cancelled` (the CLI's).
pub type PauseSwitch = tokio::sync::watch::Sender<bool>;

/// Builds the run from its arguments: the one path from settings to a [`RunSpec`], used
/// by `autoeval run` and by the viewer's form (which fills in the same arguments).
/// `command` is recorded in the manifest as the re-runnable command line.
pub fn build_spec(
    args: &RunArgs,
    command: Vec<String>,
    pause: Option<&PauseSwitch>,
) -> Result<RunSpec, LaunchError> {
    if args.rounds == 0 {
        return Err(LaunchError::other("--rounds must be at least 1"));
    }
    let prompts = match &args.prompts {
        Some(dir) => PromptSet::load(dir, args.shots),
        None => PromptSet::builtin(args.shots),
    }
    .map_err(LaunchError::other)?;
    let client = equip(args, args.model.client()?)?;
    if args.out.join("run.json").exists() && !args.resume {
        return Err(LaunchError::other(format!(
            "{} already holds a run: add --resume to continue it, or choose another --out",
            args.out.display()
        )));
    }
    let (mut ds, kind, path, task) = if let Some(t) = args.task {
        let (ds, source, set) = load_task(args, t)?;
        (ds, t.name().to_string(), source, Some(set))
    } else {
        let (ds, kind, path) = load_dataset(args)?;
        (ds, kind, path, None)
    };
    // The manifest describes the whole dataset (runs pair by it); the run does the pick.
    let mut info = dataset_info(&ds, &kind, Some(&path));
    // The shipped task data is named by its place in the project, not this machine's
    // directories (resume compares it by content, or by this name for a folder).
    if task.is_some()
        && let Ok(rel) = path.strip_prefix(crate::run::task::data_root())
    {
        info.path = Some(format!("data/{}", rel.display()));
    }
    let limit_note = crate::dataset::limit::apply(&mut ds, args.limit, args.seed).map(|n| n.line());
    let extra = adaptive(args, task.is_some())?;
    let bertscore = args
        .bertscore_model
        .as_deref()
        .map(crate::run::bertscore::Bertscore::load)
        .transpose()
        .map_err(LaunchError::other)?;
    let pipeline = Arc::new(Pipeline {
        client: Arc::new(client),
        prompts: Arc::new(prompts),
        syntax: ds.syntax,
        rounds: args.rounds,
        verify: verify::Options {
            timeout: Duration::from_millis(args.verify_timeout.max(1)),
            ..verify::Options::default()
        },
        reading: args.reading,
        bertscore,
        task,
    });
    Ok(RunSpec {
        out: args.out.clone(),
        dataset_info: info,
        dataset: ds,
        pipeline,
        concurrency: args.model.concurrency,
        resume: args.resume,
        command,
        limit: args.limit,
        limit_note,
        pause: pause.map(PauseSwitch::subscribe),
        pause_switch: pause.cloned(),
        force: args.force,
        force_experiment: args.force_experiment,
        retry_errors: args.retry_errors,
        retry_truncated: args.retry_truncated,
        max_consecutive_failures: args.max_consecutive_failures,
        extra,
    })
}

/// The manifest's extra fields: the adaptive design (`--adaptive`), if any; `task` when
/// the run is a reference task's.
fn adaptive(
    args: &RunArgs,
    task: bool,
) -> Result<serde_json::Map<String, serde_json::Value>, LaunchError> {
    let mut extra = serde_json::Map::new();
    if args.adaptive {
        let d = crate::run::adaptive::Design::new(
            args.budget.unwrap_or(0),
            args.level
                .unwrap_or(crate::analysis::breaking::DEFAULT_LEVEL),
            args.target_width,
            args.seed,
        )
        .map_err(LaunchError::other)?;
        // A generated dataset may be extended with harder items; a given file may not.
        let d = match (args.kind, &args.dataset, task) {
            (Some(k), None, false) => d.with_generator(k, args.seed, args.per_category),
            _ => d,
        };
        extra.insert(crate::record::ADAPTIVE_KEY.into(), d.to_value());
    }
    Ok(extra)
}

/// Adds the response cache and the budget to a run's client. A cache that cannot be
/// opened becomes a warning the run shows; a budget on an unpriced model is refused.
pub fn equip(args: &RunArgs, mut client: Client) -> Result<Client, LaunchError> {
    let s = &args.scale;
    if let Some(limit) = s.max_cost {
        if !limit.is_finite() || limit <= 0.0 {
            return Err(LaunchError::other(format!(
                "--max-cost must be a positive number of USD, not {limit}"
            )));
        }
        let info = client.info();
        if !info.synthetic && client.prices().get(&info.name).is_none() {
            return Err(LaunchError::other(format!(
                "--max-cost needs the price of {}: it is not in the price table; add it with --prices FILE",
                info.name
            )));
        }
        client = client.with_budget(Arc::new(Budget::new(limit, 0.0)));
    }
    // Every billed call goes to the run's spend ledger (created by its first line).
    if !client.info().synthetic {
        client = client.with_ledger(Arc::new(crate::llm::ledger::Ledger::new(&args.out)));
    }
    if args.resume && !s.batch() {
        let open =
            crate::run::batch::state::State::load(&args.out, false).map_or(0, |st| st.open.len());
        if open > 0 {
            client.warn(format!(
                "{open} provider batch(es) of this run are still open; this live resume asks their \
                 samples again (add --batch-api to collect them instead)"
            ));
        }
    }
    if s.cache_on(client.params().deterministic()) && !client.info().synthetic {
        // A dry run writes nothing: it reads a cache that exists, never creates one.
        let dir = cache::default_dir();
        let exists = dir.as_deref().is_some_and(|d| d.join(cache::FILE).exists());
        if !s.dry_run || exists {
            match ResponseCache::open_or_warn(dir.as_deref()) {
                Ok(c) => {
                    c.cap_replies(client.limits().max_reply_bytes);
                    client = client.with_cache(Arc::new(c));
                }
                Err(w) => client.warn(w),
            }
        }
    }
    Ok(client)
}
