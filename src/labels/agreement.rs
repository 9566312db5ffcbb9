//! Agreement between annotators on multi-label categories. Each category is a
//! present/absent judgement per sample; "overall" pools every (sample, category) pair
//! into one binary judgement. Krippendorff's α (nominal) with a bootstrap interval over
//! samples, Fleiss' κ (generalised to a varying number of annotators per sample) and
//! Cohen's κ for one pair. An undefined value always carries the reason.

use crate::base::rng::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// One sample's labels: annotator → the categories they named.
pub(crate) type Unit = BTreeMap<String, BTreeSet<String>>;

/// Bootstrap replicates for α's interval.
pub(crate) const BOOTSTRAP: usize = 1000;
/// Seed of the bootstrap, fixed so the same labels always print the same interval.
const SEED: u64 = 0x5EED_A1FA;

/// A statistic, its 95 % interval where one is computed, and why it is missing.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The value, when defined.
    pub value: Option<f64>,
    /// Lower end of the 95 % interval.
    pub low: Option<f64>,
    /// Upper end of the 95 % interval.
    pub high: Option<f64>,
    /// Why `value` is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Samples it is computed over.
    pub samples: usize,
}

impl Estimate {
    fn missing(reason: impl Into<String>, samples: usize) -> Estimate {
        Estimate {
            reason: Some(reason.into()),
            samples,
            ..Estimate::default()
        }
    }

    fn of(value: f64, samples: usize) -> Estimate {
        Estimate {
            value: Some(value),
            samples,
            ..Estimate::default()
        }
    }

    /// `0.512 [0.210, 0.800]`, or the reason.
    pub fn show(&self) -> String {
        match (self.value, self.low, self.high) {
            (Some(v), Some(l), Some(h)) => format!("{v:.3} [{l:.3}, {h:.3}]"),
            (Some(v), _, _) => format!("{v:.3}"),
            _ => format!("– ({})", self.reason.as_deref().unwrap_or("undefined")),
        }
    }
}

/// Agreement among every annotator.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Agreement {
    /// Annotators taken into account.
    pub annotators: Vec<String>,
    /// Samples labelled by two or more of them.
    pub shared: usize,
    /// Samples where their category sets differ.
    pub disagreements: usize,
    /// Krippendorff's α per category, with a bootstrap interval.
    pub alpha: BTreeMap<String, Estimate>,
    /// α over every (sample, category) pair.
    pub alpha_overall: Estimate,
    /// Fleiss' κ per category.
    pub fleiss: BTreeMap<String, Estimate>,
    /// Fleiss' κ over every (sample, category) pair.
    pub fleiss_overall: Estimate,
}

/// Cohen's κ for one pair of annotators.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PairAgreement {
    /// The first annotator.
    pub a: String,
    /// The second annotator.
    pub b: String,
    /// Samples both labelled.
    pub shared: usize,
    /// κ per category.
    pub kappa: BTreeMap<String, Estimate>,
    /// κ over every (sample, category) pair.
    pub overall: Estimate,
}

/// Per unit with ≥ 2 annotators: m (annotators) and, per category, k (who named it).
struct Table {
    m: Vec<u32>,
    k: Vec<Vec<u32>>,
}

fn table(units: &[&Unit], cats: &[String]) -> Table {
    let shared: Vec<&&Unit> = units.iter().filter(|u| u.len() >= 2).collect();
    let m = shared.iter().map(|u| u.len() as u32).collect();
    let k = cats
        .iter()
        .map(|c| {
            shared
                .iter()
                .map(|u| u.values().filter(|s| s.contains(c)).count() as u32)
                .collect()
        })
        .collect();
    Table { m, k }
}

