//! The overview of a reference-task sample (`run --task`): premises or context, the
//! conclusion or question, the gold label against the model's answer, the reply's
//! reasoning, and for `folio-a`/`folio-i` the reference it was scored against.

use crate::record::{SampleRecord, TaskRecord};
use crate::tui::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// Most characters of the reply shown (the Raw tab has all of it).
const MAX_REPLY: usize = 4000;

fn safe(s: &str) -> String {
    crate::base::sanitize::for_terminal(s).into_owned()
}

fn head(name: &str, t: &Theme) -> Span<'static> {
    Span::styled(format!("{name} "), Style::default().fg(t.title))
}

/// The lines of a task sample's overview (the verdict lines follow them).
/// Blind (`blind`): right or wrong is not shown (it is the verdict).
pub(crate) fn lines(
    rec: &SampleRecord,
    task: &TaskRecord,
    blind: bool,
    t: &Theme,
) -> Vec<Line<'static>> {
    let mut out = item_lines(task, blind, t);
    // The call: its reply (reasoning steps and answer) and any reasoning kept apart.
    let call = rec.rounds.first().and_then(|r| task.reply_call(r));
    if let Some(c) = call {
        if let Some(r) = c.reasoning.as_deref().filter(|r| !r.is_empty()) {
            out.push(Line::from(head("model reasoning", t)));
            for l in r.chars().take(MAX_REPLY).collect::<String>().lines() {
                out.push(Line::from(Span::styled(
                    format!("  {}", safe(l)),
                    Style::default().fg(t.muted),
                )));
            }
        }
        reply_lines(c.output.as_deref(), t, &mut out);
    }
    out
}

/// A blind session's lines of a task sample, from its projection (the item without
/// right/wrong or scores, and the reply).
pub(crate) fn blind_lines(task: &TaskRecord, reply: Option<&str>, t: &Theme) -> Vec<Line<'static>> {
    let mut out = item_lines(task, true, t);
    reply_lines(reply, t, &mut out);
    out
}

/// The item: task, premises, question, reference, gold and answer, scores.
fn item_lines(task: &TaskRecord, blind: bool, t: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        head("task", t),
        Span::raw(format!("{} · item {}", task.kind.name(), safe(&task.item))),
    ])];
    let reasoning_task = task.gold.is_some();
    let (premises, asked) = task.kind.item_words();
    out.push(Line::from(head(premises, t)));
    for p in &task.premises {
        out.push(Line::from(format!("  {}", safe(p))));
    }
    out.push(Line::from(vec![
        head(asked, t),
        Span::raw(safe(&task.conclusion)),
    ]));
    if let Some(r) = &task.reference {
        out.push(Line::from(vec![head("reference", t), Span::raw(safe(r))]));
    }
    if reasoning_task {
        let (word, color) = match (task.answer.is_some(), task.correct) {
            (false, _) => ("no answer (counted wrong)", t.warning),
            (true, Some(true)) => (
                "right",
                t.verdict_color(crate::verify::VerdictKind::Equivalent),
            ),
            (true, _) => (
                "wrong",
                t.verdict_color(crate::verify::VerdictKind::NotEquivalent),
            ),
        };
        let mut line = vec![
            head("gold", t),
            Span::raw(safe(task.gold.as_deref().unwrap_or("?"))),
            Span::raw("  "),
            head("answer", t),
            Span::raw(safe(task.answer.as_deref().unwrap_or("—"))),
        ];
        if !blind {
            line.push(Span::raw("  "));
            line.push(Span::styled(
                word,
                Style::default().fg(color).add_modifier(Modifier::BOLD),
            ));
        }
        out.push(Line::from(line));
        if let Some(how) = &task.read {
            out.push(Line::from(Span::styled(
                format!("  read by the rule: {}", safe(how)),
                Style::default().fg(t.muted),
            )));
        }
    }
    if let Some(s) = task.text_scores {
        out.push(Line::from(vec![
            head("scores", t),
            Span::raw(format!(
                "BLEU {:.3} · ROUGE-L {:.3} · METEOR {:.3} · BERTScore-MiniLM {}",
                s.bleu,
                s.rouge_l,
                s.meteor,
                s.bertscore_minilm
                    .map_or_else(|| "not computed".to_string(), |b| format!("{b:.3}"))
            )),
        ]));
    }
    out
}

/// The reply as the model wrote it, cut at [`MAX_REPLY`] characters.
pub(crate) fn reply_lines(reply: Option<&str>, t: &Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::from(head("reply", t)));
    let text = reply.unwrap_or("—");
    let n = text.chars().count();
    for l in text.chars().take(MAX_REPLY).collect::<String>().lines() {
        out.push(Line::from(format!("  {}", safe(l))));
    }
    if n > MAX_REPLY {
        out.push(Line::from(Span::styled(
            format!("  … {n} characters in all (Raw tab)"),
            Style::default().fg(t.muted),
        )));
    }
}
