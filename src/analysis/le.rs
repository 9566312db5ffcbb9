//! `le`: LogicLLaMA's logical-equivalence score (`VecRuleEvaluator.find_best_LE_score` with
//! soft binding, greedy match and `top_n = 1000`), as the paper's code calls it.
//!
//! Atoms are the literal strings of the paper's parse (`Owns(x,Caffeine)`, `x=y`, leading
//! `¬` removed); quantifiers are ignored; the truth table is the exact 2^n rows; candidate
//! atoms bind to reference atoms in ascending Levenshtein order, depth first, stopping
//! after 1,000 bindings; the score is the best share of agreeing rows, as `float32`.

use super::paper_parse::{Nt, PTree, PaperParseError, parse_paper};

/// Most distinct atoms on either side before `le` refuses: 2^14 rows × 1,000 bindings.
pub const MAX_ATOMS: usize = 14;

/// Why `le` has no value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LeError {
    /// More atoms than [`MAX_ATOMS`].
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
    let rows = 1usize << n;
    let mut v = vec![0u64; words];
    for r in 0..rows {
        if (r >> (n - 1 - k)) & 1 == 1 {
            v[r / 64] |= 1 << (r % 64);
        }
    }
    v
}

fn not(v: &Vec64) -> Vec64 {
    v.iter().map(|x| !x).collect()
}

fn zip(a: &Vec64, b: &Vec64, f: impl Fn(u64, u64) -> u64) -> Vec64 {
    a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect()
}

/// `VecRuleEvaluator.from_nltk_tree`: evaluates a parse with atom `name` bound to
/// column `index(name)`. Rows beyond 2^n in the last word are garbage and masked later.
fn eval(t: &PTree, index: &dyn Fn(&str) -> Option<usize>, cols: &[Vec64]) -> Option<Vec64> {
    let kids = t.children();
    match t.label()? {
        // `S -> Q F | ¬ S | ( S ) | F`: only the last child counts, so a leading `¬`
        // on S is dropped, as in the paper's code.
        Nt::S => eval(kids.last()?, index, cols),
        Nt::F => {
            if kids.len() == 1 && kids[0].label() == Some(Nt::L) {
                eval(&kids[0], index, cols)
            } else if kids.len() >= 2 && kids[kids.len() - 2].label() == Some(Nt::F) {
                let v = eval(&kids[kids.len() - 2], index, cols)?;
                Some(if kids[0].leaf() == Some("¬") {
                    not(&v)
                } else {
                    v
                })
            } else if kids.len() == 3 && kids[1].label() == Some(Nt::Op) {
                let p = eval(&kids[0], index, cols)?;
                let q = eval(&kids[2], index, cols)?;
                let op = kids[1].children().first()?.leaf()?;
                Some(match op {
                    "⊕" => zip(&p, &q, |a, b| a ^ b),
                    "∨" => zip(&p, &q, |a, b| a | b),
                    "∧" => zip(&p, &q, |a, b| a & b),
                    "→" => zip(&p, &q, |a, b| !a | b),
                    _ => zip(&p, &q, |a, b| (a & b) | (!a & !b)),
                })
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
            let v = cols[index(name)?].clone();
            Some(if negated { not(&v) } else { v })
        }
        _ => None,
    }
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
/// ascending distance (ties in list order), depth first; at most [`TOP_N`] bindings.
fn bindings(truth: &[String], pred: &[String]) -> Vec<Vec<usize>> {
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
            idx.sort_by_key(|&j| dist(t, &pred[j]));
            idx
        })
        .collect();
    fn go(i: usize, order: &[Vec<usize>], used: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if out.len() >= TOP_N {
            return;
        }
        if i == order.len() {
            out.push(used.clone());
            return;
        }
        for &j in &order[i] {
            if used.contains(&j) {
                continue;
            }
            used.push(j);
            go(i + 1, order, used, out);
            used.pop();
            if out.len() >= TOP_N {
                return;
            }
        }
    }
    let mut out = Vec::new();
    go(0, &order, &mut Vec::new(), &mut out);
    out
}

/// LE of two parses (reference first, as the paper's code calls it).
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
    let tpos = |s: &str| ta.iter().position(|a| a == s);
    let Some(tv) = eval(truth, &tpos, &cols) else {
        return Err(LeError::PaperRaises);
    };
    let mut best = 0.0f32;
    for b in bindings(&ta, &pa) {
        let bound: Vec<&str> = b.iter().map(|&j| pa[j].as_str()).collect();
        let ppos = |s: &str| bound.iter().position(|a| *a == s);
        let Some(pv) = eval(pred, &ppos, &cols) else {
            return Err(LeError::PaperRaises);
        };
        let mut agree = 0u64;
        for (w, (x, y)) in tv.iter().zip(&pv).enumerate() {
            let m = if w + 1 == words { mask_last } else { u64::MAX };
            agree += u64::from((!(x ^ y) & m).count_ones());
        }
        // numpy's float32 mean of booleans: exact for these power-of-two row counts.
        let score = (agree as f64 / rows as f64) as f32;
        if score > best {
            best = score;
        }
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
