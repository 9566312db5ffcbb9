//! The kinds worker: proves the failure kinds of samples the viewer lists before their
//! kinds are known (pass two of opening a run, [`crate::run::kinds_cache`]), on one
//! background thread, the samples on screen and in the filtered list first. Results
//! reach the inbox in batches a few times a second (each one re-counts the kind
//! views) and go into the run's kinds cache, so no run is proved twice.

use crate::run::kinds_cache::{KindsCache, Todo, open_samples, prove_batch};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Samples proved per batch from a run's own order: small, so samples asked for first
/// (the screen, the filter) wait at most one batch.
const BATCH: usize = 48;
/// Samples asked for first proved per batch.
const FIRST_BATCH: usize = 16;
/// Results are sent at most this often (each recounts the kind views over every row),
/// except those of samples asked for first, which go at once.
const SEND_EVERY: Duration = Duration::from_millis(300);
/// The kinds cache is saved this often while proving, and when a run is done.
const SAVE_EVERY: Duration = Duration::from_secs(10);

/// One run's work.
#[derive(Debug, Default)]
struct RunWork {
    todo: Vec<Todo>,
    next: usize,
    done: HashSet<u64>,
    by_key: HashMap<u64, Todo>,
}

/// What the UI and the worker share.
#[derive(Debug, Default)]
struct Queue {
    runs: Vec<(PathBuf, RunWork)>,
    /// Samples to prove first: (run directory, key), most wanted first.
    first: Vec<(PathBuf, u64)>,
}

/// Proved kinds of one run: (key, mask).
pub type Proved = Vec<(u64, u32)>;

/// The worker's handle.
#[derive(Debug)]
pub struct KindsWorker {
    shared: Arc<(Mutex<Queue>, Condvar)>,
}

impl KindsWorker {
    /// Starts the worker; `send(dir, proved)` gets each batch of results and returns
    /// false when the viewer is gone.
    pub fn start(send: impl Fn(PathBuf, Proved) -> bool + Send + 'static) -> KindsWorker {
        let shared: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        let s = shared.clone();
        std::thread::spawn(move || work(&s, &send));
        KindsWorker { shared }
    }

    /// Hands over the samples of run `dir` still to prove (replacing earlier work on it).
    pub fn submit(&self, dir: &Path, todo: Vec<Todo>) {
        let (lock, cv) = &*self.shared;
        let Ok(mut q) = lock.lock() else { return };
        let by_key = todo.iter().map(|t| (t.key, *t)).collect();
        let work = RunWork {
            todo,
            next: 0,
            done: HashSet::new(),
            by_key,
        };
        match q.runs.iter_mut().find(|(d, _)| d == dir) {
            Some((_, w)) => *w = work,
            None => q.runs.push((dir.to_path_buf(), work)),
        }
        cv.notify_one();
    }

    /// Samples to prove before the rest (those on screen, then the filtered list's).
    pub fn first(&self, wanted: Vec<(PathBuf, u64)>) {
        let (lock, cv) = &*self.shared;
        if let Ok(mut q) = lock.lock() {
            q.first = wanted;
            cv.notify_one();
        }
    }
}

/// The next batch: samples asked for first, else the next of the first run with work.
/// The bool says whether they were asked for first.
fn next_batch(q: &mut Queue) -> Option<(PathBuf, Vec<Todo>, bool)> {
    let mut first: Vec<Todo> = Vec::new();
    let mut dir: Option<PathBuf> = None;
    let mut keep = Vec::new();
    for (d, key) in std::mem::take(&mut q.first) {
        let Some((_, w)) = q.runs.iter().find(|(rd, _)| *rd == d) else {
            continue;
        };
        if w.done.contains(&key) {
            continue;
        }
        let Some(t) = w.by_key.get(&key).copied() else {
            continue;
        };
        if first.len() < FIRST_BATCH && dir.as_ref().is_none_or(|x| *x == d) {
            dir = Some(d);
            first.push(t);
        } else {
            keep.push((d, key));
        }
    }
    q.first = keep;
    if let Some(d) = dir {
        return Some((d, first, true));
    }
    for (d, w) in &mut q.runs {
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH && w.next < w.todo.len() {
            let t = w.todo[w.next];
            w.next += 1;
            if !w.done.contains(&t.key) {
                batch.push(t);
            }
        }
        if !batch.is_empty() {
            return Some((d.clone(), batch, false));
        }
    }
    None
}

