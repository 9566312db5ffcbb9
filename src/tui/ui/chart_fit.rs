//! The chart's fit row: a run's fitted A3 curve, its breaking point marked, the
//! columns inside the point's 95 % interval shaded, and the note the pick line adds.

use crate::tui::model::ChartFit;
use crate::tui::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// Marks the column holding the breaking point.
const POINT: char = '◆';

/// The fit row of one run: `label` then one glyph per column of `per` buckets.
pub(crate) fn row<'a>(
    label: String,
    fit: &ChartFit,
    columns: impl Iterator<Item = &'a [usize]>,
    t: &Theme,
) -> Line<'static> {
    let mut spans = vec![Span::styled(label, Style::default().fg(t.muted))];
    let bp = &fit.point;
    for group in columns {
        let (Some(&lo), Some(&hi)) = (group.first(), group.last()) else {
            continue;
        };
        let mid = 0.5 * (lo as f64 + hi as f64);
        let (p, _, _) = fit.curve.band(mid);
        let holds = |x: f64| x >= lo as f64 - 0.5 && x < hi as f64 + 0.5;
        let on_point = bp.value.is_some_and(holds);
        let in_ci = bp.reached
            && bp.ci[0].is_none_or(|l| hi as f64 + 0.5 > l)
            && bp.ci[1].is_none_or(|h| (lo as f64) - 0.5 < h);
        let glyph = if on_point { POINT } else { bar(p) };
        let mut style = Style::default().fg(t.muted);
        if in_ci {
            style = style.add_modifier(Modifier::UNDERLINED);
        }
        if on_point {
            style = style.fg(t.highlight).add_modifier(Modifier::BOLD);
        }
        spans.push(Span::styled(glyph.to_string(), style));
    }
    Line::from(spans)
}

/// What the pick line adds for the picked run at bucket `b`: the fitted A3 with its
/// band, the breaking point with its interval, and whether the design was adaptive.
pub(crate) fn note(fit: &ChartFit, b: usize) -> String {
    let (p, lo, hi) = fit.curve.band(b as f64);
    let mut s = format!(
        "fit {:.0}% [{:.0}–{:.0}%] here · breaks (A3 {:.0}%) at {}",
        100.0 * p,
        100.0 * lo,
        100.0 * hi,
        100.0 * fit.point.level,
        crate::analysis::breaking::describe(&fit.point)
    );
    if fit.adaptive {
        s.push_str(" · adaptive design: bucket A3 is not a uniform estimate");
    }
    s
}

/// Bar heights. The tallest is `▇`, never the full cell: the top eighth of every row
/// stays empty, so the rows of one run (A3, A2, ±) and of the next never run together
/// into one block.
pub(crate) const BARS: [char; 8] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇'];

/// The bar for a share in [0, 1].
pub(crate) fn bar(v: f64) -> char {
    BARS[(v * 7.0).round().clamp(0.0, 7.0) as usize]
}
