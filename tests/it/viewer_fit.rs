//! What the viewer fits on screen, through its keys: the sample list's title keeps the
//! filter in force (and, while a search is typed, the counts and `+reasoning`); compare
//! keeps ψ's line breaks and wraps its headers at words; the Raw tab hangs wrapped rows
//! under their value and shows reasoning before the answer; the new-run form wraps its
//! help at words, hangs a long output path under its value and leaves the key hints in
//! view; the "no run directories here" warning goes once a run is there; a status too
//! long for the footer ends at a whole word.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::screens;

use crate::screens::keys;
use autoeval::tui::app::App;
use autoeval::tui::build_app;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-runs")
        .join(name)
}

/// Shipped runs copied into `tmp` (their row index is built there, not in the tree).
fn copies(tmp: &Path, names: &[&str]) -> PathBuf {
    for n in names {
        let to = tmp.join(n);
        std::fs::create_dir_all(&to).unwrap();
        for f in ["run.json", "samples.jsonl"] {
            std::fs::copy(shipped(n).join(f), to.join(f)).unwrap();
        }
    }
    tmp.to_path_buf()
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let (t, _) = autoeval::tui::theme::Theme::load("default");
    screens::screen(app, &t, w, h)
}

/// The sample list's title: the top border of the pane whose next row is the header.
fn list_title(s: &str) -> String {
    let rows: Vec<&str> = s.lines().collect();
    let at = rows
        .windows(2)
        .position(|w| w[1].chars().skip(1).collect::<String>().starts_with("id "))
        .expect("the sample list's header row");
    let row = rows[at];
    let end = row.find(['┓', '┐']).unwrap_or(row.len());
    row[..end].to_string()
}

#[test]
fn the_list_title_keeps_the_filter_at_120x40_and_the_counts_while_a_search_is_typed() {
    let (mut app, _) = build_app(&screens::options(vec![common::fixtures::runs()]));
    // Not-equivalent and unparseable (the editor's fourth and fifth checkboxes), operator
    // count from 2, sorted by verdict, and a search: a long filter.
    keys(
        &mut app,
        &["f", "j", "j", "j", "space", "j", "space", "esc"],
    );
    keys(
        &mut app,
        &["f", "k", "k", "k", "k", "right", "right", "esc"],
    );
    keys(&mut app, &["s", "s", "/", "p", "1", "enter"]);
    let summary = app.filter_summary();
    assert!(summary.contains("ops 2"), "{summary}");
    for (w, h) in [(120, 40), (160, 48)] {
        let title = list_title(&screen(&mut app, w, h));
        // Every part of the filter in force is in the title; the sort may give way.
        for part in summary.split(" · ") {
            // A long filter may name verdicts as a narrow list does.
            let short = part
                .replace("not-equivalent", "not-eq")
                .replace("unparseable", "unparse");
            assert!(
                title.contains(part) || title.contains(&short),
                "{part:?} cut from {title:?} at {w}×{h}"
            );
        }
    }
    // Typing a search: the counts, the filter and `+reasoning` stay with what is typed.
    keys(&mut app, &["/", "ctrl-t", "2"]);
    let count = app
        .filter_summary()
        .split(" · ")
        .next()
        .unwrap()
        .to_string();
    for (w, h) in [(120, 40), (160, 48)] {
        let title = list_title(&screen(&mut app, w, h));
        for part in [count.as_str(), "+reasoning", "p12▏"] {
            assert!(
                title.contains(part),
                "{part:?} missing from {title:?} at {w}×{h}"
            );
        }
    }
    // Where there is room, the filter too.
    let title = list_title(&screen(&mut app, 160, 48));
    for part in ["ops 2", "not-eq", "unparse"] {
        assert!(title.contains(part), "{part:?} missing from {title:?}");
    }
    // At 80 columns the typed text and the counts stay, whatever else goes.
    let title = list_title(&screen(&mut app, 80, 24));
    assert!(title.contains(&count) && title.contains("p12▏"), "{title}");
}

#[test]
fn compare_keeps_psi_line_breaks_and_wraps_headers_at_words() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copies(
        tmp.path(),
        &["pl-qwen-0.5b", "pl-qwen-1.5b", "pl-2shot-qwen-0.5b"],
    );
    let (mut app, _) = build_app(&screens::options(vec![dir]));
    // pl-qwen-0.5b #46: ψ is a numbered list ("states that … either:\n1. …").
    keys(&mut app, &[":"]);
    for c in "pl-qwen-0.5b/46".chars() {
        app.press(&c.to_string()).unwrap();
    }
    keys(&mut app, &["enter", "c"]);
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("either:"), "{s}");
    assert!(!s.contains("either:1."), "ψ's line breaks dropped:\n{s}");
    assert!(s.contains("│   1. The disjunction"), "{s}");
    // Three columns at 80: the model's name breaks after a `-`, never inside a word.
    assert!(s.contains("│instruct ·"), "{s}");
    insta::assert_snapshot!("compare_80x24", s);
}

