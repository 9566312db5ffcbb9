//! Syntax-coloured formulas: wrapped at operators, or as an indented tree.

use crate::syntax::{Expr, Formula, Notation, Regex, print_formula, print_regex};
use crate::tui::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

fn class(c: char) -> u8 {
    match c {
        '∧' | '∨' | '→' | '↔' | '⊕' | '|' | '*' | '+' | '?' => 1,
        '¬' => 2,
        '∀' | '∃' => 3,
        '(' | ')' | ',' | '.' => 4,
        _ => 0,
    }
}

fn style_of(t: &Theme, cls: u8) -> Style {
    match cls {
        1 => Style::default().fg(t.op_connective),
        2 => Style::default().fg(t.op_negation),
        3 => Style::default()
            .fg(t.op_quantifier)
            .add_modifier(Modifier::BOLD),
        4 => Style::default().fg(t.paren),
        _ => Style::default().fg(t.atom),
    }
}

/// Marks the start and end of a highlighted stretch inside text given to [`wrap`]
/// (private-use characters, which formula text never holds: names are identifiers).
const HL_ON: char = '\u{E000}';
const HL_OFF: char = '\u{E001}';

/// Coloured spans for a formula's text.
pub(crate) fn spans(text: &str, t: &Theme) -> Vec<Span<'static>> {
    spans_from(text, t, false).0
}

/// Coloured spans, honouring (and dropping) highlight marks; `hl` is whether the text
/// starts inside a highlight. Returns whether it ends inside one.
fn spans_from(text: &str, t: &Theme, mut hl: bool) -> (Vec<Span<'static>>, bool) {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_cls = 255;
    let style = |cls: u8, hl: bool| {
        if hl {
            // One readable pair: operator colours on the highlight vanished (∨ in cyan
            // on blue was 1.3:1).
            Style::default()
                .fg(t.selection_fg)
                .bg(t.selection_bg)
                .add_modifier(Modifier::UNDERLINED)
        } else {
            style_of(t, cls)
        }
    };
    for c in text.chars() {
        if c == HL_ON || c == HL_OFF {
            if !cur.is_empty() {
                out.push(Span::styled(std::mem::take(&mut cur), style(cur_cls, hl)));
            }
            hl = c == HL_ON;
            continue;
        }
        let k = class(c);
        if k != cur_cls && !cur.is_empty() {
            out.push(Span::styled(std::mem::take(&mut cur), style(cur_cls, hl)));
        }
        cur_cls = k;
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(Span::styled(cur, style(cur_cls, hl)));
    }
    (out, hl)
}

/// [`lines`] with the byte range `span` of `text` highlighted (the changed subformula).
pub(crate) fn lines_highlighted(
    label: &str,
    text: &str,
    span: Option<(usize, usize)>,
    width: usize,
    t: &Theme,
) -> Vec<Line<'static>> {
    let marked = match span {
        Some((a, b))
            if a < b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b) =>
        {
            format!("{}{HL_ON}{}{HL_OFF}{}", &text[..a], &text[a..b], &text[b..])
        }
        _ => text.to_string(),
    };
    let pad = " ".repeat(label.chars().count());
    let mut hl = false;
    wrap(&marked, width.saturating_sub(label.chars().count()))
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let mut s = vec![Span::styled(
                if i == 0 {
                    label.to_string()
                } else {
                    pad.clone()
                },
                Style::default().fg(t.title),
            )];
            let (sp, end) = spans_from(&l, t, hl);
            hl = end;
            s.extend(sp);
            Line::from(s)
        })
        .collect()
}

