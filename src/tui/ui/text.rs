//! Text in the viewer's cells: the column measures (layer 0, shared with the CLI's
//! tables) and wrapping styled spans.

pub use crate::text_width::width;
pub(crate) use crate::text_width::{clip, prefix_fitting};
use unicode_width::UnicodeWidthChar;

/// Splits a line of styled spans into lines of at most `w` columns, cutting anywhere
/// (paths and commands have no good break points): what is drawn is exactly the text,
/// so its height is known before drawing.
pub(crate) fn hard_wrap(
    spans: &[ratatui::text::Span<'_>],
    w: usize,
) -> Vec<ratatui::text::Line<'static>> {
    use ratatui::text::{Line, Span};
    let w = w.max(2);
    let mut lines = vec![];
    let mut cur: Vec<Span<'static>> = vec![];
    let mut used = 0;
    for span in spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > w {
                if !piece.is_empty() {
                    cur.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                lines.push(Line::from(std::mem::take(&mut cur)));
                used = 0;
            }
            piece.push(c);
            used += cw;
        }
        if !piece.is_empty() {
            cur.push(Span::styled(piece, span.style));
        }
    }
    lines.push(Line::from(cur));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hard_wrap_cuts_at_the_width_and_keeps_every_character() {
        use ratatui::text::Span;
        let lines = hard_wrap(&[Span::raw("ab"), Span::raw("cdef評価")], 3);
        let rows: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(rows, ["abc", "def", "評", "価"]);
    }
}
