//! Reading and writing run directories: append-only JSONL, torn-line tolerant.

use crate::record::{LabelRecord, Manifest, SampleRecord};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Manifest file name.
pub(crate) const MANIFEST: &str = "run.json";
/// Samples file name.
pub const SAMPLES: &str = "samples.jsonl";
/// Labels file name.
pub(crate) const LABELS: &str = "labels.jsonl";
/// Judge file name.
pub(crate) const JUDGE: &str = "judge.jsonl";

/// Run-directory errors.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// I/O.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Bad manifest.
    #[error("{0}: {1}")]
    Manifest(String, String),
    /// Another process holds the run's write lock.
    #[error(
        "{dir} is being written by another autoeval process{}; wait for it to end or stop it (two writers would run every remaining sample twice)",
        pid.map(|p| format!(" (PID {p})")).unwrap_or_default()
    )]
    Locked {
        /// The run directory.
        dir: String,
        /// The holder's process id, when its lock file names one.
        pid: Option<u32>,
    },
    /// The manifest describes samples, but `samples.jsonl` is gone.
    #[error("{0}")]
    SamplesMissing(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |e| StoreError::Io(path.display().to_string(), e)
}

/// Longest record line read from a run file.
pub(crate) use super::fit::MAX_RECORD;

/// Records read from a JSONL file, with warnings for lines that were skipped.
#[derive(Debug)]
pub struct Loaded<T> {
    /// Parsed records in file order.
    pub records: Vec<T>,
    /// Human-readable warnings (file:line: reason).
    pub warnings: Vec<String>,
    /// Byte length of the complete lines read (where a follower resumes).
    pub complete_bytes: u64,
}

/// Refuses a FIFO or a device (`/dev/zero`) under a run file's name: reading it
/// would block or never end. A missing file is fine.
pub(crate) fn ensure_regular(path: &Path) -> Result<(), StoreError> {
    match crate::base::fsread::open(path, crate::base::fsread::STREAM) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    }
}

/// Reads a JSONL file. A final line without newline that does not parse is a torn
/// write in progress: skipped with a warning, never fatal. Bad lines elsewhere are
/// skipped with their line number. A missing file reads as empty.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Loaded<T>, StoreError> {
    let file = match crate::base::fsread::open(path, crate::base::fsread::STREAM) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Loaded {
                records: Vec::new(),
                warnings: Vec::new(),
                complete_bytes: 0,
            });
        }
        Err(e) => return Err(io(path)(e)),
    };
    read_jsonl_from(BufReader::new(file), path, 0)
}

/// Reads JSONL records from `reader` (positioned at byte `start`, for following).
pub(crate) fn read_jsonl_from<T: DeserializeOwned, R: BufRead>(
    mut reader: R,
    path: &Path,
    start: u64,
) -> Result<Loaded<T>, StoreError> {
    let mut out = Loaded {
        records: Vec::new(),
        warnings: Vec::new(),
        complete_bytes: start,
    };
    let mut buf = Vec::new();
    let mut lineno = 0;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_RECORD + 1)
            .read_until(b'\n', &mut buf)
            .map_err(io(path))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        if n as u64 > MAX_RECORD && buf.last() != Some(&b'\n') {
            // Longer than any record we write: read through it without holding it.
            let mut skipped = n as u64;
            loop {
                buf.clear();
                let k = (&mut reader)
                    .take(1 << 20)
                    .read_until(b'\n', &mut buf)
                    .map_err(io(path))?;
                skipped += k as u64;
                if k == 0 || buf.last() == Some(&b'\n') {
                    break;
                }
            }
            out.complete_bytes += skipped;
            out.warnings.push(format!(
                "{}:{lineno}: a line of {skipped} bytes was skipped (limit {MAX_RECORD})",
                path.display()
            ));
            continue;
        }
        let complete = buf.last() == Some(&b'\n');
        let text = String::from_utf8_lossy(&buf);
        if text.trim().is_empty() {
            if complete {
                out.complete_bytes += n as u64;
            }
            continue;
        }
        match serde_json::from_str::<T>(text.trim()) {
            Ok(r) if complete => {
                out.records.push(r);
                out.complete_bytes += n as u64;
            }
            Ok(_) | Err(_) if !complete => {
                out.warnings.push(format!(
                    "{}:{lineno}: incomplete last line skipped (a run may still be writing it)",
                    path.display()
                ));
            }
            Err(e) => {
                out.complete_bytes += n as u64;
                out.warnings
                    .push(format!("{}:{lineno}: skipped: {e}", path.display()));
            }
            Ok(_) => {}
        }
    }
    Ok(out)
}

