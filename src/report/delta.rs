//! `compare --delta A B`: per category, A's A2 and A3 minus B's, with Tango's score 95 %
//! interval for the difference of two paired shares (the runs answered the same φ₀, so
//! each sample of A is paired with B's of the same id; the paper's Fig. 16: few-shot
//! minus zero-shot), as a table, JSON and a figure.

use super::plot::{PlotError, err};
use super::{Counts, RunReport};
use plotters::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The interval `compare --delta` gives, as its JSON names it.
pub const INTERVAL: &str = "tango-paired-score";

/// One share's difference with its interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Diff {
    /// A's share over the pairs.
    pub a: f64,
    /// B's share over the pairs.
    pub b: f64,
    /// A − B.
    pub delta: f64,
    /// Tango's score 95 % interval of A − B for paired shares.
    pub ci: [f64; 2],
    /// Pairs that count: both samples right or wrong (A3), both answered (A2).
    pub pairs: usize,
    /// Pairs where only A passed.
    pub a_only: usize,
    /// Pairs where only B passed.
    pub b_only: usize,
}

/// A paired 2×2 table: how many pairs both runs, only A, only B or neither passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paired {
    /// Both passed.
    pub both: usize,
    /// Only A passed.
    pub a_only: usize,
    /// Only B passed.
    pub b_only: usize,
    /// Neither passed.
    pub neither: usize,
}

impl Paired {
    /// Counts one pair.
    pub fn add(&mut self, a: bool, b: bool) {
        match (a, b) {
            (true, true) => self.both += 1,
            (true, false) => self.a_only += 1,
            (false, true) => self.b_only += 1,
            (false, false) => self.neither += 1,
        }
    }

    /// Pairs counted.
    pub fn n(&self) -> usize {
        self.both + self.a_only + self.b_only + self.neither
    }
}

/// Tango's score statistic for H₀: p_A − p_B = δ on paired data (Tango 1998, with the
/// restricted maximum-likelihood estimate of the discordant cell in closed form).
fn tango_score(b: f64, c: f64, n: f64, d: f64) -> f64 {
    let w = -b - c + (2.0 * n - b + c) * d;
    let disc = (w * w + 8.0 * n * c * d * (1.0 - d)).max(0.0);
    let q = (disc.sqrt() - w) / (4.0 * n);
    let var = n * (2.0 * q + d * (1.0 - d));
    let num = b - c - n * d;
    if var > 0.0 {
        num / var.sqrt()
    } else if num > 0.0 {
        f64::INFINITY
    } else if num < 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    }
}

/// Where the decreasing `f` crosses zero in `[lo, hi]` (f(lo) ≥ 0 ≥ f(hi)), by bisection.
fn root(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Tango's score 95 % interval of p_A − p_B for paired shares: the δ whose score
/// statistic stays within ±1.96 (None without pairs).
pub fn tango(t: &Paired) -> Option<Diff> {
    let n = t.n();
    if n == 0 {
        return None;
    }
    let (b, c, nf) = (t.a_only as f64, t.b_only as f64, n as f64);
    let d = (b - c) / nf;
    let s = |x: f64| tango_score(b, c, nf, x);
    let lo = if d <= -1.0 {
        -1.0
    } else {
        root(|x| s(x) - Z95, -1.0, d)
    };
    let hi = if d >= 1.0 {
        1.0
    } else {
        root(|x| s(x) + Z95, d, 1.0)
    };
    Some(Diff {
        a: (t.both + t.a_only) as f64 / nf,
        b: (t.both + t.b_only) as f64 / nf,
        delta: d,
        ci: [lo.max(-1.0), hi.min(1.0)],
        pairs: n,
        a_only: t.a_only,
        b_only: t.b_only,
    })
}

/// One category's row.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DeltaRow {
    /// Category value (None: the whole run).
    pub category: Option<usize>,
    /// Samples in A and in B.
    pub n: [usize; 2],
    /// A2 compliance difference over the pairs both runs answered (None: no such pair).
    pub a2: Option<Diff>,
    /// A3 accuracy difference over the pairs (None: no pair).
    pub a3: Option<Diff>,
}

/// The difference of two runs per category.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Delta {
    /// Run A (the minuend) and B.
    pub runs: [String; 2],
    /// Their models.
    pub models: [String; 2],
    /// What the categories are.
    pub by: String,
    /// The interval: [`INTERVAL`].
    pub interval: &'static str,
    /// Samples of A with no sample of the same id in B, and of B without A's.
    pub unpaired: [usize; 2],
    /// Per category (in A or B), then the whole runs.
    pub rows: Vec<DeltaRow>,
}

