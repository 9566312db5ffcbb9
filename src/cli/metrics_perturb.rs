//! `autoeval metrics perturb`: the paper's Table 2 and combination matrices on FOLIO.

use crate::analysis::sensitivity::{
    BS, FOLIO_TRAIN, METRICS, NM, Row, VERDICT_GROUPS, select_folio, table_with,
};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;

/// Arguments of `autoeval metrics perturb`.
#[derive(clap::Args, Debug)]
pub struct PerturbArgs {
    /// A FOLIO-format JSON-lines file (`story_id`, `premises-FOL`); default: the shipped
    /// FOLIO v0.0 train split. Records are selected as the paper selects them.
    pub dataset: Option<PathBuf>,
    /// `--format json` (or `--json`): JSON instead of tables.
    #[command(flatten)]
    pub output: super::output::FormatArg,
    /// Print CSV (perturbation, metric_a, metric_b, mean, n, changed, verdict; a = b is
    /// the metric alone; verdict `all`, or a verifier group for the split rows).
    #[arg(long, conflicts_with_all = ["json", "format"])]
    pub csv: bool,
    /// Also draw Table 2 (all records, then each verdict group) as an SVG heat map.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Directory of the all-MiniLM-L6-v2 files: fills the BS (`bertscore_minilm`)
    /// column. Needs `--features bertscore`.
    #[arg(long, value_name = "DIR", env = "AUTOEVAL_BERTSCORE_MODEL")]
    pub bertscore_model: Option<PathBuf>,
}

