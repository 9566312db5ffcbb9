//! What human rankings tell (the metrics paper's Table 4): Kendall's τ between
//! annotators, the consensus rank by pairwise majority, and how far each closeness
//! metric's ranking (and each pair's mean) lies from it, as the RMSE of rank vectors.
//! Ties get equal ranks everywhere (competition ranking: scores 0.9, 0.9, 0.5 rank 1, 1, 3).

use crate::labels::ranks::{Candidate, RankRecord};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Kendall's τ-b between two annotators.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairTau {
    /// The first annotator.
    pub a: String,
    /// The second.
    pub b: String,
    /// φ₀s both ranked (with two or more answers in common).
    pub shared: usize,
    /// Candidate pairs compared (within a φ₀ only).
    pub pairs: usize,
    /// τ-b, when defined.
    pub tau: Option<f64>,
    /// Why τ is undefined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The consensus ranking of one φ₀.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Consensus {
    /// φ₀'s hash.
    pub phi0_hash: String,
    /// φ₀.
    pub phi0: String,
    /// Every candidate any annotator ranked.
    pub candidates: Vec<Candidate>,
    /// Consensus rank of each (1 = best, ties equal).
    pub ranks: Vec<u32>,
    /// Annotators whose rankings it pools.
    pub annotators: Vec<String>,
}

/// One metric's (or pair's) distance from the consensus.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricRmse {
    /// The metric, or `a+b` for a pair.
    pub metric: String,
    /// The two metrics averaged per candidate, for a pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_of: Option<[String; 2]>,
    /// RMSE of its rank vector against the consensus, when any φ₀ counts.
    pub rmse: Option<f64>,
    /// φ₀s counted (every candidate has the metric).
    pub rankings: usize,
    /// Rank positions counted.
    pub positions: usize,
}

/// Everything `labels stats` reports about rankings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RankStats {
    /// Rankings counted (newest per φ₀ and annotator).
    pub rankings: usize,
    /// φ₀s ranked.
    pub phi0s: usize,
    /// Annotators who ranked.
    pub annotators: Vec<String>,
    /// τ-b per pair of annotators.
    pub kendall: Vec<PairTau>,
    /// Mean τ-b over the pairs where it is defined.
    pub kendall_mean: Option<f64>,
    /// The consensus per φ₀.
    pub consensus: Vec<Consensus>,
    /// Each metric's, then each pair's, RMSE against the consensus.
    pub rmse: Vec<MetricRmse>,
    /// Candidates whose run or sample was not found (their φ₀s count for no metric).
    pub unresolved: Vec<String>,
}

/// Competition ranks of scores, highest first: 1 + the number of strictly higher ones.
pub(crate) fn ranks_desc(scores: &[f64]) -> Vec<u32> {
    scores
        .iter()
        .map(|s| 1 + scores.iter().filter(|o| *o > s).count() as u32)
        .collect()
}

/// τ-b between two rankings pooled over shared φ₀s: candidate pairs are compared only
/// within a φ₀ (concordant, discordant, tied in either).
fn tau_b(a: &RankRecord, b: &RankRecord, acc: &mut [u64; 5]) -> bool {
    let rb: HashMap<&Candidate, u32> = b
        .candidates
        .iter()
        .zip(&b.ranks)
        .map(|(c, r)| (c, *r))
        .collect();
    let common: Vec<(u32, u32)> = a
        .candidates
        .iter()
        .zip(&a.ranks)
        .filter_map(|(c, r)| Some((*r, *rb.get(c)?)))
        .collect();
    if common.len() < 2 {
        return false;
    }
    for i in 0..common.len() {
        for j in i + 1..common.len() {
            let sa = common[i].0.cmp(&common[j].0);
            let sb = common[i].1.cmp(&common[j].1);
            acc[0] += 1;
            acc[1] += u64::from(sa.is_eq());
            acc[2] += u64::from(sb.is_eq());
            if !sa.is_eq() && sa == sb {
                acc[3] += 1;
            } else if !sa.is_eq() && !sb.is_eq() {
                acc[4] += 1;
            }
        }
    }
    true
}

/// Consensus of one φ₀'s rankings by pairwise majority: a beats b when more than half
/// of the annotators who ranked both put a above b; candidates are ranked by wins.
fn consensus(recs: &[&RankRecord]) -> (Vec<Candidate>, Vec<u32>) {
    let mut cands: Vec<Candidate> = Vec::new();
    for r in recs {
        for c in &r.candidates {
            if !cands.contains(c) {
                cands.push(c.clone());
            }
        }
    }
    let maps: Vec<HashMap<&Candidate, u32>> = recs
        .iter()
        .map(|r| {
            r.candidates
                .iter()
                .zip(&r.ranks)
                .map(|(c, k)| (c, *k))
                .collect()
        })
        .collect();
    let wins: Vec<f64> = cands
        .iter()
        .map(|a| {
            cands
                .iter()
                .filter(|b| *b != a)
                .filter(|b| {
                    let (mut both, mut above) = (0, 0);
                    for m in &maps {
                        if let (Some(x), Some(y)) = (m.get(a), m.get(*b)) {
                            both += 1;
                            above += usize::from(x < y);
                        }
                    }
                    2 * above > both
                })
                .count() as f64
        })
        .collect();
    let ranks = ranks_desc(&wins);
    (cands, ranks)
}