/// Sums α needs for one category over a set of unit indices: (Σm, Σk, Σ observed disagreement).
fn sums(m: &[u32], k: &[u32], idx: impl Iterator<Item = usize>) -> (f64, f64, f64) {
    let (mut n, mut n1, mut d) = (0.0, 0.0, 0.0);
    for u in idx {
        let (mu, ku) = (f64::from(m[u]), f64::from(k[u]));
        n += mu;
        n1 += ku;
        d += 2.0 * ku * (mu - ku) / (mu - 1.0);
    }
    (n, n1, d)
}

/// α from pooled sums; None without variance.
fn alpha_of(n: f64, n1: f64, d: f64) -> Option<f64> {
    let n0 = n - n1;
    (n0 > 0.0 && n1 > 0.0).then(|| 1.0 - (n - 1.0) * d / (2.0 * n0 * n1))
}

fn no_variance(n1: f64, n: f64) -> String {
    if n1 <= 0.0 {
        "no variance: nobody named it on a shared sample".into()
    } else if n1 >= n {
        "no variance: everyone named it on every shared sample".into()
    } else {
        "no variance".into()
    }
}

const NO_SHARED: &str = "no shared samples: no sample has labels from two annotators";

fn percentile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn interval(mut vals: Vec<f64>) -> (Option<f64>, Option<f64>) {
    // An interval from a handful of defined replicates would pretend a precision it lacks.
    if vals.len() < BOOTSTRAP / 2 {
        return (None, None);
    }
    vals.sort_by(f64::total_cmp);
    (
        Some(percentile(&vals, 0.025)),
        Some(percentile(&vals, 0.975)),
    )
}

/// Krippendorff's α and Fleiss' κ among all annotators of `units`, per category of
/// `cats` and overall; `bootstrap` replicates (0 for none) give α's interval.
pub fn agreement(units: &[&Unit], cats: &[String], bootstrap: usize) -> Agreement {
    let annotators: BTreeSet<String> = units.iter().flat_map(|u| u.keys().cloned()).collect();
    let t = table(units, cats);
    let shared = t.m.len();
    let disagreements = units
        .iter()
        .filter(|u| u.len() >= 2 && u.values().collect::<BTreeSet<_>>().len() > 1)
        .count();
    let mut out = Agreement {
        annotators: annotators.into_iter().collect(),
        shared,
        disagreements,
        ..Agreement::default()
    };
    if shared == 0 {
        for c in cats {
            out.alpha.insert(c.clone(), Estimate::missing(NO_SHARED, 0));
            out.fleiss
                .insert(c.clone(), Estimate::missing(NO_SHARED, 0));
        }
        out.alpha_overall = Estimate::missing(NO_SHARED, 0);
        out.fleiss_overall = Estimate::missing(NO_SHARED, 0);
        return out;
    }
    // Point values.
    let (mut tn, mut tn1, mut td) = (0.0, 0.0, 0.0);
    for (c, k) in cats.iter().zip(&t.k) {
        let (n, n1, d) = sums(&t.m, k, 0..shared);
        tn += n;
        tn1 += n1;
        td += d;
        out.alpha.insert(
            c.clone(),
            alpha_of(n, n1, d).map_or_else(
                || Estimate::missing(no_variance(n1, n), shared),
                |a| Estimate::of(a, shared),
            ),
        );
        out.fleiss.insert(c.clone(), fleiss(&t.m, &[k], shared));
    }
    out.alpha_overall = alpha_of(tn, tn1, td).map_or_else(
        || Estimate::missing(no_variance(tn1, tn), shared),
        |a| Estimate::of(a, shared),
    );
    let all: Vec<&Vec<u32>> = t.k.iter().collect();
    out.fleiss_overall = if cats.is_empty() {
        Estimate::missing("no category was named", shared)
    } else {
        fleiss(&t.m, &all, shared)
    };
    // Bootstrap over samples: each replicate redraws the shared samples with replacement.
    if bootstrap > 0 {
        let mut rng = Rng::new(SEED);
        let mut per: Vec<Vec<f64>> = vec![Vec::with_capacity(bootstrap); cats.len()];
        let mut overall = Vec::with_capacity(bootstrap);
        let mut idx = vec![0usize; shared];
        for _ in 0..bootstrap {
            for i in &mut idx {
                *i = rng.below(shared);
            }
            let (mut tn, mut tn1, mut td) = (0.0, 0.0, 0.0);
            for (ci, k) in t.k.iter().enumerate() {
                let (n, n1, d) = sums(&t.m, k, idx.iter().copied());
                tn += n;
                tn1 += n1;
                td += d;
                if let Some(a) = alpha_of(n, n1, d) {
                    per[ci].push(a);
                }
            }
            if let Some(a) = alpha_of(tn, tn1, td) {
                overall.push(a);
            }
        }
        for (c, vals) in cats.iter().zip(per) {
            if let Some(e) = out.alpha.get_mut(c).filter(|e| e.value.is_some()) {
                (e.low, e.high) = interval(vals);
            }
        }
        if out.alpha_overall.value.is_some() {
            (out.alpha_overall.low, out.alpha_overall.high) = interval(overall);
        }
    }
    out
}

