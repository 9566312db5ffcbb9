//! `autoeval metrics align RUN…`: how well each stored closeness metric (and the mean
//! of any two) predicts the verifier's verdict on the runs' samples, overall and per
//! operator-count band.

use crate::analysis::align::{AlignStats, align_stats_clustered};
use crate::analysis::align_interval::{dense, paired_test, placements};
use crate::record::SampleRecord;
use crate::report::load_run;
use crate::verify::Verdict;
use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `autoeval metrics align`.
#[derive(Args, Debug)]
pub struct AlignArgs {
    /// Run directories; their samples are pooled.
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,
    /// `--format json` (or `--json`): one JSON object.
    #[command(flatten)]
    pub output: super::output::FormatArg,
    /// Print CSV rows (band, metric, statistics).
    #[arg(long, conflicts_with_all = ["json", "format"])]
    pub csv: bool,
    /// Lower edges of the operator-count bands after 0 (default 5,10,20,40 gives
    /// 0-4, 5-9, 10-19, 20-39, 40+).
    #[arg(long, value_delimiter = ',', default_value = "5,10,20,40")]
    pub bands: Vec<usize>,
}

/// One counted sample: its verdict, operator count and every numeric closeness field.
struct Counted {
    equivalent: bool,
    ops: Option<usize>,
    scores: BTreeMap<String, f64>,
    /// Which φ₀ (samples of one formula, from several runs, are one cluster).
    cluster: usize,
}

/// DeLong's test of two metrics' AUCs on the samples that carry both.
#[derive(Serialize)]
struct Paired {
    a: String,
    b: String,
    n: usize,
    clusters: usize,
    auc_a: f64,
    auc_b: f64,
    z: f64,
    p: f64,
}

/// What a table row is about and its numbers.
#[derive(Serialize)]
struct Row {
    metric: String,
    /// The two metrics averaged per sample, for a combined row.
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_of: Option<[String; 2]>,
    #[serde(flatten)]
    stats: AlignStats,
}

#[derive(Serialize)]
struct BandRows {
    band: String,
    min_operators: Option<usize>,
    max_operators: Option<usize>,
    n: usize,
    rows: Vec<Row>,
}

#[derive(Serialize)]
struct RunCount {
    dir: String,
    samples: usize,
    counted: usize,
}

#[derive(Serialize)]
struct Report {
    runs: Vec<RunCount>,
    samples: usize,
    counted: usize,
    excluded: BTreeMap<String, usize>,
    verdict: &'static str,
    auc_interval: &'static str,
    threshold_rule: &'static str,
    all: Vec<Row>,
    paired_note: &'static str,
    paired: Vec<Paired>,
    by_band: Vec<BandRows>,
}

const VERDICT_NOTE: &str = "round 1's verdict (the round the closeness record scores); only equivalent and not-equivalent count";
const AUC_NOTE: &str = "95% interval: DeLong's variance with samples clustered by formula (phi0; Obuchowski 1997), on the logit scale; at perfect separation (AUC 1 or 0) the binormal bound; AUC counts ties as 1/2";
const PAIRED_NOTE: &str = "DeLong's test of two correlated AUCs on the samples carrying both metrics, clustered by phi0; two-sided p; pairs whose difference has variance 0 (both metrics separate perfectly or tie throughout) are not listed";
const THRESHOLD_NOTE: &str = "equivalent iff score >= threshold, best over every observed score; ties go to the highest threshold; null threshold = calling every sample not-equivalent is best";

/// Why a sample does not count, or the sample as counted.
fn count(s: &SampleRecord, cluster: usize) -> Result<Counted, String> {
    let verdict = s.rounds.first().map_or(&s.verdict, |r| &r.verdict);
    let equivalent = match verdict {
        Verdict::Equivalent { .. } => true,
        Verdict::NotEquivalent { .. } => false,
        other => return Err(format!("verdict {}", other.name())),
    };
    let Some(c) = &s.closeness else {
        return Err("no closeness record".into());
    };
    let scores = match serde_json::to_value(c) {
        Ok(serde_json::Value::Object(m)) => m
            .into_iter()
            .filter_map(|(k, v)| v.as_f64().filter(|x| x.is_finite()).map(|x| (k, x)))
            .collect(),
        _ => BTreeMap::new(),
    };
    Ok(Counted {
        equivalent,
        ops: s.num_operators,
        scores,
        cluster,
    })
}

