//! `metrics perturb --plot FILE.svg`: Table 2 as a hand-written SVG heat map, one cell
//! per table cell (perturbation × metric, for all records and for each verdict group).

use crate::analysis::sensitivity::{METRICS, NM, Row, VERDICT_GROUPS};
use std::fmt::Write as _;
use std::path::Path;

/// XML text escape (names come from the user's file path).
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if c.is_control() => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// White (0) to deep blue (1); grey for no value.
fn colour(v: Option<f64>) -> String {
    match v {
        Some(v) => {
            let t = v.clamp(0.0, 1.0);
            let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
            format!(
                "#{:02x}{:02x}{:02x}",
                mix(255.0, 8.0),
                mix(255.0, 69.0),
                mix(255.0, 148.0)
            )
        }
        None => "#d0d0d0".into(),
    }
}

const CELL_W: usize = 46;
const CELL_H: usize = 24;
const LEFT: usize = 100;
const TOP: usize = 70;
const GAP: usize = 18;

/// The heat map as SVG text.
pub(crate) fn svg(title: &str, rows: &[Row]) -> String {
    let panels: Vec<String> = std::iter::once("all records".to_string())
        .chain(VERDICT_GROUPS.iter().map(|g| format!("verifier: {g}")))
        .collect();
    let panel_w = METRICS.len() * CELL_W;
    let width = LEFT + panels.len() * (panel_w + GAP) + 10;
    let height = TOP + rows.len() * CELL_H + 30;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">
<title>{}</title>
<text x="8" y="18" font-size="13">{}</text>"#,
        esc(&format!("Table 2 heat map: {title}")),
        esc(&format!(
            "Mean metric score, perturbed vs original — {title}"
        ))
    );
    for (p, panel) in panels.iter().enumerate() {
        let x0 = LEFT + p * (panel_w + GAP);
        let _ = writeln!(
            o,
            r#"<text x="{x0}" y="{}" font-weight="bold">{}</text>"#,
            TOP - 28,
            esc(panel)
        );
        for (m, metric) in METRICS.iter().enumerate() {
            let _ = writeln!(
                o,
                r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                x0 + m * CELL_W + CELL_W / 2,
                TOP - 8,
                esc(metric.1)
            );
        }
        for (r, row) in rows.iter().enumerate() {
            let (means, n) = if p == 0 {
                (row.means, row.n)
            } else {
                row.by_verdict
                    .get(p - 1)
                    .map_or(([None; NM], 0), |g| (g.means, g.n))
            };
            for (m, v) in means.iter().enumerate() {
                let (x, y) = (x0 + m * CELL_W, TOP + r * CELL_H);
                let label = v.map_or_else(|| "–".to_string(), |v| format!("{v:.2}"));
                let ink = if v.is_some_and(|v| v > 0.55) {
                    "#ffffff"
                } else {
                    "#000000"
                };
                let _ = writeln!(
                    o,
                    r##"<g class="cell"><rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{}" stroke="#ffffff"><title>{}</title></rect><text x="{}" y="{}" text-anchor="middle" fill="{ink}">{}</text></g>"##,
                    colour(*v),
                    esc(&format!(
                        "{} · {} · {panel}: {label} (n = {n})",
                        row.perturbation,
                        metric_name(m)
                    )),
                    x + CELL_W / 2,
                    y + CELL_H / 2 + 4,
                    esc(&label)
                );
            }
        }
    }
    for (r, row) in rows.iter().enumerate() {
        let _ = writeln!(
            o,
            r#"<text x="8" y="{}">{}</text>"#,
            TOP + r * CELL_H + CELL_H / 2 + 4,
            esc(row.perturbation)
        );
    }
    o.push_str("</svg>\n");
    o
}

fn metric_name(i: usize) -> &'static str {
    METRICS.get(i).map_or("", |m| m.0)
}

/// Writes the heat map to `path` (through a temporary file, so a failed write leaves
/// no half file).
pub(crate) fn write_svg(path: &Path, title: &str, rows: &[Row]) -> std::io::Result<()> {
    crate::base::fswrite::write(
        path,
        &path.with_extension("svg.tmp"),
        svg(title, rows).as_bytes(),
    )
}
