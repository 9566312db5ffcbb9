//! Fuzzy search over φ₀, ψ and φ₁.
//!
//! A sample matches when the query's characters (spaces ignored) appear in order
//! inside one of the three texts within a short window: gaps are allowed, but the
//! k-th character of the query must come within 3·k + 6 bytes of the first (so the
//! whole match spans at most three times the query's length plus six bytes). Each
//! prefix of a query obeys the same deadlines as in the longer query, so a row that
//! matches a query matches each of its prefixes, and typing can narrow the previous
//! results without losing rows. Loose
//! subsequences across a whole 500-character description would match nearly
//! every sample. Lowercase queries ignore case. The check runs on bytes, starting
//! from SIMD searches for the query's bytes, so it stays fast on a million samples
//! (the tests hold it to the plain scan). The window admits a row; fuzzy-matcher's skim
//! scorer then ranks the admitted rows (best match first, or dataset order when the
//! user toggles ranking off) and marks the matched characters in the detail view.
//! Skim alone would admit any scattered subsequence, hence the window in front of it.

use super::data::{SEP, TextStore};
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use std::collections::HashSet;
use std::sync::mpsc;

/// A compiled query.
pub struct Query {
    bytes: Vec<u8>,
    /// Per query byte, the two field bytes it accepts (the same twice unless folding
    /// makes an ASCII letter match its capital).
    accept: Vec<(u8, u8)>,
    raw: String,
    skim: SkimMatcherV2,
    /// Fields searched: φ₀, ψ, φ₁, and the calls' reasoning when asked.
    nfields: usize,
}

impl Query {
    /// Compiles `q`.
    pub fn new(q: &str) -> Query {
        let raw: String = q.split_whitespace().collect();
        let fold = !raw.chars().any(char::is_uppercase);
        let bytes: Vec<u8> = raw
            .bytes()
            .map(|b| if fold { b.to_ascii_lowercase() } else { b })
            .collect();
        // A field byte `a` matches `q` when `a == q`, or, folding, when
        // `a.to_ascii_lowercase() == q`: only an ASCII capital adds a second byte.
        let accept = bytes
            .iter()
            .map(|&b| {
                if fold && b.is_ascii_lowercase() {
                    (b, b.to_ascii_uppercase())
                } else {
                    (b, b)
                }
            })
            .collect();
        let skim = if fold {
            SkimMatcherV2::default().ignore_case()
        } else {
            SkimMatcherV2::default().respect_case()
        };
        Query {
            bytes,
            accept,
            raw,
            skim,
            nfields: 3,
        }
    }

    /// Searches the calls' reasoning too (the row text's fourth field).
    #[must_use]
    pub fn with_reasoning(mut self, on: bool) -> Query {
        // The fourth field and on are reasoning (its text cannot hold a separator).
        self.nfields = if on { usize::MAX } else { 3 };
        self
    }

    /// Searches only what a blind session shows of a row's text: φ₀ and ψ.
    #[must_use]
    pub fn blind(mut self) -> Query {
        self.nfields = 2;
        self
    }

    /// Whether the query is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The query's bytes in order somewhere in `field`, the k-th (1-based) within
    /// 3·k + 6 bytes of the first. Greedy earliest matching from each start is optimal
    /// for such deadlines.
    fn window(&self, field: &[u8]) -> bool {
        if !self.may_match(field) {
            return false;
        }
        let mut found = false;
        self.each_start(field, &mut |s| {
            found = self.extend(field, s).is_some();
            found
        });
        found
    }

    /// Calls `f` with each position of `field` holding the query's first byte that
    /// may start a window, in order, until it returns true.
    #[inline]
    fn each_start(&self, field: &[u8], f: &mut dyn FnMut(usize) -> bool) {
        let Some(&(x, y)) = self.accept.first() else {
            return;
        };
        let m = self.accept.len();
        let Some(&(lx, ly)) = self.accept.last().filter(|_| m > 1) else {
            if x == y {
                memchr::memchr_iter(x, field).any(f);
            } else {
                memchr::memchr2_iter(x, y, field).any(f);
            }
            return;
        };
        // A window ends on the query's last byte at most 3·m + 5 bytes after its start,
        // so only starts shortly before one of those can succeed. The last byte is
        // usually rarer than the first (`2` against `p`): a SIMD search for it and a
        // short look back for starts skip most of a field.
        let mut next = 0;
        let mut look = |j: usize, f: &mut dyn FnMut(usize) -> bool| {
            let Some(hi) = (j + 2).checked_sub(m) else {
                return false;
            };
            let lo = next.max(j.saturating_sub(3 * m + 5));
            next = next.max(hi);
            (lo..hi).any(|s| {
                let b = field[s];
                (b == x || b == y) && f(s)
            })
        };
        if lx == ly {
            memchr::memchr_iter(lx, field).any(|j| look(j, f));
        } else {
            memchr::memchr2_iter(lx, ly, field).any(|j| look(j, f));
        }
    }

