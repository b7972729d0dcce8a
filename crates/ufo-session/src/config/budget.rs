//! Cost keys: `MAX_COST` (the most a session may spend, USD) and `PRICES`
//! (a price table laid over the shipped one, entry by entry).
//!
//! ```yaml
//! MAX_COST: 0.50                       # USD per session; leave it out for no limit
//! PRICES:                              # UFO's prices.yaml format: USD per 1K tokens
//!   "openai/gpt-4o": {input: 0.0025, output: 0.01}
//!   "my-local-llama": {input: 0, output: 0}   # a price of 0: "local model: $0"
//! # or PRICES: my-prices.yaml (a file in that format, relative to the config)
//! ```

use crate::error::SessionError;
use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use ufo_llm::{Price, PriceTable};

/// The keys as written.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(super) struct Keys {
    prices: Option<Value>,
}

impl Keys {
    /// The config's own price table (empty without `PRICES`): a map in
    /// `prices.yaml`'s format, or the path of such a file relative to `base`.
    pub(super) fn prices(&self, base: &Path) -> Result<PriceTable, SessionError> {
        let bad = |message: String| SessionError::BadKey {
            key: "PRICES".into(),
            message,
        };
        let llm = |e: ufo_llm::LlmError| match e {
            ufo_llm::LlmError::PriceTable { message, .. } => bad(message),
            other => bad(other.to_string()),
        };
        match &self.prices {
            None | Some(Value::Null) => Ok(PriceTable::default()),
            Some(Value::String(file)) => {
                let path = base.join(file.trim());
                PriceTable::from_file(&path).map_err(|e| match llm(e) {
                    SessionError::BadKey { key, message } => SessionError::BadKey {
                        key,
                        message: format!("{}: {message}", path.display()),
                    },
                    other => other,
                })
            }
            Some(v @ Value::Object(_)) => {
                // `PRICES: {PRICES: {...}}` (a prices.yaml pasted whole) too.
                let v = match v.get("PRICES") {
                    Some(inner) if v.as_object().is_some_and(|m| m.len() == 1) => inner,
                    _ => v,
                };
                let map: BTreeMap<String, Price> =
                    serde_json::from_value(v.clone()).map_err(|e| {
                        bad(format!(
                            "{e}; each entry is \"<api prefix>/<model>\" or \"<model>\": {{input: USD per 1K tokens, output: USD per 1K tokens}}"
                        ))
                    })?;
                PriceTable::from_prices(map, "PRICES").map_err(llm)
            }
            Some(other) => Err(bad(format!(
                "expected a map of model prices or the path of a prices.yaml file, got {other}"
            ))),
        }
    }
}

/// `deserialize_with` for `MAX_COST`: a number of US dollars above 0
/// (also as text, `"0.5"` or `"$0.50"`); absent means no limit.
pub(super) fn max_cost<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Value::deserialize(d)?;
    if v.is_null() {
        return Ok(None);
    }
    parse_usd(&v).map(Some).map_err(D::Error::custom)
}

/// A budget in US dollars: a finite number above 0, as a number or text
/// (`"0.5"`, `"$0.50"`). The error says what was wrong, for any key or flag.
pub fn parse_usd(v: &Value) -> Result<f64, String> {
    let n = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().trim_start_matches('$').trim().parse::<f64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if n.is_finite() && n > 0.0 => Ok(n),
        Some(n) => Err(format!(
            "is {n}; a budget is a number of US dollars above 0 (leave it out for no limit)"
        )),
        None => Err(format!(
            "expected a number of US dollars above 0 (e.g. 0.50), got {v}"
        )),
    }
}
