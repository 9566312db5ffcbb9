//! Runs started from the viewer: a form, a background pipeline, live statistics,
//! pause, resume and cancel. The run writes the same directory `autoeval run` does,
//! and the viewer shows its samples by following that directory.

use crate::grammar::DatasetKind;
use crate::launch::args::{RunArgs, parse_form};
use crate::launch::spec::{PauseSwitch, build_spec};
use crate::run::batch::BatchOutcome;
use crate::run::driver::{Event, Outcome, execute};
use std::path::PathBuf;
use std::time::Instant;

/// Form fields, in order: (label, config key). Every setting of `autoeval run` a user
/// would set; the form becomes that command's arguments, parsed by the same parser.
pub const FIELDS: [(&str, &str); 23] = [
    ("dataset (kind or file)", "dataset"),
    ("seed (kind)", "seed"),
    ("per category (kind)", "per_category"),
    ("batches (kind)", "batches"),
    ("model", "model"),
    ("base URLs", "base_url"),
    ("API key variable", "api_key_env"),
    ("shots (0 or 2)", "shots"),
    ("prompt directory", "prompts"),
    ("rounds", "rounds"),
    ("temperature", "temperature"),
    ("max tokens", "max_tokens"),
    ("concurrency", "concurrency"),
    ("endpoint concurrency", "endpoint_concurrency"),
    ("retries per request", "retries"),
    ("request timeout (s)", "request_timeout"),
    ("limit (samples)", "limit"),
    ("batch API (y/n)", "batch_api"),
    ("batch poll (s)", "batch_poll"),
    ("cache (y/n, empty=auto)", "cache"),
    ("max cost (USD)", "max_cost"),
    ("retry errors (y/n)", "retry_errors"),
    ("output directory", "out"),
];

/// The new-run form.
#[derive(Clone, Debug)]
pub struct Form {
    /// Values in `FIELDS` order.
    pub values: Vec<String>,
    /// Field under the cursor.
    pub sel: usize,
    /// Problem with the last start attempt.
    pub error: String,
    /// What starting it costs (kept current by [`Form::refresh`], so drawing only reads).
    pub estimate: String,
    /// The command it stands for, or why it is incomplete.
    pub command: String,
    /// The folder being viewed: a relative output directory is taken from here.
    pub base: Option<PathBuf>,
    /// For an output directory that holds a run: (its directory, the size of its
    /// samples file, samples done, of which model errors), so typing re-reads nothing.
    resume: Option<(PathBuf, u64, usize, usize)>,
}

impl Form {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: super::keymap::Context = super::keymap::Context::Form;
    /// Longest value of a field, in characters.
    pub const MAX_CHARS: usize = 4_096;

    /// Types a character into the field under the cursor.
    pub fn type_char(&mut self, c: char) {
        if let Some(v) = self.values.get_mut(self.sel)
            && v.chars().count() < Self::MAX_CHARS
        {
            v.push(c);
        }
        self.refresh();
    }

    /// Handles an action of the form context.
    pub fn handle(&mut self, a: super::keymap::Action) -> super::components::Effect {
        use super::components::Effect;
        use super::keymap::Action;
        let n = FIELDS.len();
        let effect = match a {
            Action::NextField => {
                self.sel = (self.sel + 1) % n;
                Effect::None
            }
            Action::PrevField => {
                self.sel = (self.sel + n - 1) % n;
                Effect::None
            }
            Action::DeleteChar => {
                if let Some(v) = self.values.get_mut(self.sel) {
                    v.pop();
                }
                Effect::None
            }
            Action::Confirm => Effect::Confirm,
            Action::Cancel => Effect::Close,
            _ => Effect::None,
        };
        self.refresh();
        effect
    }
}

fn last_path() -> Option<PathBuf> {
    super::theme::config_dir().map(|d| d.join("last-run.toml"))
}

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

/// Typical prompt and answer sizes of one call, in tokens, for the cost estimate.
const TYPICAL_INPUT_TOKENS: u64 = 450;
const TYPICAL_OUTPUT_TOKENS: u64 = 120;

