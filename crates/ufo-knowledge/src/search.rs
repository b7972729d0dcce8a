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
use std::time::Duration;

/// Redirects followed per page.
pub use ufo_llm::net::MAX_REDIRECTS;

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

    /// A page's text, fetched under the SSRF rules and limits
    /// (`ufo_llm::net`).
    pub async fn fetch_text(&self, raw: &str) -> Result<String, KnowledgeError> {
        let limits = ufo_llm::net::FetchLimits {
            timeout: self.settings.timeout,
            max_bytes: self.settings.max_page_bytes,
            allow_private: self.settings.allow_private,
        };
        let page = ufo_llm::net::fetch(raw, limits).await.map_err(err)?;
        let text = markup_to_text(&String::from_utf8_lossy(&page.body));
        Ok(text.chars().take(self.settings.max_text_chars).collect())
    }
}

async fn read_limited(resp: reqwest::Response, max: usize) -> Result<Vec<u8>, KnowledgeError> {
    let (body, _) = ufo_llm::net::read_capped(resp, max)
        .await
        .map_err(err_from)?;
    Ok(body)
}

/// Whether `ip` is a public unicast address (the guard's rule, re-exported).
pub use ufo_llm::net::is_public;

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
