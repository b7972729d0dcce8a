//! Checkers over application settings: a JSON settings file holding given
//! keys (OSWorld `vscode.py` `check_json_settings`), an extension list
//! containing a name (`is_extension_installed`) and a GIMP configuration
//! file holding a `(key … value)` line (`gimp.py` `check_config_status`).

use serde_json::Value;

use super::{CheckError, Cx, Got, py_contains, py_eq};

/// `check_json_settings`: the result file parses as JSON and holds every
/// key of `rules.expected` with an equal value (Python `==`). A result
/// that is not a JSON object, or a file that cannot be read or parsed,
/// scores 0.
pub(super) fn check_json_settings(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let bytes = match cx.result {
        Got::File(p) => match std::fs::read(p) {
            Ok(b) => b,
            Err(_) => return Ok(0.0),
        },
        Got::Text(t) if t.is_empty() => return Ok(0.0),
        Got::Text(t) => t.clone().into_bytes(),
        Got::Json(_) | Got::Missing => return Ok(0.0),
    };
    let Ok(data) = serde_json::from_slice::<Value>(&bytes) else {
        return Ok(0.0);
    };
    let expected = cx
        .rule_expected()?
        .as_object()
        .ok_or_else(|| cx.bad("rules.expected must be an object of settings"))?;
    if expected.is_empty() {
        return Ok(1.0);
    }
    let Value::Object(data) = data else {
        // Python's `key in data` on a list or string, then `data[key]`,
        // raises or is false: no score either way.
        return Ok(0.0);
    };
    let all = expected
        .iter()
        .all(|(k, want)| data.get(k).is_some_and(|got| py_eq(got, want)));
    Ok(f64::from(u8::from(all)))
}

/// `is_extension_installed`: with `rules.type` `contain`, `rules.expected`
/// is in the result (a substring of text, an item of a list); with
/// `not_contain`, it is not. Another type is refused.
pub(super) fn is_extension_installed(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let rules = cx.rules()?;
    let want = rules
        .get("expected")
        .ok_or_else(|| cx.bad("rules have no \"expected\""))?;
    let actual = match cx.result {
        Got::Text(t) => Value::String(t.clone()),
        Got::File(p) => Value::String(p.display().to_string()),
        Got::Json(v) => v.clone(),
        Got::Missing => return Ok(0.0),
    };
    let comparable = matches!(
        (&actual, want),
        (Value::String(_), Value::String(_)) | (Value::Array(_), _) | (Value::Object(_), _)
    );
    let contains = || -> Result<bool, CheckError> {
        if comparable {
            Ok(py_contains(&actual, want))
        } else {
            Err(cx.bad("cannot look for this value in the result"))
        }
    };
    match rules.get("type").and_then(Value::as_str) {
        Some("contain") => Ok(f64::from(u8::from(contains()?))),
        Some("not_contain") => Ok(f64::from(u8::from(!contains()?))),
        _ => Err(cx.bad("rules.type must be \"contain\" or \"not_contain\"")),
    }
}

/// Python's `str.isspace` for one character.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `check_config_status`: some line of the configuration file (not a
/// comment, not empty), stripped of its parentheses and split on white
/// space, starts with `rules.key` (a string, or a list of two: the first
/// two words) and ends with `rules.value`. Lines are read as Python's text
/// mode reads them (`\r\n` and `\r` end lines); a blank line of spaces is
/// refused, as OSWorld's function raises on it.
pub(super) fn check_config_status(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = match cx.result {
        Got::File(p) => p.clone(),
        Got::Text(t) => t.into(),
        Got::Json(_) | Got::Missing => return Ok(0.0),
    };
    let rules = cx.rules()?;
    let bytes = std::fs::read(&path)
        .map_err(|e| cx.bad_because(format!("cannot read {}", path.display()), e))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| cx.bad_because(format!("{} is not UTF-8", path.display()), e))?;
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let value = || {
        rules
            .get("value")
            .ok_or_else(|| cx.bad("rules have no \"value\""))
    };
    for line in text.split_inclusive('\n') {
        if line.starts_with('#') || line == "\n" {
            continue;
        }
        let items: Vec<&str> = line
            .trim_matches(py_space)
            .trim_start_matches('(')
            .trim_end_matches([')', '\n'])
            .split(py_space)
            .filter(|w| !w.is_empty())
            .collect();
        let key = rules
            .get("key")
            .ok_or_else(|| cx.bad("rules have no \"key\""))?;
        let words = || match (items.first(), items.last()) {
            (Some(first), Some(last)) => Ok((*first, *last)),
            _ => Err(cx.bad("a blank line that is not empty (OSWorld's function raises)")),
        };
        let hit = match key {
            Value::String(k) => {
                let (first, last) = words()?;
                first == k && value()?.as_str() == Some(last)
            }
            Value::Array(keys) if keys.len() == 2 => {
                let (first, last) = words()?;
                if keys[0].as_str() != Some(first) {
                    false
                } else {
                    let Some(second) = items.get(1) else {
                        return Err(cx.bad("a one-word line (OSWorld's function raises)"));
                    };
                    keys[1].as_str() == Some(*second) && value()?.as_str() == Some(last)
                }
            }
            _ => false,
        };
        if hit {
            return Ok(1.0);
        }
    }
    Ok(0.0)
}
