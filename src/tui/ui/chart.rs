//! The chart pane: accuracy (and compliance when there is room) by bucket, one row of
//! bars per run, and the failure kinds of one run by bucket.

use super::block;
use super::chart_fit::{BARS, bar};
use super::text::{self, clip};
use crate::tui::app::App;
use crate::tui::layer::Mode;
use crate::tui::model::{Bucket, ChartFit, PickedBucket};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A chart row: its tag and how to read a value from a bucket.
type Series = (&'static str, fn(&Bucket) -> Option<f64>);

/// Accuracy (and compliance when there is room) by bucket: one row of bars per run.
pub fn chart(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    // Blind: buckets of a few samples would give their verdicts away.
    if app.model.blind.is_some() {
        return blind(f, area, t);
    }
    let data = &app.model.derived.chart;
    let by = app.model.derived.axis_name;
    // From the data in hand: chart_buckets() would walk every row a second time.
    let buckets = crate::tui::model::axis(data);
    let chosen = app
        .chart_layer()
        .and_then(|c| buckets.get(c.pick.bucket))
        .copied();
    if app.chart_layer().is_some_and(|c| c.pick.kinds) {
        return kinds_chart(f, area, app, t, by, &buckets, chosen);
    }
    let inner = area.inner(ratatui::layout::Margin {
        horizontal: 1,
        vertical: 1,
    });
    let with_a2 = (inner.height as usize).saturating_sub(1) >= 2 * data.len();
    let rows_avail = (inner.height as usize).saturating_sub(1);
    let (top, end) = shown_runs(app, with_a2, rows_avail);
    // Which runs show comes first: the rest of the title may be cut on a narrow screen.
    let scrolled = if top > 0 || end < data.len() {
        format!("runs {}–{end} of {} · ", top + 1, data.len())
    } else {
        String::new()
    };
    let title = title(app, area, &scrolled, chosen, with_a2);
    let b = block(&title, area, app.mode() == Mode::Chart, t);
    f.render_widget(b, area);
    if data.is_empty() || buckets.is_empty() || inner.width < 12 || inner.height < 2 {
        f.render_widget(
            Paragraph::new(Span::styled("no data", Style::default().fg(t.muted))),
            inner,
        );
        return;
    }
    let bars = Bars::new(app, t, inner, &buckets, chosen, with_a2);
    let mut lines = Vec::new();
    for k in top..end {
        bars.run_rows(k, rows_avail, &mut lines);
    }
    bars.footer(&mut lines);
    f.render_widget(Paragraph::new(lines), inner);
}

/// The chart pane while labelling blind: a note in place of the bars.
fn blind(f: &mut Frame, area: Rect, t: &Theme) {
    let b = block("Chart", area, false, t);
    let inner = b.inner(area);
    f.render_widget(b, area);
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(
            "blind: the chart is hidden while labelling blind",
            Style::default().fg(t.muted),
        ))),
        inner,
    );
}

/// The fit of run `k` when the chart has it picked: it gets a row for its fitted curve
/// and breaking point.
fn fit_row(app: &App, k: usize) -> Option<&ChartFit> {
    let n = app.model.derived.chart.len();
    app.chart_layer()
        .filter(|c| !c.pick.kinds && k == c.pick.run.min(n.saturating_sub(1)))
        .and_then(|_| app.model.derived.fits.get(k).and_then(Option::as_ref))
}

/// The runs drawn, `top..end`: the chart scrolls to keep the focused run in view
/// (remembered in `app.panes.chart_top`).
fn shown_runs(app: &App, with_a2: bool, rows_avail: usize) -> (usize, usize) {
    let data = &app.model.derived.chart;
    // Runs with several batches get a row for the spread of A3 across them.
    let spreads = &app.model.derived.spreads;
    // Rows each run takes.
    let series_n = if with_a2 { 2 } else { 1 };
    let heights: Vec<usize> = (0..data.len())
        .map(|k| {
            series_n
                + usize::from(spreads.get(k).is_some_and(|m| !m.is_empty()))
                + usize::from(fit_row(app, k).is_some())
        })
        .collect();
    let top = chart_window(
        &heights,
        rows_avail,
        app.chart_focus(),
        app.panes.chart_top.get(),
    );
    app.panes.chart_top.set(top);
    let mut end = top;
    let mut used = 0;
    while end < heights.len() && (end == top || used + heights[end] <= rows_avail) {
        used += heights[end];
        end += 1;
    }
    (top, end)
}

