//! [`HttpModel`]: a [`ChatModel`] that talks to a provider over HTTP, with timeouts,
//! retries and request downgrades.
//!
//! One call:
//! 1. web images are downloaded first for providers that cannot take URLs
//!    (Ollama, Gemini); a failed download drops the image with a warning;
//! 2. the request is built ([`crate::provider::build`]);
//! 3. it is sent; a 429, 5xx, 529 or transport error (timeout included) is retried
//!    up to `MAX_RETRY` times, waiting `Retry-After` or an exponential backoff
//!    ([`RetryPolicy`]); a 401/403/404 is returned at once with a help line naming
//!    the key to fix; an "unsupported parameter" error (temperature on a reasoning
//!    model, `max_tokens`, `response_format`) downgrades the body and retries once;
//! 4. the reply is parsed into text and usage, and cost is computed from the price
//!    table; when the provider reports no prompt tokens, the request's image tokens
//!    are estimated ([`ChatResponse::estimated_image_tokens`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use base64::Engine as _;

use crate::auth::TokenCache;
use crate::config::{ApiType, LlmConfig};
use crate::cost::{PriceTable, Pricing};
use crate::error::{ErrorClass, LlmError};
use crate::format::Strategy;
use crate::message::{ChatRequest, ChatResponse};
use crate::model::ChatModel;
use crate::provider::{self, WireRequest};
use crate::redact::{Secret, scrub};
use crate::retry::RetryPolicy;

/// A model reached over HTTP.
pub struct HttpModel {
    cfg: LlmConfig,
    api: ApiType,
    model: String,
    strategy: Strategy,
    http: reqwest::Client,
    retry: RetryPolicy,
    prices: Option<Arc<PriceTable>>,
    token: TokenCache,
}

