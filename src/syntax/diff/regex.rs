//! The regex diff: alternations matched as multisets, concatenations aligned in
//! order, repetition operators named where they were added, removed or changed.

use super::{BUDGET, Change, DiffLine, cost};
use crate::syntax::regex::{Regex, print_regex};
use std::hash::{DefaultHasher, Hash, Hasher};

fn text(r: &Regex) -> String {
    print_regex(r, false)
}

fn label(r: &Regex) -> String {
    match r {
        Regex::Concat(_) => "·".into(),
        Regex::Alt(_) => "|".into(),
        Regex::Star(_) => "*".into(),
        Regex::Plus(_) => "+".into(),
        Regex::Opt(_) => "?".into(),
        other => text(other),
    }
}

/// The repeated operand of `*`, `+` or `?`.
fn repeated(r: &Regex) -> Option<&Regex> {
    match r {
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) => Some(x),
        _ => None,
    }
}

fn repeat_name(r: &Regex) -> &'static str {
    match r {
        Regex::Plus(_) => "'+'",
        Regex::Opt(_) => "'?'",
        _ => "star",
    }
}

/// Equal for expressions equal up to the order of alternatives.
fn key(r: &Regex) -> u64 {
    fn go(r: &Regex, h: &mut DefaultHasher) {
        match r {
            Regex::Alt(xs) => {
                let mut ks: Vec<u64> = xs.iter().map(key).collect();
                ks.sort_unstable();
                (0u8, ks).hash(h);
            }
            Regex::Concat(xs) => {
                1u8.hash(h);
                for x in xs {
                    go(x, h);
                }
            }
            Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) => {
                (2u8, label(r)).hash(h);
                go(x, h);
            }
            other => (3u8, text(other)).hash(h),
        }
    }
    let mut h = DefaultHasher::new();
    go(r, &mut h);
    h.finish()
}

fn size(r: &Regex) -> usize {
    r.size()
}

/// Symbols and operators a regex is made of, for similarity.
fn bag(r: &Regex) -> Vec<String> {
    let mut out = Vec::new();
    r.walk(&mut |n| out.push(label(n)));
    out.sort_unstable();
    out
}

fn similarity(a: &[String], b: &[String]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2000 * common / (a.len() + b.len()).max(1)
}

#[derive(Clone, Copy)]
enum Plan {
    RepeatRemoved,
    RepeatAdded,
    WithinLeft,
    WithinRight,
    Replace,
}

struct Ctx {
    budget: usize,
}

/// Aligned diff of two regular expressions.
pub(super) fn diff(a: &Regex, b: &Regex) -> Vec<DiffLine> {
    let mut out = Vec::new();
    Ctx { budget: BUDGET }.align(a, b, 0, &mut out);
    out
}

fn dropped(r: &Regex, depth: usize) -> DiffLine {
    let t = text(r);
    DiffLine::new(depth, Some(t.clone()), None, Change::OperatorDropped)
        .named(format!("operand dropped: {t}"), t)
}

fn added(r: &Regex, depth: usize) -> DiffLine {
    let t = text(r);
    DiffLine::new(depth, None, Some(t.clone()), Change::OperatorAdded)
        .named(format!("operand added: {t}"), t)
}

