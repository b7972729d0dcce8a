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
//! model name. No match: no cost (`None`: "not available"), except a local
//! provider (Ollama), which is free. A model priced 0/0 in a table is local
//! too: its calls say "local model: $0" rather than "not available".
//! `cost = prompt_tokens × input / 1000 + completion_tokens × output / 1000`.
//!
//! Tables stack: [`PriceTable::merge`] lays a user's table (a config's
//! `PRICES:`, `--prices FILE`) over UFO's shipped one, entry by entry.

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

/// How one model's calls are priced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pricing {
    /// A price from the table.
    Priced(Price),
    /// Free: a local provider, or a price of 0 for input and output.
    Local,
    /// No price known: its cost is "not available".
    Unknown,
}

impl Pricing {
    /// The cost of `usage`: `Some(0)` for a local model, `None` when unknown.
    pub fn cost(self, usage: &Usage) -> Option<f64> {
        match self {
            Pricing::Priced(p) => Some(cost_of(p, usage)),
            Pricing::Local => Some(0.0),
            Pricing::Unknown => None,
        }
    }
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
        let table = Self { prices };
        table.validate(source_name)?;
        Ok(table)
    }

    /// A table from its entries (a config's `PRICES:` map), checked as
    /// [`Self::from_yaml`] checks a file's.
    pub fn from_prices(
        prices: BTreeMap<String, Price>,
        source_name: &str,
    ) -> Result<Self, LlmError> {
        let table = Self { prices };
        table.validate(source_name)?;
        Ok(table)
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

    /// Lays `other` over this table: its entries are added, or replace
    /// those of the same key.
    pub fn merge(&mut self, other: &PriceTable) {
        for (k, p) in &other.prices {
            self.prices.insert(k.clone(), *p);
        }
    }

    /// Entries in the table.
    pub fn len(&self) -> usize {
        self.prices.len()
    }

    /// Whether the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.prices.is_empty()
    }

    /// The entries, by key.
    pub fn entries(&self) -> impl Iterator<Item = (&str, Price)> {
        self.prices.iter().map(|(k, p)| (k.as_str(), *p))
    }

    /// Checks every entry: prices are finite and not negative.
    fn validate(&self, source_name: &str) -> Result<(), LlmError> {
        for (k, p) in &self.prices {
            for (what, v) in [("input", p.input), ("output", p.output)] {
                if !v.is_finite() || v < 0.0 {
                    return Err(LlmError::PriceTable {
                        source_name: source_name.to_owned(),
                        message: format!(
                            "{k:?}: {what} is {v}; a price is USD per 1K tokens, 0 or more"
                        ),
                        source: None,
                    });
                }
            }
        }
        Ok(())
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

    /// How calls to `model` on `api` are priced: the table's price, free
    /// (a price of 0/0, or no price on a local provider such as Ollama), or
    /// unknown.
    pub fn pricing(&self, api: ApiType, model: &str) -> Pricing {
        match self.lookup(api, model) {
            Some(p) if p.input == 0.0 && p.output == 0.0 => Pricing::Local,
            Some(p) => Pricing::Priced(p),
            None if api.info().local => Pricing::Local,
            None => Pricing::Unknown,
        }
    }

    /// The cost of `usage` on `model`, or `None` when the model has no price
    /// (a local model: `0`).
    pub fn cost(&self, api: ApiType, model: &str, usage: &Usage) -> Option<f64> {
        self.pricing(api, model).cost(usage)
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

    #[test]
    fn a_users_table_lays_over_the_shipped_one() {
        let mut t = PriceTable::ufo_defaults();
        let before = t.len();
        let user = PriceTable::from_yaml(
            "\"openai/gpt-4o\": {input: 0.0025, output: 0.01}\n\"my-model\": {input: 1, output: 2}\n",
            "config",
        )
        .unwrap();
        t.merge(&user);
        // Replaced, added, the rest kept.
        assert_eq!(t.len(), before + 1);
        assert_eq!(
            t.lookup(ApiType::OpenAi, "gpt-4o"),
            Some(Price {
                input: 0.0025,
                output: 0.01
            })
        );
        assert_eq!(
            t.pricing(ApiType::Custom, "my-model"),
            Pricing::Priced(Price {
                input: 1.0,
                output: 2.0
            })
        );
        assert!(t.lookup(ApiType::Qwen, "qwen-vl-max").is_some());
        let e = PriceTable::from_yaml("m: {input: -1, output: 0}\n", "config")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"m\": input is -1"), "{e}");
    }

    #[test]
    fn local_models_cost_0_and_unknown_ones_have_no_cost() {
        let t = PriceTable::from_yaml("\"lan-llama\": {input: 0, output: 0}\n", "t").unwrap();
        let u = Usage::new(5000, 500);
        // A price of 0 makes a model local, whatever its provider.
        assert_eq!(t.pricing(ApiType::Custom, "lan-llama"), Pricing::Local);
        assert_eq!(t.cost(ApiType::Custom, "lan-llama", &u), Some(0.0));
        // A local provider without a price is free.
        assert_eq!(t.pricing(ApiType::Ollama, "llama3"), Pricing::Local);
        // Anything else unpriced has no cost (never a made-up 0).
        assert_eq!(t.pricing(ApiType::Custom, "mystery"), Pricing::Unknown);
        assert_eq!(t.cost(ApiType::OpenAi, "gpt-9", &u), None);
    }
}
