//! Single edits to a regular expression and a screen that matches candidates against
//! φ₁ on a set of strings, bit-parallel over the positions of each string.

use super::screen::Rand;
use crate::syntax::diff::Change;
use crate::syntax::{Regex, print_regex};

/// Names an edit may use: the symbols of both sides, small parts of φ₁, bounds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pool {
    /// Alphabet of both sides.
    pub syms: Vec<char>,
    /// Small subexpressions of φ₁ an added operand may be.
    pub operands: Vec<Regex>,
    /// Bounds `{n,m}` seen on either side, plus the small ones.
    pub bounds: Vec<(u32, Option<u32>)>,
}

/// Largest φ₁ part offered as an added operand.
const OPERAND_SIZE: usize = 3;
/// Most operands offered.
const MAX_OPERANDS: usize = 12;

impl Pool {
    /// The pool for explaining `b` from `a`.
    pub fn new(a: &Regex, b: &Regex) -> Pool {
        let mut syms = a.alphabet();
        syms.extend(b.alphabet());
        syms.sort_unstable();
        syms.dedup();
        let mut operands: Vec<Regex> = syms.iter().map(|c| Regex::Sym(*c)).collect();
        b.walk(&mut |r| {
            if r.size() <= OPERAND_SIZE && !operands.contains(r) {
                operands.push(r.clone());
            }
        });
        operands.truncate(MAX_OPERANDS);
        let mut bounds = vec![];
        for r in [a, b] {
            r.walk(&mut |x| {
                if let Regex::Repeat(_, n, m) = x {
                    bounds.push((*n, *m));
                }
            });
        }
        bounds.sort_unstable();
        bounds.dedup();
        Pool {
            syms,
            operands,
            bounds,
        }
    }
}

/// A local operation at one node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    /// `x` → `x*`, `x+`, `x?` (0, 1, 2), or `x{n,m}` (3 + bound index).
    Wrap(usize),
    /// `x*` (or `+`, `?`, `{n,m}`) → `x`.
    Unwrap,
    /// The repetition replaced: 0 `*`, 1 `+`, 2 `?`, 3 + i the pool's bound i.
    Rewrap(usize),
    /// `x{n,m}` → `x{n2,m2}`.
    Bound(u32, Option<u32>),
    /// A symbol renamed (pool index).
    Rename(usize),
    /// Item i of a concatenation or alternation dropped.
    Drop(usize),
    /// Pool operand j inserted as item i of a concatenation or alternation.
    Insert(usize, usize),
    /// Concatenated items i and i + 1 swapped.
    Swap(usize),
    /// Concatenation ↔ alternation.
    Flip,
    /// `x` → `x y` (true) or `y x` (false) with pool operand j.
    Concat(bool, usize),
    /// `x` → `x | y` with pool operand j.
    Alt(usize),
}

/// One edit: the node's pre-order index and the operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Edit {
    /// Pre-order index of the node.
    pub at: usize,
    /// What is done there.
    pub op: Op,
}

fn text(r: &Regex) -> String {
    print_regex(r, false)
}

fn wrap(x: &Regex, k: usize, pool: &Pool) -> Option<Regex> {
    let b = Box::new(x.clone());
    Some(match k {
        0 => Regex::Star(b),
        1 => Regex::Plus(b),
        2 => Regex::Opt(b),
        _ => {
            let (n, m) = *pool.bounds.get(k - 3)?;
            Regex::Repeat(b, n, m)
        }
    })
}

fn repeated(r: &Regex) -> Option<&Regex> {
    match r {
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => Some(x),
        _ => None,
    }
}

/// How much an edit writes: the nodes of an inserted operand, one for any other edit
/// (as [`super::logic::weight`]).
pub(crate) fn weight(op: &Op, pool: &Pool) -> usize {
    match op {
        Op::Insert(_, j) | Op::Concat(_, j) | Op::Alt(j) => {
            pool.operands.get(*j).map_or(1, Regex::size)
        }
        _ => 1,
    }
}

