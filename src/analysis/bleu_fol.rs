//! `bleu_fol` and `rouge_l_fol`: BLEU and ROUGE-L exactly as the paper's code computes them
//! (huggingface `evaluate` `bleu` = tensorflow/nmt `compute_bleu`, and `rouge_score`'s
//! ROUGE-L F-measure), both over the paper's `msplit` tokens of the strings as given.

use super::fol_text::msplit;
use rustc_hash::FxHashMap as HashMap;
use std::hash::Hash;

/// Counts of every n-gram of order 1..=`max_order` (nmt `_get_ngrams`).
fn ngram_counts<T: Hash + Eq>(t: &[T], max_order: usize) -> HashMap<&[T], usize> {
    let mut m = HashMap::default();
    for n in 1..=max_order {
        for w in t.windows(n) {
            *m.entry(w).or_insert(0) += 1;
        }
    }
    m
}

/// nmt `compute_bleu` for one candidate and one reference, unsmoothed.
///
/// The paper's `max_order = min(4, shorter length)` makes an empty side an error in
/// Python (a `min` of nothing); here it scores 0.
pub(crate) fn nmt_bleu<T: Hash + Eq>(candidate: &[T], reference: &[T], max_order: usize) -> f64 {
    if max_order == 0 || candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let refs = ngram_counts(reference, max_order);
    let cand = ngram_counts(candidate, max_order);
    let mut matches = vec![0usize; max_order];
    for (g, &c) in &cand {
        if let Some(&r) = refs.get(g) {
            matches[g.len() - 1] += c.min(r);
        }
    }
    let mut log_sum = 0.0;
    for (i, &m) in matches.iter().enumerate() {
        let possible = candidate.len().saturating_sub(i);
        if possible == 0 || m == 0 {
            return 0.0;
        }
        log_sum += (1.0 / max_order as f64) * (m as f64 / possible as f64).ln();
    }
    let geo = log_sum.exp();
    let ratio = candidate.len() as f64 / reference.len() as f64;
    let bp = if ratio > 1.0 {
        1.0
    } else {
        (1.0 - 1.0 / ratio).exp()
    };
    geo * bp
}

/// `bleu_fol`: the paper's BLEU of `candidate` against `reference` (adaptive order
/// `min(4, shorter token count)`, no smoothing).
pub fn bleu_fol(candidate: &str, reference: &str) -> f64 {
    let (c, r) = (msplit(candidate), msplit(reference));
    nmt_bleu(&c, &r, 4.min(c.len()).min(r.len()))
}

/// Both token lists with equal tokens as equal small integers (scores unchanged, no
/// string comparisons in the n-gram counts and the LCS table).
pub(crate) fn interned_tokens<'a>(a: &'a [String], b: &'a [String]) -> (Vec<u32>, Vec<u32>) {
    let mut ids: HashMap<&'a str, u32> = HashMap::default();
    let mut id = |t: &'a str| -> u32 {
        let n = ids.len() as u32;
        *ids.entry(t).or_insert(n)
    };
    let x = a.iter().map(|t| id(t)).collect();
    let y = b.iter().map(|t| id(t)).collect();
    (x, y)
}

/// `bleu_fol` and `rouge_l_fol` together, tokenising each string once.
pub(crate) fn bleu_rouge_fol(candidate: &str, reference: &str) -> (f64, f64) {
    let (c, r) = interned_tokens(&msplit(candidate), &msplit(reference));
    (
        nmt_bleu(&c, &r, 4.min(c.len()).min(r.len())),
        rouge_l_tokens(&c, &r),
    )
}

/// Longest common subsequence length of two token lists.
pub(crate) fn lcs<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `rouge_score` ROUGE-L F-measure over two token lists (0 when either is empty).
pub(crate) fn rouge_l_tokens<T: PartialEq>(candidate: &[T], reference: &[T]) -> f64 {
    if candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let l = lcs(reference, candidate) as f64;
    let (p, r) = (l / candidate.len() as f64, l / reference.len() as f64);
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

/// `rouge_l_fol`: ROUGE-L F1 over the paper's `msplit` tokens.
pub fn rouge_l_fol(candidate: &str, reference: &str) -> f64 {
    rouge_l_tokens(&msplit(candidate), &msplit(reference))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_one_and_short_strings_use_a_lower_order() {
        let a = "∀x (Eel(x) → Fish(x))";
        assert!((bleu_fol(a, a) - 1.0).abs() < 1e-12);
        assert!((rouge_l_fol(a, a) - 1.0).abs() < 1e-12);
        // Three tokens each: order 3; no trigram shared → 0 (unsmoothed).
        assert_eq!(bleu_fol("A ∧ B", "A ∨ B"), 0.0);
        // ROUGE-L by hand: LCS(A ∧ B, A ∨ B) = 2 of 3 → F = 2/3.
        assert!((rouge_l_fol("A ∧ B", "A ∨ B") - 2.0 / 3.0).abs() < 1e-12);
        // Brevity penalty: a 2-token candidate against 3 tokens: exp(1 − 3/2).
        let got = bleu_fol("A ∧", "A ∧ B");
        assert!((got - (1.0f64 - 1.5).exp()).abs() < 1e-12, "{got}");
        assert_eq!(bleu_fol("", "A"), 0.0);
        for (x, y) in [(a, "∀x (Eel(x) ∧ Fish(x))"), ("A ∧", "A ∧ B"), ("", "A")] {
            assert_eq!(bleu_rouge_fol(x, y), (bleu_fol(x, y), rouge_l_fol(x, y)));
        }
    }
}
