//! Pass two of opening a run: the failure kinds of its not-equivalent samples, proved
//! by the verifier (milliseconds each for a first-order pair), after the rows are listed.
//! They are kept in their own cache, `.autoeval-kinds` beside the row index, keyed by
//! what each sample's kinds are computed from (`row_kinds::key`) and versioned apart
//! from the row index: a change to the proof search proves kinds again without
//! reindexing rows, and a row-index change keeps every proved kind.
//!
//! Layout: a header (the version, a fingerprint of the kinds list, the entry count),
//! the entries (key, mask) and a checksum of all
//! that. A cache that does not read back cleanly is ignored (and rewritten).

use super::row_kinds::{self, Pending, is_pending};
use super::rows::{MAX_LINE, Row};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Name of the kinds cache inside a run directory (or its cache-directory home).
pub const KINDS: &str = ".autoeval-kinds";

/// The cache's version: bumped whenever the proof search may answer differently, so
/// every kind is proved again (and no row is reindexed). `proof_corpus::` holds it to
/// the stored explanations: a changed corpus with this number unchanged fails. The
/// header also carries a fingerprint of the kinds list (`kinds_fingerprint`), so a kind added, removed or moved in
/// `FailureKind::ALL` (a mask's bit positions) makes old caches unreadable by itself.
pub const VERSION: u8 = 6;
/// The format's name and version.
const MAGIC: &[u8; 8] = &[b'A', b'E', b'K', b'N', b'D', 0, 0, VERSION];
/// Bytes of the header: the magic, the kinds' fingerprint and the entry count.
const HEAD: usize = 24;
/// Most entries read from a cache (a few runs of millions of samples).
const MAX_ENTRIES: u64 = 64 << 20;
/// Bytes of one entry.
const ENTRY: u64 = 12;

/// Proved kind masks by key.
#[derive(Debug, Default)]
pub struct KindsCache {
    map: HashMap<u64, u32>,
    /// Entries added since the cache was read or saved.
    added: usize,
}

fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

const FNV0: u64 = 0xcbf2_9ce4_8422_2325;

/// A fingerprint of the kind names in bit order: a mask read under another list
/// would name other kinds.
fn fingerprint<'a>(ids: impl IntoIterator<Item = &'a str>) -> u64 {
    ids.into_iter()
        .fold(FNV0, |h, id| fnv(fnv(h, id.as_bytes()), b"\n"))
}

/// The fingerprint of this build's kinds (`FailureKind::ALL`, whose positions are the
/// masks' bits).
fn kinds_fingerprint() -> u64 {
    fingerprint(
        crate::analysis::failure_kind::FailureKind::ALL
            .iter()
            .map(|k| k.id()),
    )
}

/// Where run `dir`'s kinds cache may be: beside it, then (a folder that cannot be
/// written) in its cache-directory home.
fn places(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.join(KINDS)];
    if super::index_home::read_only(dir) {
        out.extend(super::index_home::fallback(dir).map(|h| h.join(KINDS)));
    }
    out
}

/// Reads one cache file; None when it is missing, of another version or damaged.
fn read(path: &Path) -> Option<HashMap<u64, u32>> {
    let mut f = crate::base::fsread::open(path, HEAD as u64 + MAX_ENTRIES * ENTRY + 8).ok()?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    let (head, rest) = bytes.split_at_checked(HEAD)?;
    if head.get(..8)? != MAGIC
        || u64::from_le_bytes(head.get(8..16)?.try_into().ok()?) != kinds_fingerprint()
    {
        return None;
    }
    let n = u64::from_le_bytes(head.get(16..24)?.try_into().ok()?);
    if n > MAX_ENTRIES || rest.len() as u64 != n * ENTRY + 8 {
        return None;
    }
    let (body, sum) = rest.split_at(rest.len() - 8);
    if fnv(fnv(FNV0, head), body).to_le_bytes() != sum {
        return None;
    }
    let mut map = HashMap::with_capacity(n as usize);
    for e in body.chunks_exact(ENTRY as usize) {
        let (k, m) = e.split_at(8);
        map.insert(
            u64::from_le_bytes(k.try_into().ok()?),
            u32::from_le_bytes(m.try_into().ok()?),
        );
    }
    Some(map)
}

