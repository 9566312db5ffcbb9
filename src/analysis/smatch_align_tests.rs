//! Tests of the alignment search: hand cases and brute-force agreement on random graphs.
use super::*;
use End::{Const, Var};

#[test]
fn finds_the_alignment_a_greedy_choice_misses() {
    // G1: a→b (rel 0) and both concept 5. G2 the same with vars swapped in order.
    let g1 = Graph {
        vars: 2,
        triples: vec![
            (Var(0), 1, Const(5)),
            (Var(1), 1, Const(5)),
            (Var(0), 0, Var(1)),
        ],
    };
    let g2 = Graph {
        vars: 2,
        triples: vec![
            (Var(1), 1, Const(5)),
            (Var(0), 1, Const(5)),
            (Var(1), 0, Var(0)),
        ],
    };
    assert_eq!(
        best_matches(&g1, &g2),
        Alignment {
            matches: 3,
            optimal: true
        }
    );
    assert_eq!(f1(&g1, &g2).0, 1.0);
    // Duplicates count min(c1, c2).
    let g3 = Graph {
        vars: 1,
        triples: vec![(Var(0), 1, Const(5)); 3],
    };
    let g4 = Graph {
        vars: 1,
        triples: vec![(Var(0), 1, Const(5)); 2],
    };
    assert_eq!(best_matches(&g3, &g4).matches, 2);
}

/// Matches of one complete map (`None` = unmatched), counted by definition.
fn matches_under(g1: &Graph, g2: &Graph, m: &[Option<u32>]) -> usize {
    let img = |e: End| match e {
        End::Const(_) => Some(e),
        End::Var(v) => m[v as usize].map(End::Var),
    };
    let mut want: HashMap<(End, u32, End), usize> = HashMap::default();
    for &(s, r, o) in &g1.triples {
        if let (Some(a), Some(b)) = (img(s), img(o)) {
            *want.entry((a, r, b)).or_default() += 1;
        }
    }
    want.iter()
        .map(|(k, &n)| n.min(g2.triples.iter().filter(|t| *t == k).count()))
        .sum()
}

/// The best over every injective partial map, by enumeration.
fn brute(g1: &Graph, g2: &Graph) -> usize {
    fn go(g1: &Graph, g2: &Graph, m: &mut Vec<Option<u32>>, used: &mut Vec<bool>) -> usize {
        if m.len() == g1.vars as usize {
            return matches_under(g1, g2, m);
        }
        m.push(None);
        let mut best = go(g1, g2, m, used);
        m.pop();
        for w in 0..g2.vars {
            if !used[w as usize] {
                used[w as usize] = true;
                m.push(Some(w));
                best = best.max(go(g1, g2, m, used));
                m.pop();
                used[w as usize] = false;
            }
        }
        best
    }
    go(g1, g2, &mut Vec::new(), &mut vec![false; g2.vars as usize])
}

/// A small random graph over few relations and constants, so that twins,
/// duplicates, self-loops and constant-only triples all occur.
fn random_graph(rng: &mut crate::base::rng::Rng) -> Graph {
    let vars = rng.range(0, 6) as u32;
    let end = |rng: &mut crate::base::rng::Rng| {
        if vars > 0 && rng.below(3) > 0 {
            End::Var(rng.below(vars as usize) as u32)
        } else {
            End::Const(rng.below(3) as u32)
        }
    };
    let n = rng.range(0, 10);
    let triples = (0..n)
        .map(|_| {
            let s = end(rng);
            let r = rng.below(3) as u32;
            (s, r, end(rng))
        })
        .collect();
    Graph { vars, triples }
}

#[test]
fn search_equals_brute_force_on_random_small_graphs() {
    let mut rng = crate::base::rng::Rng::new(2323);
    for case in 0..3000 {
        let g1 = random_graph(&mut rng);
        // Half the cases pair a graph with a relabelled, slightly edited copy,
        // as runs do (identical or one perturbation away).
        let g2 = if case % 2 == 0 {
            let mut g = g1.clone();
            g.triples.reverse();
            if rng.chance(0.5) && !g.triples.is_empty() {
                g.triples.remove(rng.below(g.triples.len()));
            }
            if rng.chance(0.5) {
                g.triples.push((End::Const(1), 2, End::Const(0)));
            }
            g
        } else {
            random_graph(&mut rng)
        };
        let a = best_matches(&g1, &g2);
        assert!(a.optimal, "case {case}");
        assert_eq!(a.matches, brute(&g1, &g2), "case {case}: {g1:?} {g2:?}");
        assert_eq!(best_matches(&g2, &g1).matches, a.matches, "case {case}");
    }
}
