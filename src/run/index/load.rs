//! Reading an index file for [`super::load_with`]: its header (checked against
//! `samples.jsonl` as it is now), then its warnings and each row.

use super::{FNV0, HEAD, Hashing, MAGIC, MAX_WARNINGS, ident};
use crate::record::Metric;
use crate::run::checksum::Prefix;
use crate::run::rows::{Extra, MAX_LINE, Row, Scores};
use crate::run::scan::Scan;
use crate::run::store;
use crate::run::texts::{TextFile, TextSpan};
use crate::verify::VerdictKind;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

/// A reader that refuses lengths beyond what the cache file can hold.
struct In<R> {
    r: R,
    left: u64,
}

impl<R: Read> In<R> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let mut b = [0u8; N];
        self.r.read_exact(&mut b).ok()?;
        self.left = self.left.checked_sub(N as u64)?;
        Some(b)
    }
    fn u64(&mut self) -> Option<u64> {
        self.bytes::<8>().map(u64::from_le_bytes)
    }
    fn f64(&mut self) -> Option<f64> {
        self.bytes::<8>().map(f64::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.bytes::<4>().map(u32::from_le_bytes)
    }
    fn u16(&mut self) -> Option<u16> {
        self.bytes::<2>().map(u16::from_le_bytes)
    }
    /// A string of at most `max` bytes; with `keep` false it is skipped.
    fn str(&mut self, max: u64, keep: bool) -> Option<Box<str>> {
        let n = u64::from(self.u32()?);
        if n > max || n > self.left {
            return None;
        }
        self.left -= n;
        if keep {
            let mut buf = vec![0u8; n as usize];
            self.r.read_exact(&mut buf).ok()?;
            String::from_utf8(buf).ok().map(String::into_boxed_str)
        } else {
            let skipped = std::io::copy(&mut (&mut self.r).take(n), &mut std::io::sink()).ok()?;
            (skipped == n).then(|| Box::from(""))
        }
    }
}

impl<R: Read> In<R> {
    /// The warnings section: a count, then each warning (made one line: a cache is
    /// input too, and warnings reach the screen).
    pub(super) fn warnings(&mut self) -> Option<Vec<String>> {
        let nwarn = self.u64()?;
        if nwarn > MAX_WARNINGS as u64 {
            return None;
        }
        let mut warnings = Vec::with_capacity(nwarn as usize);
        for _ in 0..nwarn {
            let w: Box<str> = self.str(1 << 16, true)?;
            warnings.push(crate::base::sanitize::one_line(&w).into_owned());
        }
        Some(warnings)
    }

    /// Row `k` of the rows section with its text span and report-only fields; None when
    /// it is malformed or reaches past the `consumed` bytes of `samples.jsonl`.
    pub(super) fn row(&mut self, k: u64, consumed: u64) -> Option<(Row, TextSpan, Extra)> {
        let offset = self.u64()?;
        let len = self.u32()?;
        let [verdict, flags, task] = self.bytes::<3>()?;
        let fails = self.u32()?;
        let (batch, ops, depth) = (self.u16()?, self.u16()?, self.u16()?);
        let mut c = [f64::NAN; Metric::COUNT];
        for x in &mut c {
            *x = self.f64()?;
        }
        let closeness = (flags & (1 << 3) != 0).then_some(c);
        let (tokens_in, tokens_out, cost) = (self.u64()?, self.u64()?, self.f64()?);
        let reasoning_tokens = self.u64()?;
        let phi0_hash = self.u64()?;
        let kinds_key = self.u64()?;
        let span = TextSpan {
            pos: self.u64()?,
            len: self.u32()?,
            sum: self.u32()?,
            line: offset,
            line_len: len,
        };
        let id = self.str(MAX_LINE, true)?;
        if offset.checked_add(u64::from(len))? > consumed || u64::from(span.len) > MAX_LINE {
            return None;
        }
        let has = |bit: u8| flags & (1 << bit) != 0;
        let row = Row {
            offset,
            len,
            id,
            verdict: *VerdictKind::ALL.get(usize::from(verdict))?,
            fails,
            kinds_key,
            batch,
            scores: closeness
                .as_ref()
                .map(Scores::from_values)
                .unwrap_or_default(),
            ops: has(0).then_some(ops),
            depth: has(1).then_some(depth),
            phi0_hash,
            truncated: has(6),
            task: crate::run::task_mark::TaskMark::from_byte(task),
            // Row k's text is span k (a cache lists one text per row).
            text: u32::try_from(k).ok()?,
        };
        let extra = Extra {
            closeness,
            tokens_in,
            tokens_out,
            cost: has(4).then_some(cost),
            reading_note: has(5),
            truncated: has(6),
            reasoning_tokens,
        };
        Some((row, span, extra))
    }
}

