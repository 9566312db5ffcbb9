//! The row index: the compact rows of a run's `samples.jsonl`, cached beside it in
//! `.autoeval-index`, so that opening or reporting a large run again reads a compact
//! binary file instead of parsing every JSON line.
//!
//! The cache is tied to the exact file it was built from: the same file (device and
//! inode), at least as long as what was indexed, and either untouched since (same
//! length, modification and change time) or grown with every indexed byte unchanged
//! (a hash of the whole indexed prefix, kept incrementally). A run that grew by
//! appends (a live run, a resume) reuses the cache and parses only the new lines; a
//! rewritten or edited file (`rescore --in-place`, an editor) is indexed again. Each
//! text carries a checksum: a damaged one is read again from its samples line. The cache is input
//! like any other file: every length is checked against bounds before anything is
//! allocated, and a cache that does not read back cleanly is ignored and rebuilt.
//!
//! Layout: a header (with the text section's length), the texts (φ₀, ψ, φ₁) one after
//! another, then the rows (fixed fields, id, and where the row's text is) and a
//! checksum of all but the texts (each has its own). Texts come first so that a first
//! build writes them straight into the index as it parses, and the rows once every
//! line is read: nothing is written twice. The viewer
//! keeps only the rows in memory and reads texts from the file when it needs them
//! (search, compare, export); texts are checked and made safe to draw when read.

use super::checksum::{Prefix, text_sum};
use super::rows::{Extra, Row};
use super::scan::Scan;
use super::store;
use super::texts::{TextFile, TextSpan};
use crate::record::Metric;
use crate::verify::VerdictKind;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Name of the cache file inside a run directory (defined beside its scratch files).
pub use super::scratch::INDEX;

/// The format's name and version: a cache of any other version is not read (and is
/// rebuilt). Version 5: rows carry every stored closeness metric; version 6 adds
/// `meteor` and `bertscore_minilm`; version 7 reasoning tokens and the truncated flag;
/// version 8 the texts search reads in reasoning; version 9 the truncated kind; version 10
/// failure kinds from proved edits (the `UNPROVED` bit); version 11 a task sample's gold
/// label, answer and correctness; version 12 no proved kinds (a not-equivalent row is
/// `PENDING` with its key in the kinds cache, [`super::kinds_cache`], versioned apart);
/// version 13 the texts before the rows (written once, as they are parsed).
const MAGIC: &[u8; 8] = b"AEIDX\x00\x00\x0d";
/// Bytes before the text section: the magic, the indexed file's identity and
/// prefix hash, and the section's length.
const HEAD: usize = 112;
/// Most warnings kept in a cache.
const MAX_WARNINGS: usize = 10_000;

/// Identity of the indexed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ident {
    dev: u64,
    ino: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    len: u64,
}

fn ident(path: &Path) -> Option<Ident> {
    let m = std::fs::metadata(path).ok()?;
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    // The change time cannot be set back by a user (unlike the modification time).
    #[cfg(unix)]
    let (dev, ino, ctime_ns) = {
        use std::os::unix::fs::MetadataExt;
        (
            m.dev(),
            m.ino(),
            i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        )
    };
    #[cfg(not(unix))]
    let (dev, ino, ctime_ns) = (0, 0, 0);
    Some(Ident {
        dev,
        ino,
        mtime_ns,
        ctime_ns,
        len: m.len(),
    })
}

fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

const FNV0: u64 = 0xcbf2_9ce4_8422_2325;

/// Hashes everything that passes through, so a damaged cache is noticed.
struct Hashing<T> {
    inner: T,
    h: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.h = fnv(self.h, &buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.h = fnv(self.h, &buf[..n]);
        Ok(n)
    }
}

/// Where the cache of run directory `dir` lives.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(INDEX)
}

