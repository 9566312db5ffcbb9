//! `autoeval compare`: the pass/fail matrix of runs that answered the same φ₀.

use crate::report::RunData;
use crate::report::compare::{PairCounts, PassFail, build};
use crate::report::load_run;
use anyhow::{Result, bail};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `autoeval compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Two or more run directories, or folders holding them.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// `--format json` (or `--json`): patterns, pairwise counts and p-values instead of tables.
    #[command(flatten)]
    pub output: super::output::FormatArg,
    /// Also write the matrix, one row per φ₀ and one column per run (pass/fail/empty), as CSV.
    #[arg(long, value_name = "FILE")]
    pub rows: Option<PathBuf>,
    /// With exactly two runs A B of one dataset: per category, A's A2 and A3 minus B's with
    /// 95 % intervals for paired shares (Tango's; Fig. 16: few-shot minus zero-shot).
    #[arg(long)]
    pub delta: bool,
    /// With --delta: the category field (default: operators for logic, depth for regexes).
    #[arg(long, value_enum, requires = "delta")]
    pub by: Option<crate::report::By>,
    /// With --delta: draw the differences to FILE (.svg or .png).
    #[arg(long, value_name = "FILE", requires = "delta")]
    pub plot: Option<PathBuf>,
}

fn write_rows(m: &PassFail<&str>, path: &PathBuf) -> Result<()> {
    let mut w =
        csv::Writer::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut head = vec!["phi0".to_string()];
    head.extend(m.runs.iter().cloned());
    w.write_record(crate::base::sanitize::csv_record(&head))?;
    for (r, k) in m.keys.iter().enumerate() {
        let mut rec = vec![crate::report::compare::key_text(*k)];
        rec.extend((0..m.runs.len()).map(|c| match m.cell(r, c) {
            Some(true) => "pass".to_string(),
            Some(false) => "fail".to_string(),
            None => String::new(),
        }));
        w.write_record(crate::base::sanitize::csv_record(&rec))?;
    }
    w.flush()?;
    Ok(())
}

/// Loads the runs in parallel (parsing is the cost, and each run is independent),
/// printing each one's first warnings.
fn load_all(dirs: &[PathBuf]) -> Result<Vec<RunData>> {
    let loaded: Vec<Result<RunData>> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .iter()
            .map(|d| s.spawn(move || load_run(d).map_err(|e| anyhow::anyhow!("{e}"))))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("loading a run failed")))
            })
            .collect()
    });
    let mut data = Vec::new();
    for r in loaded {
        let r = r?;
        for w in r.warnings.iter().take(5) {
            eprintln!("warning: {}", crate::base::sanitize::one_line(w));
        }
        data.push(r);
    }
    Ok(data)
}

/// Runs grouped by the dataset they answered, in first-seen order: samples pair up by
/// φ₀ text, which only means something within one dataset.
fn by_dataset(data: Vec<RunData>) -> Vec<(String, Vec<RunData>)> {
    let mut groups: Vec<(String, Vec<RunData>)> = Vec::new();
    for r in data {
        let key = r.manifest.dataset.key();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    groups
}

/// Runs `autoeval compare`.
pub fn run(args: CompareArgs) -> Result<i32> {
    if args.delta {
        return super::compare_delta::run(&super::compare_delta::DeltaArgs {
            runs: &args.runs,
            rows: args.rows.as_deref(),
            by: args.by,
            plot: args.plot.as_deref(),
            json: args.output.is_json(),
        });
    }
    let dirs = super::report::expand_runs(&args.runs)?;
    if dirs.len() < 2 {
        bail!("compare needs at least two runs (found {})", dirs.len());
    }
    let groups = by_dataset(load_all(&dirs)?);
    let (groups, alone): (Vec<_>, Vec<_>) = groups.into_iter().partition(|(_, g)| g.len() > 1);
    let left_out: Vec<String> = alone
        .iter()
        .flat_map(|(_, g)| g.iter().map(|r| r.manifest.id.clone()))
        .collect();
    if groups.is_empty() {
        bail!(
            "compare needs at least two runs of the same dataset; these {} runs each answered another one",
            left_out.len()
        );
    }
    if args.rows.is_some() && groups.len() > 1 {
        bail!(
            "--rows writes one matrix, but these runs answered {} datasets: compare each dataset's runs on their own",
            groups.len()
        );
    }
    let mut jsons = Vec::new();
    for (k, (_, g)) in groups.iter().enumerate() {
        if !args.output.is_json() && groups.len() > 1 {
            let d = &g[0].manifest.dataset;
            if k > 0 {
                outln!();
            }
            outln!(
                "dataset {} ({} items, seed {}): {} runs",
                crate::base::sanitize::one_line(&d.kind),
                d.items,
                d.seed.map_or_else(|| "–".to_string(), |s| s.to_string()),
                g.len()
            );
        }
        jsons.push(compare_one(g, &args)?);
    }
    if !left_out.is_empty() {
        let names: Vec<String> = left_out
            .iter()
            .map(|n| crate::base::sanitize::one_line(n).into_owned())
            .collect();
        eprintln!(
            "note: left out, no other run answered the same dataset: {}",
            names.join(", ")
        );
    }
    if args.output.is_json() {
        let v = match jsons.len() {
            1 => {
                let mut v = jsons.remove(0);
                v["left_out"] = serde_json::json!(left_out);
                v
            }
            _ => serde_json::json!({ "datasets": jsons, "left_out": left_out }),
        };
        outln!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(0)
}

/// Compares runs of one dataset: prints the tables (unless `--json`) and returns the
/// JSON object.
fn compare_one(data: &[RunData], args: &CompareArgs) -> Result<serde_json::Value> {
    let m = build(data.iter().map(|r| {
        (
            r.manifest.id.clone(),
            r.samples
                .iter()
                .map(|s| (s.phi0.as_str(), s.verdict.is_equivalent())),
        )
    }));
    if let Some(path) = &args.rows {
        write_rows(&m, path)?;
    }
    let complete = m.complete_rows().count();
    let mut pairs = Vec::new();
    for a in 0..m.runs.len() {
        for b in a + 1..m.runs.len() {
            pairs.push((a, b, m.pair(a, b)));
        }
    }
    let points: Vec<(String, String, crate::analysis::breaking::BreakingPoint)> = data
        .iter()
        .map(|r| {
            let (by, bp) =
                crate::report::breaking::of_run(r, crate::analysis::breaking::DEFAULT_LEVEL);
            (r.manifest.id.clone(), by, bp)
        })
        .collect();
    let v = serde_json::json!({
            "breaking_points": points.iter().map(|(run, by, bp)| serde_json::json!({
                "run": run, "by": by, "breaking_point": bp,
            })).collect::<Vec<_>>(),
            "runs": m.runs,
            "samples": m.keys.len(),
            "in_every_run": complete,
            "patterns": m.patterns(),
            "pairs": pairs.iter().map(|(a, b, p)| serde_json::json!({
                "a": m.runs[*a], "b": m.runs[*b], "counts": p, "mcnemar_p": p.mcnemar_p(),
            })).collect::<Vec<_>>(),
    });
    if args.output.is_json() {
        return Ok(v);
    }
    if complete == 0 {
        eprintln!(
            "warning: no φ₀ occurs in every run: were these runs made from the same dataset and seed?"
        );
    }
    let name = |i: usize| crate::base::sanitize::one_line(&m.runs[i]).into_owned();
    outln!(
        "{} distinct φ₀; {} in every run ({} only in some)\n",
        m.keys.len(),
        complete,
        m.keys.len() - complete
    );
    outln!(
        "pattern ({}: ✓ pass, ✗ fail)  samples",
        (0..m.runs.len()).map(name).collect::<Vec<_>>().join(", ")
    );
    for (p, n) in m.patterns() {
        outln!("  {p:<10} {n:>6}");
    }
    outln!("\npairwise, on the φ₀ both runs have (McNemar's test on the discordant samples):");
    print_pairs(&pairs, &name)?;
    outln!(
        "\nbreaking points (logistic fit of A3 against ln(1 + category) by maximum likelihood; 95% profile-likelihood CI):"
    );
    for line in crate::report::breaking::side_by_side(&points).lines() {
        outln!("  {line}");
    }
    Ok(v)
}

/// The pairwise table: per pair of runs, the φ₀ both have, how each pattern splits, and
/// McNemar's p; `name` gives a run's shown name.
fn print_pairs(pairs: &[(usize, usize, PairCounts)], name: &dyn Fn(usize) -> String) -> Result<()> {
    let rows: Vec<[String; 8]> = pairs
        .iter()
        .map(|(a, b, p)| {
            [
                name(*a),
                name(*b),
                p.n().to_string(),
                p.both.to_string(),
                p.a_only.to_string(),
                p.b_only.to_string(),
                p.neither.to_string(),
                crate::report::compare::format_p(p.mcnemar_p()),
            ]
        })
        .collect();
    let head = [
        "A",
        "B",
        "n",
        "both pass",
        "A only",
        "B only",
        "neither",
        "McNemar p",
    ]
    .map(String::from);
    let width = |c: usize| {
        std::iter::once(&head)
            .chain(&rows)
            .map(|r| unicode_width::UnicodeWidthStr::width(r[c].as_str()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..8).map(width).collect();
    for r in std::iter::once(&head).chain(&rows) {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = widths[c] - unicode_width::UnicodeWidthStr::width(s.as_str());
                if c < 2 {
                    format!("{s}{}", " ".repeat(pad))
                } else {
                    format!("{}{s}", " ".repeat(pad))
                }
            })
            .collect();
        outln!("  {}", cells.join("  "));
    }
    Ok(())
}
