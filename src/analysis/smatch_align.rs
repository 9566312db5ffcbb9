//! Smatch scoring with an optimal variable alignment: branch and bound over one-to-one
//! maps from the first graph's variables to the second's, so the score is the maximum
//! (what smatchpp's ILP solver finds), not a hill-climber's local optimum.
//!
//! Scoring follows smatchpp's defaults: triples are compared as exact strings, duplicate
//! triples are kept and matched by `min(count₁, count₂)`, the ROOT triple counts, and
//! F1 = 2·matches / (|T₁| + |T₂|).
//!
//! Speed (it runs on every sample of a run): equal graphs score without a search; a
//! greedy map and the structural bound's own map (`smatch_tree_bound`), each
//! improved by hill climbing, give the first best; two bounds prune: each undecided
//! variable's best gain from a matrix whose rows are recomputed only for the neighbours
//! of a newly decided variable, and the structural bound, which also caps the search
//! from the start; interchangeable variables of the second graph are tried once.

use super::smatch_tree_bound::TreeBound;
use rustc_hash::FxHashMap as HashMap;

pub(crate) use super::smatch_ends::End;
use super::smatch_ends::{Adj, NONE, OPEN};

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
        // Most strings are already known: look up before allocating a key.
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let n = self.ids.len() as u32;
        self.ids.insert(s.to_string(), n);
        n
    }
}

/// Search nodes visited before the search stops with the best alignment found so far
/// (then reported as not proved optimal).
pub(crate) const NODE_BUDGET: u64 = 50_000;

/// Work units (a gain-matrix entry scanned or updated is one, a gain evaluated
/// `GAIN_COST`, a structural bound its matrix size) before the search stops the same
/// way: about 8 ms a pair (release build, one core) whatever the graph sizes. Three
/// quarters of it leaves 12 more of 5,000 generated FOL pairs unproved (9 lower by up
/// to 0.02) and saves about 5 % of a whole metrics pass.
pub(crate) const WORK_BUDGET: u64 = 4_000_000;

/// The best match count and whether the search proved it optimal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Alignment {
    /// Matched triples under the best alignment found.
    pub matches: usize,
    /// False only if [`NODE_BUDGET`] or [`WORK_BUDGET`] ran out first.
    pub optimal: bool,
}

/// A distinct triple of the searched graph and how often it occurs.
#[derive(Clone, Copy)]
struct Triple1 {
    s: End,
    r: u32,
    o: End,
    n: u32,
}

/// Buffers the bound of every search node reuses.
#[derive(Default)]
struct Scratch {
    /// Per G2 variable, the best gain any undecided variable has there.
    cols: Vec<u32>,
    /// The G2 variables that may be tried now.
    open: Vec<u32>,
}

struct Search {
    t1: Vec<Triple1>,
    /// For each G1 var: indices into `t1` of its triples (a self-loop once).
    inc: Vec<Vec<u32>>,
    /// For each G2 var: its distinct triples as source / as target.
    out2: Vec<Adj>,
    in2: Vec<Adj>,
    /// For each G2 var: the next lower variable structurally identical to it (swapping
    /// the two is an automorphism of G2), so only the lowest free one of a class is tried.
    twin_below: Vec<u32>,
    /// Per relation: the G2 variables that are the source (`src_has`) or target
    /// (`dst_has`) of a triple of that relation to or from a variable.
    src_has: Vec<Vec<u32>>,
    dst_has: Vec<Vec<u32>>,
    /// For each G1 var: its other variables across triples, each once.
    nb1: Vec<Vec<u32>>,
    /// `gain2(u, w)` for every G1 var `u` (row) and G2 var `w`, kept current for the
    /// undecided: deciding a variable recomputes only its neighbours' rows.
    gm: Vec<u32>,
    /// Rows overwritten by `assign`, for `unassign` (ids and values).
    saved_ids: Vec<u32>,
    saved_rows: Vec<u32>,
    order: Vec<u32>,
    map: Vec<u32>,
    used: Vec<bool>,
    score: u32,
    /// G1 triples (with multiplicity) whose variables are all decided.
    decided: u32,
    n1: u32,
    n2: u32,
    best: u32,
    nodes: u64,
    work: u64,
    /// An upper bound on any alignment's matches (triples compared with variables
    /// abstracted away): once `best` reaches it the search has proved optimality.
    ceiling: u32,
    /// The structural bound (see [`super::smatch_tree_bound`]).
    tree: TreeBound,
    /// Matches of the triples without variables (decided from the start).
    fixed: u32,
    /// Work units of one evaluation of `tree`.
    tree_cost: u64,
}

