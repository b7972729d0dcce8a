//! Provider wire formats: building the exact HTTP request for an `API_TYPE` and a
//! formatting [`Strategy`], and parsing the provider's success and error replies.
//!
//! | API_TYPE | endpoint (default base) | auth |
//! |---|---|---|
//! | `openai` | `https://api.openai.com/v1` + `/chat/completions` | `Authorization: Bearer` |
//! | `aoai` | `{base}/openai/deployments/{API_DEPLOYMENT_ID}/chat/completions?api-version={API_VERSION}` | `api-key` |
//! | `azure_ad` | as `aoai` | `Authorization: Bearer <AAD token>` |
//! | `qwen` | `https://dashscope.aliyuncs.com/compatible-mode/v1` + `/chat/completions`; native when `API_BASE` contains `/api/v1` (or a DashScope strategy): `…/services/aigc/{text,multimodal}-generation/generation` | `Authorization: Bearer` |
//! | `deepseek` | `https://api.deepseek.com/v1` + `/chat/completions` | `Authorization: Bearer` |
//! | `ollama` | `http://localhost:11434` + `/api/chat` (or `/api/generate`) | none |
//! | `gemini` | `https://generativelanguage.googleapis.com/v1beta` + `/models/{model}:generateContent` | `x-goog-api-key` |
//! | `claude` | `https://api.anthropic.com/v1` + `/messages` | `x-api-key`, `anthropic-version` |
//! | `zhipu` | `https://open.bigmodel.cn/api/paas/v4` + `/chat/completions` | `Authorization: Bearer` |
//! | `custom` | `API_BASE` (required) + `/chat/completions` (`/v1` added to a bare host) | `Authorization: Bearer` if `API_KEY` is set |
//!
//! An `API_BASE` that already ends with the endpoint path is used as is.

mod anthropic;
mod dashscope;
mod errors;
mod gemini;
mod ollama;
mod openai;

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value, json};

pub(crate) use errors::parse_error;

use crate::api::{ApiType, Auth, Wire};
use crate::config::LlmConfig;
use crate::error::{ApiError, LlmError};
use crate::format::{Strategy, check_strategy};
use crate::media::is_http;
use crate::message::{ChatOptions, ChatRequest};
use crate::redact::{Secret, redact_header_value};
use crate::usage::Usage;

/// The wire protocol a request speaks (decides body shape and reply parsing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    OpenAi,
    DashScope,
    OllamaChat,
    OllamaGenerate,
    Gemini,
    Anthropic,
}

/// One HTTP request, ready to send or to print.
#[derive(Clone)]
pub struct WireRequest {
    /// HTTP method (always `POST` today).
    pub method: String,
    /// Full URL (never holds a secret).
    pub url: String,
    /// Headers; values of `secret_headers` hold secrets.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
    /// Things a dry run did not do (e.g. images it would download).
    pub notes: Vec<String>,
    /// Ignored images and other non-fatal problems.
    pub warnings: Vec<String>,
    secret_headers: Vec<String>,
    pub(crate) family: Family,
    pub(crate) provider: ApiType,
}

impl fmt::Debug for WireRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WireRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &self.redacted_headers())
            .field("body", &self.body)
            .finish_non_exhaustive()
    }
}

impl WireRequest {
    /// Headers with secret values redacted (`Bearer ***`, `***`).
    pub fn redacted_headers(&self) -> Map<String, Value> {
        self.headers
            .iter()
            .map(|(k, v)| {
                let v = if self
                    .secret_headers
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(k))
                {
                    redact_header_value(k, v)
                } else {
                    v.clone()
                };
                (k.clone(), Value::String(v))
            })
            .collect()
    }

    /// The request with secrets redacted: what `ufo llm format` prints.
    pub fn redacted(&self) -> RedactedRequest {
        RedactedRequest {
            method: self.method.clone(),
            url: self.url.clone(),
            headers: self.redacted_headers(),
            body: self.body.clone(),
            notes: self.notes.clone(),
            warnings: self.warnings.clone(),
        }
    }

    fn header(&mut self, name: &str, value: impl Into<String>) {
        self.headers.push((name.to_owned(), value.into()));
    }

    fn secret_header(&mut self, name: &str, value: impl Into<String>) {
        self.header(name, value);
        self.secret_headers.push(name.to_owned());
    }
}

