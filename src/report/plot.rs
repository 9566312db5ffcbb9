//! `report --plot`: the paper's figures (A3 and A2 against complexity, one line per run,
//! a band for the spread across batches) and a failure-kind chart per run, as SVG or PNG.

use super::RunReport;
use crate::analysis::kinds::FailureKind;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

/// At most this many per-run failure-kind panels (the figure stays readable).
pub(crate) const MAX_KIND_PANELS: usize = 12;

const TOP: u32 = 440;
const PANEL: u32 = 320;
const WIDTH: u32 = 1200;

/// Why a figure was not drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw, or a file name that is not `.svg` or `.png`.
    #[error("{0}")]
    Refused(String),
    /// The font could not be registered.
    #[error("{0}")]
    Font(String),
    /// The drawing library failed.
    #[error("drawing the plot: {0}")]
    Draw(String),
    /// Writing the file.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Results of drawing.
type Result<T, E = PlotError> = std::result::Result<T, E>;

/// A drawing library error as a [`PlotError`].
pub(crate) fn err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError::Draw(format!("{e:?}"))
}

/// Whether `path` names an SVG (else a PNG); any other extension is refused.
pub(crate) fn svg_or_png(path: &Path) -> Result<bool> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("svg") => Ok(true),
        Some("png") => Ok(false),
        _ => Err(PlotError::Refused(format!(
            "--plot {}: the file name must end in .svg or .png",
            path.display()
        ))),
    }
}

/// Colour of the i-th run (a qualitative palette readable on white).
pub(crate) fn run_color(i: usize) -> RGBColor {
    const C: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(255, 127, 14),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    C[i % C.len()]
}

fn kind_color(k: FailureKind) -> RGBColor {
    let i = FailureKind::ALL.iter().position(|x| *x == k).unwrap_or(0);
    // One colour per kind, in `FailureKind::ALL` order (a new kind must add one), none
    // of them a run's colour: a kind panel must not read as one of the runs above it.
    const C: [RGBColor; FailureKind::ALL.len()] = [
        RGBColor(99, 99, 99),
        RGBColor(189, 189, 189),
        RGBColor(140, 109, 49),
        RGBColor(231, 186, 82),
        RGBColor(0, 0, 0),
        RGBColor(206, 219, 156),
        RGBColor(173, 73, 74),
        RGBColor(57, 59, 121),
        RGBColor(156, 158, 222),
        RGBColor(123, 65, 115),
        RGBColor(214, 97, 107),
        RGBColor(99, 121, 57),
        RGBColor(181, 207, 107),
        RGBColor(132, 60, 57),
        RGBColor(206, 109, 189),
        RGBColor(222, 158, 214),
        RGBColor(82, 84, 163),
        RGBColor(107, 110, 207),
        RGBColor(189, 158, 57),
    ];
    C[i % C.len()]
}

/// Draws the figures for `reports` to `path` (`.svg` or `.png`).
pub fn plot(reports: &[RunReport], path: &Path) -> Result<()> {
    if reports.is_empty() {
        return Err(PlotError::Refused("--plot: no runs to draw".into()));
    }
    let panels = reports
        .iter()
        .filter(|r| !r.failure_kinds.is_empty())
        .take(MAX_KIND_PANELS)
        .count();
    let height = legend_height(reports.len(), 2)
        + TOP
        + if panels > 0 {
            legend_height(FailureKind::ALL.len(), 6)
        } else {
            0
        }
        + (panels.div_ceil(2) as u32) * PANEL;
    let svg = svg_or_png(path)?;
    ensure_font()?;
    // Drawn into a temporary file: a FIFO nobody reads is refused at once, a link is
    // never written through.
    crate::base::fswrite::by_name(path, |tmp| {
        if svg {
            let root = SVGBackend::new(tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, reports)?;
            root.present().map_err(err)
        } else {
            let root = BitMapBackend::new(tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, reports)?;
            root.present().map_err(err)
        }
    })
}

/// DejaVu Sans (Bitstream Vera licence, `themes/fonts/`): text is laid out with it for
/// both formats, so figures look the same on every machine and need no system fonts.
static BUNDLED_FONT: &[u8] = include_bytes!("../../themes/fonts/DejaVuSans.ttf");

/// Registers the font text is measured and drawn with: `$AUTOEVAL_FONT` if it names a
/// readable TrueType file, else the bundled one.
pub(crate) fn ensure_font() -> Result<()> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let r = DONE.get_or_init(|| {
        if let Ok(p) = std::env::var("AUTOEVAL_FONT") {
            let small = std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.len() <= 64 << 20);
            let bytes = std::fs::read(&p).ok().filter(|_| small);
            match bytes {
                Some(b) => {
                    // Registered fonts live for the whole process; one font, read once.
                    let b: &'static [u8] = Box::leak(b.into_boxed_slice());
                    if plotters::style::register_font("sans-serif", FontStyle::Normal, b).is_ok() {
                        return Ok(());
                    }
                    return Err(format!("AUTOEVAL_FONT={p}: not a TrueType font"));
                }
                None => return Err(format!("AUTOEVAL_FONT={p}: not a readable file")),
            }
        }
        plotters::style::register_font("sans-serif", FontStyle::Normal, BUNDLED_FONT)
            .map_err(|_| "the bundled font did not load".to_string())
    });
    r.clone().map_err(PlotError::Font)
}

