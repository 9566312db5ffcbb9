//! `le`: LogicLLaMA's logical-equivalence score (`VecRuleEvaluator.find_best_LE_score` with
//! soft binding, greedy match and `top_n = 1000`), as the paper's code calls it.
//!
//! Atoms are the literal strings of the paper's parse (`Owns(x,Caffeine)`, `x=y`, leading
//! `¬` removed); quantifiers are ignored; the truth table is the exact 2^n rows; candidate
//! atoms bind to reference atoms in ascending Levenshtein order, depth first, stopping
//! after 1,000 bindings; the score is the best share of agreeing rows, as `float32`.

use super::paper_parse::{Nt, PTree, PaperParseError, parse_paper};

/// Most distinct atoms on either side before `le` refuses: 2^14 rows × 1,000 bindings.
pub(crate) const MAX_ATOMS: usize = 14;

/// Why `le` has no value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LeError {
    /// More atoms than `MAX_ATOMS`.
    #[error("{0} atoms: above the {MAX_ATOMS}-atom bound for the exact truth table")]
    TooLarge(usize),
    /// The parse has a shape the paper's evaluator raises on (`S -> ( S )` reaches a leaf).
    #[error("the paper's LE code raises on this parse (a bracketed `¬` formula at the top)")]
    PaperRaises,
}

/// The distinct atom strings of a parse, in first-occurrence order.
fn atoms(t: &PTree, out: &mut Vec<String>) {
    if t.label() == Some(Nt::L) {
        let mut leaves = Vec::new();
        t.leaves(&mut leaves);
        let s: String = leaves.concat();
        let s = s.strip_prefix('¬').map_or(s.clone(), str::to_string);
        if !out.contains(&s) {
            out.push(s);
        }
    } else {
        t.children().iter().for_each(|c| atoms(c, out));
    }
}

/// Truth vector over `rows` rows, one bit per row, `words` u64 words.
type Vec64 = Vec<u64>;

/// Column `k` of `itertools.product([False, True], repeat=n)`: row r has bit (n−1−k) of r.
fn column(k: usize, n: usize, words: usize) -> Vec64 {
    // Row r holds bit (n-1-k) of r: a fixed pattern within each word below period 64,
    // whole words of ones or zeros above.
    use crate::verify::truth_table::LOW as PATTERN;
    let rows = 1usize << n;
    let shift = n - 1 - k;
    let mut v: Vec64 = (0..words)
        .map(|w| match PATTERN.get(shift) {
            Some(&p) => p,
            None if (w >> (shift - 6)) & 1 == 1 => u64::MAX,
            None => 0,
        })
        .collect();
    if rows < 64
        && let Some(first) = v.first_mut()
    {
        *first &= (1u64 << rows) - 1;
    }
    v
}

/// Levenshtein distance over characters (python-Levenshtein `distance`).
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

const DUMMY: &str = "#DUMMY";
const TOP_N: usize = 1000;

/// The greedy binding enumeration: for each reference atom in order, candidate atoms by
/// ascending distance (ties in list order), depth first; at most [`TOP_N`] bindings,
/// each handed to `visit`, which returns false to stop early.
fn bindings(truth: &[String], pred: &[String], visit: &mut dyn FnMut(&[usize]) -> bool) {
    let dist = |a: &str, b: &str| {
        if a.starts_with(DUMMY) || b.starts_with(DUMMY) {
            10000
        } else {
            levenshtein(a, b)
        }
    };
    let order: Vec<Vec<usize>> = truth
        .iter()
        .map(|t| {
            let mut idx: Vec<usize> = (0..pred.len()).collect();
            idx.sort_by_cached_key(|&j| dist(t, &pred[j]));
            idx
        })
        .collect();
    struct Walk<'a> {
        order: &'a [Vec<usize>],
        used: Vec<usize>,
        taken: Vec<bool>,
        seen: usize,
        stop: bool,
    }
    fn go(w: &mut Walk<'_>, i: usize, visit: &mut dyn FnMut(&[usize]) -> bool) {
        if w.stop || w.seen >= TOP_N {
            return;
        }
        if i == w.order.len() {
            w.seen += 1;
            w.stop = !visit(&w.used);
            return;
        }
        for k in 0..w.order[i].len() {
            let j = w.order[i][k];
            if w.taken[j] {
                continue;
            }
            w.used.push(j);
            w.taken[j] = true;
            go(w, i + 1, visit);
            w.taken[j] = false;
            w.used.pop();
            if w.stop || w.seen >= TOP_N {
                return;
            }
        }
    }
    let mut w = Walk {
        order: &order,
        used: Vec::with_capacity(truth.len()),
        taken: vec![false; pred.len()],
        seen: 0,
        stop: false,
    };
    go(&mut w, 0, visit);
}

