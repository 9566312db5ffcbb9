//! Scores of a reference task's answers: accuracy with its Wilson interval, balanced
//! accuracy (the mean recall over the gold labels present: Multi-LogiEval's labels are
//! skewed), the confusion matrix with an `unknown` column for replies without an
//! answer (counted wrong), and accuracy per category (depth or operator count).

use crate::analysis::task_answer::{Label, LabelSet};
use std::collections::BTreeMap;

/// One scored item: its gold label, the answer read (None: unknown), its category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scored {
    /// The gold label, normalised.
    pub gold: Label,
    /// The answer read from the reply.
    pub answer: Option<Label>,
    /// Depth (Multi-LogiEval) or operator count (FOLIO), when known.
    pub category: Option<usize>,
}

/// A task's scores.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskScores {
    /// Items scored.
    pub n: usize,
    /// Right answers.
    pub correct: usize,
    /// Replies with no answer (counted wrong).
    pub unknown: usize,
    /// correct / n (0 when n is 0).
    pub accuracy: f64,
    /// Wilson 95 % interval of the accuracy.
    pub interval: (f64, f64),
    /// Mean over the gold labels present of the share answered right.
    pub balanced_accuracy: f64,
    /// Rows: gold label; columns: the set's labels then `unknown`. `(gold, answer)` → n.
    pub confusion: BTreeMap<(Label, Option<Label>), usize>,
    /// Per category: (n, correct).
    pub by_category: BTreeMap<usize, (usize, usize)>,
}

/// Scores `items` of a task answering with `set`.
pub fn score(items: &[Scored], set: LabelSet) -> TaskScores {
    let n = items.len();
    let correct = items.iter().filter(|s| s.answer == Some(s.gold)).count();
    let unknown = items.iter().filter(|s| s.answer.is_none()).count();
    let mut confusion = BTreeMap::new();
    let mut by_category: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for s in items {
        *confusion.entry((s.gold, s.answer)).or_insert(0) += 1;
        if let Some(c) = s.category {
            let e = by_category.entry(c).or_insert((0, 0));
            e.0 += 1;
            e.1 += usize::from(s.answer == Some(s.gold));
        }
    }
    let recalls: Vec<f64> = set
        .labels()
        .iter()
        .filter_map(|&g| {
            let of = items.iter().filter(|s| s.gold == g).count();
            (of > 0).then(|| {
                items
                    .iter()
                    .filter(|s| s.gold == g && s.answer == Some(g))
                    .count() as f64
                    / of as f64
            })
        })
        .collect();
    let balanced_accuracy = if recalls.is_empty() {
        0.0
    } else {
        recalls.iter().sum::<f64>() / recalls.len() as f64
    };
    TaskScores {
        n,
        correct,
        unknown,
        accuracy: if n == 0 {
            0.0
        } else {
            correct as f64 / n as f64
        },
        interval: super::intervals::wilson95(correct, n).map_or((0.0, 1.0), |[a, b]| (a, b)),
        balanced_accuracy,
        confusion,
        by_category,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(gold: Label, answer: Option<Label>, category: usize) -> Scored {
        Scored {
            gold,
            answer,
            category: Some(category),
        }
    }

    #[test]
    fn skewed_labels_accuracy_balanced_accuracy_and_unknowns() {
        use Label::{No, Yes};
        // 8 yes (all answered yes), 2 no (one answered yes, one unanswered).
        let mut items: Vec<Scored> = (0..8).map(|i| s(Yes, Some(Yes), 1 + i % 2)).collect();
        items.push(s(No, Some(Yes), 1));
        items.push(s(No, None, 2));
        let t = score(&items, LabelSet::YesNo);
        assert_eq!((t.n, t.correct, t.unknown), (10, 8, 1));
        assert!((t.accuracy - 0.8).abs() < 1e-12);
        // Recall 1.0 on yes, 0.0 on no.
        assert!((t.balanced_accuracy - 0.5).abs() < 1e-12);
        assert_eq!(t.confusion[&(No, None)], 1);
        assert_eq!(t.confusion[&(No, Some(Yes))], 1);
        assert_eq!(t.by_category[&1], (5, 4));
        // statsmodels' proportion_confint(8, 10, method="wilson").
        let (lo, hi) = t.interval;
        assert!((lo - 0.490_162_471_5).abs() < 1e-9 && (hi - 0.943_317_848_5).abs() < 1e-9);
        assert_eq!(score(&[], LabelSet::Folio).accuracy, 0.0);
    }
}
