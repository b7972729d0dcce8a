//! Checkers over records and values: CSV rows, JSON/YAML documents, JSON
//! objects and directory listings (OSWorld `general.py`, `basic_os.py`,
//! `utils._match_value_to_rule`).

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::text::compile;
use super::{CheckError, Cx, Got, py_contains, py_eq, same_names, string_list};

/// The rules under `key` (absent: none); each must be a JSON object.
fn rule_objects<'a>(
    cx: &Cx<'_>,
    rules: &'a Value,
    key: &str,
) -> Result<Vec<&'a Map<String, Value>>, CheckError> {
    match rules.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|r| {
                r.as_object()
                    .ok_or_else(|| cx.bad(format!("each rules.{key} entry must be an object")))
            })
            .collect(),
        Some(_) => Err(cx.bad(format!("rules.{key} must be a list"))),
    }
}

/// `check_csv`: reads the result as CSV with a header row; every
/// `rules.expect` record pattern (`{column: value}`) matches some row and no
/// `rules.unexpect` pattern matches any row.
pub(super) fn check_csv(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let rules = cx.rules()?;
    let expect = rule_objects(cx, rules, "expect")?;
    let unexpect = rule_objects(cx, rules, "unexpect")?;
    let Some(text) = cx.result_text() else {
        return Ok(false);
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let Ok(headers) = reader.headers().cloned() else {
        return Ok(false);
    };
    let headers: Vec<&str> = headers.iter().collect();
    let mut rows = Vec::new();
    for row in reader.records() {
        match row {
            Ok(r) => rows.push(r),
            Err(_) => return Ok(false),
        }
    }
    // A pattern matches a row when each of its columns holds that string (a
    // repeated header name means its last column, as in `csv.DictReader`).
    let matches = |pattern: &Map<String, Value>, row: &csv::StringRecord| {
        pattern.iter().all(|(col, want)| {
            headers
                .iter()
                .rposition(|h| h == col)
                .and_then(|i| row.get(i))
                .is_some_and(|got| want.as_str() == Some(got))
        })
    };
    let found = expect.iter().all(|p| rows.iter().any(|r| matches(p, r)));
    let clean = !unexpect.iter().any(|p| rows.iter().any(|r| matches(p, r)));
    Ok(found && clean)
}

/// Follows `rule.key` (object keys as strings, list indices as integers).
fn lookup<'a>(doc: &'a Value, keys: &[Value]) -> Option<&'a Value> {
    keys.iter().try_fold(doc, |v, k| match (v, k) {
        (Value::Object(m), Value::String(s)) => m.get(s),
        (Value::Array(a), Value::Number(n)) => {
            let i = n.as_i64()?;
            let i = if i < 0 {
                a.len().checked_sub(i.unsigned_abs() as usize)?
            } else {
                i as usize
            };
            a.get(i)
        }
        _ => None,
    })
}

/// `check_json`: loads the result as JSON (YAML with option `is_yaml`); for
/// each `rules.expect` entry `{key: [path…], method, ref}` the value at the
/// path must satisfy the method (a missing path fails); for each
/// `rules.unexpect` entry it must not (a missing path counts as null).
pub(super) fn check_json(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let is_yaml = cx.opt_bool("is_yaml", false)?;
    let rules = cx.rules()?;
    let expect = rule_objects(cx, rules, "expect")?;
    let unexpect = rule_objects(cx, rules, "unexpect")?;
    let keys = |r: &Map<String, Value>| -> Result<Vec<Value>, CheckError> {
        r.get("key")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| cx.bad("each rule needs \"key\": a list of keys"))
    };
    let doc = match cx.result {
        Got::Json(v) if !v.is_string() => Some(v.clone()),
        _ => cx.result_text().and_then(|t| {
            if is_yaml {
                serde_saphyr::from_str::<Value>(&t).ok()
            } else {
                serde_json::from_str::<Value>(&t).ok()
            }
        }),
    };
    let mut ok = doc.is_some();
    let null = Value::Null;
    for r in &expect {
        let path = keys(r)?;
        let value = doc.as_ref().and_then(|d| lookup(d, &path));
        // Evaluate the rule even after a failure, so a bad rule is reported.
        let hit = match_value(cx, value.unwrap_or(&null), r)?;
        ok = ok && value.is_some() && hit;
    }
    for r in &unexpect {
        let path = keys(r)?;
        let value = doc.as_ref().and_then(|d| lookup(d, &path)).unwrap_or(&null);
        ok = ok && !match_value(cx, value, r)?;
    }
    Ok(ok)
}