/// One step of a compiled truth-table evaluation (postfix).
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Push atom `i`'s column, negated when the flag is set.
    Atom(usize, bool),
    /// Negate the top.
    Not,
    /// Combine the top two with the operator symbol's table.
    Bin(char),
}

/// Compiles a parse into postfix steps exactly as [`eval`] walks it; `None` where
/// [`eval`] gives `None` (the paper's code raises).
fn compile(t: &PTree, index: &dyn Fn(&str) -> Option<usize>, out: &mut Vec<Step>) -> Option<()> {
    let kids = t.children();
    match t.label()? {
        Nt::S => compile(kids.last()?, index, out),
        Nt::F => {
            if kids.len() == 1 && kids[0].label() == Some(Nt::L) {
                compile(&kids[0], index, out)
            } else if kids.len() >= 2 && kids[kids.len() - 2].label() == Some(Nt::F) {
                compile(&kids[kids.len() - 2], index, out)?;
                if kids[0].leaf() == Some("¬") {
                    out.push(Step::Not);
                }
                Some(())
            } else if kids.len() == 3 && kids[1].label() == Some(Nt::Op) {
                compile(&kids[0], index, out)?;
                compile(&kids[2], index, out)?;
                let op = kids[1].children().first()?.leaf()?;
                out.push(Step::Bin(op.chars().next().unwrap_or('↔')));
                Some(())
            } else {
                None
            }
        }
        Nt::L => {
            let mut leaves = Vec::new();
            t.leaves(&mut leaves);
            let s: String = leaves.concat();
            let negated = kids[0].leaf() == Some("¬");
            let name = if negated {
                &s['¬'.len_utf8()..]
            } else {
                s.as_str()
            };
            out.push(Step::Atom(index(name)?, negated));
            Some(())
        }
        _ => None,
    }
}

/// Runs compiled steps with atom `i` reading `cols[col_of[i]]`; the result is left in
/// `stack[0]`. `stack` holds reusable buffers of `words` words.
fn run(steps: &[Step], col_of: &[usize], cols: &[Vec64], stack: &mut Vec<Vec64>) {
    let words = cols.first().map_or(1, Vec::len);
    let mut top = 0usize;
    let mut k = 0;
    while k < steps.len() {
        match steps[k] {
            // An atom the next step combines with the top is read from its column in
            // place, not copied onto the stack first.
            Step::Atom(i, neg) if top > 0 && matches!(steps.get(k + 1), Some(Step::Bin(_))) => {
                if let Some(&Step::Bin(op)) = steps.get(k + 1) {
                    combine(op, &mut stack[top - 1], &cols[col_of[i]], neg);
                }
                k += 2;
                continue;
            }
            Step::Atom(i, neg) => {
                if stack.len() <= top {
                    stack.push(vec![0; words]);
                }
                let src = &cols[col_of[i]];
                let dst = &mut stack[top];
                dst.resize(words, 0);
                for (d, x) in dst.iter_mut().zip(src) {
                    *d = if neg { !x } else { *x };
                }
                top += 1;
            }
            Step::Not => stack[top - 1].iter_mut().for_each(|x| *x = !*x),
            Step::Bin(op) => {
                let (lo, hi) = stack.split_at_mut(top - 1);
                combine(op, &mut lo[top - 2], &hi[0], false);
                top -= 1;
            }
        }
        k += 1;
    }
}

/// `p ← p op q` (`q` negated when `neg_q`), word by word, with the operator chosen
/// once per call rather than per word.
fn combine(op: char, p: &mut [u64], q: &[u64], neg_q: bool) {
    let flip = if neg_q { u64::MAX } else { 0 };
    let pairs = p.iter_mut().zip(q);
    match op {
        '⊕' => pairs.for_each(|(a, &b)| *a ^= b ^ flip),
        '∨' => pairs.for_each(|(a, &b)| *a |= b ^ flip),
        '∧' => pairs.for_each(|(a, &b)| *a &= b ^ flip),
        '→' => pairs.for_each(|(a, &b)| *a = !*a | (b ^ flip)),
        // ↔ (and any other symbol, as `eval` reads it): (a ∧ b) ∨ (¬a ∧ ¬b).
        _ => pairs.for_each(|(a, &b)| *a = !(*a ^ b ^ flip)),
    }
}

