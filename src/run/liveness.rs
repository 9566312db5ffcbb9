//! Whether a run that says `running` still has a process writing it.
//!
//! `run.json` keeps `running` when its process is killed (SIGKILL, a crash, a closed
//! terminal); the run lock (`run.lock`, an OS `flock`) dies with the process. Readers
//! show such a run as `interrupted` without rewriting its manifest: `--resume` still
//! sees what the run recorded.

use std::path::Path;

use crate::record::RunStatus;

/// The status to show: the manifest's, except `running` or `paused` with no live lock
/// holder, which reads `interrupted`.
pub fn shown_status(dir: &Path, status: &RunStatus) -> RunStatus {
    if status.is_live() && !lock_held(dir) {
        RunStatus::Interrupted
    } else {
        status.clone()
    }
}

/// Whether some process holds the run's lock. Looks without taking the lock: even a
/// moment's probe would make a run starting then fail with "locked".
pub fn lock_held(dir: &Path) -> bool {
    let path = dir.join(super::store::LOCK);
    let Ok(meta) = std::fs::metadata(&path) else {
        // Every writer creates the lock before it writes `running`.
        return false;
    };
    // Without /proc/locks (not Linux, or hidden) the manifest is trusted as it is.
    held_per_proc_locks(&meta).unwrap_or(true)
}

/// Linux: whether `/proc/locks` lists a `flock` on the lock file's inode; None when
/// the table cannot be read.
#[cfg(target_os = "linux")]
fn held_per_proc_locks(meta: &std::fs::Metadata) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let table = crate::base::fsread::read_to_string(Path::new("/proc/locks"), 4 << 20).ok()?;
    let (ino, dev) = (meta.ino(), meta.dev());
    // The device as the kernel prints it: major:minor in hex (its own encoding).
    let want_dev = format!("{:02x}:{:02x}", libc::major(dev), libc::minor(dev));
    Some(table.lines().any(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a blocked waiter's line
        // starts "1: -> FLOCK …" and holds nothing.
        f.get(1) == Some(&"FLOCK")
            && f.get(5).is_some_and(|id| {
                id.rsplit_once(':')
                    .is_some_and(|(d, i)| i.parse() == Ok(ino) && same_dev(d, &want_dev))
            })
    }))
}

/// Device numbers compare as numbers: the kernel pads to two hex digits, no more.
#[cfg(target_os = "linux")]
fn same_dev(got: &str, want: &str) -> bool {
    let parse = |s: &str| {
        let (a, b) = s.split_once(':')?;
        Some((
            u64::from_str_radix(a, 16).ok()?,
            u64::from_str_radix(b, 16).ok()?,
        ))
    };
    parse(got).is_some() && parse(got) == parse(want)
}

#[cfg(not(target_os = "linux"))]
fn held_per_proc_locks(_meta: &std::fs::Metadata) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_lock_reads_running_and_released_lock_reads_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            shown_status(dir.path(), &RunStatus::Running),
            RunStatus::Interrupted
        );
        let lock = crate::run::store::RunLock::acquire(dir.path()).unwrap();
        assert!(lock_held(dir.path()));
        assert_eq!(
            shown_status(dir.path(), &RunStatus::Running),
            RunStatus::Running
        );
        assert_eq!(
            shown_status(dir.path(), &RunStatus::Paused),
            RunStatus::Paused
        );
        drop(lock);
        // The file stays behind, as after a killed run.
        assert!(dir.path().join(crate::run::store::LOCK).exists());
        assert_eq!(
            shown_status(dir.path(), &RunStatus::Running),
            RunStatus::Interrupted
        );
        // A paused run whose process died is as dead as a running one.
        assert_eq!(
            shown_status(dir.path(), &RunStatus::Paused),
            RunStatus::Interrupted
        );
        assert_eq!(
            shown_status(dir.path(), &RunStatus::Finished),
            RunStatus::Finished
        );
    }
}
