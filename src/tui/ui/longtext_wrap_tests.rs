#![allow(clippy::unwrap_used)]
use super::*;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just("word"),
            Just("averyveryverylongword"),
            Just(" "),
            Just("  "),
            Just("\n"),
            Just("\n\n"),
            Just("\t"),
            Just("\u{1b}"),
            Just("\u{7}"),
            Just("∀"),
            Just("界"),
            Just("é"),
            Just("🦀"),
        ],
        0..300,
    )
    .prop_map(|v| v.concat())
}

/// One step of reading a text: rows asked from the top or from the end.
#[derive(Clone, Debug)]
enum Step {
    Top(usize),
    End(usize),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            (0usize..60).prop_map(Step::Top),
            (0usize..60).prop_map(Step::End)
        ],
        0..8,
    )
}

proptest! {
    /// Rows follow each other through the whole text (a newline between lines, nothing
    /// lost or repeated) and none is wider than the pane unless one character is.
    #[test]
    fn rows_tile_the_text_and_fit_the_width(t in text(), w in 1usize..40, seg in 1usize..64) {
        for seg in [seg, SEG] {
            let rows = wrap(&t, w, seg);
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

    /// Whatever is asked from the top and from the end, in any order, the rows known
    /// are the rows the one-pass wrap gives, and once the passes meet every row is.
    #[test]
    fn lazy_rows_are_the_eager_rows(
        t in text(), w in 1usize..40, seg in prop_oneof![Just(SEG), 1usize..64], steps in steps()
    ) {
        let all = wrap(&t, w, seg);
        let mut lazy = Lazy::new(w, seg);
        for s in &steps {
            match *s {
                Step::Top(n) => lazy.ensure_top(&t, n),
                Step::End(n) => lazy.ensure_end(&t, n),
            }
            for (i, &row) in all.iter().enumerate().take(lazy.known_top()) {
                prop_assert_eq!(lazy.top(i), Some(row), "top {} after {:?}", i, steps);
            }
            for i in 0..lazy.known_end() {
                prop_assert_eq!(lazy.end(i), Some(all[all.len() - 1 - i]), "end {} after {:?}", i, steps);
            }
            if let Some(n) = lazy.total() {
                prop_assert_eq!(n, all.len());
            }
        }
        lazy.ensure_end(&t, usize::MAX);
        prop_assert_eq!(lazy.total(), Some(all.len()));
        prop_assert_eq!(lazy.known_top(), all.len());
    }
}

#[test]
fn words_break_at_spaces_and_long_words_anywhere() {
    let t = "the quick brown fox\nabcdefghij";
    let rows: Vec<&str> = wrap(t, 10, SEG).iter().map(|&(a, b)| &t[a..b]).collect();
    assert_eq!(rows, ["the quick ", "brown fox", "abcdefghij"]);
    let rows: Vec<&str> = wrap(t, 4, SEG).iter().map(|&(a, b)| &t[a..b]).collect();
    assert_eq!(
        rows,
        [
            "the ", "quic", "k ", "brow", "n ", "fox", "abcd", "efgh", "ij"
        ]
    );
}

#[test]
fn a_line_longer_than_a_cut_starts_a_row_at_each_cut() {
    let t = "one two three four\nxy";
    let rows: Vec<&str> = wrap(t, 40, 8).iter().map(|&(a, b)| &t[a..b]).collect();
    assert_eq!(rows, ["one two ", "three fo", "ur", "xy"]);
}

/// The end of a long text costs its last rows: rows asked at the end of 8 MB of
/// paragraphs wrap a few lines, not the text.
#[test]
fn the_end_is_read_without_the_rest() {
    let para = format!("{}\n", "the proof goes on ".repeat(40));
    let t = para.repeat((8 << 20) / para.len());
    let mut lazy = Lazy::new(80, SEG);
    lazy.ensure_end(&t, 48);
    assert!(lazy.wrapped < 8 * para.len(), "{}", lazy.wrapped);
    assert_eq!(lazy.total(), None);
    lazy.ensure_top(&t, 48);
    assert!(lazy.wrapped < 16 * para.len(), "{}", lazy.wrapped);
    // One line of 8 MB: the end is read from its last cut.
    let line = "word ".repeat((8 << 20) / 5);
    let mut lazy = Lazy::new(80, SEG);
    lazy.ensure_end(&line, 48);
    assert!(lazy.wrapped <= SEG, "{}", lazy.wrapped);
}