/// [`run`] on word `w` of the truth table alone, 64 rows at a time on a stack of
/// words (`stack` is scratch): for tables of one word, where `run`'s per-step column
/// copies cost more than the rows.
fn run_word(steps: &[Step], col_of: &[usize], cols: &[Vec64], w: usize, stack: &mut Vec64) -> u64 {
    stack.clear();
    for s in steps {
        match *s {
            Step::Atom(i, neg) => {
                let x = cols[col_of[i]][w];
                stack.push(if neg { !x } else { x });
            }
            Step::Not => {
                if let Some(x) = stack.last_mut() {
                    *x = !*x;
                }
            }
            Step::Bin(op) => {
                let (Some(b), Some(a)) = (stack.pop(), stack.last_mut()) else {
                    continue;
                };
                *a = match op {
                    '⊕' => *a ^ b,
                    '∨' => *a | b,
                    '∧' => *a & b,
                    '→' => !*a | b,
                    _ => (*a & b) | (!*a & !b),
                };
            }
        }
    }
    stack.first().copied().unwrap_or(0)
}

/// LE of two parses (reference first, as the paper's code calls it).
///
/// Both formulas are compiled once; each binding only permutes the candidate's columns.
/// The search stops at a score of 1 (no later binding can replace it: the paper keeps
/// only a strictly greater score), so the value is the one the full enumeration gives.
pub(crate) fn le_trees(truth: &PTree, pred: &PTree) -> Result<f64, LeError> {
    let (mut ta, mut pa) = (Vec::new(), Vec::new());
    atoms(truth, &mut ta);
    atoms(pred, &mut pa);
    let n = ta.len().max(pa.len());
    if n > MAX_ATOMS {
        return Err(LeError::TooLarge(n));
    }
    let short = if ta.len() < n { &mut ta } else { &mut pa };
    let missing = n - short.len();
    short.extend((0..missing).map(|i| format!("{DUMMY}_{i}")));
    let rows = 1usize << n;
    let words = rows.div_ceil(64);
    let cols: Vec<Vec64> = (0..n).map(|k| column(k, n, words)).collect();
    let mask_last = if rows.is_multiple_of(64) {
        u64::MAX
    } else {
        (1u64 << rows) - 1
    };
    let mut tsteps = Vec::new();
    let tpos = |s: &str| ta.iter().position(|a| a == s);
    if compile(truth, &tpos, &mut tsteps).is_none() {
        return Err(LeError::PaperRaises);
    }
    let mut psteps = Vec::new();
    let ppos = |s: &str| pa.iter().position(|a| a == s);
    let pred_ok = compile(pred, &ppos, &mut psteps).is_some();
    let mut stack = Vec::new();
    let identity: Vec<usize> = (0..n).collect();
    let mut word_stack = Vec::new();
    run(&tsteps, &identity, &cols, &mut stack);
    let tv = stack.first().cloned().unwrap_or_else(|| vec![0; words]);
    let mut best = 0.0f32;
    let mut col_of = vec![0usize; n];
    let mut raised = false;
    bindings(&ta, &pa, &mut |b| {
        if !pred_ok {
            raised = true;
            return false;
        }
        // Reference atom i is bound to candidate atom b[i]: that atom reads column i.
        for (i, &j) in b.iter().enumerate() {
            col_of[j] = i;
        }
        let mut agree = 0u64;
        if words == 1 {
            // Up to 6 atoms: one word, no column copies.
            let y = run_word(&psteps, &col_of, &cols, 0, &mut word_stack);
            agree += u64::from((!(tv[0] ^ y) & mask_last).count_ones());
        } else {
            run(&psteps, &col_of, &cols, &mut stack);
            for (w, (x, y)) in tv.iter().zip(&stack[0]).enumerate() {
                let m = if w + 1 == words { mask_last } else { u64::MAX };
                agree += u64::from((!(x ^ y) & m).count_ones());
            }
        }
        // numpy's float32 mean of booleans: exact for these power-of-two row counts.
        let score = (agree as f64 / rows as f64) as f32;
        if score > best {
            best = score;
        }
        agree != rows as u64
    });
    if raised {
        return Err(LeError::PaperRaises);
    }
    Ok(f64::from(best))
}

/// `le` of `candidate` against `reference`, from the raw strings: 0 when either fails the
/// paper's parser (as the paper's code scores it), an error above the size bound.
pub fn le(candidate: &str, reference: &str) -> Result<f64, LeError> {
    le_parsed(
        parse_paper(candidate).as_ref(),
        parse_paper(reference).as_ref(),
    )
}

