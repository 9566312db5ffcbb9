//! The Raw tab of the detail pane: each call's prompt, reasoning (folded when long)
//! and answer, and the one-line reasoning summary the Overview shows.

use super::detail_blind::muted;
use super::longtext::{LONG, Piece};
use super::text;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// `1840` as `1,840`.
fn grouped(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::with_capacity(d.len() + d.len() / 3);
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A call's reasoning under its answer: one fold line (its length and tokens), and
/// the text itself when unfolded (`z`). Redacted reasoning says so and shows nothing.
fn reasoning_fold<'a>(
    c: &'a crate::record::CallRecord,
    open: bool,
    w: usize,
    t: &Theme,
) -> Vec<Piece<'a>> {
    let tokens = c
        .reasoning_tokens
        .map(|n| format!(" · {} tokens", grouped(n)))
        .unwrap_or_default();
    let text = c.reasoning.as_deref().filter(|x| !x.is_empty());
    let Some(text) = text else {
        return if c.reasoning_redacted {
            hung(
                &format!("▸ reasoning redacted by the provider (not stored){tokens}"),
                w,
                Style::default().fg(t.muted),
            )
        } else if c.reasoning_tokens.is_some_and(|n| n > 0) {
            hung(
                &format!("▸ reasoning not returned by the provider{tokens}"),
                w,
                Style::default().fg(t.muted),
            )
        } else {
            vec![]
        };
    };
    let chars = grouped(super::longtext::chars(text) as u64);
    let redacted = if c.reasoning_redacted {
        " · part redacted"
    } else {
        ""
    };
    // Cut for storage (the whole was longer than a run file's line may hold).
    let cut = c
        .reasoning_cut
        .as_ref()
        .map(|x| format!(" · cut from {} bytes", grouped(x.bytes)))
        .unwrap_or_default();
    if !open {
        return hung(
            &format!("▸ reasoning · {chars} chars{tokens}{redacted}{cut} · z unfolds"),
            w,
            Style::default().fg(t.muted),
        );
    }
    let mut out: Vec<Piece<'a>> = hung(
        &format!("▾ reasoning · {chars} chars{tokens}{redacted}{cut} · z folds"),
        w,
        Style::default().fg(t.title),
    );
    if text.len() > LONG {
        out.push(Piece::Text {
            text,
            prefix: "    │ ",
            style: Style::default().fg(t.muted),
        });
        return out;
    }
    // Wrapped rows keep the rule and the indent (a hanging indent).
    let safe = crate::base::sanitize::for_terminal(text);
    for row in text::hanging(&safe, "    │ ", "    │ ", w) {
        out.push(muted(row, t).into());
    }
    out
}

/// A fold line at `w` columns: indented two, its wrapped rows four (under the words
/// after the `▸`).
fn hung(s: &str, w: usize, style: Style) -> Vec<Piece<'static>> {
    text::hanging(s, "  ", "    ", w)
        .into_iter()
        .map(|row| Line::from(Span::styled(row, style)).into())
        .collect()
}

