//! Runs started from the viewer: a form, a background pipeline, live statistics,
//! pause, resume and cancel. The run writes the same directory `autoeval run` does,
//! and the viewer shows its samples by following that directory.

use crate::launch::args::{RunArgs, parse_form};
use crate::launch::spec::{PauseSwitch, build_spec};
use crate::run::batch::BatchOutcome;
use crate::run::driver::{Event, Outcome, execute};
use std::path::PathBuf;
use std::time::Instant;

pub use super::form::{FIELDS, Form, FormError, shell_words};

/// Longest batch status the status line keeps, in columns (ids come from the provider).
const MAX_BATCH_STATUS: usize = 80;

/// A batch status for the status line: `ID STATE: A of T answered, F failed` becomes
/// `ID STATE A/T` (and `, F failed` when some did); other notes stay as they are.
fn compact_batch_status(s: &str) -> String {
    if let Some((head, counts)) = s.split_once(": ")
        && let Some((answered, rest)) = counts.split_once(" of ")
        && let Some((total, rest)) = rest.split_once(" answered, ")
        && let Some(failed) = rest.strip_suffix(" failed")
    {
        let failed = if failed == "0" {
            String::new()
        } else {
            format!(", {failed} failed")
        };
        return format!("{head} {answered}/{total}{failed}");
    }
    s.to_string()
}

/// How a live run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveEnd {
    /// Every sample done.
    Finished,
    /// Stopped by the user; resumable.
    Cancelled,
    /// Could not go on.
    Failed(String),
}

impl LiveEnd {
    /// Short word for the status line.
    pub(crate) fn word(&self) -> &'static str {
        match self {
            LiveEnd::Finished => "finished",
            LiveEnd::Cancelled => "cancelled",
            LiveEnd::Failed(_) => "failed",
        }
    }
}

/// A run in progress.
pub struct Live {
    /// Its directory.
    pub dir: PathBuf,
    /// Samples this invocation will do.
    pub todo: usize,
    /// Samples the run had finished before this invocation (a resumed run).
    pub before: usize,
    /// Finished so far.
    pub done: usize,
    /// Of those, equivalent.
    pub pass: usize,
    /// Model errors so far.
    pub errors: usize,
    /// Tokens so far.
    pub tokens: u64,
    /// Cost so far (None once an unpriced call is seen).
    pub cost: Option<f64>,
    /// Model calls so far.
    pub calls: u64,
    /// Paused (by the user, or by the run when the server is gone).
    pub paused: bool,
    /// Set when the run ended.
    pub ended: Option<LiveEnd>,
    /// The last warning the run sent (a pause reason, a skipped item).
    pub last_warning: Option<String>,
    /// Whether the run goes through the provider's batch API.
    pub batch_run: bool,
    /// The latest batch status the run sent (id, state, counts); cleared when it ends.
    pub batch: Option<String>,
    /// The keys that pause/resume and cancel it, as the status line names them.
    pub keys: (String, String),
    started: Instant,
    pause_tx: PauseSwitch,
    cancel_tx: tokio::sync::watch::Sender<bool>,
}

/// An error and its causes on one line, each cause said once: a context that already
/// quotes the OS error is not followed by the same OS error again.
fn chain_once(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = String::new();
    let mut next = Some(e);
    while let Some(cause) = next {
        next = cause.source();
        let m = cause.to_string();
        if out.contains(&m) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&m);
    }
    out
}

/// A batch run's endpoint and settings (`--batch-api`), checked before anything is
/// written; None for a run of live calls.
fn batch_spec(args: &RunArgs) -> Result<Option<crate::run::batch::BatchSpec>, FormError> {
    if !args.scale.batch_api {
        return Ok(None);
    }
    let m = &args.model;
    let api = crate::llm::batch_api::BatchApi::for_model(
        &m.model,
        &m.base_url,
        m.api_key_env.as_deref(),
        m.request_timeout,
    )
    .map_err(|e| FormError::Setup(crate::base::sanitize::one_line(&e).into_owned()))?;
    let s = &args.scale;
    let spec = crate::run::batch::BatchSpec::new(
        crate::run::batch::Mode::Api(api),
        s.batch_max_requests,
        s.batch_max_bytes,
        s.batch_poll,
    )
    .map_err(FormError::Setup)?;
    Ok(Some(spec))
}