/// Work units of one `gain2` evaluation (a matrix entry scanned is one).
const GAIN_COST: u64 = 8;

impl Search {
    /// How often G2 holds the triple (a, r, b) (at least one end a variable).
    fn c2(&self, a: End, r: u32, b: End) -> u32 {
        let (list, x) = match (a, b) {
            (End::Var(w), x) => (&self.out2[w as usize], x),
            (x, End::Var(w)) => (&self.in2[w as usize], x),
            _ => return 0,
        };
        list.iter()
            .find(|&&(rr, e, _)| rr == r && e == x)
            .map_or(0, |t| t.2)
    }

    /// Image of a G1 end under the current map: Some(Some) decided and matched,
    /// Some(None) decided unmatched, None undecided.
    fn img(&self, e: End) -> Option<Option<End>> {
        match e {
            End::Const(_) => Some(Some(e)),
            End::Var(v) => match self.map[v as usize] {
                OPEN => None,
                NONE => Some(None),
                w => Some(Some(End::Var(w))),
            },
        }
    }

    fn row(&self, u: u32) -> &[u32] {
        let n2 = self.used.len();
        &self.gm[u as usize * n2..(u as usize + 1) * n2]
    }

    /// Every gain row with nothing decided: twice the own triples' matches (the
    /// structural bound's per-partner table), plus once each triple to another
    /// variable where the partner has an edge of that relation to a variable.
    fn fill_rows_at_root(&mut self) {
        let n2 = self.used.len();
        let unary = self.tree.unary();
        for (u, row) in self.gm.chunks_exact_mut(n2.max(1)).enumerate() {
            for (g, &x) in row.iter_mut().zip(&unary[u * n2..]) {
                *g = 2 * x;
            }
            for &t in &self.inc[u] {
                let Triple1 { s, r, o, n } = self.t1[t as usize];
                let u_is_src = s == End::Var(u as u32);
                let other = if u_is_src { o } else { s };
                if s == o || matches!(other, End::Const(_)) {
                    continue;
                }
                let has = if u_is_src {
                    &self.src_has
                } else {
                    &self.dst_has
                };
                for &w in has.get(r as usize).map_or(&[][..], Vec::as_slice) {
                    row[w as usize] += n;
                }
            }
            self.work += n2 as u64 * GAIN_COST;
        }
        #[cfg(debug_assertions)]
        for u in 0..self.map.len() as u32 {
            for w in 0..n2 as u32 {
                debug_assert_eq!(self.row(u)[w as usize], self.gain2(u, w), "u {u} w {w}");
            }
        }
    }

    /// Brings the gain row of undecided `v` up to date after its neighbour `u` was
    /// decided: only the triples between the two change, from "could match" (`n` where
    /// the partner has an edge of that relation) to "matches" (`2·min(n, count)`).
    fn update_row(&mut self, v: u32, u: u32) {
        let n2 = self.used.len();
        let base = v as usize * n2;
        let to = self.map[u as usize];
        for i in 0..self.inc[v as usize].len() {
            let Triple1 { s, r, o, n } = self.t1[self.inc[v as usize][i] as usize];
            let v_is_src = s == End::Var(v);
            let other = if v_is_src { o } else { s };
            if s == o || other != End::Var(u) {
                continue;
            }
            let had = if v_is_src {
                &self.src_has[r as usize]
            } else {
                &self.dst_has[r as usize]
            };
            for &w in had {
                self.gm[base + w as usize] -= n;
            }
            if to != NONE {
                let list = if v_is_src {
                    &self.in2[to as usize]
                } else {
                    &self.out2[to as usize]
                };
                for &(rr, e, c) in list {
                    if let (true, End::Var(w)) = (rr == r, e) {
                        self.gm[base + w as usize] += 2 * n.min(c);
                    }
                }
            }
        }
        self.work += n2 as u64;
    }