/// A [`WireRequest`] with secrets redacted. It serializes its fields in this order
/// — `method`, `url`, `headers`, `body` — then `notes` and `warnings` when there
/// are any.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RedactedRequest {
    /// HTTP method.
    pub method: String,
    /// Full URL (never holds a secret).
    pub url: String,
    /// Headers, secret values redacted (`Bearer ***`, `***`).
    pub headers: Map<String, Value>,
    /// The JSON body.
    pub body: Value,
    /// Things a dry run did not do (e.g. images it would download).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Ignored images and other non-fatal problems.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What a success reply says.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Parsed {
    pub(crate) text: String,
    pub(crate) usage: Usage,
    pub(crate) finish_reason: Option<String>,
}

/// Options from the request, falling back to the configuration; a reasoning model
/// gets no `temperature`/`top_p`.
pub(crate) fn effective_options(cfg: &LlmConfig, request: &ChatRequest) -> ChatOptions {
    let o = &request.options;
    let mut out = ChatOptions {
        temperature: o.temperature.or(cfg.temperature),
        top_p: o.top_p.or(cfg.top_p),
        max_tokens: o.max_tokens.or(cfg.max_tokens),
        json: o.json.clone(),
    };
    if cfg.reasoning_model {
        out.temperature = None;
        out.top_p = None;
    }
    out
}

/// `base` + `suffix`, unless `base` already ends with `suffix`.
pub(crate) fn join(base: &str, suffix: &str) -> String {
    let b = base.trim_end_matches('/');
    if b.ends_with(suffix) {
        b.to_owned()
    } else {
        format!("{b}{suffix}")
    }
}

/// Whether a URL has no path (a bare host such as `http://localhost:8000`).
pub(crate) fn bare_host(base: &str) -> bool {
    url::Url::parse(base)
        .map(|u| u.path().trim_matches('/').is_empty())
        .unwrap_or(false)
}

/// What every provider's `build` gets: the configuration, the strategy, the
/// model name, the request and its effective options.
pub(super) struct Call<'a> {
    pub(super) api: ApiType,
    pub(super) cfg: &'a LlmConfig,
    pub(super) strategy: Strategy,
    pub(super) model: &'a str,
    pub(super) request: &'a ChatRequest,
    pub(super) opts: &'a ChatOptions,
}

impl Call<'_> {
    /// `API_BASE`, else the provider's default, with `/v1` added to a bare host.
    pub(super) fn base(&self) -> String {
        with_version(
            self.cfg
                .base()
                .or(self.api.info().default_base)
                .unwrap_or_default(),
            "v1",
        )
    }
}

/// The sampling options that are set, under the provider's names for
/// `[temperature, top_p, max_tokens]`.
pub(crate) fn sampling(opts: &ChatOptions, names: [&str; 3]) -> Map<String, Value> {
    let [temperature, top_p, max_tokens] = names;
    let mut out = Map::new();
    if let Some(t) = opts.temperature {
        out.insert(temperature.into(), json!(t));
    }
    if let Some(p) = opts.top_p {
        out.insert(top_p.into(), json!(p));
    }
    if let Some(m) = opts.max_tokens {
        out.insert(max_tokens.into(), json!(m));
    }
    out
}

/// Adds `fields` to a JSON object (`target` is always one here).
pub(crate) fn merge(target: &mut Value, fields: Map<String, Value>) {
    if let Value::Object(t) = target {
        t.extend(fields);
    }
}

/// `base` with `/{version}` added when it is a bare host (`http://host:port`).
pub(crate) fn with_version(base: &str, version: &str) -> String {
    if bare_host(base) {
        format!("{}/{version}", base.trim_end_matches('/'))
    } else {
        base.to_owned()
    }
}

/// Builds the request for `cfg` with `strategy`. `auth` is the key or bearer token
/// to put in the auth header. `inlined` maps web image URLs to downloaded
/// `(mime, base64)` for providers that cannot take URLs (Ollama, Gemini); URLs
/// missing from it are kept and noted.
pub(crate) fn build(
    cfg: &LlmConfig,
    strategy: Strategy,
    request: &ChatRequest,
    auth: &Secret,
    inlined: &HashMap<String, (String, String)>,
) -> Result<WireRequest, LlmError> {
    let api = cfg.api_type;
    check_strategy(api, strategy)?;
    if request.messages.is_empty() {
        return Err(LlmError::InvalidMessages {
            message: "no messages to send".into(),
            source: None,
        });
    }
    let model = cfg.model()?;
    let opts = effective_options(cfg, request);
    let call = Call {
        api,
        cfg,
        strategy,
        model: &model,
        request,
        opts: &opts,
    };
    let mut wire = match api.info().wire {
        Wire::Qwen
            if matches!(
                strategy,
                Strategy::DashScopeChat | Strategy::DashScopeMultimodal
            ) || cfg.base().is_some_and(|b| b.contains("/api/v1")) =>
        {
            dashscope::build(&call)
        }
        Wire::Ollama => ollama::build(&call),
        Wire::Gemini => gemini::build(&call),
        Wire::Anthropic => anthropic::build(&call),
        Wire::Replay => {
            return Err(LlmError::config(
                "API_TYPE",
                "replay answers from a cassette and sends no HTTP request",
            ));
        }
        Wire::OpenAi | Wire::Zhipu | Wire::Qwen => openai::build(&call)?,
    };
    wire.provider = api;
    wire.header("content-type", "application/json");
    add_auth(&mut wire, api, cfg, auth)?;
    if matches!(
        wire.family,
        Family::OllamaChat | Family::OllamaGenerate | Family::Gemini
    ) {
        inline_remote_images(&mut wire, inlined);
    }
    Ok(wire)
}