/// An append-only JSONL writer: one `write` per record, flushed at once.
pub struct Appender {
    file: File,
    path: PathBuf,
}

impl Appender {
    /// Opens `path` for appending, creating it. If the file ends in a torn line, a
    /// newline is written first so the next record starts cleanly.
    pub fn open(path: &Path) -> Result<Appender, StoreError> {
        // Never through a link or into a FIFO: the run folder is a closed room.
        let mut file = crate::base::fswrite::room::append(path).map_err(io(path))?;
        let len = file.metadata().map_err(io(path))?.len();
        if len > 0 {
            use std::io::{Read, Seek, SeekFrom};
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1)).map_err(io(path))?;
            file.read_exact(&mut last).map_err(io(path))?;
            if last[0] != b'\n' {
                file.write_all(b"\n").map_err(io(path))?;
            }
        }
        Ok(Appender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one record as a single line and flushes it.
    pub fn append<T: Serialize>(&mut self, record: &T) -> Result<(), StoreError> {
        let mut line = serde_json::to_vec(record).map_err(|e| {
            StoreError::Io(self.path.display().to_string(), std::io::Error::other(e))
        })?;
        if line.len() as u64 >= MAX_RECORD {
            // Every reader would skip it: refused here, never written unreadable.
            return Err(StoreError::Io(
                self.path.display().to_string(),
                std::io::Error::other(format!(
                    "a record of {} is over the {} a line may hold; not written",
                    crate::base::fsread::human_bytes(line.len() as u64),
                    crate::base::fsread::human_bytes(MAX_RECORD)
                )),
            ));
        }
        line.push(b'\n');
        // One write call per line: with O_APPEND, concurrent appenders do not interleave.
        self.file.write_all(&line).map_err(io(&self.path))?;
        self.file.flush().map_err(io(&self.path))
    }

    /// Appends one sample as a single line that every reader reads back: its longest
    /// texts are cut first if it would pass the readers' limit (`run::fit`).
    pub fn append_sample(&mut self, rec: &SampleRecord) -> Result<(), StoreError> {
        let mut line = super::fit::line(rec).ok_or_else(|| {
            StoreError::Io(
                self.path.display().to_string(),
                std::io::Error::other(format!(
                    "sample {}: longer than the {} a line may hold even with its reasoning and raw answers cut; not written",
                    crate::base::sanitize::one_line(&rec.id),
                    crate::base::fsread::human_bytes(MAX_RECORD)
                )),
            )
        })?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(io(&self.path))?;
        self.file.flush().map_err(io(&self.path))
    }

    /// Forces data to disk.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.file.sync_data().map_err(io(&self.path))
    }
}

/// Writes the manifest atomically.
pub fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), StoreError> {
    let path = dir.join(MANIFEST);
    let tmp = dir.join(".run.json.tmp");
    let text = serde_json::to_string_pretty(m)
        .map_err(|e| StoreError::Manifest(path.display().to_string(), e.to_string()))?;
    crate::base::fswrite::room::write(&tmp, (text + "\n").as_bytes()).map_err(io(&tmp))?;
    crate::base::fswrite::room::commit(&tmp, &path).map_err(io(&path))
}