/// Runs `spec` on a thread of its own (live calls, or provider batches with `batch`),
/// handing its events and then how it ended to `deliver`.
fn spawn_run(
    spec: crate::run::driver::RunSpec,
    batch: Option<crate::run::batch::BatchSpec>,
    cancel_rx: tokio::sync::watch::Receiver<bool>,
    deliver: impl Fn(Result<Event, LiveEnd>) -> bool + Send + Sync + 'static,
) {
    let tx = std::sync::Arc::new(deliver);
    std::thread::spawn(move || {
        let rt = match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                (*tx)(Err(LiveEnd::Failed(e.to_string())));
                return;
            }
        };
        rt.block_on(async move {
            let (etx, mut erx) = tokio::sync::mpsc::unbounded_channel();
            let fwd = tx.clone();
            let forward = tokio::spawn(async move {
                while let Some(e) = erx.recv().await {
                    if !(*fwd)(Ok(e)) {
                        break;
                    }
                }
            });
            // The same runs `autoeval run` makes: live calls, or provider batches
            // (which re-attach on resume and are cancelled at the provider).
            let end = match batch {
                None => match execute(spec, etx, cancel_rx).await {
                    Ok(Outcome::Finished) => LiveEnd::Finished,
                    Ok(Outcome::Cancelled | Outcome::Refused) => LiveEnd::Cancelled,
                    Err(e) => LiveEnd::Failed(e.to_string()),
                },
                Some(b) => match crate::run::batch::execute(spec, b, etx, cancel_rx).await {
                    Ok(BatchOutcome::Finished) => LiveEnd::Finished,
                    Ok(BatchOutcome::Cancelled | BatchOutcome::Unreachable) => LiveEnd::Cancelled,
                    Ok(BatchOutcome::Waiting { pending, .. }) => {
                        LiveEnd::Failed(format!("{pending} requests still need answers"))
                    }
                    Err(e) => LiveEnd::Failed(e.to_string()),
                },
            };
            let _ = forward.await;
            (*tx)(Err(end));
        });
    });
}

impl Live {
    /// Starts a run from the form; the pipeline runs on its own threads.
    pub fn start(
        form: &Form,
        deliver: impl Fn(Result<Event, LiveEnd>) -> bool + Send + Sync + 'static,
    ) -> Result<Live, FormError> {
        let argv = form.argv()?;
        let args: RunArgs = parse_form(&argv)
            .map_err(|e| FormError::Invalid(crate::base::sanitize::one_line(&e).into_owned()))?;
        // Checked before anything is written: a batch run's endpoint and settings.
        let batch = batch_spec(&args)?;
        let batch_run = batch.is_some();
        let out = args.out.clone();
        let (pause_tx, _) = tokio::sync::watch::channel(false);
        let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        // The recorded command is the one a shell can run again (quoted where needed).
        let spec = build_spec(&args, argv, Some(&pause_tx)).map_err(|e| {
            FormError::Setup(crate::base::sanitize::one_line(&chain_once(&e)).into_owned())
        })?;
        form.remember();
        spawn_run(spec, batch, cancel_rx, deliver);
        Ok(Live {
            dir: out,
            todo: 0,
            before: 0,
            done: 0,
            pass: 0,
            errors: 0,
            tokens: 0,
            cost: Some(0.0),
            calls: 0,
            paused: false,
            ended: None,
            last_warning: None,
            batch_run,
            batch: None,
            keys: ("p".into(), "C".into()),
            started: Instant::now(),
            pause_tx,
            cancel_tx,
        })
    }

