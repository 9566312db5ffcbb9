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

/// A pane title fitted to `w` columns, never cut inside a word: the trailing ` · `
/// parts (key hints, the least telling) go first and a `…` part says some did; a first
/// part that still does not fit ends at its last whole word and `…`.
pub(crate) fn fit_title(title: &str, w: usize) -> String {
    if width(title) <= w {
        return title.to_string();
    }
    let parts: Vec<&str> = title.split(" · ").collect();
    for keep in (1..parts.len()).rev() {
        let s = format!("{} · …", parts[..keep].join(" · "));
        if width(&s) <= w {
            return s;
        }
    }
    cut_at_word(parts[0], w)
}

/// The first of `forms` (longest first) that fits `w` columns, else the last fitted
/// by [`fit_title`]: for titles whose shorter forms are not just fewer parts.
pub(crate) fn first_fitting(forms: &[String], w: usize) -> String {
    forms
        .iter()
        .find(|f| width(f) <= w)
        .cloned()
        .unwrap_or_else(|| fit_title(forms.last().map_or("", String::as_str), w))
}

/// `s` cut to at most `w` columns at its last whole word, with `…` (a single word
/// longer than `w` is cut inside it: there is nothing else to keep).
pub(crate) fn cut_at_word(s: &str, w: usize) -> String {
    if width(s) <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    // `prefix_fitting` ends at a space when one is in reach, else inside the one word.
    let head = s[..prefix_fitting(s, w - 1)].trim_end_matches([' ', '·', ',', ':', ';']);
    if head.is_empty() || width(head) + 1 > w {
        return "…".to_string();
    }
    format!("{head}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_lose_their_last_parts_then_end_at_a_whole_word() {
        let t = "Runs · space shows/hides · R starts a run";
        assert_eq!(fit_title(t, 60), t);
        assert_eq!(fit_title(t, 38), "Runs · space shows/hides · …");
        assert_eq!(fit_title(t, 12), "Runs · …");
        assert_eq!(fit_title(t, 5), "Runs");
        assert_eq!(fit_title("Adjudicate sample 12", 15), "Adjudicate…");
        assert_eq!(fit_title("Adjudicate sample 12", 6), "Adjud…");
        assert_eq!(fit_title("Adjudicate", 0), "");
        assert_eq!(
            cut_at_word("failure kinds of fol-qwen", 20),
            "failure kinds of…"
        );
        assert_eq!(cut_at_word("評価 テスト", 5), "評価…");
        for w in 0..45 {
            assert!(width(&fit_title(t, w)) <= w, "{w}");
        }
    }

    #[test]
    fn hard_wrap_cuts_at_the_width_and_keeps_every_character() {
        use ratatui::text::Span;
        let lines = hard_wrap(&[Span::raw("ab"), Span::raw("cdef評価")], 3);
        let rows: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(rows, ["abc", "def", "評", "価"]);
    }
}