/// Splits `text` into lines no wider than `width`, breaking before binary operators
/// where possible (continuation lines indented by two).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut segments: Vec<String> = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if matches!(c, '∧' | '∨' | '→' | '↔' | '⊕') && !cur.trim().is_empty() {
            segments.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        segments.push(cur);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for seg in segments {
        let limit = if lines.is_empty() { width } else { width - 2 };
        if !line.is_empty() && line.chars().count() + seg.chars().count() > limit {
            lines.push(std::mem::take(&mut line));
        }
        line.push_str(if line.is_empty() && !lines.is_empty() {
            seg.trim_start()
        } else {
            &seg
        });
        while line.chars().count() > width {
            let head: String = line.chars().take(width - 2).collect();
            let tail: String = line.chars().skip(width - 2).collect();
            lines.push(head);
            line = tail;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { format!("  {l}") })
        .collect()
}

/// A formula as wrapped, coloured lines, the first prefixed by `label`.
pub fn lines(label: &str, text: &str, width: usize, t: &Theme) -> Vec<Line<'static>> {
    lines_highlighted(label, text, None, width, t)
}

fn tree_logic(f: &Formula, depth: usize, out: &mut Vec<(usize, String)>) {
    let label = match f {
        Formula::Bin(op, ..) => match op {
            crate::syntax::BinOp::And => "∧",
            crate::syntax::BinOp::Or => "∨",
            crate::syntax::BinOp::Implies => "→",
            crate::syntax::BinOp::Iff => "↔",
            crate::syntax::BinOp::Xor => "⊕",
        }
        .to_string(),
        Formula::Not(_) => "¬".into(),
        Formula::Quant(q, v, _) => format!(
            "{}{v}",
            if *q == crate::syntax::Quantifier::Forall {
                "∀"
            } else {
                "∃"
            }
        ),
        atom => print_formula(atom, Notation::Unicode),
    };
    out.push((depth, label));
    match f {
        Formula::Not(a) | Formula::Quant(_, _, a) => tree_logic(a, depth + 1, out),
        Formula::Bin(_, a, b) => {
            tree_logic(a, depth + 1, out);
            tree_logic(b, depth + 1, out);
        }
        _ => {}
    }
}

fn tree_regex(r: &Regex, depth: usize, out: &mut Vec<(usize, String)>) {
    let label = match r {
        Regex::Concat(_) => "concat".to_string(),
        Regex::Alt(_) => "|".into(),
        Regex::Star(_) => "*".into(),
        Regex::Plus(_) => "+".into(),
        Regex::Opt(_) => "?".into(),
        Regex::Repeat(_, min, Some(max)) if min == max => format!("{{{min}}}"),
        Regex::Repeat(_, min, Some(max)) => format!("{{{min},{max}}}"),
        Regex::Repeat(_, min, None) => format!("{{{min},}}"),
        other => print_regex(other, false),
    };
    out.push((depth, label));
    match r {
        Regex::Concat(xs) | Regex::Alt(xs) => xs.iter().for_each(|x| tree_regex(x, depth + 1, out)),
        Regex::Star(x) | Regex::Plus(x) | Regex::Opt(x) | Regex::Repeat(x, ..) => {
            tree_regex(x, depth + 1, out);
        }
        _ => {}
    }
}

/// An expression as an indented, coloured tree.
pub fn tree(label: &str, e: &Expr, t: &Theme) -> Vec<Line<'static>> {
    let mut nodes = Vec::new();
    match e {
        Expr::Logic(f) => tree_logic(f, 0, &mut nodes),
        Expr::Regex(r) => tree_regex(r, 0, &mut nodes),
    }
    let mut out = vec![Line::from(Span::styled(
        label.to_string(),
        Style::default().fg(t.title),
    ))];
    for (d, l) in nodes {
        let mut s = vec![Span::styled(
            format!("  {}", "│ ".repeat(d)),
            Style::default().fg(t.border),
        )];
        s.extend(spans(&l, t));
        out.push(Line::from(s));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn wraps_before_operators() {
        let lines = super::wrap("(p1 ∧ p2) ∨ (p3 ∧ ¬p4) ∨ (p5 → p6)", 16);
        assert!(lines.len() > 1);
        assert!(
            lines[1].trim_start().starts_with('∨') || lines[1].trim_start().starts_with('∧'),
            "{lines:?}"
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 16), "{lines:?}");
    }
}
