//! Blind labelling: each annotator sees the samples in their own seeded order, so two
//! people do not work through the same sequence (and its priming) side by side.

use crate::base::rng::Rng;

/// FNV-1a: a hash that stays the same across Rust releases, unlike `DefaultHasher`.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The order (indices into `ids`) in which `annotator` labels blind with `seed`. It
/// depends on the ids themselves, not their position, so a reloaded or grown run keeps
/// every earlier sample's relative order.
pub fn order(ids: &[&str], annotator: &str, seed: u64) -> Vec<usize> {
    let key = seed ^ fnv1a(annotator);
    let mut keyed: Vec<(u64, usize)> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (Rng::stream(key, fnv1a(id)).next_u64(), i))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_a_seeded_permutation_per_annotator() {
        let ids: Vec<String> = (0..50).map(|i| i.to_string()).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let a = order(&ids, "alice", 7);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_eq!(
            order(&ids, "alice", 7),
            a,
            "same annotator and seed, same order"
        );
        assert_ne!(order(&ids, "bob", 7), a, "another annotator, another order");
        assert_ne!(order(&ids, "alice", 8), a, "another seed, another order");
        assert_ne!(a, (0..50).collect::<Vec<_>>(), "shuffled");
        // Adding a sample keeps the relative order of the others.
        let mut more = ids.clone();
        more.push("new");
        let b: Vec<usize> = order(&more, "alice", 7)
            .into_iter()
            .filter(|i| *i < 50)
            .collect();
        assert_eq!(b, a);
    }
}
