//! Secrets: a wrapper that never prints its value, and scrubbing of text that might
//! contain one (provider error messages, URLs, header values).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The placeholder that replaces every secret in output.
pub(crate) const REDACTED: &str = "***";

/// A secret string (API key, bearer token). `Debug` and `Display` print `***`;
/// serialising writes `***` too, so a secret never leaks through a log or a dump.
/// Read the value with [`Secret::expose`], only where it is put on the wire.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value, for the request header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is empty (not configured).
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("Secret(\"\")")
        } else {
            f.write_str("Secret(***)")
        }
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(REDACTED)
    }
}

/// Replaces every occurrence of each secret in `text` with `***`.
///
/// Secrets shorter than 4 characters are ignored (they would scrub ordinary words).
pub(crate) fn scrub(text: &str, secrets: &[&Secret]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        let value = secret.expose().trim();
        if value.len() >= 4 {
            out = out.replace(value, REDACTED);
        }
    }
    out
}

/// The redacted form of a header value: the scheme of an `Authorization` value is
/// kept (`Bearer ***`), anything else becomes `***`.
pub(crate) fn redact_header_value(name: &str, value: &str) -> String {
    if name.eq_ignore_ascii_case("authorization") {
        match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} {REDACTED}"),
            None => REDACTED.to_owned(),
        }
    } else {
        REDACTED.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("sk-verysecret");
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert_eq!(s.to_string(), "***");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"***\"");
        assert_eq!(scrub("bad key sk-verysecret!", &[&s]), "bad key ***!");
        assert_eq!(
            redact_header_value("Authorization", "Bearer abc"),
            "Bearer ***"
        );
        assert_eq!(redact_header_value("api-key", "abc"), "***");
    }
}
