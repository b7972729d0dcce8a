//! Who may talk to the server: the API key (compared in constant time) and
//! the Host/Origin checks that stop DNS rebinding.

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
        Self { allowed }
    }

    /// Whether `Host` and (when present) `Origin` name an allowed host.
    /// A missing `Host` is refused when hosts are restricted.
    pub fn allows(&self, headers: &HeaderMap) -> Result<(), String> {
        if self.allowed.is_empty() {
            return Ok(());
        }
        let host = headers
            .get("host")
            .and_then(|v| v.to_str().ok())
            .ok_or("the request has no Host header")?;
        if !self.allowed.contains(&host_name(host)) {
            return Err(format!(
                "Host {host:?} is not served here (allowed: {}); add it with --allowed-host",
                self.allowed.join(", ")
            ));
        }
        if let Some(origin) = headers.get("origin").and_then(|v| v.to_str().ok()) {
            let name = origin
                .split_once("://")
                .map(|(_, rest)| host_name(rest))
                .unwrap_or_default();
            if origin != "null" && !self.allowed.contains(&name) {
                return Err(format!("Origin {origin:?} may not call this server"));
            }
            if origin == "null" {
                return Err("Origin \"null\" may not call this server".into());
            }
        }
        Ok(())
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
            ("origin", "http://localhost:5000"),
        ]);
        assert!(c.allows(&same).is_ok());
        let any = HostCheck::for_bind("0.0.0.0".parse().unwrap(), &[]);
        assert!(any.allows(&headers(&[("host", "box.lan:5000")])).is_ok());
    }
}
