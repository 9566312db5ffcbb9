//! The row scanner: reads `samples.jsonl` from where it stopped into compact rows,
//! their texts (in memory, or written straight into the row index being built) and,
//! when asked, the per-sample extras the row index keeps.

use super::rows::{Extra, MAX_LINE, Row, parse_row};
use super::texts::TextFile;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Where texts of parsed lines go instead of memory while a row index is first built:
/// the index file itself, its text section written as the lines are parsed (the rows
/// follow it once every line is read), renamed into place when complete.
#[derive(Debug)]
pub struct Spill {
    /// The index file being written.
    pub file: std::io::BufWriter<std::fs::File>,
    /// Its path (removed if the index is abandoned).
    pub path: std::path::PathBuf,
    /// Position (in the text section), length and checksum of each text written.
    pub spans: Vec<(u64, u32, u32)>,
    /// Bytes written to the text section.
    pub len: u64,
    /// Where the text section starts in the file.
    pub base: u64,
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        super::scratch::unregister(&self.path);
    }
}

/// Rows read so far from one `samples.jsonl`, in file order.
#[derive(Debug, Default)]
pub struct Scan {
    /// Rows in file order (a retried sample appears once per line).
    pub rows: Vec<Row>,
    /// Report-only fields, parallel to `rows` (empty when not kept).
    pub extras: Vec<Extra>,
    /// Texts of rows parsed from JSON; such a row's `text` is `text_base` + its index here.
    pub texts: Vec<Box<str>>,
    /// Texts of rows read from a row index, left in its file (indices below `text_base`).
    pub text_file: Option<TextFile>,
    /// How many texts `text_file` holds.
    pub text_base: usize,
    /// Bytes of the file consumed (complete lines only).
    pub consumed: u64,
    /// Complete lines read, for line numbers in warnings.
    pub lines: usize,
    /// Lines skipped and why.
    pub warnings: Vec<String>,
    /// Set when the file was found shorter than what was consumed and read again.
    pub restarted: bool,
    /// When set, texts of parsed lines are written here instead of kept in `texts`.
    pub spill: Option<Spill>,
    /// Running hash of the file's first bytes, carried between index writes.
    pub prefix: super::checksum::Prefix,
    /// The row index these rows were read from or last written to.
    pub index_path: Option<std::path::PathBuf>,
}

impl Scan {
    /// Reads the complete lines appended to `path` since `self.consumed`; returns how
    /// many rows were added. `keep_extras` keeps [`Extra`] beside each row.
    ///
    /// The file is streamed through a small buffer: holding a large run in memory at
    /// once costs more in page faults than parsing it. A last line without its newline
    /// is a write in progress and is left for the next call. A file shorter than what
    /// was consumed was rewritten: it is read again from the start.
    pub(crate) fn extend_from(&mut self, path: &Path, keep_extras: bool) -> usize {
        // A FIFO or device named samples.jsonl would block or never end: only read files.
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                let w = format!("{} is not a regular file; skipped", path.display());
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
                return 0;
            }
            Err(_) => return 0,
        }
        let Ok(mut f) = crate::base::fsread::open(path, crate::base::fsread::STREAM) else {
            return 0;
        };
        let len = f.metadata().map_or(0, |m| m.len());
        if len < self.consumed {
            self.warnings
                .push(format!("{} shrank; reloading it", path.display()));
            self.rows.clear();
            self.extras.clear();
            self.texts.clear();
            self.text_file = None;
            self.text_base = 0;
            self.spill = None;
            self.consumed = 0;
            self.lines = 0;
            self.prefix = super::checksum::Prefix::default();
            self.restarted = true;
        }
        if len == self.consumed || f.seek(SeekFrom::Start(self.consumed)).is_err() {
            return 0;
        }
        let mut reader = BufReader::with_capacity(1 << 20, f);
        let mut line = Vec::with_capacity(8192);
        let before = self.rows.len();
        // Complete lines are parsed a batch at a time on every core, then placed in file
        // order: parsing is most of a first read, and a line's row depends on it alone.
        // The indexed prefix's hash advances over the same bytes (not a second read of
        // the file when the index is written).
        let mut batch = Batch {
            feed: super::checksum::Running::at(self.prefix, path, self.consumed),
            ..Batch::default()
        };
        'lines: loop {
            line.clear();
            let n = match (&mut reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if line.last() != Some(&b'\n') {
                if n as u64 <= MAX_LINE {
                    break;
                }
                // Longer than any sample we write: skip to its end without holding it.
                let mut skipped = n as u64;
                loop {
                    line.clear();
                    match (&mut reader).take(1 << 20).read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => break 'lines,
                        Ok(k) => skipped += k as u64,
                    }
                    if line.last() == Some(&b'\n') {
                        break;
                    }
                }
                self.place(&mut batch, path, keep_extras);
                // Its bytes were not kept: the hash is caught up when the index is written.
                batch.feed = None;
                self.lines += 1;
                self.warnings.push(format!(
                    "{}:{}: a line of {skipped} bytes was skipped (limit {MAX_LINE})",
                    path.display(),
                    self.lines
                ));
                self.consumed += skipped;
                continue;
            }
            batch.push(&line[..n]);
            if batch.bytes.len() >= BATCH_BYTES {
                self.place(&mut batch, path, keep_extras);
            }
        }
        self.place(&mut batch, path, keep_extras);
        if let Some(f) = batch.feed {
            self.prefix = f.st;
        }
        self.rows.len() - before
    }
}

