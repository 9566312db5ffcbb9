//! Adaptive runs (`run --adaptive`): the run goes in rounds; before each, the samples
//! so far are refitted and the next round's items are drawn (seeded, without
//! replacement) where they most narrow the breaking point's interval
//! ([`crate::analysis::design`]). Each round's choice and reason is a line of
//! `design.jsonl`; the samples are an ordinary run's.

use super::store::{self, Appender, StoreError};
use crate::analysis::breaking::{self, BreakingPoint, Cell};
use crate::analysis::design;
use crate::dataset::Item;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// The file each round's choice is appended to.
pub const DESIGN: &str = "design.jsonl";

/// Most samples an adaptive run may be given (a bound on what a flag asks).
pub const MAX_BUDGET: usize = 10_000_000;

/// An adaptive run's design, as `run.json` records it under `adaptive`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// Samples at most (over every round and session).
    pub budget: usize,
    /// The A3 level whose crossing is sought.
    pub level: f64,
    /// Stop once the 95 % interval is narrower than this (None: spend the budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_width: Option<f64>,
    /// Seed of the item draws.
    pub seed: u64,
    /// The criterion after the first round (for readers of `run.json`).
    pub criterion: String,
}

impl Design {
    /// A design, checked.
    pub fn new(
        budget: usize,
        level: f64,
        target_width: Option<f64>,
        seed: u64,
    ) -> Result<Design, String> {
        if budget == 0 || budget > MAX_BUDGET {
            return Err(format!(
                "--budget must be between 1 and {MAX_BUDGET} samples, not {budget}"
            ));
        }
        if !(level > 0.0 && level < 1.0) {
            return Err(format!("--level {level} must lie strictly between 0 and 1"));
        }
        if let Some(w) = target_width.filter(|w| !(w.is_finite() && *w > 0.0)) {
            return Err(format!(
                "--target-width {w} must be a positive number of categories"
            ));
        }
        Ok(Design {
            budget,
            level,
            target_width,
            seed,
            criterion:
                "coarse spread, then c-optimal for the breaking point (least delta-method variance)"
                    .into(),
        })
    }