/// The chart's title, shorter forms on a narrow pane: what is measured (and the
/// bucket picked) stays.
fn title(app: &App, area: Rect, scrolled: &str, chosen: Option<usize>, with_a2: bool) -> String {
    use crate::tui::keymap::{Action as A, Context as C};
    let by = app.model.derived.axis_name;
    let forms = if let (true, Some(b)) = (app.mode() == Mode::Chart, chosen) {
        let k = |a| app.key_name(C::Chart, a);
        let moves = format!(
            "{}/{} bucket · {}/{} run",
            k(A::PrevBucket),
            k(A::NextBucket),
            k(A::Up),
            k(A::Down)
        );
        vec![
            format!(
                "{scrolled}bucket {b} by {by} · {moves} · {} this run · {} all · {} kinds",
                k(A::Open),
                k(A::ChartAllRuns),
                k(A::ChartKinds)
            ),
            format!("{scrolled}bucket {b} by {by} · {moves}"),
            format!("{scrolled}bucket {b} by {by}"),
            format!("bucket {b} by {by} · {moves}"),
            format!("bucket {b} by {by}"),
        ]
    } else {
        let v = app.key_name(C::Normal, A::Chart);
        let what = if with_a2 {
            ["A3 accuracy, A2 compliance", "A3, A2"]
        } else {
            ["A3 accuracy", "A3"]
        };
        vec![
            format!("{scrolled}{} by {by} · {v} picks", what[0]),
            format!("{scrolled}{} by {by}", what[0]),
            format!("{scrolled}{} by {by}", what[1]),
            format!("{} by {by}", what[1]),
        ]
    };
    text::first_fitting(&forms, usize::from(area.width.saturating_sub(4)))
}

/// The bars' geometry and what every run row reads.
struct Bars<'a> {
    app: &'a App,
    t: &'a Theme,
    buckets: &'a [usize],
    chosen: Option<usize>,
    with_a2: bool,
    /// The pane inside its border.
    width: usize,
    /// Room for a run's name; the row tag follows it.
    name_w: usize,
    /// Columns before the first bar.
    label_w: usize,
    /// Buckets per column when there are more buckets than columns.
    per: usize,
    ncols: usize,
    /// Run names told apart by what differs; the data's name stays the key into
    /// `measures`.
    labels: Vec<String>,
}

impl<'a> Bars<'a> {
    /// The geometry for `inner`: run names need room to be told apart (fol vs
    /// fol-english); bars get the rest.
    fn new(
        app: &'a App,
        t: &'a Theme,
        inner: Rect,
        buckets: &'a [usize],
        chosen: Option<usize>,
        with_a2: bool,
    ) -> Self {
        let name_w = (inner.width as usize / 3).clamp(5, 24);
        let label_w = name_w + 4;
        let cols = (inner.width as usize).saturating_sub(label_w).max(1);
        let per = buckets.len().div_ceil(cols).max(1);
        let ncols = buckets.len().div_ceil(per);
        let labels: Vec<String> = app
            .model
            .derived
            .chart
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        let labels = crate::tui::model::names::distinct(&labels, name_w.saturating_sub(1));
        Self {
            app,
            t,
            buckets,
            chosen,
            with_a2,
            width: inner.width as usize,
            name_w,
            label_w,
            per,
            ncols,
            labels,
        }
    }

