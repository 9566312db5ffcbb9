//! Token prices (USD per million tokens) for cost estimates; users can override.

use std::collections::BTreeMap;

/// Input and output price per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Price {
    /// USD per million prompt tokens.
    pub input: f64,
    /// USD per million answer tokens.
    pub output: f64,
}

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
                        },
                    )
                })
                .collect(),
        )
    }

    /// Adds or replaces entries from a JSON file `{"model": {"input": x, "output": y}}`.
    pub fn merge_file(&mut self, path: &std::path::Path) -> Result<(), PriceError> {
        let text = crate::fsread::read_to_string(path, crate::fsread::MAX_SMALL)
            .map_err(|e| PriceError::Io(path.display().to_string(), e))?;
        let extra: BTreeMap<String, Price> = serde_json::from_str(&text)
            .map_err(|e| PriceError::Json(path.display().to_string(), e))?;
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
}

/// A price table file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    /// Reading it.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Its contents.
    #[error("{0}: {1} (expected {{\"model\": {{\"input\": 2.5, \"output\": 10.0}}}})")]
    Json(String, serde_json::Error),
}