/// One sample as a run counts it: its category and its one-sample counts.
pub type Outcomes = BTreeMap<String, (Option<usize>, Counts)>;

/// The A2 and A3 tables of one category's pairs.
#[derive(Default)]
struct Tables {
    a2: Paired,
    a3: Paired,
}

impl Tables {
    fn add(&mut self, a: &Counts, b: &Counts) {
        if a.answered > 0 && b.answered > 0 {
            self.a2.add(a.compliant > 0, b.compliant > 0);
        }
        if a.scored() > 0 && b.scored() > 0 {
            self.a3.add(a.accurate > 0, b.accurate > 0);
        }
    }
}

/// Two runs grouped by different category fields: their differences per category mean
/// nothing.
#[derive(Debug, thiserror::Error)]
#[error("the runs are grouped by different fields ({0} and {1}); give --by")]
pub struct GroupedDifferently(String, String);

/// A − B per category of two reports grouped the same way, the samples paired by id
/// (`oa`, `ob`: each run's samples as it counts them, by the same category field).
pub fn delta(
    a: &RunReport,
    b: &RunReport,
    oa: &Outcomes,
    ob: &Outcomes,
) -> Result<Delta, GroupedDifferently> {
    if a.by != b.by {
        return Err(GroupedDifferently(a.by.clone(), b.by.clone()));
    }
    let mut per: BTreeMap<usize, Tables> = BTreeMap::new();
    let mut all = Tables::default();
    let mut unpaired = [0, 0];
    for (id, (cat, ca)) in oa {
        let Some((_, cb)) = ob.get(id) else {
            unpaired[0] += 1;
            continue;
        };
        all.add(ca, cb);
        if let Some(k) = cat {
            per.entry(*k).or_default().add(ca, cb);
        }
    }
    unpaired[1] = ob.keys().filter(|id| !oa.contains_key(*id)).count();
    let keys: BTreeSet<usize> = a
        .by_category
        .keys()
        .chain(b.by_category.keys())
        .copied()
        .collect();
    let n = |r: &RunReport, k: usize| r.by_category.get(&k).map_or(0, |c| c.n);
    let row = |category: Option<usize>, n: [usize; 2], t: &Tables| DeltaRow {
        category,
        n,
        a2: tango(&t.a2),
        a3: tango(&t.a3),
    };
    let empty = Tables::default();
    let mut rows: Vec<DeltaRow> = keys
        .into_iter()
        .map(|k| row(Some(k), [n(a, k), n(b, k)], per.get(&k).unwrap_or(&empty)))
        .collect();
    rows.push(row(None, [a.total.n, b.total.n], &all));
    Ok(Delta {
        runs: [a.run.clone(), b.run.clone()],
        models: [a.model.clone(), b.model.clone()],
        by: a.by.clone(),
        interval: INTERVAL,
        unpaired,
        rows,
    })
}

fn pct(v: Option<Diff>) -> [String; 3] {
    match v {
        Some(d) => [
            format!("{:.1}", 100.0 * d.a),
            format!("{:.1}", 100.0 * d.b),
            format!(
                "{:+.1} [{:+.1}, {:+.1}]",
                100.0 * d.delta,
                100.0 * d.ci[0],
                100.0 * d.ci[1]
            ),
        ],
        None => ["–".into(), "–".into(), "–".into()],
    }
}

/// The table: per category A's and B's A2 and A3 (%) and A − B with its interval.
pub fn render(d: &Delta) -> String {
    let mut out = format!(
        "A = {} ({})\nB = {} ({})\nA − B per {}, percentage points, 95% Tango score interval for paired shares\n\
         (samples paired by id; A3 over the pairs, A2 over the pairs both runs answered)\n",
        d.runs[0], d.models[0], d.runs[1], d.models[1], d.by
    );
    if d.unpaired != [0, 0] {
        out.push_str(&format!(
            "left out, no sample of the same id in the other run: {} of A, {} of B\n",
            d.unpaired[0], d.unpaired[1]
        ));
    }
    out.push('\n');
    let mut rows: Vec<Vec<String>> = vec![
        [
            d.by.as_str(),
            "n A",
            "n B",
            "pairs",
            "A2 A",
            "A2 B",
            "A2 A−B",
            "A3 A",
            "A3 B",
            "A3 A−B",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect(),
    ];
    for r in &d.rows {
        let mut v = vec![
            r.category.map_or_else(|| "all".into(), |c| c.to_string()),
            r.n[0].to_string(),
            r.n[1].to_string(),
            r.a3.map_or(0, |d| d.pairs).to_string(),
        ];
        v.extend(pct(r.a2));
        v.extend(pct(r.a3));
        rows.push(v);
    }
    let width: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&width)
            .map(|(s, w)| format!("{}{s}", " ".repeat(w - s.chars().count())))
            .collect();
        out.push_str(&line.join("  "));
        out.push('\n');
    }
    out
}

