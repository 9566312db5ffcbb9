//! The terminal viewer: browse, filter and understand runs.

pub mod components;
pub mod data;
pub mod export;
pub mod keymap;
pub mod keys;
pub mod labels;
pub mod live;
pub mod search;
pub mod state;
pub mod theme;
pub mod transcript;
pub mod ui;

use data::RunIndex;
use keymap::Keymap;
use ratatui::crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};
use state::{App, Pane};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use theme::Theme;

/// User configuration (`~/.config/autoeval/config.toml`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct Config {
    /// Theme name or path.
    pub theme: Option<String>,
    /// Annotator name for labels.
    pub annotator: Option<String>,
    /// Key overrides.
    pub keys: Option<toml::Table>,
    /// Taxonomy file.
    pub taxonomy: Option<PathBuf>,
}

/// The settings [`Config`] knows (others are warned about and ignored).
const SETTINGS: [&str; 4] = ["theme", "annotator", "keys", "taxonomy"];

/// Reads the config file; problems are warnings. Unknown settings are named and
/// ignored; a setting of the wrong type is named with what it should be, and only that
/// setting falls back to its default.
pub fn load_config(path: Option<&Path>) -> (Config, Vec<String>) {
    let path = match path {
        Some(p) => p.to_path_buf(),
        None => match theme::config_dir() {
            Some(d) => d.join("config.toml"),
            None => return (Config::default(), vec![]),
        },
    };
    let Ok(text) = crate::fsread::read_to_string(&path, crate::fsread::MAX_SMALL) else {
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
                    crate::sanitize::one_line(&e.to_string())
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
pub fn run_dirs(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
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

fn inside(r: ratatui::layout::Rect, x: u16, y: u16) -> bool {
    x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
}

/// A mouse event on the last frame's areas: the wheel scrolls the pane under the
/// pointer, a click selects the run or sample on that row (through the lists' offsets).
pub fn mouse(app: &mut App, areas: &ui::Areas, m: ratatui::crossterm::event::MouseEvent) {
    let (x, y) = (m.column, m.row);
    match m.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let d = if m.kind == MouseEventKind::ScrollDown {
                keymap::Action::Down
            } else {
                keymap::Action::Up
            };
            let prev = app.focus;
            app.focus = if inside(areas.detail, x, y) {
                Pane::Detail
            } else if inside(areas.runs, x, y) {
                Pane::Runs
            } else {
                Pane::Samples
            };
            for _ in 0..3 {
                app.act_in(app.context(), d);
            }
            if !inside(areas.detail, x, y) && !inside(areas.runs, x, y) {
                app.focus = Pane::Samples;
            } else if prev != app.focus && app.focus != Pane::Detail {
                app.focus = prev;
            }
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if inside(areas.samples, x, y) && y == areas.samples.y + 1 {
                // The column header: sort by the column clicked (again: reversed).
                app.focus = Pane::Samples;
                let col = usize::from(x.saturating_sub(areas.samples.x + 1));
                if let Some(k) = ui::panes::sample_column_at(app, col) {
                    app.sort_by(|s| s.click(k));
                }
            } else if inside(areas.samples, x, y) {
                app.focus = Pane::Samples;
                // Row 0 is the border, row 1 the column header.
                let line = (y.saturating_sub(areas.samples.y + 2)) as usize;
                if y >= areas.samples.y + 2 && app.sample_list.click(line, app.visible.len()) {
                    app.detail = None;
                }
            } else if inside(areas.runs, x, y) {
                app.focus = Pane::Runs;
                let line = y.saturating_sub(areas.runs.y + 1) as usize;
                if y > areas.runs.y {
                    app.run_list.click(line, app.runs.len());
                }
            } else if inside(areas.detail, x, y) {
                app.focus = Pane::Detail;
            }
        }
        _ => {}
    }
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
    build(opts, false)
}

/// Builds the app with its runs still loading on background threads: the first frame
/// comes at once, and runs join the lists as they are read ([`App::poll_loading`]).
pub fn build_app_loading(opts: &ViewOptions) -> (App, Theme) {
    build(opts, true)
}

fn build(opts: &ViewOptions, background: bool) -> (App, Theme) {
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
    let (runs, loader) = if background {
        (Vec::new(), Some(state::Loader::start(dirs)))
    } else {
        (dirs.iter().map(|d| RunIndex::open(d)).collect(), None)
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
                "label mode: key '{}' is both the category '{}' and {a:?}; the category wins (rebind it in [keys.label])",
                crate::sanitize::one_line(&c.key),
                crate::sanitize::one_line(&c.id)
            ));
        }
    }
    let mut app = App::new(runs, keymap, warnings);
    app.watch = opts
        .paths
        .iter()
        .filter(|p| p.is_dir() && !crate::run::store::is_run_dir(p))
        .cloned()
        .collect();
    app.taxonomy = taxonomy;
    app.annotator = labels::annotator(cfg.annotator.as_deref());
    app.loader = loader;
    (app, theme)
}

/// Runs the viewer until the user quits. Returns the exit code.
pub fn run(opts: ViewOptions) -> anyhow::Result<i32> {
    if !std::io::stdout().is_terminal() {
        eprintln!("autoeval: the viewer needs a terminal; see `autoeval --help` for the commands");
        return Ok(2);
    }
    let started = Instant::now();
    let (mut app, theme) = build_app_loading(&opts);
    let mut terminal = ratatui::init();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    );
    // ratatui's hook leaves raw mode and the alternate screen on a panic; mouse
    // capture must be switched off too, or the user's shell receives mouse codes.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::DisableMouseCapture
        );
        previous(info);
    }));
    // For the terminal-restoring test only: a named key that panics on purpose.
    let panic_key = std::env::var("AUTOEVAL_TEST_PANIC_KEY").ok();
    let result = (|| -> anyhow::Result<()> {
        let mut areas = ui::Areas::default();
        let mut dirty = true;
        let mut last_follow = Instant::now();
        let mut first = true;
        while !app.quit {
            if dirty {
                terminal.draw(|f| areas = ui::draw(f, &mut app, &theme))?;
                dirty = false;
                if first {
                    first = false;
                    if std::env::var_os("AUTOEVAL_TIMING").is_some() {
                        app.status = format!("first frame after {:.0?}", started.elapsed());
                        dirty = true;
                    }
                }
            }
            // While a search or the loading runs in the background, look often.
            let wait = if app.search_pending() || app.loading().is_some() {
                10
            } else {
                200
            };
            if event::poll(Duration::from_millis(wait))? {
                match event::read()? {
                    Event::Key(k) if k.kind != KeyEventKind::Release => {
                        if let Some(key) = keys::Key::from_event(k) {
                            assert!(
                                panic_key.as_deref() != Some(key.to_string().as_str()),
                                "AUTOEVAL_TEST_PANIC_KEY pressed"
                            );
                            app.status.clear();
                            app.key(key);
                            dirty = true;
                        }
                    }
                    Event::Mouse(m) => {
                        mouse(&mut app, &areas, m);
                        dirty = true;
                    }
                    Event::Resize(..) => dirty = true,
                    _ => {}
                }
            }
            if app.poll_search() {
                dirty = true;
            }
            if app.poll_loading() {
                dirty = true;
            }
            if app.live_tick() {
                dirty = true;
            }
            if last_follow.elapsed() >= Duration::from_millis(500) {
                last_follow = Instant::now();
                if app.follow() {
                    dirty = true;
                }
            }
        }
        Ok(())
    })();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
    ratatui::restore();
    result.map(|()| 0)
}