impl std::fmt::Debug for HttpModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpModel")
            .field("api", &self.api)
            .field("model", &self.model)
            .field("strategy", &self.strategy)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl HttpModel {
    /// A model for one agent section. Fails on a missing or invalid key.
    pub fn new(cfg: LlmConfig) -> Result<Self, LlmError> {
        let api = cfg.api_type;
        cfg.check_ranges()?;
        if api == ApiType::Replay {
            return Err(LlmError::config(
                "API_TYPE",
                "use replay::ReplayModel for API_TYPE replay",
            ));
        }
        let model = cfg.model()?;
        if cfg.use_responses {
            tracing::warn!(target: "ufo_llm", "USE_RESPONSES is not supported yet: using Chat Completions");
        }
        let http = http_client(api.name(), cfg.timeout())?;
        Ok(Self {
            retry: cfg.retry_policy(),
            cfg,
            api,
            model,
            strategy: Strategy::Native,
            http,
            prices: None,
            token: TokenCache::default(),
        })
    }

    /// Uses an AgentScope formatting strategy instead of the native one.
    pub fn with_strategy(mut self, strategy: Strategy) -> Result<Self, LlmError> {
        crate::format::check_strategy(self.api, strategy)?;
        self.strategy = strategy;
        Ok(self)
    }

    /// Prices calls with `prices`.
    #[must_use]
    pub fn with_prices(mut self, prices: Arc<PriceTable>) -> Self {
        self.prices = Some(prices);
        self
    }

    /// Overrides the retry policy from the configuration.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The provider.
    pub fn api(&self) -> ApiType {
        self.api
    }

    /// The request that would be sent, without sending it and without fetching web
    /// images (they are noted) or an Azure AD token (`Bearer ***`).
    pub fn dry_run(&self, request: &ChatRequest) -> Result<WireRequest, LlmError> {
        let auth = if self.cfg.api_key.is_empty() {
            Secret::new("<API_KEY>")
        } else {
            self.cfg.api_key.clone()
        };
        provider::build(&self.cfg, self.strategy, request, &auth, &HashMap::new())
    }

    async fn auth(&self) -> Result<Secret, LlmError> {
        match self.api.info().auth {
            crate::api::Auth::AzureAdToken => self.token.token(&self.cfg).await,
            _ => Ok(self.cfg.api_key.clone()),
        }
    }

    /// Downloads web images for providers that need them inline, under
    /// the same guard as search's page fetches ([`crate::net`]): public
    /// addresses only (unless `PRIVATE_IMAGE_URLS`), pinned, no environment
    /// proxy, redirects checked,
    /// at most [`MAX_IMAGE_BYTES`] each (a larger image is left out).
    async fn download_images(
        &self,
        urls: Vec<String>,
        warnings: &mut Vec<String>,
    ) -> HashMap<String, (String, String)> {
        let limits = crate::net::FetchLimits {
            timeout: self.cfg.timeout(),
            max_bytes: MAX_IMAGE_BYTES,
            allow_private: self.cfg.private_image_urls,
        };
        let mut out = HashMap::new();
        for url in urls {
            if out.contains_key(&url) {
                continue;
            }
            let fetched = match crate::net::fetch(&url, limits).await {
                Ok(f) if f.truncated => Err(format!("larger than {MAX_IMAGE_BYTES} bytes")),
                Ok(f) => Ok(f),
                Err(e) => Err(e),
            };
            match fetched {
                Ok(f) => {
                    let mime = f
                        .mime
                        .filter(|m| m.starts_with("image/"))
                        .or_else(|| {
                            image::guess_format(&f.body)
                                .ok()
                                .map(|f| f.to_mime_type().to_owned())
                        })
                        .unwrap_or_else(|| "image/png".to_owned());
                    let data = base64::engine::general_purpose::STANDARD.encode(&f.body);
                    out.insert(url, (mime, data));
                }
                Err(e) => {
                    let w = format!("ignored image {url}: download failed ({e})");
                    tracing::warn!(target: "ufo_llm", "{w}");
                    warnings.push(w);
                }
            }
        }
        out
    }

    async fn send_once(
        &self,
        wire: &WireRequest,
        secret: &Secret,
    ) -> Result<provider::Parsed, LlmError> {
        let provider = self.api.name();
        let body = serde_json::to_vec(&wire.body).map_err(|e| LlmError::InvalidMessages {
            message: format!("the request cannot be serialised: {e}"),
            source: Some(e.into()),
        })?;
        if body.len() > MAX_REQUEST_BYTES {
            return Err(LlmError::TooLarge {
                what: "request",
                verb: "sent",
                bytes: body.len(),
                limit: MAX_REQUEST_BYTES,
            });
        }
        let mut req = self
            .http
            .post(&wire.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        for (k, v) in &wire.headers {
            if !k.eq_ignore_ascii_case("content-type") {
                req = req.header(k, v);
            }
        }
        let secrets = [secret, &self.cfg.api_key];
        let (status, headers, body) = exchange(req, provider, self.cfg.timeout(), &secrets).await?;
        if status.is_success() {
            provider::parse_success(wire, &body)
        } else {
            Err(LlmError::Api(provider::parse_error(
                provider,
                status.as_u16(),
                &headers,
                &body,
                &secrets,
            )))
        }
    }
}

/// The largest image downloaded to be sent inline.
pub(crate) const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

#[async_trait]
impl ChatModel for HttpModel {
    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let secret = self.auth().await?;
        let mut warnings = Vec::new();
        let mut wire =
            provider::build(&self.cfg, self.strategy, &request, &secret, &HashMap::new())?;
        let remote = provider::remote_images(&wire);
        if !remote.is_empty() {
            let inlined = self.download_images(remote, &mut warnings).await;
            wire = provider::build(&self.cfg, self.strategy, &request, &secret, &inlined)?;
            // Images whose download failed are left out rather than sent as URLs.
            wire.notes.clear();
            strip_remote_images(&mut wire.body);
        }
        warnings.extend(wire.warnings.iter().cloned());

        let mut attempts = 0u32;
        let mut retries = 0u32;
        let mut downgraded = false;
        let parsed = loop {
            attempts += 1;
            tracing::debug!(target: "ufo_llm", provider = self.api.name(), model = %self.model, attempt = attempts, url = %wire.url, "sending request");
            match self.send_once(&wire, &secret).await {
                Ok(p) => break p,
                Err(LlmError::Api(e))
                    if e.class() == ErrorClass::UnsupportedParameter && !downgraded =>
                {
                    match provider::downgrade(&mut wire.body, &e) {
                        Some(what) => {
                            downgraded = true;
                            let w = format!("request downgraded: {what}");
                            tracing::warn!(target: "ufo_llm", provider = self.api.name(), "{w}");
                            warnings.push(w);
                        }
                        None => return Err(LlmError::Api(e)),
                    }
                }
                Err(e) if e.is_retryable() && retries < self.retry.max_retries => {
                    let delay = self.retry.delay(retries, e.retry_after());
                    retries += 1;
                    tracing::warn!(target: "ufo_llm", provider = self.api.name(), retry = retries, delay_ms = delay.as_millis() as u64, "retrying after: {e}");
                    tokio::time::sleep(delay).await;
                }
                Err(e) => return Err(e),
            }
        };
        let pricing = match &self.prices {
            Some(p) => p.pricing(self.api, &self.model),
            None if self.api.info().local => Pricing::Local,
            None => Pricing::Unknown,
        };
        let cost = pricing.cost(&parsed.usage);
        let estimated_image_tokens = (parsed.usage.prompt_tokens == 0)
            .then(|| estimate_request_image_tokens(&self.model, &request))
            .filter(|&n| n > 0);
        Ok(ChatResponse {
            text: parsed.text,
            usage: parsed.usage,
            cost,
            local: pricing == Pricing::Local,
            model: self.model.clone(),
            provider: self.api.name().to_owned(),
            latency: started.elapsed(),
            finish_reason: parsed.finish_reason,
            attempts,
            used_backup: false,
            warnings,
            estimated_image_tokens,
        })
    }

    fn describe(&self) -> String {
        format!("{}/{}", self.api, self.model)
    }
}