    /// The buckets column `c` draws.
    fn group(&self, c: usize) -> &'a [usize] {
        let buckets = self.buckets;
        &buckets[c * self.per..((c + 1) * self.per).min(buckets.len())]
    }

    /// Run `k`'s rows: a row per series, then its batch spread and its fit while
    /// `rows_avail` has room.
    fn run_rows(&self, k: usize, rows_avail: usize, lines: &mut Vec<Line<'static>>) {
        let (t, data) = (self.t, &self.app.model.derived.chart);
        let label = &self.labels[k];
        let color = t
            .chart
            .get(k % t.chart.len().max(1))
            .copied()
            .unwrap_or(t.fg);
        let series: &[Series] = if self.with_a2 {
            &[("A3", |b| b.accuracy()), ("A2", |b| b.compliance())]
        } else {
            &[("A3", |b| b.accuracy())]
        };
        let picked = self
            .app
            .chart_layer()
            .is_some_and(|c| k == c.pick.run.min(data.len() - 1));
        for s in series {
            lines.push(self.series_row(k, s, color, picked));
        }
        if let Some(sp) = self
            .app
            .model
            .derived
            .spreads
            .get(k)
            .filter(|m| !m.is_empty())
            && lines.len() < rows_avail
        {
            lines.push(self.spread_row(label, sp));
        }
        if let Some(fit) = fit_row(self.app, k)
            && lines.len() < rows_avail
        {
            let name_w = self.name_w;
            let label = format!("{:<w$} ≈  ", clip(label, name_w).trim_end(), w = name_w);
            let columns = (0..self.ncols).map(|c| self.group(c));
            lines.push(super::chart_fit::row(label, fit, columns, t));
        }
    }

    /// One series of run `k` (A3 or A2): its name and tag, then a bar per column.
    fn series_row(
        &self,
        k: usize,
        (tag, value): &Series,
        color: ratatui::style::Color,
        picked: bool,
    ) -> Line<'static> {
        let t = self.t;
        let (name, m) = &self.app.model.derived.chart[k];
        let mut name_style = Style::default().fg(color);
        if picked {
            name_style = name_style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        }
        // In a view mixing measures each row says its own: `A3o` ops, `A3d` depth.
        let measures = &self.app.model.derived.measures;
        let unit = if measures.len() > 1 {
            measures
                .iter()
                .find(|(_, runs)| runs.contains(name))
                .map_or("", |(m, _)| &m[..1])
        } else {
            ""
        };
        let name_w = self.name_w;
        let mut spans = vec![Span::styled(
            format!(
                "{:<w$} {tag}{unit} ",
                clip(&self.labels[k], name_w.saturating_sub(unit.len())).trim_end(),
                w = name_w.saturating_sub(unit.len())
            ),
            name_style,
        )];
        for c in 0..self.ncols {
            let group = self.group(c);
            let mut agg = Bucket::default();
            for bk in group {
                if let Some(x) = m.get(bk) {
                    agg.merge(x);
                }
            }
            let glyph = value(&agg).map_or(' ', bar);
            // `_` marks samples scoring zero; folio-i's have no A3 at all (blank).
            let no_a3 = *tag == "A3" && agg.scored() == 0;
            let glyph = if glyph == ' ' && agg.n > 0 && !no_a3 {
                '_'
            } else {
                glyph
            };
            let mut style = Style::default().fg(if *tag == "A3" { color } else { t.muted });
            if self.app.mode() == Mode::Chart && self.chosen.is_some_and(|b| group.contains(&b)) {
                style = style.bg(t.highlight).fg(t.selection_fg);
            }
            spans.push(Span::styled(glyph.to_string(), style));
        }
        Line::from(spans)
    }

    /// A run's spread of A3 across its batches: the widest spread in each column.
    fn spread_row(
        &self,
        label: &str,
        sp: &std::collections::BTreeMap<usize, (f64, f64)>,
    ) -> Line<'static> {
        let muted = Style::default().fg(self.t.muted);
        let name_w = self.name_w;
        let mut spans = vec![Span::styled(
            format!("{:<w$} ±  ", clip(label, name_w).trim_end(), w = name_w),
            muted,
        )];
        for c in 0..self.ncols {
            let width = self
                .group(c)
                .iter()
                .filter_map(|b| sp.get(b))
                .map(|(lo, hi)| hi - lo)
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
            let glyph = width.map_or(' ', bar);
            spans.push(Span::styled(glyph.to_string(), muted));
        }
        Line::from(spans)
    }

    /// Below the bars: the axis, or the picked bucket's numbers for the highlighted run
    /// in its place.
    fn footer(&self, lines: &mut Vec<Line<'static>>) {
        let t = self.t;
        let pick = self.app.chart_layer().and_then(|c| c.picked.clone());
        if let (Some(picked), Some(b)) = (pick, self.chosen) {
            lines.push(Line::from(Span::styled(
                clip(&self.pick_text(picked, b), self.width),
                Style::default().fg(t.highlight),
            )));
            let data = &self.app.model.derived.chart;
            let picked_fit = self
                .app
                .chart_layer()
                .and_then(|c| {
                    (self.app.model.derived.fits).get(c.pick.run.min(data.len().saturating_sub(1)))
                })
                .and_then(Option::as_ref);
            // The fit's numbers on a line of their own: the pick line is full already.
            if let Some(fit) = picked_fit {
                lines.push(Line::from(Span::styled(
                    clip(&super::chart_fit::note(fit, b), self.width),
                    Style::default().fg(t.muted),
                )));
            }
        } else {
            let first = self.buckets.first().copied().unwrap_or(0);
            let last = self.buckets.last().copied().unwrap_or(0);
            let axis_w = self.ncols.saturating_sub(first.to_string().len());
            lines.push(Line::from(Span::styled(
                format!("{:w$}{first}{last:>axis_w$}", "", w = self.label_w),
                Style::default().fg(t.muted),
            )));
        }
    }

    /// The pick line: the picked run's counts at bucket `b`, each share with its Wilson
    /// 95 % interval as `report` gives it, and the spread across batches.
    fn pick_text(&self, (name, c, spread): PickedBucket, b: usize) -> String {
        let p = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{:.0}%", 100.0 * v));
        let run_by = (self.app.model.derived.measures)
            .iter()
            .find(|(_, runs)| runs.contains(&name))
            .map_or(self.app.model.derived.axis_name, |(m, _)| *m);
        let ci = crate::report::intervals::Ci::wilson(&c);
        let with_ci = |x: Option<f64>, iv: Option<[f64; 2]>| match iv {
            Some([lo, hi]) => format!("{} [{:.0}–{:.0}%]", p(x), 100.0 * lo, 100.0 * hi),
            None => p(x),
        };
        let mut text = format!(
            "{name} · {run_by} {b}: n {} · A3 {} · A2 {}",
            c.n,
            with_ci(c.accuracy(), ci.a3),
            with_ci(c.compliance(), ci.a2)
        );
        if let Some((lo, hi)) = spread {
            text.push_str(&format!(" · batches {:.0}–{:.0}%", 100.0 * lo, 100.0 * hi));
        }
        text
    }
}

