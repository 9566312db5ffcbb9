//! Run list, sample list (only the visible window is built) and the chart.

use super::block;
use crate::report::By;
use crate::tui::app::{App, Pane};
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
    // A judge column only when some run has judge decisions; its legend is drawn on
    // the list's bottom border.
    let judged = app.model.runs.iter().any(|r| !r.judge.is_empty());
    let b = samples_block(app, area, t, judged);
    let inner = b.inner(area);
    f.render_widget(b, area);
    let h = inner.height.saturating_sub(1) as usize;
    app.panes.page.set(h.max(1));
    let cols = Columns::new(app, inner.width as usize, judged);
    let mut lines = vec![cols.header(app, t)];
    let off = app.model.listing.sample_list.offset.place(
        app.model.listing.sample_list.sel,
        app.model.listing.visible.len(),
        h,
    );
    for (k, &(r, i)) in app
        .model
        .listing
        .visible
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
    {
        lines.push(cols.row(app, t, k, r, i));
    }
    if app.model.listing.visible.is_empty() {
        lines.push(no_samples(app, t));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The sample list's pane, with the judge column's legend on its bottom border when
/// `judged`.
fn samples_block<'a>(
    app: &App,
    area: Rect,
    t: &Theme,
    judged: bool,
) -> ratatui::widgets::Block<'a> {
    let title = super::list_title::samples_title(app, usize::from(area.width.saturating_sub(4)));
    let b = block(&title, area, app.panes.focus == Pane::Samples, t);
    if !judged {
        return b;
    }
    // Whole words at any width: shorter wording first, then the first parts.
    let legend = text::first_fitting(
        &[
            "J: ✓ judge yes · ✗ no · ? unreadable · ≠ judge and verifier disagree".into(),
            "J: ✓ judge yes · ✗ no · ? unreadable · ≠ verifier differs".into(),
            "J: ✓ yes · ✗ no · ? unreadable · ≠ verifier differs".into(),
        ],
        usize::from(area.width.saturating_sub(4)),
    );
    b.title_bottom(Span::styled(
        format!(" {legend} "),
        Style::default().fg(t.muted),
    ))
}

/// The sample list's columns: id 8, measure 3, verdict 14 and a space, the judge mark
/// and a space when some run is judged, the hand-label mark, the metric sorted by (only
/// while sorted by one), the run. The header lines up with them.
struct Columns {
    /// The list's inner width.
    w: usize,
    judged: bool,
    /// A view mixing measures (logic by operators, regexes by depth) says per row which
    /// one its number is: `3o`, `5d`.
    mixed: bool,
    metric: Option<crate::record::Metric>,
    metric_w: usize,
    /// Short verdicts, to leave the run column room.
    narrow: bool,
    /// The verdict column's width.
    vw: usize,
    /// The run column's width.
    rest: usize,
    /// Run names told apart by what differs (four `fol-english…` runs read apart).
    names: Vec<String>,
}

impl Columns {
    /// The columns for a list `w` wide.
    fn new(app: &App, w: usize, judged: bool) -> Self {
        let mixed = app.model.derived.measures.len() > 1;
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
        Self {
            w,
            judged,
            mixed,
            metric,
            metric_w,
            narrow,
            vw,
            rest,
            names,
        }
    }

    /// The header line; the sorted column's header carries the direction.
    fn header(&self, app: &App, t: &Theme) -> Line<'static> {
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
        let cat = match (self.mixed, app.model.by) {
            (true, _) => "o/d",
            (false, By::Operators) => "ops",
            (false, By::Depth) => "dep",
        };
        let metric_head = self.metric.map_or_else(String::new, |m| {
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
        let vw = self.vw;
        Line::from(Span::styled(
            clip(
                &format!(
                    "{:<8} {cat:>3}{:<2}{:<vw$} {}{}{metric_head}run{}",
                    "id",
                    arrow(SortKey::Measure),
                    format!("verdict{}", arrow(SortKey::Verdict)),
                    if self.judged {
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
                self.w,
            ),
            Style::default()
                .fg(t.muted)
                .add_modifier(Modifier::UNDERLINED),
        ))
    }

    /// The sorted-by metric, to four decimals (`–` where the sample has none); blank
    /// while `hidden`, nothing while no metric is sorted by.
    fn metric_cell(&self, row: &crate::tui::data::Row, hidden: bool) -> String {
        self.metric.map_or_else(String::new, |m| {
            let v = if hidden {
                String::new()
            } else {
                row.scores
                    .value(m)
                    .map_or_else(|| "–".into(), |v| format!("{v:.4}"))
            };
            format!("{v:<w$}", w = self.metric_w)
        })
    }

    /// Sample `i` of run `r`, the `k`th in the list.
    fn row(&self, app: &App, t: &Theme, k: usize, r: u32, i: u32) -> Line<'static> {
        let run = &app.model.runs[r as usize];
        let row = &run.rows[i as usize];
        let c = app.model.category(r, i).map_or_else(
            || "–".into(),
            |c| {
                if self.mixed {
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
        let metric_cell = self.metric_cell(row, hidden);
        let judge = if self.judged && hidden {
            "  "
        } else if self.judged {
            judge_mark(run, row)
        } else {
            ""
        };
        let vw = self.vw;
        Line::from(vec![
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
                    } else if self.narrow {
                        crate::tui::model::filter::verdict_short(row.verdict)
                    } else {
                        row.verdict_name()
                    }
                ),
                vstyle,
            ),
            Span::styled(judge, base),
            Span::styled(
                format!(
                    "{labelled}{metric_cell}{}",
                    clip(&self.names[r as usize], self.rest)
                ),
                base,
            ),
        ])
    }
}

/// The judge column of a row: its answer, `≠` where it contradicts the verifier.
fn judge_mark(run: &crate::tui::data::RunIndex, row: &crate::tui::data::Row) -> &'static str {
    use crate::llm::judge::JudgeAnswer;
    let pass = row.verdict.is_pass();
    match run.judge.get(&*row.id).map(|j| j.answer) {
        Some(JudgeAnswer::Yes) if pass => "✓ ",
        Some(JudgeAnswer::Yes) => "✓≠",
        Some(JudgeAnswer::No) if !pass => "✗ ",
        Some(JudgeAnswer::No) => "✗≠",
        Some(JudgeAnswer::Unparseable) => "? ",
        None => "  ",
    }
}

/// What an empty sample list says: why it is empty and the key that helps.
fn no_samples(app: &App, t: &Theme) -> Line<'static> {
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
    Line::from(Span::styled(text, Style::default().fg(t.muted)))
}
