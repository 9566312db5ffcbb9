//! `correlate --plot`: one figure per predictor X: the paper's Fig. 3 (a scatter per
//! benchmark Y, one point per model, the least-squares line, Pearson's r and p in the
//! corner, the ∀uto∃∨∧L subset named under it; synthetic models drawn as
//! triangles) and Fig. 4 (predictive power of X for each Y, horizontal bars with their
//! bootstrap intervals, so the names stay readable), as SVG or PNG.

use super::compare::format_p;
use super::correlate::{Pair, Scores};
use super::plot::{PlotError, ensure_font, err, run_color};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// At most this many scatter panels in one figure (the table has them all).
pub(crate) const MAX_PANELS: usize = 12;
/// At most this many figures (predictors) per call.
pub(crate) const MAX_FIGURES: usize = 24;
/// At most this many models named in a figure's legend.
const MAX_LEGEND: usize = 30;
const WIDTH: u32 = 1200;
const PANEL: u32 = 340;
const BAR_ROW: u32 = 30;
const LEGEND_ROW: u32 = 22;
const COLS: usize = 3;
/// No figure is taller than this (legend, 4 rows of panels, 12 bars).
pub(crate) const MAX_HEIGHT: u32 =
    (MAX_LEGEND as u32).div_ceil(3) * LEGEND_ROW + 40 + 4 * PANEL + 120 + 12 * BAR_ROW;

/// Results of drawing.
type Result<T, E = PlotError> = std::result::Result<T, E>;

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