/// Fleiss' κ over the given categories' (unit, category) pairs. With a varying number
/// of annotators each unit's agreement uses its own count (Fleiss' formula otherwise).
fn fleiss(m: &[u32], ks: &[&Vec<u32>], shared: usize) -> Estimate {
    let (mut p_sum, mut units, mut n, mut n1) = (0.0, 0.0, 0.0, 0.0);
    for k in ks {
        for (mu, ku) in m.iter().zip(k.iter()) {
            let (mu, ku) = (f64::from(*mu), f64::from(*ku));
            p_sum += (ku * (ku - 1.0) + (mu - ku) * (mu - ku - 1.0)) / (mu * (mu - 1.0));
            units += 1.0;
            n += mu;
            n1 += ku;
        }
    }
    let p1 = n1 / n;
    let pe = p1 * p1 + (1.0 - p1) * (1.0 - p1);
    if (1.0 - pe).abs() < 1e-12 {
        return Estimate::missing(no_variance(n1, n), shared);
    }
    Estimate::of((p_sum / units - pe) / (1.0 - pe), shared)
}

/// Cohen's κ between `a` and `b` over the samples both labelled.
pub fn cohen(units: &[&Unit], cats: &[String], a: &str, b: &str) -> PairAgreement {
    let both: Vec<(&BTreeSet<String>, &BTreeSet<String>)> = units
        .iter()
        .filter_map(|u| Some((u.get(a)?, u.get(b)?)))
        .collect();
    let shared = both.len();
    let mut out = PairAgreement {
        a: a.to_string(),
        b: b.to_string(),
        shared,
        ..PairAgreement::default()
    };
    let none = || format!("no shared samples: {a} and {b} labelled no sample in common");
    let (mut xs, mut ys) = (vec![], vec![]);
    for c in cats {
        let x: Vec<bool> = both.iter().map(|(s, _)| s.contains(c)).collect();
        let y: Vec<bool> = both.iter().map(|(_, s)| s.contains(c)).collect();
        let e = if shared == 0 {
            Estimate::missing(none(), 0)
        } else {
            kappa2(&x, &y, shared)
        };
        out.kappa.insert(c.clone(), e);
        xs.extend(x);
        ys.extend(y);
    }
    out.overall = if shared == 0 {
        Estimate::missing(none(), 0)
    } else if cats.is_empty() {
        Estimate::missing("no category was named", shared)
    } else {
        kappa2(&xs, &ys, shared)
    };
    out
}

fn kappa2(x: &[bool], y: &[bool], shared: usize) -> Estimate {
    let n = x.len() as f64;
    let agree = x.iter().zip(y).filter(|(p, q)| p == q).count() as f64 / n;
    let pa = x.iter().filter(|v| **v).count() as f64 / n;
    let pb = y.iter().filter(|v| **v).count() as f64 / n;
    let pe = pa * pb + (1.0 - pa) * (1.0 - pb);
    if (1.0 - pe).abs() < 1e-12 {
        let named = (pa + pb) * n;
        return Estimate::missing(no_variance(named, 2.0 * n), shared);
    }
    Estimate::of((agree - pe) / (1.0 - pe), shared)
}

