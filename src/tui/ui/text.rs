//! Text in the viewer's cells: the column measures (layer 0, shared with the CLI's
//! tables) and wrapping styled spans.

pub use crate::base::text_width::width;
pub(crate) use crate::base::text_width::{clip, prefix_fitting};
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

/// Where a word too long for a line may break: after one of these.
const SOFT_BREAKS: [char; 5] = ['-', '/', '_', ',', '.'];

/// `s` (one line) in rows of at most `w` columns, as byte ranges that tile it: broken
/// after the last space that fits; a word longer than a row after its last `-`, `/`,
/// `_`, `,` or `.` that fits, else anywhere.
fn word_rows(s: &str, w: usize) -> Vec<(usize, usize)> {
    let w = w.max(1);
    let mut rows = Vec::new();
    let (mut start, mut col) = (0usize, 0usize);
    // Just after the last space (and the last soft break) of the row, with the columns
    // up to there.
    let mut space: Option<(usize, usize)> = None;
    let mut soft: Option<(usize, usize)> = None;
    for (i, c) in s.char_indices() {
        let cw = c.width().unwrap_or(0);
        if col + cw > w && col > 0 {
            let at = match (space, soft) {
                (Some(b), _) | (None, Some(b)) => Some(b),
                (None, None) => None,
            };
            match at {
                Some((b, used)) if b > start && b <= i => {
                    rows.push((start, b));
                    start = b;
                    col -= used;
                    // A soft break after the space stays one in the new row.
                    soft = soft.filter(|&(p, _)| p > b).map(|(p, c)| (p, c - used));
                }
                _ => {
                    rows.push((start, i));
                    start = i;
                    col = 0;
                    soft = None;
                }
            }
            space = None;
            if col + cw > w && col > 0 {
                rows.push((start, i));
                start = i;
                col = 0;
            }
        }
        col += cw;
        if c == ' ' {
            space = Some((i + c.len_utf8(), col));
        } else if SOFT_BREAKS.contains(&c) {
            soft = Some((i + c.len_utf8(), col));
        }
    }
    rows.push((start, s.len()));
    rows
}

/// `text` wrapped at words into rows of at most `w` columns (a word longer than a row
/// is broken inside it), each line of the text starting a row; trailing spaces of a
/// row are dropped.
pub(crate) fn word_wrap(text: &str, w: usize) -> Vec<String> {
    hanging(text, "", "", w)
}

/// `text` wrapped at words to `w` columns with a hanging indent: its first row starts
/// with `first`, every other row (the text's next lines and the rows it wraps onto)
/// with `rest`, so what wraps sits under the value, not under the label (`13703 ms`
/// never breaks to column 0).
pub(crate) fn hanging(text: &str, first: &str, rest: &str, w: usize) -> Vec<String> {
    // A text ending in a newline has no empty row after it.
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut out: Vec<String> = Vec::new();
    let rest_of = |line: &str, out: &mut Vec<String>| {
        if line.is_empty() {
            out.push(rest.trim_end().to_string());
            return;
        }
        for (a, b) in word_rows(line, w.saturating_sub(width(rest)).max(1)) {
            out.push(format!("{rest}{}", line[a..b].trim_end()));
        }
    };
    for (k, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if k > 0 {
            rest_of(line, &mut out);
            continue;
        }
        // The first row is cut at the first prefix's width, what follows at the rest's.
        let head = word_rows(line, w.saturating_sub(width(first)).max(1));
        let (a, b) = head.first().copied().unwrap_or((0, 0));
        out.push(format!("{first}{}", line[a..b].trim_end()));
        if b < line.len() {
            rest_of(&line[b..], &mut out);
        }
    }
    out
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
    fn word_wrap_breaks_at_spaces_then_inside_long_words_and_hangs() {
        assert_eq!(
            word_wrap(
                "pl-qwen-0.5b · qwen2.5-coder-0.5b-instruct · unparseable",
                20
            ),
            [
                "pl-qwen-0.5b ·",
                "qwen2.5-coder-0.5b-",
                "instruct ·",
                "unparseable"
            ]
        );
        assert_eq!(
            word_wrap("states that:\n1. The negation", 40),
            ["states that:", "1. The negation"]
        );
        assert_eq!(
            hanging("states that:\n\n1. The", "ψ  ", "   ", 40),
            ["ψ  states that:", "", "   1. The"]
        );
        assert_eq!(
            hanging(
                "133 in / 15 out tok · 13703 ms · 1 attempt(s)",
                "▸ ",
                "  ",
                24
            ),
            ["▸ 133 in / 15 out tok ·", "  13703 ms · 1", "  attempt(s)"]
        );
        assert_eq!(word_wrap("abcdefgh", 3), ["abc", "def", "gh"]);
    }

    proptest::proptest! {
        /// Every row fits (unless one character is wider than the row), and the rows
        /// joined again are the text: nothing lost, nothing repeated.
        #[test]
        fn word_rows_tile_the_line_and_fit(
            s in "[a-z -/.界]{0,80}",
            w in 1usize..30,
        ) {
            let rows = word_rows(&s, w);
            let mut pos = 0;
            for &(a, b) in &rows {
                proptest::prop_assert_eq!(a, pos);
                let row = &s[a..b];
                proptest::prop_assert!(width(row) <= w || row.chars().count() == 1, "{:?} at {}", row, w);
                pos = b;
            }
            proptest::prop_assert_eq!(pos, s.len());
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
