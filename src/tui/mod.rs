//! The terminal viewer: browse, filter and understand runs.

pub mod app;
pub(crate) mod capture;
pub mod clipboard;
pub mod components;
pub mod data;
pub mod export;
pub mod form;
pub(crate) mod form_scale;
pub(crate) mod form_task;
pub mod keymap;
pub mod keys;
pub mod kinds;
pub mod labels;
pub mod layer;
pub mod live;
pub mod model;
pub mod search;
pub mod theme;
pub mod transcript;
pub mod ui;

use app::{App, Msg};
use data::RunIndex;
use keymap::Keymap;
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use theme::Theme;

/// User configuration (`~/.config/autoeval/config.toml`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub(crate) struct Config {
    /// Theme name or path.
    pub theme: Option<String>,
    /// Annotator name for labels.
    pub annotator: Option<String>,
    /// Key overrides.
    pub keys: Option<toml::Table>,
    /// Taxonomy file.
    pub taxonomy: Option<PathBuf>,
    /// Blind labelling (as `view --blind`).
    pub blind: Option<bool>,
    /// Seed of the blind order (default 0); each annotator's order differs anyway.
    pub blind_seed: Option<u64>,
}

/// The settings [`Config`] knows (others are warned about and ignored).
const SETTINGS: [&str; 6] = [
    "theme",
    "annotator",
    "keys",
    "taxonomy",
    "blind",
    "blind_seed",
];

/// Reads the config file; problems are warnings. Unknown settings are named and
/// ignored; a setting of the wrong type is named with what it should be, and only that
/// setting falls back to its default.
pub(crate) fn load_config(path: Option<&Path>) -> (Config, Vec<String>) {
    let path = match path {
        Some(p) => p.to_path_buf(),
        None => match theme::config_dir() {
            Some(d) => d.join("config.toml"),
            None => return (Config::default(), vec![]),
        },
    };
    let Ok(text) = crate::base::fsread::read_to_string(&path, crate::base::fsread::MAX_SMALL)
    else {
        return (Config::default(), vec![]);
    };
    let table = match text.parse::<toml::Table>() {
        Ok(t) => t,
        Err(e) => {
            return (
                Config::default(),
                vec![format!("{}: {e}; using defaults", path.display())],
            );
        }
    };
    let mut warnings = Vec::new();
    let mut known = toml::Table::new();
    for (k, v) in table {
        if SETTINGS.contains(&k.as_str()) {
            // Each setting on its own: one bad value must not lose the others.
            let mut one = toml::Table::new();
            one.insert(k.clone(), v.clone());
            match toml::Value::Table(one).try_into::<Config>() {
                Ok(_) => {
                    known.insert(k, v);
                }
                Err(e) => warnings.push(format!(
                    "{}: setting '{k}' ignored: {}",
                    path.display(),
                    crate::base::sanitize::one_line(&e.to_string())
                )),
            }
        } else {
            warnings.push(format!(
                "{}: unknown setting '{k}' ignored (known: {})",
                path.display(),
                SETTINGS.join(", ")
            ));
        }
    }
    let cfg = toml::Value::Table(known)
        .try_into::<Config>()
        .unwrap_or_default();
    (cfg, warnings)
}

/// Opens every path: run directories, folders of runs, or the original's files.
pub fn open_paths(paths: &[PathBuf]) -> (Vec<RunIndex>, Vec<String>) {
    let (dirs, warnings) = run_dirs(paths);
    (dirs.iter().map(|d| RunIndex::open(d)).collect(), warnings)
}

/// The run directories `paths` name (folders expanded, original-format files imported),
/// in order, and warnings for what is not there.
pub(crate) fn run_dirs(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut runs = Vec::new();
    let mut warnings = Vec::new();
    for p in paths {
        if !p.exists() {
            warnings.push(format!("{}: no such file or directory", p.display()));
            continue;
        }
        if p.is_file() {
            match import_for_viewing(p) {
                Ok(dir) => runs.push(dir),
                Err(e) => warnings.push(format!("{}: {e}", p.display())),
            }
            continue;
        }
        let dirs = data::discover(p);
        if dirs.is_empty() {
            warnings.push(format!(
                "{}: no run directories here (a run has run.json and samples.jsonl)",
                p.display()
            ));
        }
        runs.extend(dirs);
    }
    (runs, warnings)
}

/// Converts an original-format file into a run directory under the temp dir.
fn import_for_viewing(file: &Path) -> Result<PathBuf, crate::run::import::ImportError> {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let meta = std::fs::metadata(file)
        .map_err(|e| crate::run::store::StoreError::Io(file.display().to_string(), e))?;
    let stamp = meta
        .modified()
        .ok()
        .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let dir = std::env::temp_dir().join(format!("autoeval-view-{stem}-{}-{stamp}", meta.len()));
    if !dir.join("run.json").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        crate::run::import::import(file, &dir, false, &crate::verify::Options::default())?;
    }
    Ok(dir)
}

