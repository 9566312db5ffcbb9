//! `autoeval compare --delta A B`: A's A2 and A3 minus B's per category, with intervals.

use crate::report::delta::{Outcomes, delta, plot, render};
use crate::report::report_dir;
use crate::report::{By, Counts};
use anyhow::{Result, bail};

/// Runs `compare --delta`.
/// What `compare --delta` reads of `compare`'s arguments (kept apart so the two files
/// do not import each other).
pub(crate) struct DeltaArgs<'a> {
    /// The two run directories.
    pub runs: &'a [std::path::PathBuf],
    /// `--rows` was given (refused with --delta).
    pub rows: Option<&'a std::path::Path>,
    /// Category field.
    pub by: Option<crate::report::By>,
    /// `--plot FILE`.
    pub plot: Option<&'a std::path::Path>,
    /// `--json`.
    pub json: bool,
}

pub(crate) fn run(args: &DeltaArgs) -> Result<i32> {
    if args.rows.is_some() {
        bail!("--rows writes the pass/fail matrix; it does not go with --delta");
    }
    let dirs = super::report::expand_runs(args.runs)?;
    if dirs.len() != 2 {
        bail!(
            "--delta takes exactly two runs, A then B (it shows A − B); found {}",
            dirs.len()
        );
    }
    let mut reports = Vec::new();
    let mut keys = Vec::new();
    let mut outcomes = Vec::new();
    for d in &dirs {
        let m = crate::run::store::read_manifest(d).map_err(|e| anyhow::anyhow!("{e}"))?;
        keys.push(m.dataset.key());
        let by = args.by.unwrap_or_else(|| By::default_for(&m.dataset.kind));
        outcomes.push(outcomes_of(d, by, crate::run::task::scoring_of(&m)));
        let (r, warnings) = report_dir(d, args.by).map_err(|e| anyhow::anyhow!("{e}"))?;
        for w in warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
        reports.push(r);
    }
    if keys[0] != keys[1] {
        bail!(
            "--delta compares two runs of the same dataset; {} and {} answered different ones (kind, seed, parameters or size differ)",
            dirs[0].display(),
            dirs[1].display()
        );
    }
    let d = delta(&reports[0], &reports[1], &outcomes[0], &outcomes[1])?;
    if let Some(p) = args.plot {
        plot(&d, p)?;
        eprintln!("wrote {}", p.display());
    }
    if args.json {
        let mut v = serde_json::to_value(&d)?;
        crate::base::sanitize::json_for_terminal(&mut v);
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!("{}", crate::base::sanitize::for_terminal(&render(&d)));
    }
    Ok(0)
}

/// Each sample of a run (the newest line per id) as the run counts it, with its category
/// under `by`, from the run's row index.
fn outcomes_of(
    dir: &std::path::Path,
    by: By,
    task: Option<crate::analysis::counts::TaskScoring>,
) -> Outcomes {
    let scan = crate::run::index::load_or_build(dir, false);
    let mut out = Outcomes::new();
    for i in crate::run::rows::latest_per_id(&scan.rows) {
        let r = &scan.rows[i];
        let mut c = Counts::default();
        c.add_scored(r.verdict, task);
        // A task sample whose call failed is not counted by its run: not paired either.
        if c.n == 0 {
            continue;
        }
        let cat = match by {
            By::Operators => r.ops,
            By::Depth => r.depth,
        };
        out.insert(r.id.to_string(), (cat.map(usize::from), c));
    }
    out
}
