//! A response cache shared by runs and processes: an embedded SQLite database (WAL)
//! keyed by provider, base URL, model, the exact messages and the sampling parameters.
//! Every failure degrades to "no cache" with a warning; a run never fails because of it.

use super::{ChatRequest, Completion, ModelInfo};
use rusqlite::{Connection, ErrorCode, OptionalExtension, params};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Environment variable that overrides the cache directory.
pub(crate) const DIR_ENV: &str = "AUTOEVAL_CACHE_DIR";
/// Database file name inside the cache directory.
pub const FILE: &str = "responses.sqlite3";
/// Longest answer stored (larger ones are answered but not cached).
const MAX_TEXT: usize = 1 << 20;
/// How long a writer waits for another process's write lock.
const BUSY_WAIT: Duration = Duration::from_secs(2);
/// How long opening keeps retrying while another process creates the database.
const OPEN_WAIT: Duration = Duration::from_secs(10);
/// A hit refreshes `last_used` at most this often (seconds), so hits stay reads.
const TOUCH_EVERY: i64 = 3600;

/// The cache directory: `$AUTOEVAL_CACHE_DIR`, else `$XDG_CACHE_HOME/autoeval`, else
/// `~/.cache/autoeval`.
pub(crate) fn default_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(DIR_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("autoeval")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("autoeval")))
}

/// The base URL as stored: no user name, password, query or fragment (they can hold secrets).
pub(crate) fn public_base(base: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.as_str().trim_end_matches('/').to_string()
        }
        Err(_) => base.split(['?', '#']).next().unwrap_or("").to_string(),
    }
}

