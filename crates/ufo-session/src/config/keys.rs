//! Reading typed system keys (top level or under `SYSTEM:`), remembering
//! which were read so that the rest can be reported as unknown.

use crate::error::SessionError;
use serde_json::{Map, Value};

/// The system keys of a config file.
pub(super) struct Keys<'a> {
    pub(super) top: &'a Map<String, Value>,
    pub(super) system: Option<&'a Map<String, Value>>,
    /// Every key asked for (the known system keys).
    pub(super) read: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Keys<'_> {
    pub(super) fn get(&self, k: &str) -> Option<&Value> {
        self.read.borrow_mut().insert(k.to_owned());
        self.top
            .get(k)
            .or_else(|| self.system.and_then(|s| s.get(k)))
    }

    pub(super) fn bool(&self, k: &str, default: bool) -> Result<bool, SessionError> {
        match self.get(k) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
            Some(other) => Err(bad(k, "true or false", other)),
        }
    }

    pub(super) fn uint(&self, k: &str, default: u64) -> Result<u64, SessionError> {
        match self.get(k) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .ok_or_else(|| bad(k, "a whole number ≥ 0", v)),
        }
    }

    /// A duration in seconds, at most `max` (a value too large for the clock
    /// must be an error naming the key, never a panic later).
    pub(super) fn seconds(&self, k: &str, default: f64, max: f64) -> Result<f64, SessionError> {
        let v = self.float(k, default)?;
        if v > max {
            return Err(SessionError::BadKey {
                key: k.to_owned(),
                message: format!("is {v} seconds; it must be between 0 and {max}"),
            });
        }
        Ok(v)
    }

    /// A list of strings (`CONTROL_LIST: [Button, Edit]`); `None` when unset.
    pub(super) fn strings(&self, k: &str, what: &str) -> Result<Option<Vec<String>>, SessionError> {
        match self.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().map(str::to_owned).ok_or_else(|| bad(k, what, x)))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(bad(k, what, other)),
        }
    }

    pub(super) fn float(&self, k: &str, default: f64) -> Result<f64, SessionError> {
        match self.get(k) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_f64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .filter(|f: &f64| f.is_finite() && *f >= 0.0)
                .ok_or_else(|| bad(k, "a number ≥ 0", v)),
        }
    }
}

/// A `BadKey` error: `k` should have been `expected`.
pub(super) fn bad(k: &str, expected: &str, got: &Value) -> SessionError {
    SessionError::BadKey {
        key: k.to_owned(),
        message: format!("expected {expected}, got {got}"),
    }
}

/// `SCREENSHOT_FORMAT` (png | jpeg | webp, default png),
/// `SCREENSHOT_JPEG_QUALITY` (1–100, default 85) and `SCREENSHOT_MAX_SIDE`
/// (pixels, default 0: the screenshot's own size): how the AppAgent's
/// screenshots are sent to the model.
pub(super) fn model_image(
    keys: &Keys<'_>,
) -> Result<ufo_desktop::encode::ModelImage, SessionError> {
    let d = ufo_desktop::encode::ModelImage::default();
    let format = match keys.get("SCREENSHOT_FORMAT") {
        None | Some(Value::Null) => d.format,
        Some(Value::String(f)) => f.parse().map_err(|message| SessionError::BadKey {
            key: "SCREENSHOT_FORMAT".into(),
            message,
        })?,
        Some(other) => return Err(bad("SCREENSHOT_FORMAT", "png, jpeg or webp", other)),
    };
    let quality = keys.uint("SCREENSHOT_JPEG_QUALITY", u64::from(d.quality))?;
    if !(1..=100).contains(&quality) {
        return Err(SessionError::BadKey {
            key: "SCREENSHOT_JPEG_QUALITY".into(),
            message: format!("is {quality}; it must be between 1 and 100"),
        });
    }
    let max_side = keys.uint("SCREENSHOT_MAX_SIDE", 0)?;
    if max_side != 0 && !(64..=16_384).contains(&max_side) {
        return Err(SessionError::BadKey {
            key: "SCREENSHOT_MAX_SIDE".into(),
            message: format!(
                "is {max_side}; use 0 (the screenshot's own size) or 64 to 16384 pixels"
            ),
        });
    }
    Ok(ufo_desktop::encode::ModelImage {
        format,
        quality: quality as u8,
        png: ufo_desktop::encode::PngCompression::from_ufo_level(
            u8::try_from(keys.uint("DEFAULT_PNG_COMPRESS_LEVEL", 1)?).unwrap_or(1),
        ),
        max_side: (max_side != 0).then_some(max_side as u32),
    })
}
