//! The keymap as a user meets it: `[keys]` in config.toml changes both the keys the viewer
//! obeys and every hint that names them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use autoeval::tui::keymap::{Action, Context, UNBOUND};
use autoeval::tui::layer::Mode;
use autoeval::tui::{ViewOptions, build_app};

#[test]
fn a_rebinding_in_config_toml_moves_the_hints_with_the_keys() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("config.toml");
    std::fs::write(
        &cfg,
        "[keys]\nnew_run = \"N\"\nhelp = \"f1\"\nsort = [\"s\", \"d\"]\n[keys.overlay]\nback = \"x\"\n[keys.form]\ncancel = \"f2\"\n",
    )
    .unwrap();
    let (mut app, _) = build_app(&ViewOptions {
        config: Some(cfg),
        ..screens::options(vec![common::fixtures::runs()])
    });
    let km = &app.keymap;
    assert_eq!(km.hint(Context::Normal, Action::NewRun), "N");
    assert_eq!(km.hint(Context::Normal, Action::Help), "f1");
    assert_eq!(km.hint(Context::Normal, Action::SortReverse), UNBOUND);
    assert_eq!(
        km.hint_line(
            Context::Overlay,
            &[(Action::Back, "closes"), (Action::Down, "scrolls")]
        ),
        "x closes · j scrolls"
    );
    assert_eq!(
        app.model.warnings,
        ["config [keys]: sort now uses a key that sort_reverse had"]
    );
    // The key each hint names is the key that does it.
    let press = |app: &mut autoeval::tui::app::App, ctx, a| {
        let key = app.keymap.hint(ctx, a);
        app.press(&key).unwrap();
    };
    press(&mut app, Context::Normal, Action::Help);
    assert_eq!(app.mode(), Mode::Help);
    press(&mut app, Context::Overlay, Action::Back);
    assert_eq!(app.mode(), Mode::Normal);
    press(&mut app, Context::Normal, Action::NewRun);
    assert_eq!(app.mode(), Mode::NewRun);
    press(&mut app, Context::Form, Action::Cancel);
    assert_eq!(app.mode(), Mode::Normal);
    // The old keys no longer do it.
    app.press("R").unwrap();
    assert_eq!(app.mode(), Mode::Normal);
}