/// Options for the viewer.
#[derive(Debug, Clone, Default)]
pub struct ViewOptions {
    /// Paths to open.
    pub paths: Vec<PathBuf>,
    /// Theme name or file.
    pub theme: Option<String>,
    /// Config file.
    pub config: Option<PathBuf>,
}

/// Builds the app the viewer starts with, every run loaded (tests, benches).
pub fn build_app(opts: &ViewOptions) -> (App, Theme) {
    build(opts, false, false)
}

/// Builds the app with its runs still loading on background threads: the first frame
/// comes at once, and runs join the lists as [`Msg::Loaded`] brings them.
pub fn build_app_loading(opts: &ViewOptions) -> (App, Theme) {
    build(opts, true, false)
}

/// [`build_app`] in blind mode whatever the config says (`view --blind`).
pub fn build_app_blind(opts: &ViewOptions) -> (App, Theme) {
    build(opts, false, true)
}

fn build(opts: &ViewOptions, background: bool, blind: bool) -> (App, Theme) {
    let (cfg, mut warnings) = load_config(opts.config.as_deref());
    let (keymap, kw) = Keymap::default().with_overrides(cfg.keys.as_ref());
    warnings.extend(kw);
    let theme_name = opts
        .theme
        .clone()
        .or(cfg.theme)
        .unwrap_or_else(|| "default".into());
    let (theme, tw) = Theme::load(&theme_name);
    warnings.extend(tw);
    let (dirs, rw) = run_dirs(&opts.paths);
    warnings.extend(rw);
    let (runs, later) = if background {
        (Vec::new(), dirs)
    } else {
        (dirs.iter().map(|d| RunIndex::open(d)).collect(), Vec::new())
    };
    let (taxonomy, xw) = labels::Taxonomy::load(
        cfg.taxonomy.as_deref(),
        &keymap.key_names(keymap::Context::Label),
    );
    warnings.extend(xw);
    // The built-in taxonomy may meet label keys the config rebound: the category wins.
    for c in &taxonomy.categories {
        if let Some(a) = c
            .key
            .parse::<keys::Key>()
            .ok()
            .and_then(|k| keymap.action(keymap::Context::Label, k))
        {
            warnings.push(format!(
                "label mode: key '{}' is both the category '{}' and {}; the category wins (rebind it in [keys.label])",
                crate::base::sanitize::one_line(&c.key),
                crate::base::sanitize::one_line(&c.id),
                a.name()
            ));
        }
    }
    let mut app = App::new(runs, keymap, warnings);
    app.model.watch = opts
        .paths
        .iter()
        .filter(|p| p.is_dir() && !crate::run::store::is_run_dir(p))
        .cloned()
        .collect();
    app.model.taxonomy = taxonomy;
    app.model.annotator = labels::annotator(cfg.annotator.as_deref());
    if blind || cfg.blind == Some(true) {
        app.model.blind = Some(cfg.blind_seed.unwrap_or(0));
        app.model.refilter();
        app.model.select_first_failure();
    }
    if !later.is_empty() {
        app.load_in_background(later);
    }
    (app, theme)
}

/// Why the viewer stopped early: the terminal failed (drawing, clearing, writing).
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// A terminal write failed.
    #[error(transparent)]
    Terminal(#[from] std::io::Error),
}

/// Runs the viewer until the user quits. Returns the exit code.
pub fn run(opts: ViewOptions) -> Result<i32, ViewError> {
    run_with(opts, false)
}

/// Runs the viewer, blind when `blind` (or the config) says so.
pub fn run_with(opts: ViewOptions, blind: bool) -> Result<i32, ViewError> {
    run_on(opts, blind, None, None)
}

/// [`run_with`], opening on sample `sample` (`view --sample ID`, `RUN/ID`), labelling
/// as `annotator` when given (`view --annotator NAME`).
pub fn run_on(
    opts: ViewOptions,
    blind: bool,
    sample: Option<String>,
    annotator: Option<String>,
) -> Result<i32, ViewError> {
    if !std::io::stdout().is_terminal() {
        eprintln!("autoeval: the viewer needs a terminal; see `autoeval --help` for the commands");
        return Ok(2);
    }
    let started = Instant::now();
    let (mut app, theme) = build(&opts, true, blind);
    if let Some(a) = annotator {
        app.model.annotator = a;
    }
    if let Some(spec) = sample {
        app.open_on(spec);
    }
    let mut terminal = ratatui::init();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    );
    // From here to the restore, stderr goes to the warnings pane, not over the panes.
    let stderr_tx = app.jobs.sender();
    let capture = capture::Capture::start(move |line| stderr_tx.send(Msg::Stderr(line)).is_ok())
        .map_err(|e| {
            app.model
                .warnings
                .push(format!("{}: not captured ({e})", capture::SOURCE));
        })
        .ok();
    restore_on_panic(capture.as_ref().and_then(|c| c.terminal().ok()));
    // For the terminal-restoring test only: a named key that panics on purpose.
    let panic_key = std::env::var("AUTOEVAL_TEST_PANIC_KEY").ok();
    read_input(app.jobs.sender());
    app::jobs::tick(app.jobs.sender(), Duration::from_millis(500));
    let result = event_loop(
        &mut app,
        &mut terminal,
        &theme,
        started,
        panic_key.as_deref(),
    );
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
    ratatui::restore();
    close(&mut app, capture);
    result.map(|()| 0).map_err(ViewError::from)
}

