//! Searches as jobs: a query over candidate rows run in parallel pieces on a worker
//! thread, so the viewer keeps drawing and taking keys; a newer search overtakes an
//! older one.

use super::{Memo, Query};
use crate::tui::data::TextStore;
use std::collections::HashSet;
use std::sync::mpsc;

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
pub(super) fn rank_order(a: &((u32, u32), i64), b: &((u32, u32), i64)) -> std::cmp::Ordering {
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
pub(super) const PIECE: usize = 16_384;

/// [`run_job`] that gives up (`None`) once `stop` returns true: a newer search
/// overtook it.
pub(super) fn run_job_until(job: &Job, stop: &(dyn Fn() -> bool + Sync)) -> Option<Found> {
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
