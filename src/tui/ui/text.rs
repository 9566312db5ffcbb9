//! Display width of text in terminal columns (wide characters take two), for columns
//! that line up whatever the run names and formulas hold.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns `s` takes on screen.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` fitted to exactly `w` columns: padded with spaces, or cut with `…`.
pub(crate) fn clip(s: &str, w: usize) -> String {
    if width(s) <= w {
        let pad = w - width(s);
        return format!("{s}{}", " ".repeat(pad));
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw + 1 > w {
            break;
        }
        out.push(c);
        used += cw;
    }
    if w > 0 {
        out.push('…');
        used += 1;
    }
    out.push_str(&" ".repeat(w.saturating_sub(used)));
    out
}

/// The byte length of the longest start of `s` that fits in `w` columns, ending at a
/// space when one is in reach (at least one character, so wrapping always advances).
pub(crate) fn prefix_fitting(s: &str, w: usize) -> usize {
    let mut used = 0;
    let mut end = 0;
    let mut last_space = None;
    for (i, c) in s.char_indices() {
        let cw = c.width().unwrap_or(0);
        if used + cw > w && end > 0 {
            return match last_space {
                Some(sp) if sp > 0 => sp,
                _ => end,
            };
        }
        if c == ' ' {
            last_space = Some(i);
        }
        used += cw;
        end = i + c.len_utf8();
    }
    end
}

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
    fn prefix_fitting_breaks_at_a_space_and_always_advances() {
        assert_eq!(prefix_fitting("t [ ] negation misplaced", 12), 5);
        assert_eq!(prefix_fitting("t [ ] negation misplaced", 16), 14);
        assert_eq!(prefix_fitting("short", 10), 5);
        assert_eq!(prefix_fitting("abcdefgh", 3), 3);
        assert_eq!(prefix_fitting("∀∀∀", 0), "∀".len());
    }

    #[test]
    fn wide_characters_count_twice() {
        assert_eq!(width("評価"), 4);
        assert_eq!(clip("評価テスト", 5), "評価…");
        assert_eq!(width(&clip("評価テスト", 6)), 6);
        assert_eq!(clip("ab", 4), "ab  ");
        assert_eq!(clip("abcdef", 4), "abc…");
    }

    #[test]
    fn hard_wrap_cuts_at_the_width_and_keeps_every_character() {
        use ratatui::text::Span;
        let lines = hard_wrap(&[Span::raw("ab"), Span::raw("cdef評価")], 3);
        let rows: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(rows, ["abc", "def", "評", "価"]);
    }
}