/// Sets the panic hook: ratatui's leaves raw mode and the alternate screen on a panic;
/// mouse capture must be switched off too, or the user's shell receives mouse codes,
/// and stderr must be the terminal's again (`terminal_stderr`) for the panic message
/// to be seen.
fn restore_on_panic(terminal_stderr: Option<std::os::fd::OwnedFd>) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Some(fd) = &terminal_stderr {
            let _ = rustix::stdio::dup2_stderr(fd);
        }
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::DisableMouseCapture
        );
        previous(info);
    }));
}

/// Terminal input arrives in the inbox like everything else: a thread reads it into
/// `input`.
fn read_input(input: std::sync::mpsc::Sender<Msg>) {
    std::thread::spawn(move || {
        while let Ok(ev) = event::read() {
            let msg = match ev {
                Event::Key(k) if k.kind != KeyEventKind::Release => {
                    match keys::Key::from_event(k) {
                        Some(key) => Msg::Key(key),
                        None => continue,
                    }
                }
                Event::Mouse(m) => Msg::Mouse(m),
                Event::Resize(..) => Msg::Resize,
                _ => continue,
            };
            if input.send(msg).is_err() {
                break;
            }
        }
    });
}

/// Draws and updates until the user quits: a frame after each burst of messages.
fn event_loop(
    app: &mut App,
    terminal: &mut ratatui::DefaultTerminal,
    theme: &Theme,
    started: Instant,
    panic_key: Option<&str>,
) -> std::io::Result<()> {
    let mut dirty = true;
    let mut first = true;
    while !app.quit {
        // OSC 52 copies go to the terminal itself, between frames.
        send_clipboard(app, terminal)?;
        // Ctrl-L: draw every cell again, whatever the terminal shows now.
        if std::mem::take(&mut app.repaint) {
            terminal.clear()?;
            dirty = true;
        }
        if dirty {
            terminal.draw(|f| app.panes.areas = ui::view(f, app, theme))?;
            dirty = false;
            if first {
                first = false;
                if std::env::var_os("AUTOEVAL_TIMING").is_some() {
                    app.status = format!("first frame after {:.0?}", started.elapsed());
                    dirty = true;
                    continue;
                }
            }
        }
        let Some(mut msg) = app.jobs.next(Duration::from_secs(1)) else {
            continue;
        };
        // Take everything waiting before drawing again: a burst of keys or of
        // loaded runs costs one frame.
        loop {
            if let Msg::Key(key) = &msg {
                assert!(
                    panic_key != Some(key.to_string().as_str()),
                    "AUTOEVAL_TEST_PANIC_KEY pressed"
                );
            }
            dirty |= app.update(msg);
            if app.quit {
                break;
            }
            match app.jobs.ready() {
                Some(m) => msg = m,
                None => break,
            }
        }
    }
    send_clipboard(app, terminal)
}

/// After the terminal is restored: prints the lines written while the viewer closed
/// (and any it did not take), and stops a live run so run.json does not stay `running`.
fn close(app: &mut App, capture: Option<capture::Capture>) {
    // Lines written while the viewer closed, and any the viewer did not take, are
    // printed now that the terminal is the shell's again.
    if let Some(c) = capture {
        c.stop();
        // (A closed viewer prints `Msg::Stderr`; keys are for no one now.)
        while let Some(msg) = app.jobs.ready() {
            if !matches!(msg, Msg::Key(_) | Msg::Mouse(_)) {
                app.update(msg);
            }
        }
    }
    // Ctrl-C with a live run: stop it so run.json does not stay `running`.
    if app.jobs.live_running() {
        eprintln!("autoeval: cancelling the live run (finished samples stay; resumable)…");
        if !app.shutdown(Duration::from_secs(15)) {
            eprintln!(
                "autoeval: the run did not stop within 15 s; `autoeval run --resume` picks it up"
            );
        }
    }
}

/// Writes pending OSC 52 copies (a quit right after a copy still sends it).
fn send_clipboard<B: ratatui::backend::Backend + std::io::Write>(
    app: &mut app::App,
    terminal: &mut ratatui::Terminal<B>,
) -> std::io::Result<()> {
    if app.clipboard.is_empty() {
        return Ok(());
    }
    let out = terminal.backend_mut();
    std::io::Write::write_all(out, &std::mem::take(&mut app.clipboard))?;
    std::io::Write::flush(out)
}
