//! The graphs as the alignment search reads them: distinct triples with counts, the
//! second graph's adjacency lists, the first graph's own triples, and the bounds and
//! neighbour lists built from them once per pair.

use super::{Adj, End, Graph, OPEN, Triple1};
use rustc_hash::FxHashMap as HashMap;

/// A graph's distinct triples with their counts, sorted.
pub(super) fn counted(triples: &[(End, u32, End)]) -> Vec<((End, u32, End), u32)> {
    let mut v = triples.to_vec();
    v.sort_unstable();
    let mut out: Vec<((End, u32, End), u32)> = Vec::with_capacity(v.len());
    for t in v {
        match out.last_mut() {
            Some((k, n)) if *k == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
    out
}

/// For each variable, the next lower variable with the same triples (neither touching
/// the other), or [`OPEN`]: swapping two such variables maps the graph onto itself.
pub(super) fn twins_below(out: &[Adj], inn: &[Adj]) -> Vec<u32> {
    let mut below = vec![OPEN; out.len()];
    let mut last: HashMap<(&Adj, &Adj), u32> = HashMap::default();
    for w in 0..out.len() {
        let me = End::Var(w as u32);
        if out[w].iter().chain(&inn[w]).any(|t| t.1 == me) {
            continue;
        }
        if let Some(prev) = last.insert((&out[w], &inn[w]), w as u32) {
            // Equal lists cannot name each other: `prev`'s would then name itself.
            below[w] = prev;
        }
    }
    below
}

/// Counts of the triples between two constants.
pub(super) type ConstCounts = HashMap<(End, u32, End), u32>;

/// Counted triples of the second graph: those with a variable as adjacency lists per
/// variable (as source, as target), the rest by triple.
pub(super) fn adjacency(
    c2: &[((End, u32, End), u32)],
    vars: usize,
) -> (Vec<Adj>, Vec<Adj>, ConstCounts) {
    let mut out2: Vec<Adj> = vec![Vec::new(); vars];
    let mut in2: Vec<Adj> = vec![Vec::new(); vars];
    let mut const2: ConstCounts = HashMap::default();
    for &((s, r, o), n) in c2 {
        if let (End::Const(_), End::Const(_)) = (s, o) {
            const2.insert((s, r, o), n);
            continue;
        }
        if let End::Var(v) = s {
            out2[v as usize].push((r, o, n));
        }
        if let End::Var(v) = o {
            in2[v as usize].push((r, s, n));
        }
    }
    (out2, in2, const2)
}

/// The first graph's triples as the search reads them.
pub(super) struct Own {
    /// Triples with a variable.
    pub(super) t1: Vec<Triple1>,
    /// Per variable, the indices of its triples in `t1`.
    pub(super) inc: Vec<Vec<u32>>,
    /// Matches of the triples without variables.
    pub(super) fixed: u32,
    /// Triples without variables.
    pub(super) fixed_n: u32,
}

/// Splits the first graph's counted triples: those without variables are decided from
/// the start against `const2`.
pub(super) fn own_triples(c1: &[((End, u32, End), u32)], vars: usize, const2: &ConstCounts) -> Own {
    let (mut fixed, mut fixed_n) = (0, 0);
    let mut t1 = Vec::with_capacity(c1.len());
    let mut inc = vec![Vec::new(); vars];
    for &((s, r, o), n) in c1 {
        if let (End::Const(_), End::Const(_)) = (s, o) {
            fixed_n += n;
            fixed += n.min(const2.get(&(s, r, o)).copied().unwrap_or(0));
            continue;
        }
        let i = t1.len() as u32;
        t1.push(Triple1 { s, r, o, n });
        if let End::Var(v) = s {
            inc[v as usize].push(i);
        }
        if let End::Var(v) = o
            && o != s
        {
            inc[v as usize].push(i);
        }
    }
    Own {
        t1,
        inc,
        fixed,
        fixed_n,
    }
}

/// Any matched triple pairs with a triple of the same shape once variables are
/// forgotten, so the shape counts' overlap bounds every alignment.
pub(super) fn shape_ceiling(g1: &Graph, g2: &Graph) -> u32 {
    type Shape = (Option<u32>, u32, Option<u32>);
    let shape = |e: End| match e {
        End::Var(_) => None,
        End::Const(c) => Some(c),
    };
    let mut shapes: HashMap<Shape, (u32, u32)> = HashMap::default();
    for &(a, r, b) in &g1.triples {
        shapes.entry((shape(a), r, shape(b))).or_default().0 += 1;
    }
    for &(a, r, b) in &g2.triples {
        shapes.entry((shape(a), r, shape(b))).or_default().1 += 1;
    }
    shapes.values().map(|&(x, y)| x.min(y)).sum()
}

/// Per relation (of `rels`), the second graph's variables with an edge of it to a
/// variable, as source and as target.
pub(super) fn holders(rels: usize, out2: &[Adj], in2: &[Adj]) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let (mut src_has, mut dst_has) = (vec![Vec::new(); rels], vec![Vec::new(); rels]);
    for (w, (o, i)) in out2.iter().zip(in2).enumerate() {
        for (list, has) in [(o, &mut src_has), (i, &mut dst_has)] {
            for &(r, e, _) in list {
                if let (End::Var(_), Some(h)) = (e, has.get_mut(r as usize))
                    && h.last() != Some(&(w as u32))
                {
                    h.push(w as u32);
                }
            }
        }
    }
    (src_has, dst_has)
}

/// Per variable of the first graph, the other variables it shares a triple with.
pub(super) fn neighbours(inc: &[Vec<u32>], t1: &[Triple1]) -> Vec<Vec<u32>> {
    (0..inc.len())
        .map(|u| {
            let mut v: Vec<u32> = inc[u]
                .iter()
                .flat_map(|&t| [t1[t as usize].s, t1[t as usize].o])
                .filter_map(|e| match e {
                    End::Var(v) if v as usize != u => Some(v),
                    _ => None,
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect()
}