/// Fig. 16: A − B of A3 and A2 per category, a band for the interval, zero marked.
pub fn plot(d: &Delta, path: &Path) -> Result<(), PlotError> {
    let size = (1200, 480);
    let svg = super::plot::svg_or_png(path)?;
    super::plot::ensure_font()?;
    crate::base::fswrite::by_name(path, |tmp| {
        if svg {
            let root = SVGBackend::new(tmp, size).into_drawing_area();
            draw(&root, d)?;
            root.present().map_err(err)
        } else {
            let root = BitMapBackend::new(tmp, size).into_drawing_area();
            draw(&root, d)?;
            root.present().map_err(err)
        }
    })
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    d: &Delta,
) -> Result<(), PlotError> {
    root.fill(&WHITE).map_err(err)?;
    let cats: Vec<&DeltaRow> = d.rows.iter().filter(|r| r.category.is_some()).collect();
    let lo = cats.first().and_then(|r| r.category).unwrap_or(0) as f64 - 0.5;
    let hi = cats.last().and_then(|r| r.category).unwrap_or(1) as f64 + 0.5;
    let halves = root.split_evenly((1, 2));
    for (area, a3) in halves.iter().zip([true, false]) {
        let title = format!(
            "{} A − B (points), band: 95% Tango paired interval",
            if a3 { "A3 accuracy" } else { "A2 compliance" }
        );
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(56)
            .y_label_area_size(48)
            .build_cartesian_2d(lo..hi, -100f64..100f64)
            .map_err(err)?;
        let desc = format!("{}   (A: {}, B: {})", d.by, d.runs[0], d.runs[1]);
        chart
            .configure_mesh()
            .x_desc(desc.chars().take(90).collect::<String>())
            .y_desc("A − B, points")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        let pts: Vec<(f64, Diff)> = cats
            .iter()
            .filter_map(|r| Some((r.category? as f64, if a3 { r.a3 } else { r.a2 }?)))
            .collect();
        let color = super::plot::run_color(usize::from(!a3));
        if pts.len() > 1 {
            let upper = pts.iter().map(|(k, v)| (*k, 100.0 * v.ci[1]));
            let lower = pts.iter().rev().map(|(k, v)| (*k, 100.0 * v.ci[0]));
            chart
                .draw_series(std::iter::once(Polygon::new(
                    upper.chain(lower).collect::<Vec<_>>(),
                    color.mix(0.15),
                )))
                .map_err(err)?;
        }
        let line: Vec<(f64, f64)> = pts.iter().map(|(k, v)| (*k, 100.0 * v.delta)).collect();
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(lo, 0.0), (hi, 0.0)],
                BLACK.mix(0.5).stroke_width(1),
            )))
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tango_is_symmetric_and_empty_without_pairs() {
        let t = Paired {
            both: 5,
            a_only: 3,
            b_only: 3,
            neither: 5,
        };
        let d = tango(&t).unwrap_or_else(|| unreachable!());
        assert_eq!(d.delta, 0.0);
        assert!((d.ci[0] + d.ci[1]).abs() < 1e-12);
        assert!(tango(&Paired::default()).is_none());
    }

    #[test]
    fn tango_equals_the_numeric_reference() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/data/delta/tango.json"))
                .unwrap_or_default();
        let cases = v["cases"].as_array().cloned().unwrap_or_default();
        assert_eq!(cases.len(), 12);
        for c in cases {
            let g = |k: &str| c[k].as_u64().unwrap_or(u64::MAX) as usize;
            let t = Paired {
                both: g("both"),
                a_only: g("a_only"),
                b_only: g("b_only"),
                neither: g("neither"),
            };
            let d = tango(&t).unwrap_or_else(|| unreachable!());
            for (got, want) in d.ci.iter().zip([c["low"].as_f64(), c["high"].as_f64()]) {
                assert!(want.is_some_and(|w| (got - w).abs() < 1e-7), "{c}: {d:?}");
            }
        }
    }
}
