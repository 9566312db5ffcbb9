//! Where autoeval's own config lives (`$XDG_CONFIG_HOME/autoeval` or
//! `~/.config/autoeval`), with one override for tests and benches so that nothing they
//! run ever reads the developer's own config. Lowest layer: the viewer's theme and
//! keys and the label taxonomy all ask here.

use std::path::{Path, PathBuf};

/// A config directory set by [`use_config_dir`], which wins over the environment.
static CONFIG_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Makes this process read its autoeval config from `dir` instead of
/// `$XDG_CONFIG_HOME/autoeval` (tests and benches: never the developer's own config).
/// The first call wins.
pub fn use_config_dir(dir: PathBuf) {
    let _ = CONFIG_DIR.set(dir);
}

thread_local! {
    /// A config directory for this thread only, set by [`use_config_dir_on_this_thread`].
    static THREAD_DIR: std::cell::RefCell<Option<PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// Makes this thread read and write its autoeval config (the remembered form, themes,
/// taxonomy, profiles) in `dir`, before the process-wide choice: tests run as threads
/// of one process, and each must not see what another remembered.
pub fn use_config_dir_on_this_thread(dir: PathBuf) {
    THREAD_DIR.with(|d| *d.borrow_mut() = Some(dir));
}

/// The user's config directory for autoeval.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(d) = THREAD_DIR.with(|d| d.borrow().clone()) {
        return Some(d);
    }
    if let Some(d) = CONFIG_DIR.get() {
        return Some(d.clone());
    }
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|d| d.join("autoeval"))
}
