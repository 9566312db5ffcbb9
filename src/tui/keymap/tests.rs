use super::parse::parse_defaults;
use super::*;

fn k(name: &str) -> Key {
    name.parse().unwrap()
}

fn overridden(config: &str) -> (Keymap, Vec<String>) {
    let table: toml::Table = config.parse().unwrap();
    Keymap::default().with_overrides(Some(&table))
}

#[test]
fn the_embedded_defaults_parse_without_a_problem() {
    let (parsed, errors) = parse_defaults(include_str!("defaults.toml"));
    assert!(errors.is_empty(), "{errors:#?}");
    let m = Keymap::default();
    assert!(m.errors.is_empty(), "{:#?}", m.errors);
    assert_eq!(m.bindings.len(), parsed.len());
    let (_, w) = Keymap::default().with_overrides(None);
    assert!(w.is_empty(), "{w:?}");
    for ctx in Context::ALL {
        assert!(m.of(ctx).next().is_some(), "{}", ctx.name());
        let mut seen = std::collections::HashSet::new();
        for b in m.of(ctx) {
            assert!(!b.keys.is_empty(), "{}.{}", ctx.name(), b.name);
            assert!(!b.desc.is_empty(), "{}.{}", ctx.name(), b.name);
            for key in &b.keys {
                assert!(seen.insert(*key), "{}: {key} bound twice", ctx.name());
            }
        }
    }
    // Spot checks that the file is the keymap users knew.
    assert_eq!(m.action(Context::Normal, k("G")), Some(Action::Bottom));
    assert_eq!(m.action(Context::Chart, k("]")), Some(Action::NextBucket));
    assert_eq!(
        m.hints(Context::Normal).first(),
        Some(&("j".to_string(), "move"))
    );
}

#[test]
fn a_broken_defaults_file_is_reported_and_its_good_lines_kept() {
    let (parsed, errors) = parse_defaults("normal = [ { action = ");
    assert!(parsed.is_empty());
    assert!(errors[0].starts_with("built-in keymap: "), "{errors:?}");

    let text = r#"
normal = [
  { action = "up", keys = ["k"], help = "move up" },
  { action = "nope", keys = ["x"], help = "?" },
  { action = "down", keys = ["k"], help = "clash" },
  { action = "top", keys = ["bogus-key"], help = "first" },
  { action = "bottom", keys = ["G"], help = "last", colour = "red" },
  { action = "back", keys = ["esc", "ctrl-c"], help = "back" },
  { action = "up", keys = ["u"], help = "again" },
]
sideways = []
"#;
    let (parsed, errors) = parse_defaults(text);
    let all = errors.join("\n");
    for needle in [
        "unknown action 'nope'",
        "k bound twice",
        "top: 'bogus-key' is not a key name",
        "top: expected a key or a list of keys",
        "binding 5: unknown field `colour`",
        "back: ctrl-c always quits",
        "up bound twice",
        "unknown mode 'sideways'",
        "no bindings for search mode",
    ] {
        assert!(all.contains(needle), "{needle}: {all}");
    }
    let kept: Vec<Action> = parsed.iter().map(|p| p.action).collect();
    assert_eq!(kept, [Action::Up, Action::Down, Action::Back]);
}

#[test]
fn broken_defaults_still_make_a_keymap_that_quits_and_says_what_is_wrong() {
    for text in [
        "not toml [",
        "normal = [ { action = \"up\", keys = \"k\", help = \"up\" } ]",
    ] {
        let (parsed, errors) = parse_defaults(text);
        let parsed: &'static [_] = Box::leak(parsed.into_boxed_slice());
        let m = Keymap::from_defaults(super::parse::bindings(parsed), errors);
        let (m, w) = m.with_overrides(None);
        assert!(w[0].starts_with("built-in keymap"), "{w:?}");
        assert!(w.iter().any(|x| x.contains("ctrl-c quits")), "{w:?}");
        for ctx in Context::ALL {
            let quit = |c| m.action(c, Key::ctrl_c()) == Some(Action::Quit);
            assert!(
                quit(ctx) || ctx.fallback().is_some_and(quit),
                "{}",
                ctx.name()
            );
        }
        assert_eq!(m.hint(Context::Form, Action::Quit), "ctrl-c");
    }
    let (parsed, errors) =
        parse_defaults("normal = [ { action = \"up\", keys = \"k\", help = \"up\" } ]");
    let parsed: &'static [_] = Box::leak(parsed.into_boxed_slice());
    let m = Keymap::from_defaults(super::parse::bindings(parsed), errors);
    assert_eq!(
        m.action(Context::Normal, k("k")),
        Some(Action::Up),
        "good lines kept"
    );
}

