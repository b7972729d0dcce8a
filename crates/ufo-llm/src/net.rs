//! Fetching a URL that someone else chose (a search result's page, an image
//! a message links to) without letting it reach what is ours: only http and
//! https; only public addresses (unless allowed); the connection pinned to
//! the address that passed the check (a second DNS answer cannot swap in
//! a private one); no proxy from the environment (a proxy resolves the name
//! itself, past the check); every redirect checked again, at most
//! [`MAX_REDIRECTS`]; the body read up to a cap and no further.
//!
//! Used by online search (`ufo-knowledge`) and by the model clients that
//! inline linked images (Ollama, Gemini): one guard for both.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// Redirects followed, each checked like the first request.
pub const MAX_REDIRECTS: usize = 3;

/// How a fetch is limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchLimits {
    /// The whole exchange, per request.
    pub timeout: Duration,
    /// Bytes of body kept; the rest is not read.
    pub max_bytes: usize,
    /// Loopback and private addresses may be fetched (tests, a local
    /// search engine's pages).
    pub allow_private: bool,
}

/// A fetched body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The body, at most [`FetchLimits::max_bytes`].
    pub body: Vec<u8>,
    /// The body was longer and was cut.
    pub truncated: bool,
    /// Its `Content-Type` without parameters, when given.
    pub mime: Option<String>,
}

/// Fetches `raw` under the rules above; the error says why in one line
/// naming the URL.
pub async fn fetch(raw: &str, limits: FetchLimits) -> Result<Fetched, String> {
    let mut url = reqwest::Url::parse(raw).map_err(|e| format!("bad URL {raw:?}: {e}"))?;
    for _ in 0..=MAX_REDIRECTS {
        let client = pinned_client(&url, limits).await?;
        let resp = client
            .get(url.clone())
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if resp.status().is_redirection() {
            let loc = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| format!("{url}: a redirect without a location"))?;
            url = url
                .join(loc)
                .map_err(|e| format!("{url}: bad redirect: {e}"))?;
            continue;
        }
        if !resp.status().is_success() {
            return Err(format!("{url}: HTTP {}", resp.status()));
        }
        let mime = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.split(';').next().unwrap_or(s).trim().to_owned());
        let (body, truncated) = read_capped(resp, limits.max_bytes)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        return Ok(Fetched {
            body,
            truncated,
            mime,
        });
    }
    Err(format!("{raw}: more than {MAX_REDIRECTS} redirects"))
}

/// Reads a response's body up to `max` bytes; true when more came.
pub async fn read_capped(
    mut resp: reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        let room = max.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() > room {
            return Ok((body, true));
        }
    }
    Ok((body, false))
}

/// A client that connects to `url`'s host only at an address that passed
/// the check.
async fn pinned_client(url: &reqwest::Url, limits: FetchLimits) -> Result<reqwest::Client, String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{url}: only http and https pages are fetched"));
    }
    let host = url
        .host_str()
        .ok_or_else(|| format!("{url}: no host"))?
        .to_owned();
    let port = url.port_or_known_default().unwrap_or(80);
    let bare = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare.as_str(), port))
        .await
        .map_err(|e| format!("{url}: cannot resolve {host}: {e}"))?
        .collect();
    let first = *addrs
        .first()
        .ok_or_else(|| format!("{url}: {host} has no address"))?;
    if !limits.allow_private
        && let Some(bad) = addrs.iter().find(|a| !is_public(a.ip()))
    {
        return Err(format!(
            "{url}: refused, {host} is at {} (not a public address)",
            bad.ip()
        ));
    }
    reqwest::Client::builder()
        .timeout(limits.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .resolve(&bare, first)
        .build()
        .map_err(|e| format!("{url}: {e}"))
}

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v) => {
            let o = v.octets();
            !(v.is_loopback()
                || v.is_private()
                || v.is_link_local()
                || v.is_unspecified()
                || v.is_multicast()
                || v.is_broadcast()
                || v.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240)
        }
        IpAddr::V6(v) => {
            if let Some(v4) = v.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v.segments();
            !(v.is_loopback()
                || v.is_unspecified()
                || v.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x64 && s[1] == 0xff9b))
        }
    }
}
