//! `run --limit N`: N items spread evenly over the whole range of the dataset's buckets
//! (operator count for logic, depth for regexes), picked within each bucket by a seeded
//! shuffle. The first N items would be the lowest buckets only (a 30-sample pilot
//! covering operators 0–1), and one item from each of the first N buckets would keep the
//! easy half; when N is below the number of buckets, N buckets evenly spaced from the
//! lowest to the highest are kept (the offset of the spacing is seeded). The same dataset,
//! N and seed always pick the same items, so `--resume` works. The viewer's form and
//! `--dry-run` go through [`apply`] too.

use crate::dataset::{Dataset, Item};
use std::collections::BTreeMap;

/// What a limit kept, for the line the run prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitNote {
    /// Items kept.
    pub kept: usize,
    /// Items in the dataset.
    pub of: usize,
    /// The bucket measure (`operators` or `depth`).
    pub by: &'static str,
    /// Items kept per bucket value (None: items without the measure).
    pub per_bucket: BTreeMap<Option<usize>, usize>,
    /// The dataset's buckets, lowest first.
    pub buckets: Vec<Option<usize>>,
    /// The seed of the pick.
    pub seed: u64,
}

/// A bucket value as printed (`?`: items without the measure).
fn name(b: Option<usize>) -> String {
    b.map_or_else(|| "?".into(), |b| b.to_string())
}

/// `lo–hi` of a run of bucket values (one value alone when they are equal).
fn span(values: impl Iterator<Item = Option<usize>> + Clone) -> String {
    let first = values.clone().next();
    let last = values.last();
    match (first, last) {
        (Some(a), Some(b)) if a != b => format!("{}–{}", name(a), name(b)),
        (Some(a), _) => name(a),
        _ => "none".into(),
    }
}

