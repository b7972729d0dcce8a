//! Reading a config value tree into serde structs: an error names the key
//! path of the value at fault (`serde_path_to_error`), the keys nothing
//! reads are collected (`serde_ignored`), and scalars are read as people
//! write them (`True`, `"30"`, or the text a `${VAR}` expands to).

use super::misspelt;
use crate::error::SessionError;
use serde::de::{DeserializeOwned, Error as _, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A key path's segments: map keys, and `[i]` for list items.
pub(super) type KeyPath = Vec<String>;

/// `a.b[0].c` from `at` (`a.b`) and the segments below it.
pub(super) fn join(at: &str, segments: &[String]) -> String {
    let mut out = at.to_owned();
    for s in segments.iter().filter(|s| !s.is_empty() && *s != ".") {
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
    at: &str,
    ignored: &mut Vec<KeyPath>,
) -> Result<T, SessionError> {
    let mut note = |p: serde_ignored::Path<'_>| ignored.push(segments(&p));
    serde_path_to_error::deserialize(serde_ignored::Deserializer::new(v, &mut note)).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        match message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            Some(field) => SessionError::MissingKey {
                key: join(at, &[path, field.to_owned()]),
                message: needed_for(field).to_owned(),
            },
            None => SessionError::BadKey {
                key: join(at, &[path]),
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
    at: &str,
    known: impl Fn(&[String]) -> (Vec<&'static str>, &'static str),
) -> Result<T, SessionError> {
    let mut ignored = Vec::new();
    // A missing key is often a misspelt one: the misspelling is named
    // first; any other error comes before the unknown keys.
    let t = match read(v, at, &mut ignored) {
        Err(SessionError::MissingKey { .. }) if !ignored.is_empty() => None,
        other => Some(other?),
    };
    let mut note = None;
    let unknown: Vec<_> = ignored
        .iter()
        .filter_map(|p| {
            let (key, parent) = p.split_last()?;
            let (keys, what) = known(parent);
            note.get_or_insert(what);
            Some((
                join(at, p),
                misspelt::nearest(key, keys.into_iter()).map(str::to_owned),
            ))
        })
        .collect();
    match t {
        Some(t) if unknown.is_empty() => Ok(t),
        _ => Err(misspelt::error(&unknown, note.unwrap_or_default())),
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
    match p {
        Path::Root => Vec::new(),
        Path::Seq { parent, index } => [segments(parent), vec![format!("[{index}]")]].concat(),
        Path::Map { parent, key } => [segments(parent), vec![key.clone()]].concat(),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => segments(parent),
    }
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

/// `deserialize_with` for a [`Flag`].
pub(super) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Flag::deserialize(d)?.0)
}

/// `deserialize_with` for a [`Count`].
pub(super) fn count<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
    Ok(Count::deserialize(d)?.0)
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
        let hint = misspelt::nearest(&s, names.iter().copied())
            .map(|n| format!(" (did you mean {n}?)"))
            .unwrap_or_default();
        D::Error::custom(format!(
            "is {s:?}{hint}; it must be one of: {}",
            names.join(", ")
        ))
    })
}
