//! What hand labels tell: counts by category and complexity, annotator agreement
//! (Cohen's κ), the share of lucky passes with a Wilson interval, and how well each
//! closeness metric ranks samples the way people do (Spearman's ρ).

use super::RunData;
use crate::labels::agreement::{Agreement, PairAgreement};
use crate::record::LabelRecord;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Latest label per (sample, annotator); a retraction removes it (a later label counts
/// again). The fold is [`crate::labels::state`]'s, shared with the viewer.
pub fn latest(labels: &[LabelRecord]) -> BTreeMap<(String, String), LabelRecord> {
    crate::labels::state::latest(labels)
}

/// Cohen's κ for two raters' binary judgements (None when chance agreement is total).
pub fn cohen_kappa(a: &[bool], b: &[bool]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n == 0 {
        return None;
    }
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / n as f64;
    let pa = a.iter().take(n).filter(|x| **x).count() as f64 / n as f64;
    let pb = b.iter().take(n).filter(|x| **x).count() as f64 / n as f64;
    let pe = pa * pb + (1.0 - pa) * (1.0 - pb);
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    Some((agree - pe) / (1.0 - pe))
}

/// Wilson score interval for k successes in n trials at z (1.96 for 95 %).
pub fn wilson(k: usize, n: usize, z: f64) -> Option<(f64, f64, f64)> {
    if n == 0 {
        return None;
    }
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f + z * z / (4.0 * n_f * n_f)).sqrt()) / denom;
    Some((p, (centre - half).max(0.0), (centre + half).min(1.0)))
}

fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|a, b| {
        xs[*a]
            .partial_cmp(&xs[*b])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]] == xs[idx[i]] {
            j += 1;
        }
        // Ties share the mean rank.
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = mean;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (Pearson on ranks, ties averaged).
pub(crate) fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 3 {
        return None;
    }
    let (rx, ry) = (ranks(&x[..n]), ranks(&y[..n]));
    let mean = f64::midpoint(n as f64, 1.0);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (a, b) = (rx[i] - mean, ry[i] - mean);
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Label statistics of one run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LabelStats {
    /// Labelled samples.
    pub labelled: usize,
    /// Annotators (adjudicated labels aside).
    pub annotators: Vec<String>,
    /// Labels (newest per sample and annotator) made in blind mode.
    pub blind: usize,
    /// category → bucket → samples with that category (the adjudicated label where
    /// there is one, otherwise any annotator).
    pub counts: BTreeMap<String, BTreeMap<usize, usize>>,
    /// category → Cohen's κ of `pair`, where defined.
    pub kappa: BTreeMap<String, Option<f64>>,
    /// The pair: `--pair`, or the two annotators who labelled the most samples in common.
    pub pair: Option<(String, String)>,
    /// Samples both of them labelled.
    pub overlap: usize,
    /// Cohen's κ of `pair` with the reasons where undefined, and overall.
    pub cohen: Option<PairAgreement>,
    /// Krippendorff's α and Fleiss' κ among all annotators, before adjudication.
    pub agreement: Agreement,
    /// What adjudication settled, when any sample is adjudicated.
    pub adjudication: Option<Adjudication>,
    /// Lucky passes among labelled passing samples: (k, n, share, low, high).
    pub lucky: Option<(usize, usize, f64, f64, f64)>,
    /// Spearman ρ of each metric with the human judgement (no failure category = good).
    pub rank_correlation: BTreeMap<String, Option<f64>>,
    /// Why a ρ is undefined.
    pub rank_correlation_reason: BTreeMap<String, String>,
    /// Per taxonomy category, the automatic failure kinds against the hand labels.
    pub automatic: BTreeMap<String, AutoAgreement>,
}

/// Agreement before and after adjudication.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Adjudication {
    /// Samples with an adjudicated label.
    pub samples: usize,
    /// Who settled them, with how many each.
    pub adjudicators: BTreeMap<String, usize>,
    /// Samples where annotators disagree, before.
    pub disagreements_before: usize,
    /// … and those still unsettled after.
    pub disagreements_after: usize,
    /// α and Fleiss' κ once every adjudicated sample carries the settled label for all.
    pub after: Agreement,
    /// Each annotator against the adjudicated labels (Cohen's κ over every category).
    pub annotator_vs_adjudicated: BTreeMap<String, crate::labels::agreement::Estimate>,
}

/// Options of [`stats_with`].
#[derive(Debug, Clone, Default)]
pub(crate) struct StatsOptions {
    /// Pick the Cohen pair instead of the pair that shares the most samples.
    pub pair: Option<(String, String)>,
    /// Bootstrap replicates for α's interval (0: none).
    pub bootstrap: usize,
}