/// Every edit of `r`, in pre-order of the nodes.
pub(crate) fn edits(r: &Regex, pool: &Pool) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut at = 0;
    let kinds = 3 + pool.bounds.len();
    r.walk(&mut |x| {
        let here = at;
        at += 1;
        let mut push = |op| out.push(Edit { at: here, op });
        match x {
            Regex::Epsilon => {}
            Regex::Sym(c) => {
                for (i, d) in pool.syms.iter().enumerate() {
                    if d != c {
                        push(Op::Rename(i));
                    }
                }
            }
            Regex::Concat(xs) | Regex::Alt(xs) => {
                for i in 0..xs.len() {
                    push(Op::Drop(i));
                    if matches!(x, Regex::Concat(_)) && i + 1 < xs.len() && xs[i] != xs[i + 1] {
                        push(Op::Swap(i));
                    }
                }
                push(Op::Flip);
                for i in 0..=xs.len() {
                    for j in 0..pool.operands.len() {
                        push(Op::Insert(i, j));
                    }
                }
            }
            Regex::Star(_) | Regex::Plus(_) | Regex::Opt(_) | Regex::Repeat(..) => {
                push(Op::Unwrap);
                for k in 0..kinds {
                    push(Op::Rewrap(k));
                }
                if let Regex::Repeat(_, n, m) = x {
                    let mut bounds = vec![(n + 1, *m), (*n, None), (*n, Some(*n))];
                    if let Some(m) = m {
                        bounds.extend([(*n, Some(m + 1)), (n + 1, Some(m + 1))]);
                        if *m > *n {
                            bounds.push((*n, Some(m - 1)));
                        }
                    }
                    if *n > 0 {
                        bounds.push((n - 1, *m));
                    }
                    for (a, b) in bounds {
                        if (a, b) != (*n, *m) && b.is_none_or(|b| a <= b) {
                            push(Op::Bound(a, b));
                        }
                    }
                }
            }
        }
        if repeated(x).is_none() {
            for k in 0..kinds {
                push(Op::Wrap(k));
            }
        }
        // Inside a concatenation (alternation) an item is inserted; around it, an
        // alternative (a concatenated part) is added to the whole, `x y` → `x y | z`.
        for j in 0..pool.operands.len() {
            if !matches!(x, Regex::Concat(_)) {
                push(Op::Concat(true, j));
                push(Op::Concat(false, j));
            }
            if !matches!(x, Regex::Alt(_)) {
                push(Op::Alt(j));
            }
        }
    });
    out
}

/// The node `op` turns `r` into, if it applies.
pub(crate) fn local(r: &Regex, op: &Op, pool: &Pool) -> Option<Regex> {
    Some(match (op, r) {
        (Op::Wrap(k), _) => wrap(r, *k, pool)?,
        (Op::Unwrap, _) => repeated(r)?.clone(),
        (Op::Rewrap(k), _) => {
            let new = wrap(repeated(r)?, *k, pool)?;
            if new == *r {
                return None;
            }
            new
        }
        (Op::Bound(n, m), Regex::Repeat(x, ..)) => Regex::Repeat(x.clone(), *n, *m),
        (Op::Rename(i), Regex::Sym(_)) => Regex::Sym(*pool.syms.get(*i)?),
        (Op::Drop(i), Regex::Concat(xs) | Regex::Alt(xs)) if *i < xs.len() => {
            let mut xs = xs.clone();
            xs.remove(*i);
            rebuild(r, xs)
        }
        (Op::Insert(i, j), Regex::Concat(xs) | Regex::Alt(xs)) if *i <= xs.len() => {
            let mut xs = xs.clone();
            xs.insert(*i, pool.operands.get(*j)?.clone());
            rebuild(r, xs)
        }
        (Op::Swap(i), Regex::Concat(xs)) if i + 1 < xs.len() => {
            let mut xs = xs.clone();
            xs.swap(*i, i + 1);
            Regex::concat(xs)
        }
        (Op::Flip, Regex::Concat(xs)) => Regex::alt(xs.clone()),
        (Op::Flip, Regex::Alt(xs)) => Regex::concat(xs.clone()),
        (Op::Concat(after, j), _) => {
            let y = pool.operands.get(*j)?.clone();
            if *after {
                Regex::concat(vec![r.clone(), y])
            } else {
                Regex::concat(vec![y, r.clone()])
            }
        }
        (Op::Alt(j), _) => Regex::alt(vec![r.clone(), pool.operands.get(*j)?.clone()]),
        _ => return None,
    })
}