/// An index file's header, once checked against `samples.jsonl` as it is now.
struct Header {
    /// Bytes of `samples.jsonl` the rows cover.
    consumed: u64,
    /// Lines those bytes hold.
    lines: u64,
    /// The running hash of the indexed prefix.
    prefix: Prefix,
    /// Bytes of the text section (before the rows).
    section: u64,
}

/// Opens the index at `index` and reads its header, positioned at the rows; None when
/// it is of another version or no longer describes `samples` (another file, or its
/// indexed part changed).
fn open_header(
    samples: &Path,
    index: &Path,
) -> Option<(In<Hashing<BufReader<std::fs::File>>>, Header)> {
    let now = ident(samples)?;
    // A FIFO or device under the index's name is ignored (and replaced), never read.
    let file = crate::base::fsread::open(index, crate::base::fsread::STREAM).ok()?;
    let size = file.metadata().ok()?.len();
    let mut r = In {
        r: Hashing {
            inner: BufReader::with_capacity(1 << 20, file),
            h: FNV0,
        },
        left: size,
    };
    if &r.bytes::<8>()? != MAGIC {
        return None;
    }
    let (dev, ino, len, consumed, lines) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?);
    let prefix = Prefix {
        h: r.u64()?,
        end: r.u64()?,
    };
    let prefix_sum = r.u64()?;
    let mtime_ns = i128::from_le_bytes(r.bytes::<16>()?);
    let ctime_ns = i128::from_le_bytes(r.bytes::<16>()?);
    // The text section, skipped: texts are read on demand.
    let section = r.u64()?;
    r.left = r.left.checked_sub(section)?;
    r.r.inner
        .seek(std::io::SeekFrom::Start(
            (HEAD as u64).checked_add(section)?,
        ))
        .ok()?;
    let same_file = dev == now.dev && ino == now.ino && now.len >= consumed && len >= consumed;
    if !same_file || prefix.end > consumed || !prefix.end.is_multiple_of(8) {
        return None;
    }
    let unchanged = now.len == len && now.mtime_ns == mtime_ns && now.ctime_ns == ctime_ns;
    // Anything but an untouched file is trusted only if every indexed byte is as it
    // was: one sequential hash of the prefix, far cheaper than parsing it (and only
    // after the file changed, e.g. a resume appended to it).
    if !unchanged
        && (now.len <= len || Prefix::default().extend(samples, consumed)?.1 != prefix_sum)
    {
        return None;
    }
    Some((
        r,
        Header {
            consumed,
            lines,
            prefix,
            section,
        },
    ))
}

/// [`super::load_with`] from the index file at `index`.
pub(super) fn load_from(dir: &Path, index: &Path, texts: bool, extras_too: bool) -> Option<Scan> {
    let samples = dir.join(store::SAMPLES);
    let (mut r, h) = open_header(&samples, index)?;
    let Header {
        consumed,
        lines,
        prefix,
        section,
    } = h;
    let warnings = r.warnings()?;
    let nrows = r.u64()?;
    // Every row stands for at least one byte of samples.jsonl and ~88 of cache.
    if nrows > consumed || nrows > r.left / 88 {
        return None;
    }
    let mut rows = Vec::with_capacity(nrows as usize);
    let mut extras = Vec::with_capacity(if extras_too { nrows as usize } else { 0 });
    let mut row_spans: Vec<TextSpan> = Vec::with_capacity(if texts { nrows as usize } else { 0 });
    // The furthest text end, checked against the section once its size is read.
    let mut text_end = 0u64;
    for k in 0..nrows {
        let (row, span, extra) = r.row(k, consumed)?;
        rows.push(row);
        text_end = text_end.max(span.pos.checked_add(u64::from(span.len))?);
        if texts {
            row_spans.push(span);
        }
        if extras_too {
            extras.push(extra);
        }
    }
    let ntexts = r.u64()?;
    let sum = r.r.h;
    let mut last = [0u8; 8];
    r.r.inner.read_exact(&mut last).ok()?;
    // The checksum ends the file.
    if ntexts != nrows || r.left != 8 || u64::from_le_bytes(last) != sum {
        return None;
    }
    if text_end > section {
        return None;
    }
    let text_file = if texts {
        Some(TextFile {
            file: std::sync::Arc::new(r.r.inner.into_inner()),
            base: HEAD as u64,
            spans: row_spans,
            samples: samples.clone(),
        })
    } else {
        None
    };
    Some(Scan {
        text_base: if texts { rows.len() } else { 0 },
        rows,
        extras,
        texts: Vec::new(),
        text_file,
        consumed,
        lines: usize::try_from(lines).ok()?,
        warnings,
        restarted: false,
        spill: None,
        prefix,
        index_path: Some(index.to_path_buf()),
    })
}
