use super::{apply, pick, quotas, spread_order};
use crate::dataset::{Dataset, DatasetFile, Item};
use crate::syntax::SyntaxKind;
use proptest::prelude::*;

#[test]
fn quotas_share_evenly_and_pass_on_what_small_buckets_cannot_take() {
    let mut rng = crate::base::rng::Rng::new(0);
    assert_eq!(quotas(&[10, 10, 10], 6, &mut rng), [2, 2, 2]);
    assert_eq!(quotas(&[1, 10, 10], 9, &mut rng), [1, 4, 4]);
    assert_eq!(quotas(&[2, 2], 10, &mut rng), [2, 2]);
    assert_eq!(quotas(&[5, 5, 5], 0, &mut rng), [0, 0, 0]);
    assert_eq!(quotas(&[], 3, &mut rng), Vec::<usize>::new());
    // One left over goes to one bucket, whichever the seed spaces to.
    assert_eq!(quotas(&[10, 10, 10], 7, &mut rng).iter().sum::<usize>(), 7);
}

#[test]
fn fewer_than_the_buckets_spans_the_range_not_the_lowest() {
    let q = quotas(&[5; 40], 20, &mut crate::base::rng::Rng::new(3));
    let kept: Vec<usize> = (0..40).filter(|&b| q[b] > 0).collect();
    assert_eq!(kept.len(), 20);
    assert!(kept[0] <= 1 && kept[19] >= 38, "{kept:?}");
    // Every bucket comes once in the order.
    let mut o = spread_order(40, &mut crate::base::rng::Rng::new(3));
    o.sort_unstable();
    assert_eq!(o, (0..40).collect::<Vec<_>>());
}

/// A dataset of `kind` with `sizes[i]` items in bucket `lo + i·step`.
fn dataset(kind: SyntaxKind, lo: usize, step: usize, sizes: &[usize]) -> Dataset {
    let field = if kind == SyntaxKind::Regex {
        "depth"
    } else {
        "num_operators"
    };
    let mut data = Vec::new();
    for (b, &n) in sizes.iter().enumerate() {
        for _ in 0..n {
            let item: Item = serde_json::from_value(serde_json::json!({
                "idx": data.len(), "fs": "p", field: lo + b * step,
            }))
            .unwrap();
            data.push(item);
        }
    }
    Dataset {
        file: DatasetFile {
            info: serde_json::Map::new(),
            metadata: serde_json::Map::new(),
            data,
            extra: serde_json::Map::new(),
        },
        syntax: kind,
        exprs: Vec::new(),
        skipped: Vec::new(),
    }
}

/// A generated dataset and a limit below, at or above its number of buckets.
fn case() -> impl Strategy<Value = (SyntaxKind, usize, usize, Vec<usize>, usize, u64)> {
    (
        prop_oneof![
            Just(SyntaxKind::Pl),
            Just(SyntaxKind::Fol),
            Just(SyntaxKind::Regex)
        ],
        0usize..5,
        1usize..4,
        proptest::collection::vec(1usize..6, 1..60),
        0usize..3,
        any::<u64>(),
    )
        .prop_flat_map(|(kind, lo, step, sizes, rel, seed)| {
            let k = sizes.len();
            // Below, at or above the number of buckets.
            let n = match rel {
                0 => (1..k.max(2)).boxed(),
                1 => Just(k).boxed(),
                _ => (k..=k * 4).boxed(),
            };
            (Just(kind), Just(lo), Just(step), Just(sizes), n, Just(seed))
        })
}

proptest! {
    #[test]
    fn a_limit_covers_the_whole_range_and_adds_up(
        (kind, lo, step, sizes, n, seed) in case()
    ) {
        let mut ds = dataset(kind, lo, step, &sizes);
        let total: usize = sizes.iter().sum();
        let k = sizes.len();
        let picked = pick(&ds, n, seed);
        prop_assert_eq!(&picked, &pick(&ds, n, seed), "seeded");
        prop_assert_eq!(picked.len(), n.min(total));
        // A smaller limit's picks are all kept by a larger one (a pilot grown with
        // `--resume` keeps its samples).
        let smaller = pick(&ds, n / 2, seed);
        prop_assert!(smaller.iter().all(|i| picked.contains(i)), "{:?} ⊄ {:?}", smaller, picked);
        let note = apply(&mut ds, Some(n), seed);
        if n >= total {
            prop_assert!(note.is_none());
            return Ok(());
        }
        let note = note.unwrap();
        prop_assert_eq!(ds.file.data.len(), n);
        prop_assert_eq!(note.kept, n);
        prop_assert_eq!(note.per_bucket.values().sum::<usize>(), n);
        prop_assert_eq!(note.buckets.len(), k);
        prop_assert_eq!(note.by, if kind == SyntaxKind::Regex { "depth" } else { "operators" });
        // Bucket positions kept (0 = the dataset's lowest); m buckets kept of k.
        let index = |b: &Option<usize>| (b.unwrap() - lo) / step;
        let kept: Vec<usize> = note.per_bucket.keys().map(index).collect();
        let m = kept.len();
        prop_assert_eq!(m, n.min(k));
        // Within one spacing (k/m buckets) of either end.
        prop_assert!(kept[0] * m < k, "lowest {} of {k}, {m} kept", kept[0]);
        prop_assert!((k - 1 - kept[m - 1]) * m < k, "highest {} of {k}, {m} kept", kept[m - 1]);
        // Shared evenly: a bucket has more than one over another only when that one is full.
        for (&a, &qa) in &note.per_bucket {
            prop_assert!(qa <= sizes[index(&a)]);
            for (b, &size) in sizes.iter().enumerate() {
                let qb = note.per_bucket.get(&Some(lo + b * step)).copied().unwrap_or(0);
                prop_assert!(qa <= qb + 1 || qb == size, "{:?}", note.per_bucket);
            }
        }
        // The line states the range kept and the dataset's.
        let line = note.line();
        let first = note.buckets[0].unwrap();
        let last = note.buckets[k - 1].unwrap();
        let whole = if first == last { first.to_string() } else { format!("{first}–{last}") };
        prop_assert!(line.contains(&format!("of {whole} (")), "{}", line);
    }
}
