//! A structural upper bound for the Smatch alignment search: the best score when the
//! first graph is unfolded into a tree and its variables may share partners.
//!
//! The bound that counts each triple to an undecided variable as half a match is near
//! the trivial ceiling until most variables are decided, so the search could not prove
//! a perturbed formula's obvious alignment optimal. Formula graphs are trees whose leaves
//! (terms) may have several parents, so a dynamic program over the tree gives a bound
//! that already knows an edge matches only when both ends map along a partner's edge.
//!
//! Why it bounds every one-to-one alignment: unfolding a node with several parents into
//! one copy per parent only adds triples, and dropping the one-to-one rule only adds
//! alignments; a leaf with several parents counts its own triples once, apart, at its
//! best partner. Triples that close a cycle count as matched.

use super::smatch_ends::{Adj, End, NONE, OPEN};

/// An edge from a parent to a child variable: (child, relation, count).
#[derive(Clone, Copy)]
struct Edge {
    child: u32,
    r: u32,
    n: u32,
}

/// The unfolded tree of the first graph and each variable's own triples' gains.
pub(crate) struct TreeBound {
    /// Variables children first.
    order: Vec<u32>,
    /// Edges to children per variable.
    kids: Vec<Vec<Edge>>,
    /// Whether a variable has several parents and no children: its own triples count
    /// once, apart from its parents.
    shared_leaf: Vec<bool>,
    /// Variables without a parent.
    roots: Vec<u32>,
    /// Matches of a variable's triples to constants and of its self-loops, per partner:
    /// `unary[u * n2 + w]`.
    unary: Vec<u32>,
    /// Per variable `u` and partner `w`, the range of `along` holding the ways a child
    /// edge of `u` can match along an edge of `w`: `spans[u * (n2 + 1) + w]..[.. + 1]`.
    spans: Vec<u32>,
    /// Child edge (index into `kids[u]`), the child's partner `x` along `w`'s edge of
    /// the same relation, and the matches `min(count, count′)`; grouped by edge.
    along: Vec<Along>,
    /// Triples left out of the tree (closing a cycle), counted as matched.
    loose: u32,
    n2: usize,
    /// Per variable, the partners at which its subtree can be worth more than its
    /// children's free value: an own triple matches there, or a child edge can.
    special: Vec<Vec<u32>>,
    /// `is_special[u * n2 + w]`: whether `w` is in `special[u]`.
    is_special: Vec<bool>,
    /// Per variable and special partner, the best subtree value (scratch); at any
    /// other partner the value is the children's free value, `free[u]`.
    val: Vec<u32>,
    /// Per variable, its children's value when it has no partner (scratch).
    free: Vec<u32>,
    /// Per variable, its best value over allowed partners (scratch).
    best: Vec<u32>,
}

/// One way a child edge can match: along an edge of the parent's partner.
#[derive(Clone, Copy)]
struct Along {
    kid: u32,
    child: u32,
    x: u32,
    m: u32,
}

/// A triple of the first graph: (source, relation, target, count).
pub(crate) type Counted = (End, u32, End, u32);

impl TreeBound {
    /// Builds the tree of a graph with `n1` variables from its distinct triples (those
    /// with at least one variable end), against a second graph of `n2` variables whose
    /// triples at each variable are `out2` (as source) and `in2` (as target).
    pub(crate) fn new(n1: usize, triples: &[Counted], out2: &[Adj], in2: &[Adj]) -> TreeBound {
        let n2 = out2.len();
        let at = partners_at(out2, in2);
        let (mut kids, parents, unary) = edges(n1, n2, triples, &at);
        let (order, roots, loose) = tree_order(&mut kids, &parents);
        let shared_leaf = (0..n1)
            .map(|v| parents[v] > 1 && kids[v].is_empty())
            .collect();
        let (spans, along) = along_partners(&kids, out2);
        let mut is_special = vec![false; n1 * n2];
        let special = (0..n1)
            .map(|u| {
                (0..n2)
                    .filter(|&w| {
                        let i = u * n2 + w;
                        let s =
                            unary[i] > 0 || spans[u * (n2 + 1) + w] < spans[u * (n2 + 1) + w + 1];
                        is_special[i] = s;
                        s
                    })
                    .map(|w| w as u32)
                    .collect()
            })
            .collect();
        TreeBound {
            special,
            is_special,
            free: vec![0; n1],
            order,
            kids,
            shared_leaf,
            roots,
            unary,
            spans,
            along,
            loose,
            n2,
            val: vec![0; n1 * n2],
            best: vec![0; n1],
        }
    }