/// The first run row to draw so that `focus` is in view: the previous `top` when it
/// still shows it, else the nearest start that does. `heights` are rows per run.
fn chart_window(heights: &[usize], avail: usize, focus: Option<usize>, top: usize) -> usize {
    let n = heights.len();
    let mut top = top.min(n.saturating_sub(1));
    let Some(focus) = focus.map(|f| f.min(n.saturating_sub(1))) else {
        return top;
    };
    if focus < top {
        top = focus;
    }
    // Move down until every row from `top` through `focus` fits.
    while top < focus && heights[top..=focus].iter().sum::<usize>() > avail {
        top += 1;
    }
    // No empty space below the last run while earlier ones are hidden.
    while top > 0 && heights[top - 1..].iter().sum::<usize>() <= avail {
        top -= 1;
    }
    top
}

/// Failure kinds × buckets for the chart's highlighted run: a shade per cell, darker
/// for more failing samples of that kind.
fn kinds_chart(
    f: &mut Frame,
    area: Rect,
    app: &App,
    t: &Theme,
    by: &str,
    buckets: &[usize],
    chosen: Option<usize>,
) {
    let Some((name, kinds)) = app.chart_layer().map(|c| &c.kinds) else {
        return;
    };
    let title = kinds_title(app, area, name, by);
    let b = block(&title, area, app.mode() == Mode::Chart, t);
    let inner = b.inner(area);
    f.render_widget(b, area);
    if kinds.is_empty() || buckets.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled("no failures", Style::default().fg(t.muted))),
            inner,
        );
        return;
    }
    let label_w = (inner.width as usize / 3).clamp(8, 20);
    let cols = (inner.width as usize).saturating_sub(label_w + 1).max(1);
    let per = buckets.len().div_ceil(cols).max(1);
    let ncols = buckets.len().div_ceil(per);
    let max = kinds
        .iter()
        .flat_map(|(_, m)| m.values().copied())
        .max()
        .unwrap_or(1)
        .max(1);
    let mut lines = Vec::new();
    for (row, (kind, m)) in kinds
        .iter()
        .take(inner.height.saturating_sub(1) as usize)
        .enumerate()
    {
        let mut spans = vec![Span::styled(
            format!("{:<label_w$} ", clip(kind.name(), label_w).trim_end()),
            Style::default().fg(t.kind_color(row)),
        )];
        for c in 0..ncols {
            let group = &buckets[c * per..((c + 1) * per).min(buckets.len())];
            let n: usize = group.iter().filter_map(|b| m.get(b)).sum();
            spans.push(kinds_cell(
                t,
                row,
                n,
                max,
                chosen.is_some_and(|b| group.contains(&b)),
            ));
        }
        lines.push(Line::from(spans));
    }
    let first = buckets.first().copied().unwrap_or(0);
    let last = buckets.last().copied().unwrap_or(0);
    let axis_w = ncols.saturating_sub(first.to_string().len());
    lines.push(Line::from(Span::styled(
        format!("{:w$}{first}{last:>axis_w$}", "", w = label_w + 1),
        Style::default().fg(t.muted),
    )));
    f.render_widget(Paragraph::new(lines), inner);
}

