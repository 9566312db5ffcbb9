//! `compare --delta A B`: per category, A's A2 and A3 minus B's, with Newcombe's hybrid
//! score 95 % interval for a difference of two independent shares (the paper's Fig. 16:
//! few-shot minus zero-shot), as a table, JSON and a figure.

use super::labels::wilson;
use super::{Counts, RunReport};
use anyhow::{Result, anyhow, bail};
use plotters::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// One share's difference with its interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Diff {
    /// A's share.
    pub a: f64,
    /// B's share.
    pub b: f64,
    /// A − B.
    pub delta: f64,
    /// Newcombe's hybrid score 95 % interval of A − B.
    pub ci: [f64; 2],
}

/// Newcombe's hybrid score interval (his method 10) of k1/n1 − k2/n2: Wilson intervals of
/// each share combined; None when a side has no samples.
pub fn newcombe(k1: usize, n1: usize, k2: usize, n2: usize) -> Option<Diff> {
    let (p1, l1, u1) = wilson(k1, n1, Z95)?;
    let (p2, l2, u2) = wilson(k2, n2, Z95)?;
    let d = p1 - p2;
    let lo = d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
    let hi = d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
    Some(Diff {
        a: p1,
        b: p2,
        delta: d,
        ci: [lo.max(-1.0), hi.min(1.0)],
    })
}

/// One category's row.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DeltaRow {
    /// Category value (None: the whole run).
    pub category: Option<usize>,
    /// Samples in A and in B.
    pub n: [usize; 2],
    /// A2 compliance difference (None when a side answered nothing).
    pub a2: Option<Diff>,
    /// A3 accuracy difference.
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
    /// Per category (in A or B), then the whole runs.
    pub rows: Vec<DeltaRow>,
}

fn row(category: Option<usize>, a: &Counts, b: &Counts) -> DeltaRow {
    DeltaRow {
        category,
        n: [a.n, b.n],
        a2: newcombe(a.compliant, a.answered, b.compliant, b.answered),
        a3: newcombe(a.accurate, a.n, b.accurate, b.n),
    }
}

/// A − B per category of two reports grouped the same way.
pub fn delta(a: &RunReport, b: &RunReport) -> Result<Delta> {
    if a.by != b.by {
        bail!(
            "the runs are grouped by different fields ({} and {}); give --by",
            a.by,
            b.by
        );
    }
    let keys: BTreeSet<usize> = a
        .by_category
        .keys()
        .chain(b.by_category.keys())
        .copied()
        .collect();
    let empty = Counts::default();
    let mut rows: Vec<DeltaRow> = keys
        .into_iter()
        .map(|k| {
            row(
                Some(k),
                a.by_category.get(&k).unwrap_or(&empty),
                b.by_category.get(&k).unwrap_or(&empty),
            )
        })
        .collect();
    rows.push(row(None, &a.total, &b.total));
    Ok(Delta {
        runs: [a.run.clone(), b.run.clone()],
        models: [a.model.clone(), b.model.clone()],
        by: a.by.clone(),
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
        "A = {} ({})\nB = {} ({})\nA − B per {}, percentage points, 95% Newcombe interval\n\n",
        d.runs[0], d.models[0], d.runs[1], d.models[1], d.by
    );
    let mut rows: Vec<Vec<String>> = vec![
        [
            d.by.as_str(),
            "n A",
            "n B",
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

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the plot: {e:?}")
}

/// Fig. 16: A − B of A3 and A2 per category, a band for the interval, zero marked.
pub fn plot(d: &Delta, path: &Path) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let size = (1200, 480);
    let svg = match ext.as_deref() {
        Some("svg") => true,
        Some("png") => false,
        _ => bail!(
            "--plot {}: the file name must end in .svg or .png",
            path.display()
        ),
    };
    super::plot::ensure_font()?;
    crate::fswrite::by_name(path, |tmp| {
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
) -> Result<()> {
    root.fill(&WHITE).map_err(err)?;
    let cats: Vec<&DeltaRow> = d.rows.iter().filter(|r| r.category.is_some()).collect();
    let lo = cats.first().and_then(|r| r.category).unwrap_or(0) as f64 - 0.5;
    let hi = cats.last().and_then(|r| r.category).unwrap_or(1) as f64 + 0.5;
    let halves = root.split_evenly((1, 2));
    for (area, a3) in halves.iter().zip([true, false]) {
        let title = format!(
            "{} A − B (points), band: 95% Newcombe interval",
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
    fn newcombe_is_the_wilson_sides_combined() {
        // Equal shares: centred on zero, symmetric.
        let d = newcombe(5, 10, 5, 10).unwrap_or_else(|| unreachable!());
        assert_eq!(d.delta, 0.0);
        assert!((d.ci[0] + d.ci[1]).abs() < 1e-12);
        assert!(newcombe(1, 0, 1, 2).is_none());
    }

    #[test]
    fn newcombe_equals_statsmodels() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/data/delta/newcombe.json"))
                .unwrap_or_default();
        let cases = v["cases"].as_array().cloned().unwrap_or_default();
        assert_eq!(cases.len(), 9);
        for c in cases {
            let g = |k: &str| c[k].as_u64().unwrap_or(u64::MAX) as usize;
            let d = newcombe(g("k1"), g("n1"), g("k2"), g("n2")).unwrap_or_else(|| unreachable!());
            let (lo, hi) = (c["low"].as_f64(), c["high"].as_f64());
            assert!(
                (Some(d.ci[0]).zip(lo)).is_some_and(|(a, b)| (a - b).abs() < 1e-12),
                "{c}: {d:?}"
            );
            assert!(
                (Some(d.ci[1]).zip(hi)).is_some_and(|(a, b)| (a - b).abs() < 1e-12),
                "{c}: {d:?}"
            );
        }
    }
}
