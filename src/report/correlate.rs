//! `correlate`: one score per (model, benchmark) from run directories and score files,
//! and, for each predictor benchmark X against every other benchmark Y over the models
//! both have, Pearson, Spearman, Kendall and the predictive power (the paper's §A1).

use super::corr_stats::{self, Kendall, Pearson, Power, Spearman};
use std::collections::BTreeMap;
use std::path::Path;

/// Why score files or predictors were refused.
#[derive(Debug, thiserror::Error)]
pub enum CorrelateError {
    /// The input says something the statistics cannot take; the message says what.
    #[error("{0}")]
    Invalid(String),
    /// A score file could not be read (`context` names it).
    #[error("{context}")]
    Read {
        /// Which file.
        context: String,
        /// The read error.
        #[source]
        source: std::io::Error,
    },
    /// A score file is not CSV (`context` says where).
    #[error("{context}")]
    Csv {
        /// Which file and what was read.
        context: String,
        /// The CSV error.
        #[source]
        source: csv::Error,
    },
}

/// Results of reading scores.
type Result<T, E = CorrelateError> = std::result::Result<T, E>;

/// Returns a [`CorrelateError::Invalid`] with a formatted message.
macro_rules! refuse {
    ($($t:tt)*) => {
        return Err(CorrelateError::Invalid(format!($($t)*)))
    };
}

/// The paper's Table 6 (HumanEval and BBH scores from the literature, with sources).
pub const PAPER_TABLE6: &str = include_str!("../../data/correlate/paper-table6.csv");
/// `--scores` value that reads the shipped Table 6.
pub const PAPER_TABLE6_NAME: &str = "builtin:paper-table6";
/// Prefix of the benchmark a ∀uto∃∨∧L run contributes.
pub const AUTOEVAL_PREFIX: &str = "autoeval-";
/// Largest score file read.
const MAX_SCORES_BYTES: u64 = 16 << 20;
/// Longest model or benchmark name kept.
const MAX_NAME: usize = 200;
/// Most models: the predictive power lists the concordant pairs of each (X, Y), n² of them.
pub const MAX_MODELS: usize = 2_000;
/// Most (X, Y) pairs computed.
pub const MAX_PAIRS: usize = 10_000;

/// An inclusive range of a category value; None means every value.
pub type Range = Option<(usize, usize)>;

/// Which samples of a ∀uto∃∨∧L run count (Appendix K.4: a subset comparable to the
/// other benchmark).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subset {
    /// Operator counts kept for logic datasets.
    pub operators: Range,
    /// Depths kept for regex datasets.
    pub depth: Range,
    /// Batches kept (None: all).
    pub batches: Option<Vec<usize>>,
    /// The text score a `folio-i` run contributes.
    pub folio_i_metric: super::task_run::TextMetric,
    /// What a ∀uto∃∨∧L run contributes: A3 on the subset, or its breaking point.
    pub x_score: XScore,
}

/// What a ∀uto∃∨∧L run contributes to `correlate` (`--x-score`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum XScore {
    /// A3 on the operator/depth subset.
    #[default]
    A3,
    /// The breaking point: the category (operators; depth for regexes) where a logistic
    /// fit of A3 over every category crosses 50 %; runs that do not break are left out.
    BreakingPoint,
}

impl Default for Subset {
    /// K.4: FOL formulas with fewer than seven operators (the FOLIO comparison), regexes of
    /// CFG depth up to 7 (the HumanEval comparison), every batch.
    fn default() -> Self {
        Subset {
            operators: Some((0, 6)),
            depth: Some((0, 7)),
            batches: None,
            folio_i_metric: super::task_run::TextMetric::default(),
            x_score: XScore::A3,
        }
    }
}

fn show_range(name: &str, r: Range) -> String {
    match r {
        Some((lo, hi)) => format!("{name} {lo}–{hi}"),
        None => format!("every {name} count"),
    }
}

impl Subset {
    /// How the subset reads under a figure, for a dataset kind.
    pub fn describe(&self, kind: &str) -> String {
        let cat = if is_regex(kind) {
            show_range("depth", self.depth)
        } else {
            show_range("operators", self.operators)
        };
        let b = match &self.batches {
            None => "all batches".to_string(),
            Some(v) => format!(
                "batches {}",
                v.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
            ),
        };
        format!("{cat}, {b}")
    }

