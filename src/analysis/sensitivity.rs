//! The paper's sensitivity study (its Tables 1–3, 6–11): FOLIO premises selected as the
//! paper does, each perturbed seven ways, every paper metric of perturbed against
//! original averaged over all records (unchanged records count, as in the paper).

use super::bleu_fol::{bleu_fol, rouge_l_fol};
use super::le::le_parsed;
use super::paper_parse::parse_paper;
use super::perturb_paper::{PaperPerturbation, apply};
use super::smatch_paper::smatch_paper_parsed;
use crate::syntax::Expr;
use crate::syntax::folio::{FolioNames, parse_folio};
use crate::verify::{Options, Verdict, verify};
use serde::Serialize;
use std::collections::BTreeSet;

/// The metrics of the table, in column order, with the paper's abbreviations.
pub(crate) const METRICS: [(&str, &str); NM] = [
    ("bleu_fol", "BL"),
    ("le", "LE"),
    ("rouge_l_fol", "RO"),
    ("smatch_paper", "SP"),
    ("meteor", "ME"),
    ("bertscore_minilm", "BS"),
];

/// How many metrics the table has (Table 2's six).
pub(crate) const NM: usize = 6;

/// The column of `bertscore_minilm`, filled only when a scorer is given.
pub(crate) const BS: usize = 5;

/// The FOLIO v0.0 train split shipped with autoeval (CC BY-SA 4.0, see data/folio/).
pub(crate) const FOLIO_TRAIN: &str = include_str!("../../data/folio/folio-v0.0-train.jsonl");

/// Premise sentences selected as the paper's `load_data.ipynb` does: first record per
/// story, first record per passage operator set, then at most four sentences per
/// sentence operator set. Malformed lines are reported as `(line, reason)`.
pub(crate) fn select_folio(text: &str) -> (Vec<String>, Vec<(usize, String)>) {
    let ops = |s: &str| -> BTreeSet<char> {
        s.chars().filter(|c| "∧∨¬→↔∀∃=⊕".contains(*c)).collect()
    };
    let mut errors = Vec::new();
    let mut stories = BTreeSet::new();
    let mut passage_sets = BTreeSet::new();
    let mut sentences = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                errors.push((i + 1, format!("not JSON: {e}")));
                continue;
            }
        };
        let story = v
            .get("story_id")
            .map(ToString::to_string)
            .unwrap_or_default();
        let prem: Vec<String> = match v.get("premises-FOL") {
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            Some(serde_json::Value::String(s)) => s
                .trim_matches('\n')
                .split('\n')
                .map(str::to_string)
                .collect(),
            _ => {
                errors.push((i + 1, "no `premises-FOL` list or string".into()));
                continue;
            }
        };
        if !stories.insert(story) {
            continue;
        }
        if !passage_sets.insert(ops(&prem.join("\n"))) {
            continue;
        }
        sentences.extend(prem);
    }
    let mut per_set: std::collections::HashMap<BTreeSet<char>, usize> = Default::default();
    let picked = sentences
        .into_iter()
        .filter(|s| {
            let c = per_set.entry(ops(s)).or_insert(0);
            *c += 1;
            *c <= 4
        })
        .collect();
    (picked, errors)
}

/// Scores of one perturbed record (metric order as [`METRICS`]).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RecordScores {
    /// Original premise.
    pub original: String,
    /// Perturbed text.
    pub perturbed: String,
    /// Whether the perturbation changed the string.
    pub changed: bool,
    /// bleu_fol, le, rouge_l_fol, smatch_paper, meteor, bertscore_minilm (None where no value).
    pub scores: [Option<f64>; NM],
    /// The verifier's verdict on perturbed against original: `Some(true)` equivalent,
    /// `Some(false)` not, `None` undecided (unreadable, unknown or timed out).
    pub equivalent: Option<bool>,
}

/// The verdict groups of the split table, in order.
pub(crate) const VERDICT_GROUPS: [&str; 3] = ["equivalent", "not-equivalent", "undecided"];

