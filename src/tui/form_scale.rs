//! The new-run form's paper-scale fields (base URLs, endpoint concurrency, batch API,
//! batch poll, cache, max cost): their checks, and the `autoeval run` flags they become.

/// What the checks read of the form: a field's value by its config key.
pub trait FormFields {
    /// The value of the field `key` (empty when unset).
    fn field(&self, key: &str) -> &str;
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
    /// Neither a generator kind nor a file nor a reference task.
    #[error(
        "dataset: give a kind (ksat, pl, fol, fol-english, regex) or a file, or a reference task"
    )]
    NoDataset,
    /// Both a dataset and a reference task.
    #[error("dataset and reference task: a run is one or the other (empty one of them)")]
    DatasetAndTask,
    /// The CLI's parser refused the settings (its first line).
    #[error("{0}")]
    Invalid(String),
    /// The settings parse but the run cannot be set up (dataset, prompts, model).
    #[error("{0}")]
    Setup(String),
}

/// Longest batch poll the form takes, in seconds (a day: a batch window).
const MAX_POLL_SECS: f64 = 86_400.0;

/// The base URLs of the field: separated by commas or spaces, each an http(s) URL.
pub(crate) fn base_urls(v: &str) -> Result<Vec<String>, FormError> {
    let urls: Vec<String> = v
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|u| !u.is_empty())
        .map(str::to_string)
        .collect();
    for u in &urls {
        let lower = u.to_ascii_lowercase();
        let rest = lower
            .strip_prefix("http://")
            .or_else(|| lower.strip_prefix("https://"));
        if rest.is_none_or(str::is_empty) {
            return Err(FormError::Invalid(format!(
                "base URLs: '{}' is not an http:// or https:// URL",
                crate::base::sanitize::one_line(u)
            )));
        }
    }
    Ok(urls)
}

/// A y/n field: `None` when empty.
pub(crate) fn yes_no(field: &str, v: &str) -> Result<Option<bool>, FormError> {
    match v.to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "y" | "yes" => Ok(Some(true)),
        "n" | "no" => Ok(Some(false)),
        other => Err(FormError::NotYesNo {
            field: field.into(),
            value: other.into(),
        }),
    }
}

/// A positive number of at most `max`: `None` when empty.
fn positive(field: &str, what: &str, v: &str, max: f64) -> Result<Option<f64>, FormError> {
    if v.is_empty() {
        return Ok(None);
    }
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= max => Ok(Some(x)),
        _ => Err(FormError::Invalid(format!(
            "{field}: '{}' is not {what}",
            crate::base::sanitize::one_line(v)
        ))),
    }
}

/// Whether the batch API field says yes (an invalid value counts as no; argv refuses it).
pub(crate) fn batch_on(form: &impl FormFields) -> bool {
    yes_no("", form.field("batch_api")).ok().flatten() == Some(true)
}

