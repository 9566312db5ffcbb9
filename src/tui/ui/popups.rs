//! Overlays: help (from the keymap), filter editor, compare, warnings.

use super::block;
use crate::report::By;
use crate::tui::app::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::model::LabelFilter;
use crate::tui::theme::Theme;
use crate::verify::VerdictKind;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The help overlay, generated from the keymap (two columns when the screen is short).
pub fn help(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    use crate::tui::keymap::{Context, Keymap};
    let key_w = app
        .keymap
        .bindings
        .iter()
        .map(|b| super::text::width(&Keymap::keys_text(b)))
        .max()
        .unwrap_or(8)
        .min(24);
    let head = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::from(Span::styled(
        "keys (one keymap: every footer and this list come from it)",
        head,
    ))];
    for ctx in Context::ALL {
        if ctx != Context::Normal {
            lines.push(Line::from(""));
            let tail = if ctx.fallback().is_some() {
                " · other keys as when browsing"
            } else {
                ""
            };
            lines.push(Line::from(Span::styled(
                format!("{}{tail}", ctx.title()),
                head,
            )));
        }
        for b in app.keymap.of(ctx) {
            lines.push(Line::from(vec![
                Span::styled(
                    super::text::clip(&Keymap::keys_text(b), key_w),
                    Style::default().fg(t.highlight),
                ),
                Span::raw("  "),
                Span::raw(b.desc.to_string()),
            ]));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "wheel scrolls · click selects",
        Style::default().fg(t.muted),
    )));
    lines.push(Line::from(Span::styled(
        "change keys in ~/.config/autoeval/config.toml: [keys] for browsing, [keys.<mode>] (search, note, form, label, filter, chart, overlay) for the rest",
        Style::default().fg(t.muted),
    )));
    let w = area.width.saturating_sub(4).min(90);
    // Rows after wrapping, so the last line can be scrolled into view.
    let inner_w = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_w).max(1))
        .sum();
    let rows = rows.min(u16::MAX as usize - 2) as u16;
    let h = (rows + 2).min(area.height.saturating_sub(1));
    let r = centered(area, w, h);
    let max_scroll = (rows + 2).saturating_sub(h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((app.overlay_scroll().min(max_scroll), 0))
            .block(block(
                &format!(
                    "Help · {} scroll · {} closes",
                    scroll_keys(app),
                    close_key(app)
                ),
                true,
                t,
            )),
        r,
    );
}

/// The key that closes an overlay, from the keymap.
fn close_key(app: &App) -> String {
    app.key_name(Context::Overlay, Action::Back)
}

/// The keys that scroll an overlay (`j/k`), from the keymap.
fn scroll_keys(app: &App) -> String {
    format!(
        "{}/{}",
        app.key_name(Context::Overlay, Action::Down),
        app.key_name(Context::Overlay, Action::Up)
    )
}

