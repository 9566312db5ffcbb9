#![allow(clippy::unwrap_used)]
use super::*;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just("word"),
            Just(" "),
            Just("\n"),
            Just("\t"),
            Just("\u{1b}"),
            Just("∀"),
            Just("界"),
        ],
        0..300,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    /// Rows follow each other through the whole text (a newline between lines, nothing
    /// lost or repeated) and none is wider than the pane unless one character is.
    #[test]
    fn rows_tile_the_text_and_fit_the_width(t in text(), w in 1usize..40) {
        let rows = wrap(&t, w);
        prop_assert!(!rows.is_empty());
        let mut pos = 0usize;
        for (k, &(a, b)) in rows.iter().enumerate() {
            if a != pos {
                // A new line: the byte before is its newline.
                prop_assert_eq!(a, pos + 1, "row {}", k);
                prop_assert_eq!(t.as_bytes()[pos], b'\n');
            }
            let row = &t[a..b];
            prop_assert!(!row.contains('\n'));
            let cols: usize = row.chars().map(columns).sum();
            prop_assert!(cols <= w || row.chars().count() == 1, "{:?} at {}", row, w);
            pos = b;
        }
        prop_assert_eq!(pos, t.len());
    }
}

#[test]
fn words_break_at_spaces_and_long_words_anywhere() {
    let t = "the quick brown fox\nabcdefghij";
    let rows: Vec<&str> = wrap(t, 10).iter().map(|&(a, b)| &t[a..b]).collect();
    assert_eq!(rows, ["the quick ", "brown fox", "abcdefghij"]);
    let rows: Vec<&str> = wrap(t, 4).iter().map(|&(a, b)| &t[a..b]).collect();
    assert_eq!(
        rows,
        [
            "the ", "quic", "k ", "brow", "n ", "fox", "abcd", "efgh", "ij"
        ]
    );
}

#[test]
fn rows_are_drawn_safe() {
    let l = row_line("a\u{1b}[2Jb\tc", "│ ", Style::default());
    assert_eq!(l.to_string(), "│ a\\u{001B}[2Jb c");
}
