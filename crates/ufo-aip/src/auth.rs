//! Who may talk to the server: the API key (compared in constant time) and
//! the Host/Origin checks that stop DNS rebinding.

use std::collections::BTreeMap;
use subtle::ConstantTimeEq;
use tokio_tungstenite::tungstenite::http::HeaderMap;

/// The server's API key, or none (`--insecure-no-auth`, loopback only).
#[derive(Clone)]
pub struct ApiKey(Option<String>);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets never reach logs.
        f.write_str(match self.0 {
            Some(_) => "ApiKey(<set>)",
            None => "ApiKey(<none>)",
        })
    }
}

impl ApiKey {
    /// A required key. Surrounding whitespace (a key file's newline) is dropped.
    pub fn required(key: &str) -> Self {
        Self(Some(key.trim().to_owned()))
    }

    /// No key at all: every request is let in.
    pub fn none() -> Self {
        Self(None)
    }

    /// Whether a key is required.
    pub fn is_required(&self) -> bool {
        self.0.is_some()
    }

    /// Whether `given` is the key (always true without one). Constant time
    /// in the key's content.
    pub fn accepts(&self, given: Option<&str>) -> bool {
        match (&self.0, given) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(k), Some(g)) => k.as_bytes().ct_eq(g.trim().as_bytes()).into(),
        }
    }

    /// Whether the request's headers carry the key: `X-API-Key: KEY` or
    /// `Authorization: Bearer KEY`.
    pub fn accepts_headers(&self, headers: &HeaderMap) -> bool {
        self.accepts(key_from_headers(headers).as_deref())
    }
}

/// The shortest key a server accepts (characters), as `ufo mcp --http`.
pub const MIN_KEY_LEN: usize = 16;

/// Checks that `key` is at least [`MIN_KEY_LEN`] characters; `what` names
/// it in the error.
pub fn check_strength(what: &str, key: &str) -> Result<(), crate::AipError> {
    let length = key.trim().chars().count();
    match length >= MIN_KEY_LEN {
        true => Ok(()),
        false => Err(crate::AipError::WeakKey {
            what: what.to_owned(),
            length,
        }),
    }
}

/// Each device's own key: a key registers the client id it is for and no
/// other, so holding one device's key does not let a program pose as
/// another device.
#[derive(Clone, Default)]
pub struct DeviceKeys(BTreeMap<String, String>);