/// The file of predictor `x` when several are drawn: `fig.svg` → `fig-autoeval-pl.svg`
/// (anything but letters, digits, `-`, `_` and `.` in the name becomes `_`).
fn figure_path(path: &Path, x: &str, several: bool) -> PathBuf {
    if !several {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = x
        .chars()
        .take(80)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    path.with_file_name(format!("{stem}-{name}.{ext}"))
}

/// Draws one figure per predictor of `pairs` (`path` itself when there is one predictor,
/// else `STEM-<predictor>.EXT` beside it); returns the files written.
pub fn plot(pairs: &[Pair], scores: &Scores, path: &Path) -> Result<Vec<PathBuf>> {
    let svg = super::plot::svg_or_png(path)?;
    let mut xs: Vec<&str> = Vec::new();
    for p in pairs.iter().filter(|p| p.n > 0) {
        if !xs.contains(&p.x.as_str()) {
            xs.push(&p.x);
        }
    }
    if xs.is_empty() {
        return Err(PlotError::Refused(
            "--plot: no pair of benchmarks shares a model; nothing to draw".into(),
        ));
    }
    ensure_font()?;
    let several = xs.len() > 1;
    let mut written = Vec::new();
    for x in xs.iter().take(MAX_FIGURES) {
        let shown: Vec<&Pair> = pairs
            .iter()
            .filter(|p| p.n > 0 && p.x == *x)
            .take(MAX_PANELS)
            .collect();
        let file = figure_path(path, x, several);
        figure(&shown, scores, &file, svg)?;
        written.push(file);
    }
    Ok(written)
}

fn figure(shown: &[&Pair], scores: &Scores, path: &Path, svg: bool) -> Result<()> {
    let mut models: Vec<String> = shown
        .iter()
        .flat_map(|p| p.models.iter().map(|m| m.model.clone()))
        .collect();
    models.sort();
    models.dedup();
    let legend_n = models.len().min(MAX_LEGEND) + usize::from(models.len() > MAX_LEGEND);
    let legend_h = (legend_n.div_ceil(3) as u32) * LEGEND_ROW + 40;
    let rows = shown.len().div_ceil(COLS) as u32;
    let bars_h = 120 + BAR_ROW * shown.len() as u32;
    let height = (legend_h + rows * PANEL + bars_h).min(MAX_HEIGHT);
    // Drawn into a temporary file: a FIFO nobody reads is refused at once, a link is
    // never written through.
    crate::base::fswrite::by_name(path, |tmp| {
        if svg {
            let root = SVGBackend::new(tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, shown, &models, scores, legend_h)?;
            root.present().map_err(err)
        } else {
            let root = BitMapBackend::new(tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, shown, &models, scores, legend_h)?;
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
    let x = pairs.first().map_or("", |p| p.x.as_str());
    strip
        .draw(&Text::new(
            format!(
                "predictor {}: one point per model; line: least squares; triangles: synthetic models",
                short(x, 60)
            ),
            (30, 8),
            ("sans-serif", 15).into_font(),
        ))
        .map_err(err)?;
    for (i, m) in models.iter().take(MAX_LEGEND).enumerate() {
        let x = 30 + (i % 3) as i32 * col;
        let y = 40 + (i / 3) as i32 * LEGEND_ROW as i32;
        let syn = scores.is_synthetic(m);
        let c = run_color(i);
        if syn {
            strip
                .draw(&TriangleMarker::new((x + 10, y), 7, c.stroke_width(2)))
                .map_err(err)?;
        } else {
            strip
                .draw(&Circle::new((x + 10, y), 5, c.filled()))
                .map_err(err)?;
        }
        let name = if syn {
            format!("{} (synthetic)", short(m, 36))
        } else {
            short(m, 48)
        };
        strip
            .draw(&Text::new(
                name,
                (x + 22, y - 7),
                ("sans-serif", 13).into_font(),
            ))
            .map_err(err)?;
    }
    if models.len() > MAX_LEGEND {
        let i = MAX_LEGEND;
        strip
            .draw(&Text::new(
                format!("and {} more models", models.len() - MAX_LEGEND),
                (
                    30 + (i % 3) as i32 * col + 22,
                    33 + (i / 3) as i32 * LEGEND_ROW as i32,
                ),
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

/// The least-squares line y = a + b·x through the points (None: fewer than two
/// distinct x).
pub(crate) fn least_squares(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= f64::EPSILON * n {
        return None;
    }
    let b = sxy / sxx;
    Some((my - b * mx, b))
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
    let pts: Vec<(f64, f64)> = p.models.iter().map(|m| (m.x, m.y)).collect();
    if let Some((a, b)) = least_squares(&pts) {
        // Clipped to the panel: sampled along x, points outside the y range dropped.
        let line: Vec<(f64, f64)> = (0..=40)
            .map(|i| x0 + (x1 - x0) * f64::from(i) / 40.0)
            .map(|x| (x, a + b * x))
            .filter(|&(_, y)| y >= y0 && y <= y1)
            .collect();
        chart
            .draw_series(LineSeries::new(line, BLACK.mix(0.55).stroke_width(1)))
            .map_err(err)?;
    }
    let color_of = |m: &str| run_color(models.iter().position(|x| x == m).unwrap_or(0));
    // Real models as circles, synthetic ones as triangles.
    let (syn, real): (Vec<_>, Vec<_>) =
        p.models.iter().partition(|m| scores.is_synthetic(&m.model));
    chart
        .draw_series(
            real.iter()
                .map(|m| Circle::new((m.x, m.y), 5, color_of(&m.model).filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(
            syn.iter()
                .map(|m| TriangleMarker::new((m.x, m.y), 7, color_of(&m.model).stroke_width(2))),
        )
        .map_err(err)?;
    // The paper's corner note: Pearson's r (the table's ρ is Spearman's) and its p-value.
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

/// Predictive power for each Y, one horizontal bar per benchmark (its name on the left,
/// never under another's).
fn power_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, pairs: &[&Pair]) -> Result<()> {
    let with: Vec<&&Pair> = pairs
        .iter()
        .filter(|p| p.predictive_power.value.is_some())
        .collect();
    let k = with.len().max(1) as f64;
    let names: Vec<String> = with.iter().map(|p| short(&p.y, 30)).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Predictive power P(y₁ > y₂ | x₁ > x₂), bars: bootstrap 95% CI over models",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(230)
        .build_cartesian_2d(0f64..1.05f64, -0.5f64..(k - 0.5))
        .map_err(err)?;
    chart
        .configure_mesh()
        .y_labels(with.len().max(1))
        .y_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                // Row 0 at the top.
                let r = (k - 1.0 - i) as usize;
                names.get(r).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_label_formatter(&|v| format!("{v:.1}"))
        .x_desc("predictive power")
        .light_line_style(WHITE.mix(0.0))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(err)?;
    for (i, p) in with.iter().enumerate() {
        let Some(v) = p.predictive_power.value else {
            continue;
        };
        let y = k - 1.0 - i as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, y - 0.3), (v, y + 0.3)],
                run_color(0).mix(0.8).filled(),
            )))
            .map_err(err)?;
        if let Some([lo, hi]) = p.predictive_power.ci {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(lo, y), (hi, y)],
                    BLACK.stroke_width(2),
                )))
                .map_err(err)?;
        }
    }
    // Chance: a predictor that knows nothing orders half the pairs right (without ties).
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.5, -0.5), (0.5, k - 0.5)],
            BLACK.mix(0.4).stroke_width(1),
        )))
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_fits_a_line_exactly_and_refuses_one_x() {
        let (a, b) =
            least_squares(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]).unwrap_or_else(|| unreachable!());
        assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12);
        assert!(least_squares(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
        assert!(least_squares(&[(1.0, 1.0)]).is_none());
    }

    #[test]
    fn several_predictors_get_a_file_each() {
        let p = Path::new("/tmp/fig.svg");
        assert_eq!(figure_path(p, "autoeval-pl", false), p);
        assert_eq!(
            figure_path(p, "autoeval-pl", true),
            Path::new("/tmp/fig-autoeval-pl.svg")
        );
        assert_eq!(
            figure_path(p, "a/b c", true),
            Path::new("/tmp/fig-a_b_c.svg")
        );
    }
}
