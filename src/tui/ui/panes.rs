//! Run list, sample list (only the visible window is built) and the chart.

use super::block;
use super::chart_fit::{BARS, bar};
use crate::report::By;
use crate::tui::app::{App, Pane};
use crate::tui::layer::Mode;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "    –".into(), |v| format!("{:5.1}%", v * 100.0))
}

use super::text::{self, clip};
use crate::tui::components::sort::SortKey;

/// The column a click at `x` (columns into the sample list's inner area) on its header
/// sorts by: as [`samples`] lays the columns out.
pub fn sample_column_at(app: &App, x: usize) -> Option<SortKey> {
    let judged = app.model.runs.iter().any(|r| !r.judge.is_empty());
    Some(SortKey::at_column(
        x,
        judged,
        app.model.listing.sort.metric(),
    ))
}

/// A run's name as the lists show it: `run N` in blind mode, where names give models away.
pub(crate) fn run_name(app: &App, i: usize) -> String {
    if app.model.blind.is_some() {
        format!("run {}", i + 1)
    } else {
        app.model.runs[i].name()
    }
}

/// The run list.
pub fn runs(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    use crate::tui::keymap::{Action, Context};
    let title = format!(
        "Runs · {} shows/hides · {} starts a run",
        app.key_name(Context::Normal, Action::ToggleRun),
        app.key_name(Context::Normal, Action::NewRun)
    );
    let b = block(&title, area, app.panes.focus == Pane::Runs, t);
    let inner = b.inner(area);
    f.render_widget(b, area);
    let h = inner.height as usize;
    let off = app
        .panes
        .run_list
        .offset
        .place(app.panes.run_list.sel, app.model.runs.len(), h);
    let w = inner.width as usize;
    // Columns: mark, name, model, samples, accuracy, status (dropped when narrow).
    // Eleven: "interrupted" (a dead run) is the longest status.
    let status_w = if w >= 70 { 11 } else { 0 };
    let model_w = if w >= 56 { 16 } else { 8 };
    let name_w = w
        .saturating_sub(
            2 + 1 + model_w + 1 + 5 + 1 + 6 + if status_w > 0 { status_w + 1 } else { 0 },
        )
        .max(6);
    let mut lines = Vec::new();
    let names: Vec<String> = (0..app.model.runs.len())
        .map(|i| run_name(app, i))
        .collect();
    let names = crate::tui::model::names::distinct(&names, name_w);
    // In the catalogue's order (`s` on the run list sorts it).
    let order = app.model.run_order(app.panes.run_sort);
    for (pos, &i) in order.iter().enumerate().skip(off).take(h) {
        let r = &app.model.runs[i];
        let shown =
            app.model.listing.filter.runs.is_empty() || app.model.listing.filter.runs.contains(&i);
        let mark = if shown { "●" } else { "○" };
        // Blind: runs are numbered, with neither model nor pass rate to prime anyone.
        let blind = app.model.blind.is_some();
        // A running run shows how far it is (done/total) instead of "running".
        let mut status = match (r.progress(), r.total()) {
            (Some(_), Some(total)) => format!("{}/{total}", r.rows.len()),
            _ => r.status().to_string(),
        };
        // Kinds still being proved in the background: how far.
        if let Some(p) = r.kinds_percent() {
            status = format!("kinds: {p} %");
        }
        // Too narrow for the status column: a run that is not finished says so before
        // its name, or a cancelled run would pass for a finished one.
        let finished = r.status() == crate::record::RunStatus::Finished;
        let name = if status_w == 0 && !finished {
            format!("[{status}] {}", names[i])
        } else {
            names[i].clone()
        };
        let mut text = format!(
            "{mark} {} {} {:>5} {}",
            clip(&name, name_w),
            clip(&if blind { "·".into() } else { r.model() }, model_w),
            r.rows.len(),
            if blind {
                "     ·".into()
            } else {
                pct(r.accuracy())
            }
        );
        if status_w > 0 {
            text.push(' ');
            text.push_str(&clip(&status, status_w));
        }
        let mut style = Style::default().fg(if shown { t.fg } else { t.muted });
        if pos == app.panes.run_list.sel && app.panes.focus == Pane::Runs {
            style = style.fg(t.selection_fg).bg(t.selection_bg);
        }
        lines.push(Line::from(Span::styled(clip(&text, w), style)));
    }
    if app.model.runs.is_empty() {
        lines.push(Line::from(Span::styled(
            "no runs found",
            Style::default().fg(t.warning),
        )));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The sample list; only rows on screen are formatted.
pub fn samples(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let title = super::list_title::samples_title(app, usize::from(area.width.saturating_sub(4)));
    // A judge column only when some run has judge decisions; its legend is drawn on
    // the list's bottom border.
    let judged = app.model.runs.iter().any(|r| !r.judge.is_empty());
    let mut b = block(&title, area, app.panes.focus == Pane::Samples, t);
    if judged {
        // Whole words at any width: shorter wording first, then the first parts.
        let legend = text::first_fitting(
            &[
                "J: ✓ judge yes · ✗ no · ? unreadable · ≠ judge and verifier disagree".into(),
                "J: ✓ judge yes · ✗ no · ? unreadable · ≠ verifier differs".into(),
                "J: ✓ yes · ✗ no · ? unreadable · ≠ verifier differs".into(),
            ],
            usize::from(area.width.saturating_sub(4)),
        );
        b = b.title_bottom(Span::styled(
            format!(" {legend} "),
            Style::default().fg(t.muted),
        ));
    }
    let inner = b.inner(area);
    f.render_widget(b, area);
    let h = inner.height.saturating_sub(1) as usize;
    app.panes.page.set(h.max(1));
    let w = inner.width as usize;
    // A view mixing measures (logic by operators, regexes by depth) says per row which
    // one its number is: `3o`, `5d`.
    let mixed = app.model.derived.measures.len() > 1;
    let cat = match (mixed, app.model.by) {
        (true, _) => "o/d",
        (false, By::Operators) => "ops",
        (false, By::Depth) => "dep",
    };
    // The sorted column's header carries the direction.
    let arrow = |k: SortKey| match app.model.listing.sort.key {
        Some(x) if x == k => {
            if app.model.listing.sort.desc {
                "↓"
            } else {
                "↑"
            }
        }
        _ => "",
    };
    // Columns: id 8, measure 3, verdict 14 and a space, the judge mark and a space when
    // some run is judged, the hand-label mark, the metric sorted by (only while sorted
    // by one), the run. The header lines up with them.
    let metric = app.model.listing.sort.metric();
    let metric_w = metric.map_or(0, |_| crate::tui::components::sort::METRIC_WIDTH);
    let rest = w.saturating_sub(if judged { 34 } else { 31 } + metric_w);
    // Too narrow for a run column (80 columns) with several runs: verdicts take seven
    // columns (`not-eq`) so the run column gets ten.
    let narrow = rest < 8 && app.model.runs.len() > 1;
    let vw = if narrow { 7 } else { 14 };
    let rest = rest + 14 - vw;
    let names: Vec<String> = (0..app.model.runs.len())
        .map(|i| run_name(app, i))
        .collect();
    let names = crate::tui::model::names::distinct(&names, rest);
    let metric_head = metric.map_or_else(String::new, |m| {
        let w = crate::tui::components::sort::METRIC_WIDTH;
        format!(
            "{:<w$}",
            format!(
                "{}{}",
                clip(m.label(), w - 2).trim_end(),
                arrow(SortKey::Metric(m))
            )
        )
    });
    let mut lines = vec![Line::from(Span::styled(
        clip(
            &format!(
                "{:<8} {cat:>3}{:<2}{:<vw$} {}{}{metric_head}run{}",
                "id",
                arrow(SortKey::Measure),
                format!("verdict{}", arrow(SortKey::Verdict)),
                if judged {
                    format!("{:<3}", format!("J{}", arrow(SortKey::Judge)))
                } else {
                    String::new()
                },
                if app.model.listing.sort.key == Some(SortKey::Labelled) {
                    format!("✎{}", arrow(SortKey::Labelled))
                } else {
                    " ".into()
                },
                arrow(SortKey::Run),
            ),
            w,
        ),
        Style::default()
            .fg(t.muted)
            .add_modifier(Modifier::UNDERLINED),
    ))];
    let off = app.model.listing.sample_list.offset.place(
        app.model.listing.sample_list.sel,
        app.model.listing.visible.len(),
        h,
    );
    // Names told apart by what differs (four `fol-english…` runs read apart).
    for (k, &(r, i)) in app
        .model
        .listing
        .visible
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
    {
        let run = &app.model.runs[r as usize];
        let row = &run.rows[i as usize];
        let c = app.model.category(r, i).map_or_else(
            || "–".into(),
            |c| {
                if mixed {
                    format!("{c}{}", &app.model.measure_of(r, i)[..1])
                } else {
                    c.to_string()
                }
            },
        );
        // Blind: only this annotator's own labels mark a row (others' would tell).
        let any_label = if app.model.blind.is_some() {
            app.model.labelled_by_me((r, i))
        } else {
            run.labels.contains_key(&*row.id)
        };
        let labelled = if any_label { "✎" } else { " " };
        let selected = k == app.model.listing.sample_list.sel;
        let base = if selected {
            Style::default()
                .fg(t.selection_fg)
                .bg(if app.panes.focus == Pane::Samples {
                    t.selection_bg
                } else {
                    // Not `border`: black on the dark border grey was unreadable.
                    t.muted
                })
        } else {
            Style::default().fg(t.fg)
        };
        // Blind mode: nothing about the outcome until this annotator has labelled it.
        let hidden = app.model.hidden((r, i));
        let vstyle = if selected {
            base
        } else if hidden {
            Style::default().fg(t.muted)
        } else {
            Style::default().fg(t.verdict_color(row.verdict))
        };
        // The sorted-by metric, to four decimals (`–` where the sample has none).
        let metric_cell = metric.map_or_else(String::new, |m| {
            let v = if hidden {
                String::new()
            } else {
                row.scores
                    .value(m)
                    .map_or_else(|| "–".into(), |v| format!("{v:.4}"))
            };
            format!("{v:<metric_w$}")
        });
        let judge = if judged && hidden {
            "  "
        } else if judged {
            use crate::llm::judge::JudgeAnswer;
            // `≠` marks a judge that contradicts the verifier.
            let pass = row.verdict.is_pass();
            match run.judge.get(&*row.id).map(|j| j.answer) {
                Some(JudgeAnswer::Yes) if pass => "✓ ",
                Some(JudgeAnswer::Yes) => "✓≠",
                Some(JudgeAnswer::No) if !pass => "✗ ",
                Some(JudgeAnswer::No) => "✗≠",
                Some(JudgeAnswer::Unparseable) => "? ",
                None => "  ",
            }
        } else {
            ""
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} {:>3}  ", clip(&row.id, 8), clip(&c, 3).trim_end()),
                base,
            ),
            // A space keeps the marks off a 14-letter verdict ("not-equivalent").
            Span::styled(
                format!(
                    "{:<vw$} ",
                    if hidden {
                        "· blind"
                    } else if narrow {
                        crate::tui::model::filter::verdict_short(row.verdict)
                    } else {
                        row.verdict_name()
                    }
                ),
                vstyle,
            ),
            Span::styled(judge, base),
            Span::styled(
                format!("{labelled}{metric_cell}{}", clip(&names[r as usize], rest)),
                base,
            ),
        ]));
    }
    if app.model.listing.visible.is_empty() {
        use crate::tui::keymap::{Action, Context};
        let key = |a| app.keymap.hint(Context::Normal, a);
        let any_rows = app.model.runs.iter().any(|r| !r.rows.is_empty());
        let filtered = app.model.listing.filter != crate::tui::model::Filter::default()
            || !app.model.listing.search.field.text.trim().is_empty();
        let text = if any_rows && filtered {
            format!(
                "no samples match: {} clears the filters",
                key(Action::ClearFilters)
            )
        } else if any_rows {
            "no samples to show".to_string()
        } else {
            format!("no samples yet: {} starts a run", key(Action::NewRun))
        };
        lines.push(Line::from(Span::styled(text, Style::default().fg(t.muted))));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// A chart row: its tag and how to read a value from a bucket.
type Series = (&'static str, fn(&crate::tui::model::Bucket) -> Option<f64>);

/// Accuracy (and compliance when there is room) by bucket: one row of bars per run.
pub fn chart(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    // Blind: buckets of a few samples would give their verdicts away.
    if app.model.blind.is_some() {
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
        return;
    }
    let data = &app.model.derived.chart;
    let by = app.model.derived.axis_name;
    let measures = &app.model.derived.measures;
    let mixed = measures.len() > 1;
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
    // Runs with several batches get a row for the spread of A3 across them.
    let spreads = &app.model.derived.spreads;
    // Rows each run takes; the chart scrolls to keep the focused run in view.
    let series_n = if with_a2 { 2 } else { 1 };
    // Picking a run in the chart adds a row for its fitted curve and breaking point.
    let fits = &app.model.derived.fits;
    let fit_row = |k: usize| {
        app.chart_layer()
            .filter(|c| !c.pick.kinds && k == c.pick.run.min(data.len().saturating_sub(1)))
            .and_then(|_| fits.get(k).and_then(Option::as_ref))
    };
    let heights: Vec<usize> = (0..data.len())
        .map(|k| {
            series_n
                + usize::from(spreads.get(k).is_some_and(|m| !m.is_empty()))
                + usize::from(fit_row(k).is_some())
        })
        .collect();
    let rows_avail = (inner.height as usize).saturating_sub(1);
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
    // Which runs show comes first: the rest of the title may be cut on a narrow screen.
    let scrolled = if top > 0 || end < data.len() {
        format!("runs {}–{end} of {} · ", top + 1, data.len())
    } else {
        String::new()
    };
    // Shorter forms on a narrow pane: what is measured (and the bucket picked) stays.
    let title = {
        use crate::tui::keymap::{Action as A, Context as C};
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
    };
    let b = block(&title, area, app.mode() == Mode::Chart, t);
    f.render_widget(b, area);
    if data.is_empty() || buckets.is_empty() || inner.width < 12 || inner.height < 2 {
        f.render_widget(
            Paragraph::new(Span::styled("no data", Style::default().fg(t.muted))),
            inner,
        );
        return;
    }
    // Run names need room to be told apart (fol vs fol-english); bars get the rest.
    let name_w = (inner.width as usize / 3).clamp(5, 24);
    let label_w = name_w + 4;
    let cols = (inner.width as usize).saturating_sub(label_w).max(1);
    // Buckets per column when there are more buckets than columns.
    let per = buckets.len().div_ceil(cols).max(1);
    let ncols = buckets.len().div_ceil(per);
    let mut lines = Vec::new();
    // Labels told apart by what differs; `name` stays the key into `measures`.
    let labels: Vec<String> = data.iter().map(|(n, _)| n.clone()).collect();
    let labels = crate::tui::model::names::distinct(&labels, name_w.saturating_sub(1));
    for (k, (name, m)) in data.iter().enumerate().skip(top).take(end - top) {
        let label = &labels[k];
        let color = t
            .chart
            .get(k % t.chart.len().max(1))
            .copied()
            .unwrap_or(t.fg);
        let series: &[Series] = if with_a2 {
            &[("A3", |b| b.accuracy()), ("A2", |b| b.compliance())]
        } else {
            &[("A3", |b| b.accuracy())]
        };
        let picked = app
            .chart_layer()
            .is_some_and(|c| k == c.pick.run.min(data.len() - 1));
        for (tag, value) in series {
            let mut name_style = Style::default().fg(color);
            if picked {
                name_style = name_style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            // In a view mixing measures each row says its own: `A3o` ops, `A3d` depth.
            let unit = if mixed {
                measures
                    .iter()
                    .find(|(_, runs)| runs.contains(name))
                    .map_or("", |(m, _)| &m[..1])
            } else {
                ""
            };
            let mut spans = vec![Span::styled(
                format!(
                    "{:<w$} {tag}{unit} ",
                    clip(label, name_w.saturating_sub(unit.len())).trim_end(),
                    w = name_w.saturating_sub(unit.len())
                ),
                name_style,
            )];
            for c in 0..ncols {
                let group = &buckets[c * per..((c + 1) * per).min(buckets.len())];
                let mut agg = crate::tui::model::Bucket::default();
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
                if app.mode() == Mode::Chart && chosen.is_some_and(|b| group.contains(&b)) {
                    style = style.bg(t.highlight).fg(t.selection_fg);
                }
                spans.push(Span::styled(glyph.to_string(), style));
            }
            lines.push(Line::from(spans));
        }
        if let Some(sp) = spreads.get(k).filter(|m| !m.is_empty())
            && lines.len() < rows_avail
        {
            let mut spans = vec![Span::styled(
                format!("{:<w$} ±  ", clip(label, name_w).trim_end(), w = name_w),
                Style::default().fg(t.muted),
            )];
            for c in 0..ncols {
                let group = &buckets[c * per..((c + 1) * per).min(buckets.len())];
                let width = group
                    .iter()
                    .filter_map(|b| sp.get(b))
                    .map(|(lo, hi)| hi - lo)
                    .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
                let glyph = width.map_or(' ', bar);
                spans.push(Span::styled(
                    glyph.to_string(),
                    Style::default().fg(t.muted),
                ));
            }
            lines.push(Line::from(spans));
        }
        if let Some(fit) = fit_row(k)
            && lines.len() < rows_avail
        {
            let label = format!("{:<w$} ≈  ", clip(label, name_w).trim_end(), w = name_w);
            let columns = (0..ncols).map(|c| &buckets[c * per..((c + 1) * per).min(buckets.len())]);
            lines.push(super::chart_fit::row(label, fit, columns, t));
        }
    }
    let first = buckets.first().copied().unwrap_or(0);
    let last = buckets.last().copied().unwrap_or(0);
    let axis_w = ncols.saturating_sub(first.to_string().len());
    // Picking a bucket shows its numbers for the highlighted run in place of the axis.
    let pick = app.chart_layer().and_then(|c| c.picked.clone());
    match (pick, chosen) {
        (Some((name, c, spread)), Some(b)) => {
            let p = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{:.0}%", 100.0 * v));
            let run_by = measures
                .iter()
                .find(|(_, runs)| runs.contains(&name))
                .map_or(by, |(m, _)| *m);
            // The share with its Wilson 95 % interval, as `report` gives it.
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
            let picked_fit = app
                .chart_layer()
                .and_then(|c| fits.get(c.pick.run.min(data.len().saturating_sub(1))))
                .and_then(Option::as_ref);
            lines.push(Line::from(Span::styled(
                clip(&text, inner.width as usize),
                Style::default().fg(t.highlight),
            )));
            // The fit's numbers on a line of their own: the pick line is full already.
            if let Some(fit) = picked_fit {
                lines.push(Line::from(Span::styled(
                    clip(&super::chart_fit::note(fit, b), inner.width as usize),
                    Style::default().fg(t.muted),
                )));
            }
        }
        _ => lines.push(Line::from(Span::styled(
            format!("{:label_w$}{first}{last:>axis_w$}", ""),
            Style::default().fg(t.muted),
        ))),
    }
    f.render_widget(Paragraph::new(lines), inner);
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
    let title = {
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
    };
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
            let glyph = if n == 0 {
                '·'
            } else {
                BARS[(1 + (n * 6) / max).min(7)]
            };
            // Each row its own colour, none a run's: this chart is one run's kinds.
            let mut style = Style::default().fg(if n == 0 { t.muted } else { t.kind_color(row) });
            if chosen.is_some_and(|b| group.contains(&b)) {
                style = style.bg(t.highlight).fg(t.selection_fg);
            }
            spans.push(Span::styled(glyph.to_string(), style));
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
