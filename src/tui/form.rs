//! The new-run form (`R`): the fields of `autoeval run`, what they become on its
//! command line (parsed by the same parser), the cost estimate, and its errors.

use crate::grammar::DatasetKind;
use std::path::PathBuf;

pub use super::form_scale::{FormError, FormFields};

mod argv;

/// Form fields, in order: (label, config key). Every setting of `autoeval run` a user
/// would set; the form becomes that command's arguments, parsed by the same parser.
pub const FIELDS: [(&str, &str); 29] = [
    ("dataset (kind or file)", "dataset"),
    ("reference task", "task"),
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
    ("reasoning effort", "reasoning_effort"),
    ("thinking on/off/auto", "thinking"),
    ("thinking budget", "thinking_budget"),
    ("extra body (JSON)", "extra_body"),
    ("reasoning tags (names)", "reasoning_tags"),
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
    /// The reference task's prompts counted, kept while the task, shots and prompt
    /// directory stay the same.
    task_plan: Option<std::sync::Arc<super::form_task::TaskPlan>>,
}

impl Form {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: super::keymap::Context = super::keymap::Context::Form;
    /// Longest value of a field, in characters.
    pub(crate) const MAX_CHARS: usize = 4_096;

    /// Types a character into the field under the cursor.
    pub(crate) fn type_char(&mut self, c: char) {
        if let Some(v) = self.values.get_mut(self.sel)
            && v.chars().count() < Self::MAX_CHARS
        {
            v.push(c);
        }
        self.error.clear();
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
            Action::PageDown => {
                self.sel = (self.sel + 6).min(n - 1);
                Effect::None
            }
            Action::PageUp => {
                self.sel = self.sel.saturating_sub(6);
                Effect::None
            }
            Action::Top => {
                self.sel = 0;
                Effect::None
            }
            Action::Bottom => {
                self.sel = n - 1;
                Effect::None
            }
            Action::DeleteChar => {
                if let Some(v) = self.values.get_mut(self.sel) {
                    v.pop();
                }
                // The last start's complaint is about what was there before the edit.
                self.error.clear();
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

/// Fields the next form does not take from `last-run.toml`.
const ONE_RUN_ONLY: [&str; 2] = ["retry_errors", "batch_api"];

/// The request profile's default answer limit for a `provider:model` string (1024
/// when no profile matches).
fn profile_max_tokens(model: &str) -> u64 {
    let Ok(spec) = crate::llm::spec::ModelSpec::parse(model) else {
        return 1024;
    };
    crate::llm::profile::Profiles::builtin()
        .find(spec.provider, &spec.model)
        .map_or(1024, |p| u64::from(p.default_max_tokens))
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
                    "model" => crate::llm::provider::Provider::Perturb.name(),
                    "shots" => "0",
                    "rounds" => "1",
                    "concurrency" => "8",
                    "retries" => "5",
                    "request_timeout" => "120",
                    "retry_errors" | "batch_api" => "n",
                    "batch_poll" => "30",
                    "out" => "runs/live",
                    _ => "",
                }
                .to_string()
            })
            .collect();
        if let Some(t) = last_path()
            .and_then(|p| {
                crate::base::fsread::read_to_string(&p, crate::base::fsread::MAX_SMALL).ok()
            })
            .and_then(|t| t.parse::<toml::Table>().ok())
        {
            for (i, (_, key)) in FIELDS.iter().enumerate() {
                // Retrying errors and the batch API are choices for one run: remembered,
                // they would come back on unseen in the next form.
                if ONE_RUN_ONLY.contains(key) {
                    continue;
                }
                if let Some(v) = t.get(*key).and_then(|v| v.as_str()) {
                    values[i] = v.to_string();
                }
            }
        }
        // The default output goes beside the runs being viewed, written out in full:
        // relative paths in the form are the shell's, as on `autoeval run`'s line.
        if let Some(b) = base
            && let Some(i) = FIELDS.iter().position(|(_, k)| *k == "out")
            && values[i] == "runs/live"
        {
            values[i] = b.join("live").display().to_string();
        }
        let mut f = Form {
            values,
            sel: 0,
            error: String::new(),
            estimate: String::new(),
            command: String::new(),
            base: base.map(std::path::Path::to_path_buf),
            resume: None,
            task_plan: None,
        };
        // Not remembered, but a batch run in the output directory resumes as one: the
        // field shows it on.
        if let Some(dir) = f.out_dir()
            && let Ok(m) = crate::run::store::read_manifest(&dir)
            && m.extra.get("batch").and_then(serde_json::Value::as_str) == Some("api")
        {
            f.set("batch_api", "y");
        }
        f.refresh();
        f
    }

    /// The output directory; a relative one is from the shell's directory, like the
    /// dataset's (the default is the folder being viewed, written out in full).
    pub fn out_dir(&self) -> Option<PathBuf> {
        let out = self.get("out");
        if out.is_empty() {
            return None;
        }
        Some(PathBuf::from(out))
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

    /// The reference task's counted prompts for the current settings (loaded when the
    /// task, shots or prompt directory changed).
    fn task_plan(&mut self) -> Option<std::sync::Arc<super::form_task::TaskPlan>> {
        use super::form_task::{TaskPlan, parse_task};
        let t = parse_task(self.get("task")).ok().flatten()?;
        let shots = self.number("shots", 0).unwrap_or(0);
        let prompts = self.get("prompts").to_string();
        if let Some(p) = &self.task_plan
            && p.is_for(t, shots, &prompts)
        {
            return Some(p.clone());
        }
        let p = std::sync::Arc::new(TaskPlan::load(t, shots, &prompts));
        self.task_plan = Some(p.clone());
        Some(p)
    }

    /// Recomputes the estimate and the command after an edit.
    pub fn refresh(&mut self) {
        self.task_plan();
        let resumed = self.resumed();
        self.estimate = self.estimate_with(resumed);
        self.command = match self.argv() {
            Ok(a) => crate::base::sanitize::one_line(&shell_words(&a)).into_owned(),
            Err(e) => e.to_string(),
        };
    }

    pub(crate) fn remember(&self) {
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

    /// What starting this form will cost: samples, model calls and an estimate in USD
    /// (typical prompt and answer sizes; at most, every answer at max tokens).
    pub fn estimate(&self) -> String {
        let resumed = self.resume.as_ref().map(|r| (r.2, r.3));
        self.estimate_with(resumed)
    }

    /// [`Form::estimate`] given (done, model errors) of the run it resumes.
    fn estimate_with(&self, resumed: Option<(usize, usize)>) -> String {
        // A reference task: one call per sample, its tokens from the real prompts.
        let task = match super::form_task::parse_task(self.get("task")) {
            Ok(t) => t,
            Err(e) => return e.to_string(),
        };
        let counted = match self.counted(task.is_some()) {
            Ok(c) => c,
            Err(e) => return e,
        };
        let (n, head) = match self.to_do(counted, resumed) {
            Ok(x) => x,
            Err(said) => return said,
        };
        let rounds = self.number("rounds", 1).unwrap_or(1).max(1) as u64;
        let per_sample = if counted.is_some() { 1 } else { 2 * rounds };
        let calls = n as u64 * per_sample;
        // Tokens of the calls to make: a task's counted prompts, scaled to what is left;
        // typical sizes for a dataset.
        let (tin, tout) = match counted {
            Some((all, i, o)) if all > 0 => (i * n as u64 / all, o * n as u64 / all),
            Some(_) => (0, 0),
            None => (calls * TYPICAL_INPUT_TOKENS, calls * TYPICAL_OUTPUT_TOKENS),
        };
        let model = self.get("model");
        let name = model.split_once(':').map_or(model, |(_, m)| m);
        let max_out = match self.get("max_tokens") {
            "" => profile_max_tokens(model),
            _ => self.number("max_tokens", 1024).unwrap_or(1024) as u64,
        };
        let prices = crate::llm::prices::PriceTable::builtin();
        let batch = super::form_scale::batch_on(self);
        let price = |i, o| {
            if batch {
                prices.batch_cost(name, i, o)
            } else {
                prices.cost(name, i, o)
            }
        };
        let cost = match (price(tin, tout), price(tin, calls * max_out)) {
            _ if crate::llm::spec::ModelSpec::parse(model)
                .is_ok_and(|s| s.provider.is_offline()) =>
            {
                "offline, free".to_string()
            }
            (Some(c), Some(hi)) if batch => {
                format!("≈ ${c:.2} at batch price (at most ${hi:.2})")
            }
            (Some(c), Some(hi)) => format!("≈ ${c:.2} (at most ${hi:.2})"),
            _ => "unpriced model".to_string(),
        };
        match (task, counted) {
            (Some(t), Some(_)) => format!(
                "{}: {head} × 1 call = {calls} calls · ≈ {tin} tokens in, {tout} out (its prompts) · {cost}",
                t.name()
            ),
            _ => format!("{head} × {per_sample} calls = {calls} calls · {cost}"),
        }
    }
}

impl Form {
    /// A reference task's (samples, input tokens, output tokens) counted from its real
    /// prompts (`task`: the form names one), or why they cannot be counted.
    fn counted(&self, task: bool) -> Result<Option<(u64, u64, u64)>, String> {
        let Some(p) = self.task_plan.as_ref().filter(|_| task) else {
            return Ok(None);
        };
        let limit = self
            .number("limit", 0)
            .ok()
            .filter(|_| !self.get("limit").is_empty());
        let seed = self.number("seed", 0).unwrap_or(0) as u64;
        match p.tokens(limit, seed) {
            Ok(t) => Ok(Some(t)),
            Err(e) => Err(crate::base::sanitize::one_line(&e).into_owned()),
        }
    }

    /// The samples to do and the estimate's head saying so (`resumed`: done and model
    /// errors of the run it resumes); `Err` with the whole estimate when the count is
    /// the dataset file's.
    fn to_do(
        &self,
        counted: Option<(u64, u64, u64)>,
        resumed: Option<(usize, usize)>,
    ) -> Result<(usize, String), String> {
        let samples = match self.kind() {
            _ if counted.is_some() => counted.map(|c| c.0 as usize),
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
        match (samples, resumed) {
            (None, None) => Err("samples: as many as the dataset file holds".into()),
            (None, Some((done, errors))) => Err(format!(
                "resumes the run: {done} samples done; the rest of the dataset file{}",
                again(errors).1
            )),
            (Some(n), None) => Ok((n, format!("up to {n} samples"))),
            (Some(n), Some((done, errors))) => {
                let (redo, what) = again(errors);
                let left = n.saturating_sub(done) + redo;
                Ok((
                    left,
                    format!("resumes the run: {done} of {n} done, {left} to do{what}"),
                ))
            }
        }
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

impl FormFields for Form {
    fn field(&self, key: &str) -> &str {
        self.get(key)
    }
}