/// Metric names present in `scores`, in table order.
fn metric_names(scores: &BTreeMap<Candidate, BTreeMap<String, f64>>) -> Vec<String> {
    let names: BTreeSet<&String> = scores.values().flat_map(BTreeMap::keys).collect();
    // The verdict column first, then the metrics in table order.
    let pos = |k: &str| {
        if k == "verdict" {
            0
        } else {
            1 + crate::record::Metric::table_place(k)
        }
    };
    let mut v: Vec<String> = names.into_iter().cloned().collect();
    v.sort_by(|a, b| pos(a).cmp(&pos(b)).then_with(|| a.cmp(b)));
    v
}

/// RMSE of the ranks `score` gives against the consensus, over the φ₀s where every
/// candidate has a score.
fn rmse_of(
    metric: String,
    mean_of: Option<[String; 2]>,
    consensus: &[Consensus],
    score: impl Fn(&Candidate) -> Option<f64>,
) -> MetricRmse {
    let (mut sum, mut positions, mut rankings) = (0.0, 0, 0);
    for c in consensus {
        let Some(s): Option<Vec<f64>> = c.candidates.iter().map(&score).collect() else {
            continue;
        };
        for (m, h) in ranks_desc(&s).iter().zip(&c.ranks) {
            sum += (f64::from(*m) - f64::from(*h)).powi(2);
            positions += 1;
        }
        rankings += 1;
    }
    MetricRmse {
        metric,
        mean_of,
        rmse: (positions > 0).then(|| (sum / positions as f64).sqrt()),
        rankings,
        positions,
    }
}

/// Kendall's τ-b of every pair of annotators over the φ₀ both ranked (`by_phi0`: each
/// φ₀'s rankings).
fn pair_taus(annotators: &[String], by_phi0: &BTreeMap<&str, Vec<&RankRecord>>) -> Vec<PairTau> {
    let mut kendall = Vec::new();
    for (i, a) in annotators.iter().enumerate() {
        for b in &annotators[i + 1..] {
            let mut acc = [0u64; 5];
            let mut shared = 0;
            for recs in by_phi0.values() {
                let ra = recs.iter().find(|r| &r.annotator == a);
                let rb = recs.iter().find(|r| &r.annotator == b);
                if let (Some(x), Some(y)) = (ra, rb) {
                    shared += usize::from(tau_b(x, y, &mut acc));
                }
            }
            let [n0, n1, n2, c, d] = acc.map(|x| x as f64);
            let denom = ((n0 - n1) * (n0 - n2)).sqrt();
            let (tau, reason) = if shared == 0 {
                (None, Some(format!("{a} and {b} ranked no φ₀ in common")))
            } else if denom == 0.0 {
                (None, Some("one of them tied every pair".to_string()))
            } else {
                (Some((c - d) / denom), None)
            };
            kendall.push(PairTau {
                a: a.clone(),
                b: b.clone(),
                shared,
                pairs: acc[0] as usize,
                tau,
                reason,
            });
        }
    }
    kendall
}