/// Automatic failure classification against hand labels for one category, over the
/// labelled samples (a category counts as human when any annotator gave it).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AutoAgreement {
    /// Both the classifier and a human named it.
    pub tp: usize,
    /// Only the classifier named it.
    pub fp: usize,
    /// Only a human named it.
    pub fn_: usize,
}

impl AutoAgreement {
    /// TP / (TP + FP): how often the classifier is right when it names the category.
    pub fn precision(&self) -> Option<f64> {
        (self.tp + self.fp > 0).then(|| self.tp as f64 / (self.tp + self.fp) as f64)
    }
    /// TP / (TP + FN): how much of what humans found the classifier finds.
    pub fn recall(&self) -> Option<f64> {
        (self.tp + self.fn_ > 0).then(|| self.tp as f64 / (self.tp + self.fn_) as f64)
    }
}

/// Compares automatic categories with human ones, per category.
fn automatic_agreement(by_sample: &BySample, samples: &Samples) -> BTreeMap<String, AutoAgreement> {
    let mut out: BTreeMap<String, AutoAgreement> = BTreeMap::new();
    for (id, ls) in by_sample {
        let Some(s) = samples.get(id.as_str()) else {
            continue;
        };
        let auto: BTreeSet<&str> =
            crate::analysis::kinds::categories(&crate::analysis::kinds::classify(s))
                .into_iter()
                .collect();
        let human: BTreeSet<&str> = ls
            .iter()
            .flat_map(|l| l.categories.iter().map(String::as_str))
            .collect();
        for c in auto.union(&human) {
            let e = out.entry((*c).to_string()).or_default();
            match (auto.contains(c), human.contains(c)) {
                (true, true) => e.tp += 1,
                (true, false) => e.fp += 1,
                (false, true) => e.fn_ += 1,
                (false, false) => {}
            }
        }
    }
    out
}

/// Computes label statistics with the default pair and bootstrap.
pub fn stats(run: &RunData, labels: &[LabelRecord], by_depth: bool) -> LabelStats {
    let opts = StatsOptions {
        pair: None,
        bootstrap: crate::labels::agreement::BOOTSTRAP,
    };
    stats_with(run, labels, by_depth, &opts)
}

/// Spearman's ρ, or why it is undefined.
fn spearman_why(x: &[f64], y: &[f64]) -> Result<f64, String> {
    if x.len() < 3 {
        return Err(format!(
            "{} labelled sample(s) with closeness scores; ρ needs 3",
            x.len()
        ));
    }
    spearman(x, y).ok_or_else(|| {
        if y.iter().all(|v| *v == y[0]) {
            "no variance in the human judgement (all good or all failed)".to_string()
        } else {
            "no variance in the metric".to_string()
        }
    })
}

/// Per sample: the annotators' labels by annotator.
type Units = BTreeMap<String, crate::labels::agreement::Unit>;
/// Sample id → the sample.
type Samples<'a> = HashMap<&'a str, &'a crate::record::SampleRecord>;
/// Sample id → the labels it finally has.
type BySample<'a> = BTreeMap<String, Vec<&'a LabelRecord>>;