/// [`le`] from parses already made.
pub(crate) fn le_parsed(
    candidate: Result<&PTree, &PaperParseError>,
    reference: Result<&PTree, &PaperParseError>,
) -> Result<f64, LeError> {
    match (candidate, reference) {
        (Ok(c), Ok(r)) => le_trees(r, c),
        _ => Ok(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random postfix program over `n` atoms and the same formula as a tree.
    enum T {
        Atom(usize, bool),
        Not(Box<T>),
        Bin(char, Box<T>, Box<T>),
    }

    fn random_tree(rng: &mut crate::base::rng::Rng, n: usize, depth: usize) -> T {
        match if depth == 0 { 0 } else { rng.below(4) } {
            0 => T::Atom(rng.below(n), rng.chance(0.3)),
            1 => T::Not(Box::new(random_tree(rng, n, depth - 1))),
            _ => T::Bin(
                ['⊕', '∨', '∧', '→', '↔'][rng.below(5)],
                Box::new(random_tree(rng, n, depth - 1)),
                Box::new(random_tree(rng, n, depth - 1)),
            ),
        }
    }

    fn postfix(t: &T, out: &mut Vec<Step>) {
        match t {
            T::Atom(i, neg) => out.push(Step::Atom(*i, *neg)),
            T::Not(a) => {
                postfix(a, out);
                out.push(Step::Not);
            }
            T::Bin(op, a, b) => {
                postfix(a, out);
                postfix(b, out);
                out.push(Step::Bin(*op));
            }
        }
    }

    /// The formula's value on one row, atom `i` reading bit `n-1-col_of[i]` of it.
    fn at_row(t: &T, n: usize, col_of: &[usize], r: usize) -> bool {
        match t {
            T::Atom(i, neg) => ((r >> (n - 1 - col_of[*i])) & 1 == 1) != *neg,
            T::Not(a) => !at_row(a, n, col_of, r),
            T::Bin(op, a, b) => {
                let (x, y) = (at_row(a, n, col_of, r), at_row(b, n, col_of, r));
                match op {
                    '⊕' => x != y,
                    '∨' => x || y,
                    '∧' => x && y,
                    '→' => !x || y,
                    _ => x == y,
                }
            }
        }
    }

    #[test]
    fn compiled_programs_give_every_rows_value() {
        let mut rng = crate::base::rng::Rng::new(77);
        for case in 0..600 {
            let n = rng.range(1, 11);
            let rows = 1usize << n;
            let words = rows.div_ceil(64);
            let cols: Vec<Vec64> = (0..n).map(|k| column(k, n, words)).collect();
            let mut col_of: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                col_of.swap(i, rng.below(i + 1));
            }
            let depth = rng.range(0, 6);
            let t = random_tree(&mut rng, n, depth);
            let mut steps = Vec::new();
            postfix(&t, &mut steps);
            let mut stack = Vec::new();
            run(&steps, &col_of, &cols, &mut stack);
            let mut word_stack = Vec::new();
            for r in 0..rows {
                let want = at_row(&t, n, &col_of, r);
                assert_eq!(
                    (stack[0][r / 64] >> (r % 64)) & 1 == 1,
                    want,
                    "case {case} row {r}"
                );
                let w = run_word(&steps, &col_of, &cols, r / 64, &mut word_stack);
                assert_eq!((w >> (r % 64)) & 1 == 1, want, "case {case} row {r}");
            }
        }
    }

    #[test]
    fn columns_are_the_bits_of_the_row_number() {
        for n in 1..=MAX_ATOMS {
            let rows = 1usize << n;
            let words = rows.div_ceil(64);
            for k in 0..n {
                let mut want = vec![0u64; words];
                for r in 0..rows {
                    if (r >> (n - 1 - k)) & 1 == 1 {
                        want[r / 64] |= 1 << (r % 64);
                    }
                }
                assert_eq!(column(k, n, words), want, "n {n} k {k}");
            }
        }
    }

    #[test]
    fn hand_worked_values() {
        let a = "∀x (Eel(x) → Fish(x))";
        assert_eq!(le(a, a), Ok(1.0));
        // Renaming atoms is free: binding maps Eel→Snake, Fish→Bird.
        assert_eq!(le("∀x (Snake(x) → Bird(x))", a), Ok(1.0));
        // p→q vs p∧q agree on rows TT and TF... : → is FFTT-ish; 2 of 4 rows agree.
        assert_eq!(le("A(x) ∧ B(x)", "A(x) → B(x)"), Ok(0.5));
        // A leading ¬ on the whole formula is dropped by `S -> ¬ S`.
        assert_eq!(le("¬(A(x) ∧ B(x))", "A(x) ∧ B(x)"), Ok(1.0));
        // A failed parse scores 0.
        assert_eq!(le("A(x) ∧ (B(x)", a), Ok(0.0));
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        // `S -> ( S )` makes the paper's evaluator assert on a leaf.
        assert_eq!(le("(¬A(x))", a), Err(LeError::PaperRaises));
    }

    #[test]
    fn refuses_above_the_bound() {
        let big: Vec<String> = (0..15).map(|i| format!("P(c{i})")).collect();
        assert_eq!(le(&big.join(" ∧ "), "P(c)"), Err(LeError::TooLarge(15)));
    }
}