impl LimitNote {
    /// One line for the run's output: how many, the range of buckets kept out of the
    /// dataset's range, and the counts per bucket.
    pub fn line(&self) -> String {
        // Many buckets: the spread of counts, not a line per bucket.
        let counts = if self.per_bucket.len() > 12 {
            let lo = self.per_bucket.values().min().unwrap_or(&0);
            let hi = self.per_bucket.values().max().unwrap_or(&0);
            if lo == hi {
                format!("{lo} each")
            } else {
                format!("{lo}–{hi} each")
            }
        } else {
            self.per_bucket
                .iter()
                .map(|(b, n)| format!("{}:{n}", name(*b)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "--limit {}: {} of {} samples, spread evenly over {} {} of {} ({} of {} buckets, seed {}; {counts})",
            self.kept,
            self.kept,
            self.of,
            self.by,
            // Items without the measure (`?`) are counted, not part of the range.
            span(self.per_bucket.keys().copied().flatten().map(Some)),
            span(self.buckets.iter().copied().flatten().map(Some)),
            self.per_bucket.len(),
            self.buckets.len(),
            self.seed,
        )
    }
}

/// The bucket of an item: its depth for regexes (and depth-bucketed sets), its operator
/// count otherwise.
fn bucket(item: &Item, regex: bool) -> Option<usize> {
    if regex {
        item.depth
    } else {
        item.num_operators
    }
}

/// The order buckets `0..k` are first given a sample in: a seeded one, then each time
/// the bucket farthest from those already chosen (ties by the seed). Any first m of it
/// are spread over the whole range (the second is an end, the gaps halve), and a
/// larger limit keeps every pick of a smaller one, so a pilot grown with `--resume`
/// keeps its samples.
fn spread_order(k: usize, rng: &mut crate::base::rng::Rng) -> Vec<usize> {
    if k == 0 {
        return Vec::new();
    }
    let first = rng.below(k);
    let mut order = vec![first];
    let mut dist: Vec<usize> = (0..k).map(|b| b.abs_diff(first)).collect();
    while order.len() < k {
        let far = dist.iter().copied().max().unwrap_or(0);
        let ties: Vec<usize> = (0..k).filter(|&b| dist[b] == far).collect();
        let next = ties[rng.below(ties.len())];
        order.push(next);
        for (b, d) in dist.iter_mut().enumerate() {
            *d = (*d).min(b.abs_diff(next));
        }
    }
    order
}

/// Quotas per bucket: one sample at a time, round after round, to the buckets in
/// [`spread_order`] that still have items. N below the number of buckets gives one
/// each to buckets spread over the whole range, never to the lowest ones; above it
/// every bucket gets its even share (a bucket with fewer items gives its share to the
/// others); a larger N only adds to a smaller one's quotas.
fn quotas(sizes: &[usize], n: usize, rng: &mut crate::base::rng::Rng) -> Vec<usize> {
    let order = spread_order(sizes.len(), rng);
    let mut q = vec![0; sizes.len()];
    let mut left = n.min(sizes.iter().sum());
    while left > 0 {
        for &b in &order {
            if left > 0 && q[b] < sizes[b] {
                q[b] += 1;
                left -= 1;
            }
        }
    }
    q
}

/// The stream key of the bucket choice (the per-bucket shuffles use the bucket value).
const SPACING_STREAM: u64 = u64::MAX - 1;

/// Whether the dataset is bucketed by depth (regexes and Multi-LogiEval's tasks).
fn by_depth(ds: &Dataset) -> bool {
    ds.syntax == crate::syntax::SyntaxKind::Regex || ds.filter_field() == "depth"
}

/// The positions (into `file.data`) of the items `--limit n` keeps, in file order.
pub fn pick(ds: &Dataset, n: usize, seed: u64) -> Vec<usize> {
    let regex = by_depth(ds);
    let mut by: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    for (i, item) in ds.file.data.iter().enumerate() {
        by.entry(bucket(item, regex)).or_default().push(i);
    }
    let sizes: Vec<usize> = by.values().map(Vec::len).collect();
    let q = quotas(
        &sizes,
        n,
        &mut crate::base::rng::Rng::stream(seed, SPACING_STREAM),
    );
    let mut keep = Vec::with_capacity(n.min(ds.file.data.len()));
    for ((b, mut items), want) in by.into_iter().zip(q) {
        // One stream per bucket: its pick does not depend on the other buckets.
        let key = b.map_or(u64::MAX, |b| b as u64);
        let mut rng = crate::base::rng::Rng::stream(seed, key);
        rng.shuffle(&mut items);
        keep.extend(items.into_iter().take(want));
    }
    keep.sort_unstable();
    keep
}

/// Keeps only what `--limit n` picks (items and their parsed forms), or nothing when
/// the dataset is no larger than `n`. Returns what was kept, for the run to say.
pub fn apply(ds: &mut Dataset, n: Option<usize>, seed: u64) -> Option<LimitNote> {
    let n = n?;
    let of = ds.file.data.len();
    if n >= of {
        return None;
    }
    let keep = pick(ds, n, seed);
    let regex = by_depth(ds);
    let buckets: Vec<Option<usize>> = ds
        .file
        .data
        .iter()
        .map(|it| bucket(it, regex))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut per_bucket = BTreeMap::new();
    for &i in &keep {
        *per_bucket
            .entry(bucket(&ds.file.data[i], regex))
            .or_insert(0) += 1;
    }
    let aligned = ds.exprs.len() == of;
    let mut data = Vec::with_capacity(keep.len());
    let mut exprs = Vec::with_capacity(keep.len());
    let (mut old_data, mut old_exprs) = (
        std::mem::take(&mut ds.file.data).into_iter().enumerate(),
        std::mem::take(&mut ds.exprs).into_iter(),
    );
    let mut next = keep.iter().copied().peekable();
    while let (Some(&want), Some((i, item))) = (next.peek(), old_data.next()) {
        let e = if aligned { old_exprs.next() } else { None };
        if i == want {
            data.push(item);
            exprs.extend(e);
            next.next();
        }
    }
    ds.file.data = data;
    ds.exprs = exprs;
    Some(LimitNote {
        kept: keep.len(),
        of,
        by: if regex { "depth" } else { "operators" },
        per_bucket,
        buckets,
        seed,
    })
}

#[cfg(test)]
#[path = "limit_tests.rs"]
mod tests;