/// Rows of `dir`'s `samples.jsonl` in file order, with their report fields: from the
/// cache where it is valid, the lines added since parsed, and the cache written again
/// when anything was parsed. With `texts` the rows' texts come along (read from the
/// cache file on demand, or held for lines just parsed); without, rows from the cache
/// carry no text (a report does not need it). Never fails: a missing or stale cache is
/// rebuilt, and a directory that cannot be written is read without one.
pub(crate) fn load_or_build(dir: &Path, texts: bool) -> Scan {
    let samples = dir.join(store::SAMPLES);
    // A run whose samples file is gone is named as such, never shown as empty.
    if std::fs::symlink_metadata(&samples).is_err()
        && let Ok(m) = store::read_manifest(dir)
        && let Err(e) = store::check_samples_present(dir, &m)
    {
        return Scan {
            warnings: vec![e.to_string()],
            ..Scan::default()
        };
    }
    super::scratch::sweep(dir);
    let cached = load(dir, texts);
    let from_cache = cached.is_some();
    let mut scan = cached.unwrap_or_default();
    if !from_cache {
        // A first build writes texts into the index-to-be as it parses, so memory
        // holds only the compact rows and no text is written twice.
        scan.spill = first_build(dir);
    }
    let before = (scan.consumed, scan.lines);
    let added = scan.extend_from(&samples, true);
    let changed = added > 0 || scan.restarted || (scan.consumed, scan.lines) != before;
    // Rows read from a cache without their texts cannot be written back.
    let can_save = texts || !from_cache || scan.restarted;
    if changed && scan.consumed > 0 && can_save {
        // A best effort: a read-only run (a shared folder, a checkout) is read
        // without a cache, its texts kept in memory.
        if let Ok(file) = save(dir, &mut scan) {
            scan.texts.clear();
            scan.spill = None;
            scan.text_base = file.spans.len();
            scan.text_file = Some(file);
        }
    }
    // Texts still in a scratch file (the index could not be written): into memory.
    if let Some(mut sp) = scan.spill.take() {
        let mut t = super::scan::spill_texts(&mut sp);
        t.append(&mut scan.texts);
        scan.texts = t;
    }
    // Kinds proved before (by any reader) are filled in; the rest stay pending.
    super::kinds_cache::KindsCache::load(dir).fill(&mut scan.rows);
    scan
}

/// The index file a first build writes its texts into as it parses: made where
/// [`save`] would make its scratch file, its header left blank until the rows are in.
fn first_build(dir: &Path) -> Option<super::scan::Spill> {
    let name = format!("{INDEX}.{}.tmp", std::process::id());
    if !super::scratch::register(&dir.join(&name)) {
        return None;
    }
    let made = super::index_home::create(dir, &name);
    super::scratch::unregister(&dir.join(&name));
    let (home, file) = made.ok()?;
    let path = home.join(&name);
    super::scratch::register(&path);
    let mut sp = super::scan::Spill {
        file: BufWriter::with_capacity(1 << 20, file),
        path,
        spans: Vec::new(),
        len: 0,
        base: HEAD as u64,
    };
    // Dropped on failure: the file is removed.
    sp.file.write_all(&[0u8; HEAD]).ok()?;
    Some(sp)
}

/// The header of an index of `scan` whose text section holds `section` bytes.
fn header(id: &Ident, scan: &Scan, prefix: Prefix, prefix_sum: u64, section: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEAD);
    h.extend_from_slice(MAGIC);
    for v in [
        id.dev,
        id.ino,
        id.len,
        scan.consumed,
        scan.lines as u64,
        prefix.h,
        prefix.end,
        prefix_sum,
    ] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&id.mtime_ns.to_le_bytes());
    h.extend_from_slice(&id.ctime_ns.to_le_bytes());
    h.extend_from_slice(&section.to_le_bytes());
    h
}

