//! Adaptive runs (`run --adaptive`): the run goes in rounds; before each, the samples
//! so far are refitted and the next round's items are drawn (seeded, without
//! replacement) where they most narrow the breaking point's interval
//! ([`crate::analysis::design`]). Each round's choice and reason is a line of
//! `design.jsonl`; the samples are an ordinary run's.
//!
//! With a generator kind (`--kind`), a round after which the model has not broken
//! inside the dataset's range generates harder items: the same generator, seed and
//! items per category, 20 more levels (operators, or depth for regexes), up to
//! [`MAX_CATEGORY`]. The round's record says so (`generated`), and a resumed run
//! regenerates them from it (generation is deterministic).

use super::store::{self, Appender, StoreError};
use crate::analysis::breaking::{self, BreakingPoint, Cell};
use crate::analysis::design;
use crate::base::rng::Rng;
use crate::dataset::Item;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// The file each round's choice is appended to.
pub const DESIGN: &str = "design.jsonl";

/// Most samples an adaptive run may be given (a bound on what a flag asks).
pub const MAX_BUDGET: usize = 10_000_000;

/// The hardest category harder items are generated up to (operators; depth for regexes).
pub const MAX_CATEGORY: usize = 100;

/// Categories each generation of harder items adds above the hardest so far.
const STEP: usize = 20;

/// The generator an adaptive run on a generator kind may ask for harder items.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generator {
    /// The built-in kind (`pl`, `fol`, …).
    pub kind: crate::grammar::DatasetKind,
    /// The dataset's seed (harder items are drawn from its first batch's stream).
    pub seed: u64,
    /// Items per category, as the dataset.
    pub per_category: usize,
    /// The hardest category it may generate.
    pub max_category: usize,
}