/// Table 2's row restricted to the records of one verdict group.
#[derive(Clone, Debug, Serialize)]
pub struct SplitRow {
    /// `equivalent`, `not-equivalent` or `undecided`.
    pub verdict: &'static str,
    /// Records in the group.
    pub n: usize,
    /// Share of the group's records the perturbation changed.
    pub changed: f64,
    /// Mean per metric over the group's records where it has a value.
    pub means: [Option<f64>; NM],
}

/// One row of Table 2 and its combination matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Perturbation name.
    pub perturbation: &'static str,
    /// Records scored.
    pub n: usize,
    /// Share of records the perturbation changed.
    pub changed: f64,
    /// Mean per metric over records where it has a value.
    pub means: [Option<f64>; NM],
    /// Mean of the per-record mean of metrics i and j (diagonal: the metric itself).
    pub combined: [[Option<f64>; NM]; NM],
    /// Records where the notebook's rule raises (left out).
    pub skipped: usize,
    /// The same row split by the verifier's verdict (`VERDICT_GROUPS` order); the
    /// groups' `n` add up to `n`.
    pub by_verdict: Vec<SplitRow>,
}

/// Scores a pair of strings with the table's metrics (bertscore_minilm is left to
/// [`table_with`]'s scorer).
pub fn score(original: &str, perturbed: &str) -> [Option<f64>; NM] {
    let (po, pp) = (parse_paper(original), parse_paper(perturbed));
    [
        Some(bleu_fol(perturbed, original)),
        le_parsed(pp.as_ref(), po.as_ref()).ok(),
        Some(rouge_l_fol(perturbed, original)),
        smatch_paper_parsed(pp.as_ref(), po.as_ref())
            .ok()
            .map(|s| s.0),
        super::meteor::meteor(original, perturbed).ok(),
        None,
    ]
}

/// A bertscore_minilm scorer: F1 of each (reference, candidate) pair, in order, or
/// its error `E` (the table passes it on).
pub type PairScorer<'a, E> = &'a dyn Fn(&[(&str, &str)]) -> Result<Vec<f64>, E>;

/// Builds every row of the table (records scored on 2+ threads), without bertscore_minilm.
pub fn table(records: &[String]) -> Vec<Row> {
    table_with::<std::convert::Infallible>(records, None).unwrap_or_default()
}

/// Builds every row of the table, with bertscore_minilm from `bert` when given.
pub fn table_with<E>(records: &[String], bert: Option<PairScorer<'_, E>>) -> Result<Vec<Row>, E> {
    PaperPerturbation::ALL
        .iter()
        .map(|&p| {
            let work = |chunk: &[String]| -> Vec<Option<RecordScores>> {
                chunk
                    .iter()
                    .map(|o| {
                        apply(p, o).ok().map(|t| RecordScores {
                            changed: t != *o,
                            scores: score(o, &t),
                            equivalent: equivalent(o, &t),
                            original: o.clone(),
                            perturbed: t,
                        })
                    })
                    .collect()
            };
            let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            let size = records.len().div_ceil(threads).max(1);
            let mut scored: Vec<Option<RecordScores>> = std::thread::scope(|s| {
                let hs: Vec<_> = records
                    .chunks(size)
                    .map(|c| s.spawn(move || work(c)))
                    .collect();
                hs.into_iter()
                    .flat_map(|h| h.join().unwrap_or_default())
                    .collect()
            });
            if let Some(f) = bert {
                let pairs: Vec<(&str, &str)> = scored
                    .iter()
                    .flatten()
                    .map(|r| (r.original.as_str(), r.perturbed.as_str()))
                    .collect();
                let f1 = f(&pairs)?;
                for (r, v) in scored.iter_mut().flatten().zip(f1) {
                    r.scores[BS] = Some(v).filter(|v| v.is_finite());
                }
            }
            Ok(row(p, &scored))
        })
        .collect()
}

