//! The order candidates are confirmed in, computed lazily: a rank's cheap part sorts
//! every candidate, its expensive parts (the candidate's tree, its distance to φ₁,
//! the structural diff's kinds) only the few candidates it must order.

/// The first item `accept` takes, in the order of a stable sort by `prefix`, then
/// `rest`, then `tie`, where `build` (None: the item is left out) runs only for the
/// groups of equal `prefix` reached, `rest` only where such a group holds more than
/// one item, and `tie` (the keys of several items of the same `rest`, given
/// together so it can see when a costly part of them cannot differ) only where
/// several have the same `rest`: the expensive parts of a rank are paid for the few
/// candidates they order. `accept` answers None to stop the search (nothing later
/// can be taken).
pub(super) fn first_in_order<U, T, P: Ord, R: Ord, S: Ord>(
    mut items: Vec<U>,
    prefix: impl Fn(&U) -> P,
    mut build: impl FnMut(U) -> Option<T>,
    mut rest: impl FnMut(&T) -> R,
    mut tie: impl FnMut(&[T]) -> Vec<S>,
    mut accept: impl FnMut(&T) -> Option<bool>,
) -> Option<T> {
    items.sort_by_key(&prefix);
    let mut items = items.into_iter().peekable();
    while let Some(first) = items.next() {
        let p = prefix(&first);
        let mut group = vec![first];
        while let Some(u) = items.next_if(|u| prefix(u) == p) {
            group.push(u);
        }
        let built: Vec<T> = group.into_iter().filter_map(&mut build).collect();
        if built.len() == 1 {
            let t = built.into_iter().next()?;
            return if accept(&t)? { Some(t) } else { continue };
        }
        let mut keyed: Vec<(R, T)> = built.into_iter().map(|t| (rest(&t), t)).collect();
        keyed.sort_by(|x, y| x.0.cmp(&y.0));
        let mut keyed = keyed.into_iter().peekable();
        while let Some((r, first)) = keyed.next() {
            let mut same = vec![first];
            while let Some((_, t)) = keyed.next_if(|(q, _)| *q == r) {
                same.push(t);
            }
            if same.len() > 1 {
                let keys = tie(&same);
                let mut tied: Vec<(S, T)> = keys.into_iter().zip(same).collect();
                tied.sort_by(|x, y| x.0.cmp(&y.0));
                same = tied.into_iter().map(|(_, t)| t).collect();
            }
            for t in same {
                if accept(&t)? {
                    return Some(t);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// (prefix, rest, tie, label); label 7 is left out by `build`.
    type Item = (u8, u8, u8, u8);

    proptest! {
        /// The lazy order is a stable sort by (prefix, rest, tie), with the items
        /// `build` leaves out skipped, and stops where `accept` says so.
        #[test]
        fn the_first_taken_is_the_first_of_a_stable_sort(
            items in proptest::collection::vec((0u8..3, 0u8..3, 0u8..3, 0u8..8), 0..40),
            taken in 0u8..8,
            stop in 0u8..8,
        ) {
            let indexed: Vec<(usize, Item)> = items.iter().copied().enumerate().collect();
            let mut sorted: Vec<&(usize, Item)> =
                indexed.iter().filter(|(_, x)| x.3 != 7).collect();
            sorted.sort_by_key(|(_, x)| (x.0, x.1, x.2));
            // Accept the first labelled `taken`; stop at the first labelled `stop`.
            let mut expected = None;
            for (i, x) in sorted {
                if x.3 == stop && stop != taken {
                    break;
                }
                if x.3 == taken {
                    expected = Some(*i);
                    break;
                }
            }
            let got = first_in_order(
                indexed.clone(),
                |(_, x)| x.0,
                |u| (u.1.3 != 7).then_some(u),
                |(_, x)| x.1,
                |same| same.iter().map(|(_, x)| x.2).collect(),
                |(_, x)| {
                    if x.3 == stop && stop != taken {
                        None
                    } else {
                        Some(x.3 == taken)
                    }
                },
            );
            prop_assert_eq!(got.map(|(i, _)| i), expected);
        }
    }
}