#[test]
fn every_action_round_trips_through_its_name() {
    let names = Action::names();
    let all: Vec<Action> = Action::all().collect();
    assert_eq!(all.len(), names.len(), "every serde name is an action");
    let distinct: std::collections::HashSet<Action> = all.iter().copied().collect();
    assert_eq!(distinct.len(), all.len());
    for a in &all {
        assert_eq!(Action::from_name(a.name()), Some(*a), "{a:?}");
    }
    // The names users already write, where they are not the variant in snake_case.
    for (name, a) in [
        ("page_up", Action::PageUp),
        ("tree", Action::ToggleTree),
        ("by", Action::ToggleBy),
        ("accept", Action::AcceptSuggestion),
        ("note", Action::EditNote),
        ("all_runs", Action::ChartAllRuns),
        ("kinds", Action::ChartKinds),
        ("next_unlabelled", Action::NextUnlabelled),
    ] {
        assert_eq!(Action::from_name(name), Some(a), "{name}");
        assert_eq!(a.name(), name);
    }
    for bad in ["toggle_tree", "PageUp", "page-up", "", "quit "] {
        assert_eq!(Action::from_name(bad), None, "{bad}");
    }
}

#[test]
fn every_action_has_a_default_binding_and_is_listed_in_the_readme() {
    let m = Keymap::default();
    let readme = include_str!("../../../docs/src/guide/viewer.md");
    let start = readme.find("Actions per table:").unwrap();
    // The list ends at a blank line or with the chapter.
    let end = readme[start..].find("\n\n").unwrap_or(readme.len() - start);
    let section = &readme[start..start + end];
    let listed: std::collections::HashSet<&str> = section
        .split(|c: char| c.is_whitespace() || c == '`')
        .collect();
    for a in Action::all() {
        assert!(
            m.bindings.iter().any(|b| b.action == a),
            "{} has no binding",
            a.name()
        );
        assert!(listed.contains(a.name()), "README lacks {}", a.name());
    }
}

#[test]
fn defaults_and_overrides() {
    let m = Keymap::default();
    assert_eq!(m.action(Context::Normal, k("j")), Some(Action::Down));
    assert_eq!(m.action(Context::Normal, k("ctrl-c")), Some(Action::Quit));
    let via_fallback = |ctx: Context, key| ctx.fallback().and_then(|f| m.action(f, key));
    assert_eq!(
        via_fallback(Context::Label, k("tab")),
        Some(Action::NextPane)
    );
    assert_eq!(
        via_fallback(Context::Search, k("tab")),
        None,
        "text fields do not fall back"
    );
    let (m, w) = overridden(
        "quit = [\"Q\"]\ndown = \"n\"\nnope = \"z\"\n[keys_typo]\n[label]\nundo = \"U\"\n[note]\ncancel = \"ctrl-c\"\n",
    );
    assert_eq!(m.action(Context::Normal, k("Q")), Some(Action::Quit));
    assert_eq!(m.action(Context::Normal, k("q")), None);
    assert_eq!(
        m.action(Context::Normal, k("n")),
        Some(Action::Down),
        "the override wins"
    );
    assert_eq!(m.action(Context::Label, k("U")), Some(Action::Undo));
    assert_eq!(m.action(Context::Label, k("u")), None);
    assert_eq!(
        m.action(Context::Note, k("ctrl-c")),
        Some(Action::Quit),
        "quit always has a key"
    );
    assert!(w.iter().any(|x| x.contains("next_unlabelled")), "{w:?}");
    assert!(w.iter().any(|x| x.contains("'nope'")), "{w:?}");
    assert!(
        w.iter()
            .any(|x| x.contains("[keys.keys_typo]: unknown mode")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|x| x.contains("[keys.note]: cancel: ctrl-c always quits")),
        "{w:?}"
    );
    assert!(
        m.hints(Context::Normal)
            .iter()
            .any(|(key, d)| key == "Q" && *d == "quit")
    );
    assert!(
        m.hints(Context::Label)
            .iter()
            .any(|(key, d)| key == "U" && *d == "undo")
    );
}

#[test]
fn override_messages_are_unchanged() {
    let (_, w) = overridden(
        "tree = 1\n[overlay]\nkinds = \"k\"\n[chart]\nall_runs = [\"bogus-key\"]\nkinds = [\"K\", 2]\n",
    );
    assert_eq!(
        w,
        [
            "config [keys.chart]: all_runs: 'bogus-key' is not a key name (unknown name); use one character or enter, esc, tab, shift-tab, backspace, delete, space, up, down, left, right, pageup, pagedown, home, end, f1–f12, optionally after ctrl- or alt-; ignored",
            "config [keys.chart]: all_runs: expected a key or a list of keys",
            "config [keys.chart]: kinds: expected a key or a list of keys",
            "config [keys.overlay]: unknown action 'kinds' (known: up, down, page_up, page_down, top, bottom, back)",
            "config [keys]: tree: expected a key or a list of keys",
        ]
    );
}