    /// Takes in one report of the run.
    pub fn take(&mut self, msg: Result<Event, LiveEnd>) {
        match msg {
            Ok(Event::Started { todo, done_before }) => {
                self.todo = todo;
                self.before = done_before;
            }
            Ok(Event::Sample(rec)) => {
                self.done += 1;
                self.pass += usize::from(rec.verdict.is_equivalent());
                self.errors +=
                    usize::from(rec.verdict.kind() == crate::verify::VerdictKind::ModelError);
                self.tokens += rec.input_tokens + rec.output_tokens;
                self.cost = self.cost.zip(rec.cost_usd).map(|(a, b)| a + b);
                self.calls += rec
                    .rounds
                    .iter()
                    .map(|r| 1 + u64::from(r.autoformalize.is_some()))
                    .sum::<u64>();
            }
            Ok(Event::Warning(w)) => {
                // Batch progress is the run's state, not a problem: kept on its own.
                if let Some(status) = w.strip_prefix(crate::run::batch::STATUS_PREFIX) {
                    let status = compact_batch_status(&crate::base::sanitize::one_line(status));
                    self.batch = Some(
                        super::ui::text::clip(&status, MAX_BATCH_STATUS)
                            .trim_end()
                            .to_string(),
                    );
                } else {
                    self.errors += usize::from(w.contains("internal error"));
                    self.last_warning = Some(crate::base::sanitize::one_line(&w).into_owned());
                }
            }
            Err(end) => {
                self.ended = Some(end);
                self.batch = None;
            }
        }
        self.sync_pause();
        if self.ended == Some(LiveEnd::Finished) {
            // A finished run has nothing left to warn about (a pause it recovered from).
            self.last_warning = None;
        }
    }

    /// Reads the pause switch (the run pauses itself when the server is gone; the
    /// switch is the truth); returns whether the state changed.
    pub(crate) fn sync_pause(&mut self) -> bool {
        let paused = *self.pause_tx.borrow();
        if paused == self.paused {
            return false;
        }
        self.paused = paused;
        if !paused {
            // Resumed: the reason it paused no longer holds.
            self.last_warning = None;
        }
        true
    }

    /// Pauses or resumes (a batch run cannot pause: the provider works on its batches).
    pub(crate) fn toggle_pause(&mut self) {
        if self.batch_run {
            self.last_warning = Some(format!(
                "a batch run does not pause: the provider works on its batches; {} cancels them (resumable)",
                self.keys.1
            ));
            return;
        }
        self.paused = !*self.pause_tx.borrow();
        self.pause_tx.send_replace(self.paused);
        if !self.paused {
            self.last_warning = None;
        }
    }

    /// Stops the run; finished samples stay, and it can be resumed.
    pub fn cancel(&mut self) {
        let _ = self.cancel_tx.send(true);
    }

    /// The status line: state, progress, pass rate, ETA, errors, rate, tokens, cost.
    pub fn header(&self) -> String {
        self.header_for(usize::MAX)
    }

