//! The new-run form as `autoeval run`'s command line.

use super::{Form, FormError};

/// Adds `--name v` to `a`.
fn flag(a: &mut Vec<String>, name: &str, v: &str) {
    a.push(format!("--{name}"));
    a.push(v.to_string());
}

impl Form {
    /// The `autoeval run …` command this form stands for: what starts the run, and what
    /// the manifest records so the run can be repeated from a shell.
    pub fn argv(&self) -> Result<Vec<String>, FormError> {
        let mut a: Vec<String> = vec!["autoeval".into(), "run".into()];
        let task = self.source_flags(&mut a)?;
        flag(&mut a, "model", self.get("model"));
        let urls = super::super::form_scale::base_urls(self.get("base_url"))?;
        for u in &urls {
            flag(&mut a, "base-url", u);
        }
        for (key, name) in [("api_key_env", "api-key-env"), ("prompts", "prompts")] {
            if !self.get(key).is_empty() {
                flag(&mut a, name, self.get(key));
            }
        }
        flag(&mut a, "shots", &self.number("shots", 0)?.to_string());
        if !task {
            flag(&mut a, "rounds", &self.number("rounds", 1)?.to_string());
        }
        self.request_flags(&mut a)?;
        flag(
            &mut a,
            "concurrency",
            &self.number("concurrency", 8)?.to_string(),
        );
        flag(&mut a, "retries", &self.number("retries", 5)?.to_string());
        flag(
            &mut a,
            "request-timeout",
            &self.number("request_timeout", 120)?.to_string(),
        );
        if !self.get("limit").is_empty() {
            flag(&mut a, "limit", &self.number("limit", 0)?.to_string());
        }
        let scale = super::super::form_scale::flags(self, &urls)?;
        let Some(out) = self.out_dir() else {
            return Err(FormError::NoOutput);
        };
        flag(&mut a, "out", &out.display().to_string());
        a.extend(scale);
        let resume = out.join("run.json").exists();
        if resume {
            a.push("--resume".into());
        }
        let retry = super::super::form_scale::yes_no("retry errors", self.get("retry_errors"))?
            .unwrap_or(false);
        if retry {
            if !resume {
                return Err(FormError::RetryWithoutRun);
            }
            a.push("--retry-errors".into());
        }
        Ok(a)
    }

    /// What the samples come from: a reference task, a generated kind (with its seed,
    /// size and batches) or a dataset file; true for a task.
    fn source_flags(&self, a: &mut Vec<String>) -> Result<bool, FormError> {
        let task = super::super::form_task::parse_task(self.get("task"))?;
        match (self.kind(), task) {
            (_, Some(_)) if !self.get("dataset").is_empty() => {
                return Err(FormError::DatasetAndTask);
            }
            (_, Some(t)) => {
                flag(a, "task", t.name());
                // The seed picks --limit's items, as for a dataset.
                flag(a, "seed", &self.number("seed", 0)?.to_string());
                if self.number("rounds", 1)? != 1 {
                    return Err(FormError::Invalid(
                        "rounds: a reference task's sample is one call (set rounds to 1)".into(),
                    ));
                }
            }
            (Some(k), None) => {
                flag(a, "kind", k.name());
                flag(a, "seed", &self.number("seed", 0)?.to_string());
                flag(
                    a,
                    "per-category",
                    &self.number("per_category", 50)?.max(1).to_string(),
                );
                flag(a, "batches", &self.number("batches", 1)?.max(1).to_string());
            }
            (None, None) if self.get("dataset").is_empty() => {
                return Err(FormError::NoDataset);
            }
            (None, None) => flag(a, "dataset", self.get("dataset")),
        }
        Ok(task.is_some())
    }

    /// How each request is made: temperature, answer limits, reasoning settings, the
    /// extra body and the reasoning tags; empty fields are the model's profile's
    /// defaults.
    fn request_flags(&self, a: &mut Vec<String>) -> Result<(), FormError> {
        let t = self.get("temperature");
        if !t.is_empty() {
            // Checked as a number, passed on as typed: `0.1` stays `0.1`.
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| FormError::NotANumber {
                    field: "temperature".into(),
                    value: t.to_string(),
                })?;
            flag(a, "temperature", t);
        }
        for (key, name) in [
            ("max_tokens", "max-tokens"),
            ("thinking_budget", "thinking-budget"),
        ] {
            if !self.get(key).is_empty() {
                flag(a, name, &self.number(key, 0)?.to_string());
            }
        }
        for (key, name) in [
            ("reasoning_effort", "reasoning-effort"),
            ("thinking", "thinking"),
        ] {
            if !self.get(key).is_empty() {
                flag(a, name, self.get(key));
            }
        }
        let extra = self.get("extra_body");
        if !extra.is_empty() {
            crate::llm::extra_body::parse(extra)
                .map_err(|e| FormError::Invalid(format!("extra body: {e}")))?;
            flag(a, "extra-body", extra);
        }
        // Names apart by spaces or commas; each is checked by the run's own parser.
        for t in self
            .get("reasoning_tags")
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
        {
            flag(a, "reasoning-tag", t);
        }
        Ok(())
    }
}
