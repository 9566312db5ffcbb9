//! Display width of text in terminal columns (wide characters take two), for columns
//! that line up whatever the run names and formulas hold.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns `s` takes on screen.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` fitted to exactly `w` columns: padded with spaces, or cut with `…`.
pub fn clip(s: &str, w: usize) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_count_twice() {
        assert_eq!(width("評価"), 4);
        assert_eq!(clip("評価テスト", 5), "評価…");
        assert_eq!(width(&clip("評価テスト", 6)), 6);
        assert_eq!(clip("ab", 4), "ab  ");
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