impl Ctx {
    fn align(&mut self, a: &Regex, b: &Regex, depth: usize, out: &mut Vec<DiffLine>) {
        self.budget = self.budget.saturating_sub(1);
        if key(a) == key(b) {
            out.push(DiffLine::new(
                depth,
                Some(text(a)),
                Some(text(b)),
                Change::Same,
            ));
            return;
        }
        let mut plans = Vec::with_capacity(3);
        match (a, b, repeated(a), repeated(b)) {
            (_, _, Some(x), Some(y)) => {
                let change = if label(a) == label(b) {
                    DiffLine::new(depth, Some(label(a)), Some(label(b)), Change::Kept)
                } else {
                    let note = format!("{} → {} on {}", label(a), label(b), text(x));
                    DiffLine::new(depth, Some(label(a)), Some(label(b)), Change::RepeatChanged)
                        .named(note, text(a))
                };
                out.push(change);
                self.align(x, y, depth + 1, out);
                return;
            }
            (Regex::Alt(xs), Regex::Alt(ys), ..) => {
                out.push(DiffLine::new(
                    depth,
                    Some("|".into()),
                    Some("|".into()),
                    Change::Kept,
                ));
                let (xs, ys): (Vec<_>, Vec<_>) = (xs.iter().collect(), ys.iter().collect());
                self.match_set(&xs, &ys, depth + 1, out);
                return;
            }
            (Regex::Concat(xs), Regex::Concat(ys), ..) => {
                out.push(DiffLine::new(
                    depth,
                    Some("·".into()),
                    Some("·".into()),
                    Change::Kept,
                ));
                self.match_seq(xs, ys, depth + 1, out);
                return;
            }
            (_, _, Some(_), None) => {
                plans.push(Plan::RepeatRemoved);
                if matches!(b, Regex::Concat(_) | Regex::Alt(_)) {
                    plans.push(Plan::WithinRight);
                }
            }
            (_, _, None, Some(_)) => {
                plans.push(Plan::RepeatAdded);
                if matches!(a, Regex::Concat(_) | Regex::Alt(_)) {
                    plans.push(Plan::WithinLeft);
                }
            }
            (Regex::Concat(_) | Regex::Alt(_), Regex::Concat(_) | Regex::Alt(_), ..) => {
                plans.push(Plan::WithinLeft);
                plans.push(Plan::WithinRight);
            }
            (Regex::Concat(_) | Regex::Alt(_), ..) => plans.push(Plan::WithinLeft),
            (_, Regex::Concat(_) | Regex::Alt(_), ..) => plans.push(Plan::WithinRight),
            _ => {
                let (l, r) = (text(a), text(b));
                let note = format!("symbol renamed {l} → {r}");
                out.push(
                    DiffLine::new(depth, Some(l.clone()), Some(r), Change::AtomChanged)
                        .named(note, l),
                );
                return;
            }
        }
        plans.push(Plan::Replace);
        if self.budget == 0 {
            self.run(plans[0], a, b, depth, out);
            return;
        }
        let mut best: Option<(usize, Vec<DiffLine>)> = None;
        for p in plans {
            let mut lines = Vec::new();
            self.run(p, a, b, depth, &mut lines);
            let c = cost(&lines);
            if best.as_ref().is_none_or(|(bc, _)| c < *bc) {
                best = Some((c, lines));
            }
        }
        if let Some((_, lines)) = best {
            out.extend(lines);
        }
    }

    fn run(&mut self, plan: Plan, a: &Regex, b: &Regex, depth: usize, out: &mut Vec<DiffLine>) {
        match plan {
            Plan::RepeatRemoved => {
                let Some(x) = repeated(a) else { return };
                let note = format!("{} removed on {}", repeat_name(a), text(x));
                out.push(
                    DiffLine::new(depth, Some(label(a)), None, Change::StarRemoved)
                        .named(note, text(a)),
                );
                self.align(x, b, depth + 1, out);
            }
            Plan::RepeatAdded => {
                let Some(y) = repeated(b) else { return };
                let note = format!("{} added on {}", repeat_name(b), text(y));
                out.push(
                    DiffLine::new(depth, None, Some(label(b)), Change::StarAdded)
                        .named(note, text(b)),
                );
                self.align(a, y, depth + 1, out);
            }
            Plan::WithinLeft => {
                out.push(DiffLine::new(depth, Some(label(a)), None, Change::Kept));
                match a {
                    Regex::Concat(xs) => {
                        self.match_seq(xs, std::slice::from_ref(b), depth + 1, out);
                    }
                    Regex::Alt(xs) => {
                        let xs: Vec<&Regex> = xs.iter().collect();
                        self.match_set(&xs, &[b], depth + 1, out);
                    }
                    _ => {}
                }
            }
            Plan::WithinRight => {
                out.push(DiffLine::new(depth, None, Some(label(b)), Change::Kept));
                match b {
                    Regex::Concat(ys) => {
                        self.match_seq(std::slice::from_ref(a), ys, depth + 1, out);
                    }
                    Regex::Alt(ys) => {
                        let ys: Vec<&Regex> = ys.iter().collect();
                        self.match_set(&[a], &ys, depth + 1, out);
                    }
                    _ => {}
                }
            }
            Plan::Replace => {
                let (l, r) = (text(a), text(b));
                let note = format!("restructured: {l} → {r}");
                out.push(
                    DiffLine::new(depth, Some(l.clone()), Some(r), Change::Replaced)
                        .named(note, l)
                        .weighing(size(a) + size(b)),
                );
            }
        }
    }