/// Computes label statistics; `by_depth` picks the category axis.
pub(crate) fn stats_with(
    run: &RunData,
    labels: &[LabelRecord],
    by_depth: bool,
    opts: &StatsOptions,
) -> LabelStats {
    use crate::labels::ADJUDICATED;
    use crate::labels::agreement::{Unit, agreement, cohen};
    let latest = latest(labels);
    let samples: Samples = run.samples.iter().map(|s| (s.id.as_str(), s)).collect();
    let annotators: Vec<String> = latest
        .keys()
        .map(|(_, a)| a.clone())
        .filter(|a| a != ADJUDICATED)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let blind = latest.values().filter(|l| l.blind).count();
    let (units, settled) = split_settled(&latest);
    let by_sample = final_labels(&latest, &settled);
    let counts = category_counts(&by_sample, &samples, by_depth);
    let all_cats: Vec<String> = latest
        .values()
        .flat_map(|l| l.categories.iter().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let unit_refs: Vec<&Unit> = units.values().collect();
    let pair = opts
        .pair
        .clone()
        .or_else(|| busiest_pair(&annotators, &unit_refs));
    let pair_agreement = pair
        .as_ref()
        .map(|(a, b)| cohen(&unit_refs, &all_cats, a, b));
    let kappa = pair_agreement.as_ref().map_or_else(BTreeMap::new, |c| {
        c.kappa.iter().map(|(k, e)| (k.clone(), e.value)).collect()
    });
    let overlap = pair_agreement.as_ref().map_or(0, |c| c.shared);
    let before = agreement(&unit_refs, &all_cats, opts.bootstrap);
    let adjudication = (!settled.is_empty()).then(|| {
        adjudicated(
            &units,
            &settled,
            &annotators,
            &all_cats,
            &before,
            opts.bootstrap,
        )
    });
    let lucky = lucky_passes(&by_sample, &samples);
    let (rank_correlation, rank_correlation_reason) = rank_correlations(&by_sample, &samples);
    let automatic = automatic_agreement(&by_sample, &samples);
    LabelStats {
        automatic,
        labelled: by_sample.len(),
        annotators,
        blind,
        counts,
        kappa,
        pair,
        overlap,
        cohen: pair_agreement,
        agreement: before,
        adjudication,
        lucky,
        rank_correlation,
        rank_correlation_reason,
    }
}

/// Per sample: the annotators' labels, and the adjudicated one apart.
fn split_settled(
    latest: &BTreeMap<(String, String), LabelRecord>,
) -> (Units, BTreeMap<String, &LabelRecord>) {
    let mut units: Units = BTreeMap::new();
    let mut settled: BTreeMap<String, &LabelRecord> = BTreeMap::new();
    for ((id, who), l) in latest {
        if who == crate::labels::ADJUDICATED {
            settled.insert(id.clone(), l);
        } else {
            units
                .entry(id.clone())
                .or_default()
                .insert(who.clone(), l.categories.iter().cloned().collect());
        }
    }
    (units, settled)
}

/// The labels a sample finally has: the adjudicated one settles it.
fn final_labels<'a>(
    latest: &'a BTreeMap<(String, String), LabelRecord>,
    settled: &BTreeMap<String, &LabelRecord>,
) -> BySample<'a> {
    let mut by_sample: BySample = BTreeMap::new();
    for ((id, who), l) in latest {
        if settled.contains_key(id) && who != crate::labels::ADJUDICATED {
            continue;
        }
        by_sample.entry(id.clone()).or_default().push(l);
    }
    by_sample
}

/// category → bucket (depth or operators) → samples with that category.
fn category_counts(
    by_sample: &BySample,
    samples: &Samples,
    by_depth: bool,
) -> BTreeMap<String, BTreeMap<usize, usize>> {
    let mut counts: BTreeMap<String, BTreeMap<usize, usize>> = BTreeMap::new();
    for (id, ls) in by_sample {
        let Some(s) = samples.get(id.as_str()) else {
            continue;
        };
        let bucket = if by_depth { s.depth } else { s.num_operators }.unwrap_or(0);
        let cats: BTreeSet<&String> = ls.iter().flat_map(|l| l.categories.iter()).collect();
        for c in cats {
            *counts
                .entry(c.clone())
                .or_default()
                .entry(bucket)
                .or_default() += 1;
        }
    }
    counts
}

/// The pair of annotators that shares the most samples (first in name order).
fn busiest_pair(
    annotators: &[String],
    unit_refs: &[&crate::labels::agreement::Unit],
) -> Option<(String, String)> {
    let shared_by = |a1: &String, a2: &String| {
        unit_refs
            .iter()
            .filter(|u| u.contains_key(a1) && u.contains_key(a2))
            .count()
    };
    let mut best: Option<((String, String), usize)> = None;
    for (i, a1) in annotators.iter().enumerate() {
        for a2 in &annotators[i + 1..] {
            let n = shared_by(a1, a2);
            if best.as_ref().is_none_or(|(_, b)| n > *b) {
                best = Some(((a1.clone(), a2.clone()), n));
            }
        }
    }
    best.map(|(p, _)| p)
}

/// What adjudication settled: agreement once the settled labels stand for everyone, and
/// each annotator against them.
fn adjudicated(
    units: &Units,
    settled: &BTreeMap<String, &LabelRecord>,
    annotators: &[String],
    all_cats: &[String],
    before: &Agreement,
    bootstrap: usize,
) -> Adjudication {
    use crate::labels::ADJUDICATED;
    use crate::labels::agreement::{Unit, agreement, cohen};
    let mut adjudicators: BTreeMap<String, usize> = BTreeMap::new();
    for l in settled.values() {
        let who = l.adjudicator.clone().unwrap_or_else(|| "unknown".into());
        *adjudicators.entry(who).or_default() += 1;
    }
    let mut after_units = units.clone();
    for (id, l) in settled {
        let set: BTreeSet<String> = l.categories.iter().cloned().collect();
        if let Some(u) = after_units.get_mut(id) {
            for v in u.values_mut() {
                v.clone_from(&set);
            }
        }
    }
    let after_refs: Vec<&Unit> = after_units.values().collect();
    let after = agreement(&after_refs, all_cats, bootstrap);
    // Each annotator against the settled label, as a pair with "adjudicated".
    let mut with_gold: Vec<Unit> = Vec::new();
    for (id, l) in settled {
        let mut u = units.get(id).cloned().unwrap_or_default();
        u.insert(ADJUDICATED.into(), l.categories.iter().cloned().collect());
        with_gold.push(u);
    }
    let gold_refs: Vec<&Unit> = with_gold.iter().collect();
    let annotator_vs_adjudicated = annotators
        .iter()
        .map(|a| {
            (
                a.clone(),
                cohen(&gold_refs, all_cats, a, ADJUDICATED).overall,
            )
        })
        .collect();
    Adjudication {
        samples: settled.len(),
        adjudicators,
        disagreements_before: before.disagreements,
        disagreements_after: after.disagreements,
        after,
        annotator_vs_adjudicated,
    }
}

