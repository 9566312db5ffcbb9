//! Writing inside a run directory: its files are regular files, never a link out.
//!
//! A run folder may be shared, copied or unpacked from elsewhere; a `run.lock`,
//! `samples.jsonl` or `labels.jsonl` that is a symbolic link would make a run write
//! (truncate, append) a file outside the folder. Every write here opens the final
//! component without following a link (`O_NOFOLLOW`) and looks at what was opened:
//! a link, a FIFO, a device, a socket or a directory in a run file's place is refused
//! with an error that names it, and nothing is written.

use crate::base::fsread::kind_of;
use std::fs::{File, OpenOptions};
use std::io::{Error, ErrorKind};
use std::path::Path;

fn refuse(kind: &str) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{kind}, not a regular file; refusing to write through it (files in a run folder must be regular files: remove it, or copy the run elsewhere)"
        ),
    )
}

/// Refuses anything but a regular file (or nothing) under `path`, without following
/// a link.
pub(crate) fn check(path: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => Err(refuse(kind_of(m.file_type()))),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Opens `path` with `opts`, never through a link and never blocking on a FIFO; what
/// was opened must be a regular file.
fn open(path: &Path, opts: &mut OpenOptions) -> Result<File, Error> {
    // Looked at first, so a device is never opened (opening some has effects).
    check(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO put in place meanwhile opens at once (then is refused
        // below) instead of waiting for a reader; on a regular file it has no effect.
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = opts.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return refuse("a symbolic link");
        }
        e
    })?;
    // And again on what was opened, in case the name was replaced meanwhile.
    let ft = file.metadata()?.file_type();
    if !ft.is_file() {
        return Err(refuse(kind_of(ft)));
    }
    Ok(file)
}

/// Opens a run file for appending (and reading its last byte), creating it.
pub(crate) fn append(path: &Path) -> Result<File, Error> {
    open(
        path,
        OpenOptions::new().create(true).append(true).read(true),
    )
}

/// Opens a run file for reading and writing, creating it, not truncating (a lock file).
pub(crate) fn update(path: &Path) -> Result<File, Error> {
    open(
        path,
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true),
    )
}

/// Creates (or truncates) a run file for writing.
pub(crate) fn create(path: &Path) -> Result<File, Error> {
    open(
        path,
        OpenOptions::new().create(true).truncate(true).write(true),
    )
}

/// Writes `bytes` as the whole of a new or regular run file.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let mut f = create(path)?;
    f.write_all(bytes)?;
    f.flush()
}

/// Makes the folder `path` inside a run directory (and its parents) unless it is
/// there; a link or anything but a directory in its place is refused.
pub(crate) fn dir(path: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_dir() => Ok(()),
        Ok(m) => Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{}, not a directory; refusing to write into it (a run folder's folders must be its own)",
                kind_of(m.file_type())
            ),
        )),
        Err(e) if e.kind() == ErrorKind::NotFound => std::fs::create_dir_all(path),
        Err(e) => Err(e),
    }
}

/// Copies the regular file `from` into the run file `to` (created or truncated).
pub(crate) fn copy(from: &Path, to: &Path) -> Result<u64, Error> {
    let mut src = crate::base::fsread::open(from, crate::base::fsread::STREAM)?;
    let mut dst = create(to)?;
    std::io::copy(&mut src, &mut dst)
}

/// Renames the finished temporary file `tmp` over the run file `dst`, which must be a
/// regular file or missing (a link there is refused, not replaced: someone put it
/// there); `tmp` is removed when refused.
pub(crate) fn commit(tmp: &Path, dst: &Path) -> Result<(), Error> {
    if let Err(e) = check(dst) {
        let _ = std::fs::remove_file(tmp);
        return Err(e);
    }
    std::fs::rename(tmp, dst)
}

#[cfg(test)]
#[path = "room_tests.rs"]
mod tests;