fn add_auth(
    wire: &mut WireRequest,
    api: ApiType,
    cfg: &LlmConfig,
    auth: &Secret,
) -> Result<(), LlmError> {
    let need = |what: &str| {
        if auth.is_empty() {
            Err(LlmError::config(
                "API_KEY",
                format!("missing ({what} needs a key)"),
            ))
        } else {
            Ok(())
        }
    };
    match api.info().auth {
        Auth::None => {}
        Auth::OptionalBearer => {
            if !auth.is_empty() {
                wire.secret_header("authorization", format!("Bearer {}", auth.expose()));
            }
        }
        Auth::Header(name) => {
            need(api.name())?;
            wire.secret_header(name, auth.expose());
        }
        Auth::Anthropic => {
            need(api.name())?;
            wire.secret_header("x-api-key", auth.expose());
            let version = cfg
                .api_version
                .as_deref()
                .filter(|v| v.len() == 10 && v.starts_with("20"))
                .unwrap_or("2023-06-01");
            wire.header("anthropic-version", version);
        }
        Auth::AzureAdToken => {
            if auth.is_empty() {
                return Err(LlmError::Token {
                    message: "no token".into(),
                });
            }
            wire.secret_header("authorization", format!("Bearer {}", auth.expose()));
        }
        Auth::Bearer => {
            need(api.name())?;
            wire.secret_header("authorization", format!("Bearer {}", auth.expose()));
        }
    }
    Ok(())
}

fn new_wire(url: String, body: Value, family: Family, warnings: Vec<String>) -> WireRequest {
    WireRequest {
        method: "POST".into(),
        url,
        headers: Vec::new(),
        body,
        notes: Vec::new(),
        warnings,
        secret_headers: Vec::new(),
        family,
        provider: ApiType::OpenAi,
    }
}

/// Web image URLs a request body holds that its provider cannot take by URL.
pub(crate) fn remote_images(wire: &WireRequest) -> Vec<String> {
    let mut out = Vec::new();
    walk_remote(&wire.body, &mut |url| out.push(url.to_owned()));
    out
}

fn walk_remote(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(images)) = m.get("images") {
                images
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|s| is_http(s))
                    .for_each(&mut *f);
            }
            if let Some(uri) = m
                .get("file_data")
                .and_then(|fd| fd.get("file_uri"))
                .and_then(Value::as_str)
                && is_http(uri)
            {
                f(uri);
            }
            m.values().for_each(|x| walk_remote(x, f));
        }
        Value::Array(a) => a.iter().for_each(|x| walk_remote(x, f)),
        _ => {}
    }
}

/// Replaces web image URLs with downloaded data where available; notes the rest.
fn inline_remote_images(wire: &mut WireRequest, inlined: &HashMap<String, (String, String)>) {
    let mut notes = Vec::new();
    inline_walk(&mut wire.body, inlined, &mut notes);
    notes.sort();
    notes.dedup();
    wire.notes.extend(notes);
}

fn inline_walk(
    v: &mut Value,
    inlined: &HashMap<String, (String, String)>,
    notes: &mut Vec<String>,
) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(images)) = m.get_mut("images") {
                for img in images.iter_mut() {
                    let Some(url) = img.as_str().filter(|s| is_http(s)).map(str::to_owned) else {
                        continue;
                    };
                    match inlined.get(&url) {
                        Some((_, data)) => *img = json!(data),
                        None => notes.push(format!(
                            "image {url} must be downloaded and sent as base64 (this API takes no image URLs); not fetched in a dry run"
                        )),
                    }
                }
            }
            let uri = m
                .get("file_data")
                .and_then(|fd| fd.get("file_uri"))
                .and_then(Value::as_str)
                .filter(|s| is_http(s))
                .map(str::to_owned);
            if let Some(url) = uri {
                match inlined.get(&url) {
                    Some((mime, data)) => {
                        m.remove("file_data");
                        m.insert("inline_data".into(), json!({"mime_type": mime, "data": data}));
                    }
                    None => notes.push(format!(
                        "image {url} must be downloaded and sent as inline_data (this API takes no image URLs); not fetched in a dry run"
                    )),
                }
            }
            m.values_mut().for_each(|x| inline_walk(x, inlined, notes));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| inline_walk(x, inlined, notes)),
        _ => {}
    }
}