/// The Overview's reasoning line: tokens over the sample's calls, and whether a call
/// stopped at the token limit; None when neither applies.
pub(super) fn reasoning_summary(rec: &crate::record::SampleRecord) -> Option<String> {
    let calls: Vec<&crate::record::CallRecord> = rec
        .rounds
        .iter()
        .flat_map(|r| std::iter::once(&r.informalize).chain(r.autoformalize.as_ref()))
        .collect();
    let tokens: Option<u64> = calls
        .iter()
        .filter_map(|c| c.reasoning_tokens)
        .reduce(u64::saturating_add);
    let chars: usize = calls
        .iter()
        .filter_map(|c| c.reasoning.as_deref())
        .map(super::longtext::chars)
        .sum();
    let truncated = calls.iter().filter(|c| c.truncated).count();
    let redacted = calls.iter().any(|c| c.reasoning_redacted);
    let mut parts = Vec::new();
    match tokens {
        Some(n) if n > 0 => parts.push(format!("{} tokens", grouped(n))),
        _ if chars > 0 => parts.push(format!(
            "{} chars (tokens not reported)",
            grouped(chars as u64)
        )),
        _ if redacted => parts.push("redacted".to_string()),
        _ => {}
    }
    if truncated > 0 {
        parts.push(if calls.len() > 1 {
            format!("truncated ({truncated} of {} calls)", calls.len())
        } else {
            "truncated".to_string()
        });
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// A model call's line: its prompt, tokens, latency, attempts, cost and truncation.
fn call_head(name: &str, c: &crate::record::CallRecord) -> String {
    format!(
        "{name} [{}] {} in / {} out tok{} · {} ms · {} attempt(s){}{}",
        c.prompt_id,
        c.input_tokens,
        c.output_tokens,
        c.reasoning_tokens
            .map(|n| format!(" ({} reasoning)", grouped(n)))
            .unwrap_or_default(),
        c.latency_ms,
        c.attempts,
        c.cost_usd
            .map(|x| format!(" · ${x:.5}"))
            .unwrap_or_default(),
        if c.truncated { " · truncated" } else { "" }
    )
}

pub(super) fn raw<'a>(app: &'a App, w: usize, t: &Theme) -> Vec<Piece<'a>> {
    let Some(d) = &app.panes.detail else {
        return vec![];
    };
    let Ok(rec) = &d.record else { return vec![] };
    let mut out: Vec<Piece<'a>> =
        vec![muted(format!("sample {} · finished {}", rec.id, rec.finished), t).into()];
    for r in &rec.rounds {
        let round = format!("round {}: from {}", r.round, r.input);
        for row in text::hanging(&round, "", "  ", w) {
            out.push(Line::from(Span::styled(row, Style::default().fg(t.title))).into());
        }
        for (name, call) in [
            ("informalize", Some(&r.informalize)),
            ("autoformalize", r.autoformalize.as_ref()),
        ] {
            let Some(c) = call else { continue };
            let head = call_head(name, c);
            // Wrapped rows hang under the call's name, never from column 0.
            for row in text::hanging(&head, "▸ ", "  ", w) {
                out.push(muted(row, t).into());
            }
            if let Some(e) = &c.error {
                let e = crate::base::sanitize::for_terminal(e);
                for row in text::hanging(&e, "  error: ", "         ", w) {
                    out.push(Piece::Line(Line::from(Span::styled(
                        row,
                        Style::default().fg(t.warning),
                    ))));
                }
            }
            // The conversation: what the model was sent, and what it said.
            let call = d
                .transcript
                .iter()
                .find(|x| x.round == r.round && x.name == name);
            // The reasoning comes before the answer, as the model produced it (and as
            // Inspect shows it).
            let mut fold = Some(reasoning_fold(c, app.panes.detail_view.reasoning, w, t));
            for m in call.map_or(&[][..], |c| c.messages.as_slice()) {
                if m.role == "assistant"
                    && let Some(f) = fold.take()
                {
                    out.extend(f);
                }
                out.push(Piece::Line(Line::from(Span::styled(
                    format!("  {}:", m.role),
                    Style::default().fg(t.title).add_modifier(Modifier::BOLD),
                ))));
                if m.text.len() > LONG {
                    out.push(Piece::Text {
                        text: &m.text,
                        prefix: "    ",
                        style: Style::default(),
                    });
                    continue;
                }
                for row in text::hanging(&m.text, "    ", "    ", w) {
                    out.push(Line::from(row).into());
                }
            }
            out.extend(fold.into_iter().flatten());
        }
        out.push(Piece::Line(Line::from(vec![
            Span::raw("  verdict "),
            Span::styled(
                r.verdict.name().to_string(),
                Style::default().fg(t.verdict_color(r.verdict.kind())),
            ),
        ])));
    }
    out
}