impl Form {
    /// A form with the values used last time (or sensible defaults); `base` is the
    /// folder being viewed, where the default output directory goes.
    pub fn remembered(base: Option<&std::path::Path>) -> Form {
        // Defaults by key, so adding a field cannot misalign them.
        let mut values: Vec<String> = FIELDS
            .iter()
            .map(|(_, key)| {
                match *key {
                    "dataset" => "pl",
                    "seed" => "0",
                    "per_category" => "50",
                    "batches" => "1",
                    "model" => "perturb",
                    "shots" => "0",
                    "rounds" => "1",
                    "temperature" => "0.1",
                    "max_tokens" => "1024",
                    "concurrency" => "8",
                    "retries" => "5",
                    "request_timeout" => "120",
                    "retry_errors" | "batch_api" => "n",
                    "batch_poll" => "30",
                    "out" if base.is_some() => "live",
                    "out" => "runs/live",
                    _ => "",
                }
                .to_string()
            })
            .collect();
        if let Some(t) = last_path()
            .and_then(|p| crate::fsread::read_to_string(&p, crate::fsread::MAX_SMALL).ok())
            .and_then(|t| t.parse::<toml::Table>().ok())
        {
            for (i, (_, key)) in FIELDS.iter().enumerate() {
                if let Some(v) = t.get(*key).and_then(|v| v.as_str()) {
                    values[i] = v.to_string();
                }
            }
        }
        let mut f = Form {
            values,
            sel: 0,
            error: String::new(),
            estimate: String::new(),
            command: String::new(),
            base: base.map(std::path::Path::to_path_buf),
            resume: None,
        };
        f.refresh();
        f
    }

    /// The output directory: a relative one is inside the folder being viewed.
    pub fn out_dir(&self) -> Option<PathBuf> {
        let out = self.get("out");
        if out.is_empty() {
            return None;
        }
        let p = std::path::Path::new(out);
        Some(match &self.base {
            Some(b) if p.is_relative() => b.join(p),
            _ => p.to_path_buf(),
        })
    }

    /// Samples done and model errors of the run in the output directory, if it holds
    /// one (re-read only when the directory or its samples file changes).
    fn resumed(&mut self) -> Option<(usize, usize)> {
        let dir = self.out_dir()?;
        if !dir.join(crate::run::store::MANIFEST).exists() {
            self.resume = None;
            return None;
        }
        let size = std::fs::metadata(dir.join(crate::run::store::SAMPLES)).map_or(0, |m| m.len());
        if let Some((d, s, done, errors)) = &self.resume
            && *d == dir
            && *s == size
        {
            return Some((*done, *errors));
        }
        let scan = crate::run::index::load_or_build(&dir, false);
        let latest = crate::run::rows::latest_per_id(&scan.rows);
        let errors = latest
            .iter()
            .filter(|&&i| scan.rows[i].verdict == crate::verify::VerdictKind::ModelError)
            .count();
        self.resume = Some((dir, size, latest.len(), errors));
        Some((latest.len(), errors))
    }

    /// Recomputes the estimate and the command after an edit.
    pub fn refresh(&mut self) {
        let resumed = self.resumed();
        self.estimate = self.estimate_with(resumed);
        self.command = match self.argv() {
            Ok(a) => crate::sanitize::one_line(&shell_words(&a)).into_owned(),
            Err(e) => e.to_string(),
        };
    }

    fn remember(&self) {
        let Some(p) = last_path() else { return };
        let mut t = toml::Table::new();
        for (i, (_, key)) in FIELDS.iter().enumerate() {
            t.insert(key.to_string(), toml::Value::String(self.values[i].clone()));
        }
        if let Some(dir) = p.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(p, t.to_string());
    }

    /// The value of a field by config key (trimmed).
    pub fn get(&self, key: &str) -> &str {
        FIELDS
            .iter()
            .position(|(_, k)| *k == key)
            .and_then(|i| self.values.get(i))
            .map_or("", |v| v.trim())
    }

