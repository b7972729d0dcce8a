//! Chrome checks on what its getters read (OSWorld `chrome.py`): cookies
//! and history deleted, experiments enabled, the default font size,
//! desktop shortcuts, a Steam cart page's content. Inputs are the
//! getters' JSON: rows of the cookie and history databases (lists), a
//! list of experiment names, objects of settings, shortcut files by path
//! and tab information.

use serde_json::Value;

use super::browser::url_eq;
use super::{CheckError, Cx, Got, py_contains, py_eq};

/// A 0/1 score.
fn score(passed: bool) -> Result<f64, CheckError> {
    Ok(f64::from(u8::from(passed)))
}

/// The result as JSON (text as a string).
fn result(cx: &Cx<'_>) -> Result<Value, CheckError> {
    match cx.result {
        Got::Json(v) => Ok(v.clone()),
        Got::Text(t) => Ok(Value::String(t.clone())),
        Got::File(_) | Got::Missing => Err(cx.bad("the result must be JSON")),
    }
}

/// `rules[key]`; a missing key is refused (OSWorld's `rule[key]` raises).
fn rule<'c>(cx: &'c Cx<'_>, key: &str) -> Result<&'c Value, CheckError> {
    cx.rules()?
        .as_object()
        .ok_or_else(|| cx.bad("rules must be a JSON object"))?
        .get(key)
        .ok_or_else(|| cx.bad(format!("rules have no {key:?}")))
}

/// `rules.type`, which must be `want` (OSWorld raises on another).
fn expect_type(cx: &Cx<'_>, want: &str) -> Result<(), CheckError> {
    let kind = rule(cx, "type")?;
    if kind.as_str() == Some(want) {
        Ok(())
    } else {
        Err(cx.bad(format!(
            "rules.type {kind} is not supported (OSWorld raises)"
        )))
    }
}

/// Python's iteration of a JSON value: a list's items, a string's
/// characters, an object's keys.
fn py_iter(cx: &Cx<'_>, v: &Value) -> Result<Vec<Value>, CheckError> {
    match v {
        Value::Array(a) => Ok(a.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.into())).collect()),
        Value::Object(m) => Ok(m.keys().map(|k| Value::String(k.clone())).collect()),
        other => Err(cx.bad(format!("{other} is not iterable"))),
    }
}

/// Python's `row[i]` of a list or string row.
fn column(cx: &Cx<'_>, row: &Value, i: usize) -> Result<Value, CheckError> {
    match row {
        Value::Array(a) => a.get(i).cloned(),
        Value::String(s) => s.chars().nth(i).map(|c| Value::String(c.into())),
        _ => None,
    }
    .ok_or_else(|| cx.bad(format!("a row without item {i} (OSWorld raises)")))
}

/// Python's `needle in haystack`, refusing the pairs Python raises on.
fn contains(cx: &Cx<'_>, haystack: &Value, needle: &Value) -> Result<bool, CheckError> {
    match (haystack, needle) {
        (Value::String(_), Value::String(_)) | (Value::Array(_), _) => {
            Ok(py_contains(haystack, needle))
        }
        (Value::Object(m), Value::String(k)) => Ok(m.contains_key(k)),
        (Value::Object(_), Value::Number(_) | Value::Bool(_) | Value::Null) => Ok(false),
        _ => Err(cx.bad(format!("`{needle} in {haystack}` raises in Python"))),
    }
}

/// `is_cookie_deleted`: with `rules.type` `domains`, no cookie's domain
/// (each row's second column) is the same URL as one of `rules.domains`
/// (OSWorld's `compare_urls`).
pub(super) fn is_cookie_deleted(cx: &Cx<'_>) -> Result<f64, CheckError> {
    expect_type(cx, "domains")?;
    let data = result(cx)?;
    let domains: Vec<Value> = py_iter(cx, &data)?
        .iter()
        .map(|row| column(cx, row, 1))
        .collect::<Result<_, _>>()?;
    for domain in py_iter(cx, rule(cx, "domains")?)? {
        for cookie in &domains {
            if url_eq(cx, &domain, cookie)? {
                return Ok(0.0);
            }
        }
    }
    Ok(1.0)
}