/// The key of one request: SHA-256 over a canonical JSON of everything that shapes the answer.
pub fn key(info: &ModelInfo, req: &ChatRequest) -> String {
    let mut canon = serde_json::json!({
        "v": 2,
        "provider": info.provider,
        "base_url": info.base_url.as_deref().map(public_base),
        "model": info.name,
        "messages": [{"role": "user", "content": req.prompt}],
        // Token field, limit, exact temperature (or none), effort, thinking, budget and
        // extra body: everything the request carries shapes the answer.
        "request": &*req.params,
    });
    // The query is sent (`?tenant=…`, `?api-version=…`) and may select another
    // deployment: two queries are two caches. Hashed into the key only, never stored;
    // a base URL without one keeps the key it had.
    if let Some(q) = info
        .base_url
        .as_deref()
        .and_then(|b| reqwest::Url::parse(b).ok())
        .and_then(|u| u.query().map(str::to_string))
    {
        canon["base_query"] = serde_json::Value::String(q);
    }
    let digest = Sha256::digest(canon.to_string().as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why the cache could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The directory.
    #[error("cannot create the cache directory {0}: {1}")]
    Dir(String, std::io::Error),
    /// The database.
    #[error("response cache {0}: {1}")]
    Db(String, rusqlite::Error),
    /// The database (or its WAL) is a link or a special file: another file would be written.
    #[error("response cache {0} is {1}, not a regular file; refusing to use it")]
    NotRegular(String, &'static str),
}

/// Refuses a database, WAL or shared-memory file that is a symbolic link or a special
/// file: SQLite would follow it and write into whatever it names.
fn refuse_non_regular(db: &Path) -> Result<(), CacheError> {
    for s in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(s);
        let p = PathBuf::from(p);
        let Ok(m) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        let ft = m.file_type();
        if !ft.is_file() {
            let what = if ft.is_symlink() {
                "a symbolic link"
            } else if ft.is_dir() {
                "a directory"
            } else {
                "a special file"
            };
            return Err(CacheError::NotRegular(p.display().to_string(), what));
        }
    }
    Ok(())
}

/// The checksum stored with an entry: SHA-256 over its key and everything a hit returns.
fn entry_sum(key: &str, c: &Completion) -> String {
    let mut canon = serde_json::json!([
        key,
        c.text,
        c.input_tokens,
        c.output_tokens,
        c.finish_reason
    ]);
    // Reasoning joins the checksum only when there is some, so entries stored before
    // the cache kept reasoning still check out.
    if (c.reasoning.is_some() || c.reasoning_tokens.is_some() || c.reasoning_redacted)
        && let Some(a) = canon.as_array_mut()
    {
        a.extend([
            serde_json::json!(c.reasoning),
            serde_json::json!(c.reasoning_tokens),
            serde_json::json!(c.reasoning_redacted),
        ]);
    }
    let digest = Sha256::digest(canon.to_string().as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What `autoeval cache stats` shows.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stats {
    /// Cached answers.
    pub entries: u64,
    /// Bytes of the database and its WAL.
    pub bytes: u64,
    /// Answers per provider:model, most first.
    pub by_model: Vec<(String, u64)>,
    /// Oldest and newest entry (UNIX seconds).
    pub oldest: Option<i64>,
    /// Newest entry.
    pub newest: Option<i64>,
}

/// An open cache. One connection per process, behind a mutex (lookups are microseconds).
pub struct ResponseCache {
    conn: Mutex<Connection>,
    path: PathBuf,
    disabled: AtomicBool,
    busy_warned: AtomicBool,
    warnings: Mutex<Vec<String>>,
    hits: AtomicU64,
    stores: AtomicU64,
    /// Longest answer served (`--max-reply-bytes`): a longer one is a miss.
    max_reply: AtomicUsize,
    /// Entries whose checksum did not match (misses, the first warned).
    bad_sums: AtomicU64,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

impl ResponseCache {
    /// Opens (creating) the cache in `dir`. Reads the schema, so a file that is not a
    /// database, or a truncated one, fails here rather than mid-run.
    pub fn open(dir: &Path) -> Result<ResponseCache, CacheError> {
        std::fs::create_dir_all(dir).map_err(|e| CacheError::Dir(dir.display().to_string(), e))?;
        let path = dir.join(FILE);
        refuse_non_regular(&path)?;
        // Two processes creating the database at once: switching to WAL and creating the
        // schema can answer "busy" without waiting (SQLite's deadlock guard), so the whole
        // opening is tried again until the other process is done.
        let deadline = std::time::Instant::now() + OPEN_WAIT;
        let mut pause = Duration::from_millis(5);
        loop {
            match Self::open_conn(&path) {
                Err(CacheError::Db(_, e))
                    if is_busy(&e) && std::time::Instant::now() + pause < deadline =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
                other => return other,
            }
        }
    }

    /// One attempt at opening the database at `path` and checking its schema.
    fn open_conn(path: &Path) -> Result<ResponseCache, CacheError> {
        let path = path.to_path_buf();
        let shown = path.display().to_string();
        let db = |e| CacheError::Db(shown.clone(), e);
        let conn = Connection::open(&path).map_err(db)?;
        conn.busy_timeout(BUSY_WAIT).map_err(db)?;
        // WAL: readers never wait for a writer, and several processes can share the file.
        let _mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(db)?;
        conn.execute_batch(
            "PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS responses (
               key TEXT PRIMARY KEY,
               provider TEXT NOT NULL,
               base_url TEXT NOT NULL,
               model TEXT NOT NULL,
               text TEXT NOT NULL,
               input_tokens INTEGER NOT NULL,
               output_tokens INTEGER NOT NULL,
               finish_reason TEXT,
               created INTEGER NOT NULL,
               last_used INTEGER NOT NULL,
               sum TEXT
             );
             CREATE INDEX IF NOT EXISTS responses_last_used ON responses(last_used);",
        )
        .map_err(db)?;
        // A database from before entries had checksums gains the column; its old
        // entries have none and are misses.
        // Reasoning columns too, for a database from before the cache kept reasoning.
        for (col, ty) in [
            ("sum", "TEXT"),
            ("reasoning", "TEXT"),
            ("reasoning_tokens", "INTEGER"),
            ("reasoning_redacted", "INTEGER NOT NULL DEFAULT 0"),
        ] {
            let has = |conn: &Connection| -> Result<bool, rusqlite::Error> {
                conn.query_row(
                    "SELECT count(*) FROM pragma_table_info('responses') WHERE name = ?1",
                    params![col],
                    |r| r.get::<_, i64>(0),
                )
                .map(|n| n > 0)
            };
            if !has(&conn).map_err(db)?
                && let Err(e) =
                    conn.execute_batch(&format!("ALTER TABLE responses ADD COLUMN {col} {ty}"))
                // Two processes opening an old database at once both try; the one that
                // loses finds the column there.
                && !has(&conn).map_err(db)?
            {
                return Err(db(e));
            }
        }
        // Touches the table's root page: a truncated file fails now, not at the first hit.
        conn.query_row(
            "SELECT count(*) FROM (SELECT 1 FROM responses LIMIT 1)",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(db)?;
        Ok(ResponseCache {
            conn: Mutex::new(conn),
            path,
            disabled: AtomicBool::new(false),
            busy_warned: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            hits: AtomicU64::new(0),
            stores: AtomicU64::new(0),
            max_reply: AtomicUsize::new(usize::MAX),
            bad_sums: AtomicU64::new(0),
        })
    }

    /// Answers longer than `cap` bytes (`--max-reply-bytes`) are misses, as a live
    /// answer that long is an error.
    pub(crate) fn cap_replies(&self, cap: usize) {
        self.max_reply.store(cap, Ordering::Relaxed);
    }

    /// Empties the cache through SQLite, so a run that has it open keeps storing into
    /// the same database (`cache prune --all`); returns the bytes freed.
    pub(crate) fn clear(&self) -> Result<u64, rusqlite::Error> {
        let before = file_bytes(&self.path);
        let conn = self
            .conn
            .lock()
            .map_err(|_| rusqlite::Error::InvalidQuery)?;
        conn.execute("DELETE FROM responses", [])?;
        // Best effort: another process reading holds the WAL; the space comes back later.
        let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;");
        drop(conn);
        Ok(before.saturating_sub(file_bytes(&self.path)))
    }

    fn bad_sum(&self) {
        if self.bad_sums.fetch_add(1, Ordering::Relaxed) == 0
            && let Ok(mut w) = self.warnings.lock()
        {
            w.push(format!(
                "response cache {}: an entry failed its checksum (changed on disk); it is a miss and is asked again",
                self.path.display()
            ));
        }
    }

    /// Opens the cache, or explains in one line why the run goes on without one.
    pub(crate) fn open_or_warn(dir: Option<&Path>) -> Result<ResponseCache, String> {
        let Some(dir) = dir else {
            return Err(format!(
                "no cache directory (set ${DIR_ENV} or HOME); running without the response cache"
            ));
        };
        ResponseCache::open(dir).map_err(|e| {
            format!(
                "{e}; running without the response cache (remove {} or run `autoeval cache prune --all` to start a new one)",
                dir.join(FILE).display()
            )
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Answers served from the cache by this process.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Answers stored by this process.
    pub(crate) fn stores(&self) -> u64 {
        self.stores.load(Ordering::Relaxed)
    }

    /// Warnings since the last call (the run shows them).
    pub(crate) fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// A busy database skips this lookup or store (warned once); anything else turns
    /// the cache off for the rest of the process.
    fn failed(&self, what: &str, e: &rusqlite::Error) {
        let msg = if is_busy(e) {
            if self.busy_warned.swap(true, Ordering::Relaxed) {
                return;
            }
            format!(
                "response cache {}: {what} skipped, the database is locked by another process ({e})",
                self.path.display()
            )
        } else {
            if self.disabled.swap(true, Ordering::Relaxed) {
                return;
            }
            format!(
                "response cache {}: {what} failed ({e}); continuing without the cache (remove the file to start a new one)",
                self.path.display()
            )
        };
        if let Ok(mut w) = self.warnings.lock() {
            w.push(msg);
        }
    }

    /// The cached answer for `key`, if any.
    pub fn get(&self, key: &str) -> Option<Completion> {
        if self.disabled.load(Ordering::Relaxed) {
            return None;
        }
        let conn = self.conn.lock().ok()?;
        let row = conn
            .query_row(
                "SELECT text, input_tokens, output_tokens, finish_reason, last_used, sum, length(CAST(text AS BLOB)), reasoning, reasoning_tokens, reasoning_redacted FROM responses WHERE key = ?1",
                params![key],
                |r| {
                    // An answer over the cap is not even read.
                    let len = usize::try_from(r.get::<_, i64>(6)?).unwrap_or(usize::MAX);
                    if len > self.max_reply.load(Ordering::Relaxed) {
                        return Ok(None);
                    }
                    Ok(Some((
                        Completion {
                            text: r.get(0)?,
                            input_tokens: r.get::<_, i64>(1)?.max(0) as u64,
                            output_tokens: r.get::<_, i64>(2)?.max(0) as u64,
                            finish_reason: r.get(3)?,
                            reasoning: r.get(7)?,
                            reasoning_tokens: r
                                .get::<_, Option<i64>>(8)?
                                .map(|n| n.max(0) as u64),
                            reasoning_redacted: r.get::<_, i64>(9)? != 0,
                            ..Completion::default()
                        },
                        r.get::<_, i64>(4)?,
                        r.get::<_, Option<String>>(5)?,
                    )))
                },
            )
            .optional()
            .map(Option::flatten);
        match row {
            // No checksum (stored by an older version) or a wrong one: a miss, and the
            // entry goes so the fresh answer can take its place.
            Ok(Some((c, _, sum))) if sum.as_deref() != Some(entry_sum(key, &c).as_str()) => {
                let _ = conn.execute("DELETE FROM responses WHERE key = ?1", params![key]);
                drop(conn);
                if sum.is_some() {
                    self.bad_sum();
                }
                None
            }
            Ok(Some((c, last_used, _))) => {
                let t = now();
                if t - last_used > TOUCH_EVERY {
                    // Best effort: a busy database only delays the LRU stamp.
                    let _ = conn.execute(
                        "UPDATE responses SET last_used = ?1 WHERE key = ?2",
                        params![t, key],
                    );
                }
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(c)
            }
            Ok(None) => None,
            Err(e) => {
                drop(conn);
                self.failed("lookup", &e);
                None
            }
        }
    }

    /// Stores an answer (the first answer for a key wins; later ones are equal by design).
    pub fn put(&self, key: &str, info: &ModelInfo, c: &Completion) {
        // A truncated answer is no answer: asking again (with more tokens) must reach the model.
        if self.disabled.load(Ordering::Relaxed)
            || c.text.len() > MAX_TEXT
            || c.reasoning.as_ref().is_some_and(|r| r.len() > MAX_TEXT)
            || c.truncated
        {
            return;
        }
        let Ok(conn) = self.conn.lock() else {
            return;
        };
        let t = now();
        let r = conn.execute(
            "INSERT OR IGNORE INTO responses
               (key, provider, base_url, model, text, input_tokens, output_tokens, finish_reason, created, last_used, sum, reasoning, reasoning_tokens, reasoning_redacted)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13)",
            params![
                key,
                info.provider,
                info.base_url.as_deref().map(public_base).unwrap_or_default(),
                info.name,
                c.text,
                c.input_tokens.min(i64::MAX as u64) as i64,
                c.output_tokens.min(i64::MAX as u64) as i64,
                c.finish_reason,
                t,
                entry_sum(key, c),
                c.reasoning,
                c.reasoning_tokens.map(|n| n.min(i64::MAX as u64) as i64),
                i64::from(c.reasoning_redacted)
            ],
        );
        drop(conn);
        match r {
            Ok(_) => {
                self.stores.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self.failed("store", &e),
        }
    }

    /// Counts for `autoeval cache stats`.
    pub fn stats(&self) -> Result<Stats, rusqlite::Error> {
        let conn = self
            .conn
            .lock()
            .map_err(|_| rusqlite::Error::InvalidQuery)?;
        let (entries, oldest, newest) = conn.query_row(
            "SELECT count(*), min(created), max(created) FROM responses",
            [],
            |r| Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let mut stmt = conn.prepare(
            "SELECT provider || ':' || model, count(*) FROM responses GROUP BY 1 ORDER BY 2 DESC, 1",
        )?;
        let by_model = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Stats {
            entries: entries.max(0) as u64,
            bytes: file_bytes(&self.path),
            by_model,
            oldest,
            newest,
        })
    }

    /// Removes entries unused for `older_than`, then least recently used ones until the
    /// database holds at most `max_entries`; returns how many went. Compacts the file.
    pub fn prune(
        &self,
        older_than: Option<Duration>,
        max_entries: Option<u64>,
    ) -> Result<u64, rusqlite::Error> {
        let conn = self
            .conn
            .lock()
            .map_err(|_| rusqlite::Error::InvalidQuery)?;
        let mut removed = 0u64;
        if let Some(age) = older_than {
            let cutoff = now() - age.as_secs().min(i64::MAX as u64) as i64;
            removed += conn.execute(
                "DELETE FROM responses WHERE last_used < ?1",
                params![cutoff],
            )? as u64;
        }
        if let Some(max) = max_entries {
            removed += conn.execute(
                "DELETE FROM responses WHERE key IN (
                   SELECT key FROM responses ORDER BY last_used ASC, created ASC
                   LIMIT max(0, (SELECT count(*) FROM responses) - ?1))",
                params![max.min(i64::MAX as u64) as i64],
            )? as u64;
        }
        if removed > 0 {
            conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")?;
        }
        Ok(removed)
    }
}

/// Bytes of the database with its WAL and shared-memory files.
pub(crate) fn file_bytes(db: &Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| {
            let mut p = db.as_os_str().to_owned();
            p.push(s);
            std::fs::metadata(PathBuf::from(p)).ok()
        })
        .map(|m| m.len())
        .sum()
}

/// Deletes the cache files in `dir` (works on a corrupt database); returns the bytes freed.
pub(crate) fn remove_all(dir: &Path) -> std::io::Result<u64> {
    let db = dir.join(FILE);
    let freed = file_bytes(&db);
    for s in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(s);
        match std::fs::remove_file(PathBuf::from(p)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(freed)
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