    /// Sets a field by config key.
    pub fn set(&mut self, key: &str, value: &str) {
        if let Some(i) = FIELDS.iter().position(|(_, k)| *k == key)
            && let Some(v) = self.values.get_mut(i)
        {
            *v = value.to_string();
        }
    }

    fn number(&self, key: &str, default: usize) -> Result<usize, FormError> {
        let v = self.get(key);
        if v.is_empty() {
            return Ok(default);
        }
        let label = FIELDS
            .iter()
            .find(|(_, k)| *k == key)
            .map_or(key, |(l, _)| *l);
        v.parse().map_err(|_| FormError::NotANumber {
            field: label.to_string(),
            value: v.to_string(),
        })
    }

    fn kind(&self) -> Option<DatasetKind> {
        let d = self.get("dataset");
        DatasetKind::ALL.into_iter().find(|k| k.name() == d)
    }

    /// The `autoeval run …` command this form stands for: what starts the run, and what
    /// the manifest records so the run can be repeated from a shell.
    pub fn argv(&self) -> Result<Vec<String>, FormError> {
        let mut a: Vec<String> = vec!["autoeval".into(), "run".into()];
        let mut flag = |name: &str, v: &str| {
            a.push(format!("--{name}"));
            a.push(v.to_string());
        };
        match self.kind() {
            Some(k) => {
                flag("kind", k.name());
                flag("seed", &self.number("seed", 0)?.to_string());
                flag(
                    "per-category",
                    &self.number("per_category", 50)?.max(1).to_string(),
                );
                flag("batches", &self.number("batches", 1)?.max(1).to_string());
            }
            None if self.get("dataset").is_empty() => {
                return Err(FormError::NoDataset);
            }
            None => flag("dataset", self.get("dataset")),
        }
        flag("model", self.get("model"));
        let urls = super::form_scale::base_urls(self.get("base_url"))?;
        for u in &urls {
            flag("base-url", u);
        }
        for (key, name) in [("api_key_env", "api-key-env"), ("prompts", "prompts")] {
            if !self.get(key).is_empty() {
                flag(name, self.get(key));
            }
        }
        flag("shots", &self.number("shots", 0)?.to_string());
        flag("rounds", &self.number("rounds", 1)?.to_string());
        let t = self.get("temperature");
        if !t.is_empty() {
            let v: f32 = t.parse().map_err(|_| FormError::NotANumber {
                field: "temperature".into(),
                value: t.to_string(),
            })?;
            flag("temperature", &v.to_string());
        }
        flag("max-tokens", &self.number("max_tokens", 1024)?.to_string());
        flag("concurrency", &self.number("concurrency", 8)?.to_string());
        flag("retries", &self.number("retries", 5)?.to_string());
        flag(
            "request-timeout",
            &self.number("request_timeout", 120)?.to_string(),
        );
        if !self.get("limit").is_empty() {
            flag("limit", &self.number("limit", 0)?.to_string());
        }
        let scale = super::form_scale::flags(self, &urls)?;
        let Some(out) = self.out_dir() else {
            return Err(FormError::NoOutput);
        };
        flag("out", &out.display().to_string());
        a.extend(scale);
        let resume = out.join("run.json").exists();
        if resume {
            a.push("--resume".into());
        }
        let retry =
            super::form_scale::yes_no("retry errors", self.get("retry_errors"))?.unwrap_or(false);
        if retry {
            if !resume {
                return Err(FormError::RetryWithoutRun);
            }
            a.push("--retry-errors".into());
        }
        Ok(a)
    }

    /// What starting this form will cost: samples, model calls and an estimate in USD
    /// (typical prompt and answer sizes; at most, every answer at max tokens).
    pub fn estimate(&self) -> String {
        let resumed = self.resume.as_ref().map(|r| (r.2, r.3));
        self.estimate_with(resumed)
    }

