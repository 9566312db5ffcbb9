//! Operands of two connectives matched as multisets, with the operands a swapped or
//! dropped connective merges into the surrounding chain.

use super::Ctx;
use super::keys::dice;
use super::node::{Node, Side, op_label, swap_change};
use crate::syntax::diff::{Change, DiffLine};
use crate::syntax::logic::BinOp;

impl<'a> Ctx<'a> {
    /// Matches the operands of two connectives as multisets: exact matches, then
    /// operands whose connective swapped or was dropped so that they merge into this
    /// chain, then pairs by similarity, then leftover atoms as renamings; what is left
    /// is dropped or added.
    pub(super) fn match_operands(
        &mut self,
        xs: &[&Node<'a>],
        ys: &[&Node<'a>],
        op: BinOp,
        depth: usize,
        out: &mut Vec<DiffLine>,
    ) {
        // An implication's operands keep their order.
        if op == BinOp::Implies && xs.len() == 2 && ys.len() == 2 {
            for (x, y) in xs.iter().zip(ys) {
                self.align(x, y, depth, out);
            }
            return;
        }
        let kx: Vec<u64> = xs.iter().map(|x| self.key(x, Side::Left)).collect();
        let ky: Vec<u64> = ys.iter().map(|y| self.key(y, Side::Right)).collect();
        let mut for_x: Vec<Option<usize>> = vec![None; xs.len()];
        let mut used_y = vec![false; ys.len()];
        for (i, k) in kx.iter().enumerate() {
            if let Some(j) = (0..ys.len()).find(|&j| !used_y[j] && ky[j] == *k) {
                for_x[i] = Some(j);
                used_y[j] = true;
            }
        }
        let (merged_x, merged_y) = self.merges(xs, ys, op, &for_x, &mut used_y);
        self.pair_rest(xs, ys, &merged_x, &mut for_x, &mut used_y);
        for i in 0..xs.len() {
            match (&merged_x[i], for_x[i]) {
                (Some(Merge::Taken), _) => {}
                (Some(m), _) => emit_merge(xs[i], Side::Left, m, ys, depth, self.texts, out),
                (None, Some(j)) => self.align(xs[i], ys[j], depth, out),
                (None, None) => {
                    let t = xs[i].text();
                    out.push(
                        DiffLine::new(depth, Some(t.clone()), None, Change::OperatorDropped)
                            .named(format!("operand dropped: {t}"), t),
                    );
                }
            }
        }
        for j in 0..ys.len() {
            if let Some(m) = &merged_y[j] {
                emit_merge(ys[j], Side::Right, m, xs, depth, self.texts, out);
            } else if !used_y[j] {
                let t = ys[j].text();
                out.push(
                    DiffLine::new(depth, None, Some(t.clone()), Change::OperatorAdded)
                        .named(format!("operand added: {t}"), t),
                );
            }
        }
    }

    /// Operands with no exact partner that merge into the chain (a swapped or dropped
    /// connective), tried from the side with fewer of them left.
    fn merges(
        &self,
        xs: &[&Node<'a>],
        ys: &[&Node<'a>],
        op: BinOp,
        for_x: &[Option<usize>],
        used_y: &mut [bool],
    ) -> (Vec<Option<Merge>>, Vec<Option<Merge>>) {
        let mut merged_x: Vec<Option<Merge>> = (0..xs.len()).map(|_| None).collect();
        let mut merged_y: Vec<Option<Merge>> = (0..ys.len()).map(|_| None).collect();
        if op != BinOp::Implies {
            let left_n = for_x.iter().filter(|m| m.is_none()).count();
            let right_n = used_y.iter().filter(|u| !**u).count();
            if left_n < right_n {
                let mut used_x: Vec<bool> = for_x.iter().map(Option::is_some).collect();
                for i in 0..xs.len() {
                    if !used_x[i] {
                        merged_x[i] = self.merge(xs[i], Side::Left, op, ys, used_y);
                        used_x[i] |= merged_x[i].is_some();
                    }
                }
            } else if right_n < left_n {
                let mut used_x: Vec<bool> = for_x.iter().map(Option::is_some).collect();
                for j in 0..ys.len() {
                    if !used_y[j] {
                        merged_y[j] = self.merge(ys[j], Side::Right, op, xs, &mut used_x);
                        if merged_y[j].is_some() {
                            used_y[j] = true;
                        }
                    }
                }
                for (i, u) in used_x.iter().enumerate() {
                    if *u && for_x[i].is_none() && merged_x[i].is_none() {
                        // Taken by a merge on φ₁'s side: mark as handled.
                        merged_x[i] = Some(Merge::Taken);
                    }
                }
            }
        }
        (merged_x, merged_y)
    }

    /// Pairs what is left by similarity, then leftover atoms as renamings, then
    /// anything with anything.
    fn pair_rest(
        &self,
        xs: &[&Node<'a>],
        ys: &[&Node<'a>],
        merged_x: &[Option<Merge>],
        for_x: &mut [Option<usize>],
        used_y: &mut [bool],
    ) {
        let free_x: Vec<usize> = (0..xs.len())
            .filter(|&i| for_x[i].is_none() && merged_x[i].is_none())
            .collect();
        let free_y: Vec<usize> = (0..ys.len()).filter(|&j| !used_y[j]).collect();
        if !free_x.is_empty() && !free_y.is_empty() {
            let bx: Vec<_> = free_x
                .iter()
                .map(|&i| self.feature_bag(xs[i], Side::Left))
                .collect();
            let by: Vec<_> = free_y
                .iter()
                .map(|&j| self.feature_bag(ys[j], Side::Right))
                .collect();
            let mut cands: Vec<(u64, usize, usize)> = Vec::new();
            for (p, fx) in bx.iter().enumerate() {
                for (q, fy) in by.iter().enumerate() {
                    let s = dice(fx, fy);
                    if s > 0 {
                        cands.push((s, p, q));
                    }
                }
            }
            cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
            for (_, p, q) in cands {
                let (i, j) = (free_x[p], free_y[q]);
                if for_x[i].is_none() && !used_y[j] {
                    for_x[i] = Some(j);
                    used_y[j] = true;
                }
            }
            // Leftover atoms pair up as renamings, then anything with anything.
            for atoms_only in [true, false] {
                for &i in &free_x {
                    if for_x[i].is_some() || (atoms_only && !matches!(xs[i], Node::Atom(_))) {
                        continue;
                    }
                    if let Some(&j) = free_y
                        .iter()
                        .find(|&&j| !used_y[j] && (!atoms_only || matches!(ys[j], Node::Atom(_))))
                    {
                        for_x[i] = Some(j);
                        used_y[j] = true;
                    }
                }
            }
        }
    }

    /// Whether `n` (an operand on `side` with no exact partner) explains several
    /// operands of the other side at once: its connective swapped to `op` so that its
    /// operands merge into the chain (a single swap splits a chain in two groups,
    /// each an operand or a chain of the old connective on the other side), or all
    /// its operands but one chain of `op` dropped so that chain merges. The partners
    /// are taken from the other side's operands not yet `taken`.
    pub(super) fn merge(
        &self,
        n: &Node<'a>,
        side: Side,
        op: BinOp,
        others: &[&Node<'a>],
        taken: &mut [bool],
    ) -> Option<Merge> {
        let other_side = if side == Side::Left {
            Side::Right
        } else {
            Side::Left
        };
        let okeys: Vec<u64> = others.iter().map(|o| self.key(o, other_side)).collect();
        // A negation around a group of the chain's operands: ¬(a ∘ b) where the other
        // side has a and b among the chain's operands.
        if let Node::Not(_, inner) = n
            && let Node::Chain(_, o, items) = &**inner
            && *o == op
        {
            let items: Vec<&Node<'a>> = items.iter().collect();
            let mut used = taken.to_vec();
            if let Some(pairs) = self.claim(&items, side, &okeys, &mut used) {
                taken.copy_from_slice(&used);
                return Some(Merge::Negated {
                    inner: inner.text(),
                    pairs,
                });
            }
        }
        let (own, parts) = n.operands()?;
        if own == op {
            return None;
        }
        let mut used = taken.to_vec();
        if let Some(pairs) = self.swap_pairs(&parts, (own, op), side, others, &okeys, &mut used) {
            taken.copy_from_slice(&used);
            return Some(Merge::Swapped { own, op, pairs });
        }
        // The drop: one operand, a chain of `op`, is all that is left of `n`.
        for (k, part) in parts.iter().enumerate() {
            if let Node::Chain(_, o, cs) = part
                && *o == op
            {
                let cs: Vec<&Node<'a>> = cs.iter().collect();
                let mut used = taken.to_vec();
                if let Some(pairs) = self.claim(&cs, side, &okeys, &mut used) {
                    taken.copy_from_slice(&used);
                    let dropped = (0..parts.len())
                        .filter(|&i| i != k)
                        .map(|i| parts[i].text())
                        .collect();
                    return Some(Merge::Dropped {
                        own,
                        pairs,
                        dropped,
                    });
                }
            }
        }
        None
    }

    /// The swap for [`Self::merge`]: `n`'s connective `own` became `op`, so its operands
    /// `parts` (or groups of them, a chain of `own` on the other side) each find their
    /// partners among `others`; the pairs when there are at least two groups.
    fn swap_pairs(
        &self,
        parts: &[&Node<'a>],
        (own, op): (BinOp, BinOp),
        side: Side,
        others: &[&Node<'a>],
        okeys: &[u64],
        used: &mut Vec<bool>,
    ) -> Option<Vec<(String, usize)>> {
        let other_side = if side == Side::Left {
            Side::Right
        } else {
            Side::Left
        };
        let pkeys: Vec<u64> = parts.iter().map(|p| self.key(p, side)).collect();
        // The swap: groups of this side's operands that are a chain of `own` there.
        let mut assigned = vec![false; parts.len()];
        let mut pairs: Vec<(String, usize)> = Vec::new();
        let mut groups = 0;
        for j in 0..others.len() {
            if used[j] {
                continue;
            }
            let Node::Chain(_, o, items) = others[j] else {
                continue;
            };
            if *o != own {
                continue;
            }
            let mut pick: Vec<usize> = Vec::new();
            for it in items {
                let k = self.key(it, other_side);
                match (0..parts.len())
                    .find(|&i| !assigned[i] && !pick.contains(&i) && pkeys[i] == k)
                {
                    Some(i) => pick.push(i),
                    None => break,
                }
            }
            if pick.len() == items.len() {
                let texts: Vec<String> = pick.iter().map(|&i| parts[i].text()).collect();
                pairs.push((texts.join(&format!(" {} ", op_label(own))), j));
                for i in pick {
                    assigned[i] = true;
                }
                used[j] = true;
                groups += 1;
            }
        }
        for (i, part) in parts.iter().enumerate() {
            if assigned[i] {
                continue;
            }
            let spliced: Vec<&Node<'a>> = match part {
                Node::Chain(_, o, cs) if *o == op => cs.iter().collect(),
                other => vec![*other],
            };
            pairs.extend(self.claim(&spliced, side, okeys, used)?);
            groups += 1;
        }
        (groups >= 2).then_some(pairs)
    }

    /// One exact partner among the other side's operands (keyed `okeys`) for each of
    /// `items`, or None; marks them in `used` only when every item has one.
    fn claim(
        &self,
        items: &[&Node<'a>],
        side: Side,
        okeys: &[u64],
        used: &mut Vec<bool>,
    ) -> Option<Vec<(String, usize)>> {
        let mut got: Vec<(String, usize)> = Vec::new();
        let mut trial = used.clone();
        for it in items {
            let k = self.key(it, side);
            let j = (0..okeys.len()).find(|&j| !trial[j] && okeys[j] == k)?;
            trial[j] = true;
            got.push((it.text(), j));
        }
        *used = trial;
        Some(got)
    }
}

pub(super) fn emit_merge(
    n: &Node<'_>,
    side: Side,
    m: &Merge,
    others: &[&Node<'_>],
    depth: usize,
    texts: bool,
    out: &mut Vec<DiffLine>,
) {
    let text = n.text();
    let pair_lines = |out: &mut Vec<DiffLine>, pairs: &[(String, usize)]| {
        for (own, j) in pairs {
            let (l, r) = match (texts, side) {
                (false, _) => (None, None),
                (true, Side::Left) => (Some(own.clone()), Some(others[*j].text())),
                (true, Side::Right) => (Some(others[*j].text()), Some(own.clone())),
            };
            out.push(DiffLine::new(depth + 1, l, r, Change::Same));
        }
    };
    match m {
        Merge::Taken => {}
        Merge::Negated { inner, pairs } => {
            let line = match side {
                Side::Left => DiffLine::new(depth, Some("¬".into()), None, Change::NegationRemoved)
                    .named(format!("negation removed on {inner}"), text),
                Side::Right => DiffLine::new(depth, None, Some("¬".into()), Change::NegationAdded)
                    .named(format!("negation added on {inner}"), text),
            };
            out.push(line);
            pair_lines(out, pairs);
        }
        Merge::Swapped { own, op, pairs } => {
            let (from, to) = match side {
                Side::Left => (*own, *op),
                Side::Right => (*op, *own),
            };
            let note = match side {
                Side::Left => format!("{} → {} on {text}", op_label(from), op_label(to)),
                Side::Right => format!("{} → {} grouping {text}", op_label(from), op_label(to)),
            };
            out.push(
                DiffLine::new(
                    depth,
                    Some(op_label(from).into()),
                    Some(op_label(to).into()),
                    swap_change(from, to),
                )
                .named(note, text),
            );
            pair_lines(out, pairs);
        }
        Merge::Dropped {
            own,
            pairs,
            dropped,
        } => {
            let label = texts.then(|| op_label(*own).to_string());
            let (l, r) = match side {
                Side::Left => (label, None),
                Side::Right => (None, label),
            };
            out.push(DiffLine::new(depth, l, r, Change::Kept));
            pair_lines(out, pairs);
            for t in dropped {
                out.push(match side {
                    Side::Left => {
                        DiffLine::new(depth + 1, Some(t.clone()), None, Change::OperatorDropped)
                            .named(format!("operand dropped: {t}"), t.clone())
                    }
                    Side::Right => {
                        DiffLine::new(depth + 1, None, Some(t.clone()), Change::OperatorAdded)
                            .named(format!("operand added: {t}"), t.clone())
                    }
                });
            }
        }
    }
}

/// How an unmatched operand explains several operands of the other side.
pub(super) enum Merge {
    /// Its connective `own` became the surrounding `op`; `pairs` are its operands (or
    /// groups of them) with their partners on the other side.
    Swapped {
        own: BinOp,
        op: BinOp,
        pairs: Vec<(String, usize)>,
    },
    /// Its connective `own` and the `dropped` operands went; the kept chain's operands
    /// pair with partners on the other side.
    Dropped {
        own: BinOp,
        pairs: Vec<(String, usize)>,
        dropped: Vec<String>,
    },
    /// A negation around a group of operands the other side has in the chain.
    Negated {
        inner: String,
        pairs: Vec<(String, usize)>,
    },
    /// An operand of this side consumed by a merge on the other side.
    Taken,
}
