//! ψ's lines and the Overview of a blind session, drawn from the sample's projection
//! alone (split from `detail`, which draws the open sample).

use super::formula;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// A line in the muted colour.
pub(super) fn muted(s: impl Into<String>, t: &Theme) -> Line<'static> {
    Line::from(Span::styled(s.into(), Style::default().fg(t.muted)))
}

/// What blind mode says in place of the verdict and the automatic analyses.
pub(super) const BLIND_NOTE: &str = "blind: verdict, judge, closeness, failure kinds, diff, countermodel and others' labels stay hidden until you label this sample";

/// ψ's lines: its own line breaks kept, the characters the search matched
/// highlighted, and on an open sample the copy check's span (`copied`) struck through.
pub(super) fn psi_lines(
    app: &App,
    psi: &str,
    copied: Option<(usize, usize)>,
    t: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let hits = crate::tui::search::Query::new(&app.model.listing.search.field.text).positions(psi);
    let (mut k, mut byte) = (0, 0);
    for (n, text) in psi.split('\n').enumerate() {
        let mut line = vec![Span::styled(
            if n == 0 { "ψ  " } else { "   " },
            Style::default().fg(t.title),
        )];
        for c in text.chars() {
            let mut style = if hits.contains(&k) {
                Style::default()
                    .fg(t.highlight)
                    .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
            } else {
                Style::default()
            };
            if copied.is_some_and(|(s, e)| (s..e).contains(&byte)) {
                style = style.fg(t.warning).add_modifier(Modifier::CROSSED_OUT);
            }
            line.push(Span::styled(c.to_string(), style));
            k += 1;
            byte += c.len_utf8();
        }
        k += 1;
        byte += 1;
        out.push(Line::from(line));
    }
}

/// The Overview in a blind session before this annotator labelled the sample: drawn
/// from its projection alone (φ₀, ψ and the reply as plain text, the vocabulary).
pub(super) fn blind_overview(
    app: &App,
    b: &crate::tui::model::blind::BlindSample,
    w: usize,
    t: &Theme,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let Some((task, reply)) = &b.task {
        out.extend(super::task_detail::blind_lines(task, reply.as_deref(), t));
        if task.gold.is_some() {
            out.push(muted(BLIND_NOTE, t));
            return out;
        }
    }
    out.extend(formula::lines("φ₀ ", &b.phi0, w, t));
    psi_lines(app, b.psi.as_deref().unwrap_or("—"), None, t, &mut out);
    super::task_detail::reply_lines(b.reply.as_deref(), t, &mut out);
    if !b.vocabulary.is_empty() {
        out.push(Line::from(Span::styled(
            "vocabulary",
            Style::default().fg(t.title),
        )));
        for l in b.vocabulary.lines() {
            out.push(muted(
                format!("  {}", crate::base::sanitize::one_line(l)),
                t,
            ));
        }
    }
    out.push(muted(BLIND_NOTE, t));
    out
}