/// The filter editor.
pub fn filter(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let max = app.model.derived.buckets.last().copied().unwrap_or(0);
    let (lo, hi) = app.model.listing.filter.range.unwrap_or((0, max));
    let name = if app.model.by == By::Operators {
        "operators"
    } else {
        "depth"
    };
    let inverted = crate::tui::components::filter_edit::invalid(&app.model.listing.filter);
    let bad = if inverted { "  invalid: from > to" } else { "" };
    let mut rows: Vec<String> = vec![
        format!("{name} from  ◂ {lo} ▸{bad}"),
        format!("{name} to    ◂ {hi} ▸{bad}"),
    ];
    for k in VerdictKind::ALL {
        let ticked = app.model.listing.filter.verdicts.contains(&k);
        rows.push(format!("[{}] {}", if ticked { "x" } else { " " }, k.name()));
    }
    rows.push(format!(
        "labels   ◂ {} ▸",
        match app.model.listing.filter.labels {
            LabelFilter::Any => "any",
            LabelFilter::Labelled => "labelled",
            LabelFilter::Unlabelled => "unlabelled",
        }
    ));
    rows.push(format!(
        "dataset  ◂ {} ▸",
        app.model
            .listing
            .filter
            .kinds
            .iter()
            .next()
            .cloned()
            .unwrap_or_else(|| "any".into())
    ));
    let any = |x: Option<String>| x.unwrap_or_else(|| "any".into());
    rows.push(format!(
        "failure  ◂ {} ▸",
        any(app
            .model
            .listing
            .filter
            .failure
            .map(|k| k.name().to_string()))
    ));
    let cur = app
        .model
        .taxonomy
        .categories
        .get(app.filter_editor().label_cursor)
        .map(|c| c.id.clone())
        .unwrap_or_default();
    for (tag, set) in [
        ("label any of ", &app.model.listing.filter.label_any),
        ("label none of", &app.model.listing.filter.label_none),
    ] {
        let tick = if set.contains(&cur) { "x" } else { " " };
        rows.push(format!("{tag} ◂ [{tick}] {cur} ▸ {} ticked", set.len()));
    }
    rows.push(format!(
        "judge    ◂ {} ▸",
        app.model.listing.filter.judge.name()
    ));
    rows.push(format!(
        "passes in ◂ {} ▸ fails here",
        any(app
            .model
            .listing
            .filter
            .passes_in
            .and_then(|i| app.model.runs.get(i))
            .map(super::super::data::RunIndex::name))
    ));
    rows.push(format!(
        "closeness ◂ {} ▸",
        app.model.listing.filter.closeness.name()
    ));
    let mut lines: Vec<Line> = rows
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let style = if i == app.filter_editor().field {
                Style::default().fg(t.selection_fg).bg(t.selection_bg)
            } else {
                Style::default().fg(t.fg)
            };
            let kind = i
                .checked_sub(2)
                .and_then(|k| u8::try_from(k).ok())
                .and_then(VerdictKind::from_index);
            let color = if i < 2 && inverted {
                Style::default().fg(t.verdict_color(VerdictKind::NotEquivalent))
            } else if let Some(k) = kind {
                Style::default().fg(t.verdict_color(k))
            } else {
                style
            };
            Line::from(Span::styled(
                s,
                if i == app.filter_editor().field {
                    style
                } else {
                    color
                },
            ))
        })
        .collect();
    lines.push(Line::from(Span::styled(
        format!("showing {}", app.filter_summary()),
        Style::default().fg(t.muted),
    )));
    lines.push(Line::from(Span::styled(
        "no verdict ticked = all · digits type a range · ←/→ choose",
        Style::default().fg(t.muted),
    )));
    let r = centered(area, 60, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(lines).block(block("Filters", true, t)), r);
}

