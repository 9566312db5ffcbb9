//! Where the viewer's searchable texts live: in memory, or in a row index's text
//! section read by span and checked by checksum (a damaged text is read again from
//! its line of `samples.jsonl`).

use super::rows::{SEP, parse_row};

/// Where one text is in a row index's text section, its checksum, and the line of
/// `samples.jsonl` it came from (read again when the checksum fails).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextSpan {
    /// Position in the text section.
    pub pos: u64,
    /// Length in bytes.
    pub len: u32,
    /// `super::checksum::text_sum` of the bytes.
    pub sum: u32,
    /// Offset of the source line in `samples.jsonl`.
    pub line: u64,
    /// Length of the source line (without its newline).
    pub line_len: u32,
}

/// Texts kept in a row index file: the open file, where its text section starts, and
/// each text's span in that section.
#[derive(Clone, Debug)]
pub struct TextFile {
    /// The index file (kept open: a newer index renamed over it leaves this one valid).
    pub file: std::sync::Arc<std::fs::File>,
    /// Offset of the text section.
    pub base: u64,
    /// Each text's span.
    pub spans: Vec<TextSpan>,
    /// The samples file the texts came from.
    pub samples: std::path::PathBuf,
}

/// Made safe to draw (the file is input like any other).
fn safe_text(text: &str) -> String {
    // Each field on its own: the separator is a control character too.
    let fields: Vec<String> = text
        .split(SEP)
        .map(|f| crate::base::sanitize::for_terminal(f).into_owned())
        .collect();
    fields.join(&SEP.to_string())
}

impl TextFile {
    /// Bytes in the text section.
    pub(crate) fn section_len(&self) -> u64 {
        self.spans
            .iter()
            .map(|s| s.pos + u64::from(s.len))
            .max()
            .unwrap_or(0)
    }

    /// Reads text `i`, made safe to draw.
    fn read(&self, i: usize) -> Option<String> {
        use std::os::unix::fs::FileExt;
        let s = *self.spans.get(i)?;
        let mut buf = vec![0u8; s.len as usize];
        self.file.read_exact_at(&mut buf, self.base + s.pos).ok()?;
        Some(safe_text(&self.checked(&s, &buf)))
    }

    /// The text whose stored bytes are `buf`, or, when they fail their checksum
    /// (a damaged index), the text parsed again from its line of the samples file.
    fn checked<'a>(&self, s: &TextSpan, buf: &'a [u8]) -> std::borrow::Cow<'a, str> {
        if super::checksum::text_sum(buf) == s.sum {
            return utf8(buf);
        }
        std::borrow::Cow::Owned(self.reparse(s).unwrap_or_default())
    }

    /// Parses the text again from its line (made safe to draw by the parse).
    fn reparse(&self, s: &TextSpan) -> Option<String> {
        use std::os::unix::fs::FileExt;
        let f = crate::base::fsread::open(&self.samples, crate::base::fsread::STREAM).ok()?;
        let mut line = vec![0u8; s.line_len as usize];
        f.read_exact_at(&mut line, s.line).ok()?;
        let (_, _, text) = parse_row(&line, s.line, &self.samples, 0).ok()??;
        Some(text.into())
    }

    /// Calls `f` with each text of `idx` (ascending), reading the section in large
    /// sequential windows rather than one read per text, until `stop` says so.
    /// Texts whose bit is set in `sound` passed their checksum before (the section is
    /// only ever replaced whole, by a rename) and skip it; those that pass now get it.
    fn each(
        &self,
        idx: &[u32],
        sound: &Sound,
        stop: &dyn Fn() -> bool,
        buf: &mut Vec<u8>,
        f: &mut dyn FnMut(u32, &str),
    ) {
        use std::os::unix::fs::FileExt;
        const WINDOW: u64 = 4 << 20;
        let mut k = 0;
        while k < idx.len() && !stop() {
            let Some(&TextSpan {
                pos: start, len, ..
            }) = self.spans.get(idx[k] as usize)
            else {
                k += 1;
                continue;
            };
            // One window: this text and those after it that fit.
            let end_of = |j: usize| {
                self.spans
                    .get(idx[j] as usize)
                    .map(|s| s.pos + u64::from(s.len))
            };
            let mut end = start + u64::from(len);
            let mut j = k + 1;
            while j < idx.len() {
                match (self.spans.get(idx[j] as usize), end_of(j)) {
                    (Some(&TextSpan { pos: p, .. }), Some(e))
                        if p >= start && e - start <= WINDOW.max(end - start) =>
                    {
                        end = end.max(e);
                        j += 1;
                    }
                    _ => break,
                }
            }
            buf.resize((end - start) as usize, 0);
            if self.file.read_exact_at(buf, self.base + start).is_ok() {
                let window: Vec<(u32, &TextSpan, &[u8])> = idx[k..j]
                    .iter()
                    .filter_map(|&i| {
                        let s = self.spans.get(i as usize)?;
                        let a = (s.pos - start) as usize;
                        Some((i, s, &buf[a..a + s.len as usize]))
                    })
                    .collect();
                // Decided once: another search may mark texts meanwhile.
                let unsure: Vec<bool> = window.iter().map(|w| !sound.has(w.0)).collect();
                let texts: Vec<&[u8]> = window
                    .iter()
                    .zip(&unsure)
                    .filter(|(_, u)| **u)
                    .map(|(w, _)| w.2)
                    .collect();
                let mut sums = super::checksum::text_sums(&texts).into_iter();
                for (&(i, s, bytes), &unsure) in window.iter().zip(&unsure) {
                    if !unsure {
                        f(i, &utf8(bytes));
                    } else if sums.next() == Some(s.sum) {
                        sound.set(i);
                        f(i, &utf8(bytes));
                    } else {
                        f(i, &self.checked(s, bytes));
                    }
                }
            }
            k = j;
        }
    }
}