/// Whether autoeval's verifier finds `perturbed` equivalent to `original` (both read
/// with the FOLIO reader, one renaming for the pair); `None` when either is unreadable
/// or the verifier gives up. An unchanged string is equivalent without a call.
pub fn equivalent(original: &str, perturbed: &str) -> Option<bool> {
    if original == perturbed {
        return Some(true);
    }
    let mut names = FolioNames::default();
    let a = parse_folio(original, &mut names).ok()?;
    let b = parse_folio(perturbed, &mut names).ok()?;
    let opts = Options {
        timeout: std::time::Duration::from_secs(2),
        ..Options::default()
    };
    match verify(&Expr::Logic(a), &Expr::Logic(b), &opts) {
        Verdict::Equivalent { .. } => Some(true),
        Verdict::NotEquivalent { .. } => Some(false),
        _ => None,
    }
}

fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

fn row(p: PaperPerturbation, scored: &[Option<RecordScores>]) -> Row {
    let ok: Vec<&RecordScores> = scored.iter().flatten().collect();
    let mut combined = [[None; NM]; NM];
    for (i, row) in combined.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = mean(
                ok.iter()
                    .filter_map(|r| Some(f64::midpoint(r.scores[i]?, r.scores[j]?))),
            );
        }
    }
    Row {
        perturbation: p.name(),
        n: ok.len(),
        changed: if ok.is_empty() {
            0.0
        } else {
            ok.iter().filter(|r| r.changed).count() as f64 / ok.len() as f64
        },
        means: std::array::from_fn(|i| mean(ok.iter().filter_map(|r| r.scores[i]))),
        combined,
        skipped: scored.len() - ok.len(),
        by_verdict: [Some(true), Some(false), None]
            .into_iter()
            .zip(VERDICT_GROUPS)
            .map(|(want, verdict)| {
                let g: Vec<&&RecordScores> = ok.iter().filter(|r| r.equivalent == want).collect();
                SplitRow {
                    verdict,
                    n: g.len(),
                    changed: if g.is_empty() {
                        0.0
                    } else {
                        g.iter().filter(|r| r.changed).count() as f64 / g.len() as f64
                    },
                    means: std::array::from_fn(|i| mean(g.iter().filter_map(|r| r.scores[i]))),
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_follows_the_papers_notebook() {
        let (s, errors) = select_folio(FOLIO_TRAIN);
        assert!(errors.is_empty(), "{errors:?}");
        // Every operator set keeps at most four sentences; every sentence is from FOLIO.
        assert!(s.len() > 50 && s.len() < 300, "{}", s.len());
        let (_, bad) = select_folio("{\"story_id\": 1}\nnot json\n");
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[1].0, 2);
    }

    #[test]
    fn identity_row_is_one_and_unchanged_records_count() {
        let recs = vec!["∀x (Eel(x) → Fish(x))".to_string(), "Tall(bob)".to_string()];
        let t = table(&recs);
        assert_eq!(t[0].means[..4], [Some(1.0); 4]);
        // nltk's METEOR keeps a fragmentation penalty even on identity.
        assert!(t[0].means[4].is_some_and(|m| m > 0.99 && m < 1.0));
        assert_eq!(t[0].means[BS], None, "no bertscore_minilm without a scorer");
        // Quantifier changes one of two records; the unchanged one scores 1.
        assert!((t[1].changed - 0.5).abs() < 1e-12);
        assert!(t[1].means[0].unwrap() > 0.5 && t[1].means[0].unwrap() < 1.0);
        // Combination = mean of the per-record means; diagonal = the metric.
        assert_eq!(t[1].combined[0][0], t[1].means[0]);
        // The verifier splits the row: ∀→∃ on the rule is not equivalent, the untouched
        // record is; the groups add up.
        let split: Vec<usize> = t[1].by_verdict.iter().map(|g| g.n).collect();
        assert_eq!(split, vec![1, 1, 0]);
        assert_eq!(t[1].by_verdict[0].means[0], Some(1.0));
        assert_eq!(equivalent("A(x) ∧ B(x)", "B(x) ∧ A(x)"), Some(true));
        assert_eq!(equivalent("A(x) ∧ (B(x)", "B(x)"), None);
    }
}