/// One sample's latest labels split into the annotators' unit and the adjudicated label.
pub fn split(labels: &[crate::record::LabelRecord]) -> (Unit, Option<&crate::record::LabelRecord>) {
    let mut unit = Unit::new();
    let mut settled = None;
    for l in labels {
        if l.annotator == crate::labels::ADJUDICATED {
            settled = Some(l);
        } else {
            unit.insert(l.annotator.clone(), l.categories.iter().cloned().collect());
        }
    }
    (unit, settled)
}

/// Samples whose annotators named different categories (the viewer's "annotators
/// disagree" filter and `labels disagreements`).
pub(crate) fn disagrees(unit: &Unit) -> bool {
    unit.len() >= 2 && unit.values().collect::<BTreeSet<_>>().len() > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(rows: &[(&str, &[&str])]) -> Unit {
        rows.iter()
            .map(|(a, cs)| {
                (
                    (*a).to_string(),
                    cs.iter().map(|c| (*c).to_string()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn alpha_hand_worked() {
        // One category, three samples, two annotators: yes/yes, no/no, yes/no.
        // n = 6, n1 = 3, n0 = 3; observed disagreement: only the third, 2·1·1/1 = 2.
        // α = 1 − 5·2/(2·3·3) = 1 − 10/18 = 0.4444…
        let us = [
            unit(&[("a", &["x"]), ("b", &["x"])]),
            unit(&[("a", &[]), ("b", &[])]),
            unit(&[("a", &["x"]), ("b", &[])]),
        ];
        let refs: Vec<&Unit> = us.iter().collect();
        let ag = agreement(&refs, &["x".to_string()], 0);
        assert!((ag.alpha["x"].value.unwrap() - 4.0 / 9.0).abs() < 1e-12);
        // Fleiss: P = (1, 1, 0), P̄ = 2/3, p1 = 1/2, Pe = 1/2, κ = 1/3.
        assert!((ag.fleiss["x"].value.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(ag.disagreements, 1);
        let solo = [unit(&[("a", &["x"])])];
        let refs: Vec<&Unit> = solo.iter().collect();
        let ag = agreement(&refs, &["x".to_string()], 10);
        assert!(
            ag.alpha["x"]
                .reason
                .as_deref()
                .unwrap()
                .contains("no shared")
        );
        let same = [
            unit(&[("a", &[]), ("b", &[])]),
            unit(&[("a", &[]), ("b", &[])]),
        ];
        let refs: Vec<&Unit> = same.iter().collect();
        let ag = agreement(&refs, &["x".to_string()], 10);
        assert!(
            ag.alpha["x"]
                .reason
                .as_deref()
                .unwrap()
                .contains("nobody named it")
        );
    }

    #[test]
    fn bootstrap_interval_brackets_the_value_and_is_reproducible() {
        let mut us = vec![];
        for i in 0..60 {
            let b: &[&str] = if i % 5 == 0 { &[] } else { &["x"] };
            let a: &[&str] = if i % 2 == 0 { &["x"] } else { &[] };
            us.push(unit(&[("a", a), ("b", if i % 2 == 0 { b } else { &[] })]));
        }
        let refs: Vec<&Unit> = us.iter().collect();
        let c = ["x".to_string()];
        let ag = agreement(&refs, &c, BOOTSTRAP);
        let e = &ag.alpha["x"];
        assert!(e.low.unwrap() <= e.value.unwrap() && e.value.unwrap() <= e.high.unwrap());
        assert!(e.high.unwrap() - e.low.unwrap() > 0.01, "{e:?}");
        assert_eq!(agreement(&refs, &c, BOOTSTRAP), ag);
    }
}