/// Stored bytes as text, invalid sequences replaced (as `String::from_utf8_lossy`).
fn utf8(buf: &[u8]) -> std::borrow::Cow<'_, str> {
    // The SIMD check first: a search validates every text it reads.
    match simdutf8::basic::from_utf8(buf) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(buf),
    }
}

/// One bit per text of a row index file: set once the text passed its checksum, so
/// later searches over the same open file skip it.
#[derive(Debug, Default)]
pub(crate) struct Sound(Box<[std::sync::atomic::AtomicU64]>);

impl Sound {
    fn new(texts: usize) -> Sound {
        Sound(
            (0..texts.div_ceil(64))
                .map(|_| std::sync::atomic::AtomicU64::new(0))
                .collect(),
        )
    }

    fn has(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|w| w.load(std::sync::atomic::Ordering::Relaxed) & (1 << (i % 64)) != 0)
    }

    fn set(&self, i: u32) {
        if let Some(w) = self.0.get(i as usize / 64) {
            w.fetch_or(1 << (i % 64), std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The rows' texts: those of a row index file, read on demand, then the texts of
/// lines parsed since, in shared append-only chunks. A clone is a cheap snapshot that
/// a search worker reads while the viewer keeps appending.
#[derive(Clone, Debug, Default)]
pub struct TextStore {
    file: Option<std::sync::Arc<TextFile>>,
    /// Which of the file's texts passed their checksum (shared by snapshots).
    sound: std::sync::Arc<Sound>,
    chunks: Vec<std::sync::Arc<Vec<Box<str>>>>,
    /// Texts in `chunks`.
    len: usize,
}

const CHUNK: usize = 4096;

impl TextStore {
    /// A store whose first texts are those of `file`.
    pub(crate) fn with_file(file: Option<TextFile>) -> TextStore {
        TextStore {
            sound: std::sync::Arc::new(Sound::new(file.as_ref().map_or(0, |f| f.spans.len()))),
            file: file.map(std::sync::Arc::new),
            ..TextStore::default()
        }
    }

    fn file_len(&self) -> usize {
        self.file.as_ref().map_or(0, |f| f.spans.len())
    }

    /// Appends a text; returns its index.
    pub fn push(&mut self, text: Box<str>) -> u32 {
        if self.len.is_multiple_of(CHUNK) {
            self.chunks
                .push(std::sync::Arc::new(Vec::with_capacity(CHUNK)));
        }
        if let Some(last) = self.chunks.last_mut() {
            // Copies the chunk only when a snapshot still reads it.
            std::sync::Arc::make_mut(last).push(text);
        }
        self.len += 1;
        (self.file_len() + self.len - 1) as u32
    }

    /// The text at `i` ("" when out of range or unreadable).
    pub fn get(&self, i: u32) -> std::borrow::Cow<'_, str> {
        let i = i as usize;
        let fl = self.file_len();
        if i < fl {
            return self
                .file
                .as_ref()
                .and_then(|f| f.read(i))
                .map_or(std::borrow::Cow::Borrowed(""), std::borrow::Cow::Owned);
        }
        let i = i - fl;
        std::borrow::Cow::Borrowed(
            self.chunks
                .get(i / CHUNK)
                .and_then(|c| c.get(i % CHUNK))
                .map_or("", |s| s),
        )
    }

    /// Calls `f` with the text of each index in `idx` (sorted ascending), reading file
    /// texts in large sequential windows.
    pub fn each(&self, idx: &[u32], f: &mut dyn FnMut(u32, &str)) {
        self.each_until(idx, &|| false, &mut Vec::new(), f);
    }

    /// [`TextStore::each`] that gives up early once `stop` returns true (checked between
    /// reads and every few thousand texts), reading into `buf` (kept between calls: a
    /// fresh window costs page faults).
    pub(crate) fn each_until(
        &self,
        idx: &[u32],
        stop: &dyn Fn() -> bool,
        buf: &mut Vec<u8>,
        f: &mut dyn FnMut(u32, &str),
    ) {
        let fl = self.file_len() as u32;
        let split = idx.partition_point(|&i| i < fl);
        if let Some(file) = &self.file {
            file.each(&idx[..split], &self.sound, stop, buf, f);
        }
        for (n, &i) in idx[split..].iter().enumerate() {
            if n % 4096 == 0 && stop() {
                return;
            }
            let k = (i - fl) as usize;
            if let Some(t) = self.chunks.get(k / CHUNK).and_then(|c| c.get(k % CHUNK)) {
                f(i, t);
            }
        }
    }

    /// Texts stored.
    pub fn len(&self) -> usize {
        self.file_len() + self.len
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl FromIterator<Box<str>> for TextStore {
    fn from_iter<I: IntoIterator<Item = Box<str>>>(iter: I) -> Self {
        let mut t = TextStore::default();
        for s in iter {
            t.push(s);
        }
        t
    }
}
