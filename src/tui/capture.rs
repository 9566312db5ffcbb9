//! While the viewer owns the terminal, anything written to stderr — a loader's
//! "not valid UTF-8" note, a library's message, a child process's complaint — would be
//! drawn over the panes and stay there until a resize. For that time fd 2 is pointed
//! at a pipe; a thread reads it a line at a time and hands each line to the viewer,
//! which lists it in the warnings pane (`w`). On exit fd 2 is put back and what the
//! viewer did not take is printed. All of it without `unsafe`: rustix's `dup2_stderr`
//! and std's pipe and `try_clone_to_owned` are safe wrappers.

use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::mpsc;
use std::time::Duration;

/// The longest line kept (a runaway writer cannot grow the warnings without bound).
const MAX_LINE: usize = 2000;

/// Where a captured line came from, as the warnings pane says it.
pub(crate) const SOURCE: &str = "stderr";

/// fd 2 redirected into a pipe; [`Capture::stop`] puts it back.
pub(crate) struct Capture {
    /// The terminal's stderr, as it was.
    saved: OwnedFd,
    /// Signalled when the reader has read the pipe to its end.
    done: mpsc::Receiver<()>,
}

impl Capture {
    /// Points fd 2 at a pipe whose lines go to `send` (one call per line, sanitised
    /// to one line of text); `send` returning false stops the reading.
    pub(crate) fn start(
        send: impl Fn(String) -> bool + Send + 'static,
    ) -> std::io::Result<Capture> {
        let saved = std::io::stderr().as_fd().try_clone_to_owned()?;
        let (reader, writer) = std::io::pipe()?;
        rustix::stdio::dup2_stderr(&writer)?;
        // fd 2 is the pipe's write end now; this copy would keep the pipe open.
        drop(writer);
        let (tx, done) = mpsc::channel();
        std::thread::Builder::new()
            .name("stderr capture".into())
            .spawn(move || {
                let mut r = BufReader::new(reader);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    // A line at most MAX_LINE bytes long; the rest of a longer one is
                    // read and dropped.
                    match (&mut r).take(MAX_LINE as u64).read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    if buf.len() >= MAX_LINE && buf.last() != Some(&b'\n') {
                        let mut skip = Vec::new();
                        let _ = r.read_until(b'\n', &mut skip);
                    }
                    let line =
                        crate::base::sanitize::one_line(String::from_utf8_lossy(&buf).trim_end())
                            .into_owned();
                    if !line.trim().is_empty() && !send(line) {
                        break;
                    }
                }
                let _ = tx.send(());
            })?;
        Ok(Capture { saved, done })
    }

    /// A copy of the terminal's stderr, for a panic hook to point fd 2 back at before
    /// the panic message is written (it would go into the pipe and be lost).
    pub(crate) fn terminal(&self) -> std::io::Result<OwnedFd> {
        self.saved.try_clone()
    }

    /// Points fd 2 back at the terminal and waits a moment for the reader to take
    /// what is still in the pipe (a child that inherited fd 2 may keep it open: not
    /// waited for).
    pub(crate) fn stop(self) {
        let _ = rustix::stdio::dup2_stderr(&self.saved);
        let _ = self.done.recv_timeout(Duration::from_millis(300));
    }
}