/// Lucky passes among labelled passing samples: (k, n, share, low, high); a sample
/// counts if any annotator says so.
fn lucky_passes(by_sample: &BySample, samples: &Samples) -> Option<(usize, usize, f64, f64, f64)> {
    let passing: Vec<&String> = by_sample
        .keys()
        .filter(|id| {
            samples
                .get(id.as_str())
                .is_some_and(|s| s.verdict.is_equivalent())
        })
        .collect();
    let lucky_k = passing
        .iter()
        .filter(|id| {
            by_sample[**id]
                .iter()
                .any(|l| l.categories.iter().any(|c| c == "lucky-pass"))
        })
        .count();
    wilson(lucky_k, passing.len(), 1.96).map(|(p, lo, hi)| (lucky_k, passing.len(), p, lo, hi))
}

/// Spearman ρ of each metric with the human judgement, and why where undefined.
fn rank_correlations(
    by_sample: &BySample,
    samples: &Samples,
) -> (BTreeMap<String, Option<f64>>, BTreeMap<String, String>) {
    let (mut human, mut bleu, mut rouge, mut tree, mut le) =
        (vec![], vec![], vec![], vec![], vec![]);
    for (id, ls) in by_sample {
        let Some(s) = samples.get(id.as_str()) else {
            continue;
        };
        let Some(c) = s.closeness else { continue };
        // Human judgement: 1 when no annotator names a failure (verifier disputes aside).
        let bad = ls
            .iter()
            .any(|l| l.categories.iter().any(|c| c != "verifier-disagrees"));
        human.push(if bad { 0.0 } else { 1.0 });
        bleu.push(c.bleu);
        rouge.push(c.rouge_l);
        tree.push(c.tree);
        le.push(if s.verdict.is_equivalent() { 1.0 } else { 0.0 });
    }
    let mut rank_correlation = BTreeMap::new();
    let mut rank_correlation_reason = BTreeMap::new();
    for (k, v) in [
        ("BLEU", &bleu),
        ("ROUGE-L", &rouge),
        ("tree overlap", &tree),
        ("logical equivalence", &le),
    ] {
        let r = spearman_why(v, &human);
        if let Err(why) = &r {
            rank_correlation_reason.insert(k.to_string(), why.clone());
        }
        rank_correlation.insert(k.to_string(), r.ok());
    }
    (rank_correlation, rank_correlation_reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_hand_worked() {
        // 10 items: both yes 3, both no 4, a-only 2, b-only 1. po = 0.7;
        // pa = 0.5, pb = 0.4, pe = 0.2 + 0.3 = 0.5, κ = (0.7 − 0.5)/(1 − 0.5) = 0.4.
        let a = [
            true, true, true, false, false, false, false, true, true, false,
        ];
        let b = [
            true, true, true, false, false, false, false, false, false, true,
        ];
        assert!((cohen_kappa(&a, &b).unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(
            cohen_kappa(&[true, true], &[true, true]),
            None,
            "no variation: undefined"
        );
        assert!((cohen_kappa(&a, &a).unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn wilson_hand_worked() {
        // 3 of 10 at 95 %: 0.3 with interval [0.1078, 0.6032].
        let (p, lo, hi) = wilson(3, 10, 1.96).unwrap();
        assert!((p - 0.3).abs() < 1e-12);
        assert!((lo - 0.10779).abs() < 1e-4, "{lo}");
        assert!((hi - 0.60322).abs() < 1e-4, "{hi}");
        let (_, lo, hi) = wilson(0, 20, 1.96).unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - 0.16113).abs() < 1e-4, "{hi}");
        assert_eq!(wilson(0, 0, 1.96), None);
    }

    #[test]
    fn spearman_hand_worked() {
        assert!(
            (spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]).unwrap() - 1.0).abs()
                < 1e-12
        );
        assert!(
            (spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12
        );
        // Ranks x = 1..5, y = [2, 1, 4, 3, 5]: Σd² = 4, ρ = 1 − 6·4/(5·24) = 0.8.
        assert!(
            (spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap() - 0.8).abs()
                < 1e-12
        );
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }
}
