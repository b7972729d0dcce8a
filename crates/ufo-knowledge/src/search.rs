//! Online search through a SearXNG instance's JSON API
//! (`GET <endpoint>/search?q=...&format=json`) or a named provider (Brave
//! Search: `GET <endpoint>/res/v1/web/search` with `X-Subscription-Token`;
//! Tavily: `POST <endpoint>/search` with a bearer key), with the result pages
//! fetched and made text.
//!
//! Fetching is SSRF-safe: only `http`/`https`; every address a host resolves
//! to must be public (no loopback, private, link-local, unique-local,
//! carrier-grade NAT, multicast or unspecified addresses) unless
//! `allow_private` is set; the connection is pinned to the checked address
//! (no DNS rebinding); redirects are followed by hand, each target checked
//! again, at most [`MAX_REDIRECTS`]; each response is cut at
//! `max_page_bytes` and each request at `timeout`. The endpoint itself is the
//! user's configuration and is not subject to the address check.

use crate::error::KnowledgeError;
use crate::text::markup_to_text;
use serde_json::{Value, json};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// Redirects followed per page.
pub const MAX_REDIRECTS: usize = 3;

/// Which search API the endpoint speaks (`RAG_ONLINE_SEARCH_PROVIDER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchProvider {
    /// A SearXNG instance (JSON format enabled); the endpoint is required.
    #[default]
    SearXng,
    /// Brave Search API (key required; endpoint `https://api.search.brave.com` by default).
    Brave,
    /// Tavily (key required; endpoint `https://api.tavily.com` by default).
    Tavily,
}

impl SearchProvider {
    /// The names accepted in the config.
    pub const NAMES: [&'static str; 3] = ["searxng", "brave", "tavily"];

    /// Parses a config name.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_lowercase().as_str() {
            "searxng" | "searx" => Some(Self::SearXng),
            "brave" => Some(Self::Brave),
            "tavily" => Some(Self::Tavily),
            _ => None,
        }
    }

    /// The endpoint used when none is configured.
    pub fn default_endpoint(self) -> Option<&'static str> {
        match self {
            Self::SearXng => None,
            Self::Brave => Some("https://api.search.brave.com"),
            Self::Tavily => Some("https://api.tavily.com"),
        }
    }
}

/// The search endpoint and its limits.
#[derive(Debug, Clone)]
pub struct SearchSettings {
    /// `RAG_ONLINE_SEARCH_PROVIDER` (searxng).
    pub provider: SearchProvider,
    /// `RAG_ONLINE_SEARCH_ENDPOINT`: the provider's base URL.
    pub endpoint: Option<String>,
    /// `RAG_ONLINE_SEARCH_API_KEY` (Brave, Tavily).
    pub api_key: Option<String>,
    /// `RAG_ONLINE_ALLOW_PRIVATE` (false): fetch pages on private and
    /// loopback addresses too.
    pub allow_private: bool,
    /// `RAG_ONLINE_TIMEOUT` (10 s) per request.
    pub timeout: Duration,
    /// `RAG_ONLINE_MAX_PAGE_BYTES` (1 MiB) read of a page.
    pub max_page_bytes: usize,
    /// Characters of a page's text kept for the prompt (4,000).
    pub max_text_chars: usize,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            provider: SearchProvider::SearXng,
            endpoint: None,
            api_key: None,
            allow_private: false,
            timeout: Duration::from_secs(10),
            max_page_bytes: 1024 * 1024,
            max_text_chars: 4000,
        }
    }
}

/// A configured search.
#[derive(Debug, Clone)]
pub struct OnlineSearch {
    settings: SearchSettings,
    endpoint: url::Url,
}

fn err(message: impl Into<String>) -> KnowledgeError {
    KnowledgeError::Search {
        message: message.into(),
        source: None,
    }
}

/// A search error that shows `e` and keeps it as its source.
fn err_from<E: std::error::Error + Send + Sync + 'static>(e: E) -> KnowledgeError {
    KnowledgeError::Search {
        message: e.to_string(),
        source: Some(Box::new(e)),
    }
}

impl OnlineSearch {
    /// A search on the configured endpoint.
    pub fn new(settings: SearchSettings) -> Result<Self, KnowledgeError> {
        let raw = settings
            .endpoint
            .clone()
            .or_else(|| settings.provider.default_endpoint().map(str::to_owned))
            .ok_or_else(|| {
                err("RAG_ONLINE_SEARCH is on but RAG_ONLINE_SEARCH_ENDPOINT is not set")
            })?;
        if settings.provider != SearchProvider::SearXng && settings.api_key.is_none() {
            return Err(err("this search provider needs RAG_ONLINE_SEARCH_API_KEY"));
        }
        let endpoint = url::Url::parse(&raw).map_err(|e| KnowledgeError::Search {
            message: format!("bad endpoint {raw:?}: {e}"),
            source: Some(e.into()),
        })?;
        Ok(Self { settings, endpoint })
    }