/// Reads the manifest.
pub(crate) fn read_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    let path = dir.join(MANIFEST);
    let text = crate::base::fsread::read_to_string(&path, crate::base::fsread::MAX_MANIFEST)
        .map_err(io(&path))?;
    serde_json::from_str(&text).map_err(|e| {
        StoreError::Manifest(
            path.display().to_string(),
            format!(
                "{e} (line {}, column {}); is this an autoeval run directory?",
                e.line(),
                e.column()
            ),
        )
    })
}

/// Backups `rescore --in-place` left in `dir` (`samples.jsonl.bak-*`), oldest first.
pub fn sample_backups(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("samples.jsonl.bak-"))
        })
        .collect();
    // The stamp in the name is an RFC 3339 time: name order is time order.
    out.sort();
    out
}

/// Refuses a run whose manifest outlived its samples file: reading it as empty would
/// report `n 0` and make `--resume` pay for every sample again. A run that is still
/// starting (`running`, no backup) may not have created the file yet.
pub(crate) fn check_samples_present(dir: &Path, m: &Manifest) -> Result<(), StoreError> {
    let samples = dir.join(SAMPLES);
    if std::fs::symlink_metadata(&samples).is_ok() {
        return Ok(());
    }
    let backups = sample_backups(dir);
    if m.status.is_live() && backups.is_empty() {
        return Ok(());
    }
    let fix = match backups.last() {
        Some(b) => format!(
            "a backup is there: {}; restore it with `mv {} {}`",
            b.display(),
            b.display(),
            samples.display()
        ),
        None => "no backup (samples.jsonl.bak-*) is there either; restore the file, or remove run.json to start the run over".into(),
    };
    Err(StoreError::SamplesMissing(format!(
        "{}: run.json says the run is {} but samples.jsonl is missing; refusing to read it as a run without samples: {fix}",
        dir.display(),
        m.status
    )))
}

/// Reads finished samples.
pub fn read_samples(dir: &Path) -> Result<Loaded<SampleRecord>, StoreError> {
    read_jsonl(&dir.join(SAMPLES))
}

/// Reads every line of `labels.jsonl`, retractions included (the history).
pub fn read_labels(dir: &Path) -> Result<Loaded<LabelRecord>, StoreError> {
    read_jsonl(&dir.join(LABELS))
}

pub(crate) use crate::base::fsread::BoundedLines;

/// Lock file name inside a run directory.
pub(crate) const LOCK: &str = "run.lock";

/// The exclusive right to write a run directory, held while a run (CLI or viewer)
/// writes it. It is an OS file lock, so a killed process never leaves a stale lock.
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    /// Holds the OS lock while open; read only by tests.
    #[cfg_attr(not(test), allow(dead_code))]
    file: File,
}

