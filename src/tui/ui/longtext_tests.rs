#![allow(clippy::unwrap_used)]
use super::*;
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[test]
fn rows_are_drawn_safe() {
    let l = row_line("a\u{1b}[2Jb\tc", "│ ", Style::default());
    assert_eq!(l.to_string(), "│ a\\u{001B}[2Jb c");
}

/// The screen `pieces` make at `at` in a `w`×`h` area, and the rows known after.
fn screen(pieces: &[Piece<'_>], w: u16, h: u16, at: At) -> (String, Option<usize>) {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut total = None;
    term.draw(|f| total = draw(f, f.area(), pieces, at))
        .unwrap();
    let b = term.backend().buffer();
    let mut s = String::new();
    for y in 0..h {
        for x in 0..w {
            s.push_str(b[(x, y)].symbol());
        }
        s.push('\n');
    }
    (s, total)
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("word "),
            Just("longerwordwithoutspaces"),
            Just("\n"),
            Just("\t"),
            Just("\u{1b}[2J"),
            Just("∀x "),
            Just("界"),
        ],
        0..200,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    /// A frame from the end (`G`, then keys up) shows what the same place shows when
    /// scrolled to from the top, and the length found is the same.
    #[test]
    fn the_end_shows_what_the_top_shows_there(
        a in body(), b in body(), w in 3u16..30, h in 1u16..12, up in 0usize..40,
    ) {
        let head: Line<'static> = Line::from("▾ reasoning · a fold line long enough to wrap");
        let pieces = [
            Piece::Line(head.clone()),
            Piece::Text { text: &a, prefix: "  │ ", style: Style::default() },
            Piece::Line(Line::from("  assistant:")),
            Piece::Text { text: &b, prefix: "    ", style: Style::default() },
            Piece::Line(Line::from("  verdict equivalent · a last line that wraps over rows")),
        ];
        // Each frame starts with nothing wrapped (as a text new to the viewer).
        WRAPPED.with(|c| c.borrow_mut().clear());
        let (end, n_end) = screen(&pieces, w, h, At::End(up));
        WRAPPED.with(|c| c.borrow_mut().clear());
        let (_, n) = screen(&pieces, w, h, At::Top(usize::MAX / 2));
        let n = n.unwrap();
        WRAPPED.with(|c| c.borrow_mut().clear());
        let s = n.saturating_sub(usize::from(h)).saturating_sub(up);
        let (top, n_top) = screen(&pieces, w, h, At::Top(s));
        prop_assert_eq!(&end, &top, "from the end {} vs from the top {} of {}", up, s, n);
        prop_assert!(n_end.is_none_or(|x| x == n));
        prop_assert!(n_top.is_none_or(|x| x == n));
    }
}

/// Issue 48: in the viewer, unfolding 8 MB of reasoning (`z`), going to its end (`G`),
/// a few rows up (`k`) and back to the top (`g`) wrap the rows shown, not the text;
/// and the last screenful shows the text's last row.
#[test]
fn viewer_keys_on_a_long_reasoning_wrap_only_what_they_show() {
    use crate::tui::{ViewOptions, build_app, ui};
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("long");
    std::fs::create_dir_all(&run).unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/pl-small");
    std::fs::copy(src.join("run.json"), run.join("run.json")).unwrap();
    let first = std::fs::read_to_string(src.join("samples.jsonl")).unwrap();
    let mut rec: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let para = format!(
        "{}\n",
        "the negation of p5 follows from the premise ".repeat(8)
    );
    let mut text = para.repeat((8 << 20) / para.len());
    text.push_str("THE LAST WORDS");
    rec["rounds"][0]["informalize"]["reasoning"] = text.into();
    std::fs::write(run.join("samples.jsonl"), format!("{rec}\n")).unwrap();
    let (mut app, theme) = build_app(&ViewOptions {
        paths: vec![run],
        theme: None,
        config: Some(std::path::PathBuf::from("/nonexistent")),
    });
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut shown = String::new();
    for k in ["tab", "]", "]", "]", "z", "j", "G", "k", "k", "j", "j", "g"] {
        app.press(k).unwrap();
        term.draw(|f| {
            ui::view(f, &app, &theme);
        })
        .unwrap();
        if k == "G" {
            shown = format!("{:?}", term.backend().buffer());
        }
    }
    assert!(shown.contains("THE LAST WORDS"), "G did not reach the end");
    let wrapped = wrapped_bytes();
    assert!(wrapped < 64 * para.len(), "{wrapped} bytes wrapped");
}
