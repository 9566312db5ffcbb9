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

/// Per order 1..=`max_order`, the clipped n-gram matches of `candidate` in `reference`
/// (nmt's `overlap`): n-grams of token ids below 2^15 packed into one `u64` each (the
/// order in the top bits), sorted and merged, instead of hashed slices.
fn packed_matches(candidate: &[u32], reference: &[u32], max_order: usize) -> Option<Vec<usize>> {
    if max_order > 4 || candidate.iter().chain(reference).any(|&t| t >= 1 << 15) {
        return None;
    }
    let grams = |t: &[u32]| -> Vec<u64> {
        let mut v = Vec::with_capacity(t.len() * max_order);
        for n in 1..=max_order {
            for w in t.windows(n) {
                let packed = w.iter().fold(0u64, |k, &x| (k << 15) | u64::from(x));
                v.push(((n as u64) << 60) | packed);
            }
        }
        v.sort_unstable();
        v
    };
    let (c, r) = (grams(candidate), grams(reference));
    let mut matches = vec![0usize; max_order];
    let (mut i, mut j) = (0, 0);
    while i < c.len() && j < r.len() {
        match c[i].cmp(&r[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let key = c[i];
                let (i0, j0) = (i, j);
                while i < c.len() && c[i] == key {
                    i += 1;
                }
                while j < r.len() && r[j] == key {
                    j += 1;
                }
                matches[(key >> 60) as usize - 1] += (i - i0).min(j - j0);
            }
        }
    }
    Some(matches)
}

/// nmt `compute_bleu` on token ids (the packed n-gram path when ids are small).
fn nmt_bleu_ids(candidate: &[u32], reference: &[u32], max_order: usize) -> f64 {
    if max_order == 0 || candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    match packed_matches(candidate, reference, max_order) {
        Some(m) => bleu_from(&m, candidate.len(), reference.len(), max_order),
        None => nmt_bleu(candidate, reference, max_order),
    }
}

/// BLEU from the clipped matches per order and the two lengths (nmt, unsmoothed).
fn bleu_from(matches: &[usize], cand_len: usize, ref_len: usize, max_order: usize) -> f64 {
    let mut log_sum = 0.0;
    for (i, &m) in matches.iter().enumerate() {
        let possible = cand_len.saturating_sub(i);
        if possible == 0 || m == 0 {
            return 0.0;
        }
        log_sum += (1.0 / max_order as f64) * (m as f64 / possible as f64).ln();
    }
    let geo = log_sum.exp();
    let ratio = cand_len as f64 / ref_len as f64;
    let bp = if ratio > 1.0 {
        1.0
    } else {
        (1.0 - 1.0 / ratio).exp()
    };
    geo * bp
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
    bleu_from(&matches, candidate.len(), reference.len(), max_order)
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
    let rouge = if c.is_empty() || r.is_empty() {
        0.0
    } else {
        rouge_f(lcs_ids(&r, &c), c.len(), r.len())
    };
    (nmt_bleu_ids(&c, &r, 4.min(c.len()).min(r.len())), rouge)
}

/// Longest common subsequence length of two id lists, 64 positions of `b` per word
/// (Hyyrö's bit-vector recurrence `V ← (V + (V & M)) | (V & !M)`; zeros count matches).
pub(crate) fn lcs_ids(a: &[u32], b: &[u32]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let words = b.len().div_ceil(64);
    let mut masks: HashMap<u32, Vec<u64>> = HashMap::default();
    for (j, &t) in b.iter().enumerate() {
        masks.entry(t).or_insert_with(|| vec![0; words])[j / 64] |= 1 << (j % 64);
    }
    let mut v = vec![u64::MAX; words];
    for x in a {
        let Some(m) = masks.get(x) else { continue };
        let mut carry = false;
        for (vk, &mk) in v.iter_mut().zip(m) {
            let old = *vk;
            let (s1, c1) = old.overflowing_add(old & mk);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            carry = c1 || c2;
            *vk = s2 | (old & !mk);
        }
    }
    let tail = b.len() % 64;
    v.iter()
        .enumerate()
        .map(|(k, &x)| {
            let live = if k + 1 == words && tail != 0 {
                (1u64 << tail) - 1
            } else {
                u64::MAX
            };
            (!x & live).count_ones() as usize
        })
        .sum()
}

/// ROUGE-L F-measure from the LCS length and the two lengths (both non-zero).
fn rouge_f(lcs: usize, cand_len: usize, ref_len: usize) -> f64 {
    let l = lcs as f64;
    let (p, r) = (l / cand_len as f64, l / ref_len as f64);
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
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
    rouge_f(lcs(reference, candidate), candidate.len(), reference.len())
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
        for (x, y) in [
            (a, "∀x (Eel(x) ∧ Fish(x))"),
            ("A ∧", "A ∧ B"),
            ("", "A"),
            ("A ∧ B", "A"),
        ] {
            assert_eq!(bleu_rouge_fol(x, y), (bleu_fol(x, y), rouge_l_fol(x, y)));
        }
    }

    #[test]
    fn fast_paths_equal_the_plain_definitions_on_random_token_lists() {
        let mut rng = crate::base::rng::Rng::new(77);
        for case in 0..3000 {
            let len = |rng: &mut crate::base::rng::Rng| {
                rng.range(0, if case % 10 == 0 { 200 } else { 20 })
            };
            let alphabet = 1 + rng.below(6) as u32;
            let (n, m) = (len(&mut rng), len(&mut rng));
            let a: Vec<u32> = (0..n)
                .map(|_| rng.below(alphabet as usize) as u32)
                .collect();
            let b: Vec<u32> = (0..m)
                .map(|_| rng.below(alphabet as usize) as u32)
                .collect();
            assert_eq!(lcs_ids(&a, &b), lcs(&a, &b), "case {case}: {a:?} {b:?}");
            let order = 4.min(a.len()).min(b.len());
            let (x, y) = (nmt_bleu_ids(&a, &b, order), nmt_bleu(&a, &b, order));
            assert!((x - y).abs() < 1e-12, "case {case}: {x} {y}");
        }
        // Ids too large to pack take the hashed path.
        let big = [1u32 << 20, 5, 1 << 20];
        assert_eq!(nmt_bleu_ids(&big, &big, 3), 1.0);
    }
}
