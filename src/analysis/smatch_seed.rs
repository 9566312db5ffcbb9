//! The search's first alignments: a greedy descent and the structural bound's own map,
//! each improved by hill climbing. Only a better first `best`: optimality still comes
//! from the search.

use super::{End, GAIN_COST, NONE, OPEN, Search, Triple1};

impl Search {
    /// One descent taking each variable's best-gain partner (the search's first path),
    /// without bounds: a cheap first `best`, which often already meets the ceiling.
    pub(super) fn greedy(&mut self) {
        // Partners with a root gain of 0 share no triple shape with `u`: hill climbing
        // moves `u` only to the others (or to none).
        let n2 = self.used.len();
        let partners: Vec<Vec<u32>> = (0..self.map.len() as u32)
            .map(|u| {
                let row = self.row(u);
                (0..n2 as u32).filter(|&w| row[w as usize] > 0).collect()
            })
            .collect();
        let mut trail = Vec::with_capacity(self.order.len());
        for d in 0..self.order.len() {
            let u = self.order[d];
            let to = self.candidates(u).first().map_or(NONE, |c| c.1);
            let undo = self.assign(u, to);
            trail.push((u, undo));
        }
        self.best = self.best.max(self.score);
        let mut m = self.map.clone();
        while let Some((u, undo)) = trail.pop() {
            self.unassign(u, undo);
        }
        if self.best < self.ceiling {
            let base = self.full_score(&m);
            let better = self.climb(&mut m, &partners);
            self.best = self.best.max(base + better);
        }
        // The structural bound's own alignment often is the optimum the greedy misses.
        if self.best < self.ceiling {
            let mut m = self.tree.decode(&self.out2);
            let base = self.full_score(&m);
            self.best = self.best.max(base);
            if self.best < self.ceiling {
                let better = self.climb(&mut m, &partners);
                self.best = self.best.max(base + better);
            }
        }
    }

    /// Matches under a complete map, with the triples without variables.
    fn full_score(&self, m: &[u32]) -> u32 {
        let img = |e: End| match e {
            End::Const(_) => Some(e),
            End::Var(v) => match m[v as usize] {
                OPEN | NONE => None,
                w => Some(End::Var(w)),
            },
        };
        let own: u32 = self
            .t1
            .iter()
            .filter_map(|t| match (img(t.s), img(t.o)) {
                (Some(a), Some(b)) => Some(t.n.min(self.c2(a, t.r, b))),
                _ => None,
            })
            .sum();
        self.fixed + own
    }

    /// Matches among the triples of `u` (and of `x`, each triple once) under map `m`.
    fn local(&self, m: &[u32], u: u32, x: Option<u32>) -> u32 {
        let img = |e: End| match e {
            End::Const(_) => Some(e),
            End::Var(v) => match m[v as usize] {
                OPEN | NONE => None,
                w => Some(End::Var(w)),
            },
        };
        let mut sum = 0;
        let lists = [Some(u), x.filter(|&x| x != u)];
        for (i, v) in lists.into_iter().enumerate() {
            let Some(v) = v else { continue };
            for &t in &self.inc[v as usize] {
                let Triple1 { s, r, o, n } = self.t1[t as usize];
                if i == 1 && (s == End::Var(u) || o == End::Var(u)) {
                    continue;
                }
                if let (Some(a), Some(b)) = (img(s), img(o)) {
                    sum += n.min(self.c2(a, r, b));
                }
            }
        }
        sum
    }

    /// Hill climbing on a complete map (moves to a free partner or to none, swaps of two
    /// partners) until no move gains; returns the matches gained. Only a better first
    /// `best`: optimality still comes from the search.
    fn climb(&mut self, m: &mut [u32], partners: &[Vec<u32>]) -> u32 {
        let n2 = self.used.len() as u32;
        let mut owner = vec![OPEN; n2 as usize];
        for (u, &w) in m.iter().enumerate() {
            if w != NONE && w != OPEN {
                owner[w as usize] = u as u32;
            }
        }
        let mut gained = 0;
        for _pass in 0..3 {
            let mut improved = false;
            for u in 0..m.len() as u32 {
                // A variable whose triples all match cannot gain by moving; a swap that
                // helps its partner is tried from the partner's side.
                let own: u32 = self.inc[u as usize]
                    .iter()
                    .map(|&t| self.t1[t as usize].n)
                    .sum();
                if self.local(m, u, None) == own {
                    continue;
                }
                for w in partners[u as usize].iter().copied().chain([NONE]) {
                    let a = m[u as usize];
                    if w == a {
                        continue;
                    }
                    let x = if w == NONE { OPEN } else { owner[w as usize] };
                    let other = (x != OPEN).then_some(x);
                    self.work += 2 * GAIN_COST;
                    let before = self.local(m, u, other);
                    m[u as usize] = w;
                    if let Some(x) = other {
                        m[x as usize] = a;
                    }
                    let after = self.local(m, u, other);
                    if after > before {
                        gained += after - before;
                        improved = true;
                        if a != NONE {
                            owner[a as usize] = x;
                        }
                        if w != NONE {
                            owner[w as usize] = u;
                        }
                    } else {
                        m[u as usize] = a;
                        if let Some(x) = other {
                            m[x as usize] = w;
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
        gained
    }
}