/// Python's ordering of two JSON values, where one exists.
fn py_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(_) | Value::Bool(_), Value::Number(_) | Value::Bool(_)) => {
            as_number(a)?.partial_cmp(&as_number(b)?)
        }
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q);
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

/// A number or bool as f64 (Python's `True == 1`).
fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// OSWorld's `_match_value_to_rule`: `method` is `re[.FLAG…]` (regex search;
/// flags I, M, S, X and their long names), `eq`/`ne`/`lt`/`le`/`gt`/`ge`,
/// `approx:TOL` (|value − ref| ≤ TOL), `range.XY` (X, Y each `t` for strict
/// or `e` for inclusive bounds `ref[0]`, `ref[1]`), `str_list_eq` or
/// `str_set_eq` (the value split on commas). Values the method cannot
/// compare do not match.
pub(super) fn match_value(
    cx: &Cx<'_>,
    value: &Value,
    rule: &Map<String, Value>,
) -> Result<bool, CheckError> {
    let method = rule
        .get("method")
        .and_then(Value::as_str)
        .ok_or_else(|| cx.bad("each rule needs a string \"method\""))?;
    let reference = rule.get("ref").unwrap_or(&Value::Null);
    if method == "re" || method.starts_with("re.") {
        let mut flags = String::new();
        for flag in method.split('.').skip(1) {
            let f = match flag {
                "I" | "IGNORECASE" => "i",
                "M" | "MULTILINE" => "m",
                "S" | "DOTALL" => "s",
                "X" | "VERBOSE" => "x",
                "U" | "UNICODE" | "A" | "ASCII" => "",
                other => return Err(cx.bad(format!("regex flag {other:?} is not supported"))),
            };
            flags.push_str(f);
        }
        let pattern = reference
            .as_str()
            .ok_or_else(|| cx.bad(format!("method {method}: ref must be a string pattern")))?;
        let pattern = if flags.is_empty() {
            pattern.to_owned()
        } else {
            format!("(?{flags}){pattern}")
        };
        let re = compile(cx, &pattern)?;
        return Ok(value.as_str().is_some_and(|s| re.is_match(s)));
    }
    if let Some(tol) = method.strip_prefix("approx:") {
        let tol: f64 = tol
            .trim()
            .parse()
            .map_err(|_| cx.bad(format!("method {method}: bad tolerance")))?;
        let reference = as_number(reference)
            .ok_or_else(|| cx.bad(format!("method {method}: ref must be a number")))?;
        let v = match value {
            Value::String(s) => s.trim().parse::<f64>().ok(),
            other => as_number(other),
        };
        return Ok(v.is_some_and(|v| (v - reference).abs() <= tol));
    }
    if let Some(bounds) = method.strip_prefix("range.") {
        let mut chars = bounds.chars();
        let (Some(lo), Some(hi), None) = (chars.next(), chars.next(), chars.next()) else {
            return Err(cx.bad(format!(
                "method {method}: expected range.XY with X, Y in t/e"
            )));
        };
        let Some([low, high]) = reference
            .as_array()
            .and_then(|a| <&[Value; 2]>::try_from(a.as_slice()).ok())
        else {
            return Err(cx.bad(format!("method {method}: ref must be [low, high]")));
        };
        let below = |strict: char, a: &Value, b: &Value| -> Result<bool, CheckError> {
            let ord = py_cmp(a, b);
            match strict {
                't' => Ok(ord == Some(Ordering::Less)),
                'e' => Ok(matches!(ord, Some(Ordering::Less | Ordering::Equal))),
                other => Err(cx.bad(format!("method {method}: bound {other:?} is not t or e"))),
            }
        };
        return Ok(below(lo, low, value)? & below(hi, value, high)?);
    }
    match method {
        "eq" => Ok(py_eq(value, reference)),
        "ne" => Ok(!py_eq(value, reference)),
        "lt" => Ok(py_cmp(value, reference) == Some(Ordering::Less)),
        "le" => Ok(matches!(
            py_cmp(value, reference),
            Some(Ordering::Less | Ordering::Equal)
        )),
        "gt" => Ok(py_cmp(value, reference) == Some(Ordering::Greater)),
        "ge" => Ok(matches!(
            py_cmp(value, reference),
            Some(Ordering::Greater | Ordering::Equal)
        )),
        "str_list_eq" | "str_set_eq" => {
            let reference = string_list(reference)
                .ok_or_else(|| cx.bad(format!("method {method}: ref must be a list of strings")))?;
            let Some(s) = value.as_str() else {
                return Ok(false);
            };
            let mut got: Vec<String> = s
                .trim_matches(['"', '\''])
                .split(',')
                .map(str::to_owned)
                .collect();
            let mut want = reference;
            if method == "str_set_eq" {
                got.sort();
                got.dedup();
                want.sort();
                want.dedup();
            }
            Ok(got == want)
        }
        other => Err(cx.bad(format!("method {other:?} is not supported"))),
    }
}

