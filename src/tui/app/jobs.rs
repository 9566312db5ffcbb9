//! The one inbox and the work that feeds it: terminal input, the run loader, the search
//! worker, a live run, a rescore and the follow tick all send a [`Msg`]; the app takes
//! them one at a time in [`super::App::update`].

use crate::run::driver::Event;
use crate::tui::data::RunIndex;
use crate::tui::keys::Key;
use crate::tui::live::{Live, LiveEnd};
use crate::tui::search::{Found, Job, Worker};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

/// Everything that can change the viewer.
#[derive(Debug)]
pub enum Msg {
    /// A key press.
    Key(Key),
    /// A mouse event on the last frame's areas.
    Mouse(ratatui::crossterm::event::MouseEvent),
    /// The terminal was resized (redraw).
    Resize,
    /// The loader opened the `k`-th named run directory.
    Loaded(usize, Box<RunIndex>),
    /// The search worker finished the search of this generation.
    Found(u64, Found),
    /// The live run reported progress, or ended.
    Live(Box<Result<Event, LiveEnd>>),
    /// A rescore into this directory ended (a summary line, or the error).
    Rescored(PathBuf, Result<String, String>),
    /// A run read again on a background thread (after a rescore replaced its samples).
    Reopened(Box<RunIndex>),
    /// Time to look for samples other processes appended.
    Tick,
    /// The kinds worker proved these samples of the run in this directory.
    Kinds(PathBuf, crate::tui::kinds::Proved),
    /// A line written to stderr while the viewer owned the terminal.
    Stderr(String),
}

/// Opens run directories on background threads; the app adds them in order.
#[derive(Debug)]
pub struct Loader {
    dirs: Vec<PathBuf>,
    ready: BTreeMap<usize, RunIndex>,
    next: usize,
}

impl Loader {
    /// Starts opening `dirs` (two at a time: reading is mostly parsing or page-cache
    /// copies, and the UI keeps a core); each run is sent to `tx` as it is read.
    pub fn start(dirs: Vec<PathBuf>, tx: &Sender<Msg>) -> Loader {
        let queue = std::sync::Arc::new(std::sync::Mutex::new(
            dirs.iter()
                .cloned()
                .enumerate()
                .collect::<Vec<_>>()
                .into_iter(),
        ));
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 2);
        for _ in 0..threads {
            let (tx, queue) = (tx.clone(), queue.clone());
            std::thread::spawn(move || {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).ok().flatten();
                    let Some((k, dir)) = next else { break };
                    if tx
                        .send(Msg::Loaded(k, Box::new(RunIndex::open(&dir))))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        Loader {
            dirs,
            ready: BTreeMap::new(),
            next: 0,
        }
    }

    /// Takes the `k`-th run; returns the runs that are now next in order.
    pub(crate) fn arrived(&mut self, k: usize, run: RunIndex) -> Vec<RunIndex> {
        self.ready.insert(k, run);
        let mut out = Vec::new();
        while let Some(run) = self.ready.remove(&self.next) {
            out.push(run);
            self.next += 1;
        }
        out
    }

    /// Whether every run has been added.
    pub fn done(&self) -> bool {
        self.next >= self.dirs.len()
    }

    /// Runs added so far and runs named.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.dirs.len())
    }

    /// Whether `dir` is still being opened.
    pub(crate) fn pending(&self, dir: &Path) -> bool {
        self.dirs[self.next.min(self.dirs.len())..]
            .iter()
            .any(|d| d == dir)
    }
}

/// The background work and the inbox it reports to.
pub struct Jobs {
    /// Where every message arrives.
    pub(super) rx: Receiver<Msg>,
    /// A sender for new work.
    pub(super) tx: Sender<Msg>,
    /// Runs still being opened.
    pub loader: Option<Loader>,
    /// Runs large searches (started on first use).
    search: Option<Worker>,
    /// A run started from the viewer.
    pub live: Option<Live>,
    /// A rescore running on its own thread, into this directory.
    pub rescore: Option<PathBuf>,
    /// A rescored run being read again in the background, with the rescore's summary
    /// (said once the new rows are in).
    pub reopening: Option<(PathBuf, String)>,
    /// Proves failure kinds the runs' rows are listed without (started on first use).
    kinds: Option<crate::tui::kinds::KindsWorker>,
}

impl Default for Jobs {
    fn default() -> Self {
        let (tx, rx) = channel();
        Jobs {
            rx,
            tx,
            loader: None,
            search: None,
            live: None,
            rescore: None,
            reopening: None,
            kinds: None,
        }
    }
}

impl Jobs {
    /// Reads `dir` again on a thread of its own ([`Msg::Reopened`] brings it): a run of
    /// 100,000 samples takes about a second and a half to index, too long for the UI.
    pub(crate) fn reopen(&self, dir: PathBuf) {
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send(Msg::Reopened(Box::new(RunIndex::open(&dir))));
        });
    }

    /// A sender into the inbox (for the terminal's input thread and the tick).
    pub(crate) fn sender(&self) -> Sender<Msg> {
        self.tx.clone()
    }

    /// Hands a search to the worker (started on first use).
    pub fn search(&mut self, job: Job) {
        let tx = self.tx.clone();
        self.search
            .get_or_insert_with(|| {
                Worker::start(move |generation, found| {
                    tx.send(Msg::Found(generation, found)).is_ok()
                })
            })
            .submit(job);
    }

    /// The kinds worker (started on first use).
    pub(crate) fn kinds(&mut self) -> &crate::tui::kinds::KindsWorker {
        let tx = self.tx.clone();
        self.kinds.get_or_insert_with(|| {
            crate::tui::kinds::KindsWorker::start(move |dir, proved| {
                tx.send(Msg::Kinds(dir, proved)).is_ok()
            })
        })
    }

    /// Whether the kinds worker was started.
    pub(crate) fn kinds_started(&self) -> bool {
        self.kinds.is_some()
    }

    /// The next message, waiting at most `timeout`.
    pub fn next(&self, timeout: Duration) -> Option<Msg> {
        self.rx.recv_timeout(timeout).ok()
    }

    /// A message that is already waiting.
    pub fn ready(&self) -> Option<Msg> {
        self.rx.try_recv().ok()
    }

    /// Whether the live run is still going.
    pub(crate) fn live_running(&self) -> bool {
        self.live.as_ref().is_some_and(|l| l.ended.is_none())
    }
}

/// Sends [`Msg::Tick`] every `every` until the inbox is gone.
pub fn tick(tx: Sender<Msg>, every: Duration) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(every);
            if tx.send(Msg::Tick).is_err() {
                break;
            }
        }
    });
}
