//! Config values as people write them, for `#[derive(Deserialize)]`
//! structs: a duration is a number of seconds.
//!
//! The error of a value out of range says the range but not the key: the
//! reader wraps the deserializer in `serde_path_to_error`, which adds the
//! key's path (`APP_AGENT.TIMEOUT`).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::time::Duration;

/// A duration written as a number of seconds (`30`, `0.5`, or the same as
/// text, which is what `${VAR}` expansion gives), from `MIN` to `MAX`
/// seconds; with `ZERO` false, 0 itself is refused (a heartbeat of 0 s
/// would spin). Negative, non-finite or out-of-range values are errors, so
/// no later `Duration` arithmetic can panic on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds<const MIN: u64, const MAX: u64, const ZERO: bool = true>(pub Duration);

impl<'de, const MIN: u64, const MAX: u64, const ZERO: bool> Deserialize<'de>
    for Seconds<MIN, MAX, ZERO>
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let secs = match &v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        let (lo, hi) = (MIN as f64, MAX as f64);
        match secs {
            Some(s) if s.is_finite() && s >= lo && s <= hi && (ZERO || s > 0.0) => {
                Ok(Self(Duration::from_secs_f64(s)))
            }
            _ => Err(D::Error::custom(format!(
                "is {v}; it must be a number of seconds between {MIN} and {MAX}{}",
                if ZERO { "" } else { ", above 0" }
            ))),
        }
    }
}

/// `deserialize_with` for a `Duration` field read as [`Seconds`]:
/// `#[serde(deserialize_with = "ufo_core::de::duration::<_, 0, 30, true>")]`.
pub fn duration<'de, D, const MIN: u64, const MAX: u64, const ZERO: bool>(
    d: D,
) -> Result<Duration, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(Seconds::<MIN, MAX, ZERO>::deserialize(d)?.0)
}

/// [`duration`] for an `Option<Duration>` field (with `#[serde(default)]`).
pub fn opt_duration<'de, D, const MIN: u64, const MAX: u64, const ZERO: bool>(
    d: D,
) -> Result<Option<Duration>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(Option::<Seconds<MIN, MAX, ZERO>>::deserialize(d)?.map(|s| s.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seconds_are_numbers_or_text_within_their_range() {
        let read = |v: Value| serde_json::from_value::<Seconds<0, 30>>(v).map(|s| s.0);
        assert_eq!(read(json!(0.5)).unwrap(), Duration::from_millis(500));
        assert_eq!(read(json!(" 2 ")).unwrap(), Duration::from_secs(2));
        assert_eq!(read(json!(0)).unwrap(), Duration::ZERO);
        for bad in [
            json!(31),
            json!(-1),
            json!(1e308),
            json!("NaN"),
            json!("soon"),
            json!([1]),
        ] {
            let e = read(bad.clone()).unwrap_err().to_string();
            assert!(e.contains("between 0 and 30"), "{bad}: {e}");
        }
        let e = serde_json::from_value::<Seconds<0, 9, false>>(json!(0)).unwrap_err();
        assert!(e.to_string().contains("above 0"), "{e}");
    }
}