    /// The end (exclusive) of the greedy earliest match of the query's other bytes
    /// after a first byte at `s`, each before its deadline; `None` if one misses it.
    #[inline]
    fn extend(&self, field: &[u8], s: usize) -> Option<usize> {
        let mut i = s + 1;
        for (qi, &(x, y)) in self.accept.iter().enumerate().skip(1) {
            let deadline = (s + 3 * (qi + 1) + 6).min(field.len());
            loop {
                if i >= deadline {
                    return None;
                }
                let b = field[i];
                i += 1;
                if b == x || b == y {
                    break;
                }
            }
        }
        Some(i)
    }

    /// False when `field` lacks one of the query's later bytes: no window then, and a
    /// SIMD search says so sooner than trying every start (a `2` in regex texts).
    fn may_match(&self, field: &[u8]) -> bool {
        self.accept.iter().skip(1).all(|&(x, y)| {
            if x == y {
                memchr::memchr(x, field).is_some()
            } else {
                memchr::memchr2(x, y, field).is_some()
            }
        })
    }

    /// The shortest admitted window of `field`, the earliest of equally short ones.
    fn tightest(&self, field: &[u8]) -> Option<(usize, usize)> {
        if !self.may_match(field) {
            return None;
        }
        // No window is shorter than the query: one that long ends the search.
        let least = self.bytes.len();
        let mut best: Option<(usize, usize)> = None;
        self.each_start(field, &mut |a| {
            if let Some(b) = self.extend(field, a)
                && best.is_none_or(|(x, y)| b - a < y - x)
            {
                best = Some((a, b));
                return b - a == least;
            }
            false
        });
        best
    }

    /// Whether a row's joined text (φ₀, ψ, φ₁, and reasoning when asked) matches.
    pub fn matches(&self, text: &str) -> bool {
        self.is_empty()
            || fields(text)
                .take(self.nfields)
                .any(|f| self.window(f.as_bytes()))
    }

    /// The best skim score over the fields the window admits, or `None` when the row
    /// does not match. Ranking uses it; a higher score is a tighter, earlier match.
    pub fn score(&self, text: &str) -> Option<i64> {
        self.score_with(text, &mut Memo::default())
    }

    /// [`Query::score`] remembering skim's scores in `memo`: the same few windows
    /// (`p12 ∧`) recur across thousands of rows, and φ₁ often repeats φ₀.
    fn score_with(&self, text: &str, memo: &mut Memo) -> Option<i64> {
        if self.is_empty() {
            return Some(0);
        }
        // Skim scores the tightest admitted window of each field (plus a little
        // context for its word-boundary bonus): one call per field, costing the
        // query's length rather than the field's.
        let mut best = None;
        let mut done: [&str; 3] = [""; 3];
        for (k, f) in fields(text).take(self.nfields).enumerate() {
            // A field equal to an earlier one (φ₁ = φ₀ in most samples) adds nothing to
            // the best score.
            if done[..k.min(3)].contains(&f) {
                continue;
            }
            if let Some(d) = done.get_mut(k) {
                *d = f;
            }
            if let Some((a, b)) = self.tightest(f.as_bytes()) {
                let lo = floor_char(f, a.saturating_sub(2));
                let hi = ceil_char(f, (b + 2).min(f.len()));
                best = best.max(memo.score(&self.skim, &f[lo..hi], &self.raw));
            }
        }
        best
    }

    /// Character positions of the match in `text`, for highlighting.
    pub fn positions(&self, text: &str) -> Vec<usize> {
        if self.is_empty() || !self.window(text.as_bytes()) {
            return vec![];
        }
        self.skim
            .fuzzy_indices(text, &self.raw)
            .map(|(_, idx)| idx)
            .unwrap_or_default()
    }
}

/// Skim's scores of windows already scored in this search (bounded).
#[derive(Default)]
struct Memo(std::collections::HashMap<Box<str>, Option<i64>>);

impl Memo {
    /// Windows remembered at most; then it starts over.
    const MAX: usize = 1 << 16;

    fn score(&mut self, skim: &SkimMatcherV2, window: &str, query: &str) -> Option<i64> {
        if let Some(&s) = self.0.get(window) {
            return s;
        }
        let s = skim.fuzzy_match(window, query);
        if self.0.len() >= Memo::MAX {
            self.0.clear();
        }
        self.0.insert(window.into(), s);
        s
    }
}

