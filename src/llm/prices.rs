//! Token prices (USD per million tokens) for cost estimates; users can override.

use std::collections::BTreeMap;

/// Input and output price per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Price {
    /// USD per million prompt tokens.
    pub input: f64,
    /// USD per million answer tokens.
    pub output: f64,
    /// Share of the list price a provider batch job costs (default [`BATCH_FACTOR`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<f64>,
}

/// What batch jobs cost relative to live calls when a price gives no `batch` factor
/// (OpenAI's and Anthropic's batch APIs both charge half).
pub const BATCH_FACTOR: f64 = 0.5;

/// Built-in estimates (list prices when written; override with `--prices FILE`).
const BUILTIN: [(&str, f64, f64); 8] = [
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-3-5-haiku", 0.8, 4.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-opus-4", 15.0, 75.0),
];

/// A price table.
#[derive(Clone, Debug, Default)]
pub struct PriceTable(BTreeMap<String, Price>);

impl PriceTable {
    /// The built-in table.
    pub fn builtin() -> Self {
        PriceTable(
            BUILTIN
                .iter()
                .map(|(m, i, o)| {
                    (
                        m.to_string(),
                        Price {
                            input: *i,
                            output: *o,
                            batch: None,
                        },
                    )
                })
                .collect(),
        )
    }

    /// Adds or replaces entries from a JSON file `{"model": {"input": x, "output": y}}`
    /// (optionally `"batch": 0.5`, the share of the price a batch job costs).
    pub(crate) fn merge_file(&mut self, path: &std::path::Path) -> Result<(), PriceError> {
        let text = crate::fsread::read_to_string(path, crate::fsread::MAX_SMALL)
            .map_err(|e| PriceError::Io(path.display().to_string(), e))?;
        let extra: BTreeMap<String, Price> = serde_json::from_str(&text)
            .map_err(|e| PriceError::Json(path.display().to_string(), e))?;
        for (model, p) in &extra {
            let ok = |x: f64| x.is_finite() && x >= 0.0;
            if !ok(p.input) || !ok(p.output) || p.batch.is_some_and(|b| !ok(b) || b > 1.0) {
                return Err(PriceError::Value(path.display().to_string(), model.clone()));
            }
        }
        self.0.extend(extra);
        Ok(())
    }

    /// The price for a model: exact name, else the longest known prefix (dated versions).
    pub fn get(&self, model: &str) -> Option<Price> {
        self.0.get(model).copied().or_else(|| {
            self.0
                .iter()
                .filter(|(k, _)| model.starts_with(k.as_str()))
                .max_by_key(|(k, _)| k.len())
                .map(|(_, p)| *p)
        })
    }

    /// Cost in USD, if the model is priced.
    pub fn cost(&self, model: &str, input: u64, output: u64) -> Option<f64> {
        self.get(model)
            .map(|p| (input as f64 * p.input + output as f64 * p.output) / 1e6)
    }

    /// Cost in USD of the same tokens through a provider batch job.
    pub(crate) fn batch_cost(&self, model: &str, input: u64, output: u64) -> Option<f64> {
        let factor = self.get(model)?.batch.unwrap_or(BATCH_FACTOR);
        self.cost(model, input, output).map(|c| c * factor)
    }
}

/// A price table file that could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PriceError {
    /// Reading it.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Its contents.
    #[error("{0}: {1} (expected {{\"model\": {{\"input\": 2.5, \"output\": 10.0}}}})")]
    Json(String, serde_json::Error),
    /// A negative or non-finite price, or a batch factor outside 0..=1.
    #[error("{0}: the price of '{1}' must be non-negative, and its batch factor between 0 and 1")]
    Value(String, String),
}