/// The kinds chart's title, shorter forms on a narrow pane.
fn kinds_title(app: &App, area: Rect, name: &str, by: &str) -> String {
    use crate::tui::keymap::{Action, Context};
    let k = |a| app.keymap.hint(Context::Chart, a);
    let forms = [
        format!(
            "failure kinds of {name} by {by} · {}/{} run · {} accuracy",
            k(Action::Up),
            k(Action::Down),
            k(Action::ChartKinds)
        ),
        format!("kinds of {name} by {by}"),
        format!("kinds of {name}"),
    ];
    text::first_fitting(&forms, usize::from(area.width.saturating_sub(4)))
}

/// One cell of the kinds chart: `n` failing samples of kind `row` (of at most `max` in
/// any cell), highlighted in the `chosen` bucket's column.
fn kinds_cell(t: &Theme, row: usize, n: usize, max: usize, chosen: bool) -> Span<'static> {
    let glyph = if n == 0 {
        '·'
    } else {
        BARS[(1 + (n * 6) / max).min(7)]
    };
    // Each row its own colour, none a run's: this chart is one run's kinds.
    let mut style = Style::default().fg(if n == 0 { t.muted } else { t.kind_color(row) });
    if chosen {
        style = style.bg(t.highlight).fg(t.selection_fg);
    }
    Span::styled(glyph.to_string(), style)
}

#[cfg(test)]
mod tests {
    use super::chart_window;

    #[test]
    fn the_chart_window_keeps_the_focused_run_in_view() {
        let h = [2, 3, 2, 2, 2, 2];
        assert_eq!(chart_window(&h, 6, Some(0), 0), 0);
        assert_eq!(
            chart_window(&h, 6, Some(3), 0),
            2,
            "scrolls down to show run 3"
        );
        assert_eq!(chart_window(&h, 6, Some(2), 2), 2, "stays while in view");
        assert_eq!(chart_window(&h, 6, Some(1), 2), 1, "scrolls up");
        assert_eq!(chart_window(&h, 6, Some(5), 0), 3);
        assert_eq!(chart_window(&h, 100, Some(5), 4), 0, "everything fits");
        assert_eq!(chart_window(&[], 6, Some(2), 3), 0);
    }
}