    pub(super) fn keeps(
        &self,
        regex: bool,
        ops: Option<u16>,
        depth: Option<u16>,
        batch: u16,
    ) -> bool {
        let (range, v) = if regex {
            (self.depth, depth)
        } else {
            (self.operators, ops)
        };
        let in_range = match (range, v) {
            (None, _) => true,
            (Some((lo, hi)), Some(v)) => (lo..=hi).contains(&usize::from(v)),
            // A sample without the category cannot be placed in the range.
            (Some(_), None) => false,
        };
        in_range
            && self
                .batches
                .as_ref()
                .is_none_or(|b| b.contains(&usize::from(batch)))
    }
}

pub(super) fn is_regex(kind: &str) -> bool {
    kind.starts_with("regex")
}

/// Parses `LO-HI`, a single `N`, or `all`.
pub fn parse_range(s: &str) -> Result<Range, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}`: expected LO-HI, N or all"))
    };
    let (lo, hi) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(s)?, num(s)?),
    };
    if lo > hi {
        return Err(format!("`{s}`: the low end is above the high end"));
    }
    Ok(Some((lo, hi)))
}

/// One score and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The score (a run's accuracy is 0–1; a score file's numbers are kept as written).
    pub score: f64,
    /// Where it came from (`FILE line N` or run directories).
    pub source: String,
}

/// Scores per (model, benchmark), and the subset each ∀uto∃∨∧L benchmark was scored on.
#[derive(Clone, Debug, Default)]
pub struct Scores {
    /// (model, benchmark) → score.
    pub entries: BTreeMap<(String, String), Entry>,
    /// ∀uto∃∨∧L benchmark → its subset, as read under a figure.
    pub subsets: BTreeMap<String, String>,
    /// Runs left out (nothing in the subset) and other notes.
    pub warnings: Vec<String>,
    /// Models whose runs say they are synthetic (`perturb`, as `run.json` records it).
    pub synthetic: std::collections::BTreeSet<String>,
}

pub(super) fn clean_name(s: &str) -> String {
    let t: String = s.trim().chars().filter(|c| !c.is_control()).collect();
    t.chars().take(MAX_NAME).collect()
}

impl Scores {
    /// Whether `model` (or, with --by-category, the `model · operators k` point) is a
    /// synthetic model's.
    pub fn is_synthetic(&self, model: &str) -> bool {
        self.synthetic.contains(model)
            || model
                .split_once(" · ")
                .is_some_and(|(m, _)| self.synthetic.contains(m))
    }

    pub(super) fn insert(&mut self, key: (String, String), e: Entry) -> Result<()> {
        if let Some(old) = self.entries.get(&key) {
            refuse!(
                "two scores for model `{}` on `{}`: {} and {}; keep one (runs of one model on one dataset are pooled, score files may not repeat them)",
                key.0,
                key.1,
                old.source,
                e.source
            );
        }
        self.entries.insert(key, e);
        Ok(())
    }

    /// Adds a score file (`model,benchmark,score` header; more columns and `#` comment
    /// lines allowed), or the shipped Table 6 for [`PAPER_TABLE6_NAME`].
    pub fn add_file(&mut self, path: &Path) -> Result<()> {
        let name = path.display().to_string();
        let text = if name == PAPER_TABLE6_NAME {
            PAPER_TABLE6.to_string()
        } else {
            let meta = std::fs::metadata(path).map_err(|source| CorrelateError::Read {
                context: format!("--scores {name}"),
                source,
            })?;
            if !meta.is_file() {
                refuse!("--scores {name}: not a regular file");
            }
            if meta.len() > MAX_SCORES_BYTES {
                refuse!(
                    "--scores {name}: {} bytes, more than the {} MiB a score file may have",
                    meta.len(),
                    MAX_SCORES_BYTES >> 20
                );
            }
            let bytes = std::fs::read(path).map_err(|source| CorrelateError::Read {
                context: format!("--scores {name}"),
                source,
            })?;
            String::from_utf8(bytes).map_err(|e| {
                CorrelateError::Invalid(format!(
                    "--scores {name}: not UTF-8 text ({e}); save it as UTF-8"
                ))
            })?
        };
        self.add_csv(&name, &text)
    }

    /// Adds scores from CSV text; `name` is used in messages.
    pub fn add_csv(&mut self, name: &str, text: &str) -> Result<()> {
        let mut rd = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let header = rd
            .headers()
            .map_err(|source| CorrelateError::Csv {
                context: format!("{name}: reading the header"),
                source,
            })?
            .clone();
        let col = |want: &str| header.iter().position(|h| h.eq_ignore_ascii_case(want));
        let (Some(cm), Some(cb), Some(cs)) = (col("model"), col("benchmark"), col("score")) else {
            refuse!(
                "{name}: the header must name the columns model,benchmark,score (it reads `{}`)",
                crate::base::sanitize::one_line(&header.iter().collect::<Vec<_>>().join(","))
            );
        };
        for rec in rd.records() {
            let rec = rec.map_err(|source| CorrelateError::Csv {
                context: format!("{name}: not valid CSV"),
                source,
            })?;
            let line = rec.position().map_or(0, csv::Position::line);
            let field = |i: usize| rec.get(i).unwrap_or("");
            let (model, bench, raw) = (clean_name(field(cm)), clean_name(field(cb)), field(cs));
            if model.is_empty() || bench.is_empty() {
                refuse!("{name} line {line}: the model and benchmark must not be empty");
            }
            // A missing score (the paper's `-`) is no score, not zero.
            if raw.is_empty() || raw == "-" || raw == "–" {
                continue;
            }
            let score: f64 = raw
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    CorrelateError::Invalid(format!(
                        "{name} line {line}: score `{}` is not a number",
                        crate::base::sanitize::one_line(&raw.chars().take(40).collect::<String>())
                    ))
                })?;
            let source = format!("{name} line {line}");
            self.insert((model, bench), Entry { score, source })?;
        }
        Ok(())
    }

    /// Every benchmark name, sorted.
    pub fn benchmarks(&self) -> Vec<String> {
        let mut v: Vec<String> = self.entries.keys().map(|k| k.1.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// Models scored on both benchmarks, sorted, with their two scores.
    pub fn paired(&self, x: &str, y: &str) -> Vec<(String, f64, f64)> {
        let mut by_model: BTreeMap<&str, (Option<f64>, Option<f64>)> = BTreeMap::new();
        for ((m, b), e) in &self.entries {
            if b == x {
                by_model.entry(m).or_default().0 = Some(e.score);
            } else if b == y {
                by_model.entry(m).or_default().1 = Some(e.score);
            }
        }
        by_model
            .into_iter()
            .filter_map(|(m, (a, b))| Some((m.to_string(), a?, b?)))
            .collect()
    }
}

/// The statistics of X against Y.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Pair {
    /// Predictor benchmark.
    pub x: String,
    /// Predicted benchmark.
    pub y: String,
    /// Models scored on both.
    pub n: usize,
    /// Pearson's r (null below 2 models or for a constant side).
    pub pearson: Option<Pearson>,
    /// Spearman's ρ (null below 3 models or for a constant side).
    pub spearman: Option<Spearman>,
    /// Kendall's τ-b (null when every pair is tied on a side).
    pub kendall: Option<Kendall>,
    /// P(y₁ > y₂ | x₁ > x₂) with its bootstrap interval.
    pub predictive_power: Power,
    /// The models and their (X, Y) scores.
    pub models: Vec<Point>,
}