/// Same φ₀ across runs, side by side, with the first two φ₁ diffed.
pub fn compare(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let r = centered(
        area,
        area.width.saturating_sub(2),
        area.height.saturating_sub(1),
    );
    f.render_widget(Clear, r);
    let outer = block(
        &format!("Compare across runs · {} closes", close_key(app)),
        true,
        t,
    );
    let inner = outer.inner(r);
    f.render_widget(outer, r);
    let Some(view) = app.compare() else { return };
    let title = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
    let head = Paragraph::new(Line::from(vec![
        Span::styled("φ₀ ", Style::default().fg(t.title)),
        Span::raw(view.phi0.clone()),
    ]))
    .wrap(Wrap { trim: false });
    let diff_h = if view.phi1_diff.is_empty() {
        1
    } else {
        (view.phi1_diff.len() as u16 + 1).min(inner.height / 3)
    };
    let [top, cols_area, bottom] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(diff_h),
    ])
    .areas(inner);
    f.render_widget(head, top);
    // At most three columns side by side; more runs than that are listed in the last.
    let shown = view.columns.len().clamp(1, 3);
    let areas =
        Layout::horizontal(vec![Constraint::Ratio(1, shown as u32); shown]).split(cols_area);
    for (k, area) in areas.iter().enumerate() {
        let cols: &[crate::tui::model::CompareColumn] = if k + 1 == shown {
            &view.columns[k..]
        } else {
            std::slice::from_ref(&view.columns[k])
        };
        let mut lines = Vec::new();
        for c in cols {
            lines.push(Line::from(vec![
                Span::styled(format!("{} · {} · ", c.run, c.model), title),
                Span::styled(
                    c.verdict.name(),
                    Style::default().fg(t.verdict_color(c.verdict)),
                ),
            ]));
            lines.push(Line::from(vec![
                Span::styled("ψ  ", Style::default().fg(t.title)),
                Span::raw(c.psi.clone()),
            ]));
            lines.push(Line::from(vec![
                Span::styled("φ₁ ", Style::default().fg(t.title)),
                Span::raw(if c.phi1.is_empty() {
                    "—".to_string()
                } else {
                    c.phi1.clone()
                }),
            ]));
            lines.push(Line::from(""));
        }
        f.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                Block::default()
                    .borders(Borders::LEFT)
                    .border_style(Style::default().fg(t.border)),
            ),
            *area,
        );
    }
    if view.columns.len() < 2 {
        f.render_widget(
            Paragraph::new(Span::styled(
                "no other run has this φ₀",
                Style::default().fg(t.muted),
            )),
            bottom,
        );
        return;
    }
    let (a, b) = view.pair;
    let pick = if view.columns.len() > 2 {
        format!(
            " · {}/{} picks the other run",
            app.key_name(Context::Normal, Action::PrevTab),
            app.key_name(Context::Normal, Action::NextTab)
        )
    } else {
        String::new()
    };
    let name = |k: usize| view.columns.get(k).map_or("", |c| c.run.as_str());
    let mut dl = vec![Line::from(Span::styled(
        format!("φ₁ of {} vs φ₁ of {}{pick}", name(a), name(b)),
        Style::default().fg(t.title),
    ))];
    if view.phi1_diff.is_empty() {
        dl[0] = Line::from(Span::styled(
            "φ₁ vs φ₁: one of them did not parse",
            Style::default().fg(t.muted),
        ));
    }
    for l in view.phi1_diff.iter().filter(|l| l.change.is_change()) {
        dl.push(Line::from(vec![
            Span::raw(format!(
                "  {} │ {}",
                l.left.clone().unwrap_or_default(),
                l.right.clone().unwrap_or_default()
            )),
            Span::styled(
                format!("  ◀ {}", l.change.describe()),
                Style::default().fg(t.diff_changed),
            ),
        ]));
    }
    if view.phi1_diff.iter().all(|l| !l.change.is_change()) && !view.phi1_diff.is_empty() {
        dl.push(Line::from(Span::styled(
            "  the same φ₁",
            Style::default().fg(t.muted),
        )));
    }
    f.render_widget(Paragraph::new(dl).wrap(Wrap { trim: true }), bottom);
}

/// Loading warnings.
pub fn warnings(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let lines: Vec<Line> = if app.model.warnings.is_empty() {
        vec![Line::from("no warnings")]
    } else {
        app.model
            .warnings
            .iter()
            .map(|w| {
                Line::from(Span::styled(
                    crate::sanitize::one_line(w).into_owned(),
                    Style::default().fg(t.warning),
                ))
            })
            .collect()
    };
    let r = centered(
        area,
        area.width.saturating_sub(6),
        area.height.saturating_sub(4),
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(
                &format!("Warnings · {} closes", close_key(app)),
                true,
                t,
            )),
        r,
    );
}