    /// [`Form::estimate`] given (done, model errors) of the run it resumes.
    fn estimate_with(&self, resumed: Option<(usize, usize)>) -> String {
        let samples = match self.kind() {
            Some(_) => {
                let per = self.number("per_category", 50).unwrap_or(50).max(1);
                let batches = self.number("batches", 1).unwrap_or(1).max(1);
                Some(per * crate::grammar::GenParams::default().depth * batches)
            }
            None => None,
        };
        let limit = self
            .number("limit", 0)
            .ok()
            .filter(|_| !self.get("limit").is_empty());
        let samples = match (samples, limit) {
            (Some(s), Some(l)) => Some(s.min(l)),
            (s, l) => s.or(l),
        };
        let retry = matches!(
            self.get("retry_errors").to_ascii_lowercase().as_str(),
            "y" | "yes"
        );
        // Resuming: only what is left (and the model errors, when they are retried).
        let again = |errors: usize| {
            if retry {
                (errors, format!(" and {errors} model errors again"))
            } else {
                (0, String::new())
            }
        };
        let (n, head) = match (samples, resumed) {
            (None, None) => return "samples: as many as the dataset file holds".into(),
            (None, Some((done, errors))) => {
                return format!(
                    "resumes the run: {done} samples done; the rest of the dataset file{}",
                    again(errors).1
                );
            }
            (Some(n), None) => (n, format!("up to {n} samples")),
            (Some(n), Some((done, errors))) => {
                let (redo, what) = again(errors);
                let left = n.saturating_sub(done) + redo;
                (
                    left,
                    format!("resumes the run: {done} of {n} done, {left} to do{what}"),
                )
            }
        };
        let rounds = self.number("rounds", 1).unwrap_or(1).max(1) as u64;
        let calls = n as u64 * 2 * rounds;
        let model = self.get("model");
        let name = model.split_once(':').map_or(model, |(_, m)| m);
        let max_out = self.number("max_tokens", 1024).unwrap_or(1024) as u64;
        let prices = crate::llm::prices::PriceTable::builtin();
        let batch = super::form_scale::batch_on(self);
        let price = |i, o| {
            if batch {
                prices.batch_cost(name, i, o)
            } else {
                prices.cost(name, i, o)
            }
        };
        let cost = match (
            price(calls * TYPICAL_INPUT_TOKENS, calls * TYPICAL_OUTPUT_TOKENS),
            price(calls * TYPICAL_INPUT_TOKENS, calls * max_out),
        ) {
            _ if model == "perturb" => "offline, free".to_string(),
            (Some(c), Some(hi)) if batch => {
                format!("≈ ${c:.2} at batch price (at most ${hi:.2})")
            }
            (Some(c), Some(hi)) => format!("≈ ${c:.2} (at most ${hi:.2})"),
            _ => "unpriced model".to_string(),
        };
        format!("{head} × {} calls = {calls} calls · {cost}", 2 * rounds)
    }
}

/// Joins arguments into a line a POSIX shell reads back as the same arguments.
pub fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
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
    pub fn word(&self) -> &'static str {
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