fn metric_names(samples: &[Counted]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for s in samples {
        for k in s.scores.keys() {
            if !seen.contains(k) {
                seen.push(k.clone());
            }
        }
    }
    let rank = |k: &String| crate::record::Metric::table_place(k);
    seen.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    seen
}

fn rows(samples: &[&Counted], names: &[String]) -> Vec<Row> {
    let mut out = Vec::new();
    let single = |m: &String| -> Vec<(f64, bool, usize)> {
        samples
            .iter()
            .filter_map(|s| s.scores.get(m).map(|&x| (x, s.equivalent, s.cluster)))
            .collect()
    };
    for m in names {
        let xs = single(m);
        if !xs.is_empty() {
            out.push(Row {
                metric: m.clone(),
                mean_of: None,
                stats: align_stats_clustered(&xs),
            });
        }
    }
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let xs: Vec<(f64, bool, usize)> = samples
                .iter()
                .filter_map(|s| {
                    let (x, y) = (s.scores.get(a)?, s.scores.get(b)?);
                    Some((f64::midpoint(*x, *y), s.equivalent, s.cluster))
                })
                .collect();
            if !xs.is_empty() {
                out.push(Row {
                    metric: format!("{a}+{b}"),
                    mean_of: Some([a.clone(), b.clone()]),
                    stats: align_stats_clustered(&xs),
                });
            }
        }
    }
    out
}

/// DeLong's paired test for every two metrics, on the samples carrying both.
fn paired(samples: &[&Counted], names: &[String]) -> Vec<Paired> {
    let mut out = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let both: Vec<(f64, f64, bool, usize)> = samples
                .iter()
                .filter_map(|s| {
                    Some((
                        *s.scores.get(a)?,
                        *s.scores.get(b)?,
                        s.equivalent,
                        s.cluster,
                    ))
                })
                .collect();
            let xa: Vec<(f64, bool)> = both.iter().map(|x| (x.0, x.2)).collect();
            let xb: Vec<(f64, bool)> = both.iter().map(|x| (x.1, x.2)).collect();
            let pos: Vec<bool> = both.iter().map(|x| x.2).collect();
            let (cl, k) = dense(&both.iter().map(|x| x.3).collect::<Vec<_>>());
            let (Some(pa), Some(pb)) = (placements(&xa), placements(&xb)) else {
                continue;
            };
            if let Some((z, p)) = paired_test(&pa, &pb, &pos, &cl, k) {
                out.push(Paired {
                    a: a.clone(),
                    b: b.clone(),
                    n: both.len(),
                    clusters: k,
                    auc_a: pa.auc,
                    auc_b: pb.auc,
                    z,
                    p,
                });
            }
        }
    }
    out
}

/// Bands as (label, min, max) from the lower edges after 0.
fn bands(edges: &[usize]) -> Result<Vec<(String, usize, Option<usize>)>> {
    let mut lows = vec![0];
    for &e in edges {
        if e <= *lows.last().unwrap_or(&0) {
            bail!("--bands must be increasing edges above 0 (like 5,10,20,40); got {edges:?}");
        }
        lows.push(e);
    }
    Ok(lows
        .iter()
        .enumerate()
        .map(|(i, &lo)| match lows.get(i + 1) {
            Some(&next) => (format!("{lo}-{}", next - 1), lo, Some(next - 1)),
            None => (format!("{lo}+"), lo, None),
        })
        .collect())
}

fn fmt(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), |v| format!("{v:.3}"))
}