    /// An upper bound on the matches, among triples with a variable, of any one-to-one
    /// completion of `map` (`OPEN` undecided, `NONE` unmatched, else the partner; `used`
    /// marks partners taken).
    ///
    /// `val[u][w]` is written only where `u` may take a special `w`; it is read only
    /// there.
    pub(crate) fn bound(&mut self, map: &[u32], used: &[bool]) -> u32 {
        let n2 = self.n2;
        let allowed = |v: u32, x: u32| -> bool {
            match map[v as usize] {
                OPEN => !used[x as usize],
                m => m == x,
            }
        };
        let mut total = self.loose;
        for i in 0..self.order.len() {
            let u = self.order[i];
            let uu = u as usize;
            // Value of the children when `u` has no partner (no edge to them matches).
            let free: u32 = self.kids[uu].iter().map(|e| self.child_best(e.child)).sum();
            self.free[uu] = free;
            // Any allowed partner is worth at least `free`; only special ones more.
            let mut best = free;
            let one = map[uu];
            let count = match one {
                OPEN => self.special[uu].len(),
                NONE => 0,
                m => usize::from(self.is_special[uu * n2 + m as usize]),
            };
            for k in 0..count {
                let w = if one == OPEN {
                    self.special[uu][k] as usize
                } else {
                    one as usize
                };
                if one == OPEN && used[w] {
                    continue;
                }
                let mut v = free
                    + if self.shared_leaf[uu] {
                        0
                    } else {
                        self.unary[uu * n2 + w]
                    };
                let span = uu * (n2 + 1) + w;
                let (mut j, stop) = (self.spans[span] as usize, self.spans[span + 1] as usize);
                while j < stop {
                    let Along { kid, child, .. } = self.along[j];
                    let base = self.child_best(child);
                    let mut b = base;
                    // An unmatched child matches along no edge.
                    let open = map[child as usize] != NONE;
                    let shared = self.shared_leaf[child as usize];
                    while j < stop && self.along[j].kid == kid {
                        let a = self.along[j];
                        if open && allowed(child, a.x) {
                            let sub = if shared { 0 } else { self.value(child, a.x) };
                            b = b.max(a.m + sub);
                        }
                        j += 1;
                    }
                    v += b - base;
                }
                self.val[uu * n2 + w] = v;
                best = best.max(v);
            }
            self.best[uu] = best;
            if self.shared_leaf[uu] {
                // Its own triples, once, at its best allowed partner (0 elsewhere).
                total += self.special[uu]
                    .iter()
                    .filter(|&&w| allowed(u, w))
                    .map(|&w| self.unary[uu * n2 + w as usize])
                    .max()
                    .unwrap_or(0);
            }
        }
        total
            + self
                .roots
                .iter()
                .map(|&r| self.best[r as usize])
                .sum::<u32>()
    }

    /// The subtree value of `u` at partner `w` from the last [`TreeBound::bound`] call
    /// (`w` allowed to `u` there).
    fn value(&self, u: u32, w: u32) -> u32 {
        let i = u as usize * self.n2 + w as usize;
        if self.is_special[i] {
            self.val[i]
        } else {
            self.free[u as usize]
        }
    }

    /// Matches of each variable's own triples (to constants, self-loops) per partner:
    /// `[u * n2 + w]`.
    pub(crate) fn unary(&self) -> &[u32] {
        &self.unary
    }

