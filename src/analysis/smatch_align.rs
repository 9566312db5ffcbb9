//! Smatch scoring with an optimal variable alignment: branch and bound over one-to-one
//! maps from the first graph's variables to the second's, so the score is the maximum
//! (what smatchpp's ILP solver finds), not a hill-climber's local optimum.
//!
//! Scoring follows smatchpp's defaults: triples are compared as exact strings, duplicate
//! triples are kept and matched by `min(count₁, count₂)`, the ROOT triple counts, and
//! F1 = 2·matches / (|T₁| + |T₂|).

use std::collections::HashMap;

/// A node position in a triple: a variable of its graph or an interned constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum End {
    Var(u32),
    Const(u32),
}

/// A graph as triples over interned strings.
#[derive(Clone, Debug, Default)]
pub(crate) struct Graph {
    /// Number of variables.
    pub vars: u32,
    /// (source, relation id, target).
    pub triples: Vec<(End, u32, End)>,
}

/// Interns strings shared by two graphs (relations and constants).
#[derive(Default, Debug)]
pub(crate) struct Interner {
    ids: HashMap<String, u32>,
}

impl Interner {
    pub(crate) fn id(&mut self, s: &str) -> u32 {
        let n = self.ids.len() as u32;
        *self.ids.entry(s.to_string()).or_insert(n)
    }
}

/// Search nodes visited before the search stops with the best alignment found so far
/// (then reported as not proved optimal). Each node costs a bound over all remaining
/// variable pairs; 2,000,000 took over a minute on one 60-node pair.
pub const NODE_BUDGET: u64 = 50_000;

/// Variable-pair gain evaluations before the search stops the same way: bounds the
/// time per pair (about a tenth of a second, release build) whatever the graph sizes.
pub const WORK_BUDGET: u64 = 4_000_000;

/// The best match count and whether the search proved it optimal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Alignment {
    /// Matched triples under the best alignment found.
    pub matches: usize,
    /// False only if [`NODE_BUDGET`] ran out first.
    pub optimal: bool,
}

/// Image of a G1 endpoint under a (partial) alignment; `None` when it cannot match.
fn image(e: End, map: &[Option<Option<u32>>]) -> Option<End> {
    match e {
        End::Const(c) => Some(End::Const(c)),
        End::Var(v) => match map[v as usize] {
            Some(Some(w)) => Some(End::Var(w)),
            _ => None,
        },
    }
}

struct Search<'a> {
    g1: &'a Graph,
    /// G2 triple counts.
    c2: HashMap<(End, u32, End), usize>,
    /// For each G2 var: relations it has as source / as target.
    out2: Vec<Vec<u32>>,
    in2: Vec<Vec<u32>>,
    /// For each G1 var: indices of its triples.
    inc: Vec<Vec<usize>>,
    order: Vec<u32>,
    map: Vec<Option<Option<u32>>>,
    used: Vec<bool>,
    counts: HashMap<(End, u32, End), usize>,
    score: usize,
    /// G1 triples whose variables are all decided.
    decided_triples: usize,
    best: usize,
    nodes: u64,
    work: u64,
    n2: u32,
    n2_triples: usize,
    /// An upper bound on any alignment's matches (triples compared with variables
    /// abstracted away): once `best` reaches it the search has proved optimality.
    ceiling: usize,
}