/// `check_history_deleted`: with `rules.type` `keywords`, no history
/// entry's URL (each row's first column) contains one of `rules.keywords`.
pub(super) fn check_history_deleted(cx: &Cx<'_>) -> Result<f64, CheckError> {
    expect_type(cx, "keywords")?;
    let data = result(cx)?;
    let urls: Vec<Value> = py_iter(cx, &data)?
        .iter()
        .map(|row| column(cx, row, 0))
        .collect::<Result<_, _>>()?;
    for keyword in py_iter(cx, rule(cx, "keywords")?)? {
        for url in &urls {
            if contains(cx, url, &keyword)? {
                return Ok(0.0);
            }
        }
    }
    Ok(1.0)
}

/// `check_enabled_experiments`: with `rules.type` `names`, the enabled
/// experiments' names (each cut at its first `@`) are `rules.names`, in
/// order.
pub(super) fn check_enabled_experiments(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let data = result(cx)?;
    let names: Vec<Value> = py_iter(cx, &data)?
        .iter()
        .map(|e| {
            e.as_str()
                .map(|s| Value::String(s.split('@').next().unwrap_or("").to_owned()))
                .ok_or_else(|| cx.bad("an experiment that is not a string"))
        })
        .collect::<Result<_, _>>()?;
    expect_type(cx, "names")?;
    score(py_eq(&Value::Array(names), rule(cx, "names")?))
}

/// Python's `a < b` for numbers or strings; `None` where it raises.
fn py_lt(a: &Value, b: &Value) -> Option<bool> {
    let num = |v: &Value| match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    match (a, b) {
        (Value::String(x), Value::String(y)) => Some(x < y),
        _ => Some(num(a)? < num(b)?),
    }
}

/// `check_font_size`: the settings' `default_font_size` equals
/// `rules.value` (type `value`), or lies strictly between `rules.min` and
/// `rules.max` (type `range`).
pub(super) fn check_font_size(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let data = result(cx)?;
    let size = data
        .as_object()
        .and_then(|m| m.get("default_font_size"))
        .ok_or_else(|| cx.bad("no default_font_size (OSWorld raises)"))?;
    match rule(cx, "type")?.as_str() {
        Some("value") => score(py_eq(size, rule(cx, "value")?)),
        Some("range") => {
            // Python's chained comparison reads `max` only when `min < size`.
            let min = rule(cx, "min")?;
            let lower = py_lt(min, size).ok_or_else(|| cx.bad("values that do not compare"))?;
            if !lower {
                return Ok(0.0);
            }
            let max = rule(cx, "max")?;
            let upper = py_lt(size, max).ok_or_else(|| cx.bad("values that do not compare"))?;
            score(upper)
        }
        _ => Err(cx.bad("rules.type is not supported (OSWorld raises)")),
    }
}

/// `is_shortcut_on_desktop`: some desktop file (by path) has a line
/// `Name=<rules.name>` (type `name`) or `Exec=<rules.exec>` (type `exec`)
/// ending in a newline.
pub(super) fn is_shortcut_on_desktop(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let (prefix, key) = match rule(cx, "type")?.as_str() {
        Some("name") => ("Name=", "name"),
        Some("exec") => ("Exec=", "exec"),
        _ => return Err(cx.bad("rules.type is not supported (OSWorld raises)")),
    };
    let data = result(cx)?;
    let files = data
        .as_object()
        .ok_or_else(|| cx.bad("the shortcuts must be an object of files"))?;
    // OSWorld builds the line inside its loop: no files, no rule read.
    for content in files.values() {
        let value = rule(cx, key)?
            .as_str()
            .ok_or_else(|| cx.bad(format!("rules.{key} must be a string")))?;
        let line = format!("{prefix}{value}\n");
        let content = content
            .as_str()
            .ok_or_else(|| cx.bad("a shortcut whose content is not text"))?;
        if content.contains(&line) {
            return Ok(1.0);
        }
    }
    Ok(0.0)
}

/// `is_added_to_steam_cart`: every one of `rules.items` is in the active
/// tab's `content`.
pub(super) fn is_added_to_steam_cart(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let items = rule(cx, "items")?;
    let data = result(cx)?;
    let content = data
        .as_object()
        .and_then(|m| m.get("content"))
        .ok_or_else(|| cx.bad("the tab information has no content (OSWorld raises)"))?;
    for item in py_iter(cx, items)? {
        if !contains(cx, content, &item)? {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}
