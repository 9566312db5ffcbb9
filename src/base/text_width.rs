//! Display width of text in terminal columns (wide characters take two), for columns
//! that line up whatever the run names and formulas hold. Layer 0: the viewer and the
//! CLI's tables both use it.

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
}