impl Search<'_> {
    /// Whether every variable of triple `t` is decided.
    fn decided(&self, t: usize) -> bool {
        let (s, _, o) = self.g1.triples[t];
        [s, o].iter().all(|e| match e {
            End::Var(v) => self.map[*v as usize].is_some(),
            End::Const(_) => true,
        })
    }

    fn key(&self, t: usize) -> Option<(End, u32, End)> {
        let (s, r, o) = self.g1.triples[t];
        Some((image(s, &self.map)?, r, image(o, &self.map)?))
    }

    /// Decides `u`; returns the triples newly counted (for undo).
    fn assign(&mut self, u: u32, to: Option<u32>) -> Vec<(End, u32, End)> {
        self.map[u as usize] = Some(to);
        if let Some(w) = to {
            self.used[w as usize] = true;
        }
        let mut added = Vec::new();
        for i in 0..self.inc[u as usize].len() {
            let t = self.inc[u as usize][i];
            if !self.decided(t) {
                continue;
            }
            // A self-loop is listed once per end; count it once.
            let (s, _, o) = self.g1.triples[t];
            if s == o && self.inc[u as usize][..i].contains(&t) {
                continue;
            }
            self.decided_triples += 1;
            if let Some(k) = self.key(t)
                && let Some(&cap) = self.c2.get(&k)
            {
                let c = self.counts.entry(k).or_insert(0);
                *c += 1;
                if *c <= cap {
                    self.score += 1;
                }
                added.push(k);
            }
        }
        added
    }

    fn unassign(&mut self, u: u32, added: Vec<(End, u32, End)>) {
        for i in 0..self.inc[u as usize].len() {
            let t = self.inc[u as usize][i];
            let (s, _, o) = self.g1.triples[t];
            if self.decided(t) && !(s == o && self.inc[u as usize][..i].contains(&t)) {
                self.decided_triples -= 1;
            }
        }
        for k in added {
            let cap = self.c2.get(&k).copied().unwrap_or(0);
            if let Some(c) = self.counts.get_mut(&k) {
                if *c <= cap {
                    self.score -= 1;
                }
                *c -= 1;
            }
        }
        if let Some(Some(w)) = self.map[u as usize] {
            self.used[w as usize] = false;
        }
        self.map[u as usize] = None;
    }

    /// Optimistic extra matches if `u` maps to `w`: decided-neighbour triples that would
    /// match exactly, plus half of each triple to an undecided variable that could match.
    fn gain(&self, u: u32, w: u32) -> f64 {
        let mut g = 0.0;
        for &t in &self.inc[u as usize] {
            let (s, r, o) = self.g1.triples[t];
            let other = if s == End::Var(u) { o } else { s };
            let u_is_src = s == End::Var(u);
            if other == End::Var(u) {
                if self.c2.contains_key(&(End::Var(w), r, End::Var(w))) {
                    g += 0.5; // listed twice in `inc`
                }
                continue;
            }
            let other_img = match other {
                End::Const(c) => Some(Some(End::Const(c))),
                End::Var(v) => self.map[v as usize].map(|m| m.map(End::Var)),
            };
            match other_img {
                Some(Some(x)) => {
                    let k = if u_is_src {
                        (End::Var(w), r, x)
                    } else {
                        (x, r, End::Var(w))
                    };
                    if self.c2.contains_key(&k) {
                        g += 1.0;
                    }
                }
                Some(None) => {}
                None => {
                    let rels = if u_is_src {
                        &self.out2[w as usize]
                    } else {
                        &self.in2[w as usize]
                    };
                    if rels.contains(&r) {
                        g += 0.5;
                    }
                }
            }
        }
        g
    }

    fn bound(&self, depth: usize) -> f64 {
        // No more than every undecided triple can still match, nor more than G2 has.
        let cap = (self.score + self.g1.triples.len() - self.decided_triples).min(self.n2_triples);
        if cap <= self.best {
            return cap as f64;
        }
        // Each remaining variable takes at most its best partner, and each free partner
        // serves at most one variable: both sums bound the matching's gain.
        let mut rows = 0.0f64;
        let mut cols = vec![0.0f64; self.n2 as usize];
        for &u in &self.order[depth..] {
            let mut best = 0.0f64;
            for w in 0..self.n2 {
                if !self.used[w as usize] {
                    let g = self.gain(u, w);
                    best = best.max(g);
                    cols[w as usize] = cols[w as usize].max(g);
                }
            }
            rows += best;
        }
        let b = self.score as f64 + rows.min(cols.iter().sum());
        b.min(cap as f64)
    }

    /// One descent taking each variable's best-gain partner (the search's first path),
    /// without bounds: a cheap first `best`, which often already meets the ceiling.
    fn greedy(&mut self) {
        let mut trail = Vec::with_capacity(self.order.len());
        for d in 0..self.order.len() {
            let u = self.order[d];
            let mut pick: Option<(f64, u32)> = None;
            for w in 0..self.n2 {
                if !self.used[w as usize] {
                    let g = self.gain(u, w);
                    if g > 0.0 && pick.is_none_or(|(bg, _)| g > bg) {
                        pick = Some((g, w));
                    }
                }
            }
            let added = self.assign(u, pick.map(|p| p.1));
            trail.push((u, added));
        }
        self.best = self.best.max(self.score);
        while let Some((u, added)) = trail.pop() {
            self.unassign(u, added);
        }
    }

    fn go(&mut self, depth: usize) -> bool {
        self.nodes += 1;
        self.work += (self.order.len() - depth + 1) as u64 * u64::from(self.n2);
        if self.nodes > NODE_BUDGET || self.work > WORK_BUDGET {
            return false;
        }
        if self.score > self.best {
            self.best = self.score;
        }
        if depth == self.order.len() || self.best >= self.ceiling {
            return true;
        }
        if self.bound(depth) < (self.best + 1) as f64 {
            return true;
        }
        let u = self.order[depth];
        let mut cands: Vec<(f64, u32)> = (0..self.n2)
            .filter(|&w| !self.used[w as usize])
            .map(|w| (self.gain(u, w), w))
            .filter(|&(g, _)| g > 0.0)
            .collect();
        cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, w) in cands {
            let added = self.assign(u, Some(w));
            let done = self.go(depth + 1);
            self.unassign(u, added);
            if !done {
                return false;
            }
            if self.best >= self.ceiling {
                return true;
            }
        }
        let added = self.assign(u, None);
        let done = self.go(depth + 1);
        self.unassign(u, added);
        done
    }
}