/// Writes the cache for `scan` (rows in file order, with extras and texts) atomically;
/// returns where its texts now are. A first build's texts are already in the file
/// being written (`first_build`); otherwise a new file takes the old text section,
/// copied, and the texts parsed since.
pub fn save(dir: &Path, scan: &mut Scan) -> std::io::Result<TextFile> {
    let samples = dir.join(store::SAMPLES);
    let Some(id) = ident(&samples) else {
        return Err(std::io::Error::other("samples.jsonl is gone"));
    };
    let old_texts = scan.text_file.as_ref().map_or(0, |f| f.spans.len());
    let spilled = scan.spill.as_ref().map_or(0, |s| s.spans.len());
    // Spilled texts come first after the old ones, then those in memory; both cannot
    // be there at once (a spill that failed was read back into memory), and a spill is
    // a first build's (no old texts).
    if scan.extras.len() != scan.rows.len()
        || id.len < scan.consumed
        || old_texts != scan.text_base
        || (spilled > 0 && !scan.texts.is_empty())
        || (scan.spill.is_some() && scan.text_file.is_some())
        || scan.text_base + spilled + scan.texts.len() < scan.rows.len()
    {
        return Err(std::io::Error::other("scan does not match the file"));
    }
    // The indexed prefix's hash, from where the last write left it: only bytes
    // indexed since are read.
    let (prefix, prefix_sum) = scan
        .prefix
        .extend(&samples, scan.consumed)
        .ok_or_else(|| std::io::Error::other("samples.jsonl could not be read back"))?;
    // Where each text is in the text section: the old section first, unchanged, then
    // the texts parsed since.
    let old_len = scan.text_file.as_ref().map_or(0, TextFile::section_len);
    let mut spans: Vec<TextSpan> = scan
        .text_file
        .as_ref()
        .map_or_else(Vec::new, |f| f.spans.clone());
    let mut pos = old_len;
    if let Some(sp) = scan.spill.as_ref() {
        for &(p, l, sum) in &sp.spans {
            spans.push(TextSpan {
                pos: old_len + p,
                len: l,
                sum,
                ..TextSpan::default()
            });
        }
        pos += sp.len;
    }
    for t in &scan.texts {
        spans.push(TextSpan {
            pos,
            len: t.len() as u32,
            sum: text_sum(t.as_bytes()),
            ..TextSpan::default()
        });
        pos += t.len() as u64;
    }
    // Each text remembers its line, to be read again if its bytes are damaged.
    for r in &scan.rows {
        if let Some(s) = spans.get_mut(r.text as usize) {
            s.line = r.offset;
            s.line_len = r.len;
        }
    }
    let head = header(&id, scan, prefix, prefix_sum, pos);
    let tmp = match scan.spill.take() {
        Some(mut sp) => {
            let done = scan
                .texts
                .iter()
                .try_for_each(|t| sp.file.write_all(t.as_bytes()));
            if let Err(e) = done.and_then(|()| finish(&mut sp.file, &head, scan, &spans)) {
                // Left as it was: its texts are read back into memory.
                scan.spill = Some(sp);
                return Err(e);
            }
            let tmp = sp.path.clone();
            scan.spill = Some(sp);
            tmp
        }
        None => fresh(dir, scan, &head, &spans, old_len)?,
    };
    let dst = tmp.with_file_name(INDEX);
    // The run folder is a closed room: a link at the index's place is refused (and a
    // first build's file kept: it holds the texts, read back into memory by the caller).
    if scan.spill.is_some() {
        crate::base::fswrite::room::check(&dst)?;
    }
    if let Err(e) = crate::base::fswrite::room::commit(&tmp, &dst) {
        // A first build's file holds the texts, read back into memory (and removed)
        // by the caller.
        if scan.spill.is_none() {
            let _ = std::fs::remove_file(&tmp);
            super::scratch::unregister(&tmp);
        }
        return Err(e);
    }
    super::scratch::unregister(&tmp);
    if let Some(mut sp) = scan.spill.take() {
        // Renamed into place: nothing left to remove.
        sp.path = PathBuf::new();
    }
    scan.prefix = prefix;
    scan.index_path = Some(dst.clone());
    Ok(TextFile {
        file: std::sync::Arc::new(std::fs::File::open(&dst)?),
        base: HEAD as u64,
        spans,
        samples,
    })
}
/// Writes `head`'s text section into a new scratch index (the old section copied,
/// then the texts in memory) and the rest after it; returns its path.
fn fresh(
    dir: &Path,
    scan: &Scan,
    head: &[u8],
    spans: &[TextSpan],
    old_len: u64,
) -> std::io::Result<PathBuf> {
    let name = format!("{INDEX}.{}.tmp", std::process::id());
    if !super::scratch::register(&dir.join(&name)) {
        return Err(std::io::Error::other("quitting"));
    }
    // Beside the run, else (a read-only or shared folder) in its cache-directory home.
    let made = super::index_home::create(dir, &name);
    super::scratch::unregister(&dir.join(&name));
    let (home, tmp_file) = made?;
    let tmp = home.join(&name);
    super::scratch::register(&tmp);
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, tmp_file);
        w.write_all(&[0u8; HEAD])?;
        if let Some(f) = &scan.text_file {
            // Positional reads: a search worker may be reading the same handle.
            use std::os::unix::fs::FileExt;
            let mut buf = vec![0u8; 1 << 20];
            let mut done = 0u64;
            while done < old_len {
                let n = (old_len - done).min(buf.len() as u64) as usize;
                f.file.read_exact_at(&mut buf[..n], f.base + done)?;
                w.write_all(&buf[..n])?;
                done += n as u64;
            }
        }
        for t in &scan.texts {
            w.write_all(t.as_bytes())?;
        }
        finish(&mut w, head, scan, spans)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        super::scratch::unregister(&tmp);
        return Err(e);
    }
    Ok(tmp)
}

