//! Closeness of φ₁ to φ₀ beside logical equivalence (metrics paper, seed 004):
//! token BLEU, ROUGE-L, and a tree-overlap score.
//!
//! Tokens are interned as small integers and subtrees keyed by a structural hash, so
//! the scores cost no string hashing: they run on every sample of a run and of every
//! rescore.

use super::bleu_fol::bleu_rouge_fol;
use super::le::le_parsed;
use super::paper_notation::paper_notation;
use super::paper_parse::parse_paper;
use super::smatch_paper::smatch_paper_parsed;
use crate::record::Closeness;
use crate::syntax::lexer::lex;
use crate::syntax::{Expr, Formula, Regex, Term};

/// The token texts of an expression's canonical printing.
fn token_texts(e: &Expr) -> Vec<String> {
    let text = e.to_unicode();
    match e {
        Expr::Logic(_) => lex(&text)
            .map(|ts| {
                ts.iter()
                    .map(|t| text[t.start..t.end].to_string())
                    .collect()
            })
            .unwrap_or_default(),
        Expr::Regex(_) => text.chars().map(|c| c.to_string()).collect(),
    }
}

/// Both token sequences with equal tokens mapped to equal small integers.
fn interned<'a>(a: &'a [String], b: &'a [String]) -> (Vec<u32>, Vec<u32>) {
    let mut seen: Vec<&'a str> = Vec::new();
    let mut id = |t: &'a str| -> u32 {
        if let Some(i) = seen.iter().position(|s| *s == t) {
            i as u32
        } else {
            seen.push(t);
            (seen.len() - 1) as u32
        }
    };
    let x = a.iter().map(|t| id(t)).collect();
    let y = b.iter().map(|t| id(t)).collect();
    (x, y)
}

/// The n-grams of `xs` as sorted keys (n ≤ 4 ids of 32 bits each).
fn ngrams(xs: &[u32], n: usize) -> Vec<u128> {
    let mut v: Vec<u128> = xs
        .windows(n)
        .map(|w| w.iter().fold(0u128, |k, &t| (k << 32) | u128::from(t)))
        .collect();
    v.sort_unstable();
    v
}

/// Size of the multiset intersection of two sorted lists.
fn common_sorted<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Sentence BLEU with up to 4-grams, add-one smoothing for n > 1, and brevity penalty.
pub fn bleu(candidate: &[u32], reference: &[u32]) -> f64 {
    if candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let max_n = 4.min(candidate.len()).min(reference.len()).max(1);
    let mut log_sum = 0.0;
    for n in 1..=max_n {
        let (c, r) = (ngrams(candidate, n), ngrams(reference, n));
        let overlap = common_sorted(&c, &r);
        let (num, den) = if n == 1 {
            (overlap as f64, c.len() as f64)
        } else {
            (overlap as f64 + 1.0, c.len() as f64 + 1.0)
        };
        if num == 0.0 {
            return 0.0;
        }
        log_sum += (num / den).ln();
    }
    let bp = if candidate.len() >= reference.len() {
        1.0
    } else {
        (1.0 - reference.len() as f64 / candidate.len() as f64).exp()
    };
    bp * (log_sum / max_n as f64).exp()
}

/// ROUGE-L F1: longest common subsequence over tokens.
pub fn rouge_l(candidate: &[u32], reference: &[u32]) -> f64 {
    if candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let lcs = super::bleu_fol::lcs_ids(candidate, reference) as f64;
    if lcs == 0.0 {
        return 0.0;
    }
    let (p, r) = (lcs / candidate.len() as f64, lcs / reference.len() as f64);
    2.0 * p * r / (p + r)
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(23)
}

fn text_hash(s: &str) -> u64 {
    s.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| mix(h, u64::from(b)))
}

/// Structural hashes of every subtree, pushed in post-order; returns the root's.
fn formula_hashes(f: &Formula, out: &mut Vec<u64>) -> u64 {
    let h = match f {
        Formula::Bool(b) => mix(9, u64::from(*b)),
        Formula::Prop(p) => mix(1, text_hash(p)),
        Formula::Pred(p, args) => args.iter().fold(mix(2, text_hash(p)), |h, t| {
            let tag = if matches!(t, Term::Var(_)) { 3 } else { 4 };
            mix(mix(h, tag), text_hash(t.name()))
        }),
        Formula::Not(a) => mix(5, formula_hashes(a, out)),
        Formula::Bin(op, a, b) => {
            let (x, y) = (formula_hashes(a, out), formula_hashes(b, out));
            mix(mix(mix(6, *op as u64), x), y)
        }
        Formula::Quant(q, v, a) => {
            let x = formula_hashes(a, out);
            mix(mix(mix(7, *q as u64), text_hash(v)), x)
        }
    };
    out.push(h);
    h
}

