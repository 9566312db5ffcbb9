//! Regex → DFA via the Glushkov (position) automaton and subset construction,
//! Moore minimisation, minimal-DFA metrics, and shortest distinguishing strings.
//!
//! We build our own automata instead of using `regex-automata`: we need complete
//! DFAs over an explicit alphabet (the union of both regexes' symbols), access to
//! states for minimisation and metrics, and a product walk for the shortest
//! witness — all of which that crate keeps internal. Dataset regexes are small,
//! so a direct construction is both simpler and fast.

use crate::syntax::Regex;
use std::collections::{HashMap, VecDeque};

/// Most DFA states we build before refusing the input.
pub(crate) const MAX_STATES: usize = 20_000;
/// Most symbol positions (occurrences) in one regex.
pub(crate) const MAX_POSITIONS: usize = 2_000;

/// Errors from automaton construction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AutomataError {
    /// The regex has more symbol occurrences than we accept.
    #[error("regex too large: {0} symbol occurrences (limit {MAX_POSITIONS})")]
    TooManyPositions(usize),
    /// Bounded repetitions expand past the position limit.
    #[error(
        "regex too large: its bounded repetitions ({{n}}, {{n,}}, {{n,m}}) expand to {0} symbol occurrences (limit {MAX_POSITIONS})"
    )]
    TooLargeExpanded(u64),
    /// Subset construction blew past the state limit.
    #[error("regex too large: its DFA exceeds {MAX_STATES} states")]
    TooManyStates,
}

/// A complete DFA over `alphabet`; state 0 is the start.
#[derive(Clone, Debug)]
pub struct Dfa {
    /// Sorted alphabet.
    pub alphabet: Vec<char>,
    /// `trans[s * alphabet.len() + a]` is the successor of `s` on symbol `a`.
    pub trans: Vec<u32>,
    /// Accepting states.
    pub accept: Vec<bool>,
}

type Bits = Vec<u64>;

fn bits_new(n: usize) -> Bits {
    vec![0; n.div_ceil(64).max(1)]
}
fn bits_set(b: &mut Bits, i: usize) {
    b[i / 64] |= 1 << (i % 64);
}
fn bits_has(b: &Bits, i: usize) -> bool {
    b[i / 64] >> (i % 64) & 1 == 1
}
fn bits_or(a: &mut Bits, b: &Bits) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= *y;
    }
}
fn bits_iter(b: &Bits) -> impl Iterator<Item = usize> + '_ {
    b.iter().enumerate().flat_map(|(w, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            if word == 0 {
                return None;
            }
            let t = word.trailing_zeros() as usize;
            word &= word - 1;
            Some(w * 64 + t)
        })
    })
}

struct Glushkov {
    syms: Vec<char>, // index = position - 1
    follow: Vec<Bits>,
    width: usize,
}

struct Info {
    nullable: bool,
    first: Bits,
    last: Bits,
}

impl Glushkov {
    fn visit(&mut self, r: &Regex, next_pos: &mut usize) -> Info {
        let empty = || bits_new(self.width);
        match r {
            Regex::Epsilon => Info {
                nullable: true,
                first: empty(),
                last: empty(),
            },
            Regex::Sym(c) => {
                *next_pos += 1;
                let p = *next_pos;
                self.syms.push(*c);
                let mut s = empty();
                bits_set(&mut s, p);
                Info {
                    nullable: false,
                    first: s.clone(),
                    last: s,
                }
            }
            Regex::Alt(xs) => {
                let mut out = Info {
                    nullable: false,
                    first: empty(),
                    last: empty(),
                };
                for x in xs {
                    let i = self.visit(x, next_pos);
                    out.nullable |= i.nullable;
                    bits_or(&mut out.first, &i.first);
                    bits_or(&mut out.last, &i.last);
                }
                out
            }
            Regex::Concat(xs) => {
                let mut out = Info {
                    nullable: true,
                    first: empty(),
                    last: empty(),
                };
                for x in xs {
                    let i = self.visit(x, next_pos);
                    for p in bits_iter(&out.last).collect::<Vec<_>>() {
                        bits_or(&mut self.follow[p], &i.first);
                    }
                    if out.nullable {
                        bits_or(&mut out.first, &i.first);
                    }
                    if i.nullable {
                        bits_or(&mut out.last, &i.last);
                    } else {
                        out.last = i.last;
                    }
                    out.nullable &= i.nullable;
                }
                out
            }
            // Expanded away by `expand_repeats` before the construction.
            Regex::Repeat(x, ..) => self.visit(x, next_pos),
            Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) => {
                let i = self.visit(x, next_pos);
                if !matches!(r, Regex::Opt(_)) {
                    for p in bits_iter(&i.last).collect::<Vec<_>>() {
                        bits_or(&mut self.follow[p], &i.first);
                    }
                }
                Info {
                    nullable: i.nullable || !matches!(r, Regex::Plus(_)),
                    first: i.first,
                    last: i.last,
                }
            }
        }
    }
}