/// A row's fields (φ₀, ψ, φ₁): the text split at [`SEP`] by a SIMD search.
fn fields(text: &str) -> impl Iterator<Item = &str> {
    let sep = u8::try_from(SEP).unwrap_or(0x1f);
    let mut from = 0;
    let mut cuts = memchr::memchr_iter(sep, text.as_bytes());
    std::iter::from_fn(move || {
        let start = from;
        if start > text.len() {
            return None;
        }
        // SEP is one ASCII byte, so both ends are on character boundaries.
        let end = cuts.next().unwrap_or(text.len());
        from = end + 1;
        text.get(start..end)
    })
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The indices `0..n` for which `keep` holds, in order, computed in parallel chunks
/// (no list of candidates is built first).
pub(crate) fn filter_range_parallel(n: u32, keep: impl Fn(u32) -> bool + Sync) -> Vec<u32> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8) as u32;
    if n < 4096 || threads == 1 {
        return (0..n).filter(|&i| keep(i)).collect();
    }
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let keep = &keep;
                let (lo, hi) = (t * chunk, ((t + 1) * chunk).min(n));
                s.spawn(move || (lo..hi).filter(|&i| keep(i)).collect::<Vec<u32>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Filters `pool` in parallel, keeping order.
pub fn filter_parallel<T: Copy + Send + Sync>(
    pool: &[T],
    text: impl Fn(T) -> bool + Sync,
) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8);
    if pool.len() < 4096 || threads == 1 {
        return pool.iter().copied().filter(|x| text(*x)).collect();
    }
    let chunk = pool.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = pool
            .chunks(chunk)
            .map(|c| {
                let text = &text;
                s.spawn(move || c.iter().copied().filter(|x| text(*x)).collect::<Vec<T>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// One search: a query over candidate rows, with snapshots of the runs' texts, so it
/// can run on a worker while the viewer keeps drawing and taking keys.
pub struct Job {
    /// Which search this is; results of an older one are dropped.
    pub generation: u64,
    /// The query as typed.
    pub query: String,
    /// Candidates in list order: (run, row).
    pub pool: std::sync::Arc<Vec<(u32, u32)>>,
    /// Per run, each row's text index in its store.
    pub text_of: Vec<std::sync::Arc<[u32]>>,
    /// The runs' texts (cheap snapshots).
    pub stores: Vec<TextStore>,
    /// Candidates that match through a hand label or note (checked on the UI thread:
    /// labels are few and change there).
    pub by_label: HashSet<(u32, u32)>,
    /// Best match first (else dataset order).
    pub ranked: bool,
    /// The calls' reasoning is searched too.
    pub reasoning: bool,
    /// A blind session's search: φ₀ and ψ only (φ₁ is there only when it parsed,
    /// which would tell), reasoning never.
    pub blind: bool,
}

/// A search's result: the matching rows in display order and, when ranked, their scores.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// Matching rows, best first when ranked, else in dataset (run, row) order.
    pub rows: Vec<(u32, u32)>,
    /// Each row's score when ranked (empty otherwise); label-only matches score lowest.
    pub scores: Vec<i64>,
}

/// Score of a row that matches only through a hand label or note.
pub(crate) const LABEL_ONLY: i64 = i64::MIN;

impl Found {
    /// Merges two results of the same ordering into one.
    pub fn merge(self, other: Found, ranked: bool) -> Found {
        if !ranked {
            return Found {
                rows: merge_by(&self.rows, &other.rows, |a, b| a <= b),
                scores: Vec::new(),
            };
        }
        let a: Vec<((u32, u32), i64)> = self.rows.into_iter().zip(self.scores).collect();
        let b: Vec<((u32, u32), i64)> = other.rows.into_iter().zip(other.scores).collect();
        let merged = merge_by(&a, &b, |x, y| {
            rank_order(x, y) != std::cmp::Ordering::Greater
        });
        let (rows, scores) = merged.into_iter().unzip();
        Found { rows, scores }
    }
}

/// Best score first, then dataset order.
fn rank_order(a: &((u32, u32), i64), b: &((u32, u32), i64)) -> std::cmp::Ordering {
    b.1.cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Two lists sorted by `le` merged into one.
pub(crate) fn merge_by<T: Copy>(a: &[T], b: &[T], le: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if le(&a[i], &b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The rows of `job.pool` that match: best first when ranked, else in pool order.
/// Texts kept in a row index file are read in large sequential windows.
pub(crate) fn run_job(job: &Job) -> Found {
    run_job_until(job, &|| false).unwrap_or_default()
}

/// Texts per piece of work: runs are cut so that threads finish together.
const PIECE: usize = 16_384;

/// [`run_job`] that gives up (`None`) once `stop` returns true: a newer search
/// overtook it.
fn run_job_until(job: &Job, stop: &(dyn Fn() -> bool + Sync)) -> Option<Found> {
    let q = if job.blind {
        Query::new(&job.query).blind()
    } else {
        Query::new(&job.query).with_reasoning(job.reasoning)
    };
    if q.is_empty() {
        return Some(Found {
            rows: job.pool.to_vec(),
            scores: Vec::new(),
        });
    }
    let mut per_run: Vec<Vec<(u32, usize)>> = vec![Vec::new(); job.stores.len()];
    for (k, &(r, i)) in job.pool.iter().enumerate() {
        let t = job.text_of.get(r as usize).and_then(|x| x.get(i as usize));
        if let (Some(v), Some(&t)) = (per_run.get_mut(r as usize), t) {
            v.push((t, k));
        }
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8);
    // Each run's candidates in text order (sequential reads), cut into pieces that
    // threads take in turn: a big run last in line would leave the others idle.
    let work: Vec<(usize, &[(u32, usize)])> = per_run
        .iter_mut()
        .enumerate()
        .flat_map(|(r, v)| {
            v.sort_unstable();
            v.chunks(PIECE).map(move |c| (r, c))
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found: Vec<(usize, i64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(work.len()))
            .map(|_| {
                let (work, next, q) = (&work, &next, &q);
                s.spawn(move || search_pieces(job, q, work, next, stop))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if stop() {
        return None;
    }
    Some(in_order(job, found))
}

/// One thread's share of a search: pieces of `work` taken in turn (`next`, shared by
/// the threads) until none is left; each matching text's (place in the pool, score).
fn search_pieces(
    job: &Job,
    q: &Query,
    work: &[(usize, &[(u32, usize)])],
    next: &std::sync::atomic::AtomicUsize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<(usize, i64)> {
    let mut out = Vec::new();
    let mut memo = Memo::default();
    let mut buf = Vec::new();
    loop {
        let w = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(&(r, items)) = work.get(w) else {
            break;
        };
        let idx: Vec<u32> = items.iter().map(|x| x.0).collect();
        let mut pos = 0;
        job.stores[r].each_until(&idx, stop, &mut buf, &mut |t, text| {
            while pos < items.len() && items[pos].0 < t {
                pos += 1;
            }
            if pos < items.len() && items[pos].0 == t {
                let score = if job.ranked {
                    q.score_with(text, &mut memo)
                } else {
                    q.matches(text).then_some(0)
                };
                if let Some(score) = score {
                    out.push((items[pos].1, score));
                }
                // Two rows sharing a text get a call each.
                pos += 1;
            }
        });
    }
    out
}

/// The rows `found` (places in the pool, with scores) and the rows matched by label
/// alone: best first when ranked, else in pool order.
fn in_order(job: &Job, mut found: Vec<(usize, i64)>) -> Found {
    if !job.by_label.is_empty() {
        let mut seen = vec![false; job.pool.len()];
        for &(k, _) in &found {
            seen[k] = true;
        }
        for (k, row) in job.pool.iter().enumerate() {
            if !seen[k] && job.by_label.contains(row) {
                found.push((k, LABEL_ONLY));
            }
        }
    }
    if !job.ranked {
        found.sort_unstable_by_key(|&(k, _)| k);
        return Found {
            rows: found.into_iter().map(|(k, _)| job.pool[k]).collect(),
            scores: Vec::new(),
        };
    }
    let mut matched: Vec<((u32, u32), i64)> =
        found.into_iter().map(|(k, s)| (job.pool[k], s)).collect();
    matched.sort_unstable_by(rank_order);
    let (rows, scores) = matched.into_iter().unzip();
    Found { rows, scores }
}

/// A background thread that runs the newest search and drops stale ones; each result
/// goes to the app's inbox through `deliver`.
pub struct Worker {
    jobs: mpsc::Sender<Job>,
    /// The newest generation submitted: a running search older than it stops.
    newest: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Worker {
    /// Starts the thread; it ends when `deliver` returns false (the inbox is gone).
    pub fn start(deliver: impl Fn(u64, Found) -> bool + Send + 'static) -> Worker {
        let (jobs, rx) = mpsc::channel::<Job>();
        let newest = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let seen = newest.clone();
        std::thread::spawn(move || {
            while let Ok(mut job) = rx.recv() {
                // Only the newest query matters: typing ahead skips the ones in between.
                while let Ok(newer) = rx.try_recv() {
                    if newer.generation >= job.generation {
                        job = newer;
                    }
                }
                let g = job.generation;
                let overtaken = || seen.load(std::sync::atomic::Ordering::Relaxed) > g;
                // An overtaken search is abandoned midway; the newer one is queued.
                let Some(found) = run_job_until(&job, &overtaken) else {
                    continue;
                };
                if !deliver(g, found) {
                    break;
                }
            }
        });
        Worker { jobs, newest }
    }

    /// Queues a search.
    pub(crate) fn submit(&self, job: Job) {
        self.newest
            .fetch_max(job.generation, std::sync::atomic::Ordering::Relaxed);
        let _ = self.jobs.send(job);
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