fn regex_hashes(r: &Regex, out: &mut Vec<u64>) -> u64 {
    let h = match r {
        Regex::Epsilon => 11,
        Regex::Sym(c) => mix(12, u64::from(*c)),
        Regex::Concat(xs) => xs.iter().fold(13, |h, x| mix(h, regex_hashes(x, out))),
        Regex::Alt(xs) => xs.iter().fold(14, |h, x| mix(h, regex_hashes(x, out))),
        Regex::Star(x) => mix(15, regex_hashes(x, out)),
        Regex::Plus(x) => mix(16, regex_hashes(x, out)),
        Regex::Opt(x) => mix(17, regex_hashes(x, out)),
        Regex::Repeat(x, min, max) => mix(
            mix(mix(18, u64::from(*min)), max.map_or(u64::MAX, u64::from)),
            regex_hashes(x, out),
        ),
    };
    out.push(h);
    h
}

fn subtrees(e: &Expr) -> Vec<u64> {
    let mut v = Vec::new();
    match e {
        Expr::Logic(f) => {
            formula_hashes(f, &mut v);
        }
        Expr::Regex(r) => {
            regex_hashes(r, &mut v);
        }
    }
    v.sort_unstable();
    v
}

/// Dice coefficient of the two multisets of subtrees (1 for identical trees).
pub(crate) fn tree_overlap(a: &Expr, b: &Expr) -> f64 {
    let (x, y) = (subtrees(a), subtrees(b));
    let total = x.len() + y.len();
    if total == 0 {
        0.0
    } else {
        2.0 * common_sorted(&x, &y) as f64 / total as f64
    }
}

/// Longest printing (in characters) whose closeness is scored: ROUGE-L is quadratic in
/// the tokens, and a formula this long is past the verifier's size limit anyway.
pub(crate) const MAX_SCORED_CHARS: usize = 20_000;

/// Every stored metric ([`closeness_paper`]), or None when either side prints longer
/// than [`MAX_SCORED_CHARS`] (a 100,000-alternative regex took minutes and held up a
/// stop). What runs, `rescore` and `import` store in each sample's `closeness` record.
pub(crate) fn closeness_within(reference: &Expr, candidate: &Expr) -> Option<Closeness> {
    let long = |e: &Expr| e.to_unicode().chars().nth(MAX_SCORED_CHARS).is_some();
    (!long(reference) && !long(candidate)).then(|| closeness_paper(reference, candidate))
}

/// autoeval's three scores of `candidate` against `reference` (smoothed BLEU, ROUGE-L,
/// tree overlap): cheap enough for every sample of a run, rescore and import.
pub fn closeness(reference: &Expr, candidate: &Expr) -> Closeness {
    let (r, c) = interned(&token_texts(reference), &token_texts(candidate));
    Closeness {
        bleu: bleu(&c, &r),
        rouge_l: rouge_l(&c, &r),
        tree: tree_overlap(reference, candidate),
        bleu_fol: None,
        rouge_l_fol: None,
        le: None,
        smatch: None,
        smatch_paper: None,
        meteor: None,
        bertscore_minilm: None,
    }
}