    /// The first `k` results for `query`: `{title, url, text}` with the
    /// page's text (or the search snippet when the page cannot be fetched or
    /// is refused; `fetch_error` then says why).
    pub async fn search(&self, query: &str, k: usize) -> Result<Vec<Value>, KnowledgeError> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let client = reqwest::Client::builder()
            .timeout(self.settings.timeout)
            .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
            .build()
            .map_err(err_from)?;
        let mut u = self.endpoint.clone();
        let base = u.path().trim_end_matches('/').to_owned();
        let key = self.settings.api_key.clone().unwrap_or_default();
        let req = match self.settings.provider {
            SearchProvider::SearXng => {
                u.set_path(&format!("{base}/search"));
                u.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("format", "json");
                client.get(u)
            }
            SearchProvider::Brave => {
                u.set_path(&format!("{base}/res/v1/web/search"));
                u.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("count", &k.to_string());
                client
                    .get(u)
                    .header("X-Subscription-Token", key)
                    .header("Accept", "application/json")
            }
            SearchProvider::Tavily => {
                u.set_path(&format!("{base}/search"));
                client
                    .post(u)
                    .bearer_auth(key)
                    .json(&json!({"query": query, "max_results": k}))
            }
        };
        let resp = req
            .send()
            .await
            .map_err(|e| err(format!("the search endpoint: {e}")))?;
        if !resp.status().is_success() {
            return Err(err(format!(
                "the search endpoint answered HTTP {}",
                resp.status()
            )));
        }
        let body = read_limited(resp, self.settings.max_page_bytes).await?;
        let v: Value = serde_json::from_slice(&body)
            .map_err(|e| err(format!("the search endpoint did not answer JSON: {e}")))?;
        let (list, snippet_key) = match self.settings.provider {
            SearchProvider::SearXng => (v.get("results"), "content"),
            SearchProvider::Brave => (v.get("web").and_then(|w| w.get("results")), "description"),
            SearchProvider::Tavily => (v.get("results"), "content"),
        };
        let results: Vec<Value> = list
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|r| {
                let s = |key: &str| {
                    r.get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                json!({"url": s("url"), "title": s("title"), "content": s(snippet_key)})
            })
            .collect();
        let mut out = Vec::new();
        for r in results.iter().take(k) {
            let s = |key: &str| {
                r.get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let (url, title, snippet) = (s("url"), s("title"), s("content"));
            let (text, fetch_error) = match self.fetch_text(&url).await {
                Ok(t) if !t.is_empty() => (t, None),
                Ok(_) => (snippet, None),
                Err(e) => (snippet, Some(e.to_string())),
            };
            let mut item = json!({"title": title, "url": url, "text": text});
            if let Some(e) = fetch_error {
                item["fetch_error"] = Value::String(e);
            }
            out.push(item);
        }
        Ok(out)
    }

    /// A page's text, fetched under the SSRF rules and limits.
    pub async fn fetch_text(&self, raw: &str) -> Result<String, KnowledgeError> {
        let mut url = url::Url::parse(raw).map_err(|e| err(format!("bad URL {raw:?}: {e}")))?;
        for _ in 0..=MAX_REDIRECTS {
            let client = self.pinned_client(&url).await?;
            let resp = client
                .get(url.clone())
                .send()
                .await
                .map_err(|e| err(format!("{url}: {e}")))?;
            if resp.status().is_redirection() {
                let loc = resp
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| err(format!("{url}: a redirect without a location")))?;
                url = url
                    .join(loc)
                    .map_err(|e| err(format!("{url}: bad redirect: {e}")))?;
                continue;
            }
            if !resp.status().is_success() {
                return Err(err(format!("{url}: HTTP {}", resp.status())));
            }
            let body = read_limited(resp, self.settings.max_page_bytes).await?;
            let text = markup_to_text(&String::from_utf8_lossy(&body));
            return Ok(text.chars().take(self.settings.max_text_chars).collect());
        }
        Err(err(format!("{raw}: more than {MAX_REDIRECTS} redirects")))
    }

    /// A client that connects to `url`'s host only at an address that
    /// passed the check.
    async fn pinned_client(&self, url: &url::Url) -> Result<reqwest::Client, KnowledgeError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(err(format!("{url}: only http and https pages are fetched")));
        }
        let host = url
            .host_str()
            .ok_or_else(|| err(format!("{url}: no host")))?
            .to_owned();
        let port = url.port_or_known_default().unwrap_or(80);
        let bare = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare.as_str(), port))
            .await
            .map_err(|e| err(format!("{url}: cannot resolve {host}: {e}")))?
            .collect();
        let first = *addrs
            .first()
            .ok_or_else(|| err(format!("{url}: {host} has no address")))?;
        if !self.settings.allow_private
            && let Some(bad) = addrs.iter().find(|a| !is_public(a.ip()))
        {
            return Err(err(format!(
                "{url}: refused, {host} is at {} (not a public address)",
                bad.ip()
            )));
        }
        reqwest::Client::builder()
            .timeout(self.settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            // A proxy from the environment would resolve the name itself,
            // past the address just checked.
            .no_proxy()
            .resolve(&bare, first)
            .build()
            .map_err(err_from)
    }
}

async fn read_limited(mut resp: reqwest::Response, max: usize) -> Result<Vec<u8>, KnowledgeError> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(err_from)? {
        let room = max.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= max {
            break;
        }
    }
    Ok(body)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
        for a in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }
}