/// The detail pane's rows (between its side borders).
fn detail_rows(s: &str) -> Vec<String> {
    s.lines()
        .filter_map(|l| {
            let chars: Vec<char> = l.chars().collect();
            let at = chars.iter().position(|c| *c == '┃')?;
            let end = chars.iter().rposition(|c| *c == '┃')?;
            (end > at).then(|| chars[at + 1..end].iter().collect())
        })
        .collect()
}

#[test]
fn the_raw_tab_hangs_wrapped_rows_and_shows_reasoning_before_the_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copies(tmp.path(), &["pl-perturb-reasoning"]);
    let mut app = screens::view(vec![dir]);
    // Sample 20's Raw tab, reasoning unfolded, at its end: the autoformalize call.
    keys(&mut app, &["tab", "]", "]", "]", "z", "G"]);
    let s = screen(&mut app, 120, 40);
    let rows = detail_rows(&s);
    let fold = rows
        .iter()
        .rposition(|r| r.starts_with("  ▾ reasoning"))
        .unwrap_or_else(|| panic!("no open reasoning:\n{s}"));
    let answer = rows
        .iter()
        .rposition(|r| r.starts_with("  assistant:"))
        .unwrap_or_else(|| panic!("no answer:\n{s}"));
    assert!(fold < answer, "reasoning after the answer:\n{s}");
    // The fold line and every reasoning row keep their indent when they wrap.
    for r in &rows[fold + 1..answer] {
        assert!(
            r.starts_with("    │ ") || r.starts_with("    "),
            "a wrapped row left its indent: {r:?}\n{s}"
        );
    }
    assert!(
        rows[fold + 1..answer]
            .iter()
            .filter(|r| r.starts_with("    │ "))
            .count()
            >= 6,
        "{s}"
    );
    // The call's header hangs under its name (`13703 ms` never breaks to column 0).
    keys(&mut app, &["g"]);
    let s = screen(&mut app, 80, 24);
    let rows = detail_rows(&s);
    let head = rows
        .iter()
        .position(|r| r.starts_with("▸ informalize"))
        .unwrap();
    let user = rows.iter().position(|r| r.starts_with("  user:")).unwrap();
    assert!(
        user > head + 1,
        "the header fits one row at 80 columns?\n{s}"
    );
    for r in &rows[head + 1..user] {
        assert!(r.starts_with("  ") && !r.starts_with("   "), "{r:?}\n{s}");
    }
    // The prompt's wrapped rows stay under the prompt.
    let after: Vec<&String> = rows[user + 1..]
        .iter()
        .take_while(|r| !r.trim().is_empty())
        .collect();
    assert!(after.iter().all(|r| r.starts_with("    ")), "{after:?}");
}

/// The popup's rows inside its borders, found by its title.
fn popup_rows(s: &str, title: &str) -> Vec<String> {
    let rows: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let (top, x0) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| {
            let line: String = r.iter().collect();
            let byte = line.find(&format!("┏ {title}"))?;
            Some((y, line[..byte].chars().count()))
        })
        .unwrap_or_else(|| panic!("no popup {title}:\n{s}"));
    let x1 = x0 + rows[top][x0 + 1..].iter().position(|c| *c == '┓').unwrap() + 1;
    rows[top + 1..]
        .iter()
        .take_while(|r| r.get(x0) == Some(&'┃'))
        .map(|r| r[x0 + 1..x1.min(r.len())].iter().collect::<String>())
        .collect()
}

