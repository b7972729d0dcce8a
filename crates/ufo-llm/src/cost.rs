//! Cost: a price table per model, in UFO's `prices.yaml` format (USD per 1K input
//! and output tokens, keyed `"<prefix>/<model>"`), and the cost of one call.
//!
//! ```yaml
//! PRICES:
//!   "openai/gpt-4o": {input: 0.005, output: 0.015}
//!   "azure/gpt-4o-20240806": {input: 0.0025, output: 0.01}
//! ```
//!
//! Lookup order for a call to `model` on `api`: UFO's key ([`price_key`]), the same
//! with a dashed date normalised (`gpt-4o-2024-08-06` → `gpt-4o-20240806`), the bare
//! model name. No match: no cost (`None`), except Ollama, which is free (`0`).
//! `cost = prompt_tokens × input / 1000 + completion_tokens × output / 1000`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::ApiType;
use crate::error::LlmError;
use crate::usage::Usage;

/// The price of one model in USD per 1K tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// USD per 1K input tokens.
    pub input: f64,
    /// USD per 1K output tokens.
    pub output: f64,
}

/// A table of prices keyed UFO-style.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TableFile {
    Wrapped {
        #[serde(rename = "PRICES")]
        prices: BTreeMap<String, Price>,
    },
    Bare(BTreeMap<String, Price>),
}

/// UFO's price key for `model` on `api`: `openai/…`, `azure/…` (aoai, azure_ad),
/// `qwen/…`, `deepseek/…`, `gemini/…`, `claude/…`, `zhipu/…`; other types use the
/// bare model.
pub(crate) fn price_key(api: ApiType, model: &str) -> String {
    match api.info().price_prefix {
        Some(prefix) => format!("{prefix}/{model}"),
        None => model.to_owned(),
    }
}

/// `gpt-4o-2024-08-06` → `gpt-4o-20240806`; other names unchanged.
fn normalise_date(model: &str) -> String {
    let b = model.as_bytes();
    let n = b.len();
    if n >= 11 {
        let tail = &model[n - 11..];
        let t = tail.as_bytes();
        let digits = |r: std::ops::Range<usize>| t[r].iter().all(u8::is_ascii_digit);
        if t[0] == b'-'
            && digits(1..5)
            && t[5] == b'-'
            && digits(6..8)
            && t[8] == b'-'
            && digits(9..11)
        {
            return format!(
                "{}-{}{}{}",
                &model[..n - 11],
                &tail[1..5],
                &tail[6..8],
                &tail[9..11]
            );
        }
    }
    model.to_owned()
}

impl PriceTable {
    /// Parses a YAML table: `PRICES: {key: {input, output}}` or the bare map.
    pub fn from_yaml(yaml: &str, source_name: &str) -> Result<Self, LlmError> {
        let file: TableFile = serde_saphyr::from_str(yaml).map_err(|e| LlmError::PriceTable {
            source_name: source_name.to_owned(),
            message: e.to_string(),
            source: Some(e.into()),
        })?;
        let prices = match file {
            TableFile::Wrapped { prices } | TableFile::Bare(prices) => prices,
        };
        Ok(Self { prices })
    }

    /// Reads a YAML table from a file.
    pub fn from_file(path: &std::path::Path) -> Result<Self, LlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::PriceTable {
            source_name: path.display().to_string(),
            message: e.to_string(),
            source: Some(e.into()),
        })?;
        Self::from_yaml(&text, &path.display().to_string())
    }

    /// UFO's shipped entries (stale; override with your own table).
    pub fn ufo_defaults() -> Self {
        Self::from_yaml(include_str!("prices.yaml"), "built-in prices.yaml").unwrap_or_default()
    }

    /// Adds or replaces one entry.
    pub fn insert(&mut self, key: impl Into<String>, price: Price) {
        self.prices.insert(key.into(), price);
    }

    /// The price for `model` on `api` (see the module docs for the lookup order).
    pub fn lookup(&self, api: ApiType, model: &str) -> Option<Price> {
        let norm = normalise_date(model);
        [
            price_key(api, model),
            price_key(api, &norm),
            model.to_owned(),
            norm,
        ]
        .iter()
        .find_map(|k| self.prices.get(k).copied())
    }

    /// The cost of `usage` on `model`, or `None` when the model has no price
    /// (Ollama: `0`).
    pub fn cost(&self, api: ApiType, model: &str, usage: &Usage) -> Option<f64> {
        match self.lookup(api, model) {
            Some(p) => Some(cost_of(p, usage)),
            None if api == ApiType::Ollama => Some(0.0),
            None => None,
        }
    }
}

/// `prompt × input / 1000 + completion × output / 1000`.
pub(crate) fn cost_of(price: Price, usage: &Usage) -> f64 {
    usage.prompt_tokens as f64 * price.input / 1000.0
        + usage.completion_tokens as f64 * price.output / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ufo_table_and_arithmetic() {
        let t = PriceTable::from_yaml(
            "PRICES:\n  \"openai/gpt-4o\": {input: 0.005, output: 0.015}\n  \"azure/gpt-4o-20240806\": {\"input\": 0.0025, \"output\": 0.01}\n",
            "test",
        )
        .unwrap();
        let u = Usage::new(1200, 300);
        let c = t.cost(ApiType::OpenAi, "gpt-4o", &u).unwrap();
        assert!((c - (1200.0 * 0.005 / 1000.0 + 300.0 * 0.015 / 1000.0)).abs() < 1e-12);
        assert!(t.lookup(ApiType::Aoai, "gpt-4o-2024-08-06").is_some());
        assert_eq!(t.cost(ApiType::Claude, "x", &u), None);
        assert_eq!(t.cost(ApiType::Ollama, "llama3", &u), Some(0.0));
        assert!(
            PriceTable::ufo_defaults()
                .lookup(ApiType::OpenAi, "gpt-4o")
                .is_some()
        );
    }
}