fn rebuild(like: &Regex, xs: Vec<Regex>) -> Regex {
    match like {
        Regex::Alt(_) => Regex::alt(xs),
        _ => Regex::concat(xs),
    }
}

/// `r` with the edit applied, if it applies.
pub(crate) fn apply(r: &Regex, e: &Edit, pool: &Pool) -> Option<Regex> {
    fn go(r: &Regex, e: &Edit, pool: &Pool, n: &mut usize) -> Option<Option<Regex>> {
        let here = *n;
        *n += 1;
        if here == e.at {
            return Some(local(r, &e.op, pool));
        }
        let size = r.size();
        if e.at >= here + size {
            *n = here + size;
            return None;
        }
        Some(Some(match r {
            Regex::Concat(xs) | Regex::Alt(xs) => {
                let mut out = xs.clone();
                for (i, x) in xs.iter().enumerate() {
                    if let Some(y) = go(x, e, pool, n) {
                        out[i] = y?;
                        break;
                    }
                }
                rebuild(r, out)
            }
            Regex::Star(x) => Regex::Star(Box::new(go(x, e, pool, n)??)),
            Regex::Plus(x) => Regex::Plus(Box::new(go(x, e, pool, n)??)),
            Regex::Opt(x) => Regex::Opt(Box::new(go(x, e, pool, n)??)),
            Regex::Repeat(x, a, b) => Regex::Repeat(Box::new(go(x, e, pool, n)??), *a, *b),
            Regex::Epsilon | Regex::Sym(_) => return Some(None),
        }))
    }
    go(r, e, pool, &mut 0)?
}

pub(crate) fn node(r: &Regex, at: usize) -> Option<&Regex> {
    let mut n = 0;
    let mut found = None;
    r.walk(&mut |x| {
        if n == at {
            found = Some(x);
        }
        n += 1;
    });
    found
}

/// The named change an edit of `r` makes, in `r`'s own syntax.
pub(crate) fn describe(r: &Regex, e: &Edit, pool: &Pool) -> Option<(Change, String)> {
    let x = node(r, e.at)?;
    let after = local(x, &e.op, pool)?;
    let (t, u) = (text(x), text(&after));
    Some(match &e.op {
        Op::Wrap(_) => (Change::StarAdded, format!("repetition added: {t} → {u}")),
        Op::Unwrap => (
            Change::StarRemoved,
            format!("repetition removed: {t} → {u}"),
        ),
        Op::Rewrap(_) => (
            Change::RepeatChanged,
            format!("repetition changed: {t} → {u}"),
        ),
        Op::Bound(..) => (Change::RepeatChanged, format!("bound changed: {t} → {u}")),
        Op::Rename(_) => (Change::AtomChanged, format!("symbol renamed {t} → {u}")),
        Op::Drop(i) => {
            let (Regex::Concat(xs) | Regex::Alt(xs)) = x else {
                return None;
            };
            let gone = text(xs.get(*i)?);
            (
                Change::OperatorDropped,
                format!("operand dropped: {gone} from {t}"),
            )
        }
        Op::Insert(..) | Op::Concat(..) | Op::Alt(_) => {
            (Change::OperatorAdded, format!("operand added: {t} → {u}"))
        }
        Op::Swap(_) => (
            Change::OperandsSwapped,
            format!("operands swapped: {t} → {u}"),
        ),
        Op::Flip => (
            Change::OperatorSwapped,
            format!("concatenation ↔ alternation: {t} → {u}"),
        ),
    })
}

/// Longest screening string (positions fit one machine word).
const MAX_LEN: usize = 62;
/// Most strings enumerated exhaustively (all strings up to some length).
const EXHAUSTIVE: usize = 600;
/// Random longer strings added.
const RANDOM: usize = 96;

/// A test string: its length and, per alphabet symbol, the positions holding it.
struct Probe {
    len: usize,
    masks: Vec<(char, u64)>,
}

