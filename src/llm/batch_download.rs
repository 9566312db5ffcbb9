//! Saving a provider's batch result file: streamed to disk line by line, every line
//! scrubbed of the key before it is written, and stopped at a size cap.
//!
//! A result file comes from outside: a server that echoes the key would otherwise put
//! it in the run directory, and an endless file would fill the disk (and be fetched
//! again on every poll).

use super::scrub;
use std::io::Write;

/// Bytes allowed per request in a result file: six times `--max-reply-bytes` (JSON may
/// escape one byte of an answer as six: `\u0000`) plus 64 KiB for the envelope.
const PER_REQUEST_ENVELOPE: u64 = 64 << 10;

/// The most bytes a batch's result files (output and error files together) may hold.
pub(crate) fn result_cap(requests: usize, max_reply_bytes: usize) -> u64 {
    line_cap(max_reply_bytes).saturating_mul(requests.max(1) as u64)
}

/// The longest result line kept: one request's share of [`result_cap`].
pub(crate) fn line_cap(max_reply_bytes: usize) -> u64 {
    (max_reply_bytes as u64)
        .saturating_mul(6)
        .saturating_add(PER_REQUEST_ENVELOPE)
}

/// Why saving stopped.
#[derive(Debug)]
pub(crate) enum SaveError {
    /// The file passed its cap: it is not fetched again.
    OverCap(u64),
    /// Writing the local file failed.
    Io(std::io::Error),
}

impl std::fmt::Display for SaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SaveError::OverCap(cap) => write!(
                f,
                "the result file is over its cap of {} (6 × --max-reply-bytes + 64 KiB a request); \
                 it is not downloaded again and its requests are errors (resubmit with --resume --retry-errors)",
                crate::base::fsread::human_bytes(*cap)
            ),
            SaveError::Io(e) => write!(f, "writing results: {e}"),
        }
    }
}

/// Writes chunks of a result file as scrubbed lines, counting against a cap.
pub(crate) struct ScrubbedLines<'a, W: Write> {
    out: W,
    key: Option<&'a str>,
    /// The line being received (at most `line_cap` bytes).
    line: Vec<u8>,
    /// The longest line kept: one request's share of the cap. A longer line is
    /// dropped whole (its request then has no result, an error).
    line_cap: usize,
    /// Within a line being dropped.
    dropping: bool,
    /// Bytes received so far, over all files of the batch.
    received: u64,
    cap: u64,
}

impl<'a, W: Write> ScrubbedLines<'a, W> {
    /// A writer into `out` that removes `key`, allows `cap` bytes in all and
    /// `line_cap` bytes a line.
    pub(crate) fn new(out: W, key: Option<&'a str>, cap: u64, line_cap: usize) -> Self {
        ScrubbedLines {
            out,
            key,
            line: Vec::new(),
            line_cap,
            dropping: false,
            received: 0,
            cap,
        }
    }

    /// Takes the next chunk; every finished line is written.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<(), SaveError> {
        self.received = self.received.saturating_add(chunk.len() as u64);
        if self.received > self.cap {
            return Err(SaveError::OverCap(self.cap));
        }
        let mut rest = chunk;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.take(&rest[..i]);
            if !std::mem::take(&mut self.dropping) {
                self.flush_line()?;
            }
            rest = &rest[i + 1..];
        }
        self.take(rest);
        Ok(())
    }

    fn take(&mut self, part: &[u8]) {
        if self.dropping {
            return;
        }
        if self.line.len() + part.len() > self.line_cap {
            self.line = Vec::new();
            self.dropping = true;
        } else {
            self.line.extend_from_slice(part);
        }
    }

    /// Ends one file: a last line without a newline is written with one, so the
    /// output and error files stay apart.
    pub(crate) fn end_file(&mut self) -> Result<(), SaveError> {
        if std::mem::take(&mut self.dropping) || self.line.is_empty() {
            return Ok(());
        }
        self.flush_line()
    }

    fn flush_line(&mut self) -> Result<(), SaveError> {
        let text = String::from_utf8_lossy(&self.line);
        let clean = scrub(&text, self.key);
        self.line.clear();
        self.out
            .write_all(clean.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(SaveError::Io)
    }

    /// The writer, flushed.
    pub(crate) fn into_inner(mut self) -> Result<W, SaveError> {
        self.out.flush().map_err(SaveError::Io)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const KEY: &str = "sk-test-0123456789abcdef";

    #[test]
    fn a_key_split_across_chunks_is_scrubbed_and_the_cap_holds() {
        let text = format!("{{\"a\": \"{KEY}\"}}\n{{\"b\": 1}}");
        let mut w = ScrubbedLines::new(Vec::new(), Some(KEY), 1000, 100);
        for c in text.as_bytes().chunks(5) {
            w.push(c).unwrap();
        }
        w.end_file().unwrap();
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert!(!out.contains("0123456789"), "{out}");
        assert!(out.ends_with("{\"b\": 1}\n"), "{out}");
        let mut w = ScrubbedLines::new(Vec::new(), None, 10, 4);
        w.push(b"0123456789").unwrap();
        w.end_file().unwrap();
        let e = w.push(b"x").unwrap_err();
        assert!(matches!(e, SaveError::OverCap(10)));
        assert!(e.to_string().contains("over its cap of 10 bytes"), "{e}");
        assert!(w.out.is_empty(), "a line over the line cap is dropped");
        let mut w = ScrubbedLines::new(Vec::new(), None, 100, 4);
        w.push(b"0123456789\nabc\n").unwrap();
        assert_eq!(w.into_inner().unwrap(), b"abc\n");
        assert_eq!(result_cap(2, 1000), 2 * (6000 + 65536));
    }
}
