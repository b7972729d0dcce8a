//! `${VAR}` expansion in a config file's values, and keeping the secrets it
//! brings in out of error messages.

use crate::error::SessionError;
use serde_json::Value;

/// Replaces `${VAR}` in every string of `v` (at `key`) with `env(VAR)`; a
/// missing variable is an error naming the key.
pub(super) fn expand(
    v: &mut Value,
    key: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), SessionError> {
    match v {
        Value::String(s) if s.contains('$') => {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(i) = rest.find("${") {
                out.push_str(&rest[..i]);
                let tail = &rest[i + 2..];
                let end = tail.find('}').ok_or_else(|| SessionError::BadKey {
                    key: key.to_owned(),
                    message: "an unclosed `${` in the value".into(),
                })?;
                let var = &tail[..end];
                let val = env(var).ok_or_else(|| SessionError::MissingKey {
                    key: key.to_owned(),
                    message: format!(
                        "it refers to the environment variable {var}, which is not set"
                    ),
                })?;
                out.push_str(&val);
                rest = &tail[end + 1..];
            }
            out.push_str(rest);
            *s = out;
        }
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                let path = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                expand(x, &path, env)?;
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                expand(x, &format!("{key}[{i}]"), env)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Names of fields whose values are secrets.
fn is_secret_key(k: &str) -> bool {
    let k = k.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD"]
        .iter()
        .any(|w| k.contains(w))
}

/// The secret values a config brought in (its key, token and password
/// fields, literal or from `${VAR}`, and every secret-named variable it
/// expanded): scrubbed from what commands print. `Debug` shows how many,
/// never a value.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct KnownSecrets(Vec<String>);

impl KnownSecrets {
    /// The values, for scrubbing and nothing else.
    pub fn values(&self) -> &[String] {
        &self.0
    }

    /// Adds a secret that came from elsewhere than the config (a key file
    /// given on the command line).
    pub fn add(&mut self, value: impl Into<String>) {
        let v = value.into().trim().to_owned();
        if !v.is_empty() && !self.0.contains(&v) {
            self.0.push(v);
        }
    }

    /// The secrets of config `text` as parsed (`raw`, before expansion) and
    /// the variables `used` in expanding it.
    pub(super) fn of(raw: Option<&Value>, used: &[(String, String)]) -> Self {
        let mut fields = Vec::new();
        if let Some(raw) = raw {
            secret_fields(raw, &mut fields);
        }
        let mut out: Vec<String> = fields
            .iter()
            .filter(|(_, v)| !v.contains("${"))
            .map(|(_, v)| v.trim().to_owned())
            .collect();
        for (var, val) in used {
            let named = is_secret_key(var);
            let filled = fields
                .iter()
                .any(|(_, v)| v.contains(&format!("${{{var}}}")));
            if named || filled {
                out.push(val.trim().to_owned());
            }
        }
        out.retain(|v| !v.is_empty());
        out.sort();
        out.dedup();
        Self(out)
    }
}

impl std::fmt::Debug for KnownSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KnownSecrets({} values)", self.0.len())
    }
}

/// The values of `key: value` lines of `text` whose key names a secret, read
/// line by line (for a file that is not valid YAML, whose parser's message
/// may quote any line).
pub(super) fn secret_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches('-').trim_start();
            let (k, v) = l.split_once(':')?;
            let k = k.trim().trim_matches(['"', '\'']);
            let v = v.trim().trim_matches(['"', '\'']).trim();
            (is_secret_key(k) && !v.is_empty()).then(|| (k.to_owned(), v.to_owned()))
        })
        .collect()
}

/// Collects `(field, value)` of every secret field in `v` (values as text).
pub(super) fn secret_fields(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match x {
                    Value::String(s) if is_secret_key(k) => out.push((k.clone(), s.clone())),
                    Value::Number(n) if is_secret_key(k) => out.push((k.clone(), n.to_string())),
                    _ => secret_fields(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| secret_fields(x, out)),
        _ => {}
    }
}

/// `e` with every secret value in its text replaced by where it came from.
pub(super) fn redact_error(e: SessionError, secrets: &[(String, String)]) -> SessionError {
    let clean = |mut text: String| {
        for (name, value) in secrets {
            // Very short values would blank out ordinary words.
            if value.chars().count() >= 3 {
                text = text.replace(value.as_str(), &format!("<value of {name}>"));
            }
        }
        text
    };
    // Loading a config makes only these four errors.
    match e {
        SessionError::MissingKey { key, message } => SessionError::MissingKey {
            key,
            message: clean(message),
        },
        SessionError::BadKey { key, message } => SessionError::BadKey {
            key,
            message: clean(message),
        },
        SessionError::UnknownKey { key, message } => SessionError::UnknownKey {
            key,
            message: clean(message),
        },
        // The source goes when its chain's text (a YAML error quoting the
        // line) holds a secret: it would be shown as a cause.
        SessionError::ConfigFile {
            path,
            message,
            source,
        } => SessionError::ConfigFile {
            path,
            message: clean(message),
            source: source.filter(|s| {
                let chain = ufo_core::error::causes(Some(s.as_ref()), "").join("\n");
                clean(chain.clone()) == chain
            }),
        },
        other => other,
    }
}
