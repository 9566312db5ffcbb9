//! Writing outputs: a regular file (or nothing) is replaced whole through a temporary
//! file and a rename; a special file is never replaced.
//!
//! Renaming over `/dev/null` turns the device into a regular file, which breaks the
//! machine when run as root (as in most containers). So before a rename the target is
//! looked at: a character device (`/dev/null`, a terminal) or a FIFO with a reader
//! (`/dev/stdout` piped) is written in place; a block device, a socket, a directory or
//! a FIFO nobody reads is refused with an error that says which.

pub(crate) mod room;
pub(crate) mod scratch;

use std::fs::File;
use std::io::{Error, ErrorKind, Write};
use std::path::{Path, PathBuf};

/// How an output path is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// Nothing there, or a regular file: a temporary file renamed over it.
    Replace,
    /// A character device or a FIFO: written directly, never renamed over (a FIFO
    /// nobody reads is refused when it is opened).
    InPlace,
}

fn refuse(path: &Path, what: &str) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{} is {what}; refusing to write it (give a regular file, or /dev/null to discard)",
            path.display()
        ),
    )
}

/// How `path` (symlinks followed) can be written, or why it cannot.
pub fn dest(path: &Path) -> Result<Dest, Error> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Dest::Replace),
        Err(e) => return Err(e),
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(Dest::Replace);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_char_device() {
            return Ok(Dest::InPlace);
        }
        if ft.is_fifo() {
            return Ok(Dest::InPlace);
        }
        if ft.is_block_device() {
            return Err(refuse(path, "a block device"));
        }
        if ft.is_socket() {
            return Err(refuse(path, "a socket"));
        }
    }
    if ft.is_dir() {
        return Err(refuse(path, "a directory"));
    }
    Err(refuse(path, "not a regular file"))
}

/// Opens a special file that [`dest`] allows for writing in place (no truncation:
/// a device has nothing to truncate).
fn open_in_place(path: &Path) -> Result<File, Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if std::fs::metadata(path)?.file_type().is_fifo() {
            // Opening a FIFO for writing blocks until a reader comes; a non-blocking
            // open fails at once instead when there is none. The blocking handle is
            // opened while the probe is still open, so a reader waiting in its own
            // open is not woken by the probe alone and sees no early end of file.
            let probe = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)
                .map_err(|_| refuse(path, "a FIFO that nothing reads"))?;
            let file = std::fs::OpenOptions::new().write(true).open(path);
            drop(probe);
            return file;
        }
    }
    std::fs::OpenOptions::new().write(true).open(path)
}

/// Puts the finished temporary file `tmp` in place of `dst`: renamed over it when
/// `dst` is a regular file or missing; copied into it when it is a device or FIFO
/// [`dest`] allows (then `tmp` is removed); removed and refused otherwise.
pub fn commit(tmp: &Path, dst: &Path) -> Result<(), Error> {
    let copy = |tmp: &Path| -> Result<(), Error> {
        let mut from = File::open(tmp)?;
        let mut to = open_in_place(dst)?;
        std::io::copy(&mut from, &mut to)?;
        to.flush()
    };
    let result = match dest(dst) {
        Ok(Dest::Replace) => return std::fs::rename(tmp, dst),
        Ok(Dest::InPlace) => copy(tmp),
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_file(tmp);
    result
}

/// Writes `bytes` as the whole of `path`: through the temporary file `tmp` and a
/// rename, or in place for a device (see [`dest`]).
pub fn write(path: &Path, tmp: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut out = Output::create(path, tmp.to_path_buf())?;
    out.write_all(bytes)?;
    out.commit()
}

/// The temporary file beside `dst` that is renamed over it: `.NAME.PID.tmp`, ending
/// in `dst`'s extension too (a plotting library picks the format by it).
pub fn tmp_for(dst: &Path) -> PathBuf {
    let name = dst
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy());
    let ext = dst
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    dst.with_file_name(format!(".{name}.{}.tmp{ext}", std::process::id()))
}

/// Writes `bytes` as the whole of the output `dst` ([`write()`] through [`tmp_for`]).
pub fn save(dst: &Path, bytes: &[u8]) -> Result<(), Error> {
    write(dst, &tmp_for(dst), bytes)
}