/// Bytes of complete lines parsed together (a few MB: enough to keep every core busy,
/// small next to the rows it yields).
const BATCH_BYTES: usize = 4 << 20;

/// Complete lines read but not yet parsed: their bytes end to end (newlines too), each
/// line's end, and the prefix hash of every byte before them (None once a line was
/// skipped unread).
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    lines: Vec<usize>,
    feed: Option<super::checksum::Running>,
}

impl Batch {
    /// Adds a line, its newline included.
    fn push(&mut self, line: &[u8]) {
        self.bytes.extend_from_slice(line);
        self.lines.push(self.bytes.len());
    }
}

impl Scan {
    /// Parses the lines of `batch` (on every core when it is large) and adds their rows
    /// in file order, exactly as one line at a time would; empties `batch`.
    fn place(&mut self, batch: &mut Batch, path: &Path, keep_extras: bool) {
        if batch.lines.is_empty() {
            return;
        }
        // Each line's bytes, its offset in the file and its line number.
        let mut jobs = Vec::with_capacity(batch.lines.len());
        let (mut start, mut offset, mut lineno) = (0usize, self.consumed, self.lines);
        for &end in &batch.lines {
            lineno += 1;
            // Without its newline.
            jobs.push((&batch.bytes[start..end - 1], offset, lineno));
            offset += (end - start) as u64;
            start = end;
        }
        let (bytes, feed) = (&batch.bytes, &mut batch.feed);
        let mut hash = move || {
            if let Some(f) = feed {
                f.feed(bytes);
            }
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(jobs.len().div_ceil(256));
        let parse = |part: &[(&[u8], u64, usize)]| -> Vec<_> {
            part.iter()
                .map(|&(l, off, no)| parse_row(l, off, path, no))
                .collect()
        };
        let parsed: Vec<_> = if threads <= 1 {
            hash();
            parse(&jobs)
        } else {
            let per = jobs.len().div_ceil(threads);
            std::thread::scope(|sc| {
                let handles: Vec<_> = jobs
                    .chunks(per)
                    .map(|c| sc.spawn(move || parse(c)))
                    .collect();
                // Hashed while the lines are parsed.
                hash();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        let mut start = 0usize;
        for (result, &end) in parsed.into_iter().zip(&batch.lines) {
            let n = (end - start) as u64;
            start = end;
            self.lines += 1;
            match result {
                Ok(Some((row, extra, text))) => self.add(row, extra, text, keep_extras),
                Ok(None) => {}
                Err(w) => self.warnings.push(w.to_string()),
            }
            self.consumed += n;
        }
        batch.bytes.clear();
        batch.lines.clear();
    }

    /// Adds one parsed row, its text spilled (or kept) and its extras when asked.
    fn add(&mut self, mut row: Row, extra: Extra, text: Box<str>, keep_extras: bool) {
        let spilled = self.spill.as_ref().map_or(0, |s| s.spans.len());
        row.text = (self.text_base + self.texts.len() + spilled) as u32;
        let mut keep = Some(text);
        if let Some(sp) = self.spill.as_mut()
            && let Some(t) = keep.as_ref()
        {
            use std::io::Write;
            if sp.file.write_all(t.as_bytes()).is_ok() {
                let sum = super::checksum::text_sum(t.as_bytes());
                sp.spans.push((sp.len, t.len() as u32, sum));
                sp.len += t.len() as u64;
                keep = None;
            }
            // Else the file failed: every text is kept in memory instead (below, those
            // written so far read back first).
        }
        if let Some(t) = keep {
            if let Some(mut sp) = self.spill.take() {
                self.texts = spill_texts(&mut sp);
            }
            self.texts.push(t);
        }
        self.rows.push(row);
        if keep_extras {
            self.extras.push(extra);
        }
    }
}

/// Reads back what a spill holds, when it can no longer be written to (a full disk):
/// texts that cannot be read back are left empty (search skips them; rows are whole).
pub(crate) fn spill_texts(sp: &mut Spill) -> Vec<Box<str>> {
    use std::io::Write;
    let _ = sp.file.flush();
    let all = std::fs::read(&sp.path).unwrap_or_default();
    let base = sp.base as usize;
    sp.spans
        .iter()
        .map(|&(p, l, _)| {
            all.get(base + p as usize..base + p as usize + l as usize)
                .map_or_else(|| Box::from(""), |b| String::from_utf8_lossy(b).into())
        })
        .collect()
}