impl KindsCache {
    /// The kinds cache of run `dir` (empty when it has none that reads back cleanly).
    pub fn load(dir: &Path) -> KindsCache {
        let mut map = HashMap::new();
        for p in places(dir) {
            if let Some(m) = read(&p) {
                map.extend(m);
            }
        }
        KindsCache { map, added: 0 }
    }

    /// The proved mask of `key`.
    pub fn get(&self, key: u64) -> Option<u32> {
        self.map.get(&key).copied()
    }

    /// Records a proved mask.
    pub fn insert(&mut self, key: u64, mask: u32) {
        if self.map.insert(key, mask) != Some(mask) {
            self.added += 1;
        }
    }

    /// How many masks the cache holds.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Writes the cache when anything was added (merged with what another process
    /// saved meanwhile): beside the run, else in its cache-directory home. Returns
    /// where it was written (None: nothing to write).
    pub fn save(&mut self, dir: &Path) -> std::io::Result<Option<PathBuf>> {
        if self.added == 0 {
            return Ok(None);
        }
        for p in places(dir) {
            if let Some(m) = read(&p) {
                for (k, v) in m {
                    self.map.entry(k).or_insert(v);
                }
            }
        }
        let name = format!("{}.{}.kinds.tmp", super::scratch::INDEX, std::process::id());
        if !super::scratch::register(&dir.join(&name)) {
            return Err(std::io::Error::other("quitting"));
        }
        let made = super::index_home::create(dir, &name);
        super::scratch::unregister(&dir.join(&name));
        let (home, file) = made?;
        let tmp = home.join(&name);
        let mut entries: Vec<(u64, u32)> = self.map.iter().map(|(k, v)| (*k, *v)).collect();
        entries.sort_unstable();
        let result = (|| {
            let mut head = Vec::with_capacity(HEAD);
            head.extend_from_slice(MAGIC);
            head.extend_from_slice(&kinds_fingerprint().to_le_bytes());
            head.extend_from_slice(&(entries.len() as u64).to_le_bytes());
            let mut body = Vec::with_capacity(entries.len() * ENTRY as usize);
            for (k, m) in &entries {
                body.extend_from_slice(&k.to_le_bytes());
                body.extend_from_slice(&m.to_le_bytes());
            }
            let sum = fnv(fnv(FNV0, &head), &body);
            let mut w = std::io::BufWriter::new(file);
            w.write_all(&head)?;
            w.write_all(&body)?;
            w.write_all(&sum.to_le_bytes())?;
            w.into_inner()
                .map_err(std::io::IntoInnerError::into_error)?
                .sync_all()
        })();
        let dst = home.join(KINDS);
        match result.and_then(|()| crate::base::fswrite::commit(&tmp, &dst)) {
            Ok(()) => {
                self.added = 0;
                Ok(Some(dst))
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    /// Sets the kinds of pending rows the cache knows; returns how many stay pending.
    pub fn fill(&self, rows: &mut [Row]) -> usize {
        let mut left = 0;
        for r in rows.iter_mut().filter(|r| is_pending(r.fails)) {
            match self.get(r.kinds_key) {
                Some(m) => r.fails = m,
                None => left += 1,
            }
        }
        left
    }
}

/// A sample whose kinds are to be proved: where its line is, and its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Todo {
    /// Byte offset of its line in `samples.jsonl`.
    pub offset: u64,
    /// The line's length.
    pub len: u32,
    /// Its kinds-cache key.
    pub key: u64,
}

/// The pending rows of `rows`, one per key, in row order.
pub fn todo(rows: &[Row]) -> Vec<Todo> {
    let mut seen = std::collections::HashSet::new();
    rows.iter()
        .filter(|r| is_pending(r.fails) && seen.insert(r.kinds_key))
        .map(|r| Todo {
            offset: r.offset,
            len: r.len,
            key: r.kinds_key,
        })
        .collect()
}

/// Proves the kinds of `batch` (lines of `samples`, read again at their offsets) on
/// every core; returns (key, mask) for each sample whose line still holds its pair. A
/// line that changed since it was indexed is left out (the row index is rebuilt).
pub fn prove_batch(samples: &std::fs::File, batch: &[Todo]) -> Vec<(u64, u32)> {
    use std::os::unix::fs::FileExt;
    let mut pending: Vec<(usize, Pending)> = Vec::with_capacity(batch.len());
    let mut buf = Vec::new();
    for (i, t) in batch.iter().enumerate() {
        if u64::from(t.len) > MAX_LINE {
            continue;
        }
        buf.resize(t.len as usize, 0);
        if samples.read_exact_at(&mut buf, t.offset).is_err() {
            continue;
        }
        if let Some(p) = super::rows::pending_of_line(&buf)
            && p.key == t.key
        {
            pending.push((i, p));
        }
    }
    let mut out = Vec::with_capacity(pending.len());
    row_kinds::classify_all(&mut pending, |i, m| {
        if let Some(t) = batch.get(i) {
            out.push((t.key, m));
        }
    });
    out
}

/// Opens run `dir`'s samples file for [`prove_batch`].
pub fn open_samples(dir: &Path) -> std::io::Result<std::fs::File> {
    crate::base::fsread::open(
        &dir.join(super::store::SAMPLES),
        crate::base::fsread::STREAM,
    )
}

/// Samples proved per batch by [`complete`]: enough to keep every core busy.
const BATCH: usize = 1024;
/// How often [`complete`] saves what it proved, so an interrupted pass keeps it.
const SAVE_EVERY: std::time::Duration = std::time::Duration::from_secs(15);

/// Proves every pending row of `rows` (kinds already in the cache are filled in
/// first) and saves the cache; `progress(done, total)` is called after each batch.
/// Returns how many samples were proved.
pub fn complete(dir: &Path, rows: &mut [Row], mut progress: impl FnMut(usize, usize)) -> usize {
    let mut cache = KindsCache::load(dir);
    if cache.fill(rows) == 0 {
        return 0;
    }
    let todo = todo(rows);
    let Ok(samples) = open_samples(dir) else {
        return 0;
    };
    let total = todo.len();
    progress(0, total);
    let mut last_save = std::time::Instant::now();
    let mut done = 0;
    for batch in todo.chunks(BATCH) {
        for (k, m) in prove_batch(&samples, batch) {
            cache.insert(k, m);
        }
        done += batch.len();
        progress(done, total);
        if last_save.elapsed() > SAVE_EVERY {
            let _ = cache.save(dir);
            last_save = std::time::Instant::now();
        }
    }
    // A best effort: a run nobody may write to and no cache directory is proved again
    // next time.
    let _ = cache.save(dir);
    cache.fill(rows);
    done
}

/// Whether readers that need kinds (`report`, `export`, `leaderboard`) prove the ones
/// missing (false: `--no-kinds`, they stay "not proved").
static PROVE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
/// Whether that proving draws a progress bar (stderr is a terminal).
static BAR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets how this process's reports and exports treat kinds not yet proved: the CLI's
/// `--no-kinds` and whether stderr is a terminal.
pub fn set_policy(prove: bool, bar: bool) {
    use std::sync::atomic::Ordering::Relaxed;
    PROVE.store(prove, Relaxed);
    BAR.store(bar, Relaxed);
}

/// [`complete`] as the process's policy says ([`set_policy`]): skipped with
/// `--no-kinds`, with a progress bar on a terminal.
pub(crate) fn complete_as_asked(dir: &Path, rows: &mut [Row]) {
    use std::sync::atomic::Ordering::Relaxed;
    if !PROVE.load(Relaxed) {
        return;
    }
    let bar = BAR.load(Relaxed).then(|| {
        let b = indicatif::ProgressBar::hidden();
        b.set_style(
            indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta} left)")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        b.set_message(format!(
            "proving failure kinds of {} (--no-kinds skips)",
            crate::base::sanitize::one_line(&name)
        ));
        b
    });
    complete(dir, rows, |done, total| {
        if let Some(b) = &bar {
            if done == 0 {
                b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

#[cfg(test)]
#[path = "kinds_cache_tests.rs"]
mod tests;