/// Writes the output `dst` with `draw`, which writes a file by its name (a plotting
/// library): it draws into a temporary file that then takes `dst`'s place, as
/// [`commit`] does. A destination [`dest`] refuses, or a FIFO nobody reads, is refused
/// before anything is drawn; a device or FIFO is drawn into a temporary file under the
/// system's temporary folder and copied into it.
pub fn by_name<E: From<Error>>(
    dst: &Path,
    draw: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    match dest(dst)? {
        Dest::Replace => {
            let tmp = tmp_for(dst);
            // A name left by a killed earlier attempt (never followed if a link).
            room::check(&tmp)?;
            scratch::register(&tmp);
            let r = draw(&tmp).and_then(|()| commit(&tmp, dst).map_err(E::from));
            let _ = std::fs::remove_file(&tmp);
            scratch::unregister(&tmp);
            r
        }
        Dest::InPlace => {
            let mut to = open_in_place(dst)?;
            let dir = std::env::temp_dir();
            let tmp = dir.join(tmp_for(dst).file_name().unwrap_or_default());
            // Created new: nothing of another user's is opened in a shared folder.
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            let r = draw(&tmp).and_then(|()| {
                let mut from = File::open(&tmp)?;
                std::io::copy(&mut from, &mut to)?;
                to.flush().map_err(E::from)
            });
            let _ = std::fs::remove_file(&tmp);
            r
        }
    }
}

/// An output being written: a temporary file to rename into place, or the special
/// file itself.
#[derive(Debug)]
pub struct Output {
    file: File,
    dst: PathBuf,
    /// The temporary file, when the destination is replaced by a rename.
    tmp: Option<PathBuf>,
}

impl Output {
    /// Starts writing `dst`, through `tmp` if it is replaced by a rename; nothing is
    /// created when the destination is refused.
    pub fn create(dst: &Path, tmp: PathBuf) -> Result<Output, Error> {
        let (file, tmp) = match dest(dst)? {
            // Never through a link left under the temporary name; removed on Ctrl-C.
            Dest::Replace => {
                let f = room::create(&tmp)?;
                scratch::register(&tmp);
                (f, Some(tmp))
            }
            Dest::InPlace => (open_in_place(dst)?, None),
        };
        Ok(Output {
            file,
            dst: dst.to_path_buf(),
            tmp,
        })
    }

    /// Whether the output goes straight into a special file (no temporary file).
    pub fn in_place(&self) -> bool {
        self.tmp.is_none()
    }

    /// The open file being written (to sync it, say).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Finishes: the temporary file is renamed into place ([`commit`]).
    pub fn commit(mut self) -> Result<(), Error> {
        self.file.flush()?;
        match self.tmp.take() {
            Some(tmp) => {
                let r = commit(&tmp, &self.dst);
                scratch::unregister(&tmp);
                r
            }
            None => Ok(()),
        }
    }

    /// Gives up: the temporary file is removed; the destination is untouched.
    pub fn discard(mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(&tmp);
            scratch::unregister(&tmp);
        }
    }
}

/// Zip writers seek back to patch headers; a device or FIFO written in place refuses
/// (ESPIPE), which surfaces as a clear write error.
impl std::io::Seek for Output {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(pos)
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn regular_targets_are_renamed_over_and_special_ones_kept() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.txt");
        std::fs::write(&f, "old").unwrap();
        write(&f, &d.path().join("a.tmp"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        assert!(!d.path().join("a.tmp").exists());
        assert_eq!(dest(Path::new("/dev/null")).unwrap(), Dest::InPlace);
        // A temporary file is never created beside a device.
        let out = Output::create(Path::new("/dev/null"), d.path().join("n.tmp")).unwrap();
        assert!(out.in_place());
        assert!(!d.path().join("n.tmp").exists());
        out.commit().unwrap();
        let e = dest(d.path()).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_nobody_reads_is_refused_and_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("p");
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
        let tmp = d.path().join("p.tmp");
        std::fs::write(&tmp, "x").unwrap();
        let e = commit(&tmp, &fifo).unwrap_err();
        assert!(e.to_string().contains("a FIFO that nothing reads"), "{e}");
        assert!(!tmp.exists());
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }
}