/// Lock files this process holds: a lock found taken with our own PID in it and not
/// listed here is a copy of a descriptor we already closed, alive for a moment in a
/// child being forked elsewhere in the process (until its exec closes it).
static HELD: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// How long a lingering copy of our own released lock is waited out.
const LINGER_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl RunLock {
    /// Takes the lock, or says which process holds it.
    pub fn acquire(dir: &Path) -> Result<RunLock, StoreError> {
        let path = dir.join(LOCK);
        let key = std::fs::canonicalize(dir).map_or_else(|_| path.clone(), |d| d.join(LOCK));
        let started = std::time::Instant::now();
        loop {
            let held_here = HELD.lock().is_ok_and(|h| h.contains(&key));
            match Self::try_acquire(dir, &path, key.clone()) {
                Err(StoreError::Locked { pid: Some(p), .. })
                    if p == std::process::id() && !held_here && started.elapsed() < LINGER_WAIT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                r => return r,
            }
        }
    }

    /// One attempt at the lock.
    fn try_acquire(dir: &Path, path: &Path, key: PathBuf) -> Result<RunLock, StoreError> {
        // A link here would have its target truncated and our PID written into it.
        let mut file = crate::base::fswrite::room::update(path).map_err(io(path))?;
        match file.try_lock() {
            Ok(()) => {
                use std::io::{Seek, SeekFrom};
                let _ = file.set_len(0);
                let _ = file.seek(SeekFrom::Start(0));
                let _ = writeln!(file, "{}", std::process::id());
                if let Ok(mut h) = HELD.lock() {
                    h.push(key.clone());
                }
                Ok(RunLock { path: key, file })
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                // Read from the file opened, not the name (which may have changed).
                let mut holder = String::new();
                let _ = (&file).take(64).read_to_string(&mut holder);
                Err(StoreError::Locked {
                    dir: dir.display().to_string(),
                    pid: holder.trim().parse().ok(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => Err(io(path)(e)),
        }
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Unlisted before the descriptor closes (fields drop after this body), so a
        // taker in this process that finds the lock still taken waits it out.
        if let Ok(mut h) = HELD.lock()
            && let Some(k) = h.iter().position(|p| *p == self.path)
        {
            h.swap_remove(k);
        }
    }
}

/// Whether `dir` holds a run (a manifest or a samples file).
pub(crate) fn is_run_dir(dir: &Path) -> bool {
    dir.join(MANIFEST).exists() || dir.join(SAMPLES).exists()
}

/// Run directories under `path`: itself if it is one, else its immediate subdirectories
/// that are, sorted; also the entries skipped there (not runs), for a warning.
pub(crate) fn discover_runs(path: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    if is_run_dir(path) {
        return (vec![path.to_path_buf()], vec![]);
    }
    let (mut runs, mut skipped) = (Vec::new(), Vec::new());
    if let Ok(rd) = std::fs::read_dir(path) {
        for p in rd.filter_map(|e| e.ok().map(|e| e.path())) {
            let hidden = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'));
            if p.is_dir() && is_run_dir(&p) {
                runs.push(p);
            } else if !hidden {
                skipped.push(p);
            }
        }
    }
    runs.sort();
    skipped.sort();
    (runs, skipped)
}

/// The original's autoformalization prompts, kept by `import` as JSON lines
/// `{"id", "prompt"}` so that `rescore` checks echoes against the prompt the model saw.
pub const ORIGINAL_PROMPTS: &str = "original-prompts.jsonl";

/// The prompts kept by `import` in a run directory (None: the file is absent or unreadable).
pub fn stored_prompts(run: &Path) -> Option<std::collections::HashMap<String, String>> {
    #[derive(serde::Deserialize)]
    struct Line {
        id: String,
        prompt: String,
    }
    // Bounded like every file the tool reads: one prompt per sample of a dataset.
    let text = crate::base::fsread::read_to_string(
        &run.join(ORIGINAL_PROMPTS),
        crate::base::fsread::MAX_DATASET,
    )
    .ok()?;
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str::<Line>(l).ok())
            .map(|l| (l.id, l.prompt))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_lock_lingering_in_a_forked_copy_is_waited_out() {
        let dir = tempfile::tempdir().unwrap();
        let lock = RunLock::acquire(dir.path()).unwrap();
        // What a child forked elsewhere in the process holds until its exec: a copy of
        // the descriptor, sharing the lock.
        let copy = lock.file.try_clone().unwrap();
        drop(lock);
        let closer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(copy);
        });
        let again = RunLock::acquire(dir.path());
        closer.join().unwrap();
        assert!(again.is_ok(), "{again:?}");
    }

    #[test]
    fn a_lock_this_process_holds_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let _held = RunLock::acquire(dir.path()).unwrap();
        let t = std::time::Instant::now();
        let second = RunLock::acquire(dir.path());
        assert!(
            matches!(second, Err(StoreError::Locked { pid: Some(p), .. }) if p == std::process::id()),
            "{second:?}"
        );
        assert!(t.elapsed() < LINGER_WAIT / 2, "{:?}", t.elapsed());
    }
}