#[test]
fn the_run_form_wraps_help_at_words_hangs_the_output_path_and_keeps_the_key_hints() {
    // A long folder: the default output path (the folder + `live`) wraps.
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp
        .path()
        .join("a-folder-with-a-rather-long-name-for-the-study-runs-lv");
    std::fs::create_dir_all(&folder).unwrap();
    let (mut app, _) = build_app(&screens::options(vec![folder.clone()]));
    keys(&mut app, &["R"]);
    // The default output directory, set here too: another test's run may have left
    // its own in the remembered form.
    let out = folder.join("live").display().to_string();
    app.form_mut().unwrap().set("out", &out);
    // The cursor on the output directory (the last field): a short form scrolls to it.
    for _ in 1..autoeval::tui::live::FIELDS.len() {
        keys(&mut app, &["tab"]);
    }
    for (w, h) in [(80, 24), (120, 40), (160, 48)] {
        let s = screen(&mut app, w, h);
        let rows = popup_rows(&s, "New run");
        let end = rows.iter().position(|r| r.starts_with("cost ")).unwrap();
        // The help, its rows joined again, is the help: no word split across rows.
        let help = rows.iter().position(|r| r.starts_with("dataset: ksat"));
        if let Some(start) = help {
            let help: Vec<&str> = rows[start..end].iter().map(|r| r.trim_end()).collect();
            let joined = help.join(" ");
            assert!(
                joined.contains("a reference task: folio-r-nl")
                    && joined.contains("model: perturb, openai:<m>")
                    && joined.contains("the model's profile decides")
                    && joined.ends_with("relative paths: from the shell's directory"),
                "the help was cut inside a word at {w}×{h}:\n{}",
                help.join("\n")
            );
        } else {
            assert!(w < 100, "no help at {w}×{h}:\n{s}");
        }
        let start = help.unwrap_or(end);
        // The output path's rows sit under the value, never at the label's column.
        let at = rows
            .iter()
            .position(|r| r.starts_with("output directory"))
            .unwrap_or_else(|| panic!("no output directory at {w}×{h}:\n{s}"));
        let path: String = std::iter::once(rows[at][24..].trim_end())
            .chain(rows[at + 1..start].iter().map(|r| {
                assert!(r.starts_with(&" ".repeat(24)), "{r:?} at {w}×{h}\n{s}");
                r.trim()
            }))
            .collect();
        assert_eq!(path.trim_end_matches('▏'), out, "at {w}×{h}");
        // The footer row keeps its key hints (the form is drawn above it).
        let footer = s.trim_end_matches('\n').lines().last().unwrap();
        assert!(
            !footer.contains('┗') && footer.contains("esc"),
            "the form covers the key hints at {w}×{h}: {footer:?}"
        );
    }
}

#[test]
fn the_empty_folder_warning_goes_when_a_run_started_from_the_form_appears() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _) = build_app(&screens::options(vec![dir.path().to_path_buf()]));
    let stale = |a: &App| {
        a.model
            .warnings
            .iter()
            .any(|w| w.contains("no run directories here"))
    };
    assert!(stale(&app));
    // A synthetic run (no server) into the default output directory, `DIR/live`.
    keys(&mut app, &["R"]);
    screens::set_form(
        &mut app,
        &[("dataset", "pl"), ("per_category", "1"), ("limit", "4")],
    );
    keys(&mut app, &["enter"]);
    assert!(
        app.jobs.live.is_some(),
        "{:?}",
        app.form().map(|f| f.error.clone())
    );
    let start = Instant::now();
    while app.jobs.live.as_ref().unwrap().ended.is_none() || app.model.runs.is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run never ended"
        );
        app.pump();
        std::thread::sleep(Duration::from_millis(20));
    }
    app.follow();
    assert_eq!(app.model.runs.len(), 1);
    assert!(
        app.model.runs[0].dir.starts_with(dir.path()),
        "{}",
        app.model.runs[0].dir.display()
    );
    assert!(!stale(&app), "{:?}", app.model.warnings);
    let footer = screen(&mut app, 120, 40);
    assert!(!footer.contains("warning(s)"), "{footer}");
}

#[test]
fn a_status_too_long_for_the_footer_ends_at_a_whole_word() {
    // Six runs hold sample 3: the jump names the others, more than 80 columns.
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::fixtures::runs().join("pl-small/run.json")).unwrap();
    for k in 1..=6 {
        let name = format!("study-run-number-{k}");
        let to = tmp.path().join(&name);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::write(
            to.join("run.json"),
            text.replace("\"id\": \"pl-small\"", &format!("\"id\": \"{name}\"")),
        )
        .unwrap();
        std::fs::copy(
            common::fixtures::runs().join("pl-small/samples.jsonl"),
            to.join("samples.jsonl"),
        )
        .unwrap();
    }
    let (mut app, _) = build_app(&screens::options(vec![tmp.path().to_path_buf()]));
    keys(&mut app, &[":", "3", "enter"]);
    assert!(
        app.status.contains("also in 5 other runs"),
        "{}",
        app.status
    );
    let s = screen(&mut app, 80, 24);
    let footer = s.trim_end_matches('\n').lines().last().unwrap().trim();
    assert!(
        footer.contains("sample 3; also in 5 other runs (RUN/ID picks one): study-run-number-"),
        "{footer}"
    );
    assert!(
        footer.ends_with('…') && !footer.ends_with(",…") && !footer.ends_with(", …"),
        "cut inside the list of runs: {footer:?}"
    );
}