/// The flags of the endpoint-concurrency, batch, cache and max-cost fields, checked
/// together with the base URLs and the model they must fit.
pub(crate) fn flags(form: &impl FormFields, urls: &[String]) -> Result<Vec<String>, FormError> {
    let mut a = Vec::new();
    let ec = form.field("endpoint_concurrency");
    if !ec.is_empty() {
        let n: usize = ec.parse().map_err(|_| FormError::NotANumber {
            field: "endpoint concurrency".into(),
            value: ec.to_string(),
        })?;
        if n == 0 {
            return Err(FormError::Invalid(
                "endpoint concurrency: at least 1 (or empty: the concurrency)".into(),
            ));
        }
        if urls.len() < 2 {
            return Err(FormError::Invalid(
                "endpoint concurrency: only with several base URLs (or leave it empty)".into(),
            ));
        }
        a.extend(["--endpoint-concurrency".into(), n.to_string()]);
    }
    let batch = yes_no("batch API", form.field("batch_api"))?.unwrap_or(false);
    let poll = positive(
        "batch poll (s)",
        "a positive number of seconds (at most a day)",
        form.field("batch_poll"),
        MAX_POLL_SECS,
    )?;
    if batch {
        let spec = crate::llm::spec::ModelSpec::parse(form.field("model"));
        if spec.ok().and_then(|s| s.provider.batch_api()).is_none() {
            return Err(FormError::Invalid(format!(
                "batch API: needs an {}",
                crate::llm::provider::Provider::batch_usages()
            )));
        }
        if urls.len() > 1 {
            return Err(FormError::Invalid(
                "batch API: one base URL only (batch jobs go to one endpoint)".into(),
            ));
        }
        a.push("--batch-api".into());
        if let Some(p) = poll {
            a.extend(["--batch-poll".into(), p.to_string()]);
        }
    }
    match yes_no("cache", form.field("cache"))? {
        Some(true) => a.push("--cache".into()),
        Some(false) => a.push("--no-cache".into()),
        None => {}
    }
    if let Some(usd) = positive(
        "max cost (USD)",
        "a positive number of USD (or empty: no limit)",
        form.field("max_cost"),
        f64::MAX,
    )? {
        a.extend(["--max-cost".into(), usd.to_string()]);
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use crate::tui::form::Form;

    /// A form with the defaults (never the developer's remembered values) and `set`.
    fn form(set: &[(&str, &str)]) -> Form {
        crate::base::config_dir::use_config_dir(
            std::env::temp_dir().join(format!("autoeval-unit-nonexistent-{}", std::process::id())),
        );
        let mut f = Form::remembered(None);
        f.set("out", "/nonexistent/autoeval-form-test/run");
        for (k, v) in set {
            f.set(k, v);
        }
        f
    }

    fn err(set: &[(&str, &str)]) -> String {
        form(set).argv().unwrap_err().to_string()
    }

    /// The arguments after `--out DIR`, where the form puts these flags.
    fn tail(f: &Form) -> Vec<String> {
        let a = f.argv().unwrap();
        let i = a.iter().position(|x| x == "--out").unwrap();
        a[i + 2..].to_vec()
    }

    #[test]
    fn defaults_add_no_scale_flags() {
        let f = form(&[]);
        assert!(tail(&f).is_empty(), "{:?}", f.argv());
        assert!(!f.argv().unwrap().iter().any(|a| a == "--base-url"));
    }

    #[test]
    fn every_field_becomes_its_flag() {
        let f = form(&[
            ("model", "openai:gpt-4o-mini"),
            ("base_url", "http://127.0.0.1:1/v1"),
            ("batch_api", "y"),
            ("batch_poll", "0.5"),
            ("cache", "n"),
            ("max_cost", "2.5"),
        ]);
        assert_eq!(
            tail(&f),
            [
                "--batch-api",
                "--batch-poll",
                "0.5",
                "--no-cache",
                "--max-cost",
                "2.5"
            ]
        );
        let f = form(&[
            ("model", "openai:m"),
            ("base_url", "http://a:1/v1, http://b:2/v1\thttps://c/v1"),
            ("endpoint_concurrency", "4"),
            ("cache", "yes"),
        ]);
        let a = f.argv().unwrap();
        let urls: Vec<&str> = a
            .windows(2)
            .filter(|w| w[0] == "--base-url")
            .map(|w| w[1].as_str())
            .collect();
        assert_eq!(urls, ["http://a:1/v1", "http://b:2/v1", "https://c/v1"]);
        assert_eq!(tail(&f), ["--endpoint-concurrency", "4", "--cache"]);
        // Batch off: the poll is checked but not passed.
        let f = form(&[("batch_api", "n"), ("batch_poll", "10")]);
        assert!(tail(&f).is_empty());
    }

    #[test]
    fn the_flags_parse_as_autoeval_run_takes_them() {
        let f = form(&[
            ("model", "anthropic:claude"),
            ("base_url", "http://127.0.0.1:9/v1"),
            ("batch_api", "y"),
            ("batch_poll", "2"),
            ("cache", "y"),
            ("max_cost", "1"),
        ]);
        let argv = f.argv().unwrap();
        let Ok(args) = crate::launch::args::parse_form(&argv) else {
            panic!("{argv:?} does not parse");
        };
        assert!(args.scale.batch_api && args.scale.cache);
        assert!((args.scale.batch_poll - 2.0).abs() < 1e-12);
        assert_eq!(args.scale.max_cost, Some(1.0));
        assert_eq!(args.model.base_url, ["http://127.0.0.1:9/v1"]);
    }

    #[test]
    fn invalid_values_name_their_field() {
        assert_eq!(
            err(&[("base_url", "http://a/v1,localhost:8000")]),
            "base URLs: 'localhost:8000' is not an http:// or https:// URL"
        );
        assert_eq!(
            err(&[("endpoint_concurrency", "many")]),
            "endpoint concurrency: 'many' is not a whole number"
        );
        assert!(
            err(&[
                ("base_url", "http://a http://b"),
                ("endpoint_concurrency", "0")
            ])
            .starts_with("endpoint concurrency: at least 1")
        );
        assert!(
            err(&[("base_url", "http://a"), ("endpoint_concurrency", "2")])
                .starts_with("endpoint concurrency: only with several base URLs")
        );
        assert_eq!(
            err(&[("batch_api", "maybe")]),
            "batch API: 'maybe' is not y or n"
        );
        assert_eq!(
            err(&[("batch_api", "y"), ("model", "perturb")]),
            "batch API: needs an openai:<model> or anthropic:<model>"
        );
        assert_eq!(
            err(&[
                ("batch_api", "y"),
                ("model", "openai:m"),
                ("base_url", "http://a/v1,http://b/v1")
            ]),
            "batch API: one base URL only (batch jobs go to one endpoint)"
        );
        for bad in ["0", "-1", "soon", "NaN", "inf", "1e300"] {
            assert_eq!(
                err(&[("batch_poll", bad)]),
                format!(
                    "batch poll (s): '{bad}' is not a positive number of seconds (at most a day)"
                )
            );
        }
        assert_eq!(err(&[("cache", "on")]), "cache: 'on' is not y or n");
        for bad in ["0", "-5", "free", "inf"] {
            assert_eq!(
                err(&[("max_cost", bad)]),
                format!(
                    "max cost (USD): '{bad}' is not a positive number of USD (or empty: no limit)"
                )
            );
        }
        assert_eq!(
            err(&[("retry_errors", "perhaps")]),
            "retry errors: 'perhaps' is not y or n"
        );
        // The form shows the error where the command goes.
        let mut f = form(&[("max_cost", "lots")]);
        f.refresh();
        assert!(
            f.command.starts_with("max cost (USD): 'lots'"),
            "{}",
            f.command
        );
    }

    #[test]
    fn the_estimate_uses_the_batch_price() {
        let mut f = form(&[("model", "openai:gpt-4o-mini"), ("base_url", "")]);
        f.refresh();
        let live = f.estimate.clone();
        f.set("batch_api", "y");
        f.refresh();
        assert!(f.estimate.contains("at batch price"), "{}", f.estimate);
        assert_ne!(f.estimate, live);
    }
}