impl std::fmt::Debug for DeviceKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The ids only: keys never reach logs.
        f.debug_tuple("DeviceKeys")
            .field(&self.0.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl DeviceKeys {
    /// No device keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds device `id`'s key; `at` says where it was given, for the error.
    /// Refused: an id outside `[A-Za-z0-9._-]`, a key shorter than
    /// [`MIN_KEY_LEN`], an id given twice, a key another device has.
    pub fn insert(&mut self, at: &str, id: &str, key: &str) -> Result<(), crate::AipError> {
        let bad = |message: String| crate::AipError::BadDeviceKey {
            at: at.to_owned(),
            message,
        };
        let (id, key) = (id.trim(), key.trim());
        if !crate::messages::is_safe_task_name(id) {
            return Err(bad(format!(
                "device id {id:?} is not 1-128 characters of [A-Za-z0-9._-]"
            )));
        }
        check_strength(&format!("key of device {id:?}"), key).map_err(|e| bad(e.to_string()))?;
        if self.0.contains_key(id) {
            return Err(bad(format!("device {id:?} is given a key twice")));
        }
        if let Some(other) = self.identify(Some(key)) {
            return Err(bad(format!(
                "device {id:?} has the same key as device {other:?}"
            )));
        }
        self.0.insert(id.to_owned(), key.to_owned());
        Ok(())
    }

    /// Reads `ID: KEY` lines (blank lines and `#` comments skipped); `name`
    /// names the file in errors.
    pub fn parse(name: &str, text: &str) -> Result<Self, crate::AipError> {
        let mut keys = Self::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{name} line {}", n + 1);
            let Some((id, key)) = line.split_once(':') else {
                return Err(crate::AipError::BadDeviceKey {
                    at,
                    message: "expected `ID: KEY`".into(),
                });
            };
            keys.insert(&at, id, key)?;
        }
        Ok(keys)
    }

    /// Whether no device has a key of its own.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The devices that have a key, sorted.
    pub fn ids(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    /// Whether `key` is one of the device keys (used to keep the shared key
    /// apart from them).
    pub fn contains_key(&self, key: &str) -> bool {
        self.identify(Some(key)).is_some()
    }

    /// The device whose key `given` is. Every key is compared, each in
    /// constant time, so the time taken says nothing of which matched.
    pub fn identify(&self, given: Option<&str>) -> Option<String> {
        let given = given?.trim().as_bytes();
        let mut found = None;
        for (id, key) in &self.0 {
            if bool::from(key.as_bytes().ct_eq(given)) {
                found = Some(id.clone());
            }
        }
        found
    }
}

/// The key a request carries in its headers.
pub fn key_from_headers(headers: &HeaderMap) -> Option<String> {
    if let Some(k) = headers.get("x-api-key").and_then(|v| v.to_str().ok()) {
        return Some(k.to_owned());
    }
    let auth = headers.get("authorization")?.to_str().ok()?;
    let (scheme, token) = auth.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
}

/// The hosts a request may name in `Host` (and a browser's `Origin`).
#[derive(Debug, Clone)]
pub struct HostCheck {
    /// Lower-case host names (no port). Empty: any host.
    allowed: Vec<String>,
    /// The scheme a browser's `Origin` names for this server: `http`, or
    /// `https` when it serves TLS.
    scheme: &'static str,
}

impl HostCheck {
    /// For a server bound to `bind`: on loopback only `localhost`,
    /// `127.0.0.1` and `::1`, plus `extra`; on another address, any host.
    pub fn for_bind(bind: std::net::IpAddr, extra: &[String]) -> Self {
        let mut allowed: Vec<String> = match bind.is_loopback() {
            true => ["localhost", "127.0.0.1", "::1"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            false => Vec::new(),
        };
        if !allowed.is_empty() {
            allowed.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
        }
        Self {
            allowed,
            scheme: "http",
        }
    }

    /// The same check for a server that serves TLS (`https`/`wss`): a
    /// browser's `Origin` must then say `https`.
    #[must_use]
    pub fn with_tls(mut self, tls: bool) -> Self {
        self.scheme = match tls {
            true => "https",
            false => "http",
        };
        self
    }

    /// Whether `Host` and (when present) `Origin` name an allowed host.
    /// A missing `Host` is refused when hosts are restricted. A browser's
    /// `Origin` must be this server's own: the scheme it serves, and the
    /// host and port of `Host` (a page on another port of the same machine
    /// is another origin).
    pub fn allows(&self, headers: &HeaderMap) -> Result<(), String> {
        let host = headers.get("host").and_then(|v| v.to_str().ok());
        if !self.allowed.is_empty() {
            let host = host.ok_or("the request has no Host header")?;
            if !self.allowed.contains(&host_name(host)) {
                return Err(format!(
                    "Host {host:?} is not served here (allowed: {}); add it with --allowed-host",
                    self.allowed.join(", ")
                ));
            }
        }
        let Some(origin) = headers.get("origin") else {
            return Ok(());
        };
        let origin = origin.to_str().unwrap_or("null");
        let refused = || {
            Err(format!(
                "Origin {origin:?} may not call this server (only {}://{} may)",
                self.scheme,
                host.unwrap_or("its own host")
            ))
        };
        let Some((scheme, rest)) = origin.split_once("://") else {
            return refused();
        };
        if !scheme.eq_ignore_ascii_case(self.scheme) {
            return refused();
        }
        let Some(host) = host else {
            return refused();
        };
        let default = match self.scheme {
            "https" => 443,
            _ => 80,
        };
        match (authority(rest, default), authority(host, default)) {
            (Some(o), Some(h)) if o == h => Ok(()),
            _ => refused(),
        }
    }
}

/// The host name of `host[:port]` or `[v6]:port`, lower case.
fn host_name(s: &str) -> String {
    let s = s.split('/').next().unwrap_or_default();
    let name = match s.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => s.rsplit_once(':').map(|(h, _)| h).unwrap_or(s),
    };
    name.to_ascii_lowercase()
}

/// The host name and port of `host[:port]` or `[v6]:port` (`default` when
/// no port is written); `None` when the port is not a number.
fn authority(s: &str, default: u16) -> Option<(String, u16)> {
    let s = s.split('/').next().unwrap_or_default();
    let port = match s.strip_prefix('[') {
        Some(rest) => rest.split_once(']')?.1.strip_prefix(':'),
        None => s.rsplit_once(':').map(|(_, p)| p),
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default,
    };
    Some((host_name(s), port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn keys() {
        let k = ApiKey::required("s3cret\n");
        assert!(k.accepts(Some("s3cret")));
        assert!(!k.accepts(Some("s3cre")));
        assert!(!k.accepts(None));
        assert!(k.accepts_headers(&headers(&[("authorization", "Bearer s3cret")])));
        assert!(k.accepts_headers(&headers(&[("x-api-key", "s3cret")])));
        assert!(!k.accepts_headers(&headers(&[("authorization", "Basic s3cret")])));
        assert!(ApiKey::none().accepts(None));
        assert_eq!(format!("{k:?}"), "ApiKey(<set>)");
    }

    #[test]
    fn device_keys() {
        let k = DeviceKeys::parse(
            "keys.txt",
            "# devices\npc1: 0123456789abcdef-pc1\n\n  pc2 :  0123456789abcdef-pc2  \n",
        )
        .unwrap();
        assert_eq!(k.ids(), ["pc1", "pc2"]);
        assert_eq!(
            k.identify(Some("0123456789abcdef-pc2")).as_deref(),
            Some("pc2")
        );
        assert_eq!(k.identify(Some("0123456789abcdef-pc3")), None);
        assert_eq!(k.identify(None), None);
        assert_eq!(format!("{k:?}"), "DeviceKeys([\"pc1\", \"pc2\"])");
        for (text, says) in [
            ("pc1 0123456789abcdef", "line 1: expected `ID: KEY`"),
            ("pc1: short", "at least 16"),
            ("a b: 0123456789abcdef", "[A-Za-z0-9._-]"),
            (
                "pc1: 0123456789abcdef\npc1: 0123456789abcdeg",
                "line 2: device \"pc1\" is given a key twice",
            ),
            (
                "pc1: 0123456789abcdef\npc2: 0123456789abcdef",
                "the same key as device \"pc1\"",
            ),
        ] {
            let e = DeviceKeys::parse("keys.txt", text).unwrap_err();
            assert_eq!(ufo_core::Diagnostic::code(&e), "ufo::aip::bad_device_key");
            assert!(e.to_string().contains(says), "{text:?}: {e}");
        }
        let e = check_strength("API key", "x").unwrap_err();
        assert_eq!(ufo_core::Diagnostic::code(&e), "ufo::aip::weak_key");
        assert!(ufo_core::Diagnostic::help(&e).unwrap().contains("urandom"));
        assert!(check_strength("API key", "0123456789abcdef").is_ok());
    }

    #[test]
    fn hosts() {
        let c = HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]);
        assert!(c.allows(&headers(&[("host", "127.0.0.1:5000")])).is_ok());
        assert!(c.allows(&headers(&[("host", "localhost:5000")])).is_ok());
        assert!(c.allows(&headers(&[("host", "[::1]:5000")])).is_ok());
        assert!(
            c.allows(&headers(&[("host", "evil.example:5000")]))
                .is_err()
        );
        assert!(c.allows(&HeaderMap::new()).is_err());
        let cross = headers(&[
            ("host", "127.0.0.1:5000"),
            ("origin", "http://evil.example"),
        ]);
        assert!(c.allows(&cross).is_err());
        let same = headers(&[
            ("host", "127.0.0.1:5000"),
            ("origin", "http://127.0.0.1:5000"),
        ]);
        assert!(c.allows(&same).is_ok());
        // Another port of the same machine is another origin, and so are
        // another scheme and another loopback name.
        for other in [
            "http://127.0.0.1:8080",
            "http://127.0.0.1",
            "https://127.0.0.1:5000",
            "http://localhost:5000",
            "null",
            "http://127.0.0.1:x",
        ] {
            let h = headers(&[("host", "127.0.0.1:5000"), ("origin", other)]);
            assert!(c.allows(&h).is_err(), "{other}");
        }
        let v6 = headers(&[("host", "[::1]:5000"), ("origin", "http://[::1]:5000")]);
        assert!(c.allows(&v6).is_ok());
        let default_port = headers(&[("host", "localhost"), ("origin", "http://localhost:80")]);
        assert!(c.allows(&default_port).is_ok());
        let tls = HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]).with_tls(true);
        let h = headers(&[
            ("host", "127.0.0.1:5000"),
            ("origin", "https://127.0.0.1:5000"),
        ]);
        assert!(tls.allows(&h).is_ok());
        let h = headers(&[
            ("host", "127.0.0.1:5000"),
            ("origin", "http://127.0.0.1:5000"),
        ]);
        assert!(tls.allows(&h).is_err());
        let any = HostCheck::for_bind("0.0.0.0".parse().unwrap(), &[]);
        assert!(any.allows(&headers(&[("host", "box.lan:5000")])).is_ok());
        // Any host, but a browser's page still only from the server's origin.
        let h = headers(&[("host", "box.lan:5000"), ("origin", "http://evil.example")]);
        assert!(any.allows(&h).is_err());
        let h = headers(&[("host", "box.lan:5000"), ("origin", "http://box.lan:5000")]);
        assert!(any.allows(&h).is_ok());
    }
}
