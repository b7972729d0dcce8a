//! Checkers over application settings: a JSON settings file holding given
//! keys (OSWorld `vscode.py` `check_json_settings`), a keybindings list
//! holding an entry (`check_json_keybindings`), an extension list
//! containing a name (`is_extension_installed`) and a GIMP configuration
//! file holding a `(key … value)` line (`gimp.py` `check_config_status`),
//! Thunderbird's `prefs.js` against rules (`thunderbird.py`
//! `check_thunderbird_prefs`).

use serde_json::Value;

use super::structured::match_value;
use super::text::compile_plain;
use super::{CheckError, Cx, Got, py_contains, py_eq, py_space};

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

/// `check_config_status`: some line of the configuration file (not a
/// comment, not empty), stripped of its parentheses and split on white
/// space, starts with `rules.key` (a string, or a list of two: the first
/// two words) and ends with `rules.value`. Lines are read as Python's text
/// mode reads them (`\r\n` and `\r` end lines); a blank line of spaces is
/// refused, as OSWorld's function raises on it.
pub(super) fn check_config_status(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = cx.result_path() else {
        return Ok(0.0);
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

/// `check_thunderbird_prefs`: reads `user_pref("key", value);` lines of the
/// result file (each value parsed as JSON); every key of `rules.expect`
/// must occur and its last value match its rule (`method`/`ref`, as in
/// `check_json`), and no value of a key of `rules.unexpect` may match its
/// rule. A value that is not JSON is refused (OSWorld's function raises).
pub(super) fn check_thunderbird_prefs(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = cx.result_path() else {
        return Ok(0.0);
    };
    let rules = cx.rules()?;
    let section = |key: &str| -> Result<serde_json::Map<String, Value>, CheckError> {
        match rules.get(key) {
            None => Ok(serde_json::Map::new()),
            Some(Value::Object(m)) => Ok(m.clone()),
            Some(_) => Err(cx.bad(format!("rules.{key} must be an object of rules"))),
        }
    };
    let (expect, unexpect) = (section("expect")?, section("unexpect")?);
    let text = std::fs::read(&path)
        .map_err(|e| cx.bad_because(format!("cannot read {}", path.display()), e))
        .and_then(|b| {
            String::from_utf8(b)
                .map_err(|e| cx.bad_because(format!("{} is not UTF-8", path.display()), e))
        })?;
    let pattern = compile_plain(
        cx,
        r#"^user_pref\("(?P<key>(?:[^"]|\\")+)", (?P<val>.+)\);$"#,
    )?;
    let mut found: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let mut clean = true;
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    for line in text.split('\n') {
        let Some(m) = pattern.captures(line.trim_matches(py_space)) else {
            continue;
        };
        let (key, val) = (&m["key"], &m["val"]);
        let in_expect = expect.get(key);
        let in_unexpect = unexpect.get(key);
        // OSWorld parses every matching line's value, wanted or not.
        let value: Value = serde_json::from_str(val)
            .map_err(|e| cx.bad_because(format!("pref {key}: value {val:?} is not JSON"), e))?;
        let rule_of = |r: &Value| {
            r.as_object()
                .cloned()
                .ok_or_else(|| cx.bad(format!("the rule for {key} must be an object")))
        };
        if let Some(r) = in_expect {
            found.insert(key.to_owned(), match_value(cx, &value, &rule_of(r)?)?);
        } else if let Some(r) = in_unexpect {
            clean = clean && !match_value(cx, &value, &rule_of(r)?)?;
        }
    }
    let all = expect
        .keys()
        .all(|k| found.get(k).copied().unwrap_or(false));
    Ok(f64::from(u8::from(all && clean)))
}

/// `check_json_keybindings`: the result file is a JSON list (read whole,
/// or, failing that, after its first line — VS Code writes a comment
/// there), and `rules.expected` is one of its items (Python `in`: equal
/// by value). A file that is neither scores 0.
pub(super) fn check_json_keybindings(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = cx.result_path() else {
        return Ok(0.0);
    };
    let Some(text) = std::fs::read(&path)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
    else {
        return Ok(0.0);
    };
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let rest = text.split_once('\n').map_or("", |(_, rest)| rest);
    let list =
        [text.as_str(), rest]
            .into_iter()
            .find_map(|t| match serde_json::from_str::<Value>(t) {
                Ok(Value::Array(items)) => Some(items),
                _ => None,
            });
    let Some(items) = list else {
        return Ok(0.0);
    };
    let want = cx.rule_expected()?;
    Ok(f64::from(u8::from(items.iter().any(|i| py_eq(i, want)))))
}
