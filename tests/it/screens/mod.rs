//! The viewer drawn into a test terminal: plain text, and text with its styles.
#![allow(dead_code, clippy::unwrap_used)]

use autoeval::tui::app::App;
use autoeval::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The sizes every mode is snapshotted at.
pub const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (160, 48)];

/// One frame of the viewer in a test terminal, drawn again when it started the Diff
/// tab's proof search (the viewer draws again on the tick after the search ends).
pub fn render(app: &mut App, t: &Theme, w: u16, h: u16) -> ratatui::buffer::Buffer {
    wait_kinds(app);
    let buf = render_once(app, t, w, h);
    let proved = app.panes.detail.as_ref().is_some_and(|d| {
        d.wait_explained(std::time::Duration::from_secs(60));
        d.proof_arrived()
    });
    if proved {
        return render_once(app, t, w, h);
    }
    buf
}

/// Waits (up to two minutes) until the background worker has proved the failure kinds
/// of every loaded run: a run with more pending samples than the viewer proves while
/// opening (`INLINE_KINDS`) fills its kinds in the background, and a snapshot must not
/// depend on how far it got. `screen_once`/`render_once` draw without waiting.
pub fn wait_kinds(app: &mut App) {
    app.settle();
    let done = app.pump_until(std::time::Duration::from_secs(120), |a| {
        !a.filter_summary().contains("% proved")
    });
    assert!(done, "kinds still being proved after two minutes");
}

/// Exactly one frame of the viewer in a test terminal.
pub fn render_once(app: &mut App, t: &Theme, w: u16, h: u16) -> ratatui::buffer::Buffer {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    app.settle();
    term.draw(|f| {
        app.panes.areas = autoeval::tui::ui::view(f, app, t);
    })
    .unwrap();
    term.backend().buffer().clone()
}

/// The frame's text, trailing blanks trimmed.
pub fn screen(app: &mut App, t: &Theme, w: u16, h: u16) -> String {
    text(&render(app, t, w, h), w, h)
}

/// Exactly one frame's text (a proof search it starts is not waited for).
pub fn screen_once(app: &mut App, t: &Theme, w: u16, h: u16) -> String {
    text(&render_once(app, t, w, h), w, h)
}

/// A buffer's text, trailing blanks trimmed.
fn text(buf: &ratatui::buffer::Buffer, w: u16, h: u16) -> String {
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The screen with its colours: each run of cells with the same foreground, background
/// and modifiers is written `[fg/bg/mods]text`, so a snapshot catches a pane drawn in
/// the wrong colour, not only wrong text.
pub fn styled(app: &mut App, t: &Theme, w: u16, h: u16) -> String {
    let buf = render(app, t, w, h);
    let mut out = String::new();
    for y in 0..h {
        let mut last = None;
        for x in 0..w {
            let c = &buf[(x, y)];
            let style = format!("[{:?}/{:?}/{:?}]", c.fg, c.bg, c.modifier);
            if last.as_ref() != Some(&style) {
                out.push_str(&style);
                last = Some(style);
            }
            out.push_str(c.symbol());
        }
        out.push('\n');
    }
    out
}

/// Snapshots a mode at every size, as text and with styles (a macro, so insta names the
/// files after the calling test file).
#[macro_export]
macro_rules! snap_mode {
    ($name:expr, $app:expr, $t:expr) => {
        for (w, h) in screens::SIZES {
            insta::assert_snapshot!(
                format!("{}_{w}x{h}", $name),
                screens::screen($app, $t, w, h)
            );
            insta::assert_snapshot!(
                format!("styled_{}_{w}x{h}", $name),
                screens::styled($app, $t, w, h)
            );
        }
    };
}

/// Points this test process's config directory at an empty directory, once, so no
/// test reads the developer's config, themes, taxonomy or remembered form (processes
/// the tests start get their own HOME and XDG_CONFIG_HOME).
pub fn isolate() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let home = tempfile::tempdir().unwrap().keep();
        autoeval::tui::theme::use_config_dir(home.join(".config/autoeval"));
    });
}