fn has_repeat(r: &Regex) -> bool {
    let mut found = false;
    r.walk(&mut |x| found |= matches!(x, Regex::Repeat(..)));
    found
}

/// Copies of the body a bounded repetition expands to: `{n}` n, `{n,}` n + 1 (the
/// last starred), `{n,m}` m.
fn copies(min: u32, max: Option<u32>) -> u64 {
    u64::from(max.unwrap_or(min.saturating_add(1)))
}

/// Symbol occurrences after expanding every bounded repetition (saturating).
fn expanded_positions(r: &Regex) -> u64 {
    match r {
        Regex::Epsilon => 0,
        Regex::Sym(_) => 1,
        Regex::Concat(xs) | Regex::Alt(xs) => xs
            .iter()
            .fold(0u64, |n, x| n.saturating_add(expanded_positions(x))),
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) => expanded_positions(x),
        Regex::Repeat(x, min, max) => expanded_positions(x).saturating_mul(copies(*min, *max)),
    }
}

/// `r` with each bounded repetition written out: `x{n}` as n copies, `x{n,}` as n
/// copies and `x*`, `x{n,m}` as n copies and m − n optional ones. Callers bound the
/// size with [`expanded_positions`] first.
fn expand_repeats(r: &Regex) -> Regex {
    match r {
        Regex::Epsilon | Regex::Sym(_) => r.clone(),
        Regex::Concat(xs) => Regex::concat(xs.iter().map(expand_repeats).collect()),
        Regex::Alt(xs) => Regex::Alt(xs.iter().map(expand_repeats).collect()),
        Regex::Star(x) => Regex::Star(Box::new(expand_repeats(x))),
        Regex::Plus(x) => Regex::Plus(Box::new(expand_repeats(x))),
        Regex::Opt(x) => Regex::Opt(Box::new(expand_repeats(x))),
        Regex::Repeat(x, min, max) => {
            let body = expand_repeats(x);
            let mut items: Vec<Regex> = (0..*min).map(|_| body.clone()).collect();
            match max {
                None => items.push(Regex::Star(Box::new(body))),
                Some(m) => {
                    items.extend((*min..*m).map(|_| Regex::Opt(Box::new(body.clone()))));
                }
            }
            Regex::concat(items)
        }
    }
}