fn work(shared: &(Mutex<Queue>, Condvar), send: &dyn Fn(PathBuf, Proved) -> bool) {
    let (lock, cv) = shared;
    let mut files: HashMap<PathBuf, Option<std::fs::File>> = HashMap::new();
    let mut caches: HashMap<PathBuf, (KindsCache, Instant)> = HashMap::new();
    let mut unsent: HashMap<PathBuf, Proved> = HashMap::new();
    let mut last_send = Instant::now();
    loop {
        let next = {
            let Ok(mut q) = lock.lock() else { return };
            loop {
                if let Some(b) = next_batch(&mut q) {
                    break Some(b);
                }
                if !unsent.is_empty() {
                    break None;
                }
                // Nothing to do: every cache is saved, then the worker waits for work.
                for (dir, (cache, _)) in &mut caches {
                    let _ = cache.save(dir);
                }
                q = match cv.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        let urgent = match next {
            Some((dir, batch, urgent)) => {
                let file = files
                    .entry(dir.clone())
                    .or_insert_with(|| open_samples(&dir).ok());
                let proved = file
                    .as_ref()
                    .map_or_else(Vec::new, |f| prove_batch(f, &batch));
                if let Ok(mut q) = lock.lock()
                    && let Some((_, w)) = q.runs.iter_mut().find(|(d, _)| *d == dir)
                {
                    w.done.extend(batch.iter().map(|t| t.key));
                }
                let (cache, saved) = caches
                    .entry(dir.clone())
                    .or_insert_with(|| (KindsCache::load(&dir), Instant::now()));
                for &(k, m) in &proved {
                    cache.insert(k, m);
                }
                if saved.elapsed() > SAVE_EVERY {
                    let _ = cache.save(&dir);
                    *saved = Instant::now();
                }
                unsent.entry(dir).or_default().extend(proved);
                urgent
            }
            None => true,
        };
        if urgent || last_send.elapsed() > SEND_EVERY {
            for (dir, proved) in unsent.drain() {
                if !proved.is_empty() && !send(dir, proved) {
                    return;
                }
            }
            last_send = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn todo(keys: &[u64]) -> Vec<Todo> {
        keys.iter()
            .map(|&key| Todo {
                offset: key,
                len: 1,
                key,
            })
            .collect()
    }

    /// Samples asked for first come first, only while still to do; then each run's
    /// own order resumes where it was, skipping what was done meanwhile.
    #[test]
    fn samples_asked_for_come_first_then_the_rest_in_order() {
        let mut q = Queue::default();
        let a = PathBuf::from("a");
        q.runs.push((
            a.clone(),
            RunWork {
                todo: todo(&(1..=100).collect::<Vec<_>>()),
                by_key: todo(&(1..=100).collect::<Vec<_>>())
                    .into_iter()
                    .map(|t| (t.key, t))
                    .collect(),
                ..RunWork::default()
            },
        ));
        q.first = vec![(a.clone(), 90), (a.clone(), 7), (a.clone(), 1000)];
        let (d, b, urgent) = next_batch(&mut q).unwrap();
        assert!(urgent && d == a);
        assert_eq!(b.iter().map(|t| t.key).collect::<Vec<_>>(), [90, 7]);
        q.runs[0].1.done.extend([90, 7]);
        let (_, b, urgent) = next_batch(&mut q).unwrap();
        assert!(!urgent);
        assert_eq!(b.len(), BATCH);
        assert_eq!(b[0].key, 1);
        assert!(b.iter().all(|t| t.key != 7));
    }
}
