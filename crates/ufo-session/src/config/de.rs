//! Reading a config value tree into serde structs: an error names the key
//! path of the value at fault (`serde_path_to_error`), the keys nothing
//! reads are collected (`serde_ignored`), and scalars are read as people
//! write them (`True`, `"30"`, or the text a `${VAR}` expands to).

use super::unknown;
use crate::error::SessionError;
use serde::de::{DeserializeOwned, Error as _, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A key path's segments: map keys, and `[i]` for list items.
pub(super) type KeyPath = Vec<String>;

/// `a.b[0].c` from the segments.
pub(super) fn join(segments: &[String]) -> String {
    let mut out = String::new();
    for s in segments {
        if !out.is_empty() && !s.starts_with('[') {
            out.push('.');
        }
        out.push_str(s);
    }
    out
}

/// Reads `T` from `v`, found at key path `at`; the paths of the keys nothing
/// read (relative to `v`) are pushed on `ignored`.
pub(super) fn read<T: DeserializeOwned>(
    v: &Value,
    at: &[String],
    ignored: &mut Vec<KeyPath>,
) -> Result<T, SessionError> {
    let mut note = |p: serde_ignored::Path<'_>| ignored.push(segments(&p));
    serde_path_to_error::deserialize(serde_ignored::Deserializer::new(v, &mut note)).map_err(|e| {
        let mut key: KeyPath = at.to_vec();
        key.extend(e.path().iter().map(|s| match s {
            serde_path_to_error::Segment::Seq { index } => format!("[{index}]"),
            other => other.to_string(),
        }));
        let message = e.into_inner().to_string();
        match message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            Some(field) => {
                key.push(field.to_owned());
                SessionError::MissingKey {
                    key: join(&key),
                    message: needed_for(field).to_owned(),
                }
            }
            None => SessionError::BadKey {
                key: join(&key),
                message,
            },
        }
    })
}

/// [`read`] for a part that must hold no key it does not read (even when
/// loading leniently): `known` gives, for a parent path relative to `v`, the
/// keys known there and a note on what belongs there.
pub(super) fn read_all<T: DeserializeOwned>(
    v: &Value,
    at: &[String],
    known: impl Fn(&[String]) -> (Vec<&'static str>, &'static str),
) -> Result<T, SessionError> {
    let mut ignored = Vec::new();
    // A missing key is often a misspelt one: the misspelling is named
    // first; any other error comes before the unknown keys.
    let t = match read(v, at, &mut ignored) {
        Err(SessionError::MissingKey { .. }) if !ignored.is_empty() => None,
        other => Some(other?),
    };
    let unknown: Vec<_> = ignored
        .into_iter()
        .map(|mut p| {
            let key = p.pop().unwrap_or_default();
            let (keys, note) = known(&p);
            let near = unknown::nearest(&key, keys.into_iter()).map(str::to_owned);
            p.push(key);
            let mut full = at.to_vec();
            full.extend(p);
            (join(&full), near, note)
        })
        .collect();
    match (unknown.first(), t) {
        (None, Some(t)) => Ok(t),
        (first, _) => Err(unknown::error(
            &unknown
                .iter()
                .map(|(k, n, _)| (k.clone(), n.clone()))
                .collect::<Vec<_>>(),
            first.map_or("", |u| u.2),
        )),
    }
}

/// What a required key is for, for its `MissingKey` error.
fn needed_for(field: &str) -> &'static str {
    match field {
        "API_TYPE" => "every model section names its provider (API_TYPE)",
        "API_BASE" | "API_MODEL" => "embeddings need API_TYPE, API_BASE and API_MODEL",
        "namespace" => "each server needs a namespace: its tools are called <namespace>.<tool>",
        "type" => "stdio (a program) or http (a URL)",
        _ => "this key is required here",
    }
}

fn segments(p: &serde_ignored::Path<'_>) -> KeyPath {
    use serde_ignored::Path;
    let mut out = match p {
        Path::Root => return Vec::new(),
        Path::Seq { parent, .. }
        | Path::Map { parent, .. }
        | Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => segments(parent),
    };
    match p {
        Path::Seq { index, .. } => out.push(format!("[{index}]")),
        Path::Map { key, .. } => out.push(key.clone()),
        _ => {}
    }
    out
}

/// The keys of struct `T` as the config file writes them.
pub(super) fn keys_of<T: DeserializeOwned>() -> Vec<&'static str> {
    /// A deserializer that only notes the fields a struct asks for.
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(Self::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields.to_vec()
}

/// A scalar read by `read` from its value, or an error saying `what` it
/// should have been.
fn scalar<'de, D: Deserializer<'de>, T>(
    d: D,
    what: &str,
    read: impl FnOnce(&Value) -> Option<T>,
) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    read(&v).ok_or_else(|| D::Error::custom(format!("expected {what}, got {v}")))
}

/// `true` or `false`, also as text in any case.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flag(pub(super) bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar(d, "true or false", |v| match v {
            Value::Bool(b) => Some(Flag(*b)),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" => Some(Flag(true)),
                "false" => Some(Flag(false)),
                _ => None,
            },
            _ => None,
        })
    }
}

/// A whole number ≥ 0 that fits `T`, also as text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Count<T>(pub(super) T);

impl<'de, T: TryFrom<u64>> Deserialize<'de> for Count<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar(d, "a whole number ≥ 0 (not too large)", |v| {
            let n = v.as_u64().or_else(|| v.as_str()?.trim().parse().ok())?;
            T::try_from(n).ok().map(Count)
        })
    }
}

/// Non-empty text, trimmed.
#[derive(Debug, Clone)]
pub(super) struct Text(pub(super) String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar(d, "a non-empty string", |v| {
            let s = v.as_str()?.trim();
            (!s.is_empty()).then(|| Text(s.to_owned()))
        })
    }
}

/// A string, number or boolean as text (an argument, a header's value).
/// The value is never echoed in an error: it may be a secret.
#[derive(Debug, Clone)]
pub(super) struct Scalar(pub(super) String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Scalar(s)),
            Value::Number(n) => Ok(Scalar(n.to_string())),
            Value::Bool(b) => Ok(Scalar(b.to_string())),
            _ => Err(D::Error::custom("expected a string")),
        }
    }
}

/// One of `names` (any case), read by `parse`; otherwise an error with the
/// nearest name and the list.
pub(super) fn one_of<'de, D: Deserializer<'de>, T>(
    d: D,
    names: &[&str],
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T, D::Error> {
    let s = Text::deserialize(d)?.0;
    parse(&s).ok_or_else(|| {
        let hint = unknown::nearest(&s, names.iter().copied())
            .map(|n| format!(" (did you mean {n}?)"))
            .unwrap_or_default();
        D::Error::custom(format!(
            "is {s:?}{hint}; it must be one of: {}",
            names.join(", ")
        ))
    })
}