/// Harder items generated before a round, as `design.jsonl` records them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generated {
    /// The generator's depth (levels) used.
    pub depth: usize,
    /// Its seed.
    pub seed: u64,
    /// The new categories, lowest and highest.
    pub categories: [usize; 2],
    /// Items added.
    pub items: usize,
}

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
    /// With a generator kind: where harder items come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<Generator>,
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
            generator: None,
        })
    }

    /// The design, able to generate harder items of `kind` (the dataset's seed and
    /// items per category).
    pub fn with_generator(
        mut self,
        kind: crate::grammar::DatasetKind,
        seed: u64,
        per_category: usize,
    ) -> Design {
        self.generator = Some(Generator {
            kind,
            seed,
            per_category,
            max_category: MAX_CATEGORY,
        });
        self
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
    /// Harder items generated before the round (a generator kind whose range the model
    /// had not broken in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Generated>,
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

/// Plans the next round of an adaptive run over `items` (the whole dataset, and any
/// harder items generated so far) into `dir`, appending its record to `design.jsonl`;
/// None when the budget is spent, the interval is narrow enough, or no item is left.
/// With a generator, harder items it generates are appended to `items`.
pub fn plan(
    dir: &Path,
    items: &mut Vec<Item>,
    d: &Design,
    kind: &str,
) -> Result<Option<Round>, StoreError> {
    let regex = kind.starts_with("regex");
    let (cells, done) = observed(dir, regex)?;
    let spent = done.len();
    let round = rounds_so_far(dir);
    let (bp, fit) = breaking::breaking_point(&cells, d.level);
    let generated = match &d.generator {
        Some(g) if spent > 0 && spent < d.budget => harder(items, g, &cells, fit, d.level, regex)?,
        _ => None,
    };
    let mut available: BTreeMap<usize, Vec<&Item>> = BTreeMap::new();
    for it in items {
        if let Some(k) = category(it, regex)
            && !done.contains(&it.idx.to_string())
        {
            available.entry(k).or_default().push(it);
        }
    }
    let counts: BTreeMap<usize, usize> = available.iter().map(|(k, v)| (*k, v.len())).collect();
    let stop = stop_reason(spent, d, &bp, &counts);
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
            generated: None,
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
    let mut choice = if spent == 0 {
        design::spread(&counts, &cells, n)
    } else {
        design::next_round(&counts, &cells, d.level, n)
    };
    if let Some(g) = &generated {
        choice.reason = format!(
            "the model has not broken inside the range asked (0–{}): generated {} harder items \
             with {}–{} {} (seed {}, {} levels; at most {}); {}",
            g.categories[0] - 1,
            g.items,
            g.categories[0],
            g.categories[1],
            if regex { "depth" } else { "operators" },
            g.seed,
            g.depth,
            MAX_CATEGORY,
            choice.reason
        );
    }
    let picked = pick(&available, &choice.per_category, d.seed, round);
    out.append(&RoundRecord {
        round,
        time: now,
        samples_before: spent,
        breaking_point: bp,
        criterion: choice.criterion.into(),
        reason: choice.reason,
        chosen: choice.per_category,
        expected_width: choice.expected_width,
        generated,
    })?;
    Ok(Some(Round { items: picked }))
}

/// Why the run stops before this round (budget spent, interval narrow enough, no item left), if it does.
fn stop_reason(
    spent: usize,
    d: &Design,
    bp: &BreakingPoint,
    counts: &BTreeMap<usize, usize>,
) -> Option<String> {
    let width = match bp.ci {
        [Some(lo), Some(hi)] if bp.reached => Some(hi - lo),
        _ => None,
    };
    if spent >= d.budget {
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
    }
}

/// Draws each category's chosen number of items from what is left, shuffled by seed, round and category.
fn pick(
    available: &BTreeMap<usize, Vec<&Item>>,
    per_category: &BTreeMap<usize, usize>,
    seed: u64,
    round: usize,
) -> Vec<Item> {
    let mut picked = Vec::new();
    for (k, m) in per_category {
        let Some(pool) = available.get(k) else {
            continue;
        };
        let mut idx: Vec<usize> = (0..pool.len()).collect();
        Rng::new(seed ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (*k as u64))
            .shuffle(&mut idx);
        picked.extend(idx.into_iter().take(*m).map(|i| pool[i].clone()));
    }
    picked
}

/// The hardest category among `items`.
fn top(items: &[Item], regex: bool) -> Option<usize> {
    items.iter().filter_map(|i| category(i, regex)).max()
}

/// Generates the categories `lo..=hi` of `g`'s kind, numbered after `items`.
fn generate(
    items: &[Item],
    g: &Generator,
    [lo, hi]: [usize; 2],
    regex: bool,
) -> Result<Vec<Item>, StoreError> {
    let bad = |e: String| StoreError::Io("harder items".into(), std::io::Error::other(e));
    let params = crate::grammar::GenParams {
        depth: hi + 1,
        per_category: g.per_category,
        vocab: g.kind.vocab(),
        ..crate::grammar::GenParams::default()
    };
    let cfg = g.kind.grammar().map_err(|e| bad(e.to_string()))?;
    let batch = crate::grammar::generate_batch(&cfg, &params, g.seed, 0, &mut |_| {})
        .map_err(|e| bad(e.to_string()))?;
    let next = items.iter().map(|i| i.idx + 1).max().unwrap_or(0);
    Ok(batch
        .items
        .iter()
        .map(|x| crate::dataset::item_from(x, 0, 0))
        .filter(|i| category(i, regex).is_some_and(|c| (lo..=hi).contains(&c)))
        .enumerate()
        .map(|(j, mut i)| {
            i.idx = next + j;
            i
        })
        .collect())
}

/// Harder items when the model has not broken inside the range (the fit crosses the
/// level above the hardest category, or every answer so far is right): appended to
/// `items` and recorded; None when it has broken, or the range is at [`MAX_CATEGORY`].
fn harder(
    items: &mut Vec<Item>,
    g: &Generator,
    cells: &[Cell],
    fit: Option<breaking::Logistic>,
    level: f64,
    regex: bool,
) -> Result<Option<Generated>, StoreError> {
    let Some(top) = top(items, regex) else {
        return Ok(None);
    };
    let asked_top = cells.iter().any(|c| c.x as usize == top);
    let (k, n) = cells
        .iter()
        .fold((0.0, 0.0), |(k, n), c| (k + c.k, n + c.n));
    let unbroken = match fit.and_then(|f| f.crossing(level)) {
        Some(x) => x > top as f64,
        None => fit.is_none() && n > 0.0 && k >= level * n,
    };
    let lo = top + 1;
    let hi = (top + STEP).min(g.max_category);
    if !(asked_top && unbroken) || lo > hi {
        return Ok(None);
    }
    let new = generate(items, g, [lo, hi], regex)?;
    if new.is_empty() {
        return Ok(None);
    }
    let rec = Generated {
        depth: hi + 1,
        seed: g.seed,
        categories: [lo, hi],
        items: new.len(),
    };
    items.extend(new);
    Ok(Some(rec))
}

/// Regenerates the harder items a resumed run's earlier rounds generated, in order (the
/// items' ids are the same as when they were first generated).
pub(crate) fn restore(
    dir: &Path,
    items: &mut Vec<Item>,
    d: &Design,
    kind: &str,
) -> Result<(), StoreError> {
    let Some(g) = &d.generator else {
        return Ok(());
    };
    if !dir.join(DESIGN).exists() {
        return Ok(());
    }
    let regex = kind.starts_with("regex");
    for r in read_design(dir)? {
        if let Some(x) = r.generated
            && top(items, regex).is_none_or(|t| t < x.categories[0])
        {
            let new = generate(items, g, x.categories, regex)?;
            items.extend(new);
        }
    }
    Ok(())
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
    /// Takes the dataset's `items` (of kind `kind`), with the harder items earlier rounds
    /// of design `d` generated, and makes the run folder `out`.
    pub(crate) fn start(
        out: &Path,
        items: &mut Vec<Item>,
        kind: &str,
        d: &Design,
    ) -> Result<Rounds, StoreError> {
        std::fs::create_dir_all(out).map_err(|e| StoreError::Io(out.display().to_string(), e))?;
        let mut items = std::mem::take(items);
        restore(out, &mut items, d, kind)?;
        Ok(Rounds {
            items,
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