/// The paper's Table 2 in our column order (BL, LE, RO, SP, ME, BS), FOLIO v2, 102 records.
const PAPER: [(&str, [f64; NM]); 8] = [
    ("Match", [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
    ("Quantifier", [0.96, 1.00, 0.96, 0.99, 0.96, 1.00]),
    ("Negation", [0.69, 0.73, 0.93, 0.37, 0.85, 0.97]),
    ("AndOr", [0.88, 0.72, 0.95, 0.96, 0.96, 1.00]),
    ("OrXor", [0.95, 0.92, 0.98, 0.99, 0.98, 1.00]),
    ("Operator", [0.20, 0.62, 0.53, 0.44, 0.42, 0.89]),
    ("Predicate", [0.94, 0.93, 0.97, 0.92, 0.98, 1.00]),
    ("Variable", [0.28, 1.00, 0.74, 0.76, 0.68, 0.92]),
];

fn cell(x: Option<f64>) -> String {
    x.map_or_else(|| "  –  ".to_string(), |v| format!("{v:5.2}"))
}

/// Runs `autoeval metrics perturb`.
pub fn run(args: PerturbArgs) -> Result<i32> {
    let (name, text) = match &args.dataset {
        // The one bounded open: a FIFO or device is refused before anything is read.
        Some(p) => (
            p.display().to_string(),
            crate::base::fsread::read_to_string(p, 256 << 20)
                .with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => (
            "FOLIO v0.0 train (shipped, CC BY-SA 4.0)".to_string(),
            FOLIO_TRAIN.to_string(),
        ),
    };
    let (records, errors) = select_folio(&text);
    for (line, e) in &errors {
        eprintln!(
            "{}:{line}: {}",
            crate::base::sanitize::one_line(&name),
            crate::base::sanitize::one_line(e)
        );
    }
    if records.is_empty() {
        bail!("{name}: no FOLIO records with `premises-FOL` (expected JSON lines as in FOLIO)");
    }
    let bert = super::metrics_bertscore::BertColumn::load(args.bertscore_model.as_deref())?;
    let scorer = |pairs: &[(&str, &str)]| bert.f1_pairs(pairs);
    let rows = table_with(
        &records,
        bert.loaded()
            .then_some(&scorer as crate::analysis::sensitivity::PairScorer<anyhow::Error>),
    )?;
    if let Some(path) = &args.plot {
        super::metrics_plot::write_svg(path, &name, &rows)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.output.is_json() {
        let paper: Vec<_> = PAPER
            .iter()
            .map(|(p, v)| serde_json::json!({"perturbation": p, "means": v}))
            .collect();
        let out = serde_json::json!({
            "dataset": name,
            "records": records.len(),
            "metrics": METRICS.iter().map(|m| m.0).collect::<Vec<_>>(),
            "rows": rows,
            "paper_table2": paper,
            "skipped_lines": errors.len(),
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else if args.csv {
        outln!("perturbation,metric_a,metric_b,mean,n,changed,verdict");
        for r in &rows {
            for (i, a) in METRICS.iter().enumerate() {
                for (j, b) in METRICS.iter().enumerate() {
                    let v = r.combined[i][j].map_or(String::new(), |v| format!("{v:.6}"));
                    outln!(
                        "{},{},{},{v},{},{:.6},all",
                        r.perturbation,
                        a.0,
                        b.0,
                        r.n,
                        r.changed
                    );
                }
            }
        }
        for r in &rows {
            for g in &r.by_verdict {
                for (i, a) in METRICS.iter().enumerate() {
                    let v = g.means[i].map_or(String::new(), |v| format!("{v:.6}"));
                    outln!(
                        "{},{},{},{v},{},{:.6},{}",
                        r.perturbation,
                        a.0,
                        a.0,
                        g.n,
                        g.changed,
                        g.verdict
                    );
                }
            }
        }
    } else {
        print_tables(&name, records.len(), &rows)?;
    }
    Ok(i32::from(!errors.is_empty()))
}

fn print_tables(name: &str, n: usize, rows: &[Row]) -> Result<()> {
    outln!(
        "{} — {n} premise sentences selected as the paper does",
        crate::base::sanitize::one_line(name)
    );
    outln!("Mean score of perturbed against original over all records (unchanged ones count);");
    outln!(
        "paper's Table 2 (FOLIO v2, 102 records) in brackets; n = records scored. BL bleu_fol · LE le · RO rouge_l_fol · SP smatch_paper · ME meteor · BS bertscore_minilm"
    );
    if rows.iter().all(|r| r.means[BS].is_none()) {
        outln!("BS is computed with --bertscore-model DIR (a build with --features bertscore).");
    }
    outln!();
    let heads: Vec<String> = METRICS.iter().map(|m| format!("{:>13}", m.1)).collect();
    outln!(
        "{:<11} {:>4} {:>7}  {}",
        "",
        "n",
        "changed",
        heads.join(" ")
    );
    for r in rows {
        let paper = PAPER.iter().find(|p| p.0 == r.perturbation).map(|p| p.1);
        let cells: Vec<String> = (0..NM)
            .map(|i| {
                format!(
                    "{} [{:4.2}]",
                    cell(r.means[i]),
                    paper.map_or(f64::NAN, |p| p[i])
                )
            })
            .collect();
        outln!(
            "{:<11} {:>4} {:>6.0}%  {}",
            r.perturbation,
            r.n,
            r.changed * 100.0,
            cells.join(" ")
        );
    }
    outln!();
    outln!(
        "Split by autoeval's verifier (perturbed vs original read with the FOLIO reader): n, changed, BL LE RO SP ME BS"
    );
    outln!(
        "{:<11} {:>40} {:>40} {:>40}",
        "",
        VERDICT_GROUPS[0],
        VERDICT_GROUPS[1],
        VERDICT_GROUPS[2]
    );
    for r in rows {
        let groups: Vec<String> = r
            .by_verdict
            .iter()
            .map(|g| {
                let m: Vec<String> = g.means.iter().map(|x| cell(*x)).collect();
                format!("{:>4} {:>3.0}% {}", g.n, g.changed * 100.0, m.join(""))
            })
            .collect();
        outln!("{:<11} {}", r.perturbation, groups.join(" "));
    }
    outln!();
    outln!(
        "Combined metrics: mean over records of the per-record mean of two metrics (diagonal: the metric)."
    );
    for r in rows.iter().skip(1) {
        outln!();
        let heads: Vec<String> = METRICS.iter().map(|m| format!("{:>5}", m.1)).collect();
        outln!("{:<11} {}", r.perturbation, heads.join(" "));
        for (i, m) in METRICS.iter().enumerate() {
            let cells: Vec<String> = (0..NM).map(|j| cell(r.combined[i][j])).collect();
            outln!("  {:<2}        {}", m.1, cells.join(" "));
        }
    }
    Ok(())
}