    /// Decides `u`; returns the (score, decided, saved rows) increments for undo.
    fn assign(&mut self, u: u32, to: u32) -> (u32, u32, u32) {
        self.map[u as usize] = to;
        if to != NONE {
            self.used[to as usize] = true;
        }
        let (mut ds, mut dd) = (0, 0);
        for &t in &self.inc[u as usize] {
            let Triple1 { s, r, o, n } = self.t1[t as usize];
            let (Some(a), Some(b)) = (self.img(s), self.img(o)) else {
                continue;
            };
            dd += n;
            if let (Some(a), Some(b)) = (a, b) {
                ds += n.min(self.c2(a, r, b));
            }
        }
        self.score += ds;
        self.decided += dd;
        let n2 = self.used.len();
        let mut k = 0;
        for i in 0..self.nb1[u as usize].len() {
            let v = self.nb1[u as usize][i];
            if self.map[v as usize] == OPEN {
                self.saved_ids.push(v);
                let at = v as usize * n2;
                self.saved_rows.extend_from_slice(&self.gm[at..at + n2]);
                self.update_row(v, u);
                k += 1;
            }
        }
        (ds, dd, k)
    }

    fn unassign(&mut self, u: u32, (ds, dd, k): (u32, u32, u32)) {
        self.score -= ds;
        self.decided -= dd;
        let n2 = self.used.len();
        for _ in 0..k {
            if let Some(v) = self.saved_ids.pop() {
                let from = self.saved_rows.len() - n2;
                let at = v as usize * n2;
                self.gm[at..at + n2].copy_from_slice(&self.saved_rows[from..]);
                self.saved_rows.truncate(from);
            }
        }
        let w = self.map[u as usize];
        if w != NONE {
            self.used[w as usize] = false;
        }
        self.map[u as usize] = OPEN;
    }

    /// Whether `w` may be tried now: free, and no lower twin of it is free.
    fn open_to(&self, w: u32) -> bool {
        !self.used[w as usize] && {
            let t = self.twin_below[w as usize];
            t == OPEN || self.used[t as usize]
        }
    }

    /// Twice the optimistic extra matches if `u` maps to `w`: triples to decided ends
    /// that would match exactly (counted twice), plus once each triple to an undecided
    /// variable that could match (its other end counts the other half).
    #[cfg(debug_assertions)]
    fn gain2(&self, u: u32, w: u32) -> u32 {
        let mut g = 0;
        for &t in &self.inc[u as usize] {
            let Triple1 { s, r, o, n } = self.t1[t as usize];
            if s == o {
                g += 2 * n.min(self.c2(End::Var(w), r, End::Var(w)));
                continue;
            }
            let u_is_src = s == End::Var(u);
            let other = if u_is_src { o } else { s };
            match self.img(other) {
                Some(Some(x)) => {
                    let c = if u_is_src {
                        self.c2(End::Var(w), r, x)
                    } else {
                        self.c2(x, r, End::Var(w))
                    };
                    g += 2 * n.min(c);
                }
                Some(None) => {}
                None => {
                    let list = if u_is_src {
                        &self.out2[w as usize]
                    } else {
                        &self.in2[w as usize]
                    };
                    if list
                        .iter()
                        .any(|&(rr, e, _)| rr == r && matches!(e, End::Var(_)))
                    {
                        g += n;
                    }
                }
            }
        }
        g
    }

    /// Twice an upper bound on the matches of any completion of the current map, and
    /// the undecided variable to branch on next: the first in search order (branching
    /// on the one with the fewest partners proved fewer pairs within the budget).
    fn bound2(&self, sc: &mut Scratch) -> (u32, u32) {
        // No more than every undecided triple can still match, nor more than G2 has.
        let cap = 2 * (self.score + self.n1 - self.decided).min(self.n2);
        if cap <= 2 * self.best + 1 {
            return (cap, OPEN);
        }
        // Each remaining variable takes at most its best partner, and each free partner
        // serves at most one variable: both sums bound the matching's gain.
        let cols = &mut sc.cols;
        cols.clear();
        cols.resize(self.used.len(), 0);
        let mut rows = 0;
        sc.open.clear();
        sc.open
            .extend((0..self.used.len() as u32).filter(|&w| self.open_to(w)));
        let mut pick = OPEN;
        for &u in &self.order {
            if self.map[u as usize] != OPEN {
                continue;
            }
            let row = self.row(u);
            let mut best = 0;
            for &w in &sc.open {
                let g = row[w as usize];
                best = best.max(g);
                cols[w as usize] = cols[w as usize].max(g);
            }
            rows += best;
            if pick == OPEN {
                pick = u;
            }
        }
        // A free twin that may not be tried now may serve a later variable.
        let col_sum: u32 = (0..self.used.len())
            .filter(|&w| !self.used[w])
            .map(|w| {
                let mut v = w;
                // Columns of a twin class are equal; the class's lowest free one holds it.
                while self.twin_below[v] != OPEN && !self.used[self.twin_below[v] as usize] {
                    v = self.twin_below[v] as usize;
                }
                cols[v]
            })
            .sum();
        ((2 * self.score + rows.min(col_sum)).min(cap), pick)
    }