    /// The status line in at most `width` columns: the least telling parts (cost,
    /// tokens, request rate, then ETA) are left out first, so state, progress, pass
    /// rate and errors are always there.
    pub(crate) fn header_for(&self, width: usize) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = self.done as f64 / secs;
        // Paused, the rate and ETA would be stale (they count the paused time); ended,
        // there is nothing left to estimate: left out.
        let idle = self.paused || self.ended.is_some();
        let eta = if idle {
            "–".into()
        } else if rate > 0.0 && self.todo > self.done {
            let s = (self.todo - self.done) as f64 / rate;
            format!("{:.0}m{:02.0}s", (s / 60.0).floor(), s % 60.0)
        } else {
            "–".into()
        };
        let state = match (&self.ended, self.paused) {
            (Some(e), _) => e.word().to_string(),
            (None, true) => format!("paused ({} resumes)", self.keys.0),
            // A batch run cannot pause: its key is not offered.
            (None, false) if self.batch_run => format!("live ({} cancel)", self.keys.1),
            (None, false) => format!("live ({} pause, {} cancel)", self.keys.0, self.keys.1),
        };
        let pass = if self.done > 0 {
            100.0 * self.pass as f64 / self.done as f64
        } else {
            0.0
        };
        // (text, priority: lower is dropped first); a batch's state outranks the rates
        // and the error count (a batch run learns its errors only when a batch ends).
        let mut parts: Vec<(String, u8)> = vec![
            (state, 18),
            // The whole run's samples, as the run list counts them (a resumed run
            // includes what earlier sessions finished).
            (
                format!("{}/{}", self.before + self.done, self.before + self.todo),
                16,
            ),
            (format!("pass {pass:.0}%"), 14),
            (format!("{} tok", self.tokens), 4),
            (
                self.cost
                    .map_or_else(|| "cost n/a".into(), |c| format!("${c:.4}")),
                2,
            ),
            (format!("{:.1} req/s", self.calls as f64 / secs), 6),
            (format!("ETA {eta}"), 10),
        ];
        if idle {
            parts.retain(|(p, _)| !p.ends_with(" req/s") && !p.starts_with("ETA "));
        }
        parts.extend([(format!("{} errors", self.errors), 12)]);
        if let Some(b) = &self.batch {
            parts.insert(3, (format!("batch {b}"), 13));
        }
        let n = parts.len();
        let mut keep = vec![true; n];
        let len = |keep: &[bool]| {
            let shown: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
            shown
                .iter()
                .map(|&i| super::ui::text::width(&parts[i].0))
                .sum::<usize>()
                + 3 * shown.len().saturating_sub(1)
        };
        for p in 1..=14 {
            if len(&keep) <= width {
                break;
            }
            for (i, (_, prio)) in parts.iter().enumerate() {
                if *prio == p {
                    keep[i] = false;
                }
            }
        }
        parts
            .iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|((t, _), _)| t.as_str())
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::run::batch::STATUS_PREFIX;

    #[test]
    fn an_error_chain_says_each_cause_once() {
        let os = std::io::Error::from_raw_os_error(2);
        let e = crate::launch::LaunchError::context(
            "dataset".into(),
            crate::launch::LaunchError::context(
                format!("cannot read /x ({os})"),
                std::io::Error::from_raw_os_error(2),
            ),
        );
        assert_eq!(
            chain_once(&e),
            format!("dataset: cannot read /x ({os})"),
            "the OS error once"
        );
    }

    fn batch_live() -> Live {
        Live {
            dir: PathBuf::new(),
            todo: 80,
            before: 0,
            done: 0,
            pass: 0,
            errors: 0,
            tokens: 0,
            cost: Some(0.0),
            calls: 0,
            paused: false,
            ended: None,
            last_warning: None,
            batch_run: true,
            batch: None,
            keys: ("p".into(), "C".into()),
            started: Instant::now(),
            pause_tx: tokio::sync::watch::channel(false).0,
            cancel_tx: tokio::sync::watch::channel(false).0,
        }
    }

    #[test]
    fn batch_status_is_kept_apart_shown_compactly_and_cleared_at_the_end() {
        let mut l = batch_live();
        let status = |s: &str| Ok(Event::Warning(format!("{STATUS_PREFIX}{s}")));
        l.take(status("b_123 in_progress: 40 of 80 answered, 0 failed"));
        assert_eq!(l.batch.as_deref(), Some("b_123 in_progress 40/80"));
        assert_eq!(l.last_warning, None, "not a warning");
        // At 80 columns the batch state stays; the rates and the cost give way first.
        let h = l.header_for(80);
        assert!(
            h.starts_with("live (C cancel) · 0/80 · pass 0% · batch b_123 in_progress 40/80"),
            "{h}"
        );
        assert!(super::super::ui::text::width(&h) <= 80, "{h}");
        l.take(status("b_123 completed: 78 of 80 answered, 2 failed"));
        assert_eq!(l.batch.as_deref(), Some("b_123 completed 78/80, 2 failed"));
        l.take(status("12 results read from out.jsonl"));
        assert_eq!(l.batch.as_deref(), Some("12 results read from out.jsonl"));
        l.take(Ok(Event::Warning("sample 3: φ₀ does not parse".into())));
        assert_eq!(
            l.last_warning.as_deref(),
            Some("sample 3: φ₀ does not parse")
        );
        assert!(l.batch.is_some(), "a warning leaves the batch state");
        // A provider's text is one line, without escapes, and bounded.
        l.take(status(&format!("{}\u{1b}[2J\nx", "y".repeat(500))));
        let b = l.batch.clone().unwrap();
        assert!(super::super::ui::text::width(&b) <= MAX_BATCH_STATUS, "{b}");
        assert!(!b.chars().any(char::is_control), "{b:?}");
        // p says why a batch run does not pause.
        l.toggle_pause();
        assert!(!l.paused && !*l.pause_tx.borrow());
        assert!(
            l.last_warning
                .as_deref()
                .is_some_and(|w| w.starts_with("a batch run does not pause")),
            "{:?}",
            l.last_warning
        );
        l.take(Err(LiveEnd::Cancelled));
        assert_eq!(l.batch, None);
        assert!(!l.header().contains("batch"), "{}", l.header());
    }
}
