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

/// The shipped price table (`src/llm/data/prices.toml`): list prices with date and source.
const BUILTIN: &str = include_str!("data/prices.toml");

/// One row of the shipped table.
#[derive(serde::Deserialize)]
struct Row {
    model: String,
    input: f64,
    output: f64,
    #[allow(dead_code)]
    date: String,
    #[allow(dead_code)]
    source: String,
    #[serde(default)]
    #[allow(dead_code)]
    estimate: bool,
}

/// The shipped table's file shape.
#[derive(serde::Deserialize)]
struct Rows {
    price: Vec<Row>,
}

/// A price table.
#[derive(Clone, Debug, Default)]
pub struct PriceTable(BTreeMap<String, Price>);

impl PriceTable {
    /// The built-in table (empty if the shipped file could not be read, which a test
    /// rules out).
    pub fn builtin() -> Self {
        let rows = toml::from_str::<Rows>(BUILTIN).map_or_else(|_| Vec::new(), |r| r.price);
        PriceTable(
            rows.into_iter()
                .map(|r| {
                    (
                        r.model,
                        Price {
                            input: r.input,
                            output: r.output,
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
        let text = crate::base::fsread::read_to_string(path, crate::base::fsread::MAX_SMALL)
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

    /// The price for a model: its exact name, else a known name followed by a date or
    /// `-latest` (dated snapshots). Never a shorter model's price: `gpt-4.1-nano` is not
    /// `gpt-4.1`, `claude-sonnet-4-5` is not `claude-sonnet-4`.
    pub fn get(&self, model: &str) -> Option<Price> {
        self.0.get(model).copied().or_else(|| {
            self.0
                .iter()
                .filter(|(k, _)| {
                    model
                        .strip_prefix(k.as_str())
                        .is_some_and(is_snapshot_suffix)
                })
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

/// Whether `rest` (what follows a priced name) names a dated snapshot of that model:
/// `-2025-04-14`, `-20250929`, `-0613`, `-latest` or `@…` (Vertex-style versions).
fn is_snapshot_suffix(rest: &str) -> bool {
    if rest.starts_with('@') || rest == "-latest" {
        return true;
    }
    let Some(date) = rest.strip_prefix('-') else {
        return false;
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = date.split('-').collect();
    match parts.as_slice() {
        [d] => digits(d, 8) || digits(d, 4),
        [y, m, d] => digits(y, 4) && digits(m, 2) && digits(d, 2),
        _ => false,
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