    /// The design a manifest's extra fields hold (None: not an adaptive run).
    pub fn of(extra: &serde_json::Map<String, serde_json::Value>) -> Option<Design> {
        extra
            .get(crate::record::ADAPTIVE_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The manifest entry.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// One line of `design.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundRecord {
    /// Round number, from 0.
    pub round: usize,
    /// When it was chosen (UTC, RFC 3339).
    pub time: String,
    /// Samples finished before it.
    pub samples_before: usize,
    /// The breaking point fitted on them.
    pub breaking_point: BreakingPoint,
    /// `spread`, `c-optimal`, `harder`, `easier`, or `stop`.
    pub criterion: String,
    /// Why.
    pub reason: String,
    /// Category value → items drawn for this round.
    pub chosen: BTreeMap<usize, usize>,
    /// The expected 95 % width after the round (c-optimal rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_width: Option<f64>,
}

/// The next round's items, or None when the run is done (the reason is recorded).
pub struct Round {
    /// Items to run now.
    pub items: Vec<Item>,
}

/// A category value of an item: depth for regexes, operators otherwise.
fn category(item: &Item, regex: bool) -> Option<usize> {
    if regex {
        item.depth
    } else {
        item.num_operators
    }
}

/// The samples so far as cells, and their ids.
fn observed(dir: &Path, regex: bool) -> Result<(Vec<Cell>, HashSet<String>), StoreError> {
    if !dir.join(store::SAMPLES).exists() {
        return Ok((Vec::new(), HashSet::new()));
    }
    let loaded = store::read_samples(dir)?;
    let mut latest: HashMap<String, (Option<usize>, bool)> = HashMap::new();
    for r in loaded.records {
        let key = if regex { r.depth } else { r.num_operators };
        latest.insert(r.id.clone(), (key, r.verdict.is_equivalent()));
    }
    let mut by: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    for (key, ok) in latest.values() {
        if let Some(k) = key {
            let e = by.entry(*k).or_default();
            e.0 += f64::from(u8::from(*ok));
            e.1 += 1.0;
        }
    }
    let cells = by
        .into_iter()
        .map(|(x, (k, n))| Cell { x: x as f64, k, n })
        .collect();
    Ok((cells, latest.into_keys().collect()))
}

/// Rounds already recorded (a resumed run continues their count).
fn rounds_so_far(dir: &Path) -> usize {
    store::read_jsonl::<RoundRecord>(&dir.join(DESIGN)).map_or(0, |l| l.records.len())
}

/// Plans the next round of an adaptive run over `items` (the whole dataset) into
/// `dir`, appending its record to `design.jsonl`; None when the budget is spent, the
/// interval is narrow enough, or no item is left.
pub fn plan(
    dir: &Path,
    items: &[Item],
    d: &Design,
    kind: &str,
) -> Result<Option<Round>, StoreError> {
    let regex = kind.starts_with("regex");
    let (cells, done) = observed(dir, regex)?;
    let spent = done.len();
    let round = rounds_so_far(dir);
    let (bp, _) = breaking::breaking_point(&cells, d.level);
    let mut available: BTreeMap<usize, Vec<&Item>> = BTreeMap::new();
    for it in items {
        if let Some(k) = category(it, regex)
            && !done.contains(&it.idx.to_string())
        {
            available.entry(k).or_default().push(it);
        }
    }
    let counts: BTreeMap<usize, usize> = available.iter().map(|(k, v)| (*k, v.len())).collect();
    let width = match bp.ci {
        [Some(lo), Some(hi)] if bp.reached => Some(hi - lo),
        _ => None,
    };
    let stop = if spent >= d.budget {
        Some(format!("budget spent: {spent} of {} samples", d.budget))
    } else if let (Some(w), Some(t)) = (width, d.target_width)
        && w <= t
    {
        Some(format!(
            "the 95% interval is {w:.2} wide, within --target-width {t}"
        ))
    } else if counts.values().all(|n| *n == 0) {
        Some("no item left in the dataset".into())
    } else {
        None
    };
    let mut out = Appender::open(&dir.join(DESIGN))?;
    let now = crate::record::now_rfc3339();
    if let Some(reason) = stop {
        out.append(&RoundRecord {
            round,
            time: now,
            samples_before: spent,
            breaking_point: bp,
            criterion: "stop".into(),
            reason,
            chosen: BTreeMap::new(),
            expected_width: None,
        })?;
        return Ok(None);
    }
    let left = d.budget - spent;
    let n = if spent == 0 {
        // The coarse spread: a quarter of the budget, at least two per category.
        (d.budget / 4).max(2 * counts.len()).min(left)
    } else {
        (d.budget / 10).max(5).min(left)
    };
    let choice = if spent == 0 {
        design::spread(&counts, &cells, n)
    } else {
        design::next_round(&counts, &cells, d.level, n)
    };
    let mut picked = Vec::new();
    for (k, m) in &choice.per_category {
        let Some(pool) = available.get(k) else {
            continue;
        };
        let mut idx: Vec<usize> = (0..pool.len()).collect();
        Rng::new(d.seed ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (*k as u64))
            .shuffle(&mut idx);
        picked.extend(idx.into_iter().take(*m).map(|i| pool[i].clone()));
    }
    out.append(&RoundRecord {
        round,
        time: now,
        samples_before: spent,
        breaking_point: bp,
        criterion: choice.criterion.into(),
        reason: choice.reason,
        chosen: choice.per_category,
        expected_width: choice.expected_width,
    })?;
    Ok(Some(Round { items: picked }))
}

/// Reads `design.jsonl` (for `report` and the viewer).
pub fn read_design(dir: &Path) -> Result<Vec<RoundRecord>, StoreError> {
    Ok(store::read_jsonl::<RoundRecord>(&dir.join(DESIGN))?.records)
}

/// What both adaptive loops (direct and through batches) keep between rounds: the whole
/// dataset, its kind, and how many samples the run held when the last round began.
pub(crate) struct Rounds {
    /// Every item of the dataset (a round draws from them).
    pub(crate) items: Vec<Item>,
    /// The dataset's kind (regex runs are planned by depth).
    pub(crate) kind: String,
    before: usize,
}

impl Rounds {
    /// Takes the dataset's `items` (of kind `kind`) and makes the run folder `out`.
    pub(crate) fn start(
        out: &Path,
        items: &mut Vec<Item>,
        kind: &str,
    ) -> Result<Rounds, StoreError> {
        std::fs::create_dir_all(out).map_err(|e| StoreError::Io(out.display().to_string(), e))?;
        Ok(Rounds {
            items: std::mem::take(items),
            kind: kind.to_string(),
            before: usize::MAX,
        })
    }

    /// Before a round into `out`: sets `resume` once the run exists; false when the last round added
    /// nothing (every item it drew unparseable), which would otherwise repeat forever.
    pub(crate) fn next(&mut self, out: &Path, resume: &mut bool) -> bool {
        if out.join(store::MANIFEST).exists() {
            *resume = true;
        }
        let now = store::read_samples(out).map_or(0, |l| l.records.len());
        if now == self.before {
            return false;
        }
        self.before = now;
        true
    }
}
