//! Scratch files this process has open (temporary outputs renamed into place at the
//! end, row-index builds): registered while they exist, so that quitting, or a
//! Ctrl-C, SIGTERM or SIGHUP, removes them instead of leaving them for the next
//! reader to sweep.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Scratch files alive in this process; None once the process is quitting.
static LIVE: Mutex<Option<Vec<PathBuf>>> = Mutex::new(Some(Vec::new()));

/// Registers a scratch file about to be created; false when the process is quitting
/// (then it must not be created).
pub(crate) fn register(path: &Path) -> bool {
    let Ok(mut live) = LIVE.lock() else {
        return false;
    };
    match live.as_mut() {
        Some(v) => {
            v.push(path.to_path_buf());
            true
        }
        None => false,
    }
}

/// Forgets a scratch file that was removed or renamed into place.
pub(crate) fn unregister(path: &Path) {
    if let Ok(mut live) = LIVE.lock()
        && let Some(v) = live.as_mut()
    {
        v.retain(|p| p != path);
    }
}

/// Removes every scratch file of this process and refuses new ones: called when the
/// process quits with work still running on other threads.
pub(crate) fn remove_all() {
    let files = LIVE
        .lock()
        .ok()
        .and_then(|mut l| l.take())
        .unwrap_or_default();
    for f in files {
        let _ = std::fs::remove_file(f);
    }
}

/// For commands that install no signal handling of their own (all but `run` and the
/// viewer): on SIGINT, SIGTERM or SIGHUP the scratch files are removed, then the
/// signal takes its default course (the process ends as killed by it, as before).
#[cfg(unix)]
pub fn remove_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("scratch-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                remove_all();
                // Back to the default action and the same signal again: the exit
                // status says the process was killed by it.
                let _ = signal_hook::low_level::emulate_default_handler(sig);
            }
        });
}

/// Elsewhere signals are left as they are.
#[cfg(not(unix))]
pub fn remove_on_signals() {}