impl Probe {
    /// The probe for string `w` over the alphabet `syms`: per symbol, the positions
    /// holding it as bits.
    fn new(w: &[char], syms: &[char]) -> Probe {
        let masks = syms
            .iter()
            .map(|c| {
                let m = w
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| *d == c)
                    .fold(0u64, |m, (i, _)| m | (1 << i));
                (*c, m)
            })
            .collect();
        Probe {
            len: w.len(),
            masks,
        }
    }
}

/// Regex screen: φ₁'s acceptance of each probe string.
pub(crate) struct RegexScreen {
    probes: Vec<Probe>,
    target: Vec<bool>,
    /// Matching steps spent on candidates so far (see [`WORK`]).
    work: std::cell::Cell<u64>,
}

/// Matching steps (subexpressions matched against a probe) one search may spend on
/// candidates: nested repetition (`((((0*1)*0)*1)*0)*`) costs the probe's length to
/// the power of its depth, seconds for one pair. A count, not a time, so a pair gets
/// the same explanation on any machine; past it no candidate passes and the structural
/// diff stands, unproved. Three times the first limit (issue 47): regexes of 21–40
/// nodes ran out before the pair search reached two moved stars.
const WORK: u64 = 30_000_000;

impl RegexScreen {
    /// Every string up to a length over the alphabet, then random longer ones; those
    /// on which φ₀ (`a`) and φ₁ (`b`) differ are checked first, since a candidate
    /// must change φ₀ there (most fail on the first).
    pub fn new(a: &Regex, b: &Regex, pool: &Pool) -> RegexScreen {
        let syms = &pool.syms;
        let mut words: Vec<Vec<char>> = vec![vec![]];
        let mut frontier: Vec<Vec<char>> = vec![vec![]];
        while !syms.is_empty() && words.len() + frontier.len() * syms.len() <= EXHAUSTIVE {
            let next: Vec<Vec<char>> = frontier
                .iter()
                .flat_map(|w| {
                    syms.iter().map(move |c| {
                        let mut v = w.clone();
                        v.push(*c);
                        v
                    })
                })
                .collect();
            if next.first().is_some_and(|w| w.len() > MAX_LEN) {
                break;
            }
            words.extend(next.iter().cloned());
            frontier = next;
        }
        let mut rng = Rand::new(0xA076_1D64_78BD_642F);
        if !syms.is_empty() {
            for _ in 0..RANDOM {
                let len = 4 + rng.below(20);
                words.push((0..len).map(|_| syms[rng.below(syms.len())]).collect());
            }
        }
        let probes: Vec<Probe> = words.iter().map(|w| Probe::new(w, syms)).collect();
        type Checked = Vec<(Probe, bool)>;
        let (mut first, rest): (Checked, Checked) = probes
            .into_iter()
            .map(|p| {
                let t = accepts(b, &p, &mut 0);
                (p, t)
            })
            .partition(|(p, t)| accepts(a, p, &mut 0) != *t);
        first.extend(rest);
        let (probes, target) = first.into_iter().unzip();
        RegexScreen {
            probes,
            target,
            work: std::cell::Cell::new(0),
        }
    }

    /// A new allowance of [`WORK`] (the two-edit search gets its own: the single
    /// edits of a large φ₀ can spend all of the first).
    pub fn renew(&self) {
        self.work.set(0);
    }

    /// Whether `r` accepts exactly the probes φ₁ accepts.
    /// Always false once the search has spent its [`WORK`].
    pub fn agrees(&self, r: &Regex) -> bool {
        if self.work.get() > WORK {
            return false;
        }
        let mut work = 0;
        let ok = self
            .probes
            .iter()
            .zip(&self.target)
            .all(|(p, t)| accepts(r, p, &mut work) == *t);
        self.work.set(self.work.get() + work);
        ok
    }
}

/// Strings the verifier told a refuted candidate from φ₁ by: a later candidate
/// that answers one of them wrongly is refuted without asking again.
#[derive(Default)]
pub(crate) struct Learned(Vec<(Probe, bool)>);