/// The label panel: one key per category, ticks for this annotator. Over the detail
/// pane it takes at most half of it; over the sample list (`whole`) all of it.
pub fn labels(f: &mut Frame, area: Rect, app: &App, t: &Theme, whole: bool) {
    use crate::tui::keymap::{Action, Context};
    let (mine, note) = app.model.my_labels();
    let suggestion = app
        .panes
        .detail
        .as_ref()
        .and_then(crate::tui::model::Detail::suggestion);
    // Over the detail, φ₀, ψ and φ₁ stay visible above the panel: more, narrower
    // columns when the pane is short.
    let cats = &app.model.taxonomy.categories;
    let max_rows = if whole {
        (area.height as usize).saturating_sub(2).max(6)
    } else {
        (area.height as usize / 2).max(6)
    };
    let key_of = |a| {
        app.keymap
            .first_key(Context::Label, a)
            .unwrap_or_else(|| "?".into())
    };
    let fixed = 2 + 1 + usize::from(suggestion.is_some());
    let inner_w = (area.width as usize).saturating_sub(2);
    // Names in full when some column count fits them (the widest cell, "k [x] name");
    // else as many columns as fit, names clipped.
    let full = cats
        .iter()
        .map(|c| super::text::width(&format!("{} [x] {}", c.key, c.name)) + 1)
        .max()
        .unwrap_or(0);
    let cols = (1..=4usize)
        .filter(|n| inner_w / n >= full)
        .find(|n| cats.len().div_ceil(*n) + fixed - 2 <= max_rows)
        .or_else(|| {
            (1..=4usize)
                .filter(|n| inner_w / n >= 14 || *n == 1)
                .find(|n| cats.len().div_ceil(*n) + fixed <= max_rows)
        })
        .unwrap_or_else(|| (inner_w / 14).clamp(1, 4));
    let cell = |c: &crate::tui::labels::Category, w: usize| {
        let on = mine.contains(&c.id);
        let style = if on {
            Style::default().fg(t.selection_fg).bg(t.selection_bg)
        } else {
            Style::default().fg(t.fg)
        };
        let text = format!("{} [{}] {}", c.key, if on { "x" } else { " " }, c.name);
        Span::styled(super::text::clip(&text, w.saturating_sub(1)) + " ", style)
    };
    let mut lines = vec![];
    let mut side = String::new();
    // Group headers only when everything fits with them.
    let sides = cats
        .iter()
        .map(|c| c.side.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let rows_needed = cats.len().div_ceil(cols) + sides + fixed;
    let headers = rows_needed <= max_rows;
    let w = (area.width as usize).saturating_sub(2) / cols;
    let mut row: Vec<Span> = vec![];
    for c in cats {
        if headers && c.side != side {
            if !row.is_empty() {
                lines.push(Line::from(std::mem::take(&mut row)));
            }
            side = c.side.clone();
            lines.push(Line::from(Span::styled(
                side.clone(),
                Style::default().fg(t.title).add_modifier(Modifier::BOLD),
            )));
        }
        row.push(cell(c, w));
        if row.len() == cols {
            lines.push(Line::from(std::mem::take(&mut row)));
        }
    }
    if !row.is_empty() {
        lines.push(Line::from(row));
    }
    if let Some(s) = suggestion {
        lines.push(Line::from(vec![
            Span::styled("suggested by the diff: ", Style::default().fg(t.muted)),
            Span::styled(
                app.model.taxonomy.name(s).to_string(),
                Style::default().fg(t.diff_changed),
            ),
            Span::styled(
                format!("  ({} accepts)", key_of(Action::AcceptSuggestion)),
                Style::default().fg(t.muted),
            ),
        ]));
    }
    let note_line = if app.mode() == crate::tui::layer::Mode::Note {
        format!("note: {}▏", app.model.labelling.note.text)
    } else if note.is_empty() {
        format!("note: — ({} to write one)", key_of(Action::EditNote))
    } else {
        format!("note: {note}")
    };
    lines.push(Line::from(Span::styled(
        note_line,
        Style::default().fg(t.highlight),
    )));
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect {
        x: area.x,
        y: area.y + area.height - h,
        width: area.width,
        height: h,
    };
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(block(&format!("Labels · {}", app.model.annotator), true, t)),
        r,
    );
}