/// The statistics of the newest rankings (`latest`), with each candidate's metric
/// scores (`scores`; a candidate missing there is unresolved).
pub(crate) fn rank_stats(
    latest: &BTreeMap<(String, String), RankRecord>,
    scores: &BTreeMap<Candidate, BTreeMap<String, f64>>,
) -> RankStats {
    let annotators: Vec<String> = latest
        .keys()
        .map(|(_, a)| a.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut by_phi0: BTreeMap<&str, Vec<&RankRecord>> = BTreeMap::new();
    for ((h, _), r) in latest {
        by_phi0.entry(h.as_str()).or_default().push(r);
    }
    let kendall = pair_taus(&annotators, &by_phi0);
    let defined: Vec<f64> = kendall.iter().filter_map(|p| p.tau).collect();
    let kendall_mean =
        (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);
    let consensus: Vec<Consensus> = by_phi0
        .iter()
        .map(|(h, recs)| {
            let (candidates, ranks) = consensus(recs);
            Consensus {
                phi0_hash: (*h).to_string(),
                phi0: recs[0].phi0.clone(),
                candidates,
                ranks,
                annotators: recs.iter().map(|r| r.annotator.clone()).collect(),
            }
        })
        .collect();
    let unresolved: Vec<String> = consensus
        .iter()
        .flat_map(|c| c.candidates.iter())
        .filter(|c| !scores.contains_key(*c))
        .map(|c| format!("{}/{}", c.run, c.id))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let names = metric_names(scores);
    let get = |c: &Candidate, m: &str| scores.get(c).and_then(|s| s.get(m)).copied();
    let mut rmse: Vec<MetricRmse> = names
        .iter()
        .map(|m| rmse_of(m.clone(), None, &consensus, |c| get(c, m)))
        .collect();
    for (i, m1) in names.iter().enumerate() {
        for m2 in &names[i + 1..] {
            rmse.push(rmse_of(
                format!("{m1}+{m2}"),
                Some([m1.clone(), m2.clone()]),
                &consensus,
                |c| Some(f64::midpoint(get(c, m1)?, get(c, m2)?)),
            ));
        }
    }
    RankStats {
        rankings: latest.len(),
        phi0s: by_phi0.len(),
        annotators,
        kendall,
        kendall_mean,
        consensus,
        rmse,
        unresolved,
    }
}

/// Every finite numeric field of a closeness record by name, in the order the metrics
/// are documented (the unknown ones after, by name): what a ranking is compared with.
pub(crate) fn named_metrics(c: &crate::record::Closeness) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = match serde_json::to_value(c) {
        Ok(serde_json::Value::Object(m)) => m
            .into_iter()
            .filter_map(|(k, v)| v.as_f64().filter(|x| x.is_finite()).map(|x| (k, x)))
            .collect(),
        _ => Vec::new(),
    };
    let pos = crate::record::Metric::table_place;
    out.sort_by(|a, b| pos(&a.0).cmp(&pos(&b.0)).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(phi0: &str, who: &str, ranks: &[u32]) -> RankRecord {
        let cands = (0..ranks.len())
            .map(|k| Candidate {
                run: format!("r{k}"),
                id: "1".into(),
            })
            .collect();
        RankRecord::new(phi0, cands, ranks.to_vec(), who)
    }

    #[test]
    fn ties_share_the_best_rank() {
        assert_eq!(ranks_desc(&[0.9, 0.9, 0.5]), [1, 1, 3]);
        assert_eq!(ranks_desc(&[0.1, 0.5, 0.3]), [3, 1, 2]);
        assert_eq!(ranks_desc(&[1.0, 1.0]), [1, 1]);
    }

    #[test]
    fn consensus_is_the_pairwise_majority_and_a_cycle_ties() {
        let (a, b, c) = (
            rec("P", "a", &[1, 2, 3]),
            rec("P", "b", &[1, 3, 2]),
            rec("P", "c", &[2, 1, 3]),
        );
        // r0 beats r1 (a, b) and r2 (a, b, c); r1 vs r2: a, c put r1 above → r1 beats r2.
        assert_eq!(consensus(&[&a, &b, &c]).1, [1, 2, 3]);
        let (x, y, z) = (
            rec("P", "a", &[1, 2, 3]),
            rec("P", "b", &[2, 3, 1]),
            rec("P", "c", &[3, 1, 2]),
        );
        assert_eq!(consensus(&[&x, &y, &z]).1, [1, 1, 1], "a Condorcet cycle");
        // One annotator: their own ranking, ties kept.
        assert_eq!(consensus(&[&rec("P", "a", &[2, 1, 2])]).1, [2, 1, 2]);
    }

    #[test]
    fn tau_b_hand_worked() {
        // a: 1 2 3, b: 1 3 2 → pairs (0,1) C, (0,2) C, (1,2) D: τ = (2−1)/3.
        let latest = [rec("P", "a", &[1, 2, 3]), rec("P", "b", &[1, 3, 2])]
            .into_iter()
            .map(|r| ((r.phi0_hash.clone(), r.annotator.clone()), r))
            .collect();
        let st = rank_stats(&latest, &BTreeMap::new());
        assert!((st.kendall[0].tau.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(st.kendall[0].pairs, 3);
        assert_eq!(st.unresolved.len(), 3);
        assert!(st.rmse.is_empty());
        // With a tie: a 1 1 2, b 1 2 3 → one pair tied in a, two concordant:
        // τ-b = 2/√(2·3) = 0.8165 (scipy's kendalltau gives the same).
        let latest = [rec("P", "a", &[1, 1, 2]), rec("P", "b", &[1, 2, 3])]
            .into_iter()
            .map(|r| ((r.phi0_hash.clone(), r.annotator.clone()), r))
            .collect();
        let st = rank_stats(&latest, &BTreeMap::new());
        assert!((st.kendall[0].tau.unwrap() - 2.0 / 6f64.sqrt()).abs() < 1e-12);
        // Someone who ties everything leaves τ undefined, with the reason.
        let latest = [rec("P", "a", &[1, 1, 1]), rec("P", "b", &[1, 2, 3])]
            .into_iter()
            .map(|r| ((r.phi0_hash.clone(), r.annotator.clone()), r))
            .collect();
        let st = rank_stats(&latest, &BTreeMap::new());
        assert_eq!(st.kendall[0].tau, None);
        assert!(
            st.kendall[0]
                .reason
                .as_deref()
                .unwrap()
                .contains("tied every pair")
        );
    }
}