    /// Alternatives as multisets: exact matches, then by similarity, then in order.
    fn match_set(&mut self, xs: &[&Regex], ys: &[&Regex], depth: usize, out: &mut Vec<DiffLine>) {
        let ky: Vec<u64> = ys.iter().map(|y| key(y)).collect();
        let mut for_x: Vec<Option<usize>> = vec![None; xs.len()];
        let mut used = vec![false; ys.len()];
        for (i, x) in xs.iter().enumerate() {
            let k = key(x);
            if let Some(j) = (0..ys.len()).find(|&j| !used[j] && ky[j] == k) {
                for_x[i] = Some(j);
                used[j] = true;
            }
        }
        let mut cands = Vec::new();
        for (i, x) in xs.iter().enumerate().filter(|(i, _)| for_x[*i].is_none()) {
            let bx = bag(x);
            for (j, y) in ys.iter().enumerate().filter(|(j, _)| !used[*j]) {
                let s = similarity(&bx, &bag(y));
                if s > 0 {
                    cands.push((s, i, j));
                }
            }
        }
        cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (_, i, j) in cands {
            if for_x[i].is_none() && !used[j] {
                for_x[i] = Some(j);
                used[j] = true;
            }
        }
        for slot in &mut for_x {
            if slot.is_none()
                && let Some(j) = (0..ys.len()).find(|&j| !used[j])
            {
                *slot = Some(j);
                used[j] = true;
            }
        }
        for (i, x) in xs.iter().enumerate() {
            match for_x[i] {
                Some(j) => self.align(x, ys[j], depth, out),
                None => out.push(dropped(x, depth)),
            }
        }
        for (j, y) in ys.iter().enumerate() {
            if !used[j] {
                out.push(added(y, depth));
            }
        }
    }

    /// Concatenations in order: a longest common subsequence of equal items anchors
    /// the alignment; the items between anchors pair up in order, extras are dropped
    /// or added.
    fn match_seq(&mut self, xs: &[Regex], ys: &[Regex], depth: usize, out: &mut Vec<DiffLine>) {
        let kx: Vec<u64> = xs.iter().map(key).collect();
        let ky: Vec<u64> = ys.iter().map(key).collect();
        let (n, m) = (xs.len(), ys.len());
        let mut lcs = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if kx[i] == ky[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        let (mut gap_x, mut gap_y): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        let flush =
            |this: &mut Ctx, gx: &mut Vec<usize>, gy: &mut Vec<usize>, out: &mut Vec<DiffLine>| {
                let paired = gx.len().min(gy.len());
                for k in 0..paired {
                    this.align(&xs[gx[k]], &ys[gy[k]], depth, out);
                }
                for &x in &gx[paired..] {
                    out.push(dropped(&xs[x], depth));
                }
                for &y in &gy[paired..] {
                    out.push(added(&ys[y], depth));
                }
                gx.clear();
                gy.clear();
            };
        while i < n || j < m {
            if i < n && j < m && kx[i] == ky[j] {
                flush(self, &mut gap_x, &mut gap_y, out);
                out.push(DiffLine::new(
                    depth,
                    Some(text(&xs[i])),
                    Some(text(&ys[j])),
                    Change::Same,
                ));
                i += 1;
                j += 1;
            } else if j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
                gap_x.push(i);
                i += 1;
            } else {
                gap_y.push(j);
                j += 1;
            }
        }
        flush(self, &mut gap_x, &mut gap_y, out);
    }
}