    /// A one-to-one map read off the values of the last [`TreeBound::bound`] call made
    /// with nothing decided: each variable, parents first, takes its best partner still
    /// free (`NONE` when none is left). A good first alignment for the search.
    pub(crate) fn decode(&self, out2: &[Adj]) -> Vec<u32> {
        let n2 = self.n2;
        let n1 = self.kids.len();
        let mut map = vec![OPEN; n1];
        let mut used = vec![false; n2];
        // The best free partner of `u` by its subtree value (its own triples when shared).
        let value = |u: usize, w: usize| {
            if self.shared_leaf[u] {
                self.unary[u * n2 + w]
            } else {
                self.value(u as u32, w as u32)
            }
        };
        let best_free = |u: usize, used: &[bool]| -> u32 {
            (0..n2)
                .filter(|&w| !used[w])
                .max_by_key(|&w| (value(u, w), std::cmp::Reverse(w)))
                .map_or(NONE, |w| w as u32)
        };
        let mut stack: Vec<u32> = Vec::new();
        for &r in self.roots.iter().rev() {
            stack.push(r);
        }
        while let Some(u) = stack.pop() {
            let uu = u as usize;
            if map[uu] == OPEN {
                let w = best_free(uu, &used);
                map[uu] = w;
                if w != NONE {
                    used[w as usize] = true;
                }
            }
            let w = map[uu];
            for e in self.kids[uu].iter().rev() {
                let c = e.child as usize;
                if map[c] == OPEN && w != NONE {
                    // The child's partner along a matching edge, if one beats its best.
                    let along = out2[w as usize]
                        .iter()
                        .filter(|&&(r, _, _)| r == e.r)
                        .filter_map(|&(_, x, cnt)| match x {
                            End::Var(x) if !used[x as usize] => {
                                Some((e.n.min(cnt) + value(c, x as usize), x))
                            }
                            _ => None,
                        })
                        .max_by_key(|&(v, x)| (v, std::cmp::Reverse(x)));
                    if let Some((v, x)) = along
                        && v >= self.child_best(e.child)
                    {
                        map[c] = x;
                        used[x as usize] = true;
                    }
                }
                stack.push(e.child);
            }
        }
        for (u, m) in map.iter_mut().enumerate() {
            if *m == OPEN {
                *m = best_free(u, &used);
                if *m != NONE {
                    used[*m as usize] = true;
                }
            }
        }
        map
    }

    /// A child's best value when the edge to it does not match.
    fn child_best(&self, c: u32) -> u32 {
        if self.shared_leaf[c as usize] {
            0
        } else {
            self.best[c as usize]
        }
    }
}

/// Partners (with their counts) by (relation, other end, as source).
type PartnersAt = rustc_hash::FxHashMap<(u32, End, bool), Vec<(u32, u32)>>;

/// The key of a self-loop in [`partners_at`].
const SELF: End = End::Var(u32::MAX);

/// Partners by (relation, constant or self-loop, as source): where each own triple of
/// a variable can match, with the partner's count. Listed once, so a triple meets only
/// those instead of scanning every partner's edges.
fn partners_at(
    out2: &[Adj],
    in2: &[Adj],
) -> rustc_hash::FxHashMap<(u32, End, bool), Vec<(u32, u32)>> {
    let mut at: rustc_hash::FxHashMap<(u32, End, bool), Vec<(u32, u32)>> =
        rustc_hash::FxHashMap::default();
    for (w, (o, i)) in out2.iter().zip(in2).enumerate() {
        let w = w as u32;
        for &(r, e, cnt) in o {
            match e {
                End::Const(_) => at.entry((r, e, true)).or_default().push((w, cnt)),
                End::Var(x) if x == w => at.entry((r, SELF, true)).or_default().push((w, cnt)),
                End::Var(_) => {}
            }
        }
        for &(r, e, cnt) in i {
            if let End::Const(_) = e {
                at.entry((r, e, false)).or_default().push((w, cnt));
            }
        }
    }
    at
}

