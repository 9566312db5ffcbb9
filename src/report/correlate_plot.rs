//! `correlate --plot`: the paper's Fig. 3 (a scatter per benchmark pair, one point per
//! model, Pearson r and p in the corner, the ∀uto∃∨∧L subset named under it) and Fig. 4
//! (predictive power bars with their bootstrap intervals), as SVG or PNG.

use super::compare::format_p;
use super::correlate::{Pair, Scores};
use super::plot::{ensure_font, run_color};
use anyhow::{Result, anyhow, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// At most this many scatter panels (the figure stays readable; the table has them all).
pub(crate) const MAX_PANELS: usize = 36;
const WIDTH: u32 = 1200;
const PANEL: u32 = 340;
const BARS: u32 = 420;
const LEGEND_ROW: u32 = 22;
const COLS: usize = 3;

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the plot: {e:?}")
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

/// Draws Fig. 3 and Fig. 4 for `pairs` to `path` (`.svg` or `.png`).
pub fn plot(pairs: &[Pair], scores: &Scores, path: &Path) -> Result<()> {
    let shown: Vec<&Pair> = pairs.iter().filter(|p| p.n > 0).take(MAX_PANELS).collect();
    if shown.is_empty() {
        bail!("--plot: no pair of benchmarks shares a model; nothing to draw");
    }
    let mut models: Vec<String> = shown
        .iter()
        .flat_map(|p| p.models.iter().map(|m| m.model.clone()))
        .collect();
    models.sort();
    models.dedup();
    let legend_h = (models.len().div_ceil(3) as u32) * LEGEND_ROW + 14;
    let rows = shown.len().div_ceil(COLS) as u32;
    let height = legend_h + rows * PANEL + BARS;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let svg = match ext.as_deref() {
        Some("svg") => true,
        Some("png") => false,
        _ => bail!(
            "--plot {}: the file name must end in .svg or .png",
            path.display()
        ),
    };
    ensure_font()?;
    // Drawn into a temporary file: a FIFO nobody reads is refused at once, a link is
    // never written through.
    crate::fswrite::by_name(path, |tmp| {
        if svg {
            let root = SVGBackend::new(tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, &shown, &models, scores, legend_h)?;
            root.present().map_err(err)
        } else {
            let root = BitMapBackend::new(tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, &shown, &models, scores, legend_h)?;
            root.present().map_err(err)
        }
    })
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    pairs: &[&Pair],
    models: &[String],
    scores: &Scores,
    legend_h: u32,
) -> Result<()> {
    root.fill(&WHITE).map_err(err)?;
    let (strip, rest) = root.split_vertically(legend_h);
    let (w, _) = strip.dim_in_pixel();
    let col = (w as i32 - 40) / 3;
    for (i, m) in models.iter().enumerate() {
        let x = 30 + (i % 3) as i32 * col;
        let y = 16 + (i / 3) as i32 * LEGEND_ROW as i32;
        strip
            .draw(&Circle::new((x + 10, y), 5, run_color(i).filled()))
            .map_err(err)?;
        strip
            .draw(&Text::new(
                short(m, 48),
                (x + 22, y - 7),
                ("sans-serif", 13).into_font(),
            ))
            .map_err(err)?;
    }
    let rows = pairs.len().div_ceil(COLS);
    let (grid, bars) = rest.split_vertically(rows as u32 * PANEL);
    let cells = grid.split_evenly((rows, COLS));
    for (area, p) in cells.iter().zip(pairs) {
        scatter(area, p, models, scores)?;
    }
    power_bars(&bars, pairs)
}

fn span(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let lo = v.clone().fold(f64::INFINITY, f64::min);
    let hi = v.fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.1).max(if hi.abs() > 2.0 { 1.0 } else { 0.02 });
    (lo - pad, hi + pad)
}

fn scatter<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Pair,
    models: &[String],
    scores: &Scores,
) -> Result<()> {
    let (x0, x1) = span(p.models.iter().map(|m| m.x));
    let (y0, y1) = span(p.models.iter().map(|m| m.y));
    let subset = scores
        .subsets
        .get(&p.x)
        .map_or_else(String::new, |s| format!(" ({s})"));
    let xdesc = short(&format!("{}{subset}", p.x), 70);
    let mut chart = ChartBuilder::on(area)
        .caption(short(&p.y, 40), ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(44)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(xdesc)
        .y_desc(short(&p.y, 30))
        .x_labels(5)
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v:.2}"))
        .y_label_formatter(&|v| format!("{v:.2}"))
        .light_line_style(WHITE.mix(0.0))
        .label_style(("sans-serif", 11))
        .axis_desc_style(("sans-serif", 12))
        .draw()
        .map_err(err)?;
    let color_of = |m: &str| run_color(models.iter().position(|x| x == m).unwrap_or(0));
    chart
        .draw_series(
            p.models
                .iter()
                .map(|m| Circle::new((m.x, m.y), 5, color_of(&m.model).filled())),
        )
        .map_err(err)?;
    // The paper's corner note: the correlation and its p-value.
    let note = match p.pearson {
        Some(r) => vec![
            format!("r = {:.2}", r.r),
            format!("p = {}", format_p(Some(r.p))),
            format!("n = {}", p.n),
        ],
        None => vec![format!("n = {}: no correlation", p.n)],
    };
    for (i, line) in note.iter().enumerate() {
        area.draw(&Text::new(
            line.clone(),
            (66, 34 + 15 * i as i32),
            ("sans-serif", 13).into_font(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

fn power_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, pairs: &[&Pair]) -> Result<()> {
    let with: Vec<&&Pair> = pairs
        .iter()
        .filter(|p| p.predictive_power.value.is_some())
        .collect();
    let k = with.len().max(1) as f64;
    let several_x = pairs.iter().any(|p| p.x != pairs[0].x);
    let names: Vec<String> = with
        .iter()
        .map(|p| {
            if several_x {
                format!("{}→{}", short(&p.x, 14), short(&p.y, 14))
            } else {
                short(&p.y, 24)
            }
        })
        .collect();
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Predictive power P(y₁ > y₂ | x₁ > x₂), bars: bootstrap 95% CI over models",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(48)
        .build_cartesian_2d(-0.5f64..(k - 0.5), 0f64..1.05f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(with.len().max(1))
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| format!("{v:.1}"))
        .y_desc("predictive power")
        .light_line_style(WHITE.mix(0.0))
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(err)?;
    for (i, p) in with.iter().enumerate() {
        let Some(v) = p.predictive_power.value else {
            continue;
        };
        let x = i as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x - 0.35, 0.0), (x + 0.35, v)],
                run_color(0).mix(0.8).filled(),
            )))
            .map_err(err)?;
        if let Some([lo, hi]) = p.predictive_power.ci {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, lo), (x, hi)],
                    BLACK.stroke_width(2),
                )))
                .map_err(err)?;
        }
    }
    // Chance: a predictor that knows nothing orders half the pairs right (without ties).
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(-0.5, 0.5), (k - 0.5, 0.5)],
            BLACK.mix(0.4).stroke_width(1),
        )))
        .map_err(err)?;
    Ok(())
}