/// `check_direct_json_object`: the result (a JSON value, or text parsed as
/// JSON after trimming and turning `'` into `"`; text that does not parse
/// is refused, as OSWorld's function raises) against `rules.expected`, an
/// object. Any expected value `"__EVALUATION_FAILED__"` scores 0. Without
/// `rules.expect_in_result`, each expected key's value equals the result's
/// (Python `==`; with the key `ignore_list_order` truthy in `expected`,
/// both values sorted first). With it, a list expectation needs one of its
/// items in the result's list, or equal to the result's string; a string
/// expectation must be in the result's value; anything else scores 0.
/// Whatever Python would raise on inside the comparison (a result that is
/// not an object, values it cannot sort) scores 0, as OSWorld's catches it.
pub(super) fn check_direct_json_object(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let rules = cx.rules()?;
    let rules = rules
        .as_object()
        .ok_or_else(|| cx.bad("rules must be a JSON object"))?;
    let result = match cx.result {
        Got::Json(v) if !v.is_string() => v.clone(),
        _ => {
            let text = cx.result_text().unwrap_or_default();
            serde_json::from_str::<Value>(&text.trim().replace('\'', "\""))
                .map_err(|e| cx.bad_because("the result is not JSON", e))?
        }
    };
    if result.is_null() {
        return Ok(0.0);
    }
    let expected = rules.get("expected");
    if let Some(e) = expected.filter(|e| super::py_truthy(e)) {
        let Some(e) = e.as_object() else {
            return Ok(0.0);
        };
        if e.values()
            .any(|v| v.as_str() == Some("__EVALUATION_FAILED__"))
        {
            return Ok(0.0);
        }
    }
    let in_result = rules.get("expect_in_result").is_some_and(super::py_truthy);
    let Some(expected) = expected.and_then(Value::as_object) else {
        return Ok(0.0);
    };
    if expected.is_empty() {
        return Ok(1.0);
    }
    let Value::Object(result) = result else {
        return Ok(0.0);
    };
    let null = Value::Null;
    let ordered = expected
        .get("ignore_list_order")
        .is_some_and(super::py_truthy);
    for (key, want) in expected {
        let got = result.get(key).unwrap_or(&null);
        let ok = if !in_result {
            if ordered {
                match (py_sorted(want), py_sorted(got)) {
                    (Some(x), Some(y)) => {
                        x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| py_eq(p, q))
                    }
                    _ => false,
                }
            } else {
                py_eq(want, got)
            }
        } else {
            match want {
                Value::Array(options) => options.iter().any(|o| match got {
                    Value::Array(_) => py_contains(got, o),
                    Value::String(_) => py_eq(o, got),
                    _ => false,
                }),
                Value::String(_) => py_contains(got, want),
                _ => false,
            }
        };
        if !ok {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// Python's `sorted()` of a JSON value where it can sort it: a list of
/// strings or of numbers, a string's characters; `None` where Python
/// raises.
fn py_sorted(v: &Value) -> Option<Vec<Value>> {
    let mut items: Vec<Value> = match v {
        Value::Array(a) => a.clone(),
        Value::String(s) => s.chars().map(|c| Value::String(c.into())).collect(),
        Value::Object(m) => m.keys().map(|k| Value::String(k.clone())).collect(),
        _ => return None,
    };
    if items.iter().all(Value::is_string) {
        items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    } else if items.iter().all(|x| as_number(x).is_some()) {
        items.sort_by(|a, b| {
            as_number(a)
                .partial_cmp(&as_number(b))
                .unwrap_or(Ordering::Equal)
        });
    } else {
        return None;
    }
    Some(items)
}

/// `check_moved_jpgs`: the directory listing (`{"children": [{"name": …}]}`)
/// holds exactly the files of `rules.expected`, in any order.
pub(super) fn check_moved_jpgs(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    let mut want =
        string_list(expected).ok_or_else(|| cx.bad("rules.expected must be a list of strings"))?;
    let Got::Json(listing) = cx.result else {
        return Ok(false);
    };
    let Some(children) = listing.get("children").and_then(Value::as_array) else {
        return Ok(false);
    };
    let Some(mut got) = children
        .iter()
        .map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(false);
    };
    Ok(same_names(&mut got, &mut want))
}