/// [`closeness`] plus, for logic, the paper-compatible scores (on the FOLIO printing)
/// and `smatch`. A field is `None` when its metric refuses: `bleu_fol`/`rouge_l_fol`
/// (and with them `le`, `smatch_paper`) when the formula has no FOLIO printing; `le`
/// above `super::le::MAX_ATOMS` atoms or where the paper's code raises; `smatch`
/// above `super::smatch::MAX_NODES` nodes; `smatch_paper` when smatchpp's reader would
/// fail on the paper's graph string, and both when the paper's grammar cannot read the
/// reference (every propositional formula). A candidate the paper's grammar cannot read
/// scores `le` and `smatch_paper` 0, as the paper's code does. Regexes get none of them.
pub fn closeness_paper(reference: &Expr, candidate: &Expr) -> Closeness {
    let mut out = closeness(reference, candidate);
    if let (Expr::Logic(fr), Expr::Logic(fc)) = (reference, candidate) {
        out.smatch = super::smatch::smatch(fc, fr).ok().map(|s| s.0);
        if let (Ok(tr), Ok(tc)) = (paper_notation(fr), paper_notation(fc)) {
            let (b, r) = bleu_rouge_fol(&tc, &tr);
            out.bleu_fol = Some(b);
            out.rouge_l_fol = Some(r);
            out.meteor = super::meteor::meteor(&tr, &tc).ok();
            let pr = parse_paper(&tr);
            // The paper's grammar reads only predicates with arguments: when it cannot
            // read φ₀ (every propositional formula) its LE and graph are undefined, and
            // a stored 0 would read as a score. A candidate it cannot read still scores
            // 0, as the paper's code scores it.
            if pr.is_err() {
                return out;
            }
            // A φ₁ printed the same as φ₀ parses the same: parse it once.
            let parsed_c;
            let pc = if tc == tr {
                &pr
            } else {
                parsed_c = parse_paper(&tc);
                &parsed_c
            };
            out.le = le_parsed(pc.as_ref(), pr.as_ref()).ok();
            out.smatch_paper = smatch_paper_parsed(pc.as_ref(), pr.as_ref())
                .ok()
                .map(|s| s.0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{SyntaxKind, parse};

    fn e(s: &str) -> Expr {
        parse(s, SyntaxKind::Fol).expect("parses")
    }

    #[test]
    fn propositional_formulas_have_no_paper_le_or_graph() {
        let c = closeness_paper(&e("p1 ∧ ¬p2"), &e("p1 ∨ ¬p2"));
        assert_eq!((c.le, c.smatch_paper), (None, None), "{c:?}");
        assert!(c.bleu_fol.is_some() && c.smatch.is_some(), "{c:?}");
    }

    #[test]
    fn identical_is_one_and_changes_lower_it() {
        let a = e("(p1 ∧ p2) ∨ ¬p3");
        let c = closeness(&a, &a);
        assert!(
            (c.bleu - 1.0).abs() < 1e-9
                && (c.rouge_l - 1.0).abs() < 1e-9
                && (c.tree - 1.0).abs() < 1e-9
        );
        let b = closeness(&a, &e("(p1 ∧ p4) ∨ ¬p3"));
        assert!(b.bleu < 1.0 && b.rouge_l < 1.0 && b.tree < 1.0);
        assert!(b.rouge_l > 0.8, "one token differs: {b:?}");
        // Hand-worked ROUGE-L: LCS of [a b c d] and [a c d e] is 3 → P = R = 0.75.
        let t = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        let (x, y) = interned(&t("a b c d"), &t("a c d e"));
        assert!((rouge_l(&x, &y) - 0.75).abs() < 1e-9);
        // Hand-worked BLEU of identical 4-token sequences is 1; of disjoint ones 0.
        assert!((bleu(&x, &x) - 1.0).abs() < 1e-9);
        let (p, q) = interned(&t("a b"), &t("c d"));
        assert_eq!(bleu(&p, &q), 0.0);
        // Commuting operands keeps the tree score high but lowers BLEU.
        let comm = closeness(&a, &e("¬p3 ∨ (p1 ∧ p2)"));
        assert!(comm.tree > comm.bleu, "{comm:?}");
        // Paper-compatible fields on FOL: the FOLIO printing parses, so LE is defined.
        let f = e("∀x1.(pred1(x1) → pred2(x1))");
        let g = closeness_paper(&f, &e("∀x1.(pred2(x1) → pred1(x1))"));
        assert_eq!(g.le, Some(1.0), "LE binds atoms freely: {g:?}");
        assert!(g.bleu_fol.is_some_and(|b| b < 1.0) && g.smatch.is_some_and(|s| s < 1.0));
        assert_eq!(closeness_paper(&f, &f).smatch_paper, Some(1.0));
        // `closeness` is the cheap three; runs store them all.
        assert_eq!(closeness(&f, &f).le, None);
        let stored = closeness_within(&f, &f).expect("short");
        assert_eq!((stored.le, stored.smatch), (Some(1.0), Some(1.0)));
    }
}
