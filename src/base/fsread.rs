//! Opening input files: regular files only, under a stated size limit.
//!
//! Every file the tool reads comes from outside. A FIFO blocks the reader until a
//! writer appears, a device (`/dev/zero`) never ends, and a huge regular file costs
//! its size in memory when read whole: each is refused here with an error that says
//! which, before anything is read.

use std::fs::File;
use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// Largest prompt template (a template is sent with every request).
pub(crate) const MAX_TEMPLATE: u64 = 256 << 10;
/// Largest few-shot examples file.
pub(crate) const MAX_EXAMPLES: u64 = 4 << 20;
/// Largest price table, grammar file, config or theme file.
pub(crate) const MAX_SMALL: u64 = 4 << 20;
/// Largest run manifest (`run.json`).
pub(crate) const MAX_MANIFEST: u64 = 16 << 20;
/// Largest dataset file read whole (1 GiB; about four million samples).
pub(crate) const MAX_DATASET: u64 = 1 << 30;
/// No size limit: for files read as a stream with their own per-line bound.
pub(crate) const STREAM: u64 = u64::MAX;

/// A byte count for messages: `20.0 MiB`, `256 KiB`, `12 bytes`.
pub(crate) fn human_bytes(n: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    #[allow(clippy::cast_precision_loss)]
    let f = |d: u64| n as f64 / d as f64;
    if n >= GIB {
        format!("{:.1} GiB", f(GIB))
    } else if n >= MIB {
        format!("{:.1} MiB", f(MIB))
    } else if n >= KIB {
        format!("{:.0} KiB", f(KIB))
    } else {
        format!("{n} bytes")
    }
}

/// What is in the place of a file, when it is not a regular file (a link only when
/// read without following it).
pub(crate) fn kind_of(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn check(meta: &std::fs::Metadata, max: u64) -> Result<(), Error> {
    if !meta.is_file() {
        let kind = kind_of(meta.file_type());
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{kind}, not a regular file; refusing to read it"),
        ));
    }
    if meta.len() > max {
        return Err(too_big(meta.len(), max));
    }
    Ok(())
}

fn too_big(len: u64, max: u64) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "the file is {}, over the {} limit for this kind of file; refusing to read it",
            human_bytes(len),
            human_bytes(max)
        ),
    )
}

/// Opens `path` for reading if it is a regular file (symlinks followed) of at most
/// `max` bytes. A missing file is `NotFound`, as from [`File::open`].
pub fn open(path: &Path, max: u64) -> Result<File, Error> {
    // Checked before opening: opening a FIFO for reading blocks.
    check(&std::fs::metadata(path)?, max)?;
    let f = File::open(path)?;
    // And again on what was opened, in case the name was replaced meanwhile.
    check(&f.metadata()?, max)?;
    Ok(f)
}

/// Reads a regular file of at most `max` bytes whole. A file that grows past `max`
/// while it is read is refused too.
pub fn read(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    let f = open(path, max)?;
    let hint = f.metadata().map_or(0, |m| m.len());
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    f.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(too_big(buf.len() as u64, max));
    }
    Ok(buf)
}

/// Reads past the rest of a line (through its newline) without keeping it: an endless
/// line costs time, never memory. Returns whether a newline was met (false: the end).
pub fn skip_line(r: &mut impl std::io::BufRead) -> Result<bool, Error> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        if let Some(i) = memchr::memchr(b'\n', buf) {
            r.consume(i + 1);
            return Ok(true);
        }
        let n = buf.len();
        r.consume(n);
    }
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, max: u64) -> Result<String, Error> {
    String::from_utf8(read(path, max)?)
        .map_err(|e| Error::new(ErrorKind::InvalidData, format!("not UTF-8 text: {e}")))
}

/// A line reader that never holds more than `max` bytes of one line: a longer line is
/// read through and reported by its length instead of being buffered whole.
pub(crate) struct BoundedLines<R> {
    reader: R,
    max: usize,
}

impl<R: std::io::BufRead> BoundedLines<R> {
    /// Wraps `reader`; lines over `max` bytes come back as `Err(length)`.
    pub fn new(reader: R, max: usize) -> Self {
        BoundedLines { reader, max }
    }

    /// The next line without its newline (lossy UTF-8), `Err(len)` when it was too
    /// long, or `None` at the end.
    pub(crate) fn next_line(&mut self) -> std::io::Result<Option<Result<String, usize>>> {
        let mut buf = Vec::new();
        let mut total = 0usize;
        let mut seen = false;
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            seen = true;
            let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if total + take <= self.max.saturating_add(1) {
                buf.extend_from_slice(&chunk[..take]);
            }
            total += take;
            self.reader.consume(take);
            if done {
                break;
            }
        }
        if !seen {
            return Ok(None);
        }
        if total > self.max.saturating_add(1) {
            return Ok(Some(Err(total)));
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        Ok(Some(Ok(String::from_utf8_lossy(&buf).into_owned())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn regular_files_read_and_special_or_large_ones_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.txt");
        std::fs::write(&f, "hello").unwrap();
        assert_eq!(read_to_string(&f, 5).unwrap(), "hello");
        let e = read_to_string(&f, 4).unwrap_err();
        assert!(
            e.to_string().contains("5 bytes, over the 4 bytes limit"),
            "{e}"
        );
        let e = read(Path::new("/dev/zero"), MAX_SMALL).unwrap_err();
        assert!(
            e.to_string().contains("a device, not a regular file"),
            "{e}"
        );
        let e = read(d.path(), MAX_SMALL).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let missing = read(&d.path().join("nope"), 1).unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::NotFound);
        assert_eq!(human_bytes(20 << 20), "20.0 MiB");
        assert_eq!(human_bytes(MAX_TEMPLATE), "256 KiB");
    }

    #[test]
    fn skip_line_reads_past_a_line_in_small_steps() {
        let text = format!("{}\nnext\n", "a".repeat(100_000));
        let mut r = std::io::BufReader::with_capacity(64, text.as_bytes());
        assert!(skip_line(&mut r).unwrap());
        let mut rest = String::new();
        std::io::BufRead::read_line(&mut r, &mut rest).unwrap();
        assert_eq!(rest, "next\n");
        assert!(!skip_line(&mut r).unwrap());
    }
}