/// The maximum number of matching triples over all one-to-one variable alignments.
pub(crate) fn best_matches(g1: &Graph, g2: &Graph) -> Alignment {
    // The best match count is symmetric: search over the graph with fewer variables
    // (fewer levels; a φ₁ much smaller than φ₀ otherwise costs a level per φ₀ node).
    if g1.vars > g2.vars {
        return best_matches(g2, g1);
    }
    let mut c2: HashMap<(End, u32, End), usize> = HashMap::new();
    let mut out2 = vec![Vec::new(); g2.vars as usize];
    let mut in2 = vec![Vec::new(); g2.vars as usize];
    for &(s, r, o) in &g2.triples {
        *c2.entry((s, r, o)).or_insert(0) += 1;
        if let End::Var(v) = s {
            out2[v as usize].push(r);
        }
        if let End::Var(v) = o {
            in2[v as usize].push(r);
        }
    }
    let mut inc = vec![Vec::new(); g1.vars as usize];
    for (i, &(s, _, o)) in g1.triples.iter().enumerate() {
        for e in [s, o] {
            if let End::Var(v) = e {
                inc[v as usize].push(i);
            }
        }
    }
    let mut order: Vec<u32> = (0..g1.vars).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(inc[v as usize].len()));
    // Triples without variables are decided from the start.
    let mut fixed = 0;
    let mut counts: HashMap<(End, u32, End), usize> = HashMap::new();
    for &(s, r, o) in &g1.triples {
        if let (End::Const(_), End::Const(_)) = (s, o)
            && let Some(&cap) = c2.get(&(s, r, o))
        {
            let c = counts.entry((s, r, o)).or_insert(0);
            *c += 1;
            if *c <= cap {
                fixed += 1;
            }
        }
    }
    // Any matched triple pairs with a triple of the same shape once variables are
    // forgotten, so the shape counts' overlap bounds every alignment.
    let shape = |e: End| match e {
        End::Var(_) => None,
        End::Const(c) => Some(c),
    };
    type Shape = (Option<u32>, u32, Option<u32>);
    let mut shapes: HashMap<Shape, (usize, usize)> = HashMap::new();
    for &(a, r, b) in &g1.triples {
        shapes.entry((shape(a), r, shape(b))).or_default().0 += 1;
    }
    for &(a, r, b) in &g2.triples {
        shapes.entry((shape(a), r, shape(b))).or_default().1 += 1;
    }
    let ceiling = shapes.values().map(|&(x, y)| x.min(y)).sum();
    let mut s = Search {
        g1,
        c2,
        out2,
        in2,
        inc,
        order,
        map: vec![None; g1.vars as usize],
        used: vec![false; g2.vars as usize],
        counts,
        score: fixed,
        decided_triples: g1
            .triples
            .iter()
            .filter(|t| matches!((t.0, t.2), (End::Const(_), End::Const(_))))
            .count(),
        best: fixed,
        nodes: 0,
        work: 0,
        n2: g2.vars,
        n2_triples: g2.triples.len(),
        ceiling,
    };
    s.greedy();
    let optimal = s.best >= s.ceiling || s.go(0);
    Alignment {
        matches: s.best,
        optimal,
    }
}

/// Smatch F1 of two graphs (0 when both are empty).
pub(crate) fn f1(g1: &Graph, g2: &Graph) -> (f64, bool) {
    let a = best_matches(g1, g2);
    let total = g1.triples.len() + g2.triples.len();
    if total == 0 || a.matches == 0 {
        return (0.0, a.optimal);
    }
    (2.0 * a.matches as f64 / total as f64, a.optimal)
}

#[cfg(test)]
mod tests {
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
}
