//! Closeness of φ₁ to φ₀ beside logical equivalence (metrics paper, seed 004):
//! token BLEU, ROUGE-L, and a tree-overlap score.

use crate::run::format::Closeness;
use crate::syntax::lexer::lex;
use crate::syntax::{Expr, Formula, Regex};
use std::collections::HashMap;

fn tokens(e: &Expr) -> Vec<String> {
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

fn ngrams(xs: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut m: HashMap<&[String], usize> = HashMap::new();
    for w in xs.windows(n) {
        *m.entry(w).or_default() += 1;
    }
    m
}

/// Sentence BLEU with up to 4-grams, add-one smoothing for n > 1, and brevity penalty.
pub fn bleu(candidate: &[String], reference: &[String]) -> f64 {
    if candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let max_n = 4.min(candidate.len()).min(reference.len()).max(1);
    let mut log_sum = 0.0;
    for n in 1..=max_n {
        let (c, r) = (ngrams(candidate, n), ngrams(reference, n));
        let total: usize = c.values().sum();
        let overlap: usize = c
            .iter()
            .map(|(g, k)| (*k).min(*r.get(g).unwrap_or(&0)))
            .sum();
        let (num, den) = if n == 1 {
            (overlap as f64, total as f64)
        } else {
            (overlap as f64 + 1.0, total as f64 + 1.0)
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
pub fn rouge_l(candidate: &[String], reference: &[String]) -> f64 {
    if candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let mut prev = vec![0usize; reference.len() + 1];
    let mut cur = vec![0usize; reference.len() + 1];
    for c in candidate {
        for (j, r) in reference.iter().enumerate() {
            cur[j + 1] = if c == r {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let lcs = prev[reference.len()] as f64;
    if lcs == 0.0 {
        return 0.0;
    }
    let (p, r) = (lcs / candidate.len() as f64, lcs / reference.len() as f64);
    2.0 * p * r / (p + r)
}

fn subtrees(e: &Expr) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    match e {
        Expr::Logic(f) => f.walk(&mut |g: &Formula| {
            *m.entry(crate::syntax::print_formula(
                g,
                crate::syntax::Notation::Ascii,
            ))
            .or_default() += 1;
        }),
        Expr::Regex(r) => r.walk(&mut |g: &Regex| {
            *m.entry(crate::syntax::print_regex(g, true)).or_default() += 1;
        }),
    }
    m
}

/// Dice coefficient of the two multisets of subtrees (1 for identical trees).
pub fn tree_overlap(a: &Expr, b: &Expr) -> f64 {
    let (x, y) = (subtrees(a), subtrees(b));
    let common: usize = x
        .iter()
        .map(|(k, n)| (*n).min(*y.get(k).unwrap_or(&0)))
        .sum();
    let total: usize = x.values().sum::<usize>() + y.values().sum::<usize>();
    if total == 0 {
        0.0
    } else {
        2.0 * common as f64 / total as f64
    }
}

/// All three scores of `candidate` against `reference`.
pub fn closeness(reference: &Expr, candidate: &Expr) -> Closeness {
    let (r, c) = (tokens(reference), tokens(candidate));
    Closeness {
        bleu: bleu(&c, &r),
        rouge_l: rouge_l(&c, &r),
        tree: tree_overlap(reference, candidate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{SyntaxKind, parse};

    fn e(s: &str) -> Expr {
        parse(s, SyntaxKind::Fol).expect("parses")
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
        assert!((rouge_l(&t("a b c d"), &t("a c d e")) - 0.75).abs() < 1e-9);
        // Commuting operands keeps the tree score high but lowers BLEU.
        let comm = closeness(&a, &e("¬p3 ∨ (p1 ∧ p2)"));
        assert!(comm.tree > comm.bleu, "{comm:?}");
    }
}