fn x_range(reports: &[RunReport]) -> (f64, f64) {
    let keys: BTreeSet<usize> = reports
        .iter()
        .flat_map(|r| r.by_category.keys().copied())
        .collect();
    let lo = keys.first().copied().unwrap_or(0) as f64;
    let hi = keys.last().copied().unwrap_or(1) as f64;
    (lo - 0.5, hi.max(lo + 1.0) + 0.5)
}

/// Where run `i` of `n` draws its interval bars, left or right of the bucket: side by
/// side within a third of a bucket, so no two runs' bars overlap.
fn dodge(i: usize, n: usize) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let step = (0.6 / n as f64).min(0.15);
    (i as f64 - (n - 1) as f64 / 2.0) * step
}

fn axis_label(reports: &[RunReport]) -> String {
    let bys: BTreeSet<&str> = reports.iter().map(|r| r.by.as_str()).collect();
    match bys.len() {
        1 => bys.into_iter().next().unwrap_or("operators").to_string(),
        _ => "operators (logic) / depth (regex)".into(),
    }
}

const LEGEND_ROW: u32 = 22;

fn legend_height(items: usize, per_row: usize) -> u32 {
    (items.div_ceil(per_row) as u32) * LEGEND_ROW + 14
}

/// A legend strip of its own, so no legend ever covers data.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[(String, RGBColor)],
    per_row: usize,
    line: bool,
) -> Result<()> {
    let (w, _) = area.dim_in_pixel();
    let col = (w as i32 - 40) / per_row as i32;
    for (i, (text, color)) in items.iter().enumerate() {
        let x = 30 + (i % per_row) as i32 * col;
        let y = 16 + (i / per_row) as i32 * LEGEND_ROW as i32;
        if line {
            area.draw(&PathElement::new(
                vec![(x, y), (x + 22, y)],
                color.stroke_width(3),
            ))
            .map_err(err)?;
        } else {
            area.draw(&Rectangle::new(
                [(x + 4, y - 6), (x + 16, y + 6)],
                color.filled(),
            ))
            .map_err(err)?;
        }
        area.draw(&Text::new(
            text.clone(),
            (x + 28, y - 7),
            ("sans-serif", 13).into_font(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Draws the figure: the runs' legend, the A3 and A2 charts, the failure-kind panels.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, reports: &[RunReport]) -> Result<()> {
    root.fill(&WHITE).map_err(err)?;
    let (strip, rest) = root.split_vertically(legend_height(reports.len(), 2));
    let runs: Vec<(String, RGBColor)> = reports
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (
                format!("{} ({}, n={})", r.run, r.model, r.total.n),
                run_color(i),
            )
        })
        .collect();
    legend(&strip, &runs, 2, true)?;
    let (top, bottom) = rest.split_vertically(TOP);
    let halves = top.split_evenly((1, 2));
    let (x0, x1) = x_range(reports);
    let xlab = axis_label(reports);
    for (area, a3) in halves.iter().zip([true, false]) {
        metric_chart(area, reports, a3, (x0, x1), &xlab)?;
    }
    kind_panels(&bottom, reports)
}

/// One of the top charts: A3 (`a3`) or A2 against the category, a line per run with
/// each bucket's interval bars (and the batches' spread for A3).
fn metric_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    reports: &[RunReport],
    a3: bool,
    (x0, x1): (f64, f64),
    xlab: &str,
) -> Result<()> {
    let title = if a3 {
        "A3 accuracy (%), bars: Wilson 95% CI"
    } else {
        "A2 syntactic compliance (%), bars: Wilson 95% CI"
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, 0f64..105f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(xlab)
        .y_desc("%")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    for (i, r) in reports.iter().enumerate() {
        let color = run_color(i);
        // Each bucket's Wilson 95 % interval (buckets hold few samples) as a bar
        // beside the other runs' at that bucket: filled bands of several runs piled
        // up into one grey block.
        let dx = dodge(i, reports.len());
        let bars = r.intervals.by_category.iter().filter_map(|(k, c)| {
            let [lo, hi] = if a3 { c.a3 } else { c.a2 }?;
            let x = *k as f64 + dx;
            Some(PathElement::new(
                vec![(x, 100.0 * lo), (x, 100.0 * hi)],
                color.mix(0.6).stroke_width(2),
            ))
        });
        chart.draw_series(bars).map_err(err)?;
        // Several batches: their lowest and highest A3 per bucket as thin lines.
        if a3 && !r.spread.is_empty() {
            for pick in [0, 1] {
                let line: Vec<(f64, f64)> = r
                    .spread
                    .iter()
                    .map(|(k, (lo, hi))| (*k as f64, 100.0 * if pick == 0 { *lo } else { *hi }))
                    .collect();
                chart
                    .draw_series(LineSeries::new(line, color.mix(0.5).stroke_width(1)))
                    .map_err(err)?;
            }
        }
        let pts: Vec<(f64, f64)> = r
            .by_category
            .iter()
            .filter_map(|(k, c)| {
                let v = if a3 { c.accuracy() } else { c.compliance() };
                v.map(|v| (*k as f64, 100.0 * v))
            })
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// The failure-kind legend and one panel per run that has failure kinds (at most
/// [`MAX_KIND_PANELS`]).
fn kind_panels<DB: DrawingBackend>(
    bottom: &DrawingArea<DB, Shift>,
    reports: &[RunReport],
) -> Result<()> {
    let with_kinds: Vec<&RunReport> = reports
        .iter()
        .filter(|r| !r.failure_kinds.is_empty())
        .take(MAX_KIND_PANELS)
        .collect();
    if with_kinds.is_empty() {
        return Ok(());
    }
    let used: Vec<(String, RGBColor)> = FailureKind::ALL
        .into_iter()
        .filter(|k| {
            with_kinds
                .iter()
                .any(|r| r.failure_kinds.contains_key(k.id()))
        })
        .map(|k| (k.name().to_string(), kind_color(k)))
        .collect();
    let (kstrip, panels) = bottom.split_vertically(legend_height(FailureKind::ALL.len(), 6));
    legend(&kstrip, &used, 6, false)?;
    let rows = with_kinds.len().div_ceil(2);
    let cells = panels.split_evenly((rows, 2));
    for (area, r) in cells.iter().zip(with_kinds) {
        kind_panel(area, r)?;
    }
    Ok(())
}

/// Stacked bars: automatic failure kinds found per category value (a failing sample
/// can show several, so a bar can exceed the number of samples).
fn kind_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &RunReport) -> Result<()> {
    let kinds: Vec<FailureKind> = FailureKind::ALL
        .into_iter()
        .filter(|k| r.failure_kinds.contains_key(k.id()))
        .collect();
    let keys: BTreeSet<usize> = r
        .by_category
        .keys()
        .copied()
        .chain(r.failure_kinds.values().flat_map(|m| m.keys().copied()))
        .collect();
    let lo = keys.first().copied().unwrap_or(0) as f64 - 0.5;
    let hi = keys.last().copied().unwrap_or(1) as f64 + 0.5;
    let mut top = 1usize;
    for k in &keys {
        let s: usize = r.failure_kinds.values().filter_map(|m| m.get(k)).sum();
        top = top.max(s);
    }
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("failure kinds: {} ({})", r.run, r.model),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(40)
        .build_cartesian_2d(lo..hi, 0f64..(top as f64 * 1.1 + 0.5))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(r.by.as_str())
        .y_desc("kinds found (a failing sample can show several)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let mut base: std::collections::BTreeMap<usize, f64> = std::collections::BTreeMap::new();
    for kind in kinds {
        let color = kind_color(kind);
        let Some(m) = r.failure_kinds.get(kind.id()) else {
            continue;
        };
        let bars: Vec<Rectangle<(f64, f64)>> = m
            .iter()
            .map(|(&k, &n)| {
                let y0 = *base.get(&k).unwrap_or(&0.0);
                base.insert(k, y0 + n as f64);
                let x = k as f64;
                Rectangle::new([(x - 0.4, y0), (x + 0.4, y0 + n as f64)], color.filled())
            })
            .collect();
        chart.draw_series(bars).map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_kinds_never_take_a_run_colour_and_differ_from_each_other() {
        let runs: Vec<RGBColor> = (0..10).map(run_color).collect();
        let kinds: Vec<RGBColor> = FailureKind::ALL.into_iter().map(kind_color).collect();
        for (k, c) in FailureKind::ALL.iter().zip(&kinds) {
            assert!(!runs.contains(c), "{k:?} has a run's colour {c:?}");
        }
        for (i, c) in kinds.iter().enumerate() {
            assert!(!kinds[i + 1..].contains(c), "{c:?} twice");
        }
    }

    #[test]
    fn interval_bars_of_different_runs_never_share_an_x() {
        for n in 1..=12 {
            let xs: Vec<f64> = (0..n).map(|i| dodge(i, n)).collect();
            for w in xs.windows(2) {
                assert!(w[1] - w[0] > 0.04, "{n}: {xs:?}");
            }
            assert!(xs.iter().all(|x| x.abs() <= 0.31), "{n}: {xs:?}");
        }
    }
}