/// Viewer options on `paths` that read nothing of the developer's: the config directory
/// is an empty one of this test's own and the config file does not exist.
pub fn options(paths: Vec<std::path::PathBuf>) -> autoeval::tui::ViewOptions {
    isolate();
    // And one of its own for this test's thread: the tests share a process, and a form
    // remembered by one must not fill another's.
    let own = tempfile::tempdir().unwrap().keep();
    autoeval::base::config_dir::use_config_dir_on_this_thread(own.join(".config/autoeval"));
    autoeval::tui::ViewOptions {
        paths,
        theme: None,
        config: Some("/nonexistent/autoeval-config.toml".into()),
    }
}

/// The viewer on `paths`, reading nothing of the developer's.
pub fn view(paths: Vec<std::path::PathBuf>) -> App {
    autoeval::tui::build_app(&options(paths)).0
}

/// A child process killed when dropped: a failing assertion never leaves it running.
pub struct Reaped(pub std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            // The whole process group: `script` runs the viewer as its own child, and a
            // failed assertion must not leave that running.
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.0.id())])
                .stderr(std::process::Stdio::null())
                .status();
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Spawns `cmd` as the leader of a new process group, so [`Reaped`] can end it with
/// every process it started.
pub fn spawn_group(cmd: &mut std::process::Command) -> std::io::Result<Reaped> {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0).spawn().map(Reaped)
}

/// Sets `fields` (name, value) in the open new-run form and refreshes its command.
pub fn set_form(app: &mut App, fields: &[(&str, &str)]) {
    let form = app.form_mut().unwrap();
    for (k, v) in fields {
        form.set(k, v);
    }
    form.refresh();
}

/// Selects the sample `id` in the list (the first run that has it) and drops the
/// open detail, as moving the cursor does.
pub fn pick(app: &mut App, id: &str) {
    let k = app
        .model
        .listing
        .visible
        .iter()
        .position(|(r, i)| &*app.model.runs[*r as usize].rows[*i as usize].id == id)
        .unwrap();
    app.model.listing.sample_list.sel = k;
    app.panes.detail = None;
}

/// Starts the filled new-run form (`enter`) and waits up to 60 s for its run to end.
pub fn run_form_to_end(app: &mut App) {
    keys(app, &["enter"]);
    assert!(
        app.jobs.live.is_some(),
        "{:?}",
        app.form().map(|f| f.error.clone())
    );
    let start = std::time::Instant::now();
    while app.jobs.live.as_ref().unwrap().ended.is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the run did not end"
        );
        app.pump_until(std::time::Duration::from_millis(30), |_| false);
    }
}

/// `script` running `cmd` in a pseudo-terminal in its own process group: HOME and the
/// response cache in `home`, the config directory at `cfg`, `env` set, its standard
/// streams piped.
pub fn script(
    cmd: &str,
    home: &std::path::Path,
    cfg: &std::path::Path,
    env: &[(&str, &str)],
) -> Reaped {
    spawn_group(
        std::process::Command::new("script")
            .args(["-qfec", cmd, "/dev/null"])
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", cfg)
            .env("AUTOEVAL_CACHE_DIR", home.join(".cache/autoeval"))
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
    )
    .expect("the `script` command (util-linux) is needed for this test")
}

/// Presses each key in turn (key names as in the keymap: `"j"`, `"enter"`, `"ctrl-c"`).
pub fn keys(app: &mut App, ks: &[&str]) {
    for k in ks {
        app.press(k).unwrap();
    }
}

/// Types `text` a character at a time (a space as the `space` key).
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        let k = if c == ' ' {
            "space".to_string()
        } else {
            c.to_string()
        };
        app.press(&k).unwrap();
    }
}