/// One model's scores on X and Y.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Point {
    /// The model.
    pub model: String,
    /// Its X score.
    pub x: f64,
    /// Its Y score.
    pub y: f64,
}

fn seed_of_models(models: &[&str]) -> u64 {
    // FNV-1a over the models' names: the draws depend on the models resampled only.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for m in models {
        for b in m.bytes().chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Refuses inputs whose statistics would not fit in memory or time: more than
/// [`MAX_MODELS`] models, or more than [`MAX_PAIRS`] (X, Y) pairs.
pub fn check_limits(scores: &Scores, xs: &[String]) -> Result<()> {
    let mut models: Vec<&str> = scores.entries.keys().map(|k| k.0.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    if models.len() > MAX_MODELS {
        refuse!(
            "{} models: correlate handles at most {MAX_MODELS}; split the score files",
            models.len()
        );
    }
    let pairs = xs.len() * scores.benchmarks().len().saturating_sub(1);
    if pairs > MAX_PAIRS {
        refuse!(
            "{pairs} benchmark pairs: correlate computes at most {MAX_PAIRS}; name fewer predictors with --x"
        );
    }
    Ok(())
}

/// The predictors: `wanted` as given (each must be a benchmark), else every ∀uto∃∨∧L one.
pub fn predictors(scores: &Scores, wanted: &[String]) -> Result<Vec<String>> {
    let all = scores.benchmarks();
    if wanted.is_empty() {
        let v: Vec<String> = all
            .iter()
            .filter(|b| b.starts_with(AUTOEVAL_PREFIX))
            .cloned()
            .collect();
        if v.is_empty() {
            refuse!(
                "no predictor: give a ∀uto∃∨∧L run (it contributes `autoeval-<dataset>`) or --x NAME (benchmarks: {})",
                all.join(", ")
            );
        }
        return Ok(v);
    }
    for w in wanted {
        if !all.contains(w) {
            refuse!(
                "--x {}: no such benchmark (benchmarks: {})",
                crate::base::sanitize::one_line(w),
                all.join(", ")
            );
        }
    }
    Ok(wanted.to_vec())
}

/// Fewest models in common for any statistic of a pair (the legend's "fewer than 3").
pub const MIN_MODELS: usize = 3;

/// The statistics of X against Y over `points` (each model's X and Y scores, also as
/// the sides `xv` and `yv`), with the predictive power already drawn.
fn pair_stats(
    x: &str,
    y: &str,
    points: &[(String, f64, f64)],
    xv: &[f64],
    yv: &[f64],
    power: corr_stats::Power,
) -> Pair {
    // Two models make one line and one ordered pair: r = ±1 and a power
    // of 0 or 1 say nothing, so below three (as the legend says) none is given.
    let enough = xv.len() >= MIN_MODELS;
    Pair {
        x: x.to_string(),
        y: y.to_string(),
        n: xv.len(),
        pearson: corr_stats::pearson(xv, yv).filter(|_| enough),
        spearman: corr_stats::spearman(xv, yv).filter(|_| enough),
        kendall: corr_stats::kendall(xv, yv).filter(|_| enough),
        predictive_power: if enough {
            power
        } else {
            corr_stats::Power {
                value: None,
                ci: None,
                ..power
            }
        },
        models: points
            .iter()
            .map(|(model, x, y)| Point {
                model: model.clone(),
                x: *x,
                y: *y,
            })
            .collect(),
    }
}

/// Every (X, Y) pair's statistics, computed on up to `threads` threads. Pairs over the
/// same models share one sequence of bootstrap draws, seeded by those models' names: a
/// pair's interval is the same every time and does not move when other benchmarks come
/// or go, and the draws are made once per resample for all of them.
pub fn correlate(scores: &Scores, xs: &[String], resamples: usize, threads: usize) -> Vec<Pair> {
    let benches = scores.benchmarks();
    let jobs: Vec<(String, String)> = xs
        .iter()
        .flat_map(|x| {
            benches
                .iter()
                .filter(move |y| *y != x)
                .map(move |y| (x.clone(), y.clone()))
        })
        .collect();
    // Each pair's points, then the pairs grouped by their models (in job order).
    let points: Vec<Vec<(String, f64, f64)>> =
        jobs.iter().map(|(x, y)| scores.paired(x, y)).collect();
    let mut groups: BTreeMap<Vec<&str>, Vec<usize>> = BTreeMap::new();
    for (k, p) in points.iter().enumerate() {
        groups
            .entry(p.iter().map(|m| m.0.as_str()).collect())
            .or_default()
            .push(k);
    }
    // Work units: a group's pairs in chunks, so every thread has some.
    let threads = threads.clamp(1, jobs.len().max(1));
    let chunk = jobs.len().div_ceil(threads).max(1);
    let units: Vec<(u64, Vec<usize>)> = groups
        .iter()
        .flat_map(|(models, ks)| {
            let seed = seed_of_models(models);
            ks.chunks(chunk).map(move |c| (seed, c.to_vec()))
        })
        .collect();
    let one = |(seed, ks): &(u64, Vec<usize>)| -> Vec<(usize, Pair)> {
        let sides: Vec<(Vec<f64>, Vec<f64>)> = ks
            .iter()
            .map(|&k| {
                (
                    points[k].iter().map(|m| m.1).collect(),
                    points[k].iter().map(|m| m.2).collect(),
                )
            })
            .collect();
        let refs: Vec<(&[f64], &[f64])> = sides
            .iter()
            .map(|(a, b)| (a.as_slice(), b.as_slice()))
            .collect();
        let powers = corr_stats::predictive_power_many(&refs, resamples, *seed);
        ks.iter()
            .zip(sides.iter().zip(powers))
            .map(|(&k, ((xv, yv), power))| {
                let (x, y) = &jobs[k];
                (k, pair_stats(x, y, &points[k], xv, yv, power))
            })
            .collect()
    };
    let mut done: Vec<(usize, Pair)> = if threads == 1 || units.len() == 1 {
        units.iter().flat_map(one).collect()
    } else {
        let per = units.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = units
                .chunks(per)
                .map(|c| s.spawn(move || c.iter().flat_map(one).collect::<Vec<_>>()))
                .collect();
            // A panicking worker is a bug; fall back to computing its share here.
            handles
                .into_iter()
                .zip(units.chunks(per))
                .flat_map(|(h, c)| {
                    h.join()
                        .unwrap_or_else(|_| c.iter().flat_map(one).collect())
                })
                .collect()
        })
    };
    done.sort_by_key(|(k, _)| *k);
    done.into_iter().map(|(_, p)| p).collect()
}
