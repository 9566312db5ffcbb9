//! Where the structural diff points in a regex (issue 47), as [`super::focus`] does
//! for formulas: the nodes of φ₀ whose subexpression φ₁ no longer holds (alternatives
//! read unordered), so the search screens the edits there first and tries pairs of
//! edits whose result φ₁ holds before any other pair. An order, never a filter.

use super::regex::{Edit, Pool, edits, local};
use crate::syntax::Regex;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

fn key(r: &Regex) -> u64 {
    let mut h = DefaultHasher::new();
    match r {
        Regex::Alt(xs) => {
            let mut keys: Vec<u64> = xs.iter().map(key).collect();
            keys.sort_unstable();
            keys.dedup();
            ("alt", keys).hash(&mut h);
        }
        Regex::Concat(xs) => ("cat", xs.iter().map(key).collect::<Vec<_>>()).hash(&mut h),
        Regex::Star(x) => ("star", key(x)).hash(&mut h),
        Regex::Plus(x) => ("plus", key(x)).hash(&mut h),
        Regex::Opt(x) => ("opt", key(x)).hash(&mut h),
        Regex::Repeat(x, n, m) => ("rep", key(x), n, m).hash(&mut h),
        Regex::Sym(c) => ("sym", c).hash(&mut h),
        Regex::Epsilon => "eps".hash(&mut h),
    }
    h.finish()
}

/// The keys of φ₁'s subexpressions.
pub(super) struct Kept(HashSet<u64>);

impl Kept {
    pub(super) fn new(b: &Regex) -> Kept {
        let mut kept = HashSet::new();
        b.walk(&mut |x| {
            kept.insert(key(x));
        });
        Kept(kept)
    }

    /// Per node of `a` in pre-order: 0 where the change is, 1 for a kept child of
    /// such a node, 2 elsewhere (as [`super::focus::Kept::levels`]).
    pub(super) fn levels(&self, a: &Regex) -> Vec<u8> {
        fn mark(r: &Regex, kept: &HashSet<u64>, changed_above: bool, out: &mut Vec<u8>) {
            let here = changed_above && !kept.contains(&key(r));
            out.push(match (here, changed_above) {
                (true, _) => 0,
                (false, true) => 1,
                (false, false) => 2,
            });
            match r {
                Regex::Concat(xs) | Regex::Alt(xs) => {
                    for x in xs {
                        mark(x, kept, here, out);
                    }
                }
                Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => {
                    mark(x, kept, here, out);
                }
                Regex::Epsilon | Regex::Sym(_) => {}
            }
        }
        let mut out = Vec::with_capacity(a.size());
        mark(a, &self.0, true, &mut out);
        out
    }

    /// Whether φ₁ holds `r` as a subexpression (alternatives read unordered).
    pub(super) fn holds(&self, r: &Regex) -> bool {
        self.0.contains(&key(r))
    }

    /// The edits of `r` the diff points at, in [`edits`]' order: at a node where the
    /// change is (or a kept child of one), making a subexpression φ₁ holds.
    pub(super) fn pointed(&self, r: &Regex, pool: &Pool) -> Vec<Edit> {
        let levels = self.levels(r);
        let mut nodes = Vec::with_capacity(levels.len());
        r.walk(&mut |x| nodes.push(x));
        edits(r, pool)
            .into_iter()
            .filter(|e| {
                levels.get(e.at).is_some_and(|l| *l <= 1)
                    && nodes
                        .get(e.at)
                        .and_then(|x| local(x, &e.op, pool))
                        .is_some_and(|y| self.0.contains(&key(&y)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_regex;

    #[test]
    fn the_changed_star_is_pointed_at() {
        let a = parse_regex("(01)*1(10)*").unwrap();
        let b = parse_regex("(01)*1(10*)").unwrap();
        let kept = Kept::new(&b);
        // The root and (10)* are changed; the star's body 10 under it is kept… no:
        // 10 is not in φ₁ (10* is), so it is changed too; (01)* and 1 are kept.
        let levels = kept.levels(&a);
        assert_eq!(levels[0], 0);
        let pool = Pool::new(&a, &b);
        let pointed = kept.pointed(&a, &pool);
        assert!(!pointed.is_empty());
        // Each pointed edit makes a part φ₁ holds.
        for e in &pointed {
            assert!(levels[e.at] <= 1, "{e:?}");
        }
    }
}
