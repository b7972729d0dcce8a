//! Thunderbird's message filters and folders (OSWorld `thunderbird.py`).

use serde_json::{Map, Value};

use super::text::compile_plain;
use super::{CheckError, Cx, Got, py_eq, py_space, py_truthy};

/// A file's text as Python's text mode reads it (UTF-8, newlines
/// translated); `Err` where Python raises.
fn read_text_mode(cx: &Cx<'_>, path: &std::path::Path) -> Result<String, CheckError> {
    let bytes = std::fs::read(path)
        .map_err(|e| cx.bad_because(format!("cannot read {}", path.display()), e))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| cx.bad_because(format!("{} is not UTF-8", path.display()), e))?;
    Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// `check_thunderbird_filter`: reads `msgFilterRules.dat` into filters
/// (`name`, `enabled`, `type`, `action`, `actionValue` as strings — the
/// quotes cut off by position, `\"` and `\\` unescaped — and `condition`
/// as the list of its `AND (…)`/`OR (…)`/`ALL` terms; a filter counts once
/// its `condition` line is read). Every `rules.expect` record must match
/// some filter (each of its keys present and equal) and no
/// `rules.unexpect` record any. A line of a filter before any `name=` is
/// refused, as OSWorld's function raises on it.
pub(super) fn check_thunderbird_filter(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = cx.result_path() else {
        return Ok(0.0);
    };
    let rules = cx.rules()?;
    let records = |key: &str| -> Result<Vec<Map<String, Value>>, CheckError> {
        match rules.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|r| {
                    r.as_object()
                        .cloned()
                        .ok_or_else(|| cx.bad(format!("each rules.{key} entry must be an object")))
                })
                .collect(),
            Some(_) => Err(cx.bad(format!("rules.{key} must be a list"))),
        }
    };
    let (expect, unexpect) = (records("expect")?, records("unexpect")?);
    let text = read_text_mode(cx, &path)?;
    let condition = compile_plain(
        cx,
        r#"\b(?:AND|OR) \((?:[\w ]+),(?:[\w ']+),(?:"(?:(?:[^"]|")+)"|(?:[^)]+))\)|\bALL\b"#,
    )?;
    let unescape = |s: &str| s.replace("\\\"", "\"").replace("\\\\", "\\");
    // Python's `l[a:-2]` on a line that keeps its newline.
    let cut = |line: &str, from: usize| -> String {
        let chars: Vec<char> = line.chars().collect();
        let end = chars.len().saturating_sub(2);
        if from >= end {
            String::new()
        } else {
            chars[from..end].iter().collect()
        }
    };
    let mut filters: Vec<Map<String, Value>> = Vec::new();
    let mut current: Option<Map<String, Value>> = None;
    for line in text.split_inclusive('\n') {
        let field = [
            ("name=", "name", 6),
            ("enabled=", "enabled", 9),
            ("type=", "type", 6),
            ("action=", "action", 8),
            ("actionValue=", "actionValue", 13),
            ("condition=", "condition", 11),
        ]
        .into_iter()
        .find(|(prefix, _, _)| line.starts_with(prefix));
        let Some((_, key, from)) = field else {
            continue;
        };
        let value = unescape(&cut(line, from));
        if key == "name" {
            current = Some(Map::new());
        }
        let filter = current.as_mut().ok_or_else(|| {
            cx.bad(format!(
                "{key}= before any filter's name= (OSWorld's function raises)"
            ))
        })?;
        if key == "condition" {
            let terms = condition
                .find_iter(&value)
                .map(|m| Value::String(m.as_str().to_owned()))
                .collect();
            filter.insert(key.to_owned(), Value::Array(terms));
            filters.push(filter.clone());
        } else {
            filter.insert(key.to_owned(), Value::String(value));
        }
    }
    let matches = |pattern: &Map<String, Value>, item: &Map<String, Value>| {
        pattern
            .iter()
            .all(|(k, v)| item.get(k).is_some_and(|x| py_eq(x, v)))
    };
    let found = expect.iter().all(|p| filters.iter().any(|f| matches(p, f)));
    let clean = !unexpect
        .iter()
        .any(|p| filters.iter().any(|f| matches(p, f)));
    Ok(f64::from(u8::from(found && clean)))
}

/// `check_thunderbird_folder`, as OSWorld's code behaves: each file's text
/// (stripped) is split on `FROM - `, and — because its loop skips every
/// piece that is *not* blank — only the blank pieces become "messages",
/// each the bare `FROM - ` (one at most with `remove_duplicate`, the
/// default). Two folders are equal when they have as many blank pieces
/// (or, by default, both have some or both none): any two non-empty
/// Thunderbird folders written with `From - ` score 1. A list of files is
/// compared pair by pair.
pub(super) fn check_thunderbird_folder(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let dedup = cx.options.get("remove_duplicate").is_none_or(py_truthy);
    let paths = |g: Option<&Got>| -> Option<Vec<Option<std::path::PathBuf>>> {
        match g? {
            Got::File(p) => Some(vec![Some(p.clone())]),
            Got::Text(t) => Some(vec![Some(t.into())]),
            Got::Json(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|i| i.as_str().map(std::path::PathBuf::from))
                    .collect(),
            ),
            _ => None,
        }
    };
    let (Some(results), Some(golds)) = (paths(Some(cx.result)), paths(cx.expected)) else {
        return Ok(0.0);
    };
    let read = |p: &std::path::Path| -> Result<usize, CheckError> {
        let text = read_text_mode(cx, p)?;
        let blank = text
            .trim_matches(py_space)
            .split("FROM - ")
            .filter(|piece| piece.trim_matches(py_space).is_empty())
            .count();
        Ok(if dedup { blank.min(1) } else { blank })
    };
    for (pred, gold) in results.iter().zip(&golds) {
        let Some(pred) = pred else {
            return Ok(0.0);
        };
        let gold = gold
            .as_ref()
            .ok_or_else(|| cx.bad("an expected folder file is not a path"))?;
        if read(pred)? != read(gold)? {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}
