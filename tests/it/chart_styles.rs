//! Issue 35 L9: the chart's rows never run together into one block (no bar fills its
//! whole cell), and the failure-kinds chart gives each kind a colour of its own that no
//! run has, in every built-in theme. Driven by keys (`v`, `K`) into a test terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::screens;

use autoeval::tui::{ViewOptions, build_app};
use screens::{render, styled};
use std::path::Path;

fn opts(theme: &str) -> ViewOptions {
    ViewOptions {
        theme: Some(theme.to_string()),
        ..screens::options(vec![
            Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs"),
        ])
    }
}

const BARS: [&str; 8] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/// The chart pane at 120×40: the top row's right half.
fn chart_cells(buf: &ratatui::buffer::Buffer) -> Vec<(u16, u16, String, ratatui::style::Color)> {
    let mut out = vec![];
    for y in 1..10 {
        for x in 61..119 {
            let c = &buf[(x, y)];
            out.push((x, y, c.symbol().to_string(), c.fg));
        }
    }
    out
}

#[test]
fn chart_rows_stay_apart_and_failure_kinds_never_wear_a_run_colour() {
    for theme in ["default", "light", "high-contrast", "colorblind"] {
        let (mut app, t) = build_app(&opts(theme));
        app.press(":").unwrap();
        for c in "pl-qwen-1.5b/3".chars() {
            app.press(&c.to_string()).unwrap();
        }
        app.press("enter").unwrap();
        // The accuracy chart: bars, but none a full cell, so stacked rows keep a gap.
        let buf = render(&mut app, &t, 120, 40);
        let cells = chart_cells(&buf);
        assert!(
            cells.iter().any(|c| BARS.contains(&c.2.as_str())),
            "{theme}: no bars"
        );
        assert!(
            !cells.iter().any(|c| c.2 == "█"),
            "{theme}: a full-cell bar"
        );
        // The kinds of the highlighted run: every bar in a kind colour, none a run's.
        app.press("v").unwrap();
        app.press("K").unwrap();
        let buf = render(&mut app, &t, 120, 40);
        let bars: Vec<_> = chart_cells(&buf)
            .into_iter()
            .filter(|c| BARS.contains(&c.2.as_str()))
            .filter(|c| buf[(c.0, c.1)].bg != t.highlight)
            .collect();
        assert!(bars.len() > 3, "{theme}: no kind bars");
        for (x, y, sym, fg) in &bars {
            assert!(sym != "█", "{theme}: full cell at {x},{y}");
            assert!(
                !t.chart.contains(fg),
                "{theme}: {sym} at {x},{y} in run colour {fg:?}"
            );
            assert!(t.kinds.contains(fg), "{theme}: {sym} at {x},{y} in {fg:?}");
        }
        // Neighbouring kinds, different colours.
        let rows: std::collections::BTreeMap<u16, ratatui::style::Color> =
            bars.iter().map(|c| (c.1, c.3)).collect();
        assert!(rows.len() > 1, "{theme}: {rows:?}");
        let ys: Vec<u16> = rows.keys().copied().collect();
        for w in ys.windows(2).filter(|w| w[1] == w[0] + 1) {
            assert_ne!(
                rows[&w[0]], rows[&w[1]],
                "{theme}: rows {} and {}",
                w[0], w[1]
            );
        }
        if theme == "default" {
            insta::assert_snapshot!("kinds_chart_styled_120x40", styled(&mut app, &t, 120, 40));
        }
    }
}