/// Drops Ollama `images` entries and Gemini `file_data` parts that are still web URLs.
fn strip_remote_images(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(images)) = m.get_mut("images") {
                images.retain(|i| !i.as_str().is_some_and(crate::media::is_http));
            }
            m.values_mut().for_each(strip_remote_images);
        }
        Value::Array(a) => {
            a.retain(|x| {
                !x.get("file_data")
                    .and_then(|fd| fd.get("file_uri"))
                    .and_then(Value::as_str)
                    .is_some_and(crate::media::is_http)
            });
            a.iter_mut().for_each(strip_remote_images);
        }
        _ => {}
    }
}

/// The largest request body sent: an agent step with two screenshots is a
/// few MB.
pub(crate) const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;

/// The largest response body read.
pub(crate) const MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// Sends `req` and reads its reply: status, headers and at most
/// [`MAX_RESPONSE_BYTES`] of body. A transport failure (timeout included)
/// is an [`LlmError::Transport`] that names `provider` and leaks none of
/// `secrets`.
pub(crate) async fn exchange(
    req: reqwest::RequestBuilder,
    provider: &str,
    limit: std::time::Duration,
    secrets: &[&Secret],
) -> Result<(reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>), LlmError> {
    let transport = |e: reqwest::Error| LlmError::Transport {
        provider: provider.to_owned(),
        timeout: e.is_timeout(),
        message: scrub(&transport_message(&e, limit), secrets),
    };
    let mut resp = req.send().await.map_err(transport)?;
    let status = resp.status();
    let headers = resp.headers().clone();
    // Read at most MAX_RESPONSE_BYTES: a misconfigured API_BASE may stream
    // anything.
    let mut body: Vec<u8> = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(transport)? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_RESPONSE_BYTES {
            return Err(LlmError::TooLarge {
                what: "response",
                verb: "read",
                bytes: body.len(),
                limit: MAX_RESPONSE_BYTES,
            });
        }
    }
    Ok((status, headers, body))
}

/// What went wrong with a request, said the way a user can act on it: a
/// timeout is not a refused connection, and reqwest's own text ("error
/// sending request") says neither.
fn transport_message(e: &reqwest::Error, limit: std::time::Duration) -> String {
    if e.is_timeout() {
        return format!("no answer within {} s (TIMEOUT)", limit.as_secs_f64());
    }
    // The innermost cause names the real problem (connection refused, DNS).
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    let root = cause.to_string();
    if e.is_connect() {
        format!("cannot connect to the server: {root}")
    } else if root != e.to_string() {
        format!("{e}: {root}")
    } else {
        e.to_string()
    }
}

/// Estimated image tokens of a request for an OpenAI-style vision `model`: the
/// sum over images whose size can be read (inline data and local files); web URLs
/// are not fetched and count 0.
pub fn estimate_request_image_tokens(model: &str, request: &ChatRequest) -> u64 {
    let mut total = 0;
    for msg in &request.messages {
        for part in msg.parts() {
            if let crate::message::Part::ImageUrl { image_url } = part
                && let Ok(crate::media::Media::Inline { data, .. }) =
                    crate::media::resolve(&image_url.url, &[crate::media::MediaKind::Image])
                && let Some((w, h)) = crate::media::inline_dimensions(&data)
            {
                total += crate::usage::openai_image_tokens(
                    model,
                    w,
                    h,
                    crate::usage::Detail::parse(image_url.detail.as_deref()),
                );
            }
        }
    }
    total
}

/// An HTTP client for `provider` whose requests end after `timeout` (and
/// whose connections are given at most 15 s of it).
pub(crate) fn http_client(
    provider: &str,
    timeout: std::time::Duration,
) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(std::time::Duration::from_secs(15)))
        .build()
        .map_err(|e| LlmError::Transport {
            provider: provider.to_owned(),
            message: format!("cannot create the HTTP client: {e}"),
            timeout: false,
        })
}