#[test]
fn hints_name_the_key_the_keymap_has_now() {
    let m = Keymap::default();
    assert_eq!(m.hint(Context::Normal, Action::NewRun), "R");
    assert_eq!(m.hint(Context::Overlay, Action::Back), "esc");
    assert_eq!(m.hint(Context::Chart, Action::NextBucket), "→");
    assert_eq!(m.hint(Context::Search, Action::ToggleOrder), "ctrl-o");
    // Through the fallback, as key handling reads it …
    assert_eq!(m.hint(Context::Label, Action::Search), "/");
    assert_eq!(m.hint(Context::Overlay, Action::Quit), "q");
    // … but not a key the mode itself takes (q is "done" in the filter editor).
    assert_eq!(m.hint(Context::Filter, Action::Quit), "ctrl-c");
    assert_eq!(m.hint(Context::Search, Action::Search), UNBOUND);
    assert_eq!(
        m.hint_line(
            Context::Overlay,
            &[(Action::Back, "closes"), (Action::Down, "scrolls")]
        ),
        "esc closes · j scrolls"
    );
    assert_eq!(
        m.hint_line(Context::Normal, &[(Action::NewRun, "starts a run")]),
        "R starts a run"
    );

    let (m, w) = overridden(
        "new_run = \"N\"\nsort = [\"s\", \"d\"]\nsearch = \"S\"\n[overlay]\nback = [\"x\", \"esc\"]\n",
    );
    assert!(
        w.iter()
            .any(|x| x.contains("sort now uses a key that sort_reverse had")),
        "{w:?}"
    );
    assert_eq!(m.hint(Context::Normal, Action::NewRun), "N");
    assert_eq!(m.hint(Context::Overlay, Action::Back), "x");
    assert_eq!(m.hint(Context::Label, Action::Search), "S");
    assert_eq!(m.hint(Context::Normal, Action::SortReverse), UNBOUND);
    assert_eq!(
        m.hint_line(
            Context::Normal,
            &[
                (Action::NewRun, "starts a run"),
                (Action::SortReverse, "reverses"),
                (Action::Help, "")
            ]
        ),
        "N starts a run · ?",
        "an unbound action is left out"
    );
    let (m, _) = overridden("[overlay]\ndown = \"ctrl-n\"\n");
    assert_eq!(
        m.hint_line(Context::Overlay, &[(Action::Down, "scrolls")]),
        "ctrl-n scrolls"
    );
    // The overlay still reads browsing keys it does not bind itself, so j scrolls too.
    assert_eq!(
        m.keys_for(Context::Overlay, Action::Down),
        vec![k("ctrl-n"), k("j"), k("down")]
    );
}

/// What key handling does with a key in a context: its own binding, else the fallback's.
fn dispatch(m: &Keymap, ctx: Context, key: Key) -> Option<Action> {
    m.action(ctx, key)
        .or_else(|| ctx.fallback().and_then(|f| m.action(f, key)))
}

#[test]
fn every_key_a_hint_can_name_does_that_action() {
    let (rebound, _) = overridden("down = \"n\"\nsort = [\"s\", \"d\"]\n[filter]\nback = \"q\"\n");
    for m in [Keymap::default(), rebound] {
        for ctx in Context::ALL {
            for a in Action::all() {
                for key in m.keys_for(ctx, a) {
                    let got = if key == Key::ctrl_c() {
                        Some(Action::Quit)
                    } else {
                        dispatch(&m, ctx, key)
                    };
                    assert_eq!(got, Some(a), "{}: {key} for {}", ctx.name(), a.name());
                }
            }
        }
    }
}

#[test]
fn help_headings_name_the_key_that_opens_each_mode() {
    let m = Keymap::default();
    for ctx in Context::ALL {
        assert_eq!(m.title(ctx), ctx.title(), "{}", ctx.name());
    }
    let (m, _) = overridden("search = \"ctrl-f\"\n[label]\nnote = \"M\"\n");
    assert_eq!(
        m.title(Context::Search),
        "search (ctrl-f): type to search φ₀ ψ φ₁, labels and notes"
    );
    assert_eq!(
        m.title(Context::Note),
        "note (M in label mode): type the note"
    );
}