impl Learned {
    /// Learns `word`, which φ₁ accepts (`accepted`) or not; words that do not fit a
    /// probe (too long, another alphabet) are left out.
    pub fn learn(&mut self, word: &str, accepted: bool, syms: &[char]) {
        let w: Vec<char> = word.chars().collect();
        if w.len() <= MAX_LEN && w.iter().all(|c| syms.contains(c)) {
            self.0.push((Probe::new(&w, syms), accepted));
        }
    }

    /// Whether a learned string tells `r` from φ₁.
    pub fn refutes(&self, r: &Regex) -> bool {
        self.0.iter().any(|(p, t)| accepts(r, p, &mut 0) != *t)
    }
}

/// Whether `r` matches the whole probe string.
fn accepts(r: &Regex, p: &Probe, work: &mut u64) -> bool {
    ends(r, p, 1, work) >> p.len & 1 == 1
}

/// The positions reachable by matching `r` from any position in `from`.
fn ends(r: &Regex, p: &Probe, from: u64, work: &mut u64) -> u64 {
    *work += 1;
    match r {
        Regex::Epsilon => from,
        Regex::Sym(c) => {
            let m = p.masks.iter().find(|(d, _)| d == c).map_or(0, |(_, m)| *m);
            (from & m) << 1
        }
        Regex::Concat(xs) => xs
            .iter()
            .fold(from, |s, x| if s == 0 { 0 } else { ends(x, p, s, work) }),
        Regex::Alt(xs) => xs.iter().fold(0, |s, x| s | ends(x, p, from, work)),
        Regex::Star(x) => closure(x, p, from, work),
        Regex::Plus(x) => {
            let s = ends(x, p, from, work);
            closure(x, p, s, work)
        }
        Regex::Opt(x) => from | ends(x, p, from, work),
        Regex::Repeat(x, n, m) => {
            let mut s = from;
            for _ in 0..*n {
                if s == 0 {
                    return 0;
                }
                s = ends(x, p, s, work);
            }
            match m {
                None => closure(x, p, s, work),
                Some(m) => {
                    let mut acc = s;
                    for _ in *n..*m {
                        let t = ends(x, p, s, work);
                        if t == s || t == 0 {
                            acc |= t;
                            break;
                        }
                        s = t;
                        acc |= s;
                    }
                    acc
                }
            }
        }
    }
}

/// The positions reachable from `from` by matching `x` any number of times.
fn closure(x: &Regex, p: &Probe, from: u64, work: &mut u64) -> u64 {
    let mut s = from;
    loop {
        let t = s | ends(x, p, s, work);
        if t == s {
            return s;
        }
        s = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Expr, SyntaxKind, parse};
    use crate::verify::automata::Dfa;

    fn probe(w: &str) -> Probe {
        Probe::new(&w.chars().collect::<Vec<_>>(), &['0', '1'])
    }

    /// The probe matcher (nested stars included) accepts exactly the
    /// strings the verifier's automaton does.
    #[test]
    fn nested_repetition_matches_as_the_automaton_does() {
        let regexes = [
            "((0*1)*0)*",
            "(1*0*00)*0",
            "((10*)*1(01)*)*0",
            "(((0*1)*0)*1)*",
            "(0**00*)*",
            "((0|1)*1){2,}0*",
            "(0(1(0*)*)*)*1+",
            "((01)*|(10)*)*1?",
        ];
        let mut rng = crate::analysis::proof::screen::Rand::new(7);
        let mut accepted = 0;
        for t in regexes {
            let Ok(Expr::Regex(r)) = parse(t, SyntaxKind::Regex) else {
                panic!("{t}");
            };
            let dfa = Dfa::build(&r, &['0', '1']).unwrap();
            for n in 0..400 {
                let len = n % 25;
                let w: String = (0..len)
                    .map(|_| {
                        if rng.next().is_multiple_of(3) {
                            '0'
                        } else {
                            '1'
                        }
                    })
                    .collect();
                let want = dfa.accepts(&w);
                assert_eq!(accepts(&r, &probe(&w), &mut 0), want, "{t} on {w:?}");
                accepted += usize::from(want);
            }
        }
        assert!(accepted > 100, "{accepted}");
    }
}