impl Dfa {
    /// Builds a complete DFA for `r` over `alphabet` (which must contain `r`'s symbols).
    pub fn build(r: &Regex, alphabet: &[char]) -> Result<Dfa, AutomataError> {
        let expanded;
        let r = if has_repeat(r) {
            let n = expanded_positions(r);
            if n > MAX_POSITIONS as u64 {
                return Err(AutomataError::TooLargeExpanded(n));
            }
            expanded = expand_repeats(r);
            &expanded
        } else {
            r
        };
        let mut n_pos = 0;
        r.walk(&mut |x| {
            if matches!(x, Regex::Sym(_)) {
                n_pos += 1;
            }
        });
        if n_pos > MAX_POSITIONS {
            return Err(AutomataError::TooManyPositions(n_pos));
        }
        let width = n_pos + 1;
        let mut g = Glushkov {
            syms: Vec::with_capacity(n_pos),
            follow: vec![bits_new(width); width],
            width,
        };
        let mut next = 0;
        let info = g.visit(r, &mut next);
        g.follow[0] = info.first.clone();
        let mut alphabet: Vec<char> = alphabet.to_vec();
        alphabet.sort_unstable();
        alphabet.dedup();
        let k = alphabet.len();
        let sym_index: HashMap<char, usize> =
            alphabet.iter().enumerate().map(|(i, c)| (*c, i)).collect();

        let mut start = bits_new(width);
        bits_set(&mut start, 0);
        let mut ids: HashMap<Bits, u32> = HashMap::new();
        let mut sets: Vec<Bits> = vec![start.clone()];
        ids.insert(start, 0);
        let mut trans: Vec<u32> = Vec::new();
        let mut accept = Vec::new();
        let mut i = 0;
        while i < sets.len() {
            let set = sets[i].clone();
            accept.push(bits_iter(&set).any(|p| {
                if p == 0 {
                    info.nullable
                } else {
                    bits_has(&info.last, p)
                }
            }));
            let mut succ: Vec<Bits> = vec![bits_new(width); k];
            for p in bits_iter(&set) {
                for q in bits_iter(&g.follow[p]) {
                    if let Some(&a) = sym_index.get(&g.syms[q - 1]) {
                        bits_set(&mut succ[a], q);
                    }
                }
            }
            for s in succ {
                let id = if let Some(id) = ids.get(&s) {
                    *id
                } else {
                    if sets.len() >= MAX_STATES {
                        return Err(AutomataError::TooManyStates);
                    }
                    let id = sets.len() as u32;
                    ids.insert(s.clone(), id);
                    sets.push(s);
                    id
                };
                trans.push(id);
            }
            i += 1;
        }
        Ok(Dfa {
            alphabet,
            trans,
            accept,
        })
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.accept.len()
    }

    /// Whether the DFA has no states (never true for built DFAs).
    pub fn is_empty(&self) -> bool {
        self.accept.is_empty()
    }

    fn next(&self, s: usize, a: usize) -> usize {
        self.trans[s * self.alphabet.len() + a] as usize
    }

    /// Whether the DFA accepts `word`; symbols outside the alphabet reject.
    pub fn accepts(&self, word: &str) -> bool {
        let mut s = 0;
        for c in word.chars() {
            match self.alphabet.binary_search(&c) {
                Ok(a) => s = self.next(s, a),
                Err(_) => return false,
            }
        }
        self.accept[s]
    }

    /// The minimal equivalent DFA (Moore partition refinement; reachable states only).
    pub(crate) fn minimize(&self) -> Dfa {
        let k = self.alphabet.len();
        let n = self.len();
        let mut class: Vec<u32> = self.accept.iter().map(|a| *a as u32).collect();
        let mut n_classes = 0;
        loop {
            let mut sig_ids: HashMap<Vec<u32>, u32> = HashMap::new();
            let mut next_class = vec![0u32; n];
            for s in 0..n {
                let mut sig = Vec::with_capacity(k + 1);
                sig.push(class[s]);
                for a in 0..k {
                    sig.push(class[self.next(s, a)]);
                }
                let len = sig_ids.len() as u32;
                next_class[s] = *sig_ids.entry(sig).or_insert(len);
            }
            let count = sig_ids.len();
            class = next_class;
            if count == n_classes {
                break;
            }
            n_classes = count;
        }
        // Renumber so the start state's class is 0, in BFS order for stable output.
        let mut order: Vec<Option<u32>> = vec![None; n_classes];
        let mut reps = Vec::new();
        let mut queue = VecDeque::from([0usize]);
        order[class[0] as usize] = Some(0);
        reps.push(0);
        while let Some(s) = queue.pop_front() {
            for a in 0..k {
                let t = self.next(s, a);
                let c = class[t] as usize;
                if order[c].is_none() {
                    order[c] = Some(reps.len() as u32);
                    reps.push(t);
                    queue.push_back(t);
                }
            }
        }
        let mut trans = Vec::with_capacity(reps.len() * k);
        let mut accept = Vec::with_capacity(reps.len());
        for &s in &reps {
            accept.push(self.accept[s]);
            for a in 0..k {
                trans.push(order[class[self.next(s, a)] as usize].unwrap_or(0));
            }
        }
        Dfa {
            alphabet: self.alphabet.clone(),
            trans,
            accept,
        }
    }