impl Live {
    /// Starts a run from the form; the pipeline runs on its own threads.
    pub fn start(
        form: &Form,
        deliver: impl Fn(Result<Event, LiveEnd>) -> bool + Send + Sync + 'static,
    ) -> Result<Live, FormError> {
        let argv = form.argv()?;
        let args: RunArgs = parse_form(&argv)
            .map_err(|e| FormError::Invalid(crate::sanitize::one_line(&e).into_owned()))?;
        // Checked before anything is written: a batch run's endpoint and settings.
        let batch = if args.scale.batch_api {
            let m = &args.model;
            let api = crate::llm::batch_api::BatchApi::for_model(
                &m.model,
                &m.base_url,
                m.api_key_env.as_deref(),
                m.request_timeout,
            )
            .map_err(|e| FormError::Setup(crate::sanitize::one_line(&e).into_owned()))?;
            let s = &args.scale;
            let spec = crate::run::batch::BatchSpec::new(
                crate::run::batch::Mode::Api(api),
                s.batch_max_requests,
                s.batch_max_bytes,
                s.batch_poll,
            )
            .map_err(FormError::Setup)?;
            Some(spec)
        } else {
            None
        };
        let batch_run = batch.is_some();
        let out = args.out.clone();
        let (pause_tx, _) = tokio::sync::watch::channel(false);
        let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        // The recorded command is the one a shell can run again (quoted where needed).
        let spec = build_spec(&args, argv, Some(&pause_tx)).map_err(|e| {
            FormError::Setup(crate::sanitize::one_line(&format!("{e:#}")).into_owned())
        })?;
        form.remember();
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
                        Ok(Outcome::Cancelled) => LiveEnd::Cancelled,
                        Err(e) => LiveEnd::Failed(e.to_string()),
                    },
                    Some(b) => match crate::run::batch::execute(spec, b, etx, cancel_rx).await {
                        Ok(BatchOutcome::Finished) => LiveEnd::Finished,
                        Ok(BatchOutcome::Cancelled) => LiveEnd::Cancelled,
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
        Ok(Live {
            dir: out,
            todo: 0,
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
            Ok(Event::Started { todo, .. }) => self.todo = todo,
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
                    let status = compact_batch_status(&crate::sanitize::one_line(status));
                    self.batch = Some(
                        super::ui::text::clip(&status, MAX_BATCH_STATUS)
                            .trim_end()
                            .to_string(),
                    );
                } else {
                    self.errors += usize::from(w.contains("internal error"));
                    self.last_warning = Some(crate::sanitize::one_line(&w).into_owned());
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
    pub fn sync_pause(&mut self) -> bool {
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
    pub fn toggle_pause(&mut self) {
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
    pub fn header_for(&self, width: usize) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = self.done as f64 / secs;
        let eta = if rate > 0.0 && self.todo > self.done {
            let s = (self.todo - self.done) as f64 / rate;
            format!("{:.0}m{:02.0}s", (s / 60.0).floor(), s % 60.0)
        } else {
            "–".into()
        };
        let state = match (&self.ended, self.paused) {
            (Some(e), _) => e.word().to_string(),
            (None, true) => format!("paused ({} resumes)", self.keys.0),
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
            (format!("{}/{}", self.done, self.todo), 16),
            (format!("pass {pass:.0}%"), 14),
            (format!("{} tok", self.tokens), 4),
            (
                self.cost
                    .map_or_else(|| "cost n/a".into(), |c| format!("${c:.4}")),
                2,
            ),
            (format!("{:.1} req/s", self.calls as f64 / secs), 6),
            (format!("ETA {eta}"), 10),
            (format!("{} errors", self.errors), 12),
        ];
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

/// Why the run form cannot start a run (shown under the form).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    /// A numeric field holds something else.
    #[error("{field}: '{value}' is not a {}", if field == "temperature" { "number" } else { "whole number" })]
    NotANumber {
        /// The field's label.
        field: String,
        /// What it holds.
        value: String,
    },
    /// No output directory.
    #[error("output directory: give one")]
    NoOutput,
    /// A y/n field holds something else.
    #[error("{field}: '{value}' is not y or n")]
    NotYesNo {
        /// The field's label.
        field: String,
        /// What it holds.
        value: String,
    },
    /// Retrying errors needs an existing run.
    #[error("retry errors: only for a run that exists (its output directory holds run.json)")]
    RetryWithoutRun,
    /// Neither a generator kind nor a file.
    #[error("dataset: give a kind (ksat, pl, fol, fol-english, regex) or a file")]
    NoDataset,
    /// The CLI's parser refused the settings (its first line).
    #[error("{0}")]
    Invalid(String),
    /// The settings parse but the run cannot be set up (dataset, prompts, model).
    #[error("{0}")]
    Setup(String),
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::run::batch::STATUS_PREFIX;

    fn batch_live() -> Live {
        Live {
            dir: PathBuf::new(),
            todo: 80,
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
            h.starts_with(
                "live (p pause, C cancel) · 0/80 · pass 0% · batch b_123 in_progress 40/80"
            ),
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