/// The edges between variables (children per variable, parents counted) and the
/// matches of each variable's own triples with each partner (`unary`, n1 × n2).
fn edges(
    n1: usize,
    n2: usize,
    triples: &[Counted],
    at: &PartnersAt,
) -> (Vec<Vec<Edge>>, Vec<u32>, Vec<u32>) {
    let mut kids: Vec<Vec<Edge>> = vec![Vec::new(); n1];
    let mut parents = vec![0u32; n1];
    let mut unary = vec![0u32; n1 * n2];
    for &(s, r, o, n) in triples {
        let (a, key) = match (s, o) {
            (End::Var(a), End::Var(b)) if a == b => (a, (r, SELF, true)),
            (End::Var(a), End::Var(b)) => {
                kids[a as usize].push(Edge { child: b, r, n });
                parents[b as usize] += 1;
                continue;
            }
            (End::Var(a), c) => (a, (r, c, true)),
            (c, End::Var(a)) => (a, (r, c, false)),
            _ => continue,
        };
        for &(w, cnt) in at.get(&key).map_or(&[][..], Vec::as_slice) {
            unary[a as usize * n2 + w as usize] += n.min(cnt);
        }
    }
    (kids, parents, unary)
}

/// Children first by depth-first search; an edge back to a variable on the current
/// path closes a cycle and leaves the tree (its count is returned as loose). Gives the
/// order, the roots (parentless, then heads of cycles) and the loose count.
fn tree_order(kids: &mut [Vec<Edge>], parents: &[u32]) -> (Vec<u32>, Vec<u32>, u32) {
    let n1 = kids.len();
    let mut order = Vec::with_capacity(n1);
    let mut state = vec![0u8; n1]; // 0 new, 1 on the path, 2 done
    let mut loose = 0;
    let roots: Vec<u32> = (0..n1 as u32)
        .filter(|&v| parents[v as usize] == 0)
        .collect();
    let starts: Vec<u32> = roots.iter().copied().chain(0..n1 as u32).collect();
    let mut extra_roots = Vec::new();
    for &start in &starts {
        if state[start as usize] != 0 {
            continue;
        }
        if parents[start as usize] > 0 {
            // Only reachable through a cycle: it heads its own tree.
            extra_roots.push(start);
        }
        let mut stack = vec![(start, 0usize)];
        state[start as usize] = 1;
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            if let Some(&e) = kids[v as usize].get(*i) {
                *i += 1;
                match state[e.child as usize] {
                    0 => {
                        state[e.child as usize] = 1;
                        stack.push((e.child, 0));
                    }
                    1 => {
                        loose += e.n;
                        let k = *i - 1;
                        kids[v as usize][k].n = 0;
                    }
                    _ => {}
                }
            } else {
                state[v as usize] = 2;
                order.push(v);
                stack.pop();
            }
        }
    }
    for k in kids.iter_mut() {
        k.retain(|e| e.n > 0);
    }
    let mut roots = roots;
    roots.extend(extra_roots);
    (order, roots, loose)
}

/// Only a child edge and a partner's edge of the same relation can match: those pairs
/// listed once (`along`, spanned per variable and partner by `spans`) spare the bound
/// a scan of every partner's edges per edge.
fn along_partners(kids: &[Vec<Edge>], out2: &[Adj]) -> (Vec<u32>, Vec<Along>) {
    let mut spans = Vec::with_capacity(kids.len() * (out2.len() + 1));
    let mut along = Vec::new();
    for kid_list in kids {
        for w_out in out2 {
            spans.push(along.len() as u32);
            for (k, e) in kid_list.iter().enumerate() {
                for &(r, x, cnt) in w_out {
                    if let (true, End::Var(x)) = (r == e.r, x) {
                        along.push(Along {
                            kid: k as u32,
                            child: e.child,
                            x,
                            m: e.n.min(cnt),
                        });
                    }
                }
            }
        }
        spans.push(along.len() as u32);
    }
    (spans, along)
}

#[cfg(test)]
#[path = "smatch_tree_bound_tests.rs"]
mod tests;
