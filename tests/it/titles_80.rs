//! Issue 35 L3: every screen and layer of the shipped runs at 80×24. Titles and tab
//! bars are shortened on purpose (whole words; a `…` part where parts were left out),
//! never cut off by the pane's border in the middle of a word.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::build_app;
use autoeval::tui::layer::Mode;
use screens::screen;
use std::path::{Path, PathBuf};

/// Box corners that start a title (top and bottom borders) and what ends one.
const OPEN: [char; 4] = ['┌', '┏', '└', '┗'];
const OWN_END: [char; 6] = ['─', '━', '┐', '┓', '┘', '┛'];
/// An overlay's side drawn over a title.
const SIDE: [char; 2] = ['│', '┃'];

/// The titles drawn on `s`'s borders, each with whether its border cut it off: a
/// title ends with the space `block` puts after it, so text running into its own
/// border was clipped (so was one ending in a dangling `·`). A title running into
/// another box's corner or side is covered by an overlay, not cut, and left out.
fn titles(s: &str) -> Vec<(String, bool)> {
    let mut out = vec![];
    for line in s.lines() {
        let chars: Vec<char> = line.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            if !OPEN.contains(c) || chars.get(i + 1) != Some(&' ') {
                continue;
            }
            let rest = &chars[i + 1..];
            let Some(end) = rest
                .iter()
                .position(|c| OWN_END.contains(c) || OPEN.contains(c) || SIDE.contains(c))
            else {
                continue;
            };
            if !OWN_END.contains(&rest[end]) {
                continue;
            }
            let title: String = rest[..end].iter().collect();
            let trimmed = title.trim();
            if !trimmed.is_empty() {
                let cut = !title.ends_with(' ') || trimmed.ends_with('·');
                out.push((trimmed.to_string(), cut));
            }
        }
    }
    out
}

fn cut_titles(s: &str) -> Vec<String> {
    titles(s)
        .into_iter()
        .filter(|(_, cut)| *cut)
        .map(|(t, _)| t)
        .collect()
}

fn sample_runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs")
}

fn keys(ks: &[&str]) -> Vec<String> {
    ks.iter().map(ToString::to_string).collect()
}

#[test]
fn titles_fit_80_columns_on_every_screen_of_the_shipped_runs() {
    let (mut app, t) = build_app(&screens::options(vec![sample_runs()]));
    // Sample 3 of pl-qwen-1.5b has labels by two annotators: adjudication opens on it.
    let jump: Vec<String> = std::iter::once(":".to_string())
        .chain("pl-qwen-1.5b/3".chars().map(|c| c.to_string()))
        .chain(["enter".to_string()])
        .collect();
    for k in &jump {
        app.press(k).unwrap();
    }
    assert!(app.status.starts_with("sample 3"), "{}", app.status);
    // (name, keys that open it, keys that close it again)
    let walk: Vec<(&str, Vec<String>, Vec<String>)> = vec![
        ("main", keys(&[]), keys(&[])),
        ("detail tab Diff", keys(&["]"]), keys(&[])),
        ("detail tab Countermodel", keys(&["]"]), keys(&[])),
        ("detail tab Raw", keys(&["]"]), keys(&["]"])),
        ("detail focused", keys(&["tab"]), keys(&[])),
        ("catalogue (run list focused)", keys(&["tab"]), keys(&[])),
        ("samples focused again", keys(&["tab"]), keys(&[])),
        ("help", keys(&["?"]), keys(&["esc"])),
        ("warnings", keys(&["w"]), keys(&["esc"])),
        ("compare", keys(&["c"]), keys(&["esc"])),
        ("run summary", keys(&["i"]), keys(&["esc"])),
        ("label counts", keys(&["L"]), keys(&["esc"])),
        ("filter editor", keys(&["f"]), keys(&["esc"])),
        ("chart picker", keys(&["v"]), keys(&[])),
        ("chart kinds", keys(&["K"]), keys(&["esc"])),
        ("search", keys(&["/", "p", "1"]), keys(&["esc"])),
        ("labels", keys(&["a"]), keys(&[])),
        ("note", keys(&["m"]), keys(&["esc", "esc"])),
        ("new-run form", keys(&["R"]), keys(&["esc"])),
        ("rank", keys(&["r"]), keys(&["esc"])),
        (
            "adjudicate",
            jump.iter().cloned().chain(keys(&["A"])).collect(),
            keys(&["esc"]),
        ),
        ("jump", keys(&[":"]), keys(&["esc"])),
        ("copy", keys(&["y"]), keys(&["esc"])),
        ("confirm rescore", keys(&["S"]), keys(&["n"])),
        ("matrix", keys(&["M"]), keys(&["esc"])),
    ];
    let mut all = String::new();
    let mut bad = vec![];
    for (name, open, close) in walk {
        for k in &open {
            app.press(k).unwrap();
        }
        let s = screen(&mut app, &t, 80, 24);
        all.push_str(&format!("── {name} ({:?})\n", app.mode()));
        for (title, cut) in titles(&s) {
            if cut {
                bad.push(format!("{name}: {title:?}"));
            }
            all.push_str(&format!("{title}\n"));
        }
        for k in &close {
            app.press(k).unwrap();
        }
    }
    assert!(
        bad.is_empty(),
        "titles cut by the border:\n{}",
        bad.join("\n")
    );
    assert_eq!(app.mode(), Mode::Normal);
    insta::assert_snapshot!("titles_80x24", all);
}

#[test]
fn the_detail_tab_bar_keeps_the_tab_shown_at_any_width() {
    let fixtures = common::fixtures::runs();
    let (mut app, t) = build_app(&screens::options(vec![fixtures]));
    for (k, tab) in [
        ("", "[Overview]"),
        ("]", "[Diff]"),
        ("]", "[Countermodel]"),
        ("]", "[Raw]"),
    ] {
        if !k.is_empty() {
            app.press(k).unwrap();
        }
        for w in [60, 72, 80, 100, 120] {
            let s = screen(&mut app, &t, w, 24);
            assert!(s.contains(tab), "{w} columns, {tab}:\n{s}");
            assert!(cut_titles(&s).is_empty(), "{w}: {:?}", cut_titles(&s));
        }
    }
}