    /// Free partners of `u` worth trying, best optimistic gain first.
    fn candidates(&self, u: u32) -> Vec<(u32, u32)> {
        let row = self.row(u);
        let mut c: Vec<(u32, u32)> = (0..self.used.len() as u32)
            .filter(|&w| self.open_to(w))
            .map(|w| (row[w as usize], w))
            .filter(|&(g, _)| g > 0)
            .collect();
        c.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        c
    }

    fn go(&mut self, depth: usize, sc: &mut Scratch) -> bool {
        self.nodes += 1;
        self.work += (self.order.len() - depth + 1) as u64 * self.used.len() as u64;
        if self.nodes > NODE_BUDGET || self.work > WORK_BUDGET {
            return false;
        }
        if self.score > self.best {
            self.best = self.score;
        }
        if depth == self.order.len() || self.best >= self.ceiling {
            return true;
        }
        let (bound, u) = self.bound2(sc);
        if bound < 2 * (self.best + 1) {
            return true;
        }
        self.work += self.tree_cost;
        if self.fixed + self.tree.bound(&self.map, &self.used) <= self.best {
            return true;
        }
        for (_, w) in self.candidates(u) {
            let undo = self.assign(u, w);
            let done = self.go(depth + 1, sc);
            self.unassign(u, undo);
            if !done {
                return false;
            }
            if self.best >= self.ceiling {
                return true;
            }
        }
        let undo = self.assign(u, NONE);
        let done = self.go(depth + 1, sc);
        self.unassign(u, undo);
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
    // Equal graphs: the identity matches every triple, which no alignment beats.
    if g1.vars == g2.vars && g1.triples == g2.triples {
        return Alignment {
            matches: g1.triples.len(),
            optimal: true,
        };
    }
    let (c1, c2) = (counted(&g1.triples), counted(&g2.triples));
    let (out2, in2, const2) = adjacency(&c2, g2.vars as usize);
    let Own {
        t1,
        inc,
        fixed,
        fixed_n,
    } = own_triples(&c1, g1.vars as usize, &const2);
    let ceiling = shape_ceiling(g1, g2);
    let twin_below = twins_below(&out2, &in2);
    let rels = c1
        .iter()
        .chain(&c2)
        .map(|&((_, r, _), _)| r as usize + 1)
        .max()
        .unwrap_or(0);
    let (src_has, dst_has) = holders(rels, &out2, &in2);
    let nb1 = neighbours(&inc, &t1);
    // Most connected first (breadth first from the root proved fewer pairs).
    let mut order: Vec<u32> = (0..g1.vars).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(inc[v as usize].len()));
    let counted1: Vec<super::smatch_tree_bound::Counted> =
        t1.iter().map(|t| (t.s, t.r, t.o, t.n)).collect();
    let tree = TreeBound::new(g1.vars as usize, &counted1, &out2, &in2);
    let mut s = Search {
        tree,
        fixed,
        tree_cost: (c1.len() as u64 + g1.vars as u64) * g2.vars as u64,
        t1,
        inc,
        out2,
        in2,
        twin_below,
        src_has,
        dst_has,
        nb1,
        gm: vec![0; g1.vars as usize * g2.vars as usize],
        saved_ids: Vec::new(),
        saved_rows: Vec::new(),
        order,
        map: vec![OPEN; g1.vars as usize],
        used: vec![false; g2.vars as usize],
        score: fixed,
        decided: fixed_n,
        n1: g1.triples.len() as u32,
        n2: g2.triples.len() as u32,
        best: fixed,
        nodes: 0,
        work: 0,
        ceiling,
    };
    s.fill_rows_at_root();
    // The structural bound at the root caps every alignment: the search stops once
    // its best meets it.
    s.ceiling = s.ceiling.min(fixed + s.tree.bound(&s.map, &s.used));
    s.greedy();
    let optimal = s.best >= s.ceiling || s.go(0, &mut Scratch::default());
    Alignment {
        matches: s.best as usize,
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

#[path = "smatch_prep.rs"]
mod prep;
use prep::{Own, adjacency, counted, holders, neighbours, own_triples, shape_ceiling, twins_below};

#[path = "smatch_seed.rs"]
mod seed;

#[cfg(test)]
#[path = "smatch_align_tests.rs"]
mod tests;