/// Appends the warnings, rows and checksum after the text section `w` has written,
/// then the header at the start.
fn finish(
    w: &mut BufWriter<std::fs::File>,
    head: &[u8],
    scan: &Scan,
    spans: &[TextSpan],
) -> std::io::Result<()> {
    let mut w = Hashing {
        inner: w,
        h: fnv(FNV0, head),
    };
    let warnings = &scan.warnings[..scan.warnings.len().min(MAX_WARNINGS)];
    w.write_all(&(warnings.len() as u64).to_le_bytes())?;
    for s in warnings {
        put_str(&mut w, s)?;
    }
    w.write_all(&(scan.rows.len() as u64).to_le_bytes())?;
    for (r, e) in scan.rows.iter().zip(&scan.extras) {
        let span = spans.get(r.text as usize).copied().unwrap_or_default();
        put_row(&mut w, r, e, span)?;
    }
    w.write_all(&(spans.len() as u64).to_le_bytes())?;
    let sum = w.h;
    let w = w.inner;
    w.write_all(&sum.to_le_bytes())?;
    w.flush()?;
    // Positional: the buffer is empty and the file's end stays where it is.
    use std::os::unix::fs::FileExt;
    w.get_ref().write_all_at(head, 0)?;
    // No fsync: the index is a cache. Forcing its 1.7 GB to disk made a million-sample
    // first read 36 s instead of 15 s; a file torn by a crash fails its checksums and
    // is rebuilt.
    Ok(())
}

fn put_str(w: &mut impl Write, s: &str) -> std::io::Result<()> {
    w.write_all(&(s.len() as u32).to_le_bytes())?;
    w.write_all(s.as_bytes())
}

fn put_row(w: &mut impl Write, r: &Row, e: &Extra, text: TextSpan) -> std::io::Result<()> {
    let verdict = VerdictKind::ALL
        .iter()
        .position(|k| *k == r.verdict)
        .unwrap_or(0) as u8;
    let flags = u8::from(r.ops.is_some())
        | u8::from(r.depth.is_some()) << 1
        | u8::from(e.closeness.is_some()) << 3
        | u8::from(e.cost.is_some()) << 4
        | u8::from(e.reading_note) << 5
        | u8::from(e.truncated) << 6;
    w.write_all(&r.offset.to_le_bytes())?;
    w.write_all(&r.len.to_le_bytes())?;
    w.write_all(&[verdict, flags, r.task.byte()])?;
    w.write_all(&r.fails.to_le_bytes())?;
    w.write_all(&r.batch.to_le_bytes())?;
    w.write_all(&r.ops.unwrap_or(0).to_le_bytes())?;
    w.write_all(&r.depth.unwrap_or(0).to_le_bytes())?;
    // Absent metrics are NaN; the row's compact scores are made from these on load.
    for x in e.closeness.unwrap_or([f64::NAN; Metric::COUNT]) {
        w.write_all(&x.to_le_bytes())?;
    }
    w.write_all(&e.tokens_in.to_le_bytes())?;
    w.write_all(&e.tokens_out.to_le_bytes())?;
    w.write_all(&e.cost.unwrap_or(0.0).to_le_bytes())?;
    w.write_all(&e.reasoning_tokens.to_le_bytes())?;
    w.write_all(&r.phi0_hash.to_le_bytes())?;
    w.write_all(&r.kinds_key.to_le_bytes())?;
    w.write_all(&text.pos.to_le_bytes())?;
    w.write_all(&text.len.to_le_bytes())?;
    w.write_all(&text.sum.to_le_bytes())?;
    put_str(w, &r.id)
}

/// Reads the cache of `dir` if it still describes the start of its `samples.jsonl`.
/// With `texts`, the rows' texts are left in the cache file, to be read on demand.
pub fn load(dir: &Path, texts: bool) -> Option<Scan> {
    load_with(dir, texts, true)
}

/// The rows of a run for a reader that needs neither texts nor extras (an export):
/// from the row index when it is current, without holding the extras and text spans
/// (most of the memory at a million samples); lines appended since are read too but
/// not saved. Without a usable index, [`load_or_build`] builds one.
pub(crate) fn load_rows(dir: &Path) -> Scan {
    match load_with(dir, false, false) {
        Some(mut scan) => {
            scan.extend_from(&dir.join(store::SAMPLES), false);
            super::kinds_cache::KindsCache::load(dir).fill(&mut scan.rows);
            scan
        }
        None => load_or_build(dir, false),
    }
}

/// Where run `dir`'s row index is, when one is current (beside the run or in its
/// cache-directory home).
pub fn current(dir: &Path) -> Option<PathBuf> {
    load_with(dir, false, false)?.index_path
}

/// Builds run `dir`'s row index; returns where it was written (None: it could not be,
/// e.g. a read-only folder and no cache directory).
pub fn build(dir: &Path) -> Option<PathBuf> {
    load_or_build(dir, false).index_path
}

/// [`load`], keeping the per-row extras only when `extras` is set.
fn load_with(dir: &Path, texts: bool, extras_too: bool) -> Option<Scan> {
    load_from(dir, &path(dir), texts, extras_too).or_else(|| {
        if !super::index_home::read_only(dir) {
            return None;
        }
        let home = super::index_home::fallback(dir)?;
        load_from(dir, &home.join(INDEX), texts, extras_too)
    })
}

mod load;
use load::load_from;

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
