//! The bound over listed edge pairs against the plain dynamic program it replaced,
//! which scans every partner's edges for each child edge.
use super::*;

/// The plain program: for each variable and allowed partner, each child edge takes
/// its best value over the partner's edges of the same relation.
fn reference(t: &TreeBound, map: &[u32], used: &[bool], out2: &[Adj]) -> u32 {
    let n2 = t.n2;
    let mut val = vec![0u32; t.kids.len() * n2];
    let mut best_of = vec![0u32; t.kids.len()];
    let allowed = |v: u32, x: u32| match map[v as usize] {
        OPEN => !used[x as usize],
        m => m == x,
    };
    let child_best = |best_of: &[u32], c: u32| {
        if t.shared_leaf[c as usize] {
            0
        } else {
            best_of[c as usize]
        }
    };
    let mut total = t.loose;
    for &u in &t.order {
        let uu = u as usize;
        let free: u32 = t.kids[uu]
            .iter()
            .map(|e| child_best(&best_of, e.child))
            .sum();
        let mut best = if map[uu] == OPEN || map[uu] == NONE {
            free
        } else {
            0
        };
        for (w, w_out) in out2.iter().enumerate() {
            if !allowed(u, w as u32) {
                continue;
            }
            let mut v = if t.shared_leaf[uu] {
                0
            } else {
                t.unary[uu * n2 + w]
            };
            for e in &t.kids[uu] {
                let mut b = child_best(&best_of, e.child);
                if map[e.child as usize] != NONE {
                    for &(r, x, cnt) in w_out {
                        let End::Var(x) = x else { continue };
                        if r != e.r || !allowed(e.child, x) {
                            continue;
                        }
                        let sub = if t.shared_leaf[e.child as usize] {
                            0
                        } else {
                            val[e.child as usize * n2 + x as usize]
                        };
                        b = b.max(e.n.min(cnt) + sub);
                    }
                }
                v += b;
            }
            val[uu * n2 + w] = v;
            best = best.max(v);
        }
        best_of[uu] = best;
        if t.shared_leaf[uu] {
            total += (0..n2)
                .filter(|&w| allowed(u, w as u32))
                .map(|w| t.unary[uu * n2 + w])
                .max()
                .unwrap_or(0);
        }
    }
    total + t.roots.iter().map(|&r| best_of[r as usize]).sum::<u32>()
}

/// Distinct triples with at least one variable, counted, over few relations so that
/// shared leaves, cycles, self-loops and parallel edges all occur.
fn random_triples(rng: &mut crate::base::rng::Rng, vars: u32) -> Vec<Counted> {
    let end = |rng: &mut crate::base::rng::Rng| {
        if rng.below(4) > 0 {
            End::Var(rng.below(vars as usize) as u32)
        } else {
            End::Const(rng.below(3) as u32)
        }
    };
    let mut v: Vec<(End, u32, End)> = (0..rng.range(0, 3 * vars as usize + 2))
        .map(|_| (end(rng), rng.below(3) as u32, end(rng)))
        .filter(|(s, _, o)| matches!(s, End::Var(_)) || matches!(o, End::Var(_)))
        .collect();
    v.sort_unstable();
    let mut out: Vec<Counted> = Vec::new();
    for (s, r, o) in v {
        match out.last_mut() {
            Some(l) if (l.0, l.1, l.2) == (s, r, o) => l.3 += 1,
            _ => out.push((s, r, o, 1)),
        }
    }
    out
}

#[test]
fn listed_edge_pairs_give_the_plain_programs_bound_on_random_partial_maps() {
    let mut rng = crate::base::rng::Rng::new(4242);
    let mut decided_cases = 0;
    for case in 0..4000 {
        let (n1, n2) = (rng.range(1, 8) as u32, rng.range(1, 8) as u32);
        let t1 = random_triples(&mut rng, n1);
        let mut out2: Vec<Adj> = vec![Vec::new(); n2 as usize];
        let mut in2: Vec<Adj> = vec![Vec::new(); n2 as usize];
        for (s, r, o, n) in random_triples(&mut rng, n2) {
            if let End::Var(v) = s {
                out2[v as usize].push((r, o, n));
            }
            if let End::Var(v) = o {
                in2[v as usize].push((r, s, n));
            }
        }
        let mut tree = TreeBound::new(n1 as usize, &t1, &out2, &in2);
        // Own triples' matches per partner, by scanning the partner's edges.
        let c2 = |a: End, r: u32, b: End| -> u32 {
            let (list, x) = match (a, b) {
                (End::Var(w), x) => (&out2[w as usize], x),
                (x, End::Var(w)) => (&in2[w as usize], x),
                _ => return 0,
            };
            list.iter()
                .find(|&&(rr, e, _)| rr == r && e == x)
                .map_or(0, |t| t.2)
        };
        let mut unary = vec![0u32; n1 as usize * n2 as usize];
        for &(s, r, o, n) in &t1 {
            for w in 0..n2 {
                let e = End::Var(w);
                let (a, m) = match (s, o) {
                    (End::Var(a), End::Var(b)) if a == b => (a, c2(e, r, e)),
                    (End::Var(_), End::Var(_)) => continue,
                    (End::Var(a), c) => (a, c2(e, r, c)),
                    (c, End::Var(a)) => (a, c2(c, r, e)),
                    _ => continue,
                };
                unary[a as usize * n2 as usize + w as usize] += n.min(m);
            }
        }
        assert_eq!(tree.unary, unary, "case {case}");
        // A partial map as the search holds one: some decided (partner or none).
        let mut map = vec![OPEN; n1 as usize];
        let mut used = vec![false; n2 as usize];
        for m in &mut map {
            match rng.below(3) {
                0 => {}
                1 => *m = NONE,
                _ => {
                    let w = rng.below(n2 as usize);
                    if !used[w] {
                        used[w] = true;
                        *m = w as u32;
                    }
                }
            }
        }
        decided_cases += usize::from(map.iter().any(|&m| m != OPEN && m != NONE));
        let want = reference(&tree, &map, &used, &out2);
        assert_eq!(
            tree.bound(&map, &used),
            want,
            "case {case}: {t1:?} {out2:?} {map:?}"
        );
        // The root call (nothing decided) too, which `decode` reads.
        let open = vec![OPEN; n1 as usize];
        let free = vec![false; n2 as usize];
        assert_eq!(
            tree.bound(&open, &free),
            reference(&tree, &open, &free, &out2),
            "case {case}"
        );
    }
    assert!(decided_cases > 1000, "{decided_cases}");
}
