//! `run --limit N`: N items spread evenly over the dataset's buckets (operator count
//! for logic, depth for regexes), picked within each bucket by a seeded shuffle. The
//! first N items would be the lowest buckets only (a 30-sample pilot covering operators
//! 0–1). The same dataset, N and seed always pick the same items, so `--resume` works.

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
    /// The seed of the pick.
    pub seed: u64,
}

impl LimitNote {
    /// One line for the run's output.
    pub fn line(&self) -> String {
        let name = |b: &Option<usize>| b.map_or_else(|| "?".into(), |b| b.to_string());
        // Many buckets: their range and the spread of counts, not a line per bucket.
        let buckets = if self.per_bucket.len() > 12 {
            let lo = self.per_bucket.values().min().unwrap_or(&0);
            let hi = self.per_bucket.values().max().unwrap_or(&0);
            let first = self.per_bucket.keys().next().map(name).unwrap_or_default();
            let last = self.per_bucket.keys().last().map(name).unwrap_or_default();
            format!("{first}–{last}, {lo}–{hi} each")
        } else {
            self.per_bucket
                .iter()
                .map(|(b, n)| format!("{}:{n}", name(b)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "--limit {}: {} of {} samples, spread evenly over {} {} buckets (seed {}; {} {buckets})",
            self.kept,
            self.kept,
            self.of,
            self.per_bucket.len(),
            self.by,
            self.seed,
            self.by,
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

/// Quotas per bucket: N shared as evenly as the buckets' sizes allow (a bucket with
/// fewer items gives its share to the others; the remainder goes to the lowest).
fn quotas(sizes: &[usize], n: usize) -> Vec<usize> {
    let mut q = vec![0; sizes.len()];
    let mut left = n.min(sizes.iter().sum());
    while left > 0 {
        let open: Vec<usize> = (0..sizes.len()).filter(|&b| q[b] < sizes[b]).collect();
        let each = (left / open.len()).max(1);
        for b in open {
            let add = each.min(sizes[b] - q[b]).min(left);
            q[b] += add;
            left -= add;
            if left == 0 {
                break;
            }
        }
    }
    q
}

/// The positions (into `file.data`) of the items `--limit n` keeps, in file order.
pub fn pick(ds: &Dataset, n: usize, seed: u64) -> Vec<usize> {
    // Regexes and depth-bucketed sets (Multi-LogiEval's tasks) spread over depths.
    let regex = ds.syntax == crate::syntax::SyntaxKind::Regex || ds.filter_field() == "depth";
    let mut by: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    for (i, item) in ds.file.data.iter().enumerate() {
        by.entry(bucket(item, regex)).or_default().push(i);
    }
    let sizes: Vec<usize> = by.values().map(Vec::len).collect();
    let q = quotas(&sizes, n);
    let mut keep = Vec::with_capacity(n.min(ds.file.data.len()));
    for ((b, mut items), want) in by.into_iter().zip(q) {
        // One stream per bucket: its pick does not depend on the other buckets.
        let key = b.map_or(u64::MAX, |b| b as u64);
        let mut rng = crate::rng::Rng::stream(seed, key);
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
    // Regexes and depth-bucketed sets (Multi-LogiEval's tasks) spread over depths.
    let regex = ds.syntax == crate::syntax::SyntaxKind::Regex || ds.filter_field() == "depth";
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
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::quotas;

    #[test]
    fn quotas_share_evenly_and_pass_on_what_small_buckets_cannot_take() {
        assert_eq!(quotas(&[10, 10, 10], 6), [2, 2, 2]);
        assert_eq!(quotas(&[10, 10, 10], 7), [3, 2, 2]);
        assert_eq!(quotas(&[1, 10, 10], 9), [1, 4, 4]);
        assert_eq!(quotas(&[2, 2], 10), [2, 2]);
        assert_eq!(quotas(&[5, 5, 5], 0), [0, 0, 0]);
        assert_eq!(quotas(&[], 3), Vec::<usize>::new());
    }
}