    /// States from which no accepting state is reachable.
    pub(crate) fn dead_states(&self) -> Vec<bool> {
        let k = self.alphabet.len();
        let n = self.len();
        let mut live = self.accept.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for s in 0..n {
                if !live[s] && (0..k).any(|a| live[self.next(s, a)]) {
                    live[s] = true;
                    changed = true;
                }
            }
        }
        live.into_iter().map(|l| !l).collect()
    }

    /// Minimal-DFA metrics as the datasets record them (dead state excluded).
    pub fn metrics(&self) -> DfaMetrics {
        let m = self.minimize();
        let dead = m.dead_states();
        let k = m.alphabet.len();
        let nodes = dead.iter().filter(|d| !**d).count();
        let mut edges = 0;
        for s in 0..m.len() {
            if dead[s] {
                continue;
            }
            edges += (0..k).filter(|a| !dead[m.next(s, *a)]).count();
        }
        // The original reports density only above two states, rounded to 0.1.
        let density = if nodes > 2 {
            let d = edges as f64 / (nodes * (nodes - 1)) as f64;
            (d * 10.0).round() / 10.0
        } else {
            0.0
        };
        DfaMetrics {
            nodes,
            edges,
            density,
        }
    }
}

/// Size of a minimal DFA: states and transitions, not counting the dead state.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DfaMetrics {
    /// Live states.
    pub nodes: usize,
    /// Transitions between live states (one per symbol).
    pub edges: usize,
    /// |E| / (|V|(|V|−1)) rounded to 0.1; 0 for two states or fewer.
    pub density: f64,
}

/// Shortest (then alphabetically first) string accepted by exactly one DFA, and
/// whether the first DFA is the one that accepts it. Both must share an alphabet.
pub(crate) fn distinguishing_string(a: &Dfa, b: &Dfa) -> Option<(String, bool)> {
    debug_assert_eq!(a.alphabet, b.alphabet);
    let k = a.alphabet.len();
    let nb = b.len();
    let mut prev: HashMap<usize, (usize, usize)> = HashMap::new();
    let start = 0usize;
    prev.insert(start, (usize::MAX, 0));
    let mut queue = VecDeque::from([start]);
    while let Some(pair) = queue.pop_front() {
        let (sa, sb) = (pair / nb, pair % nb);
        if a.accept[sa] != b.accept[sb] {
            let mut word = Vec::new();
            let mut cur = pair;
            while let Some(&(p, sym)) = prev.get(&cur) {
                if p == usize::MAX {
                    break;
                }
                word.push(a.alphabet[sym]);
                cur = p;
            }
            word.reverse();
            return Some((word.into_iter().collect(), a.accept[sa]));
        }
        for s in 0..k {
            let next = a.next(sa, s) * nb + b.next(sb, s);
            if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(next) {
                e.insert((pair, s));
                queue.push_back(next);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_regex;

    fn dfa(s: &str, alpha: &[char]) -> Dfa {
        Dfa::build(&parse_regex(s).expect("regex"), alpha).expect("dfa")
    }

    #[test]
    fn accepts_what_it_should() {
        let d = dfa("(01)*0", &['0', '1']);
        assert!(d.accepts("0"));
        assert!(d.accepts("010"));
        assert!(!d.accepts("01"));
        assert!(!d.accepts(""));
        let e = dfa("a+b?", &['a', 'b']);
        assert!(e.accepts("aab") && e.accepts("a") && !e.accepts("b") && !e.accepts("abb"));
    }

    #[test]
    fn witness_is_shortest() {
        let al = ['a', 'b'];
        let (w, first) =
            distinguishing_string(&dfa("a*b*", &al), &dfa("(a|b)*", &al)).expect("differ");
        assert_eq!(w, "ba");
        assert!(!first);
        assert!(distinguishing_string(&dfa("(a*)*", &al), &dfa("a*", &al)).is_none());
    }

    #[test]
    fn minimal_metrics() {
        // 0*1 minimal DFA: start (loop on 0) → accept; dead state excluded.
        let m = dfa("0*1", &['0', '1']).metrics();
        assert_eq!((m.nodes, m.edges, m.density), (2, 2, 0.0));
        let m = dfa("(01)*0", &['0', '1']).metrics();
        assert_eq!((m.nodes, m.edges), (2, 2));
        // 0*10*1: three live states, edges A→A, A→B, B→B, B→C: 4/(3·2) ≈ 0.7.
        let m = dfa("0*10*1", &['0', '1']).metrics();
        assert_eq!((m.nodes, m.edges, m.density), (3, 4, 0.7));
    }
}
