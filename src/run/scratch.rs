//! Scratch files of row-index builds (`.autoeval-index.<pid>.*tmp`): registered while
//! they exist so that quitting removes them (the viewer may quit while a large run is
//! still loading), and swept from a run directory when the process that made them is
//! gone (a killed `report`).

use std::path::Path;

/// Name of the row index inside a run directory; its scratch files add `.<pid>.tmp`
/// or `.<pid>.texts.tmp`.
pub const INDEX: &str = ".autoeval-index";

pub(crate) use crate::base::fswrite::scratch::{register, remove_all, unregister};

/// The process id in a scratch file name `.autoeval-index.<pid>.tmp`,
/// `.autoeval-index.<pid>.texts.tmp` or `.autoeval-index.<pid>.kinds.tmp`.
fn pid_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(INDEX)?.strip_prefix('.')?;
    let (pid, tail) = rest.split_once('.')?;
    matches!(tail, "tmp" | "texts.tmp" | "kinds.tmp")
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether process `pid` is running (assumed so where that cannot be told).
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// Removes scratch files in `dir` left by processes that are gone.
pub fn sweep(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(pid_of) else {
            continue;
        };
        if pid != std::process::id() && !alive(pid) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn scratch_names_are_recognised_and_only_dead_ones_swept() {
        assert_eq!(pid_of(".autoeval-index.123.tmp"), Some(123));
        assert_eq!(pid_of(".autoeval-index.77.texts.tmp"), Some(77));
        assert_eq!(pid_of(".autoeval-index"), None);
        assert_eq!(pid_of(".autoeval-index.x.tmp"), None);
        assert_eq!(pid_of(".autoeval-index.5.other"), None);
        let d = tempfile::tempdir().unwrap();
        let dead = d.path().join(".autoeval-index.999999999.texts.tmp");
        let mine = d
            .path()
            .join(format!(".autoeval-index.{}.tmp", std::process::id()));
        let other = d.path().join("notes.tmp");
        for p in [&dead, &mine, &other] {
            std::fs::write(p, "x").unwrap();
        }
        sweep(d.path());
        assert!(!dead.exists() && mine.exists() && other.exists());
    }
}
