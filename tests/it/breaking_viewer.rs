//! The viewer's chart on an adaptive run: picking it in the chart draws the fitted
//! curve's row with the breaking point marked, and the pick line gives the fitted A3
//! with its band, the point with its interval, and says the design was adaptive.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use crate::screens;

#[test]
fn the_chart_draws_the_fit_and_marks_the_breaking_point() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-runs/pl-per-op-adaptive");
    let (mut app, t) = autoeval::tui::build_app(&screens::options(vec![dir]));
    app.pump();
    let before = screens::screen(&mut app, &t, 160, 48);
    assert!(!before.contains('◆'), "{before}");
    for k in [
        "v", "right", "right", "right", "right", "right", "right", "right", "right",
    ] {
        app.press(k).unwrap();
    }
    let s = screens::screen(&mut app, &t, 160, 48);
    assert!(s.contains(" ≈ "), "{s}");
    assert!(s.contains('◆'), "{s}");
    assert!(s.contains("breaks (A3 50%) at 8.7 [7.1, 10.6]"), "{s}");
    assert!(s.contains("fit "), "{s}");
    assert!(s.contains("adaptive design"), "{s}");
}