/// Parses a 2xx body.
pub(crate) fn parse_success(wire: &WireRequest, body: &[u8]) -> Result<Parsed, LlmError> {
    let provider = wire.provider.name();
    let v: Value = serde_json::from_slice(body).map_err(|e| LlmError::MalformedResponse {
        provider: provider.to_owned(),
        message: format!("the body is not JSON ({e})"),
        excerpt: excerpt(body),
    })?;
    let parsed = match wire.family {
        Family::OpenAi => openai::parse(provider, &v),
        Family::DashScope => dashscope::parse(provider, &v),
        Family::OllamaChat | Family::OllamaGenerate => ollama::parse(provider, &v),
        Family::Gemini => gemini::parse(provider, &v),
        Family::Anthropic => anthropic::parse(provider, &v),
    };
    parsed.map_err(|e| match e {
        LlmError::MalformedResponse {
            provider, message, ..
        } => LlmError::MalformedResponse {
            provider,
            message,
            excerpt: excerpt(body),
        },
        other => other,
    })
}

/// The first 200 characters of a body.
pub(crate) fn excerpt(body: &[u8]) -> String {
    String::from_utf8_lossy(body).chars().take(200).collect()
}

pub(crate) fn malformed(provider: &str, message: impl Into<String>) -> LlmError {
    LlmError::MalformedResponse {
        provider: provider.to_owned(),
        message: message.into(),
        excerpt: String::new(),
    }
}

/// A message `content` that is a string, or a list of parts whose `text`s are
/// joined; `None` for anything else (null, absent).
pub(crate) fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

/// A reply with no text to give.
pub(crate) fn empty(provider: &str, reason: impl Into<String>) -> LlmError {
    LlmError::EmptyResponse {
        provider: provider.to_owned(),
        reason: reason.into(),
    }
}

/// Usage from a provider's usage object `u`: prompt tokens at `prompt`, completion
/// tokens summed over `completion`, and the total at `total` when the provider
/// reports one (prompt + completion otherwise). Absent counts are 0.
pub(crate) fn usage_from(
    u: &Value,
    prompt: &str,
    completion: &[&str],
    total: Option<&str>,
) -> Usage {
    let completion = completion.iter().map(|k| u64_at(u, &[k])).sum();
    let mut usage = Usage::new(u64_at(u, &[prompt]), completion);
    if let Some(t) = total.and_then(|k| u.get(k)).and_then(Value::as_u64) {
        usage.total_tokens = t;
    }
    usage
}

pub(crate) fn u64_at(v: &Value, path: &[&str]) -> u64 {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// Rewrites the body after an "unsupported parameter" error. Returns what was
/// changed, or `None` when nothing could be (then the error stands).
pub(crate) fn downgrade(body: &mut Value, err: &ApiError) -> Option<String> {
    let msg = err.message.to_ascii_lowercase();
    let mut changed = Vec::new();
    if msg.contains("response_format") || msg.contains("json_schema") || msg.contains("json mode") {
        remove_keys(
            body,
            &[
                "response_format",
                "responseMimeType",
                "responseJsonSchema",
                "format",
            ],
            &mut changed,
        );
    }
    if msg.contains("max_tokens")
        && let Value::Object(m) = &mut *body
        && let Some(v) = m.remove("max_tokens")
    {
        m.insert("max_completion_tokens".into(), v);
        changed.push("renamed `max_tokens` to `max_completion_tokens`".into());
    }
    if msg.contains("temperature")
        || msg.contains("top_p")
        || msg.contains("topp")
        || changed.is_empty()
    {
        remove_keys(body, &["temperature", "top_p", "topP"], &mut changed);
    }
    (!changed.is_empty()).then(|| format!("{} after: {}", changed.join(", "), err.message))
}

/// Removes `keys` from the body and from its parameter containers.
fn remove_keys(body: &mut Value, keys: &[&str], changed: &mut Vec<String>) {
    for c in ["", "parameters", "options", "generationConfig"] {
        let target = if c.is_empty() {
            Some(&mut *body)
        } else {
            body.get_mut(c)
        };
        if let Some(Value::Object(m)) = target {
            for k in keys {
                if m.remove(*k).is_some() {
                    changed.push(format!("removed `{k}`"));
                }
            }
        }
    }
}