fn print_rows(rows: &[Row]) -> Result<()> {
    let width = rows
        .iter()
        .map(|r| r.metric.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    outln!(
        "  {:<width$} {:>6} {:>5} {:>5} {:>5}  {:>5}  {:<16} {:>5} {:>6}  {:>7}",
        "metric",
        "n",
        "φ₀",
        "eq",
        "neq",
        "AUC",
        "95% CI",
        "acc",
        "t",
        "neq>med"
    );
    for r in rows {
        let s = &r.stats;
        let ci = match (s.auc_low, s.auc_high) {
            (Some(l), Some(h)) => format!(
                "[{l:.3}, {h:.3}]{}",
                if s.perfect_separation { "*" } else { "" }
            ),
            _ => "—".into(),
        };
        let t = s
            .threshold
            .map_or_else(|| "none".into(), |t| format!("{t:.3}"));
        outln!(
            "  {:<width$} {:>6} {:>5} {:>5} {:>5}  {:>5}  {:<16} {:>5.3} {:>6}  {:>7}",
            r.metric,
            s.n,
            s.clusters,
            s.n_equivalent,
            s.n_not_equivalent,
            fmt(s.auc),
            ci,
            s.accuracy,
            t,
            fmt(s.not_equivalent_above_equivalent_median)
        );
    }
    Ok(())
}

fn print_human(r: &Report) -> Result<()> {
    let names: Vec<String> = r
        .runs
        .iter()
        .map(|x| crate::base::sanitize::one_line(&x.dir).into_owned())
        .collect();
    outln!("metrics align: {}", names.join(", "));
    let excluded: Vec<String> = r.excluded.iter().map(|(k, v)| format!("{k} {v}")).collect();
    outln!(
        "{} samples; {} counted (definite verdict in round 1 and a closeness record); {} excluded{}",
        r.samples,
        r.counted,
        r.samples - r.counted,
        if excluded.is_empty() {
            String::new()
        } else {
            format!(": {}", excluded.join(", "))
        }
    );
    outln!(
        "AUC: P(an equivalent sample scores above a not-equivalent one), ties 1/2; 95% CI: DeLong's variance clustered by φ₀ (φ₀: distinct formulas), on the logit scale."
    );
    outln!(
        "*: perfect separation (AUC 1 or 0): DeLong's variance is 0 there; the interval is the binormal bound (the AUC under which such a sample has a 2.5% chance)."
    );
    outln!(
        "acc: best accuracy of \"equivalent iff score ≥ t\" (t none: all not-equivalent is best)."
    );
    outln!(
        "neq>med: share of not-equivalent samples scoring above the median of the equivalent ones."
    );
    outln!("a+b: the per-sample mean of metrics a and b.");
    outln!();
    let majority = r.all.first().map_or(0.0, |x| x.stats.majority);
    outln!("All counted samples (majority-class accuracy {majority:.3})");
    print_rows(&r.all)?;
    if !r.paired.is_empty() {
        outln!();
        outln!(
            "Paired: DeLong's test of two metrics' AUCs on the samples carrying both (clustered by φ₀)"
        );
        let width = r
            .paired
            .iter()
            .map(|p| p.a.chars().count().max(p.b.chars().count()))
            .max()
            .unwrap_or(6);
        outln!(
            "  {:<width$} {:<width$} {:>6} {:>6} {:>6} {:>7} {:>8}",
            "a",
            "b",
            "n",
            "AUC a",
            "AUC b",
            "z",
            "p"
        );
        for p in &r.paired {
            outln!(
                "  {:<width$} {:<width$} {:>6} {:>6.3} {:>6.3} {:>7.2} {:>8.2e}",
                p.a,
                p.b,
                p.n,
                p.auc_a,
                p.auc_b,
                p.z,
                p.p
            );
        }
    }
    for b in &r.by_band {
        outln!();
        let majority = b.rows.first().map_or(0.0, |x| x.stats.majority);
        let what = if b.min_operators.is_some() {
            format!("Operators {}", b.band)
        } else {
            "No operator count (regex)".into()
        };
        outln!(
            "{what}: {} samples (majority-class accuracy {majority:.3})",
            b.n
        );
        print_rows(&b.rows)?;
    }
    Ok(())
}

fn print_csv(r: &Report) -> Result<()> {
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    w.write_record([
        "band",
        "metric",
        "n",
        "n_equivalent",
        "n_not_equivalent",
        "auc",
        "auc_low",
        "auc_high",
        "accuracy",
        "threshold",
        "majority",
        "not_equivalent_above_equivalent_median",
        "clusters",
        "perfect_separation",
    ])?;
    let opt = |x: Option<f64>| x.map_or_else(String::new, |v| v.to_string());
    let sections = std::iter::once(("all", &r.all))
        .chain(r.by_band.iter().map(|b| (b.band.as_str(), &b.rows)));
    for (band, rows) in sections {
        for row in rows {
            let s = &row.stats;
            w.write_record([
                band.to_string(),
                row.metric.clone(),
                s.n.to_string(),
                s.n_equivalent.to_string(),
                s.n_not_equivalent.to_string(),
                opt(s.auc),
                opt(s.auc_low),
                opt(s.auc_high),
                s.accuracy.to_string(),
                opt(s.threshold),
                s.majority.to_string(),
                opt(s.not_equivalent_above_equivalent_median),
                s.clusters.to_string(),
                s.perfect_separation.to_string(),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

/// The rows of each operator band (`bands`: label, lowest, highest), then of the samples
/// with no operator count; bands with no sample are left out.
fn band_rows(
    counted: &[Counted],
    bands: &[(String, usize, Option<usize>)],
    names: &[String],
) -> Vec<BandRows> {
    let mut by_band = Vec::new();
    for (label, lo, hi) in bands {
        let members: Vec<&Counted> = counted
            .iter()
            .filter(|c| c.ops.is_some_and(|o| o >= *lo && hi.is_none_or(|h| o <= h)))
            .collect();
        if !members.is_empty() {
            by_band.push(BandRows {
                band: label.clone(),
                min_operators: Some(*lo),
                max_operators: *hi,
                n: members.len(),
                rows: rows(&members, names),
            });
        }
    }
    let unbanded: Vec<&Counted> = counted.iter().filter(|c| c.ops.is_none()).collect();
    if !unbanded.is_empty() {
        by_band.push(BandRows {
            band: "no operator count".into(),
            min_operators: None,
            max_operators: None,
            n: unbanded.len(),
            rows: rows(&unbanded, names),
        });
    }
    by_band
}

/// Runs `autoeval metrics align`.
pub fn run(args: AlignArgs) -> Result<i32> {
    let bands = bands(&args.bands)?;
    let mut counted: Vec<Counted> = Vec::new();
    let mut excluded: BTreeMap<String, usize> = BTreeMap::new();
    let mut runs = Vec::new();
    let mut total = 0;
    let mut formulas: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for dir in &args.runs {
        let data = load_run(dir).with_context(|| format!("cannot read run {}", dir.display()))?;
        for w in &data.warnings {
            eprintln!(
                "{}: warning: {}",
                dir.display(),
                crate::base::sanitize::one_line(w)
            );
        }
        let before = counted.len();
        for s in &data.samples {
            let next = formulas.len();
            let cluster = *formulas.entry(s.phi0.clone()).or_insert(next);
            match count(s, cluster) {
                Ok(c) => counted.push(c),
                Err(why) => *excluded.entry(why).or_default() += 1,
            }
        }
        total += data.samples.len();
        runs.push(RunCount {
            dir: dir.display().to_string(),
            samples: data.samples.len(),
            counted: counted.len() - before,
        });
    }
    let names = metric_names(&counted);
    let refs: Vec<&Counted> = counted.iter().collect();
    let all = rows(&refs, &names);
    let singles: Vec<String> = names.clone();
    let paired = paired(&refs, &singles);
    let by_band = band_rows(&counted, &bands, &names);
    let report = Report {
        runs,
        samples: total,
        counted: counted.len(),
        excluded,
        verdict: VERDICT_NOTE,
        auc_interval: AUC_NOTE,
        threshold_rule: THRESHOLD_NOTE,
        all,
        paired_note: PAIRED_NOTE,
        paired,
        by_band,
    };
    if report.all.is_empty() {
        eprintln!(
            "error: no sample has a definite verdict (equivalent or not-equivalent) in round 1 and a closeness record ({} samples read; excluded: {}); nothing to align",
            report.samples,
            report
                .excluded
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(1);
    }
    if args.output.is_json() {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else if args.csv {
        print_csv(&report)?;
    } else {
        print_human(&report)?;
    }
    Ok(0)
}