/// The new-run form.
pub fn new_run(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(form) = app.form() else { return };
    let w = area.width.saturating_sub(6).min(100);
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let mut lines = Vec::new();
    for (i, (label, _)) in crate::tui::live::FIELDS.iter().enumerate() {
        let sel = i == form.sel;
        let v = form.values.get(i).map_or("", String::as_str);
        let value = if sel {
            format!("{v}▏")
        } else {
            v.to_string()
        };
        // Long values (paths) wrap in full: nothing of what the run gets is hidden.
        lines.extend(super::text::hard_wrap(
            &[
                Span::styled(format!("{label:<24}"), Style::default().fg(t.title)),
                Span::styled(
                    value,
                    if sel {
                        Style::default().fg(t.selection_fg).bg(t.selection_bg)
                    } else {
                        Style::default().fg(t.fg)
                    },
                ),
            ],
            inner,
        ));
    }
    lines.extend(super::text::hard_wrap(
        &[Span::styled(
            "dataset: ksat, pl, fol, fol-english, regex or a file · model: perturb, openai:<m>, anthropic:<m>",
            Style::default().fg(t.muted),
        )],
        inner,
    ));
    lines.extend(super::text::hard_wrap(
        &[
            Span::styled("cost      ", Style::default().fg(t.title)),
            Span::styled(form.estimate.clone(), Style::default().fg(t.fg)),
        ],
        inner,
    ));
    // The command on lines of its own, cut at the popup's width with no indent, so a
    // terminal selection of those lines is the command.
    lines.push(Line::from(Span::styled(
        "command (as `autoeval run` takes it)",
        Style::default().fg(t.title),
    )));
    lines.extend(super::text::hard_wrap(
        &[Span::styled(
            form.command.clone(),
            Style::default().fg(t.fg),
        )],
        inner,
    ));
    if !form.error.is_empty() {
        lines.extend(super::text::hard_wrap(
            &[Span::styled(
                form.error.clone(),
                Style::default().fg(t.warning),
            )],
            inner,
        ));
    }
    // Every line is cut to the width already: the popup is exactly as tall as they are,
    // so the whole command is on screen to read or copy.
    let r = centered(area, w, u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(block(
            &format!(
                "New run · {} starts · {} closes",
                app.key_name(Context::Form, Action::Confirm),
                app.key_name(Context::Form, Action::Cancel)
            ),
            true,
            t,
        )),
        r,
    );
}

/// Label counts by category × operator count (or depth).
pub fn label_counts(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let counts = &app.model.derived.label_counts;
    let buckets: std::collections::BTreeSet<usize> =
        counts.values().flat_map(|m| m.keys().copied()).collect();
    let max = counts
        .values()
        .flat_map(|m| m.values().copied())
        .max()
        .unwrap_or(1)
        .max(1);
    let name_w = 24;
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:name_w$} {}  total",
            "",
            buckets
                .iter()
                .map(|b| format!("{b:>3}"))
                .collect::<String>()
        ),
        Style::default().fg(t.muted),
    ))];
    for (c, m) in counts {
        let mut spans = vec![Span::styled(
            format!(
                "{:name_w$} ",
                app.model
                    .taxonomy
                    .name(c)
                    .chars()
                    .take(name_w)
                    .collect::<String>()
            ),
            Style::default().fg(t.title),
        )];
        for b in &buckets {
            let n = m.get(b).copied().unwrap_or(0);
            let text = if n == 0 {
                "  ·".to_string()
            } else {
                format!("{n:>3}")
            };
            let color = if n == 0 {
                t.muted
            } else if n * 2 > max {
                t.highlight
            } else {
                t.fg
            };
            spans.push(Span::styled(text, Style::default().fg(color)));
        }
        spans.push(Span::raw(format!("  {:>5}", m.values().sum::<usize>())));
        lines.push(Line::from(spans));
    }
    if counts.is_empty() {
        lines.push(Line::from(Span::styled(
            "no labels yet: select a sample and press a",
            Style::default().fg(t.muted),
        )));
    }
    let by = if app.model.by == crate::report::By::Operators {
        "operators"
    } else {
        "depth"
    };
    let r = centered(area, area.width.saturating_sub(4), lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(block(
            &format!("Labels by category × {by} · {} closes", close_key(app)),
            true,
            t,
        )),
        r,
    );
}

