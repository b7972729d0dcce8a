//! Checking an extracted reply against the agent's response type.
//!
//! The response type is a serde struct deriving `schemars::JsonSchema`. The JSON is
//! first checked against the generated schema by a small validator (types,
//! required and unexpected fields, enums, arrays, `$ref`, `anyOf`/`oneOf`) so the
//! error names the exact field — `$.action[0].function: expected string, got
//! number 3` — which the agent can send back to the model when it re-asks. Then it
//! is deserialised.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::LlmError;
use crate::extract::{ExtractOptions, Extracted, extract_json};

/// The JSON schema of `T` (draft 2020-12, as schemars generates it).
pub fn schema_for<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Bool(true))
}

/// Extracts the JSON from `reply` and validates it as a `T`.
pub fn parse_reply<T: DeserializeOwned + JsonSchema>(
    reply: &str,
    opts: ExtractOptions,
) -> Result<(T, Extracted), LlmError> {
    let extracted = extract_json(reply, opts)?;
    let value = validate_value::<T>(&extracted.value)?;
    Ok((value, extracted))
}

/// Validates `value` against `T`'s schema, then deserialises it.
pub fn validate_value<T: DeserializeOwned + JsonSchema>(value: &Value) -> Result<T, LlmError> {
    let schema = schema_for::<T>();
    check(value, &schema, &schema, "$").map_err(|(path, message)| LlmError::SchemaMismatch {
        path,
        message,
        source: None,
    })?;
    serde_json::from_value(value.clone()).map_err(|e| LlmError::SchemaMismatch {
        path: "$".into(),
        message: e.to_string(),
        source: Some(e.into()),
    })
}

/// Checks `value` against `schema`; `Err((path, message))` names the first wrong field.
pub fn check_schema(value: &Value, schema: &Value) -> Result<(), (String, String)> {
    check(value, schema, schema, "$")
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn describe(v: &Value) -> String {
    let s = v.to_string();
    let short: String = s.chars().take(60).collect();
    format!("{} {short}", type_name(v))
}

fn type_matches(v: &Value, t: &str) -> bool {
    match t {
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        other => type_name(v) == other || (other == "number" && v.is_number()),
    }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

fn check(value: &Value, schema: &Value, root: &Value, path: &str) -> Result<(), (String, String)> {
    let Value::Object(s) = schema else {
        return if schema == &Value::Bool(false) {
            Err((path.to_owned(), "no value is allowed here".into()))
        } else {
            Ok(())
        };
    };
    if let Some(r) = s.get("$ref").and_then(Value::as_str)
        && let Some(target) = resolve(root, r)
    {
        check(value, target, root, path)?;
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            check(value, sub, root, path)?;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = s.get(key) {
            let mut errors = Vec::new();
            for b in branches {
                match check(value, b, root, path) {
                    Ok(()) => {
                        errors.clear();
                        break;
                    }
                    Err(e) => errors.push(e),
                }
            }
            if !errors.is_empty() {
                // The deepest error is the most specific one.
                let best = errors.into_iter().max_by_key(|(p, _)| p.len());
                if let Some(best) = best {
                    return Err(best);
                }
            }
        }
    }
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| type_matches(value, t)) {
            return Err((
                path.to_owned(),
                format!("expected {}, got {}", types.join(" or "), describe(value)),
            ));
        }
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        return Err((
            path.to_owned(),
            format!("expected {c}, got {}", describe(value)),
        ));
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(value)
    {
        let list: Vec<String> = options.iter().map(Value::to_string).collect();
        return Err((
            path.to_owned(),
            format!("{value} is not one of [{}]", list.join(", ")),
        ));
    }
    if let Value::Object(obj) = value {
        if let Some(Value::Array(required)) = s.get("required") {
            for r in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    return Err((format!("{path}.{r}"), "required field is missing".into()));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, v) in obj {
            let sub_path = format!("{path}.{k}");
            match props.and_then(|p| p.get(k)) {
                Some(sub) => check(v, sub, root, &sub_path)?,
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        let known: Vec<&String> =
                            props.map(|p| p.keys().collect()).unwrap_or_default();
                        return Err((
                            sub_path,
                            format!(
                                "unexpected field (expected fields: {})",
                                known
                                    .iter()
                                    .map(|k| k.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    }
                    Some(extra @ Value::Object(_)) => check(v, extra, root, &sub_path)?,
                    _ => {}
                },
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, s.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check(item, item_schema, root, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}