/// One run at a glance: A2/A3, failure kinds, the judge against the verifier, pass/fail
/// against the other runs that answered the same φ₀.
pub fn run_summary(f: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let title = Style::default().fg(t.title).add_modifier(Modifier::BOLD);
    let mut lines: Vec<Line> = Vec::new();
    let Some(s) = app.summary() else {
        lines.push(Line::from("no run loaded"));
        return draw_overlay(
            f,
            area,
            lines,
            &format!("Run summary · {} closes", close_key(app)),
            0,
            t,
        );
    };
    let pct = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{:.1}%", 100.0 * v));
    lines.push(Line::from(Span::styled(
        format!("{} · {}", s.name, s.model),
        title,
    )));
    lines.push(Line::from(format!(
        "{} samples · A2 compliance {} · A3 accuracy {} · copied {}",
        s.counts.n,
        pct(s.counts.compliance()),
        pct(s.counts.accuracy()),
        s.counts.copied
    )));
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "failure kinds (automatic, from the diff)",
        title,
    )));
    if s.kinds.is_empty() {
        lines.push(Line::from(Span::styled(
            "  none",
            Style::default().fg(t.muted),
        )));
    }
    for (k, n) in &s.kinds {
        lines.push(Line::from(format!("  {:<22} {n:>6}", k.name())));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "judge (A4) against the verifier",
        title,
    )));
    match &s.judge {
        None => lines.push(Line::from(Span::styled(
            "  no judge decisions (autoeval judge RUN)",
            Style::default().fg(t.muted),
        ))),
        Some(j) => {
            lines.push(Line::from(format!("  judge {}", j.model)));
            lines.push(Line::from("                 verifier ≡   verifier ≢"));
            lines.push(Line::from(format!(
                "  judge yes      {:>10}   {:>10}",
                j.tp, j.fp
            )));
            lines.push(Line::from(format!(
                "  judge no       {:>10}   {:>10}",
                j.fn_, j.tn
            )));
            let f3 = |x: Option<f64>| x.map_or_else(|| "–".into(), |v| format!("{v:.3}"));
            lines.push(Line::from(format!(
                "  unparseable {} · precision {} · recall {} · F1 {}",
                j.unparseable,
                f3(j.precision()),
                f3(j.recall()),
                f3(j.f1())
            )));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "pass/fail against runs of the same dataset, paired by φ₀ (this run = A)",
        title,
    )));
    if s.versus.is_empty() {
        lines.push(Line::from(Span::styled(
            "  no other run of this dataset answered these φ₀",
            Style::default().fg(t.muted),
        )));
    }
    if s.other_datasets > 0 {
        lines.push(Line::from(Span::styled(
            format!(
                "  {} run(s) of other datasets not paired (equal φ₀ there are a coincidence)",
                s.other_datasets
            ),
            Style::default().fg(t.muted),
        )));
    }
    for (name, p) in &s.versus {
        let mc = crate::report::compare::format_p(p.mcnemar_p());
        lines.push(Line::from(format!(
            "  {name}: n {} · both {} · A only {} · B only {} · neither {} · McNemar p {mc}",
            p.n(),
            p.both,
            p.a_only,
            p.b_only,
            p.neither
        )));
    }
    draw_overlay(
        f,
        area,
        lines,
        &format!(
            "Run summary · {} scroll · {} closes",
            scroll_keys(app),
            close_key(app)
        ),
        app.overlay_scroll(),
        t,
    );
}

fn draw_overlay(f: &mut Frame, area: Rect, lines: Vec<Line>, title: &str, scroll: u16, t: &Theme) {
    let w = area.width.saturating_sub(4).min(100);
    let inner_w = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_w).max(1))
        .sum();
    let rows = rows.min(u16::MAX as usize - 2) as u16;
    let h = (rows + 2).min(area.height);
    let r = centered(area, w, h);
    let max_scroll = (rows + 2).saturating_sub(h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(max_scroll), 0))
            .block(block(title, true, t)),
        r,
    );
}
